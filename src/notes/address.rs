//! Note addresses, the five homes, glob patterns, and canonical rendering.
//!
//! ```text
//! <path>                    this session      <home>/pi/session/<session_id>/<path>.md
//! @project/<path>           this project      <home>/project/<project_key>/<path>.md
//! @human/<path>             the human         <home>/human/<path>.md
//! @self/<path>              the current agent <home>/agents/<agent>/<path>.md
//! @model/<path>             the current model <home>/models/<model>/<path>.md
//! @agents/<name>/<path>     a named agent     <home>/agents/<name>/<path>.md
//! @models/<name>/<path>     a named model     <home>/models/<name>/<path>.md
//! ```

use regex::Regex;

use super::error::NotesError;
use super::identity::{is_slug, Identity};
use crate::home::layout::{AGENTS_DIR, HUMAN_DIR, MODELS_DIR, PROJECT_DIR, SESSIONS_DIR};

/// The longest virtual path a write accepts, in UTF-8 bytes, counted before `.md` is added.
pub const MAX_PATH_BYTES: usize = 512;

const FORMS: &str =
    "legal forms are <path> (this session), @project/<path>, @human/<path>, @self/<path>, \
@model/<path>, @agents/<name>/<path> and @models/<name>/<path>";

/// A home as an address names it: relative to the identity (`@self/`) or explicitly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HomeSpec {
    Session,
    Project,
    Human,
    /// `None` is `@self/`; `Some(name)` is `@agents/<name>/`.
    Agent(Option<String>),
    /// `None` is `@model/`; `Some(name)` is `@models/<name>/`.
    Model(Option<String>),
}

/// A parsed address: a home and a validated virtual path that ends in `.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Address {
    pub home: HomeSpec,
    /// The virtual path with the `.md` suffix.
    pub path: String,
    /// UTF-8 bytes of the path as written, before `.md` is added (what the 512-byte cap counts).
    pub written_bytes: usize,
}

/// A concrete home, resolved against an identity.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Home {
    Session(String),
    Project(String),
    Human,
    Agent { name: String, current: bool },
    Model { name: String, current: bool },
}

/// A note's place: its home and its virtual path (with `.md`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub home: Home,
    pub path: String,
}

impl Address {
    pub fn parse(address: &str) -> Result<Address, NotesError> {
        let (home, path) = split_home(address)?;
        validate_path(path, address)?;
        Ok(Address {
            home,
            path: with_md(path),
            written_bytes: path.len(),
        })
    }

    /// Binds the address to an identity. A session address needs a session id.
    pub fn resolve(&self, identity: &Identity) -> Result<Location, NotesError> {
        Ok(Location {
            home: self.home.resolve(identity)?,
            path: self.path.clone(),
        })
    }

    /// The 512-byte cap on paths that a write or edit would create.
    pub fn check_writable_length(&self) -> Result<(), NotesError> {
        if self.written_bytes > MAX_PATH_BYTES {
            return Err(NotesError::PathTooLarge {
                actual: self.written_bytes,
                limit: MAX_PATH_BYTES,
            });
        }
        Ok(())
    }
}

impl HomeSpec {
    pub fn resolve(&self, identity: &Identity) -> Result<Home, NotesError> {
        Ok(match self {
            HomeSpec::Session => Home::Session(identity.session_id.clone().ok_or_else(|| {
                NotesError::InvalidScope(
                    "bare addresses name this session's notes, but no session id is set \
(pass --session-id or set PI_CONTEXT_SESSION_ID), or use an @ home such as @project/"
                        .into(),
                )
            })?),
            HomeSpec::Project => Home::Project(identity.project_key.clone()),
            HomeSpec::Human => Home::Human,
            HomeSpec::Agent(name) => {
                let name = name.clone().unwrap_or_else(|| identity.agent.clone());
                let current = name == identity.agent;
                Home::Agent { name, current }
            }
            HomeSpec::Model(name) => {
                let name = name.clone().unwrap_or_else(|| identity.model.clone());
                let current = name == identity.model;
                Home::Model { name, current }
            }
        })
    }
}

