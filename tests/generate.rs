//! Generated artifacts: completions and the man page come from the clap definition, and the
//! checked-in `completions/` must match what the binary generates today.
//!
//! After changing the CLI, refresh them with:
//! `PI_CONTEXT_UPDATE_COMPLETIONS=1 cargo test --test generate`

mod common;

use std::path::Path;

use common::TestEnv;

const SHELLS: [(&str, &str, &str); 5] = [
    ("bash", "pi-context.bash", "_pi__context()"),
    ("zsh", "_pi-context", "#compdef pi-context"),
    ("fish", "pi-context.fish", "complete -c pi-context"),
    (
        "elvish",
        "pi-context.elv",
        "edit:completion:arg-completer[pi-context]",
    ),
    (
        "powershell",
        "_pi-context.ps1",
        "Register-ArgumentCompleter",
    ),
];

fn generate(env: &TestEnv, args: &[&str]) -> String {
    let output = env.cmd().args(args).output().expect("run");
    assert!(output.status.success(), "{args:?} failed");
    assert!(output.stderr.is_empty(), "{args:?} wrote to stderr");
    String::from_utf8(output.stdout).expect("utf-8")
}

#[test]
fn checked_in_completions_are_current() {
    let env = TestEnv::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let update = std::env::var_os("PI_CONTEXT_UPDATE_COMPLETIONS").is_some();
    let mut stale = Vec::new();
    for (shell, file, token) in SHELLS {
        let generated = generate(&env, &["completions", shell]);
        assert!(
            generated.contains(token),
            "{shell} completion lacks {token:?}"
        );
        let path = dir.join(file);
        if update {
            std::fs::create_dir_all(&dir).expect("create completions/");
            std::fs::write(&path, &generated).expect("write completion");
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(generated.as_str()) {
            stale.push(file);
        }
    }
    assert!(
        stale.is_empty(),
        "completions/{stale:?} are stale; run `PI_CONTEXT_UPDATE_COMPLETIONS=1 cargo test --test generate` and commit"
    );
}

#[test]
fn completions_cover_every_subcommand() {
    let env = TestEnv::new();
    let bash = generate(&env, &["completions", "bash"]);
    for word in [
        "history",
        "notes",
        "dream",
        "doctor",
        "boot",
        "tool",
        "completions",
        "man",
        "search",
    ] {
        assert!(bash.contains(word), "bash completion lacks {word}");
    }
}

#[test]
fn man_page_is_roff_for_pi_context() {
    let env = TestEnv::new();
    let man = generate(&env, &["man"]);
    assert!(man.contains(".TH pi-context"), "no .TH header");
    assert!(man.contains("history"));
}

#[test]
fn unknown_shell_is_a_usage_error() {
    let env = TestEnv::new();
    let output = env
        .cmd()
        .args(["completions", "tcsh"])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
}
