//! Where sessions are (docs/recall.md, "Where sessions are"): the roots to look in, in order,
//! each in one harness's layout. Every harness's variable and default directory is here; the
//! roots a command line or a request names come in as one list.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::vars;
use super::Vars;
use crate::session::{Harness, Root};

/// Everything the root resolution depends on, gathered by the caller (the CLI reads the
/// environment; the tool protocol adds the live session's directory).
#[derive(Debug, Clone, Default)]
pub struct RootsInput {
    /// Roots the command line named (`--sessions-dir`, `--claude-dir`, …): when any is given,
    /// the only roots (plus the live session's directory).
    pub explicit: Vec<Root>,
    /// The environment, for each harness's variable.
    pub vars: Vars,
    /// Pi's agent directory (`$PI_CODING_AGENT_DIR`, else `~/.pi/agent`; none without either).
    pub agent_dir: Option<PathBuf>,
    /// The working directory whose `.pi/settings.json` may name a `sessionDir`.
    pub cwd: PathBuf,
    /// The home directory, for `~` in a settings value (a `~` value is ignored without one),
    /// and the other agents' default directories.
    pub home: Option<PathBuf>,
    /// Pi's `getSessionDir()` of the live session (tool calls only).
    pub live_session_dir: Option<PathBuf>,
    /// pi-context's cache, where a database's sessions are mirrored ([`Root::mirrored_in`]).
    pub cache: Option<PathBuf>,
}

/// The session roots, in order, without duplicates. With no explicit root: each harness's
/// defaults ([`default_roots`]), in [`Harness::ALL`] order. With any explicit root: only those,
/// and a harness that none names has none. The live session's directory is always a Pi root.
/// Roots that do not exist are kept (they simply hold nothing).
pub fn session_roots(input: &RootsInput) -> Vec<Root> {
    let mut roots: Vec<Root> = if input.explicit.is_empty() {
        Harness::ALL
            .into_iter()
            .flat_map(|harness| {
                default_roots(harness, input)
                    .into_iter()
                    .map(move |path| Root::new(harness, path))
            })
            .collect()
    } else {
        input.explicit.clone()
    };
    roots.extend(
        input
            .live_session_dir
            .clone()
            .map(|p| Root::new(Harness::Pi, p)),
    );
    let mut unique: Vec<Root> = Vec::with_capacity(roots.len());
    for root in roots {
        let root = root.mirrored_in(input.cache.as_deref());
        if !unique.contains(&root) {
            unique.push(root);
        }
    }
    unique
}

/// A harness's own roots, from its variable, else its directory under the home:
/// - Pi: `$PI_CODING_AGENT_SESSION_DIR`, else the settings' `sessionDir`; and always
///   `<agent dir>/sessions`;
/// - Claude Code: `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`;
/// - Codex: `$CODEX_HOME`, else `~/.codex`;
/// - GitHub Copilot CLI: `$COPILOT_HOME`, else `~/.copilot`;
/// - Cursor: `$CURSOR_CONFIG_DIR`, else `~/.cursor`;
/// - OpenCode: `$OPENCODE_DB`, else `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode`.
fn default_roots(harness: Harness, input: &RootsInput) -> Vec<PathBuf> {
    let home_dir = |name: &str| input.home.as_ref().map(|h| h.join(name));
    match harness {
        Harness::Pi => {
            let custom = input
                .vars
                .path(vars::PI_CODING_AGENT_SESSION_DIR)
                .or_else(|| {
                    settings_session_dir(
                        input.agent_dir.as_deref(),
                        &input.cwd,
                        input.home.as_deref(),
                    )
                });
            let agent = input.agent_dir.as_ref().map(|dir| dir.join("sessions"));
            custom.into_iter().chain(agent).collect()
        }
        Harness::Claude => input
            .vars
            .path(vars::CLAUDE_CONFIG_DIR)
            .or_else(|| home_dir(".claude"))
            .map(|config| config.join("projects"))
            .into_iter()
            .collect(),
        Harness::Codex | Harness::Copilot | Harness::Cursor => {
            agent_config_dir(harness, &input.vars, input.home.as_deref())
                .map(|(dir, _)| dir)
                .into_iter()
                .collect()
        }
        Harness::Gemini => gemini_dir(&input.vars, input.home.as_deref())
            .into_iter()
            .collect(),
        Harness::OpenCode => input
            .vars
            .path(vars::OPENCODE_DB)
            .or_else(|| {
                input
                    .vars
                    .path(vars::XDG_DATA_HOME)
                    .or_else(|| home_dir(".local/share"))
                    .map(|data| data.join("opencode"))
            })
            .into_iter()
            .collect(),
    }
}

