//! The agents' JSON configuration files, read as their agent reads them ([`Syntax`]: plain JSON,
//! or JSON with comments and, for OpenCode, trailing commas) and changed in place.
//!
//! A setup decides the value a file should hold on `serde_json` values ([`JsonFile::object`] in,
//! the wanted object out); [`JsonFile::render`] carries the difference into the text through
//! `jsonc-parser`'s concrete syntax tree, member by member: a key added is appended to its
//! object, a key gone is taken out with its comma, a changed value is changed where it is (inside
//! an object or a list, only what differs). Every other byte stays: comments (beside, above and
//! inside the members kept), trailing commas, indentation, line endings, key order, a byte-order
//! mark. A file a setup creates is two-space JSON, as the agents write theirs.

use std::path::{Path, PathBuf};

use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstRootNode};
use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};
use serde_json::{Map, Value};

use super::{read_text, SetupError};

/// What an agent accepts in a configuration file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// Plain JSON (Claude Code, Codex, Copilot CLI, Cursor).
    Json,
    /// JSON with `//` and `/* */` comments (Gemini CLI: `strip-json-comments`, then
    /// `JSON.parse`, which refuses a trailing comma).
    Comments,
    /// Comments and trailing commas (OpenCode: `jsonc-parser` with `allowTrailingComma`).
    Jsonc,
}

impl Syntax {
    fn options(self) -> ParseOptions {
        ParseOptions {
            allow_comments: self != Syntax::Json,
            allow_trailing_commas: self == Syntax::Jsonc,
            allow_loose_object_property_names: false,
            allow_missing_commas: false,
            allow_single_quoted_strings: false,
            allow_hexadecimal_numbers: false,
            allow_unary_plus_numbers: false,
            allow_bare_decimal_point_numbers: false,
            allow_non_finite_numbers: false,
            allow_extended_string_escapes: false,
        }
    }
}

const BOM: char = '\u{feff}';

/// A configuration file as read: its text (`None`: it does not exist) and the object it holds.
#[derive(Debug)]
pub struct JsonFile {
    pub path: PathBuf,
    pub text: Option<String>,
    /// `{}` for a missing or blank file.
    pub object: Map<String, Value>,
    syntax: Syntax,
}

impl JsonFile {
    /// Reads `path`; a text that is not `syntax`, or holds something else than an object, is an
    /// error naming the line.
    pub fn read(path: &Path, syntax: Syntax) -> Result<JsonFile, SetupError> {
        let text = read_text(path)?;
        let object = parse_object(path, text.as_deref(), syntax)?;
        Ok(JsonFile {
            path: path.to_path_buf(),
            text,
            object,
            syntax,
        })
    }

    /// The text the file gets for `object`: its own text when the value did not change (an
    /// unchanged file keeps every byte), its text with only the differing members edited, or
    /// two-space JSON for a file that was missing or blank; `None` when it was missing and
    /// stays empty.
    pub fn render(&self, object: Map<String, Value>) -> Result<Option<String>, SetupError> {
        let Some(before) = self.text.as_deref() else {
            return Ok((!object.is_empty()).then(|| pretty(object)));
        };
        if object == self.object {
            return Ok(Some(before.to_string()));
        }
        let body = before.strip_prefix(BOM).unwrap_or(before);
        if body.trim().is_empty() {
            return Ok(Some(pretty(object)));
        }
        let root = parse_tree(&self.path, body, self.syntax)?;
        let tree = root
            .object_value()
            .expect("the text parsed to an object when it was read");
        edit_object(&tree, &self.object, &object).map_err(|what| SetupError::Shape {
            path: self.path.clone(),
            what,
        })?;
        let bom = if body.len() < before.len() {
            "\u{feff}"
        } else {
            ""
        };
        Ok(Some(format!("{bom}{root}")))
    }

