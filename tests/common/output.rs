//! One run of a command, as jj's `CommandOutput`: what it printed and how it exited, kept raw
//! for assertions and shown normalized (the test's temp root as `$TEST_ENV`) for snapshots and
//! failure messages.

use std::fmt;

use serde_json::Value;

/// Replaces what differs between runs of the same test: the temp root (as the test wrote it and
/// canonicalized), the repository, and the project keys' hashes of temp paths.
#[derive(Clone, Debug)]
pub struct Normalizer {
    literal: Vec<(String, &'static str)>,
}

impl Normalizer {
    pub fn new(root: &std::path::Path) -> Normalizer {
        let raw = root.display().to_string();
        let mut roots = vec![raw.clone()];
        if let Ok(canonical) = root.canonicalize() {
            let canonical = canonical.display().to_string();
            if canonical != raw {
                roots.insert(0, canonical);
            }
        }
        let mut literal = Vec::new();
        for root in &roots {
            literal.push((root.clone(), "$TEST_ENV"));
        }
        // The root inside a directory name that encodes a cwd: Pi's sessions directory
        // (`--<path, slashes as dashes>--`) and Claude Code's projects directory (every
        // character but letters and digits as a dash).
        for root in &roots {
            literal.push((root.trim_start_matches('/').replace('/', "-"), "$TEST_ENV"));
            let claude: String = root
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect();
            literal.push((claude, "$TEST_ENV"));
        }
        literal.push((env!("CARGO_MANIFEST_DIR").to_string(), "$REPO"));
        Normalizer { literal }
    }

    pub fn normalize(&self, text: &str) -> String {
        let mut text = text.to_string();
        for (from, to) in &self.literal {
            text = text.replace(from.as_str(), to);
        }
        project_key_hash()
            .replace_all(&text, "-[HASH]")
            .into_owned()
    }
}

/// A project key ends in the first 8 hex digits of a SHA-1 of a (temp) path.
fn project_key_hash() -> &'static regex::Regex {
    static HASH: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    HASH.get_or_init(|| regex::Regex::new(r"-[0-9a-f]{8}\b").expect("a regex"))
}

/// What one command printed and how it ended.
#[must_use = "either snapshot the output or assert the exit status with .success()"]
pub struct CommandOutput {
    /// stdout as the command printed it.
    pub stdout: String,
    /// stderr as the command printed it.
    pub stderr: String,
    /// The exit code; -1 when a signal ended the command.
    pub code: i32,
    /// `$ program args…`, normalized.
    command: String,
    normalizer: Normalizer,
}

impl CommandOutput {
    /// Decodes an output (not UTF-8 is a test failure) and checks that the binary did not panic.
    pub fn new(command: String, output: std::process::Output, normalizer: Normalizer) -> Self {
        let decode = |bytes: Vec<u8>, stream: &str| {
            String::from_utf8(bytes)
                .unwrap_or_else(|e| panic!("{command}: {stream} not UTF-8: {e}"))
        };
        let out = CommandOutput {
            stdout: decode(output.stdout, "stdout"),
            stderr: decode(output.stderr, "stderr"),
            code: output.status.code().unwrap_or(-1),
            command: normalizer.normalize(&command),
            normalizer,
        };
        assert!(
            !out.stderr.contains("panicked at") && !out.stderr.contains("RUST_BACKTRACE"),
            "the command panicked:\n{out}"
        );
        out
    }

    /// Panics with the command, its output and its exit status unless it exited 0.
    #[track_caller]
    pub fn success(self) -> Self {
        self.expect_code(0)
    }

    /// Panics with the command, its output and its exit status unless it exited `code`.
    #[track_caller]
    pub fn expect_code(self, code: i32) -> Self {
        assert_eq!(self.code, code, "expected exit {code}:\n{self}");
        self
    }

    /// The exit code (also the field `code`).
    pub fn code(&self) -> i32 {
        self.code
    }

    /// stdout parsed as JSON (raw: paths are the real ones).
    #[track_caller]
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{self}"))
    }

    /// stdout's lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().collect()
    }

    /// stdout normalized.
    pub fn normalized_stdout(&self) -> String {
        self.normalizer.normalize(&self.stdout)
    }

    /// stderr normalized.
    pub fn normalized_stderr(&self) -> String {
        self.normalizer.normalize(&self.stderr)
    }

    /// Normalizes other text the same way (a file the command wrote, a JSON value).
    pub fn normalize(&self, text: &str) -> String {
        self.normalizer.normalize(text)
    }
}

/// The command, stdout, stderr (when there is any) and the exit status, normalized: what a
/// snapshot pins and a failure shows.
impl fmt::Display for CommandOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.command)?;
        write_stream(f, &self.normalized_stdout())?;
        if !self.stderr.is_empty() {
            writeln!(f, "------- stderr -------")?;
            write_stream(f, &self.normalized_stderr())?;
        }
        writeln!(f, "[exit {}]", self.code)
    }
}

impl fmt::Debug for CommandOutput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

fn write_stream(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    f.write_str(text)?;
    if !text.is_empty() && !text.ends_with('\n') {
        writeln!(f, "\n[no newline at the end]")?;
    }
    Ok(())
}