impl Home {
    /// Directory components below the notes home.
    pub fn components(&self) -> Vec<&str> {
        match self {
            Home::Session(id) => vec![SESSIONS_DIR[0], SESSIONS_DIR[1], id],
            Home::Project(key) => vec![PROJECT_DIR, key],
            Home::Human => vec![HUMAN_DIR],
            Home::Agent { name, .. } => vec![AGENTS_DIR, name],
            Home::Model { name, .. } => vec![MODELS_DIR, name],
        }
    }

    /// The address prefix: empty for the session, `@self/` for the current agent, and so on.
    pub fn prefix(&self) -> String {
        let mut prefix = String::new();
        self.push_prefix(&mut prefix, false);
        prefix
    }

    /// Appends the prefix to `out` (agent and model homes spelled out when `spelled_out`):
    /// addresses are built for every note a listing shows, so without `format!`.
    fn push_prefix(&self, out: &mut String, spelled_out: bool) {
        let (head, name) = match self {
            Home::Session(_) => return,
            Home::Project(_) => ("@project/", None),
            Home::Human => ("@human/", None),
            Home::Agent { current: true, .. } if !spelled_out => ("@self/", None),
            Home::Model { current: true, .. } if !spelled_out => ("@model/", None),
            Home::Agent { name, .. } => ("@agents/", Some(name)),
            Home::Model { name, .. } => ("@models/", Some(name)),
        };
        out.push_str(head);
        if let Some(name) = name {
            out.push_str(name);
            out.push('/');
        }
    }

    /// An upper bound of the prefix's length in bytes.
    fn prefix_capacity(&self) -> usize {
        match self {
            Home::Agent { name, .. } | Home::Model { name, .. } => {
                "@agents/".len() + name.len() + 1
            }
            _ => "@project/".len(),
        }
    }

    /// The label used in `homes_unavailable`.
    pub fn label(&self) -> String {
        match self {
            Home::Session(_) => "session".into(),
            other => other.prefix().trim_end_matches('/').to_string(),
        }
    }

    /// Foreign agent and model homes are readable, never writable.
    pub fn is_writable(&self) -> bool {
        !matches!(
            self,
            Home::Agent { current: false, .. } | Home::Model { current: false, .. }
        )
    }

    pub fn project_key(&self) -> Option<&str> {
        match self {
            Home::Project(key) => Some(key),
            _ => None,
        }
    }
}

impl Location {
    /// The canonical address: current agent and model as `@self/…`, `@model/…`.
    pub fn address(&self) -> String {
        self.address_with(false)
    }

    fn spelled_out_address(&self) -> String {
        self.address_with(true)
    }

    fn address_with(&self, spelled_out: bool) -> String {
        let mut address = String::with_capacity(self.home.prefix_capacity() + self.path.len());
        self.home.push_prefix(&mut address, spelled_out);
        address.push_str(&self.path);
        address
    }

    /// A note named by its file path below the notes home, as the dreamer (which works with
    /// files) names it: `human/<p>.md`, `project/<key>/<p>.md`, `agents/<agent>/<p>.md`,
    /// `models/<model>/<p>.md` or `pi/session/<id>/<p>.md`. The current agent's and model's
    /// homes are those of `identity`.
    pub fn from_home_path(file: &str, identity: &Identity) -> Result<Location, NotesError> {
        let invalid =
            |why: &str| NotesError::address(format!("invalid note path {}: {why}", shown(file)));
        let segments: Vec<&str> = file.split('/').collect();
        let (home, rest) = match segments.as_slice() {
            ["human", rest @ ..] => (Home::Human, rest),
            ["project", key, rest @ ..] if is_directory_name(key) => {
                (Home::Project((*key).to_string()), rest)
            }
            ["agents", name, rest @ ..] if is_slug(name) => (
                Home::Agent {
                    name: (*name).to_string(),
                    current: *name == identity.agent,
                },
                rest,
            ),
            ["models", name, rest @ ..] if is_slug(name) => (
                Home::Model {
                    name: (*name).to_string(),
                    current: *name == identity.model,
                },
                rest,
            ),
            ["pi", "session", id, rest @ ..] if is_directory_name(id) => {
                (Home::Session((*id).to_string()), rest)
            }
            _ => {
                return Err(invalid(
                    "expected human/…, project/<key>/…, agents/<agent>/…, models/<model>/… or pi/session/<id>/…",
                ))
            }
        };
        let path = rest.join("/");
        if !path.ends_with(".md") {
            return Err(invalid("a note file ends in .md"));
        }
        validate_path(&path, file)?;
        Ok(Location { home, path })
    }

