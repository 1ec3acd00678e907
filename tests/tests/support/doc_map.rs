//! The module map in `docs/architecture.md` ("Module map") names every room a newcomer may
//! open: each source file of `src-tauri/src` and `crates/cli/src`, each folder of `ui/src`, and
//! each place of core (its root files, its wings, every file of its base). A room added without
//! a line there fails here, so the map cannot drift from the tree again.

use std::collections::BTreeSet;
use std::path::Path;

fn root() -> std::path::PathBuf {
    forkhost_tests::workspace::root()
}

/// The module map's paragraph that opens with `**`header`**`, up to the next one.
fn block<'a>(map: &'a str, header: &str) -> &'a str {
    let open = format!("**`{header}`**");
    let start = map
        .find(&open)
        .unwrap_or_else(|| panic!("the module map has no {open} paragraph"));
    let rest = &map[start + open.len()..];
    let end = rest.find("\n**`").unwrap_or(rest.len());
    &rest[..end]
}

/// The backticked words of `text`.
fn named(text: &str) -> BTreeSet<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// `name` is named: as itself, or as the last part of a path (`base/thread.rs`).
fn mentions(names: &BTreeSet<String>, name: &str) -> bool {
    names
        .iter()
        .any(|n| n == name || n.ends_with(&format!("/{name}")))
}

fn is_test(name: &str) -> bool {
    name.ends_with("_tests.rs") || name == "tests.rs" || name == "test_host.rs"
}

/// The entries of `dir`: `x.rs` files (tests aside) and, when `folders`, `x/` folders.
fn entries(dir: &Path, files: bool, folders: bool) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.path().is_dir() {
            if folders {
                out.push(format!("{name}/"));
            }
        } else if files && name.ends_with(".rs") && !is_test(&name) {
            out.push(name);
        }
    }
    out.sort();
    out
}

#[test]
fn the_module_map_names_every_room() {
    let doc = std::fs::read_to_string(root().join("docs/architecture.md")).unwrap();
    let start = doc.find("## Module map").expect("a Module map heading");
    let end = doc[start + 3..]
        .find("\n## ")
        .map_or(doc.len(), |i| start + 3 + i);
    let map = &doc[start..end];

    let checks: [(&str, &str, bool, bool); 5] = [
        ("src-tauri", "src-tauri/src", true, true),
        ("crates/cli", "crates/cli/src", true, true),
        ("ui/src", "ui/src", false, true),
        ("crates/core", "crates/core/src", true, true),
        ("crates/core", "crates/core/src/base", true, true),
    ];
    let mut missing = Vec::new();
    for (header, dir, files, folders) in checks {
        let names = named(block(map, header));
        for entry in entries(&root().join(dir), files, folders) {
            if !mentions(&names, &entry) {
                missing.push(format!("{dir}/{entry} (under **`{header}`**)"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "docs/architecture.md's module map does not name:\n  {}",
        missing.join("\n  ")
    );
}

#[test]
fn a_room_is_found_only_where_it_is_named() {
    let names = named("`a.rs`, `base/b.rs` and `c/`");
    assert!(mentions(&names, "a.rs"));
    assert!(mentions(&names, "b.rs"));
    assert!(mentions(&names, "c/"));
    assert!(!mentions(&names, "d.rs"));
    assert!(!mentions(&names, "ba.rs"));
}
