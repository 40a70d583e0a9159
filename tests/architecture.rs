//! The rooms' import rules (docs/architecture.md, "Rules"), read from the code: every
//! `crate::<room>` a file of a room names, in a `use` line or a path, must not be a room that
//! room may never import. Comments are not read.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `(room, rooms it never imports)`. A room is a top-level module of the library.
const NEVER: &[(&str, &[&str])] = &[
    ("beneath", &["*"]),
    ("redact", &["*"]),
    ("cachefile", &["*"]),
    ("sidefile", &["*"]),
    (
        "text",
        &[
            "session",
            "history",
            "notes",
            "home",
            "project",
            "recall",
            "sync",
            "dream",
            "boot",
            "checkpoint",
            "environment",
            "beneath",
        ],
    ),
    (
        "session",
        &[
            "history",
            "notes",
            "home",
            "project",
            "recall",
            "sync",
            "dream",
            "boot",
            "checkpoint",
            "environment",
        ],
    ),
    (
        "history",
        &[
            "notes",
            "home",
            "project",
            "recall",
            "sync",
            "dream",
            "boot",
            "checkpoint",
            "environment",
        ],
    ),
    (
        "project",
        &[
            "notes",
            "home",
            "recall",
            "sync",
            "dream",
            "boot",
            "checkpoint",
            "environment",
            "session",
            "history",
        ],
    ),
    (
        "home",
        &[
            "notes",
            "recall",
            "sync",
            "dream",
            "boot",
            "checkpoint",
            "environment",
            "session",
            "history",
        ],
    ),
    (
        "notes",
        &[
            "recall",
            "sync",
            "dream",
            "boot",
            "checkpoint",
            "environment",
            "session",
        ],
    ),
    (
        "recall",
        &["notes", "home", "sync", "dream", "boot", "checkpoint"],
    ),
    ("sync", &["dream", "recall", "boot", "checkpoint"]),
    ("dream", &["sync", "recall", "boot", "checkpoint"]),
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The room of a file below `src/`: its first path component without `.rs`.
fn room_of(relative: &Path) -> String {
    let first = relative.components().next().unwrap().as_os_str();
    first.to_string_lossy().trim_end_matches(".rs").to_string()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its comments (line comments and doc comments).
fn code(text: &str) -> String {
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) if !line[..at].contains('"') => &line[..at],
            _ => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every room named after `crate::`, including each top-level name of a `crate::{a, b::c}`
/// group.
fn rooms_named(code: &str) -> BTreeSet<String> {
    let mut rooms = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        rest = &rest[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 1;
            let mut name = String::new();
            let mut at_top_start = true;
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    ',' if depth == 1 => at_top_start = true,
                    c if at_top_start && (c.is_alphanumeric() || c == '_') => name.push(c),
                    _ if at_top_start && !name.is_empty() => {
                        rooms.insert(std::mem::take(&mut name));
                        at_top_start = false;
                    }
                    _ => {}
                }
            }
            if !name.is_empty() {
                rooms.insert(name);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            rooms.insert(name);
        }
    }
    rooms
}

#[test]
fn no_room_imports_a_room_it_must_never_import() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut broken = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(src()).unwrap();
        let room = room_of(relative);
        let Some((_, never)) = NEVER.iter().find(|(r, _)| *r == room) else {
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for named in rooms_named(&code(&text)) {
            if named != room && (never.contains(&named.as_str()) || never.contains(&"*")) {
                broken.push(format!("{} imports crate::{named}", relative.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "imports that run the wrong way:\n{}",
        broken.join("\n")
    );
}

#[test]
fn the_library_never_imports_the_command_line() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    for file in files {
        let relative = file.strip_prefix(src()).unwrap();
        if relative.starts_with("cli") || relative == Path::new("main.rs") {
            continue;
        }
        let text = code(&std::fs::read_to_string(&file).unwrap());
        assert!(
            !rooms_named(&text).contains("cli"),
            "{} imports the command line",
            relative.display()
        );
    }
}

#[test]
fn the_reader_of_use_lines_finds_what_it_must() {
    let text =
        "use crate::{notes::{a, b}, home::layout};\nlet x = crate::sync::run();\n// crate::dream\n";
    let found = rooms_named(&code(text));
    assert_eq!(
        found.into_iter().collect::<Vec<_>>(),
        ["home", "notes", "sync"],
        "grouped and inline paths are read, comments are not"
    );
}

/// A file's code before its test module (`#[cfg(test)]` and what follows).
fn production(code: &str) -> &str {
    code.find("#[cfg(test)]").map_or(code, |at| &code[..at])
}

/// The harness contract (docs/architecture.md, "Adding a harness"): outside `session/` (where
/// each harness is one module) and `environment/` (where each has its variable and default
/// roots), no code names a harness variant; everything else asks `Harness`.
#[test]
fn only_session_and_environment_name_a_harness() {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut naming = Vec::new();
    for file in &files {
        let relative = file.strip_prefix(src()).unwrap();
        if relative.starts_with("session") || relative.starts_with("environment") {
            continue;
        }
        let text = std::fs::read_to_string(file).unwrap();
        let code = code(&text);
        for (at, _) in production(&code).match_indices("Harness::") {
            let rest = &production(&code)[at + "Harness::".len()..];
            let name: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
            // A variant is CamelCase (`Claude`); constants (`ALL`, `NAMES`) are not variants.
            let is_variant = name.starts_with(|c: char| c.is_ascii_uppercase())
                && name.chars().any(|c| c.is_ascii_lowercase());
            if is_variant {
                naming.push(format!("{} names Harness::{name}", relative.display()));
            }
        }
    }
    assert!(naming.is_empty(), "{}", naming.join("\n"));
}
