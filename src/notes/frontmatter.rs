//! A lossless frontmatter codec.
//!
//! A note is a `---` line, `key: value` lines, a `---` line, one blank line, then the body. Only
//! the known keys are interpreted. Every other line inside the block (unknown keys, comments,
//! lists, indented continuations, duplicates of a known key) is kept byte-for-byte and in place,
//! and a known key's line is rewritten only when its value changes, so
//! `Document::parse(text).render() == text` for every input.

/// The keys this store interprets, in their canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    Origin,
    CreatedAt,
    UpdatedAt,
    LastAccessed,
    AccessCount,
    CrumpledAt,
    Project,
}

impl Key {
    pub const ALL: [Key; 7] = [
        Key::Origin,
        Key::CreatedAt,
        Key::UpdatedAt,
        Key::LastAccessed,
        Key::AccessCount,
        Key::CrumpledAt,
        Key::Project,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Key::Origin => "origin",
            Key::CreatedAt => "createdAt",
            Key::UpdatedAt => "updatedAt",
            Key::LastAccessed => "lastAccessed",
            Key::AccessCount => "accessCount",
            Key::CrumpledAt => "crumpledAt",
            Key::Project => "project",
        }
    }

    fn from_name(name: &str) -> Option<Key> {
        Key::ALL.into_iter().find(|k| k.name() == name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Line {
    /// The line as written, with its terminator.
    raw: String,
    /// Set for the first line of each known key; later duplicates are kept as plain lines.
    key: Option<Key>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Block {
    /// The opening fence as written (a byte order mark included).
    open: String,
    lines: Vec<Line>,
    /// The closing fence as written (without a terminator at the end of the file).
    close: String,
    /// The blank line after the closing fence, if any.
    gap: String,
}

/// A note file split into its frontmatter block (if any) and its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    block: Option<Block>,
    pub body: String,
}

impl Document {
    /// A new note: an empty block and the body.
    pub fn new(body: String) -> Document {
        Document {
            block: Some(Block::empty("\n")),
            body,
        }
    }

    /// Never fails: text without a closed leading `---` block is all body.
    pub fn parse(text: &str) -> Document {
        match parse_block(text) {
            Some((block, body)) => Document {
                block: Some(block),
                body: body.to_string(),
            },
            None => Document {
                block: None,
                body: text.to_string(),
            },
        }
    }

    pub fn has_frontmatter(&self) -> bool {
        self.block.is_some()
    }

    pub fn render(&self) -> String {
        let Some(block) = &self.block else {
            return self.body.clone();
        };
        let mut out = block.fenced();
        let gap = if block.gap.is_empty() && starts_with_blank_line(&self.body) {
            // Without a gap, a body that starts with a blank line would lose it on the next parse.
            block.eol()
        } else {
            &block.gap
        };
        if !out.ends_with('\n') && (!gap.is_empty() || !self.body.is_empty()) {
            out.push_str(block.eol());
        }
        out.push_str(gap);
        out.push_str(&self.body);
        out
    }

    /// Every `key: value` line of the block, in order, duplicates included, values unquoted as
    /// for known keys; `None` without a block. What `dream doctor` checks, parsed exactly as the
    /// store parses it.
    pub fn fields(&self) -> Option<Vec<(String, String)>> {
        let block = self.block.as_ref()?;
        Some(
            block
                .lines
                .iter()
                .filter_map(|line| {
                    let name = key_name(&line.raw)?;
                    Some((name.to_string(), unquote(&line.raw[name.len() + 1..])))
                })
                .collect(),
        )
    }

    /// The block alone, fences included (the before/after of a metadata-only diff).
    pub fn frontmatter_text(&self) -> String {
        let mut text = self.block.as_ref().map(Block::fenced).unwrap_or_default();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }

    /// The value of a known key, unquoted.
    pub fn get(&self, key: Key) -> Option<String> {
        let block = self.block.as_ref()?;
        let line = block.lines.iter().find(|l| l.key == Some(key))?;
        Some(value_of(&line.raw, key))
    }

    /// Sets a known key. An unchanged value keeps its line exactly as written; a new key goes
    /// after the last known key that precedes it in the canonical order (at the top if none).
    pub fn set(&mut self, key: Key, value: &str) {
        if self.get(key).as_deref() == Some(value) {
            return;
        }
        let block = self.block.get_or_insert_with(|| Block::empty("\n"));
        let eol = block.eol().to_string();
        if let Some(line) = block.lines.iter_mut().find(|l| l.key == Some(key)) {
            let terminator = if line.raw.ends_with("\r\n") {
                "\r\n"
            } else {
                "\n"
            };
            line.raw = format!("{}: {}{terminator}", key.name(), scalar(value));
            return;
        }
        let at = block
            .lines
            .iter()
            .rposition(|l| l.key.is_some_and(|k| k < key))
            .map_or(0, |i| i + 1);
        let raw = format!("{}: {}{eol}", key.name(), scalar(value));
        block.lines.insert(
            at,
            Line {
                raw,
                key: Some(key),
            },
        );
    }

    pub fn remove(&mut self, key: Key) {
        if let Some(block) = &mut self.block {
            block.lines.retain(|l| l.key != Some(key));
        }
    }

    /// The lines of the block that are not a known key's (unknown keys, comments, lists,
    /// duplicates), in order, as written: what a sync merges line by line.
    pub fn other_lines(&self) -> String {
        self.block
            .as_ref()
            .map(|block| {
                block
                    .lines
                    .iter()
                    .filter(|l| l.key.is_none())
                    .map(|l| l.raw.as_str())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Replaces the lines [`Document::other_lines`] returns with `text`'s lines, after the known
    /// keys (unchanged when `text` is what is there already). A last line without a terminator
    /// gets one.
    pub fn set_other_lines(&mut self, text: &str) {
        if self.other_lines() == text {
            return;
        }
        let block = self.block.get_or_insert_with(|| Block::empty("\n"));
        let eol = block.eol();
        block.lines.retain(|l| l.key.is_some());
        for raw in text.split_inclusive('\n') {
            let mut raw = raw.to_string();
            if !raw.ends_with('\n') {
                raw.push_str(eol);
            }
            block.lines.push(Line { raw, key: None });
        }
    }

    /// Makes sure a blank line separates the block from the body (the canonical layout).
    pub fn ensure_gap(&mut self) {
        if let Some(block) = &mut self.block {
            if block.gap.is_empty() {
                block.gap = block.eol().to_string();
            }
        }
    }
}

impl Block {
    fn empty(eol: &str) -> Block {
        Block {
            open: format!("---{eol}"),
            lines: Vec::new(),
            close: format!("---{eol}"),
            gap: eol.to_string(),
        }
    }

    fn eol(&self) -> &'static str {
        if self.open.ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        }
    }

    fn fenced(&self) -> String {
        let mut out = self.open.clone();
        for line in &self.lines {
            out.push_str(&line.raw);
        }
        out.push_str(&self.close);
        out
    }
}

/// The values of the known keys in the frontmatter block of `text`, read exactly as
/// [`Document::parse`] then [`Document::get`] read them (the first line of each key, unquoted;
/// nothing without a closed block), without building a document: what a listing needs of each
/// of thousands of notes. Indexed by `Key as usize`.
pub fn known_values(text: &str) -> [Option<String>; Key::ALL.len()] {
    let mut values: [Option<String>; Key::ALL.len()] = Default::default();
    let mut lines = text.split_inclusive('\n');
    let Some(open) = lines.next() else {
        return values;
    };
    if open.trim_start_matches('\u{feff}').trim() != "---" {
        return values;
    }
    for raw in lines {
        if raw.trim() == "---" {
            return values;
        }
        if let Some(key) = key_of(raw) {
            values[key as usize].get_or_insert_with(|| value_of(raw, key));
        }
    }
    // No closing fence: no block, so no values.
    Default::default()
}

/// How many leading bytes of `text` are frontmatter (fences and the blank line after); `Some(0)`
/// when there is none. When `text` is only the start of a file (`complete` false), `None` means
/// that is not decidable yet. Lets a listing parse the metadata without reading whole bodies.
pub fn head_len(text: &str, complete: bool) -> Option<usize> {
    let mut lines = text.split_inclusive('\n');
    let open = lines.next().unwrap_or("");
    if !open.ends_with('\n') && !complete {
        return None;
    }
    if open.trim_start_matches('\u{feff}').trim() != "---" {
        return Some(0);
    }
    let mut consumed = open.len();
    for raw in lines {
        if !raw.ends_with('\n') && !complete {
            return None;
        }
        consumed += raw.len();
        if raw.trim() == "---" {
            let rest = &text[consumed..];
            if rest.len() < 2 && !complete {
                return None;
            }
            return Some(consumed + blank_line_len(rest));
        }
    }
    if complete {
        Some(0)
    } else {
        None
    }
}

fn parse_block(text: &str) -> Option<(Block, &str)> {
    let mut lines = text.split_inclusive('\n');
    let open = lines.next()?;
    if open.trim_start_matches('\u{feff}').trim() != "---" {
        return None;
    }
    let mut consumed = open.len();
    let mut body_lines = Vec::new();
    let mut seen: Vec<Key> = Vec::new();
    for raw in lines.by_ref() {
        consumed += raw.len();
        if raw.trim() == "---" {
            let rest = &text[consumed..];
            let gap_len = blank_line_len(rest);
            let block = Block {
                open: open.to_string(),
                lines: body_lines,
                close: raw.to_string(),
                gap: rest[..gap_len].to_string(),
            };
            return Some((block, &rest[gap_len..]));
        }
        let key = key_of(raw).filter(|k| !seen.contains(k));
        if let Some(k) = key {
            seen.push(k);
        }
        body_lines.push(Line {
            raw: raw.to_string(),
            key,
        });
    }
    None
}

fn blank_line_len(text: &str) -> usize {
    if text.starts_with('\n') {
        1
    } else if text.starts_with("\r\n") {
        2
    } else {
        0
    }
}

fn starts_with_blank_line(text: &str) -> bool {
    blank_line_len(text) > 0
}

/// The key a `key: value` line starts with (at column 0), when it is a well-formed name.
fn key_name(raw: &str) -> Option<&str> {
    let (name, _) = raw.split_once(':')?;
    let mut chars = name.chars();
    let first = chars.next()?;
    let well_formed = (first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    well_formed.then_some(name)
}

/// The known key a `key: value` line starts with (at column 0).
fn key_of(raw: &str) -> Option<Key> {
    key_name(raw).and_then(Key::from_name)
}

/// The value after `key:`, trimmed, with JSON double quotes or single quotes removed.
fn value_of(raw: &str, key: Key) -> String {
    unquote(&raw[key.name().len() + 1..])
}

fn unquote(value: &str) -> String {
    let value = value.trim();
    if value.len() >= 2 && value.starts_with('"') && value.ends_with('"') {
        if let Ok(decoded) = serde_json::from_str::<String>(value) {
            return decoded;
        }
    }
    if value.len() >= 2 && value.starts_with('\'') && value.ends_with('\'') {
        return value[1..value.len() - 1].to_string();
    }
    value.to_string()
}

/// A value written bare when it is plainly a scalar word, else as a JSON string.
fn scalar(value: &str) -> String {
    const RESERVED: [&str; 8] = ["true", "false", "null", "yes", "no", "on", "off", "~"];
    let bare = !value.is_empty()
        && value.bytes().all(|b| {
            b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'+' | b'-' | b':' | b'/')
        })
        && !RESERVED.iter().any(|r| r.eq_ignore_ascii_case(value));
    if bare {
        value.to_string()
    } else {
        serde_json::to_string(value).unwrap_or_else(|_| format!("{value:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "---\norigin: user\ncreatedAt: 2026-01-01T00:00:00.000+02:00\n# a comment\ncustom: {a: 1}\nlist:\n  - one\n  - two\n__proto__: x\norigin: duplicate\nupdatedAt: \"2026-01-02T00:00:00.000+00:00\"\n---\n\nbody line\n";

    #[test]
    fn parse_then_render_is_the_identity() {
        for text in [
            "",
            "plain body\n",
            "---\n",
            "---\nunclosed: yes\nbody",
            "---\n---",
            "---\n---\n",
            "---\n---\nno gap",
            "---\n---\n\n\nextra blank kept",
            "\u{feff}---\r\norigin: self\r\n---\r\n\r\ncrlf body\r\n",
            "  ---  \norigin: self\n ---\nx",
            "---\norigin: self\n---\n\n---\nnot: frontmatter\n---\n",
            SAMPLE,
        ] {
            assert_eq!(Document::parse(text).render(), text, "{text:?}");
        }
    }

    #[test]
    fn head_len_agrees_with_the_parser() {
        for text in [
            "",
            "body",
            "---\n",
            "---\n---",
            "---\n---\nx",
            "---\na: 1\n---\n\nbody",
            "---\r\na: 1\r\n---\r\n\r\nbody",
            "---\nunclosed\n",
            SAMPLE,
        ] {
            let doc = Document::parse(text);
            let len = head_len(text, true).unwrap();
            assert_eq!(&text[len..], doc.body, "{text:?}");
            // Every prefix either is undecided or decides the same way.
            for cut in (0..=text.len()).filter(|&i| text.is_char_boundary(i)) {
                if let Some(n) = head_len(&text[..cut], false) {
                    assert_eq!(n, len, "{text:?} cut at {cut}");
                }
            }
        }
    }

    #[test]
    fn known_values_agree_with_the_parser() {
        for text in [
            "",
            "body",
            "---\norigin: user\n",
            "---\norigin: user\n---\n\nbody",
            "\u{feff}---\r\norigin: 'self'\r\naccessCount: 3\r\n---\r\n",
            "---\norigin: \"us\\u0065r\"\norigin: self\nupdatedAt:x\n ---\n",
            "---\nbad key: 1\ncrumpledAt:  2026-01-01T00:00:00Z  \nproject: p\n---\n",
            SAMPLE,
        ] {
            let doc = Document::parse(text);
            let values = known_values(text);
            for key in Key::ALL {
                assert_eq!(values[key as usize], doc.get(key), "{text:?} {key:?}");
            }
        }
    }

    #[test]
    fn reads_known_keys_only() {
        let doc = Document::parse(SAMPLE);
        assert_eq!(doc.get(Key::Origin).as_deref(), Some("user"));
        assert_eq!(
            doc.get(Key::UpdatedAt).as_deref(),
            Some("2026-01-02T00:00:00.000+00:00")
        );
        assert_eq!(doc.get(Key::AccessCount), None);
        assert_eq!(doc.body, "body line\n");
    }

    #[test]
    fn unchanged_values_keep_their_spelling() {
        let mut doc = Document::parse(SAMPLE);
        doc.set(Key::UpdatedAt, "2026-01-02T00:00:00.000+00:00");
        assert_eq!(doc.render(), SAMPLE);
    }

    #[test]
    fn changes_touch_only_their_line_and_insert_in_canonical_order() {
        let mut doc = Document::parse(SAMPLE);
        doc.set(Key::Origin, "self");
        doc.set(Key::AccessCount, "3");
        doc.set(Key::LastAccessed, "2026-03-01T09:00:00.000+00:00");
        doc.set(Key::CrumpledAt, "2026-03-01T09:00:00.000+00:00");
        let expected = "---\norigin: self\ncreatedAt: 2026-01-01T00:00:00.000+02:00\n# a comment\ncustom: {a: 1}\nlist:\n  - one\n  - two\n__proto__: x\norigin: duplicate\nupdatedAt: \"2026-01-02T00:00:00.000+00:00\"\nlastAccessed: 2026-03-01T09:00:00.000+00:00\naccessCount: 3\ncrumpledAt: 2026-03-01T09:00:00.000+00:00\n---\n\nbody line\n";
        assert_eq!(doc.render(), expected);
        doc.remove(Key::CrumpledAt);
        assert!(!doc.render().contains("crumpledAt"));
    }

    #[test]
    fn a_key_without_an_earlier_known_key_goes_to_the_top() {
        let mut doc = Document::parse("---\ncustom: 1\nupdatedAt: x\n---\n\nb");
        doc.set(Key::Origin, "self");
        assert_eq!(
            doc.render(),
            "---\norigin: self\ncustom: 1\nupdatedAt: x\n---\n\nb"
        );
        doc.set(Key::CreatedAt, "c");
        assert_eq!(
            doc.render(),
            "---\norigin: self\ncreatedAt: c\ncustom: 1\nupdatedAt: x\n---\n\nb"
        );
    }

    #[test]
    fn crlf_blocks_get_crlf_lines() {
        let mut doc = Document::parse("---\r\norigin: self\r\n---\r\n\r\nbody");
        doc.set(Key::Origin, "user");
        doc.set(Key::AccessCount, "1");
        assert_eq!(
            doc.render(),
            "---\r\norigin: user\r\naccessCount: 1\r\n---\r\n\r\nbody"
        );
    }

    #[test]
    fn a_file_without_frontmatter_gains_a_block() {
        let mut doc = Document::parse("just text\n");
        assert!(!doc.has_frontmatter());
        doc.set(Key::AccessCount, "1");
        assert_eq!(doc.render(), "---\naccessCount: 1\n---\n\njust text\n");
    }

    #[test]
    fn bodies_survive_edge_layouts() {
        let mut doc = Document::parse("---\n---");
        doc.body = "new".into();
        assert_eq!(Document::parse(&doc.render()).body, "new");
        let mut doc = Document::parse("---\n---\nx");
        doc.body = "\nstarts blank".into();
        assert_eq!(Document::parse(&doc.render()).body, "\nstarts blank");
    }

    #[test]
    fn values_are_quoted_when_not_plain() {
        let mut doc = Document::new(String::new());
        doc.set(Key::Project, "My Project-12ab34cd");
        doc.set(Key::Origin, "yes");
        let text = doc.render();
        assert!(
            text.contains("project: \"My Project-12ab34cd\"\n"),
            "{text}"
        );
        assert!(text.contains("origin: \"yes\"\n"), "{text}");
        let parsed = Document::parse(&text);
        assert_eq!(
            parsed.get(Key::Project).as_deref(),
            Some("My Project-12ab34cd")
        );
        assert_eq!(parsed.get(Key::Origin).as_deref(), Some("yes"));
    }

    #[test]
    fn single_quotes_and_empty_values() {
        let doc = Document::parse("---\norigin: 'user'\nproject:\n---\n");
        assert_eq!(doc.get(Key::Origin).as_deref(), Some("user"));
        assert_eq!(doc.get(Key::Project).as_deref(), Some(""));
    }
}
