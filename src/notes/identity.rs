//! Who is asking: notes home, session id, project key, agent and model (docs/notes.md,
//! "Identity"). The defaults are decided in [`crate::environment`]; this module holds the rules
//! for slugs and safe directory names. The project key of a directory is [`crate::project`]'s.

use std::path::PathBuf;

use super::error::NotesError;
pub use crate::project::{project_key, project_keys, ProjectKeys};
pub use crate::text::slugify;

/// A resolved identity. Agent and model are slugs; the session id and project key are single,
/// safe directory names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The notes home, absolute.
    pub home: PathBuf,
    pub session_id: Option<String>,
    pub project_key: String,
    pub agent: String,
    pub model: String,
}

/// Session ids and project keys become one directory name each.
pub fn checked_component(what: &'static str) -> impl Fn(String) -> Result<String, NotesError> {
    move |value: String| {
        if value == "."
            || value == ".."
            || value.contains(['/', '\\', '\0'])
            || value.chars().any(char::is_control)
        {
            return Err(NotesError::InvalidScope(format!(
                "{what} {value:?} must be a single safe directory name (no /, \\, NUL, control characters, . or ..)"
            )));
        }
        Ok(value)
    }
}

/// A model id `provider/id` uses its last `/` segment, slugified.
pub fn model_slug(model: &str) -> String {
    slugify(model.rsplit('/').next().unwrap_or(model))
}

/// `^[a-z0-9]+(-[a-z0-9]+)*$`: what `slugify` produces.
pub fn is_slug(value: &str) -> bool {
    !value.is_empty()
        && !value.starts_with('-')
        && !value.ends_with('-')
        && !value.contains("--")
        && value
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugify_examples() {
        assert_eq!(slugify("Test Agent"), "test-agent");
        assert_eq!(slugify("First.Model"), "first-model");
        assert_eq!(slugify("--a__b--"), "a-b");
        assert_eq!(slugify("Ünïcode"), "n-code");
        assert_eq!(slugify("模型"), "root");
        assert_eq!(slugify(""), "root");
        assert_eq!(model_slug("provider/First.Model"), "first-model");
        assert_eq!(model_slug("a/b/c"), "c");
    }

    #[test]
    fn slug_shape() {
        assert!(is_slug("a-b-9"));
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a b", "é"] {
            assert!(!is_slug(bad), "{bad:?}");
        }
    }
}
