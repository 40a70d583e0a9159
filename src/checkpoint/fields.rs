//! The authored fields of a checkpoint: their names, roles and bounds (written here and nowhere
//! else: the tool's description and schema, its check, the stored entry's check and every
//! rendering read this table), and the check that refuses a field over its bound by its path and
//! measured size.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::text::char_len;

/// `current` and `next_action` hold 1 to this many characters (code points).
pub const TEXT_MAX_CHARS: usize = 2048;
/// Every list item holds 1 to this many characters.
pub const ITEM_MAX_CHARS: usize = 1024;
/// `completed`, `findings`, `decisions` and `verification` hold at most this many items…
pub const LONG_LIST_MAX_ITEMS: usize = 40;
/// …`failed_approaches` and `blockers` at most this many.
pub const SHORT_LIST_MAX_ITEMS: usize = 30;

/// The smaller budget the tool's description recommends (never enforced).
pub const ADVISED_CURRENT_CHARS: usize = 400;
pub const ADVISED_NEXT_ACTION_CHARS: usize = 250;
pub const ADVISED_LIST_ITEMS: usize = 3;
pub const ADVISED_ITEM_CHARS: usize = 180;

/// What a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// One required text of 1..=`max_chars` characters; `advised_chars` is the recommended size.
    Text {
        max_chars: usize,
        advised_chars: usize,
    },
    /// An optional list of at most `max_items` items of 1..=[`ITEM_MAX_CHARS`] characters each.
    List { max_items: usize },
}

/// One authored field.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    /// Its heading where a checkpoint is shown.
    pub label: &'static str,
    /// What belongs in it, and only in it.
    pub role: &'static str,
    pub shape: Shape,
}

const fn text(max_chars: usize, advised_chars: usize) -> Shape {
    Shape::Text {
        max_chars,
        advised_chars,
    }
}

const fn list(max_items: usize) -> Shape {
    Shape::List { max_items }
}

/// Every authored field, in the order a checkpoint is shown.
pub const FIELDS: [Field; 8] = [
    Field {
        name: "current",
        label: "Current",
        role: "the task you are on right now and where it stands: the objective and its status",
        shape: text(TEXT_MAX_CHARS, ADVISED_CURRENT_CHARS),
    },
    Field {
        name: "completed",
        label: "Completed",
        role: "finished pieces of work, one per item (how you checked them goes in verification)",
        shape: list(LONG_LIST_MAX_ITEMS),
    },
    Field {
        name: "findings",
        label: "Findings",
        role:
            "facts you observed and constraints you discovered about the code, data or environment",
        shape: list(LONG_LIST_MAX_ITEMS),
    },
    Field {
        name: "decisions",
        label: "Decisions",
        role: "approaches you chose, each with its reason",
        shape: list(LONG_LIST_MAX_ITEMS),
    },
    Field {
        name: "failed_approaches",
        label: "Failed approaches",
        role: "what you tried that did not work, and why, so it is not tried again",
        shape: list(SHORT_LIST_MAX_ITEMS),
    },
    Field {
        name: "blockers",
        label: "Blockers",
        role: "open problems that stop progress",
        shape: list(SHORT_LIST_MAX_ITEMS),
    },
    Field {
        name: "verification",
        label: "Verification",
        role: "checks you ran and what they showed (commands and outcomes only)",
        shape: list(LONG_LIST_MAX_ITEMS),
    },
    Field {
        name: "next_action",
        label: "Next action",
        role: "the one concrete step to take next (not a restatement of current)",
        shape: text(TEXT_MAX_CHARS, ADVISED_NEXT_ACTION_CHARS),
    },
];

/// The field names, in order (the tool's only parameters).
pub fn names() -> Vec<&'static str> {
    FIELDS.iter().map(|f| f.name).collect()
}

/// The authored fields of a checkpoint, each trimmed of surrounding whitespace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Authored {
    pub current: String,
    pub completed: Vec<String>,
    pub findings: Vec<String>,
    pub decisions: Vec<String>,
    pub failed_approaches: Vec<String>,
    pub blockers: Vec<String>,
    pub verification: Vec<String>,
    pub next_action: String,
}