    /// Refuses writes to another agent's or model's home.
    pub fn check_writable(&self) -> Result<(), NotesError> {
        if self.home.is_writable() {
            return Ok(());
        }
        Err(NotesError::InvalidScope(format!(
            "`{}/` is not your home: it is readable, but the writable homes are this session, \
@project/, @human/, @self/ and @model/",
            self.home.label()
        )))
    }
}

/// A project key or session id as a directory name: one plain, visible component.
fn is_directory_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['\\', '\0'])
        && !name.chars().any(char::is_control)
}

/// Splits `@head/…` (or a bare path) into its home and the rest.
fn split_home(address: &str) -> Result<(HomeSpec, &str), NotesError> {
    let Some(rest) = address.strip_prefix('@') else {
        return Ok((HomeSpec::Session, address));
    };
    let invalid =
        || NotesError::address(format!("invalid note address {}: {FORMS}", shown(address)));
    let (head, after) = rest.split_once('/').ok_or_else(invalid)?;
    let home = match head {
        "project" => HomeSpec::Project,
        "human" => HomeSpec::Human,
        "self" => HomeSpec::Agent(None),
        "model" => HomeSpec::Model(None),
        "agents" | "models" => {
            let (name, path) = after.split_once('/').ok_or_else(invalid)?;
            check_home_name(head, name, address)?;
            let name = Some(name.to_string());
            let home = if head == "agents" {
                HomeSpec::Agent(name)
            } else {
                HomeSpec::Model(name)
            };
            return Ok((home, path));
        }
        _ => return Err(invalid()),
    };
    Ok((home, after))
}

fn check_home_name(namespace: &str, name: &str, whole: &str) -> Result<(), NotesError> {
    if is_slug(name) {
        return Ok(());
    }
    Err(NotesError::address(format!(
        "invalid note address {}: the name after @{namespace}/ must be a lowercase slug \
like `my-agent` (letters a-z, digits, single dashes)",
        shown(whole)
    )))
}

/// Checks a virtual path: relative, `/`-separated, no empty, `.` or `..` segment, no NUL,
/// backslash, control character or `@`.
pub fn validate_path(path: &str, whole: &str) -> Result<(), NotesError> {
    let refuse = |why: &str| {
        Err(NotesError::address(format!(
            "invalid note address {}: {why}",
            shown(whole)
        )))
    };
    if path.is_empty() {
        return refuse("the path after the home is empty");
    }
    if path.starts_with('/') {
        return refuse("the path must be relative (no leading /)");
    }
    if path.contains('\\') || path.chars().any(char::is_control) {
        return refuse("the path must not contain backslashes, NUL or control characters");
    }
    if path.contains('@') {
        return refuse(&format!("@ may only start an address; {FORMS}"));
    }
    if let Some(c) = deceptive_char(path) {
        return refuse(&deceptive_reason(c));
    }
    if path
        .split('/')
        .any(|segment| matches!(segment, "" | "." | ".."))
    {
        return refuse("the path contains an empty, `.` or `..` segment");
    }
    Ok(())
}

/// Characters an address or pattern may not contain, because they are invisible or look like
/// something else, so that an address always looks like what it names (`docs/notes.md`,
/// "Invisible and look-alike characters"):
/// - control, format (bidi controls, zero-width characters, the BOM, soft hyphen, tags…), line
///   and paragraph separators, and every other default-ignorable code point (variation
///   selectors, the combining grapheme joiner, Hangul fillers…);
/// - spaces other than the ASCII space;
/// - look-alikes of `.`, `/` and `\`, which could spell a fake `..`, separator or escape.
const DECEPTIVE: &str = concat!(
    r"[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}[\p{Zs}--\x20]",
    // dots
    r"\x{2024}\x{2025}\x{2026}\x{FE19}\x{FE52}\x{FF0E}\x{3002}\x{FF61}\x{06D4}",
    r"\x{0701}\x{0702}\x{A4F8}\x{A60E}\x{10A50}\x{1D16D}",
    // slashes
    r"\x{2215}\x{2044}\x{FF0F}\x{29F8}\x{2571}\x{27CB}\x{1735}\x{2F03}\x{3033}\x{31D3}",
    // backslashes
    r"\x{2216}\x{FF3C}\x{29F5}\x{29F9}\x{FE68}\x{2572}\x{27CD}",
    "]"
);