    /// The text a removal leaves: as [`JsonFile::render`], but `None` (the file goes) when the
    /// removal changed it and left nothing but `{}` or an empty `hooks` object, and no comment: a
    /// file that held only what a setup adds, so one the setup created (the agents start without
    /// these files).
    pub fn render_removal(&self, object: Map<String, Value>) -> Result<Option<String>, SetupError> {
        let changed = self.text.is_some() && object != self.object;
        let shell = is_empty_shell(&object);
        let after = self.render(object)?;
        if changed && shell && !after.as_deref().is_some_and(has_comments) {
            return Ok(None);
        }
        Ok(after)
    }
}

/// The object a file holds: `{}` for a missing or blank file; a parse error names the line.
pub fn parse_object(
    path: &Path,
    text: Option<&str>,
    syntax: Syntax,
) -> Result<Map<String, Value>, SetupError> {
    let Some(text) = text.map(|t| t.strip_prefix(BOM).unwrap_or(t)) else {
        return Ok(Map::new());
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    let root = parse_tree(path, text, syntax)?;
    match root.value().and_then(|v| v.to_serde_value()) {
        Some(Value::Object(map)) => Ok(map),
        Some(other) => Err(SetupError::Shape {
            path: path.to_path_buf(),
            what: format!("a JSON {}", kind(&other)),
        }),
        None => Ok(Map::new()),
    }
}

/// The syntax tree of `text`, which must be `syntax`. The text is checked first without the
/// tree: `jsonc-parser` 0.34 lets comments through when it keeps them as tokens, as the tree does,
/// even where the options refuse them.
fn parse_tree(path: &Path, text: &str, syntax: Syntax) -> Result<CstRootNode, SetupError> {
    let options = syntax.options();
    jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &options)
        .map_err(|e| parse_error(path, &e))?;
    CstRootNode::parse(text, &options).map_err(|e| parse_error(path, &e))
}

fn parse_error(path: &Path, error: &jsonc_parser::errors::ParseError) -> SetupError {
    SetupError::Parse {
        path: path.to_path_buf(),
        line: error.line_display(),
        column: error.column_display(),
        message: error.kind().to_string(),
    }
}

fn pretty(object: Map<String, Value>) -> String {
    let mut text = serde_json::to_string_pretty(&Value::Object(object)).expect("JSON renders");
    text.push('\n');
    text
}

/// Whether a JSON text holds a comment.
fn has_comments(text: &str) -> bool {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let collect = CollectOptions {
        comments: CommentCollectionStrategy::Separate,
        tokens: false,
    };
    jsonc_parser::parse_to_ast(text, &collect, &ParseOptions::default())
        .ok()
        .and_then(|parsed| parsed.comments)
        .is_some_and(|comments| comments.values().any(|c| !c.is_empty()))
}

fn is_empty_shell(object: &Map<String, Value>) -> bool {
    object
        .iter()
        .all(|(key, value)| key == "hooks" && value.as_object().is_some_and(Map::is_empty))
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Edits `tree` (which holds `old`) to hold `new`: keys gone taken out, keys changed edited in
/// place, keys new appended. `Err`: a key the edit must touch is written twice in the object
/// (which one the agent reads is its parser's choice, so neither is edited).
fn edit_object(
    tree: &CstObject,
    old: &Map<String, Value>,
    new: &Map<String, Value>,
) -> Result<(), String> {
    for (key, value) in old {
        if new.get(key) == Some(value) {
            continue;
        }
        let prop = the_member(tree, key)?;
        match (value, new.get(key)) {
            (_, None) => prop.remove(),
            (Value::Object(old), Some(Value::Object(new))) => {
                let object = prop.object_value().expect("an object as read");
                edit_object(&object, old, new)?;
            }
            (Value::Array(old), Some(Value::Array(new))) => {
                let array = prop.array_value().expect("a list as read");
                edit_array(&array, old, new)?;
            }
            (_, Some(value)) => prop.set_value(input(value)),
        }
    }
    for (key, value) in new {
        if !old.contains_key(key) {
            tree.append(key, input(value));
        }
    }
    Ok(())
}

/// The one member of `tree` named `key`.
fn the_member(tree: &CstObject, key: &str) -> Result<jsonc_parser::cst::CstObjectProp, String> {
    let mut found = tree
        .properties()
        .into_iter()
        .filter(|p| p.decoded_name().as_deref() == Some(key));
    let first = found.next().expect("a key as read");
    if found.next().is_some() {
        return Err(format!("the key `{key}` twice in one object"));
    }
    Ok(first)
}

/// One step of turning a list into another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Keep,
    /// The old element becomes the new one (both objects, or both lists: edited inside).
    Change(usize, usize),
    Remove(usize),
    Insert(usize),
}