/// Gemini CLI's directory: `.gemini` in `$GEMINI_CLI_HOME`, else in the home.
fn gemini_dir(vars: &Vars, home: Option<&Path>) -> Option<PathBuf> {
    vars.path(vars::GEMINI_CLI_HOME)
        .or_else(|| home.map(Path::to_path_buf))
        .map(|home| home.join(".gemini"))
}

/// An agent's configuration directory, and whether its variable set it: Claude Code's
/// `$CLAUDE_CONFIG_DIR`, else `~/.claude`; Codex's `$CODEX_HOME`, else `~/.codex`; Gemini CLI's
/// `$GEMINI_CLI_HOME/.gemini`, else `~/.gemini`; Copilot CLI's `$COPILOT_HOME`, else
/// `~/.copilot`; Cursor's `$CURSOR_CONFIG_DIR`, else `~/.cursor`; OpenCode's
/// `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`. `None` for Pi (its extension
/// is installed with `pi install`) and without a home.
pub fn agent_config_dir(
    harness: Harness,
    vars: &Vars,
    home: Option<&Path>,
) -> Option<(PathBuf, bool)> {
    let (var, default) = match harness {
        Harness::Pi => return None,
        Harness::OpenCode => (vars::XDG_CONFIG_HOME, ".config"),
        Harness::Claude => (vars::CLAUDE_CONFIG_DIR, ".claude"),
        Harness::Codex => (vars::CODEX_HOME, ".codex"),
        Harness::Gemini => {
            let from_env = vars.path(vars::GEMINI_CLI_HOME).is_some();
            return gemini_dir(vars, home).map(|dir| (dir, from_env));
        }
        Harness::Copilot => (vars::COPILOT_HOME, ".copilot"),
        Harness::Cursor => (vars::CURSOR_CONFIG_DIR, ".cursor"),
    };
    let (dir, from_env) = match vars.path(var) {
        Some(dir) => (dir, true),
        None => (home?.join(default), false),
    };
    // OpenCode's is a directory of the user's configuration directory.
    let dir = match harness {
        Harness::OpenCode => dir.join("opencode"),
        _ => dir,
    };
    Some((dir, from_env))
}

