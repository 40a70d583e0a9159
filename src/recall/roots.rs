//! Where sessions are (docs/recall.md, "Where sessions are"): the roots to look in, in order,
//! each with the harness whose layout it has.

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use crate::session::Harness;

/// The agent's name as people say it (the boot names other agents' sessions by it).
pub fn harness_label(harness: Harness) -> &'static str {
    match harness {
        Harness::Pi => "Pi",
        Harness::Claude => "Claude Code",
        Harness::Codex => "Codex",
    }
}

/// A harness as the wire names it (`pi`, `claude`, `codex`), for `serialize_with`.
pub fn serialize_harness<S: serde::Serializer>(
    harness: &Harness,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(harness.as_str())
}

/// A directory holding sessions in one harness's layout.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Root {
    pub harness: Harness,
    pub path: PathBuf,
}

impl Root {
    /// The path is kept in normal form (no `.`, no repeated or trailing `/`), so the paths
    /// found under it begin with its bytes ([`Root::holds`]).
    pub fn new(harness: Harness, path: impl Into<PathBuf>) -> Root {
        Root {
            harness,
            path: path.into().components().collect(),
        }
    }

    /// Whether `path`, as discovery spells the files under this root, is under it: a byte
    /// comparison, where [`Path::starts_with`] parses both into components (every search asks
    /// this of every indexed file).
    pub fn holds(&self, path: &str) -> bool {
        let root = self.path.as_os_str().as_encoded_bytes();
        path.as_bytes()
            .strip_prefix(root)
            .is_some_and(|rest| rest.is_empty() || rest[0] == b'/' || root.last() == Some(&b'/'))
    }
}

/// Everything the root resolution depends on, gathered by the caller (the CLI reads the
/// environment; the tool protocol adds the live session's directory).
#[derive(Debug, Clone, Default)]
pub struct RootsInput {
    /// `--sessions-dir` flags.
    pub explicit: Vec<PathBuf>,
    /// `--claude-dir` flags (Claude Code's `projects` directories).
    pub explicit_claude: Vec<PathBuf>,
    /// `--codex-dir` flags (Codex homes).
    pub explicit_codex: Vec<PathBuf>,
    /// `$PI_CODING_AGENT_SESSION_DIR`, when set and non-empty.
    pub env_session_dir: Option<PathBuf>,
    /// Pi's agent directory (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`; none without either).
    pub agent_dir: Option<PathBuf>,
    /// `$CLAUDE_CONFIG_DIR`, when set and non-empty.
    pub claude_config_dir: Option<PathBuf>,
    /// `$CODEX_HOME`, when set and non-empty.
    pub codex_home: Option<PathBuf>,
    /// The working directory whose `.pi/settings.json` may name a `sessionDir`.
    pub cwd: PathBuf,
    /// The home directory, for `~` in a settings value (a `~` value is ignored without one),
    /// and Claude Code's and Codex's default directories.
    pub home: Option<PathBuf>,
    /// Pi's `getSessionDir()` of the live session (tool calls only).
    pub live_session_dir: Option<PathBuf>,
}

impl RootsInput {
    /// Whether a root flag was given: then the flags name the only roots (docs/recall.md).
    fn any_explicit(&self) -> bool {
        !(self.explicit.is_empty()
            && self.explicit_claude.is_empty()
            && self.explicit_codex.is_empty())
    }
}

