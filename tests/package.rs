//! The crate as `cargo install pi-context` gets it: `cargo package --list` holds what the build
//! and the user need (sources, every file they `include_str!`, the playbook, completions, README,
//! LICENSE) and none of the repository's large or development-only trees. The verifying build
//! (`cargo package` without `--no-verify`) is run by hand at release time (docs/install.md).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// `cargo package --list`: `--allow-dirty` because tests run on a working tree with uncommitted
/// changes (a release packs a clean one); `--locked` because Cargo.lock must be current.
fn packaged_files() -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .args(["package", "--list", "--locked", "--allow-dirty"])
        .current_dir(ROOT)
        .output()
        .expect("run cargo package --list");
    assert!(
        output.status.success(),
        "cargo package --list failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("utf-8")
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Every `include_str!("…")`/`include_bytes!("…")` under `src/`, as a path from the crate root.
fn included_by_sources(dir: &Path, found: &mut BTreeSet<String>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            included_by_sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("read source");
            for macro_name in ["include_str!(\"", "include_bytes!(\""] {
                for (at, _) in text.match_indices(macro_name) {
                    let rest = &text[at + macro_name.len()..];
                    let relative = &rest[..rest.find('"').expect("closing quote")];
                    let target = path.parent().unwrap().join(relative);
                    let target = target.canonicalize().expect("included file exists");
                    let from_root = target.strip_prefix(ROOT).expect("inside the crate");
                    found.insert(from_root.to_string_lossy().replace('\\', "/"));
                }
            }
        }
    }
}

#[test]
fn the_crate_holds_what_the_build_and_the_user_need() {
    let files = packaged_files();
    for needed in [
        "Cargo.toml",
        "Cargo.lock",
        "LICENSE",
        "README.md",
        "src/main.rs",
        "src/lib.rs",
        "playbook/playbook.md",
        "completions/pi-context.bash",
        "completions/_pi-context",
        "completions/pi-context.fish",
    ] {
        assert!(
            files.contains(needed),
            "{needed} is not packaged: {files:?}"
        );
    }
    let mut included = BTreeSet::new();
    included_by_sources(&Path::new(ROOT).join("src"), &mut included);
    assert!(
        included.contains("playbook/playbook.md"),
        "the scan finds includes"
    );
    for file in included {
        assert!(
            files.contains(&file),
            "{file} is included by a source but not packaged"
        );
    }
}

#[test]
fn the_crate_holds_no_tests_fixtures_fuzz_scripts_or_npm_packages() {
    let files = packaged_files();
    let unwanted: Vec<&String> = files
        .iter()
        .filter(|f| {
            [
                "tests/",
                "fuzz/",
                "benches/",
                "scripts/",
                "extension/",
                "docs/",
                "target/",
            ]
            .iter()
            .any(|dir| f.starts_with(dir))
        })
        .collect();
    assert!(unwanted.is_empty(), "packaged but not needed: {unwanted:?}");
    let bytes: u64 = files
        .iter()
        .filter_map(|f| std::fs::metadata(Path::new(ROOT).join(f)).ok())
        .map(|m| m.len())
        .sum();
    assert!(
        bytes < 4 << 20,
        "the packaged files weigh {bytes} bytes: something large slipped in"
    );
}