/// A field's value, borrowed.
#[derive(Debug, Clone, Copy)]
pub enum FieldValue<'a> {
    Text(&'a str),
    List(&'a [String]),
}

impl Authored {
    /// The value of the field named `name` (one of [`FIELDS`]).
    pub fn get(&self, name: &str) -> Option<FieldValue<'_>> {
        Some(match name {
            "current" => FieldValue::Text(&self.current),
            "next_action" => FieldValue::Text(&self.next_action),
            _ => FieldValue::List(self.list(name)?),
        })
    }

    fn list(&self, name: &str) -> Option<&[String]> {
        Some(match name {
            "completed" => &self.completed,
            "findings" => &self.findings,
            "decisions" => &self.decisions,
            "failed_approaches" => &self.failed_approaches,
            "blockers" => &self.blockers,
            "verification" => &self.verification,
            _ => return None,
        })
    }

    fn slot(&mut self, name: &str) -> Option<Slot<'_>> {
        Some(match name {
            "current" => Slot::Text(&mut self.current),
            "next_action" => Slot::Text(&mut self.next_action),
            "completed" => Slot::List(&mut self.completed),
            "findings" => Slot::List(&mut self.findings),
            "decisions" => Slot::List(&mut self.decisions),
            "failed_approaches" => Slot::List(&mut self.failed_approaches),
            "blockers" => Slot::List(&mut self.blockers),
            "verification" => Slot::List(&mut self.verification),
            _ => return None,
        })
    }

    /// The fields as a JSON object, in [`FIELDS`] order (lists always present).
    pub fn to_json(&self) -> Map<String, Value> {
        let mut map = Map::new();
        for field in &FIELDS {
            let value = match self.get(field.name) {
                Some(FieldValue::Text(text)) => Value::from(text),
                Some(FieldValue::List(items)) => Value::from(items.to_vec()),
                None => continue,
            };
            map.insert(field.name.to_string(), value);
        }
        map
    }

    /// Reads the fields from a JSON object (other keys are ignored), trims every text, and
    /// checks every bound. Nothing is ever cut: a text over its bound is refused.
    pub fn from_json(object: &Map<String, Value>) -> Result<Authored, FieldsError> {
        let mut authored = Authored::default();
        for field in &FIELDS {
            let given = object.get(field.name).filter(|v| !v.is_null());
            match authored.slot(field.name) {
                Some(Slot::Text(slot)) => *slot = read_text(field.name, given)?,
                Some(Slot::List(slot)) => *slot = read_list(field.name, given)?,
                None => {}
            }
        }
        let violations = authored.violations();
        if violations.is_empty() {
            Ok(authored)
        } else {
            Err(FieldsError::OutOfBounds(violations))
        }
    }

    /// Every field and item outside its bound, in [`FIELDS`] order.
    pub fn violations(&self) -> Vec<Violation> {
        let mut found = Vec::new();
        for field in &FIELDS {
            match (field.shape, self.get(field.name)) {
                (Shape::Text { max_chars, .. }, Some(FieldValue::Text(text))) => {
                    found.extend(Violation::chars(field.name.to_string(), text, max_chars))
                }
                (Shape::List { max_items }, Some(FieldValue::List(items))) => {
                    if items.len() > max_items {
                        found.push(Violation {
                            field: field.name.to_string(),
                            size: items.len(),
                            unit: Unit::Items,
                            min: 0,
                            max: max_items,
                        });
                    }
                    for (i, item) in items.iter().enumerate() {
                        let path = format!("{}[{i}]", field.name);
                        found.extend(Violation::chars(path, item, ITEM_MAX_CHARS));
                    }
                }
                _ => {}
            }
        }
        found
    }

    /// Fields over the recommended (smaller) budget, as short advice; empty when within it.
    pub fn advice(&self) -> Vec<String> {
        let mut advice = Vec::new();
        for field in &FIELDS {
            match (field.shape, self.get(field.name)) {
                (Shape::Text { advised_chars, .. }, Some(FieldValue::Text(text))) => {
                    let size = char_len(text);
                    if size > advised_chars {
                        advice.push(format!(
                            "{} is {size} characters; aim for at most {advised_chars}",
                            field.name
                        ));
                    }
                }
                (Shape::List { .. }, Some(FieldValue::List(items))) => {
                    if items.len() > ADVISED_LIST_ITEMS {
                        advice.push(format!(
                            "{} has {} items; aim for at most {ADVISED_LIST_ITEMS}",
                            field.name,
                            items.len()
                        ));
                    }
                    let long = items
                        .iter()
                        .filter(|i| char_len(i) > ADVISED_ITEM_CHARS)
                        .count();
                    if long > 0 {
                        advice.push(format!(
                            "{} has {long} item(s) over {ADVISED_ITEM_CHARS} characters",
                            field.name
                        ));
                    }
                }
                _ => {}
            }
        }
        advice
    }
}

enum Slot<'a> {
    Text(&'a mut String),
    List(&'a mut Vec<String>),
}

fn read_text(name: &str, given: Option<&Value>) -> Result<String, FieldsError> {
    match given {
        None => Ok(String::new()),
        Some(Value::String(s)) => Ok(s.trim().to_string()),
        Some(_) => Err(FieldsError::Type(format!("{name} must be a string"))),
    }
}

fn read_list(name: &str, given: Option<&Value>) -> Result<Vec<String>, FieldsError> {
    match given {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.trim().to_string()),
                _ => Err(FieldsError::Type(format!("{name}[{i}] must be a string"))),
            })
            .collect(),
        Some(_) => Err(FieldsError::Type(format!(
            "{name} must be an array of strings"
        ))),
    }
}

/// Why fields cannot be accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldsError {
    /// A value of the wrong JSON type (the message names the field, never the value).
    Type(String),
    OutOfBounds(Vec<Violation>),
}

/// What a size is counted in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    Characters,
    Items,
}

