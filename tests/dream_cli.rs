//! How `pi-context dream` starts the dreamer and what it passes (argv, prompt, cwd, stdin, jail),
//! the playbook flags, the `dream` alias, settings, the git identity of the audit commits, and
//! usage errors. Fake `pi` scripts record how they were started.

use crate::common;

use std::fs;
use std::path::Path;

use common::dream::*;
use common::TestEnv;

const PLAYBOOK: &str = include_str!("../playbook/playbook.md");
const JAIL: &str = include_str!("../src/dream/jail.ts");

#[test]
fn the_dreamer_is_pi_in_json_mode_jailed_in_the_notes_home() {
    let env = TestEnv::new();
    let home = env.notes_home();
    // The jail extension is copied out while the dreamer runs: it must be the embedded one.
    let pi = FakePi::new(
        &env.work(),
        "pi-argv",
        &format!(
            "prev=; for a in \"$@\"; do [ \"$prev\" = --extension ] && cp \"$a\" \"$D/jail.ts\" && echo \"$a\" > \"$D/jail-path\"; prev=$a; done\n{}",
            emit_done("ok")
        ),
    );
    let _ = dream_cmd(&env)
        .args([
            "--force",
            "--dreamer",
            "acme/Big-Model",
            "--agent",
            "Night Owl",
            "--pi",
        ])
        .arg(&pi.path)
        .run()
        .expect_code(0);

    let args = pi.args();
    let expected_prefix = [
        "--mode",
        "json",
        "--no-session",
        "--tools",
        "read,grep,find,ls,write,edit,notes_move",
        "--no-extensions",
    ];
    assert_eq!(&args[..expected_prefix.len()], expected_prefix, "{args:?}");
    for flag in ["--no-context-files", "--no-skills", "--no-prompt-templates"] {
        assert!(args.iter().any(|a| a == flag), "{flag} missing: {args:?}");
    }
    assert_eq!(pi.arg_after("--model").as_deref(), Some("acme/Big-Model"));
    let dd = pi.argv.parent().unwrap();
    assert_eq!(fs::read_to_string(dd.join("jail.ts")).unwrap(), JAIL);
    // The jail file lives in a temporary directory that is gone after the run.
    let jail_path = fs::read_to_string(dd.join("jail-path")).unwrap();
    assert!(!Path::new(jail_path.trim()).exists(), "{jail_path}");
    // The prompt is the last argument, after `--`.
    assert_eq!(args[args.len() - 2], "--");

    // cwd = the notes home; stdin is empty (null).
    assert_eq!(
        fs::read_to_string(&pi.cwd).unwrap().trim(),
        fs::canonicalize(&home).unwrap().to_str().unwrap()
    );
    assert_eq!(fs::read(&pi.stdin).unwrap(), b"");
    // The jail's writable homes: the agent and model slugs.
    let writable: Vec<String> =
        serde_json::from_str(&fs::read_to_string(&pi.writable).unwrap()).unwrap();
    assert_eq!(
        writable,
        [
            "human/",
            "project/*/",
            "agents/night-owl/",
            "models/big-model/"
        ]
    );

    // The prompt: the scope header, then the built-in playbook.
    let prompt = pi.prompt();
    assert!(prompt.starts_with("# Scope of this dream"), "{prompt}");
    assert!(prompt.contains(&home.display().to_string()), "{prompt}");
    assert!(prompt.contains("`agents/night-owl/`"), "{prompt}");
    assert!(prompt.contains("`models/big-model/`"), "{prompt}");
    assert!(prompt.contains("2026-03-01T09:00:00Z"), "{prompt}");
    assert!(
        prompt.ends_with(PLAYBOOK),
        "the built-in playbook follows the header"
    );
}

#[test]
fn a_relative_notes_home_is_made_absolute_for_the_dreamer() {
    let env = TestEnv::new();
    let pi = FakePi::done(&env.root().join("bin"), "relative ok");
    let _ = dream_cmd(&env)
        .env_remove("PI_NOTES_HOME")
        .args(["--notes-home", "rel-notes", "--force", "--pi"])
        .arg(&pi.path)
        .run()
        .expect_code(0);
    let home = env.work().join("rel-notes");
    let cwd = fs::read_to_string(&pi.cwd).unwrap();
    assert_eq!(
        cwd.trim(),
        fs::canonicalize(&home).unwrap().to_str().unwrap()
    );
    // The jail gets the absolute home too (it runs in the home, where `rel-notes` is wrong).
    assert_eq!(
        fs::read_to_string(&pi.home).unwrap(),
        home.to_str().unwrap()
    );
    assert!(pi.prompt().contains(&format!("`{}`", home.display())));
    assert!(report_path(&home).exists());
}

