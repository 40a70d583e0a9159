//! The normalized form of a git remote URL, from which a project key is derived (docs/notes.md,
//! "Project keys across machines"): every spelling of one repository's address normalizes to the
//! same text, so every clone on every machine gets the same key.
//!
//! | remote | normalized |
//! |---|---|
//! | `git@host:owner/repo.git` (scp-like) | `host/owner/repo` |
//! | `ssh://user@host:22/owner/repo` | `host/owner/repo` |
//! | `https://user:secret@Host/owner/repo.git/` | `host/owner/repo` |
//! | `git://host/owner/repo`, `http://…`, `git+ssh://…` | `host/owner/repo` |
//! | `ssh://git@[::1]:22/repo`, `git@[::1]:repo` | `[::1]/repo` |
//! | `/srv/git/repo.git`, `../repo`, `file:///srv/git/repo.git` | the real path: `/srv/git/repo.git` |
//!
//! Dropped: the scheme, the user (and password), the port, one `.git` suffix, leading and
//! trailing `/`, and a `<transport>::` prefix (`persistent-https::https://…`). The host is
//! lowercased; the path keeps its case. A local path is made absolute against the checkout's
//! root (as git resolves it) and resolved to its real path; it keeps its `.git` suffix.

use std::path::Path;

use percent_encoding::percent_decode_str;

/// The normalized form of `url`, `None` when it names nothing usable (empty, or a URL without a
/// host). A relative local path is taken relative to `root`.
pub fn normalize(url: &str, root: &Path) -> Option<String> {
    let url = without_transport(url.trim());
    if url.is_empty() {
        return None;
    }
    if let Some((scheme, rest)) = split_scheme(url) {
        return if scheme.eq_ignore_ascii_case("file") {
            Some(local_path(&file_url_path(rest), root))
        } else {
            network(rest)
        };
    }
    match scp_like(url) {
        Some((host, path)) => joined(&host_only(host), path),
        None => Some(local_path(url, root)),
    }
}

/// `<transport>::<address>` (a remote helper) is the address.
fn without_transport(url: &str) -> &str {
    match url.split_once("::") {
        Some((transport, address)) if is_scheme(transport) => address,
        _ => url,
    }
}

/// `scheme://rest` when `url` starts with a URL scheme.
fn split_scheme(url: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = url.split_once("://")?;
    is_scheme(scheme).then_some((scheme, rest))
}

/// RFC 3986: a letter, then letters, digits, `+`, `-` and `.`.
fn is_scheme(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

/// What follows `file://`: a path, with an empty or `localhost` host dropped and `%XX` decoded.
fn file_url_path(rest: &str) -> String {
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    percent_decode_str(path).decode_utf8_lossy().into_owned()
}

/// `[user[:password]@]host[:port][/path]` of a network URL.
fn network(rest: &str) -> Option<String> {
    let (authority, path) = match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    joined(&without_port(host_port), path)
}

/// `host` of `host:port`; an IPv6 literal keeps its brackets.
fn without_port(host_port: &str) -> String {
    if host_port.starts_with('[') {
        if let Some(end) = host_port.find(']') {
            return host_port[..=end].to_string();
        }
    }
    host_port
        .split_once(':')
        .map_or(host_port, |(host, _)| host)
        .to_string()
}

/// `[user@]host:path` (git's scp-like syntax): a `:` before any `/`, outside `[…]`. Returns the
/// part before the `:` (user and host) and the path.
fn scp_like(url: &str) -> Option<(&str, &str)> {
    let mut depth = 0usize;
    for (at, c) in url.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '/' => return None,
            ':' if depth == 0 => return Some((&url[..at], &url[at + 1..])),
            _ => {}
        }
    }
    None
}

/// The host of the part of an scp-like address before its `:`: without the user; a bracketed
/// `[user@host:port]` loses its user and port, an IPv6 literal `[::1]` keeps its brackets.
fn host_only(user_host: &str) -> String {
    let host = after_user(user_host);
    let Some(inner) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) else {
        return host.to_string();
    };
    let inner = after_user(inner);
    match inner.split_once(':') {
        Some((name, port)) if !port.contains(':') => name.to_string(),
        _ => format!("[{inner}]"),
    }
}

/// The text after the last `@` outside brackets.
fn after_user(text: &str) -> &str {
    let mut depth = 0usize;
    let mut start = 0;
    for (at, c) in text.char_indices() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            '@' if depth == 0 => start = at + 1,
            _ => {}
        }
    }
    &text[start..]
}

/// `host/path` with the host lowercased and the path trimmed of `/` and one `.git` suffix;
/// `None` without a host.
fn joined(host: &str, path: &str) -> Option<String> {
    if host.is_empty() {
        return None;
    }
    let host = host.to_lowercase();
    let path = path.trim_matches('/');
    let path = path
        .strip_suffix(".git")
        .unwrap_or(path)
        .trim_end_matches('/');
    Some(if path.is_empty() {
        host
    } else {
        format!("{host}/{path}")
    })
}