/// Edits `tree` (which holds `old`) to hold `new`, keeping the longest run of equal elements in
/// place ([`steps`]).
fn edit_array(tree: &CstArray, old: &[Value], new: &[Value]) -> Result<(), String> {
    let elements = tree.elements();
    let mut at = 0;
    for step in steps(old, new) {
        match step {
            Step::Keep => at += 1,
            Step::Remove(i) => elements[i].clone().remove(),
            Step::Insert(j) => {
                tree.insert(at, input(&new[j]));
                at += 1;
            }
            Step::Change(i, j) => {
                edit_value(&elements[i], &old[i], &new[j])?;
                at += 1;
            }
        }
    }
    Ok(())
}

fn edit_value(node: &CstNode, old: &Value, new: &Value) -> Result<(), String> {
    match (old, new, node) {
        (Value::Object(old), Value::Object(new), _) => {
            edit_object(&node.as_object().expect("an object as read"), old, new)
        }
        (Value::Array(old), Value::Array(new), _) => {
            edit_array(&node.as_array().expect("a list as read"), old, new)
        }
        _ => unreachable!("only objects and lists are changed in place"),
    }
}

/// The steps from `old` to `new`: the elements of a longest common subsequence kept; between two
/// kept ones, the old elements removed and the new inserted, except that an old and a new of the
/// same kind (object, list) in the same gap are paired and edited inside, so a user's group that
/// lost or gained a handler keeps its comments.
fn steps(old: &[Value], new: &[Value]) -> Vec<Step> {
    let (n, m) = (old.len(), new.len());
    // lcs[i][j]: the longest common subsequence of old[i..] and new[j..].
    let mut lcs = vec![vec![0usize; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if old[i] == new[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    let (mut gone, mut came) = (Vec::new(), Vec::new());
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            flush_gap(&mut out, old, new, &mut gone, &mut came);
            out.push(Step::Keep);
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            came.push(j);
            j += 1;
        } else {
            gone.push(i);
            i += 1;
        }
    }
    flush_gap(&mut out, old, new, &mut gone, &mut came);
    out
}

/// The steps of one gap between kept elements: pairs of the same kind changed in place, in
/// order; the rest removed, then inserted.
fn flush_gap(
    out: &mut Vec<Step>,
    old: &[Value],
    new: &[Value],
    gone: &mut Vec<usize>,
    came: &mut Vec<usize>,
) {
    let same_kind =
        |a: &Value, b: &Value| (a.is_object() && b.is_object()) || (a.is_array() && b.is_array());
    let mut came_left: std::collections::VecDeque<usize> = came.drain(..).collect();
    for i in gone.drain(..) {
        match came_left.front() {
            Some(&j) if same_kind(&old[i], &new[j]) => {
                came_left.pop_front();
                out.push(Step::Change(i, j));
            }
            _ => out.push(Step::Remove(i)),
        }
    }
    out.extend(came_left.into_iter().map(Step::Insert));
}

/// A value as `jsonc-parser` inserts it.
fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(map) => CstInputValue::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), input(value)))
                .collect(),
        ),
    }
}

/// The array at `key` of `object`, created when missing; `None` when the key holds something
/// else (a file the user shaped differently: left alone).
pub fn array_at<'a>(object: &'a mut Map<String, Value>, key: &str) -> Option<&'a mut Vec<Value>> {
    object
        .entry(key.to_string())
        .or_insert_with(|| Value::Array(Vec::new()))
        .as_array_mut()
}