#[test]
fn playbook_flags() {
    let env = TestEnv::new();

    // --print-playbook: the built-in one, and nothing else happens.
    let missing = env.root().join("no-such-home");
    let output = dream_cmd(&env)
        .arg("--print-playbook")
        .arg("--notes-home")
        .arg(&missing)
        .run()
        .expect_code(0);
    assert_eq!(output.stdout, PLAYBOOK);
    assert!(!missing.exists(), "--print-playbook created the home");

    // --playbook FILE replaces it, in the prompt and for --print-playbook.
    let custom = env.write(
        "my-playbook.md",
        "# My playbook\n\nOnly tidy the human notes.\n",
    );
    let output = dream_cmd(&env)
        .arg("--print-playbook")
        .arg("--playbook")
        .arg(&custom)
        .run()
        .expect_code(0);
    assert_eq!(
        output.stdout,
        "# My playbook\n\nOnly tidy the human notes.\n"
    );
    let pi = FakePi::done(&env.work(), "custom");
    let _ = forced_dream(&env, &pi.path)
        .arg("--playbook")
        .arg(&custom)
        .run()
        .expect_code(0);
    let prompt = pi.prompt();
    assert!(prompt.starts_with("# Scope of this dream"), "{prompt}");
    assert!(
        prompt.ends_with("# My playbook\n\nOnly tidy the human notes.\n"),
        "{prompt}"
    );
    assert!(
        !prompt.contains(PLAYBOOK.lines().next().unwrap()),
        "{prompt}"
    );

    // A playbook that cannot be read is a usage error, before anything happens.
    let env = TestEnv::new();
    let output = dream_cmd(&env)
        .args(["--force", "--playbook", "no-such-playbook.md"])
        .run()
        .expect_code(2);
    assert!(
        output.stderr.contains("no-such-playbook.md"),
        "{}",
        output.stderr
    );
    assert!(!env.notes_home().join(".git").exists());
}

#[test]
fn the_dream_alias_behaves_like_pi_context_dream() {
    let env = TestEnv::new();
    let home = env.notes_home();
    let bin_dir = env.root().join("bin");
    fs::create_dir_all(&bin_dir).unwrap();
    let alias = bin_dir.join("dream");
    std::os::unix::fs::symlink(assert_cmd::cargo::cargo_bin("pi-context"), &alias).unwrap();
    let pi = FakePi::done(&env.work(), "dreamt through the alias");

    let output = hermetic_cmd(&env, &alias)
        .arg("--print-playbook")
        .run()
        .expect_code(0);
    assert_eq!(output.stdout, PLAYBOOK);

    let output = hermetic_cmd(&env, &alias)
        .args(["--force", "--pi"])
        .arg(&pi.path)
        .run()
        .expect_code(0);
    assert_eq!(
        output.lines().last().map(Path::new),
        Some(report_path(&home).as_path())
    );
    assert!(fs::read_to_string(report_path(&home))
        .unwrap()
        .contains("dreamt through the alias"));
}

