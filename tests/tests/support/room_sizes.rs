//! No production source file grows past 600 lines: a file that long is doing more than one job
//! and is where the next change goes wrong. Tests, test kits and generated bindings are exempt.

use std::path::{Path, PathBuf};

use forkhost_tests::workspace;

const LIMIT: usize = 600;

/// The production source folders: every workspace crate's `src/` (from `cargo metadata`, so a
/// new crate is measured without anyone listing it) but the test kit's, and the UI's.
fn source_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = workspace::members()
        .into_iter()
        .filter(|m| m.name != "forkhost-tests")
        .map(|m| m.dir.join("src"))
        .collect();
    dirs.push(workspace::root().join("ui/src"));
    dirs
}

/// Test code and generated code: a module's tests in a file of their own (`x_tests.rs` beside
/// `x.rs`, or in the folder `x/`: one name across the crates),
/// `*.test.ts(x)`, the UI's test kit and the ts-rs bindings.
fn exempt(path: &Path) -> bool {
    let name = path.file_name().unwrap().to_string_lossy();
    name.ends_with("_tests.rs")
        || name.contains(".test.")
        || path
            .components()
            .any(|c| matches!(c.as_os_str().to_str(), Some("bindings" | "testing")))
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path
            .extension()
            .is_some_and(|e| matches!(e.to_str(), Some("rs" | "ts" | "tsx" | "css")))
            && !exempt(&path)
        {
            out.push(path);
        }
    }
}

#[test]
fn no_production_file_is_over_the_limit() {
    let root = workspace::root();
    let dirs = source_dirs();
    let worktree = root.join("crates/worktree/src");
    assert!(dirs.contains(&worktree), "{dirs:?}");
    let mut files = Vec::new();
    for dir in &dirs {
        sources(dir, &mut files);
    }
    assert!(files.len() > 100, "read only {} files", files.len());
    let mut sizes: Vec<(usize, String)> = files
        .iter()
        .map(|f| {
            let lines = std::fs::read_to_string(f).unwrap().lines().count();
            (lines, f.strip_prefix(&root).unwrap().display().to_string())
        })
        .collect();
    sizes.sort();
    let (largest, name) = sizes.last().unwrap();
    println!(
        "{} files; the largest: {name} ({largest} lines)",
        sizes.len()
    );
    let over: Vec<String> = sizes
        .iter()
        .filter(|(lines, _)| *lines > LIMIT)
        .map(|(lines, name)| format!("{name}: {lines} lines"))
        .collect();
    assert!(
        over.is_empty(),
        "over {LIMIT} lines (split it by job):\n{}",
        over.join("\n")
    );
}

#[test]
fn test_code_and_bindings_are_exempt() {
    assert!(exempt(Path::new("crates/store/src/open_tests.rs")));
    assert!(exempt(Path::new("crates/harness/src/rpc/rpc_tests.rs")));
    assert!(exempt(Path::new(
        "crates/harness/src/process/windows_tests.rs"
    )));
    assert!(exempt(Path::new("ui/src/threads/cache.test.ts")));
    assert!(exempt(Path::new("ui/src/bindings/commands.ts")));
    assert!(!exempt(Path::new("crates/harness/src/pi/fork/steps.rs")));
    // A kit the tests share is test code too, but it is named like one, not like tests.
    assert!(!exempt(Path::new(
        "crates/harness/src/contract/test_kit.rs"
    )));
    assert!(!exempt(Path::new("ui/src/threads/cache.ts")));
}