/// The first invisible or look-alike character of `text`, if any. Should the class ever fail
/// to build, every non-ASCII character counts (refusing too much, never too little).
pub fn deceptive_char(text: &str) -> Option<char> {
    // In ASCII only the control characters are in the class (most names are ASCII: no need
    // to run the automaton).
    if text.is_ascii() {
        return text.chars().find(char::is_ascii_control);
    }
    static CLASS: std::sync::LazyLock<Option<Regex>> =
        std::sync::LazyLock::new(|| Regex::new(DECEPTIVE).ok());
    match &*CLASS {
        Some(class) => class.find(text).and_then(|m| m.as_str().chars().next()),
        None => text.chars().find(|c| !c.is_ascii() || c.is_ascii_control()),
    }
}

fn deceptive_reason(c: char) -> String {
    format!(
        "it contains U+{:04X}, an invisible, bidi-control, space-like or look-alike character \
(refused so that an address always shows what it names)",
        u32::from(c)
    )
}

/// Adds `.md` unless the path already ends in it (case-sensitive: `a.MD` becomes `a.MD.md`).
pub fn with_md(path: &str) -> String {
    if path.ends_with(".md") {
        path.to_string()
    } else {
        format!("{path}.md")
    }
}

/// An address shortened for a message, quoted.
fn shown(text: &str) -> String {
    const MAX: usize = 120;
    if text.chars().count() <= MAX {
        format!("{text:?}")
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut:?}…")
    }
}

/// Which homes a listing reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scan {
    /// This session (when a session id is set), @project, @human, @self, @model.
    Default,
    One(Home),
    /// Every agent home (`@agents/<glob>/…`).
    AllAgents,
    /// Every model home (`@models/<glob>/…`).
    AllModels,
}

/// A glob over canonical addresses: `*` any run without `/`, `**` any run, `**/` any run of
/// whole directories (also none), `?` one character other than `/`.
#[derive(Debug, Clone)]
pub struct Pattern {
    regex: Option<Regex>,
    scan: Scan,
    /// Match the spelled-out form (`@agents/<name>/…`), as `@agents/<glob>/` patterns do.
    spelled_out: bool,
}

impl Pattern {
    /// The empty pattern (or none) matches everything in the default homes.
    pub fn parse(pattern: Option<&str>, identity: &Identity) -> Result<Pattern, NotesError> {
        let pattern = pattern.unwrap_or("");
        if pattern.is_empty() {
            return Ok(Pattern {
                regex: None,
                scan: Scan::Default,
                spelled_out: false,
            });
        }
        if pattern.contains('\0') || pattern.contains('\\') {
            return Err(NotesError::InvalidPattern(
                "glob pattern must not contain NUL or backslashes".into(),
            ));
        }
        if let Some(c) = deceptive_char(pattern) {
            return Err(NotesError::address(format!(
                "invalid pattern {}: {}",
                shown(pattern),
                deceptive_reason(c)
            )));
        }
        let (scan, glob, spelled_out) = narrow(pattern, identity)?;
        Ok(Pattern {
            regex: Some(compile_glob(&glob)?),
            scan,
            spelled_out,
        })
    }

    pub fn scan(&self) -> &Scan {
        &self.scan
    }

    pub fn matches(&self, location: &Location) -> bool {
        let Some(regex) = &self.regex else {
            return true;
        };
        if self.spelled_out {
            regex.is_match(&location.spelled_out_address())
        } else {
            regex.is_match(&location.address())
        }
    }
}