/// One field or item outside its bound: its path (`findings[3]`), its measured size and the
/// bound. It never carries the text itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    pub field: String,
    pub size: usize,
    pub unit: Unit,
    pub min: usize,
    pub max: usize,
}

impl Violation {
    /// A text of 1..=`max` characters, measured after trimming.
    fn chars(field: String, text: &str, max: usize) -> Option<Violation> {
        let size = char_len(text);
        (size == 0 || size > max).then_some(Violation {
            field,
            size,
            unit: Unit::Characters,
            min: 1,
            max,
        })
    }

    /// `findings[3] is 1500 characters (at most 1024)`.
    pub fn describe(&self) -> String {
        match self.unit {
            Unit::Items => format!(
                "{} has {} items (at most {})",
                self.field, self.size, self.max
            ),
            Unit::Characters if self.size == 0 => format!(
                "{} is empty or missing (it takes {} to {} characters)",
                self.field, self.min, self.max
            ),
            Unit::Characters => format!(
                "{} is {} characters (at most {})",
                self.field, self.size, self.max
            ),
        }
    }
}

/// At most this many violations are spelled out in a refusal's message (all are in its details).
const DESCRIBED_VIOLATIONS: usize = 8;

/// The message of a refusal: every violation (up to a few), and what to do.
pub fn refusal_message(violations: &[Violation]) -> String {
    let mut parts: Vec<String> = violations
        .iter()
        .take(DESCRIBED_VIOLATIONS)
        .map(Violation::describe)
        .collect();
    if violations.len() > DESCRIBED_VIOLATIONS {
        parts.push(format!(
            "and {} more (see violations)",
            violations.len() - DESCRIBED_VIOLATIONS
        ));
    }
    format!(
        "checkpoint not saved: {}. Nothing was stored and nothing is ever cut: fill in what is missing, summarize what is too long, and call checkpoint again.",
        parts.join("; ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn every_field_has_a_value_and_the_bounds_of_the_issue() {
        let authored = Authored::default();
        for field in &FIELDS {
            assert!(authored.get(field.name).is_some(), "{}", field.name);
        }
        let bound = |name: &str| FIELDS.iter().find(|f| f.name == name).unwrap().shape;
        assert_eq!(bound("current"), text(2048, 400));
        assert_eq!(bound("next_action"), text(2048, 250));
        for name in ["completed", "findings", "decisions", "verification"] {
            assert_eq!(bound(name), list(40), "{name}");
        }
        for name in ["failed_approaches", "blockers"] {
            assert_eq!(bound(name), list(30), "{name}");
        }
        assert_eq!(ITEM_MAX_CHARS, 1024);
    }

    #[test]
    fn values_are_trimmed_and_measured_in_code_points() {
        let ok = Authored::from_json(&object(json!({
            "current": "  é".to_string() + &"é".repeat(2047) + "\n",
            "next_action": "next",
            "findings": [" one ", "二"],
        })))
        .unwrap();
        assert_eq!(char_len(&ok.current), 2048);
        assert_eq!(ok.findings, ["one", "二"]);
        assert!(ok.completed.is_empty());
    }

    #[test]
    fn every_violation_is_reported_with_its_path_and_size_never_its_text() {
        let long = "x".repeat(1500);
        let err = Authored::from_json(&object(json!({
            "current": "",
            "next_action": "n".repeat(2049),
            "completed": vec!["c"; 41],
            "findings": ["ok", long, "   "],
        })))
        .unwrap_err();
        let FieldsError::OutOfBounds(v) = err else {
            panic!("{err:?}")
        };
        let paths: Vec<(&str, usize)> = v.iter().map(|v| (v.field.as_str(), v.size)).collect();
        assert_eq!(
            paths,
            [
                ("current", 0),
                ("completed", 41),
                ("findings[1]", 1500),
                ("findings[2]", 0),
                ("next_action", 2049)
            ]
        );
        let message = refusal_message(&v);
        assert!(message.contains("findings[1] is 1500 characters (at most 1024)"));
        assert!(message.contains("completed has 41 items (at most 40)"));
        assert!(!message.contains("xxx"));
    }

    #[test]
    fn wrong_types_name_the_field() {
        let err = Authored::from_json(&object(json!({"current": 3}))).unwrap_err();
        assert_eq!(err, FieldsError::Type("current must be a string".into()));
        let err = Authored::from_json(&object(json!({"current": "a", "blockers": ["x", 1]})))
            .unwrap_err();
        assert_eq!(
            err,
            FieldsError::Type("blockers[1] must be a string".into())
        );
    }

    #[test]
    fn advice_names_fields_over_the_recommended_budget() {
        let mut a = Authored {
            current: "c".repeat(401),
            next_action: "n".into(),
            ..Authored::default()
        };
        a.decisions = vec!["d".repeat(181), "e".into(), "f".into(), "g".into()];
        assert_eq!(
            a.advice(),
            [
                "current is 401 characters; aim for at most 400",
                "decisions has 4 items; aim for at most 3",
                "decisions has 1 item(s) over 180 characters"
            ]
        );
    }
}