#[test]
fn the_dreamer_model_comes_from_the_flag_else_the_settings() {
    let env = TestEnv::new();
    let settings = env.root().join("pi-agent/settings.json");
    let run = |extra: &[&str]| {
        let pi = FakePi::done(&env.work(), "ok");
        let output = forced_dream(&env, &pi.path)
            .args(extra)
            .run()
            .expect_code(0);
        // Each run needs the lock free and leaves a report at the same stamp: clear it.
        fs::remove_dir_all(env.notes_home().join("dreams")).unwrap();
        (pi.arg_after("--model"), output.stderr)
    };

    // No setting, no flag: Pi's default model (no --model at all).
    let (model, err) = run(&[]);
    assert_eq!(model, None);
    assert_eq!(err, "");

    fs::write(
        &settings,
        r#"{"pi-context": {"dreamer": "settings/model"}}"#,
    )
    .unwrap();
    assert_eq!(run(&[]).0.as_deref(), Some("settings/model"));
    assert_eq!(
        run(&["--dreamer", "cli/model"]).0.as_deref(),
        Some("cli/model")
    );

    // The project's settings (<cwd>/.pi/settings.json) win over the global ones.
    fs::create_dir_all(env.work().join(".pi")).unwrap();
    fs::write(
        env.work().join(".pi/settings.json"),
        r#"{"pi-context": {"dreamer": "project/model"}}"#,
    )
    .unwrap();
    assert_eq!(run(&[]).0.as_deref(), Some("project/model"));
    fs::remove_dir_all(env.work().join(".pi")).unwrap();

    // An invalid value warns once, naming the key, and is ignored.
    for invalid in [r#""""#, r#""   ""#, "42", "null", "[\"a\"]"] {
        fs::write(
            &settings,
            format!(r#"{{"pi-context": {{"dreamer": {invalid}}}}}"#),
        )
        .unwrap();
        let (model, err) = run(&[]);
        assert_eq!(model, None, "{invalid}");
        let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning")).collect();
        assert_eq!(warnings.len(), 1, "{invalid}: {err}");
        assert!(warnings[0].contains("pi-context.dreamer"), "{err}");
        // The flag still works next to an invalid setting.
        assert_eq!(
            run(&["--dreamer", "cli/model"]).0.as_deref(),
            Some("cli/model")
        );
    }
}

#[test]
fn pi_is_found_by_flag_then_environment_then_path() {
    let env = TestEnv::new();
    let on_path = FakePi::new(&env.root().join("path-bin"), "pi", &emit_done("from PATH"));
    let from_env = FakePi::done(&env.root().join("env-bin"), "from PI_CONTEXT_PI");
    let from_flag = FakePi::done(&env.root().join("flag-bin"), "from --pi");
    let path = format!(
        "{}:{}",
        env.root().join("path-bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let report = || fs::read_to_string(report_path(&env.notes_home())).unwrap();
    let clear = || fs::remove_dir_all(env.notes_home().join("dreams")).unwrap();

    assert_exit(&dream_cmd(&env).env("PATH", &path).arg("--force").run(), 0);
    assert!(report().contains("from PATH"));
    clear();
    assert_exit(
        &dream_cmd(&env)
            .env("PATH", &path)
            .env("PI_CONTEXT_PI", &from_env.path)
            .arg("--force")
            .run(),
        0,
    );
    assert!(report().contains("from PI_CONTEXT_PI"));
    clear();
    assert_exit(
        &dream_cmd(&env)
            .env("PATH", &path)
            .env("PI_CONTEXT_PI", &from_env.path)
            .arg("--force")
            .arg("--pi")
            .arg(&from_flag.path)
            .run(),
        0,
    );
    assert!(report().contains("from --pi"));
    assert!(on_path.ran() && from_env.ran() && from_flag.ran());
}

#[test]
fn without_a_git_identity_the_commits_are_signed_by_pi_context_dream() {
    let env = TestEnv::new();
    let home = env.notes_home();
    put(&home, "human/a.md", "a\n");
    let pi = FakePi::done(&env.work(), "ok");
    let _ = forced_dream(&env, &pi.path).run().expect_code(0);
    // The temp HOME has no .gitconfig; a system-wide identity (if this machine has one) would
    // legitimately be used instead.
    let expected = system_identity().unwrap_or_else(|| FALLBACK_AUTHOR.to_string());
    let log = git_log(&home);
    assert_eq!(log.len(), 2);
    for commit in &log {
        assert_eq!(commit.author, expected, "{}", commit.summary);
        assert_eq!(commit.committer, expected, "{}", commit.summary);
    }
}

fn system_identity() -> Option<String> {
    let config = git2::Config::open(&git2::Config::find_system().ok()?).ok()?;
    let name = config.get_string("user.name").ok()?;
    let email = config.get_string("user.email").ok()?;
    Some(format!("{name} <{email}>"))
}

#[test]
fn the_users_git_identity_signs_the_commits() {
    let env = TestEnv::new();
    let home = env.notes_home();
    fs::write(
        env.home().join(".gitconfig"),
        "[user]\n\tname = Ada Lovelace\n\temail = ada@example.org\n",
    )
    .unwrap();
    let pi = FakePi::done(&env.work(), "ok");
    let _ = forced_dream(&env, &pi.path).run().expect_code(0);
    let log = git_log(&home);
    assert_eq!(log.len(), 2);
    for commit in &log {
        assert_eq!(commit.author, "Ada Lovelace <ada@example.org>");
    }
}

#[test]
fn usage_errors_exit_2_and_change_nothing() {
    let env = TestEnv::new();
    let mut shown = String::new();
    for args in [
        &["--min-hours", "-1"][..],
        &["--min-hours", "soon"],
        &["--min-hours", "NaN"],
        &["--min-sessions", "-3"],
        &["--min-sessions", "many"],
        &["--no-such-flag"],
    ] {
        let output = dream_cmd(&env).args(args).run().expect_code(2);
        assert!(output.stdout.is_empty(), "{output}");
        shown += &output.to_string();
    }
    insta::assert_snapshot!(shown);
    assert!(!env.notes_home().join(".git").exists());
    assert_eq!(fs::read_dir(env.notes_home()).unwrap().count(), 0);
}