/// The real path of a local remote (relative to `root`); a part that does not exist is kept as
/// written below its longest existing ancestor.
fn local_path(path: &str, root: &Path) -> String {
    let path = Path::new(path);
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    super::real_path(&absolute).to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(url: &str) -> Option<String> {
        normalize(url, Path::new("/nonexistent-root/checkout"))
    }

    #[test]
    fn every_spelling_of_one_hosted_repository_is_the_same() {
        for url in [
            "git@github.com:owner/repo.git",
            "git@github.com:owner/repo",
            "github.com:owner/repo.git",
            "git@github.com:/owner/repo.git",
            "ssh://git@github.com/owner/repo",
            "ssh://git@github.com:22/owner/repo.git",
            "ssh://github.com/owner/repo/",
            "git+ssh://git@github.com/owner/repo.git",
            "ssh+git://git@github.com/owner/repo.git",
            "https://github.com/owner/repo.git",
            "https://github.com/owner/repo.git/",
            "https://github.com/owner/repo/",
            "https://user@GitHub.com/owner/repo.git/",
            "https://user:p%40ss@GITHUB.COM:443/owner/repo",
            "http://github.com/owner/repo",
            "git://github.com/owner/repo.git",
            "HTTPS://github.com/owner/repo",
            "  https://github.com/owner/repo.git\n",
            "persistent-https::https://github.com/owner/repo",
            "https://github.com//owner/repo//",
        ] {
            assert_eq!(
                norm(url).as_deref(),
                Some("github.com/owner/repo"),
                "{url:?}"
            );
        }
    }

    #[test]
    fn the_path_keeps_its_case_and_only_one_git_suffix_goes() {
        assert_eq!(
            norm("https://Example.com/Owner/Repo.git").as_deref(),
            Some("example.com/Owner/Repo")
        );
        assert_eq!(
            norm("git@host:a/b.git.git").as_deref(),
            Some("host/a/b.git")
        );
        assert_eq!(
            norm("https://host/group/sub/repo").as_deref(),
            Some("host/group/sub/repo")
        );
        assert_eq!(
            norm("git@host:~user/repo.git").as_deref(),
            Some("host/~user/repo")
        );
        assert_eq!(norm("https://host").as_deref(), Some("host"));
        assert_eq!(norm("https://host/").as_deref(), Some("host"));
    }

    #[test]
    fn ipv6_hosts_keep_their_brackets_and_lose_their_port() {
        for url in [
            "ssh://git@[::1]:22/owner/repo.git",
            "ssh://[::1]/owner/repo",
            "git@[::1]:owner/repo.git",
            "[::1]:owner/repo",
            "https://[::1]:8443/owner/repo",
        ] {
            assert_eq!(norm(url).as_deref(), Some("[::1]/owner/repo"), "{url:?}");
        }
        assert_eq!(
            norm("ssh://[FE80::1]/r").as_deref(),
            Some("[fe80::1]/r"),
            "hex digits are case-insensitive like host names"
        );
    }

    #[test]
    fn bracketed_scp_hosts_lose_user_and_port() {
        assert_eq!(
            norm("[git@example.com:2222]:owner/repo.git").as_deref(),
            Some("example.com/owner/repo")
        );
        assert_eq!(
            norm("git@[example.com:2222]:owner/repo").as_deref(),
            Some("example.com/owner/repo")
        );
    }

    #[test]
    fn urls_without_a_host_name_nothing() {
        for url in [
            "",
            "   ",
            "https://",
            "ssh:///owner/repo",
            "https://user@/x",
        ] {
            assert_eq!(norm(url), None, "{url:?}");
        }
    }

    #[test]
    fn local_paths_are_real_paths() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        let bare = real.join("remote.git");
        std::fs::create_dir_all(&bare).unwrap();
        let root = real.join("checkout");
        std::fs::create_dir_all(&root).unwrap();
        let link = real.join("link");
        std::os::unix::fs::symlink(&bare, &link).unwrap();
        let expected = bare.to_string_lossy().into_owned();
        let file_url = format!("file://{}", bare.display());
        let link_url = link.to_string_lossy().into_owned();
        let trailing = format!("{}/", bare.display());
        for url in [
            expected.as_str(),
            "../remote.git",
            "./../remote.git/",
            file_url.as_str(),
            link_url.as_str(),
            trailing.as_str(),
        ] {
            assert_eq!(
                normalize(url, &root).as_deref(),
                Some(expected.as_str()),
                "{url:?}"
            );
        }
        let spaced = real.join("my repo");
        std::fs::create_dir_all(&spaced).unwrap();
        assert_eq!(
            normalize(
                &format!("file://localhost{}/my%20repo", real.display()),
                &root
            ),
            Some(spaced.to_string_lossy().into_owned())
        );
        assert_eq!(
            normalize("../not-yet", &root),
            Some(real.join("not-yet").to_string_lossy().into_owned()),
            "a missing remote keeps its spelling below its existing ancestor"
        );
    }

    #[test]
    fn a_slash_before_the_colon_makes_a_local_path() {
        let root = Path::new("/nonexistent-root/checkout");
        assert_eq!(
            normalize("./host:repo", root).as_deref(),
            Some("/nonexistent-root/checkout/host:repo")
        );
        assert_eq!(normalize("/srv/a:b", root).as_deref(), Some("/srv/a:b"));
    }
}
