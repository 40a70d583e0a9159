//! Where Pi keeps sessions (docs/recall.md, "Where sessions are"): the roots to look in, in order.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Everything the root resolution depends on, gathered by the caller (the CLI reads the
/// environment; the tool protocol adds the live session's directory).
#[derive(Debug, Clone, Default)]
pub struct RootsInput {
    /// `--sessions-dir` flags: when non-empty, only these (and the live session's directory).
    pub explicit: Vec<PathBuf>,
    /// `$PI_CODING_AGENT_SESSION_DIR`, when set and non-empty.
    pub env_session_dir: Option<PathBuf>,
    /// Pi's agent directory (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`; none without either).
    pub agent_dir: Option<PathBuf>,
    /// The working directory whose `.pi/settings.json` may name a `sessionDir`.
    pub cwd: PathBuf,
    /// The home directory, for `~` in a settings value (a `~` value is ignored without one).
    pub home: Option<PathBuf>,
    /// Pi's `getSessionDir()` of the live session (tool calls only).
    pub live_session_dir: Option<PathBuf>,
}

/// The session roots, in order, without duplicates: the explicit directories, else the
/// environment's, else the settings' `sessionDir`; always `<agent dir>/sessions`; and the live
/// session's directory. Roots that do not exist are kept (they simply hold nothing).
pub fn session_roots(input: &RootsInput) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = Vec::new();
    if input.explicit.is_empty() {
        let custom = input.env_session_dir.clone().or_else(|| {
            settings_session_dir(
                input.agent_dir.as_deref(),
                &input.cwd,
                input.home.as_deref(),
            )
        });
        roots.extend(custom);
        roots.extend(input.agent_dir.as_ref().map(|dir| dir.join("sessions")));
    } else {
        roots.extend(input.explicit.iter().cloned());
    }
    roots.extend(input.live_session_dir.clone());
    let mut unique: Vec<PathBuf> = Vec::with_capacity(roots.len());
    for root in roots {
        if !unique.contains(&root) {
            unique.push(root);
        }
    }
    unique
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

    #[test]
    fn explicit_dirs_replace_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let mut i = input(dir.path());
        i.explicit = vec![dir.path().join("a"), dir.path().join("a")];
        i.env_session_dir = Some(dir.path().join("env"));
        assert_eq!(session_roots(&i), vec![dir.path().join("a")]);
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
            session_roots(&i),
            vec![
                dir.path().join("home/pi-sessions"),
                dir.path().join("agent/sessions")
            ]
        );
        std::fs::create_dir_all(dir.path().join("cwd/.pi")).unwrap();
        std::fs::write(
            dir.path().join("cwd/.pi/settings.json"),
            r#"{"sessionDir":"local"}"#,
        )
        .unwrap();
        assert_eq!(session_roots(&i)[0], dir.path().join("cwd/local"));
        i.env_session_dir = Some(dir.path().join("env"));
        i.live_session_dir = Some(dir.path().join("live"));
        assert_eq!(
            session_roots(&i),
            vec![
                dir.path().join("env"),
                dir.path().join("agent/sessions"),
                dir.path().join("live")
            ]
        );
    }
}
