//! The hermetic test environment: every command runs the real binary with a temp HOME, a temp
//! notes home, a temp Pi agent dir, a fixed clock and time zone, and no inherited environment.
#![allow(dead_code)]

pub mod dream;
pub mod harness;
pub mod notes;
pub mod other_agents;
pub mod peak;
pub mod pi;
pub mod recall;
pub mod session;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

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
    /// `PATH`, a temp HOME, notes home and Pi agent dir, the fixed clock and time zone.
    pub fn vars(&self, path: std::ffi::OsString) -> Vec<(&'static str, std::ffi::OsString)> {
        vec![
            ("HOME", self.home().into()),
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
        let output = self
            .cmd()
            .args(["tool", "--schemas"])
            .output()
            .expect("run tool --schemas");
        assert!(
            output.status.success(),
            "tool --schemas failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice(&output.stdout).expect("schemas are JSON")
    }

    /// Runs `pi-context tool <name>` with a request and returns the parsed response.
    pub fn tool(&self, name: &str, request: &Value) -> Value {
        let output = self
            .cmd()
            .args(["tool", name])
            .write_stdin(request.to_string())
            .output()
            .expect("run tool");
        assert!(
            output.status.success(),
            "tool {name} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let response: Value =
            serde_json::from_slice(&output.stdout).expect("tool response is JSON");
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