/// The object at `key` of `object`, created when missing; `None` when the key holds something
/// else.
pub fn object_at<'a>(
    object: &'a mut Map<String, Value>,
    key: &str,
) -> Option<&'a mut Map<String, Value>> {
    object
        .entry(key.to_string())
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn file(text: &str, syntax: Syntax) -> JsonFile {
        let path = PathBuf::from("/x/settings.json");
        JsonFile {
            object: parse_object(&path, Some(text), syntax).unwrap(),
            text: Some(text.to_string()),
            path,
            syntax,
        }
    }

    fn with(object: &Map<String, Value>, key: &str, value: Value) -> Map<String, Value> {
        let mut object = object.clone();
        object.insert(key.to_string(), value);
        object
    }

    /// Renders `object` for `text`, then reads the result back and renders `text`'s own object
    /// for it: the text it started from, byte for byte.
    fn there_and_back(text: &str, syntax: Syntax, object: Map<String, Value>) -> String {
        let original = file(text, syntax);
        let after = original.render(object.clone()).unwrap().unwrap();
        let changed = file(&after, syntax);
        assert_eq!(changed.object, object, "{after}");
        let back = changed.render(original.object.clone()).unwrap().unwrap();
        assert_eq!(back, text, "after:\n{after}");
        after
    }

    const COMMENTED: &str = "// my settings\n{\n  /* the theme */\n  \"theme\": \"dark\", // mine\n  \"mcpServers\": {\n    // a server of mine\n    \"other\": {\"command\": \"x\"}\n  }\n  // the end\n}\n";

    #[test]
    fn a_member_added_and_taken_out_leaves_every_comment_and_byte() {
        let original = file(COMMENTED, Syntax::Comments);
        let mut servers = original.object["mcpServers"].as_object().unwrap().clone();
        servers.insert(
            "pi-context".into(),
            json!({"command": "/b/pi-context", "args": ["mcp"]}),
        );
        let object = with(&original.object, "mcpServers", Value::Object(servers));
        let after = there_and_back(COMMENTED, Syntax::Comments, object.clone());
        for kept in [
            "// my settings",
            "/* the theme */",
            "// mine",
            "// a server of mine",
            "// the end",
        ] {
            assert!(after.contains(kept), "{kept}: {after}");
        }
        let object = with(
            &original.object,
            "hooks",
            json!({"SessionStart": [{"hooks": []}]}),
        );
        there_and_back(COMMENTED, Syntax::Comments, object);
    }

    #[test]
    fn trailing_commas_crlf_and_a_byte_order_mark_stay() {
        let text = "\u{feff}{\r\n    \"a\": [1, 2,],\r\n    \"b\": {\"c\": true,},\r\n}\r\n";
        let original = file(text, Syntax::Jsonc);
        let object = with(
            &original.object,
            "mcp",
            json!({"pi-context": {"type": "local"}}),
        );
        let after = there_and_back(text, Syntax::Jsonc, object);
        assert!(after.starts_with('\u{feff}'), "{after:?}");
        assert!(!after.replace("\r\n", "").contains('\n'), "{after:?}");
        assert!(
            after.contains("[1, 2,]") && after.contains("\r\n        \"pi-context\""),
            "{after:?}"
        );
    }

    #[test]
    fn a_handler_taken_out_of_a_users_group_keeps_the_group_and_its_comments() {
        let text = "{\n  \"hooks\": {\n    \"BeforeAgent\": [\n      {\n        \"matcher\": \"\", // every prompt\n        \"hooks\": [\n          {\"type\": \"command\", \"command\": \"echo mine\"}, // mine\n          {\"type\": \"command\", \"command\": \"/b/pi-context hook gemini prompt\"}\n        ]\n      }\n    ]\n  }\n}\n";
        let original = file(text, Syntax::Comments);
        let mut object = original.object.clone();
        object["hooks"]["BeforeAgent"][0]["hooks"]
            .as_array_mut()
            .unwrap()
            .pop();
        let after = original.render(object).unwrap().unwrap();
        assert_eq!(
            after,
            text.replace(
                ", // mine\n          {\"type\": \"command\", \"command\": \"/b/pi-context hook gemini prompt\"}\n",
                " // mine\n"
            )
        );
    }

    #[test]
    fn a_key_the_edit_must_touch_written_twice_is_refused_one_it_need_not_is_kept() {
        let text = "{\"mcp\": {}, \"theme\": \"a\", \"mcp\": {\"x\": {}}}";
        let original = file(text, Syntax::Jsonc);
        assert_eq!(
            original.object["mcp"],
            json!({"x": {}}),
            "the last one, as JSON.parse"
        );
        let object = with(&original.object, "mcp", json!({"x": {}, "pi-context": {}}));
        let error = original.render(object).unwrap_err().to_string();
        assert!(error.contains("the key `mcp` twice"), "{error}");
        let object = with(&original.object, "theme", json!("b"));
        assert_eq!(
            original.render(object).unwrap().unwrap(),
            text.replace("\"a\"", "\"b\"")
        );
    }

    #[test]
    fn each_syntax_refuses_what_its_agent_refuses() {
        let path = Path::new("/x/a.json");
        let comment = "{\n  // c\n  \"a\": 1\n}\n";
        let comma = "{\n  \"a\": 1,\n}\n";
        assert!(parse_object(path, Some(comment), Syntax::Json).is_err());
        assert!(parse_object(path, Some(comment), Syntax::Comments).is_ok());
        assert!(parse_object(path, Some(comma), Syntax::Comments).is_err());
        assert!(parse_object(path, Some(comma), Syntax::Jsonc).is_ok());
        for loose in [
            "{a: 1}",
            "{\"a\": 'b'}",
            "{\"a\": 0x1}",
            "{\"a\": 1 \"b\": 2}",
        ] {
            let error = parse_object(path, Some(loose), Syntax::Jsonc).unwrap_err();
            assert!(
                matches!(error, SetupError::Parse { line: 1, .. }),
                "{loose}: {error}"
            );
        }
        assert!(matches!(
            parse_object(path, Some("[1]"), Syntax::Jsonc),
            Err(SetupError::Shape { .. })
        ));
    }

    #[test]
    fn a_removal_that_leaves_only_a_comment_keeps_the_file() {
        let ours = "{\n  \"hooks\": {\n    \"X\": []\n  }\n}\n";
        let original = file(ours, Syntax::Comments);
        let empty = with(&Map::new(), "hooks", json!({}));
        assert_eq!(original.render_removal(empty.clone()).unwrap(), None);
        let commented = format!("// mine\n{ours}");
        let original = file(&commented, Syntax::Comments);
        let after = original.render_removal(empty).unwrap().unwrap();
        assert!(after.starts_with("// mine\n{"), "{after}");
    }

    #[test]
    fn list_steps_keep_the_common_elements_and_pair_objects_in_a_gap() {
        let (a, b, c) = (json!(1), json!({"k": 1}), json!({"k": 2}));
        let steps_of = |old: Vec<&Value>, new: Vec<&Value>| {
            let own = |v: Vec<&Value>| v.into_iter().cloned().collect::<Vec<_>>();
            steps(&own(old), &own(new))
        };
        assert_eq!(
            steps_of(vec![&a, &b], vec![&a, &c]),
            [Step::Keep, Step::Change(1, 1)]
        );
        assert_eq!(
            steps_of(vec![&a, &b], vec![&b]),
            [Step::Remove(0), Step::Keep]
        );
        assert_eq!(
            steps_of(vec![&b], vec![&b, &a, &c]),
            [Step::Keep, Step::Insert(1), Step::Insert(2)]
        );
        assert_eq!(
            steps_of(vec![&a], vec![&b]),
            [Step::Remove(0), Step::Insert(0)]
        );
    }
}
