//! Where a dreamer's `write` or `edit` call really wrote: the path as Pi's own tools resolve it.
//!
//! Pi's write and edit tools (`resolveToCwd` in `@earendil-works/pi-coding-agent`) turn unicode
//! spaces into spaces, drop one leading `@`, expand `~` and `~/`, read `file://` URLs as paths, and
//! resolve the result lexically against the working directory (the notes home), `..` included.
//! Then they write through any symlink on the way. The post-run audit attributes a change in the
//! home to the dreamer only when one of its successful calls resolves to that file, so this must
//! agree with Pi byte for byte; a spelling this module missed would leave a violation unrestored.

use std::path::{Component, Path, PathBuf};

/// What Pi's `normalizePath` treats as a space (`UNICODE_SPACES`).
fn is_unicode_space(c: char) -> bool {
    matches!(
        c,
        '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}'
    )
}

/// Where a write or edit of `requested`, made with `cwd` as the working directory, lands before
/// symlinks are followed: an absolute, lexically normalized path.
pub fn pi_target(requested: &str, cwd: &Path, user_home: &Path) -> PathBuf {
    let spaced: String = requested
        .chars()
        .map(|c| if is_unicode_space(c) { ' ' } else { c })
        .collect();
    let text = spaced.strip_prefix('@').unwrap_or(&spaced);
    let path = if text == "~" {
        user_home.to_path_buf()
    } else if let Some(rest) = text.strip_prefix("~/") {
        user_home.join(rest)
    } else if let Some(url) = text.strip_prefix("file://") {
        file_url_path(url)
    } else {
        PathBuf::from(text)
    };
    let joined = if path.is_absolute() {
        path
    } else {
        cwd.join(path)
    };
    lexical(&joined)
}

/// Node's `fileURLToPath` for a URL after `file://`: an optional `localhost` host, then a
/// percent-decoded absolute path. Any other host is not a local path; Node throws there, so the
/// call failed and wrote nothing, and the result here only has to be harmless.
fn file_url_path(rest: &str) -> PathBuf {
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    let path = rest.split(['?', '#']).next().unwrap_or_default();
    let bytes: Vec<u8> = percent_encoding::percent_decode_str(path).collect();
    PathBuf::from(<std::ffi::OsString as std::os::unix::ffi::OsStringExt>::from_vec(bytes))
}

/// `path` with `.` and `..` resolved without touching the file system, as Node's
/// `path.resolve` does (`..` at the root stays at the root).
pub fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(part) => out.push(part),
            Component::ParentDir => {
                out.pop();
            }
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// `target` with the symlinks of its deepest existing ancestor resolved (what a write through
/// them reaches), or `None` when nothing on the way can be resolved.
pub fn through_links(target: &Path) -> Option<PathBuf> {
    let mut existing = target.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if std::fs::symlink_metadata(&existing).is_ok() {
            break;
        }
        rest.push(existing.file_name()?.to_os_string());
        if !existing.pop() {
            return None;
        }
    }
    let mut real = std::fs::canonicalize(&existing).ok()?;
    real.extend(rest.iter().rev());
    Some(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(requested: &str) -> String {
        pi_target(requested, Path::new("/notes"), Path::new("/home/u"))
            .to_string_lossy()
            .into_owned()
    }

    #[test]
    fn resolves_every_spelling_pi_accepts() {
        assert_eq!(target("human/a.md"), "/notes/human/a.md");
        assert_eq!(target("@human/a.md"), "/notes/human/a.md");
        assert_eq!(target("./human/./a.md"), "/notes/human/a.md");
        assert_eq!(
            target("a/../pi/session/s1/x.md"),
            "/notes/pi/session/s1/x.md"
        );
        assert_eq!(target("../notes/pi/x.md"), "/notes/pi/x.md");
        assert_eq!(target("../../../../etc/x"), "/etc/x");
        assert_eq!(target("file:///notes/pi/x.md"), "/notes/pi/x.md");
        assert_eq!(target("file://localhost/notes/a%20b.md"), "/notes/a b.md");
        assert_eq!(target("~/x.md"), "/home/u/x.md");
        assert_eq!(target("~"), "/home/u");
        assert_eq!(target("/tmp/y"), "/tmp/y");
        assert_eq!(
            target("pi/session/s1/a\u{00A0}b.md"),
            "/notes/pi/session/s1/a b.md"
        );
        assert_eq!(target("pi/x\u{3000}.md"), "/notes/pi/x .md");
        // Only one `@` goes, and `~user` is not expanded (Pi does neither).
        assert_eq!(target("@@x"), "/notes/@x");
        assert_eq!(target("~u/x"), "/notes/~u/x");
    }

    #[test]
    fn links_on_the_way_are_followed() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(real.join("pi/session")).unwrap();
        std::os::unix::fs::symlink(real.join("pi/session"), real.join("link")).unwrap();
        assert_eq!(
            through_links(&real.join("link/s1/new.md")).unwrap(),
            real.join("pi/session/s1/new.md")
        );
    }
}