/// Where a harness's sessions are looked for by default, for `--help`.
pub fn default_roots_help(harness: Harness) -> &'static str {
    match harness {
        Harness::Pi => {
            "$PI_CODING_AGENT_SESSION_DIR, else the sessionDir setting; and <agent dir>/sessions"
        }
        Harness::Claude => "$CLAUDE_CONFIG_DIR/projects, else ~/.claude/projects",
        Harness::Codex => "$CODEX_HOME, else ~/.codex",
        Harness::Gemini => "$GEMINI_CLI_HOME/.gemini, else ~/.gemini",
        Harness::Copilot => "$COPILOT_HOME, else ~/.copilot",
        Harness::Cursor => "$CURSOR_CONFIG_DIR, else ~/.cursor",
        Harness::OpenCode => {
            "$OPENCODE_DB, else $XDG_DATA_HOME/opencode, else ~/.local/share/opencode"
        }
    }
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
    let text = crate::sidefile::read(file).ok()?;
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

    fn input(dir: &Path, vars: &[(&str, PathBuf)]) -> RootsInput {
        RootsInput {
            vars: Vars::from_pairs(vars.iter().map(|(k, v)| (k.to_string(), v.clone()))),
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
        let d = dir.path();
        let mut i = input(
            d,
            &[
                ("PI_CODING_AGENT_SESSION_DIR", d.join("env")),
                ("CLAUDE_CONFIG_DIR", d.join("claude")),
            ],
        );
        i.explicit = vec![pi(d.join("a")), pi(d.join("a"))];
        assert_eq!(session_roots(&i), vec![pi(d.join("a"))]);
        i.explicit = vec![Root::new(Harness::Codex, d.join("codex"))];
        assert_eq!(
            session_roots(&i),
            vec![Root::new(Harness::Codex, d.join("codex"))]
        );
    }

    #[test]
    fn env_wins_over_settings_and_the_agent_dir_is_always_searched() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut i = input(d, &[]);
        std::fs::create_dir_all(d.join("agent")).unwrap();
        std::fs::write(
            d.join("agent/settings.json"),
            r#"{"sessionDir":"~/pi-sessions"}"#,
        )
        .unwrap();
        assert_eq!(
            session_roots(&i)[..2],
            [pi(d.join("home/pi-sessions")), pi(d.join("agent/sessions"))]
        );
        std::fs::create_dir_all(d.join("cwd/.pi")).unwrap();
        std::fs::write(d.join("cwd/.pi/settings.json"), r#"{"sessionDir":"local"}"#).unwrap();
        assert_eq!(session_roots(&i)[0], pi(d.join("cwd/local")));
        i.vars = Vars::from_pairs([("PI_CODING_AGENT_SESSION_DIR", d.join("env"))]);
        i.live_session_dir = Some(d.join("live"));
        assert_eq!(
            session_roots(&i),
            vec![
                pi(d.join("env")),
                pi(d.join("agent/sessions")),
                Root::new(Harness::Claude, d.join("home/.claude/projects")),
                Root::new(Harness::Codex, d.join("home/.codex")),
                Root::new(Harness::Gemini, d.join("home/.gemini")),
                Root::new(Harness::Copilot, d.join("home/.copilot")),
                Root::new(Harness::Cursor, d.join("home/.cursor")),
                Root::new(Harness::OpenCode, d.join("home/.local/share/opencode")),
                pi(d.join("live")),
            ]
        );
    }

    #[test]
    fn the_other_harnesses_move_with_their_variables() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let mut i = input(
            d,
            &[
                ("CLAUDE_CONFIG_DIR", d.join("cc")),
                ("CODEX_HOME", d.join("cx")),
                ("GEMINI_CLI_HOME", d.join("gm")),
                ("COPILOT_HOME", d.join("cp")),
                ("CURSOR_CONFIG_DIR", d.join("cu")),
                ("OPENCODE_DB", d.join("oc/opencode.db")),
            ],
        );
        assert_eq!(
            session_roots(&i)[1..],
            [
                Root::new(Harness::Claude, d.join("cc/projects")),
                Root::new(Harness::Codex, d.join("cx")),
                Root::new(Harness::Gemini, d.join("gm/.gemini")),
                Root::new(Harness::Copilot, d.join("cp")),
                Root::new(Harness::Cursor, d.join("cu")),
                Root::new(Harness::OpenCode, d.join("oc/opencode.db")),
            ]
        );
        // A database's sessions are listed from its mirror in the cache; other roots as they are.
        i.cache = Some(d.join("cache"));
        let roots = session_roots(&i);
        let opencode = roots.last().unwrap();
        assert!(opencode
            .listed()
            .unwrap()
            .starts_with(d.join("cache/opencode")));
        assert!(!opencode.holds(&d.join("oc/opencode.db").to_string_lossy()));
        assert_eq!(roots[1].listed(), Some(d.join("cc/projects").as_path()));
        i.cache = None;
        i.home = None;
        i.vars = Vars::default();
        assert_eq!(session_roots(&i), vec![pi(d.join("agent/sessions"))]);
    }

    #[test]
    fn every_harness_has_a_default_root_under_the_home() {
        let dir = tempfile::tempdir().unwrap();
        let i = input(dir.path(), &[]);
        for harness in Harness::ALL {
            assert!(
                !default_roots(harness, &i).is_empty(),
                "{harness} has no default root"
            );
        }
    }
}