/// The session roots, in order, without duplicates. With no root flag: Pi's (the
/// environment's, else the settings' `sessionDir`; always `<agent dir>/sessions`), Claude
/// Code's (`$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`) and Codex's (`$CODEX_HOME`,
/// else `~/.codex`). With any root flag (`--sessions-dir`, `--claude-dir`, `--codex-dir`): only
/// the directories the flags name, each harness's replacing its defaults, and a harness
/// without a flag has none. The live session's directory is always a Pi root. Roots that do not
/// exist are kept (they simply hold nothing).
pub fn session_roots(input: &RootsInput) -> Vec<Root> {
    let mut roots: Vec<Root> = Vec::new();
    if input.any_explicit() {
        roots.extend(input.explicit.iter().map(|p| Root::new(Harness::Pi, p)));
        roots.extend(
            input
                .explicit_claude
                .iter()
                .map(|p| Root::new(Harness::Claude, p)),
        );
        roots.extend(
            input
                .explicit_codex
                .iter()
                .map(|p| Root::new(Harness::Codex, p)),
        );
    } else {
        let custom = input.env_session_dir.clone().or_else(|| {
            settings_session_dir(
                input.agent_dir.as_deref(),
                &input.cwd,
                input.home.as_deref(),
            )
        });
        roots.extend(custom.map(|p| Root::new(Harness::Pi, p)));
        roots.extend(
            input
                .agent_dir
                .as_ref()
                .map(|dir| Root::new(Harness::Pi, dir.join("sessions"))),
        );
        roots.extend(claude_default(input).map(|p| Root::new(Harness::Claude, p)));
        roots.extend(codex_default(input).map(|p| Root::new(Harness::Codex, p)));
    }
    roots.extend(
        input
            .live_session_dir
            .clone()
            .map(|p| Root::new(Harness::Pi, p)),
    );
    let mut unique: Vec<Root> = Vec::with_capacity(roots.len());
    for root in roots {
        if !unique.contains(&root) {
            unique.push(root);
        }
    }
    unique
}

/// `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`.
fn claude_default(input: &RootsInput) -> Option<PathBuf> {
    let config = input
        .claude_config_dir
        .clone()
        .or_else(|| input.home.as_ref().map(|h| h.join(".claude")))?;
    Some(config.join("projects"))
}

/// `$CODEX_HOME`, else `~/.codex`.
fn codex_default(input: &RootsInput) -> Option<PathBuf> {
    input
        .codex_home
        .clone()
        .or_else(|| input.home.as_ref().map(|h| h.join(".codex")))
}

/// Pi's own `sessionDir` setting: the project's `<cwd>/.pi/settings.json` wins over the global
/// `<agent dir>/settings.json`; `~` is expanded; a relative value is taken from the file's
/// directory's owner (the cwd for the project file, the agent dir for the global one).
pub fn settings_session_dir(
    agent_dir: Option<&Path>,
    cwd: &Path,
    home: Option<&Path>,
) -> Option<PathBuf> {
    let project = read_session_dir(&cwd.join(".pi").join("settings.json"))
        .and_then(|dir| absolute(&dir, cwd, home));
    project.or_else(|| {
        let agent_dir = agent_dir?;
        read_session_dir(&agent_dir.join("settings.json"))
            .and_then(|dir| absolute(&dir, agent_dir, home))
    })
}

fn read_session_dir(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file).ok()?;
    let value: Value = serde_json::from_str(&text).ok()?;
    value
        .get("sessionDir")?
        .as_str()
        .filter(|s| !s.trim().is_empty())
        .map(str::to_string)
}