/// Decides the homes a pattern can match (before any file is read) and normalizes its head.
fn narrow(pattern: &str, identity: &Identity) -> Result<(Scan, String, bool), NotesError> {
    let Some(rest) = pattern.strip_prefix('@') else {
        return Ok((Scan::Default, pattern.to_string(), false));
    };
    let invalid = || {
        NotesError::address(format!(
            "invalid pattern {}: it must start with a home; {FORMS}, or no @ for the default homes",
            shown(pattern)
        ))
    };
    let (head, after) = rest.split_once('/').ok_or_else(invalid)?;
    let need_path = |after: &str, home: &str| {
        if after.is_empty() {
            Err(NotesError::InvalidPattern(format!(
                "pattern {} names a home but no path; use {home}** for every note in it",
                shown(pattern)
            )))
        } else {
            Ok(())
        }
    };
    let one = |spec: HomeSpec| spec.resolve(identity).map(Scan::One);
    let scan = match head {
        "project" => one(HomeSpec::Project)?,
        "human" => one(HomeSpec::Human)?,
        "self" => one(HomeSpec::Agent(None))?,
        "model" => one(HomeSpec::Model(None))?,
        "agents" | "models" => {
            let (name, path) = after.split_once('/').ok_or_else(|| {
                NotesError::InvalidPattern(format!(
                    "pattern {} must name the home then a path: @{head}/<name>/<path pattern>",
                    shown(pattern)
                ))
            })?;
            let namespace = format!("@{head}/{name}/");
            need_path(path, &namespace)?;
            if name.contains(['*', '?']) {
                let scan = if head == "agents" {
                    Scan::AllAgents
                } else {
                    Scan::AllModels
                };
                return Ok((scan, pattern.to_string(), true));
            }
            check_home_name(head, name, pattern)?;
            let spec = if head == "agents" {
                HomeSpec::Agent(Some(name.to_string()))
            } else {
                HomeSpec::Model(Some(name.to_string()))
            };
            let home = spec.resolve(identity)?;
            // The current agent's home renders as @self/, so the pattern is rewritten to match.
            let glob = format!("{}{path}", home.prefix());
            return Ok((Scan::One(home), glob, false));
        }
        _ => return Err(invalid()),
    };
    need_path(after, &format!("@{head}/"))?;
    Ok((scan, pattern.to_string(), false))
}

