//! The hermetic test environment: every command runs the real binary with a temp HOME, a temp
//! notes home, a temp Pi agent dir, a fixed clock and time zone, and no inherited environment.
#![allow(dead_code)]

pub mod dream;
pub mod harness;
pub mod notes;
pub mod other_agents;
pub mod output;
pub mod peak;
pub mod pi;
pub mod recall;
pub mod session;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

pub use output::CommandOutput;

/// The fixed clock every command sees (`PI_CONTEXT_NOW`), unless a test overrides it.
pub const FIXED_NOW: &str = "2026-03-01T09:00:00.000Z";

pub struct TestEnv {
    root: TempDir,
}

impl Default for TestEnv {
    fn default() -> Self {
        Self::new()
    }
}

impl TestEnv {
    pub fn new() -> Self {
        let root = tempfile::tempdir().expect("temp dir");
        for dir in ["home", "notes", "pi-agent", "tmp", "work"] {
            std::fs::create_dir_all(root.path().join(dir)).expect("create test dir");
        }
        TestEnv { root }
    }

    pub fn root(&self) -> &Path {
        self.root.path()
    }

    pub fn home(&self) -> PathBuf {
        self.root().join("home")
    }

    pub fn notes_home(&self) -> PathBuf {
        self.root().join("notes")
    }

    /// A scratch directory for files a test writes (sessions, projects).
    pub fn work(&self) -> PathBuf {
        self.root().join("work")
    }

    /// `pi-context ARGS` in the work directory.
    pub fn run<S: AsRef<std::ffi::OsStr>>(
        &self,
        args: impl IntoIterator<Item = S>,
    ) -> CommandOutput {
        self.run_with(|cmd| cmd.args(args))
    }

    /// `pi-context ARGS` in `cwd`.
    pub fn run_in<S: AsRef<std::ffi::OsStr>>(
        &self,
        cwd: &Path,
        args: impl IntoIterator<Item = S>,
    ) -> CommandOutput {
        self.run_with(|cmd| cmd.current_dir(cwd).args(args))
    }

    /// `pi-context ARGS` in the work directory, reading `stdin`.
    pub fn run_stdin<S: AsRef<std::ffi::OsStr>>(
        &self,
        args: impl IntoIterator<Item = S>,
        stdin: impl Into<Vec<u8>>,
    ) -> CommandOutput {
        let stdin = stdin.into();
        self.run_with(|cmd| cmd.args(args).write_stdin(stdin))
    }

    /// The binary as [`TestEnv::cmd`] builds it, set up further by `build` (arguments, stdin,
    /// more variables, another directory), run to its end.
    pub fn run_with(&self, build: impl FnOnce(&mut Command) -> &mut Command) -> CommandOutput {
        let mut cmd = self.cmd();
        build(&mut cmd);
        self.output_of(&mut cmd)
    }

    /// Runs a command built from [`TestEnv::cmd`] or [`TestEnv::shell`] to its end.
    pub fn output_of(&self, cmd: &mut Command) -> CommandOutput {
        let shown = command_line(cmd.get_program(), cmd.get_args());
        let output = cmd
            .output()
            .unwrap_or_else(|e| panic!("cannot run {shown}: {e}"));
        CommandOutput::new(shown, output, self.normalizer())
    }