/// `value` made absolute against `base`, `~` expanded; `None` for a `~` value without a home.
fn absolute(value: &str, base: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let expanded = if value == "~" {
        home?.to_path_buf()
    } else if let Some(rest) = value.strip_prefix("~/") {
        home?.join(rest)
    } else {
        PathBuf::from(value)
    };
    Some(if expanded.is_absolute() {
        expanded
    } else {
        base.join(expanded)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(dir: &Path) -> RootsInput {
        RootsInput {
            agent_dir: Some(dir.join("agent")),
            cwd: dir.join("cwd"),
            home: Some(dir.join("home")),
            ..RootsInput::default()
        }
    }

    fn pi(path: PathBuf) -> Root {
        Root::new(Harness::Pi, path)
    }

    #[test]
    fn a_root_holds_the_paths_under_it_by_their_bytes() {
        let root = Root::new(Harness::Pi, "/home/u/./sessions//");
        assert_eq!(root.path, PathBuf::from("/home/u/sessions"));
        assert!(root.holds("/home/u/sessions/--x--/a.jsonl"));
        assert!(root.holds("/home/u/sessions"));
        assert!(!root.holds("/home/u/sessions-old/a.jsonl"));
        assert!(!root.holds("/home/u/session"));
        let slash = Root::new(Harness::Pi, "/");
        assert!(slash.holds("/a.jsonl"));
    }

    #[test]
    fn explicit_dirs_replace_every_default() {
        let dir = tempfile::tempdir().unwrap();
        let mut i = input(dir.path());
        i.explicit = vec![dir.path().join("a"), dir.path().join("a")];
        i.env_session_dir = Some(dir.path().join("env"));
        i.claude_config_dir = Some(dir.path().join("claude"));
        assert_eq!(session_roots(&i), vec![pi(dir.path().join("a"))]);
        i.explicit.clear();
        i.explicit_codex = vec![dir.path().join("codex")];
        assert_eq!(
            session_roots(&i),
            vec![Root::new(Harness::Codex, dir.path().join("codex"))]
        );
    }

    #[test]
    fn env_wins_over_settings_and_the_agent_dir_is_always_searched() {
        let dir = tempfile::tempdir().unwrap();
        let mut i = input(dir.path());
        std::fs::create_dir_all(dir.path().join("agent")).unwrap();
        std::fs::write(
            dir.path().join("agent/settings.json"),
            r#"{"sessionDir":"~/pi-sessions"}"#,
        )
        .unwrap();
        assert_eq!(
            session_roots(&i)[..2],
            [
                pi(dir.path().join("home/pi-sessions")),
                pi(dir.path().join("agent/sessions"))
            ]
        );
        std::fs::create_dir_all(dir.path().join("cwd/.pi")).unwrap();
        std::fs::write(
            dir.path().join("cwd/.pi/settings.json"),
            r#"{"sessionDir":"local"}"#,
        )
        .unwrap();
        assert_eq!(session_roots(&i)[0], pi(dir.path().join("cwd/local")));
        i.env_session_dir = Some(dir.path().join("env"));
        i.live_session_dir = Some(dir.path().join("live"));
        assert_eq!(
            session_roots(&i),
            vec![
                pi(dir.path().join("env")),
                pi(dir.path().join("agent/sessions")),
                Root::new(Harness::Claude, dir.path().join("home/.claude/projects")),
                Root::new(Harness::Codex, dir.path().join("home/.codex")),
                pi(dir.path().join("live")),
            ]
        );
    }

    #[test]
    fn the_other_harnesses_move_with_their_variables() {
        let dir = tempfile::tempdir().unwrap();
        let mut i = input(dir.path());
        i.claude_config_dir = Some(dir.path().join("cc"));
        i.codex_home = Some(dir.path().join("cx"));
        assert_eq!(
            session_roots(&i)[1..],
            [
                Root::new(Harness::Claude, dir.path().join("cc/projects")),
                Root::new(Harness::Codex, dir.path().join("cx")),
            ]
        );
        i.home = None;
        i.claude_config_dir = None;
        i.codex_home = None;
        assert_eq!(
            session_roots(&i),
            vec![pi(dir.path().join("agent/sessions"))]
        );
    }

    #[test]
    fn harness_names_round_trip() {
        for harness in Harness::ALL {
            assert_eq!(harness.as_str().parse::<Harness>(), Ok(harness));
        }
        assert!("gemini".parse::<Harness>().is_err());
        assert_eq!(Harness::NAMES, Harness::ALL.map(Harness::as_str));
        let json = serde_json::to_value(Named {
            harness: Harness::Claude,
        })
        .unwrap();
        assert_eq!(json["harness"], "claude");
    }

    #[derive(serde::Serialize)]
    struct Named {
        #[serde(serialize_with = "serialize_harness")]
        harness: Harness,
    }
}