fn compile_glob(glob: &str) -> Result<Regex, NotesError> {
    let mut out = String::from("^");
    let mut chars = glob.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '*' => {
                let mut stars = 1;
                while chars.peek() == Some(&'*') {
                    chars.next();
                    stars += 1;
                }
                if stars == 1 {
                    out.push_str("[^/]*");
                } else if chars.peek() == Some(&'/') {
                    chars.next();
                    out.push_str("(?:.*/)?");
                } else {
                    out.push_str(".*");
                }
            }
            '?' => out.push_str("[^/]"),
            other => out.push_str(&regex::escape(other.encode_utf8(&mut [0; 4]))),
        }
    }
    out.push('$');
    Regex::new(&format!("(?s){out}"))
        .map_err(|e| NotesError::InvalidPattern(format!("glob pattern cannot be compiled: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn identity() -> Identity {
        Identity {
            home: PathBuf::from("/notes"),
            session_id: Some("s1".into()),
            project_key: "proj-12345678".into(),
            agent: "me".into(),
            model: "gpt".into(),
        }
    }

    fn render(address: &str) -> Result<String, String> {
        Address::parse(address)
            .and_then(|a| a.resolve(&identity()))
            .map(|l| l.address())
            .map_err(|e| e.code().to_string())
    }

    #[test]
    fn renders_canonical_addresses() {
        assert_eq!(render("a/b").unwrap(), "a/b.md");
        assert_eq!(render("a/b.md").unwrap(), "a/b.md");
        assert_eq!(render("a.MD").unwrap(), "a.MD.md");
        assert_eq!(render("@project/x").unwrap(), "@project/x.md");
        assert_eq!(render("@human/x").unwrap(), "@human/x.md");
        assert_eq!(render("@self/x").unwrap(), "@self/x.md");
        assert_eq!(render("@agents/me/x").unwrap(), "@self/x.md");
        assert_eq!(render("@agents/other/x").unwrap(), "@agents/other/x.md");
        assert_eq!(render("@model/x").unwrap(), "@model/x.md");
        assert_eq!(render("@models/gpt/x").unwrap(), "@model/x.md");
        assert_eq!(
            render("@models/claude/x.md").unwrap(),
            "@models/claude/x.md"
        );
        assert_eq!(render("日本/🐑").unwrap(), "日本/🐑.md");
    }

    #[test]
    fn refuses_every_escape_and_unknown_head() {
        for bad in [
            "",
            "../x",
            "a/../x",
            "./x",
            "a//b",
            "a/",
            "/abs",
            "a\\b",
            "a\0b",
            "a\nb",
            "@project/../escape",
            "@project/",
            "@project",
            "@glboal/x",
            "@Project/x",
            "@agents/foo",
            "@agents/Foo/x",
            "@agents/a_b/x",
            "@agents//x",
            "bad@name.md",
            "@project/a@b",
            "@/x",
        ] {
            assert_eq!(render(bad), Err("invalid_address".into()), "{bad:?}");
        }
    }

    /// The refused characters of `docs/notes.md`, one of each kind.
    const DECEPTIVE_SAMPLES: &[char] = &[
        '\u{061C}',
        '\u{200E}',
        '\u{200F}',
        '\u{202A}',
        '\u{202B}',
        '\u{202C}',
        '\u{202D}',
        '\u{202E}',
        '\u{2066}',
        '\u{2067}',
        '\u{2068}',
        '\u{2069}',
        '\u{200B}',
        '\u{200C}',
        '\u{200D}',
        '\u{2060}',
        '\u{2061}',
        '\u{2062}',
        '\u{2063}',
        '\u{2064}',
        '\u{FEFF}',
        '\u{00AD}',
        '\u{180E}',
        '\u{034F}',
        '\u{FE0F}',
        '\u{E0100}',
        '\u{E0041}',
        '\u{115F}',
        '\u{3164}',
        '\u{2028}',
        '\u{2029}',
        '\u{00A0}',
        '\u{3000}',
        '\u{2024}',
        '\u{2025}',
        '\u{2026}',
        '\u{FE52}',
        '\u{FF0E}',
        '\u{3002}',
        '\u{2215}',
        '\u{2044}',
        '\u{FF0F}',
        '\u{29F8}',
        '\u{2216}',
        '\u{FF3C}',
        '\u{29F5}',
        '\u{29F9}',
        '\u{FE68}',
    ];

    #[test]
    fn invisible_and_look_alike_characters_are_refused_in_addresses_and_patterns() {
        assert!(Regex::new(DECEPTIVE).is_ok(), "the class builds");
        for &c in DECEPTIVE_SAMPLES {
            for address in [
                format!("a{c}b"),
                format!("@human/x/{c}"),
                format!("{c}{c}/x"),
            ] {
                let err = render(&address).unwrap_err();
                assert_eq!(
                    err,
                    "invalid_address",
                    "{:04X} in {address:?}",
                    u32::from(c)
                );
            }
            let err = Pattern::parse(Some(&format!("@human/*{c}*")), &identity()).unwrap_err();
            assert_eq!(err.code(), "invalid_address", "{:04X}", u32::from(c));
            assert!(err.to_string().contains(&format!("U+{:04X}", u32::from(c))));
        }
        // Visible non-ASCII text stays legal, and so does the ASCII space.
        for fine in ["日本/🐑", "café notes", "Ωmega·x", "naïve", "👨‍👩‍👧 family"]
        {
            let result = render(fine);
            if fine.contains('\u{200D}') {
                assert_eq!(
                    result,
                    Err("invalid_address".into()),
                    "ZWJ sequences are refused"
                );
            } else {
                assert!(result.is_ok(), "{fine:?}: {result:?}");
            }
        }
    }

    #[test]
    fn bare_addresses_need_a_session() {
        let mut who = identity();
        who.session_id = None;
        let err = Address::parse("x").unwrap().resolve(&who).unwrap_err();
        assert_eq!(err.code(), "invalid_scope");
    }

    #[test]
    fn path_cap_counts_the_written_path() {
        let ok = Address::parse(&"a".repeat(512)).unwrap();
        assert!(ok.check_writable_length().is_ok());
        let long = Address::parse(&"a".repeat(513)).unwrap();
        assert_eq!(
            long.check_writable_length().unwrap_err().code(),
            "too_large"
        );
        let with_md = Address::parse(&format!("{}.md", "a".repeat(510))).unwrap();
        assert_eq!(
            with_md.check_writable_length().unwrap_err().code(),
            "too_large"
        );
    }

    #[test]
    fn foreign_homes_are_not_writable() {
        let loc = Address::parse("@agents/other/x")
            .unwrap()
            .resolve(&identity())
            .unwrap();
        assert_eq!(loc.check_writable().unwrap_err().code(), "invalid_scope");
        let own = Address::parse("@agents/me/x")
            .unwrap()
            .resolve(&identity())
            .unwrap();
        assert!(own.check_writable().is_ok());
    }

    fn loc(address: &str) -> Location {
        Address::parse(address)
            .unwrap()
            .resolve(&identity())
            .unwrap()
    }

    fn matches(pattern: &str, address: &str) -> bool {
        Pattern::parse(Some(pattern), &identity())
            .unwrap()
            .matches(&loc(address))
    }

    #[test]
    fn glob_semantics() {
        assert!(matches("*.md", "top.md"));
        assert!(!matches("*.md", "dir/top.md"));
        assert!(matches("**/shared.md", "shared.md"));
        assert!(matches("**/shared.md", "a/b/shared.md"));
        assert!(matches("**/shared.md", "@human/shared.md"));
        assert!(matches("**/shared.md", "@project/x/shared.md"));
        assert!(matches("@human/**", "@human/a/b.md"));
        assert!(!matches("@human/**", "@project/a.md"));
        assert!(matches("a?.md", "ab.md"));
        assert!(!matches("a?.md", "a/.md"));
        assert!(!matches("a?.md", "abc.md"));
        assert!(matches("a.*", "a.md"));
        assert!(!matches("a.*", "ab.md"), "dots are literal");
        assert!(matches("[x].md", "[x].md"), "brackets are literal");
        assert!(matches("@agents/me/*", "@self/n.md"));
        assert!(matches("@models/gpt/*", "@model/n.md"));
        assert!(matches("@agents/*/n.md", "@self/n.md"));
        assert!(matches("@agents/*/n.md", "@agents/other/n.md"));
        assert!(matches("@agents/o?her/n.md", "@agents/other/n.md"));
    }

    #[test]
    fn patterns_narrow_homes_before_reading() {
        let scan = |p: &str| Pattern::parse(Some(p), &identity()).map(|p| p.scan().clone());
        assert_eq!(scan("**").unwrap(), Scan::Default);
        assert_eq!(scan("@human/**").unwrap(), Scan::One(Home::Human));
        assert_eq!(
            scan("@project/*").unwrap(),
            Scan::One(Home::Project("proj-12345678".into()))
        );
        assert_eq!(
            scan("@agents/me/x").unwrap(),
            Scan::One(Home::Agent {
                name: "me".into(),
                current: true
            })
        );
        assert_eq!(scan("@agents/*/x").unwrap(), Scan::AllAgents);
        assert_eq!(scan("@models/**/x").unwrap(), Scan::AllModels);
    }

    #[test]
    fn bad_patterns_are_refused_not_silently_empty() {
        let code = |p: &str| Pattern::parse(Some(p), &identity()).unwrap_err().code();
        assert_eq!(code("@glboal/**"), "invalid_address");
        assert_eq!(code("@unknown/x"), "invalid_address");
        assert_eq!(code("@project"), "invalid_address");
        assert_eq!(code("@agents/Not A Slug/x"), "invalid_address");
        assert_eq!(code("a\\b"), "invalid_pattern");
        assert_eq!(code("a\0b"), "invalid_pattern");
        assert_eq!(code("@human/"), "invalid_pattern");
        assert_eq!(code("@agents/x"), "invalid_pattern");
        assert!(Pattern::parse(Some(""), &identity()).is_ok());
        assert!(Pattern::parse(None, &identity()).is_ok());
    }
}
