//! Generated artifacts: completions and the man page come from the clap definition, and the
//! checked-in `completions/` must match what the binary generates today.
//!
//! After changing the CLI, refresh them with:
//! `PI_CONTEXT_UPDATE_COMPLETIONS=1 cargo test --test runner generate::`

use crate::common;

use std::path::Path;

use common::{Run, TestEnv};

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
    let output = env.cmd().args(args).run().success();
    assert!(output.stderr.is_empty(), "{args:?} wrote to stderr");
    output.stdout
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
    let output = env.cmd().args(["completions", "tcsh"]).run().expect_code(2);
    assert!(output.stdout.is_empty());
}

/// `docs/environment.md` lists the documented variables exactly as `src/environment/vars.rs`
/// declares them (refresh with `PI_CONTEXT_UPDATE_COMPLETIONS=1 cargo test --test runner generate::`),
/// and `--help` ends with them.
#[test]
fn the_environment_variables_are_documented_from_their_one_declaration() {
    const START: &str =
        "<!-- variables: generated from src/environment/vars.rs; tests/generate.rs checks it -->\n";
    const END: &str = "<!-- end of variables -->";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/environment.md");
    let doc = std::fs::read_to_string(&path).expect("docs/environment.md");
    let start = doc.find(START).expect("start marker") + START.len();
    let end = doc.find(END).expect("end marker");
    let table = pi_context::environment::vars::markdown_table();
    if std::env::var_os("PI_CONTEXT_UPDATE_COMPLETIONS").is_some() {
        std::fs::write(&path, format!("{}{table}{}", &doc[..start], &doc[end..])).unwrap();
        return;
    }
    assert_eq!(&doc[start..end], table, "docs/environment.md is stale");
    let help = generate(&TestEnv::new(), &["--help"]);
    for var in pi_context::environment::vars::ALL {
        assert_eq!(
            help.contains(var.name),
            !var.hidden,
            "{} in --help",
            var.name
        );
    }
}

/// `--help` and the man page end with the exit statuses (CONTRACT: 0, 1, 2, 70, 74, 75), after
/// the environment variables.
#[test]
fn help_and_man_page_end_with_the_exit_statuses() {
    let env = TestEnv::new();
    for args in [&["--help"][..], &["man"]] {
        let text = generate(&env, args);
        let table = text
            .find("Exit status:")
            .map(|at| &text[at..])
            .unwrap_or_else(|| panic!("{args:?} has no exit statuses"));
        assert!(
            text.find("Environment:") < text.find("Exit status:"),
            "{args:?}"
        );
        for status in ["0", "1", "2", "70", "74", "75"] {
            assert!(
                table.lines().any(|line| line.trim() == status),
                "{args:?} lacks exit status {status}:\n{table}"
            );
        }
        assert!(table.contains("a usage or input error"), "{table}");
        assert!(table.contains("(`| head`)"), "{table}");
    }
}