    /// Waits for a spawned command (its stdout and stderr piped, or null) and takes its output;
    /// `shown` names it in a snapshot or a failure.
    pub fn wait_for(&self, shown: &str, child: std::process::Child) -> CommandOutput {
        let output = child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("wait for {shown}: {e}"));
        CommandOutput::new(format!("$ {shown}"), output, self.normalizer())
    }

    /// How this environment's outputs are normalized (`$TEST_ENV` for the temp root).
    pub fn normalizer(&self) -> output::Normalizer {
        output::Normalizer::new(self.root())
    }

    /// Normalizes text as the outputs of [`TestEnv::run`] are.
    pub fn normalize(&self, text: &str) -> String {
        self.normalizer().normalize(text)
    }

    /// The binary with a clean, fixed environment ([`TestEnv::vars`]).
    #[must_use]
    pub fn cmd(&self) -> Command {
        let mut cmd = Command::cargo_bin("pi-context").expect("binary built");
        self.hermetic(&mut cmd, std::env::var_os("PATH").unwrap_or_default());
        cmd
    }

    /// `program` (the binary when `None`) as a plain `std` process, to spawn, wait on and
    /// kill, with the same hermetic environment and working directory as [`TestEnv::cmd`].
    #[must_use]
    pub fn process_of(&self, program: Option<&Path>) -> std::process::Command {
        let binary = assert_cmd::cargo::cargo_bin("pi-context");
        let mut cmd = std::process::Command::new(program.unwrap_or(&binary));
        cmd.env_clear()
            .envs(self.vars(std::env::var_os("PATH").unwrap_or_default()))
            .current_dir(self.work());
        cmd
    }

    /// The binary as a plain `std` process with the hermetic environment.
    #[must_use]
    pub fn process(&self) -> std::process::Command {
        self.process_of(None)
    }

    /// `sh -c SCRIPT` in the environment of [`cmd`](Self::cmd), with the binary's directory
    /// first on `PATH`: a `pi-context …` line the binary printed runs as a user would paste it.
    #[must_use]
    pub fn shell(&self, script: &str) -> Command {
        let binary = assert_cmd::cargo::cargo_bin("pi-context");
        let mut dirs = vec![binary.parent().expect("binary dir").to_path_buf()];
        dirs.extend(std::env::split_paths(
            &std::env::var_os("PATH").unwrap_or_default(),
        ));
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        self.hermetic(&mut cmd, std::env::join_paths(dirs).expect("a PATH"));
        cmd
    }

    fn hermetic(&self, cmd: &mut Command, path: std::ffi::OsString) {
        cmd.env_clear()
            .envs(self.vars(path))
            .current_dir(self.work());
    }

    /// The one hermetic environment of every command a test runs: nothing inherited but
    /// `PATH`, a temp HOME, notes home and Pi agent dir, the fixed clock and time zone. The
    /// `git` a command runs reads no system configuration (its global one is the temp HOME's).
    pub fn vars(&self, path: std::ffi::OsString) -> Vec<(&'static str, std::ffi::OsString)> {
        vec![
            ("HOME", self.home().into()),
            ("GIT_CONFIG_NOSYSTEM", "1".into()),
            ("TMPDIR", self.root().join("tmp").into()),
            ("PATH", path),
            ("PI_NOTES_HOME", self.notes_home().into()),
            ("PI_CODING_AGENT_DIR", self.root().join("pi-agent").into()),
            ("PI_OFFLINE", "1".into()),
            ("PI_CONTEXT_NOW", FIXED_NOW.into()),
            ("TZ", "UTC".into()),
            ("COLUMNS", "100".into()),
        ]
    }

    /// Writes a file under the work directory and returns its path.
    pub fn write(&self, name: &str, contents: &str) -> PathBuf {
        let path = self.work().join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create parent");
        }
        std::fs::write(&path, contents).expect("write file");
        path
    }

    /// `pi-context tool --schemas`, parsed; the command must succeed.
    pub fn tool_schemas(&self) -> Value {
        self.run(["tool", "--schemas"]).success().json()
    }

    /// Runs `pi-context tool <name>` with a request and returns the parsed response.
    pub fn tool(&self, name: &str, request: &Value) -> Value {
        self.tool_with_env(&[], name, request)
    }

    /// [`TestEnv::tool`] with extra environment variables; the response must fit the budget.
    pub fn tool_with_env(&self, vars: &[(&str, &str)], name: &str, request: &Value) -> Value {
        let response = self
            .run_with(|cmd| {
                cmd.envs(vars.iter().copied())
                    .args(["tool", name])
                    .write_stdin(request.to_string())
            })
            .success()
            .json();
        let text = response["text"].as_str().expect("text is a string");
        assert!(
            text.len() <= 32 * 1024,
            "text over budget: {} bytes",
            text.len()
        );
        assert!(
            response["details"].to_string().len() <= 32 * 1024,
            "details over budget"
        );
        response
    }
}

/// `$ program args…` of a command, as a person would type it: the binary as `pi-context`, an
/// argument a shell would change (spaces, quotes, globs, newlines; or none) in single quotes.
fn command_line<'a>(
    program: &std::ffi::OsStr,
    args: impl Iterator<Item = &'a std::ffi::OsStr>,
) -> String {
    let program = Path::new(program);
    let name = if program == assert_cmd::cargo::cargo_bin("pi-context") {
        "pi-context".to_string()
    } else {
        program.display().to_string()
    };
    let mut line = format!("$ {name}");
    for arg in args {
        let arg = arg.to_string_lossy();
        line.push(' ');
        if arg.is_empty()
            || arg.contains(|c: char| c.is_whitespace() || "'\"$`\\*?[]{}()<>|&;~#!".contains(c))
        {
            line.push_str(&format!("'{}'", arg.replace('\'', r"'\''")));
        } else {
            line.push_str(&arg);
        }
    }
    line
}

