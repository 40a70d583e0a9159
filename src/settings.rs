//! pi-context's settings inside Pi's settings files: the top-level `"pi-context"` key of
//! `<agent dir>/settings.json` (global) and `<cwd>/.pi/settings.json` (project), project values
//! winning per key. An invalid value is ignored with one warning naming the key; nothing fails.

use std::path::Path;

use serde_json::Value;

/// pi-context's section in Pi's settings files, and its keys.
pub const SECTION: &str = "pi-context";
pub const REMINDER_MARGIN_KEY: &str = "reminderMarginTokens";
pub const DREAMER_KEY: &str = "dreamer";
/// `false` turns off the recall hint at each prompt (read by the extension).
pub const AUTO_RECALL_KEY: &str = "autoRecall";
/// `false` turns off the notes history (a git commit per notes write); like
/// `PI_CONTEXT_NOTES_HISTORY=off`.
pub const NOTES_HISTORY_KEY: &str = "notesHistory";
/// The git remote `notes sync` uses when neither `--remote` nor the notes repository names one.
pub const NOTES_REMOTE_KEY: &str = "notesRemote";

pub const DEFAULT_REMINDER_MARGIN_TOKENS: u64 = 24_576;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub reminder_margin_tokens: u64,
    pub dreamer: Option<String>,
    pub notes_history: bool,
    pub notes_remote: Option<String>,
    /// One line per ignored value, naming the key and the file.
    pub warnings: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            reminder_margin_tokens: DEFAULT_REMINDER_MARGIN_TOKENS,
            dreamer: None,
            notes_history: true,
            notes_remote: None,
            warnings: Vec::new(),
        }
    }
}

/// Loads the global then the project settings file.
pub fn load(agent_dir: Option<&Path>, cwd: &Path) -> Settings {
    let mut settings = Settings::default();
    let global = agent_dir.map(|dir| dir.join("settings.json"));
    for file in global
        .into_iter()
        .chain([cwd.join(".pi").join("settings.json")])
    {
        apply_file(&mut settings, &file);
    }
    settings
}

fn apply_file(settings: &mut Settings, file: &Path) {
    let Ok(text) = std::fs::read_to_string(file) else {
        return;
    };
    let section = match serde_json::from_str::<Value>(&text) {
        Ok(value) => value.get(SECTION).cloned(),
        Err(e) => {
            settings.warnings.push(format!(
                "{}: not valid JSON ({e}); its settings are ignored",
                file.display()
            ));
            return;
        }
    };
    let Some(section) = section else { return };
    let warn = |key: &str, why: &str| {
        format!(
            "{}: {SECTION}.{key} {why}; using the default",
            file.display()
        )
    };
    if let Some(value) = section.get(REMINDER_MARGIN_KEY) {
        match value.as_u64().filter(|n| *n > 0) {
            Some(n) => settings.reminder_margin_tokens = n,
            None => settings
                .warnings
                .push(warn(REMINDER_MARGIN_KEY, "must be a positive integer")),
        }
    }
    if let Some(value) = section.get(NOTES_HISTORY_KEY) {
        match value.as_bool() {
            Some(on) => settings.notes_history = on,
            None => settings
                .warnings
                .push(warn(NOTES_HISTORY_KEY, "must be true or false")),
        }
    }
    if let Some(value) = section.get(NOTES_REMOTE_KEY) {
        match value.as_str().filter(|s| !s.trim().is_empty()) {
            Some(s) => settings.notes_remote = Some(s.to_string()),
            None => settings
                .warnings
                .push(warn(NOTES_REMOTE_KEY, "must be a non-empty string")),
        }
    }
    if let Some(value) = section.get(DREAMER_KEY) {
        match value.as_str().filter(|s| !s.trim().is_empty()) {
            Some(s) => settings.dreamer = Some(s.to_string()),
            None => settings
                .warnings
                .push(warn(DREAMER_KEY, "must be a non-empty string")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_values_win_per_key_and_invalid_ones_warn() {
        let dir = tempfile::tempdir().unwrap();
        let agent = dir.path().join("agent");
        let cwd = dir.path().join("project");
        std::fs::create_dir_all(&agent).unwrap();
        std::fs::create_dir_all(cwd.join(".pi")).unwrap();
        std::fs::write(
            agent.join("settings.json"),
            r#"{"pi-context":{"reminderMarginTokens":1000,"dreamer":"a/b"}}"#,
        )
        .unwrap();
        std::fs::write(
            cwd.join(".pi/settings.json"),
            r#"{"pi-context":{"dreamer":"","reminderMarginTokens":2000}}"#,
        )
        .unwrap();
        let s = load(Some(&agent), &cwd);
        assert_eq!(s.reminder_margin_tokens, 2000);
        assert_eq!(s.dreamer.as_deref(), Some("a/b"));
        assert_eq!(s.warnings.len(), 1);
        assert!(s.warnings[0].contains("pi-context.dreamer"));
    }
}