/// Runs a command a [`TestEnv`] built ([`TestEnv::cmd`], [`TestEnv::process`], a helper's) to
/// its end: `dream_cmd(&env).arg("--force").run()`. Its outputs are normalized for the
/// environment the command's `HOME` (or `TMPDIR`) lies in.
pub trait Run {
    fn run(&mut self) -> CommandOutput;
}

impl Run for Command {
    fn run(&mut self) -> CommandOutput {
        let shown = command_line(self.get_program(), self.get_args());
        let normalizer = normalizer_of(&shown, self.get_envs());
        let output = self
            .output()
            .unwrap_or_else(|e| panic!("cannot run {shown}: {e}"));
        CommandOutput::new(shown, output, normalizer)
    }
}

impl Run for std::process::Command {
    fn run(&mut self) -> CommandOutput {
        let shown = command_line(self.get_program(), self.get_args());
        let normalizer = normalizer_of(&shown, self.get_envs());
        let output = self
            .output()
            .unwrap_or_else(|e| panic!("cannot run {shown}: {e}"));
        CommandOutput::new(shown, output, normalizer)
    }
}

/// The normalizer of the environment a command belongs to: the parent of its `HOME`
/// (`<root>/home`), or of its `TMPDIR` (`<root>/tmp`) when a test removed `HOME`.
fn normalizer_of<'a>(
    shown: &str,
    envs: impl Iterator<Item = (&'a std::ffi::OsStr, Option<&'a std::ffi::OsStr>)>,
) -> output::Normalizer {
    let envs: Vec<_> = envs.collect();
    let dir = ["HOME", "TMPDIR"]
        .iter()
        .find_map(|var| {
            envs.iter()
                .find(|(name, _)| name == var)
                .and_then(|(_, value)| *value)
        })
        .unwrap_or_else(|| panic!("{shown}: not a command of a TestEnv (no HOME, no TMPDIR)"));
    let root = Path::new(dir).parent().expect("<root>/home or <root>/tmp");
    output::Normalizer::new(root)
}

/// `git ARGS` in `dir`, hermetic (no system or user configuration, a fixed identity and
/// default branch); it must succeed. Its stdout.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = git_command(dir).args(args).output().expect("run git");
    assert!(
        output.status.success(),
        "git in {} failed: {}",
        dir.display(),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("git's stdout is UTF-8")
}

/// `git -C dir` with the hermetic configuration of [`git`], to run or spawn as a test needs.
pub fn git_command(dir: &Path) -> std::process::Command {
    let mut cmd = std::process::Command::new("git");
    cmd.arg("-C")
        .arg(dir)
        .args([
            "-c",
            "init.defaultBranch=main",
            "-c",
            "advice.detachedHead=false",
        ])
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "test")
        .env("GIT_AUTHOR_EMAIL", "test@example.com")
        .env("GIT_COMMITTER_NAME", "test")
        .env("GIT_COMMITTER_EMAIL", "test@example.com");
    cmd
}

/// A small deterministic generator (xorshift64) for tests that draw many cases; no dependency.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (0 is replaced: xorshift would stay at 0).
    pub fn new(seed: u64) -> Rng {
        Rng(if seed == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            seed
        })
    }

    /// A generator from `$TEST_SEED` when set, else from `seed`; the seed is printed, so a
    /// failing run (whose output the test harness shows) can be replayed with `TEST_SEED=…`.
    pub fn seeded(test: &str, seed: u64) -> Rng {
        let seed = std::env::var("TEST_SEED")
            .ok()
            .map(|s| s.parse().expect("TEST_SEED is a number"))
            .unwrap_or(seed);
        eprintln!("{test}: seed {seed} (replay with TEST_SEED={seed})");
        Rng::new(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}

/// The repository's fixture directory.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The entry of the tool `name` in `tool --schemas` output.
pub fn schema_of<'a>(schemas: &'a Value, name: &str) -> &'a Value {
    schemas["tools"]
        .as_array()
        .expect("the tools are listed")
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

/// The names of the tools `tool --schemas` lists, in order.
pub fn tool_names(schemas: &Value) -> Vec<&str> {
    schemas["tools"]
        .as_array()
        .expect("the tools are listed")
        .iter()
        .map(|t| t["name"].as_str().expect("a tool name"))
        .collect()
}
