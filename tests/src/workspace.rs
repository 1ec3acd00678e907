//! The workspace's crates as cargo sees them (`cargo metadata`), so the house rules that walk
//! the sources (`support_room_sizes`, `support_no_circles`) follow the workspace instead of a
//! list kept by hand, which missed a crate once.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// One workspace member.
#[derive(Debug, Clone)]
pub struct Member {
    /// The package name (`forkhost-core`).
    pub name: String,
    /// Its folder (where its `Cargo.toml` is).
    pub dir: PathBuf,
    /// The root files of its library and binaries (`src/lib.rs`, `src/main.rs`,
    /// `src/bin/*.rs`); tests, benches, examples and build scripts are left out.
    pub roots: Vec<PathBuf>,
}

/// The repository's root folder.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// Every workspace member, sorted by name.
pub fn members() -> Vec<Member> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = std::process::Command::new(cargo)
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ])
        .current_dir(root())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON");
    let ids = &meta["workspace_members"];
    let mut members: Vec<Member> = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .filter(|p| ids.as_array().is_some_and(|ids| ids.contains(&p["id"])))
        .map(|p| {
            let str_of = |v: &Value| v.as_str().expect("a string").to_owned();
            let manifest = PathBuf::from(str_of(&p["manifest_path"]));
            let roots = p["targets"]
                .as_array()
                .expect("targets")
                .iter()
                .filter(|t| {
                    t["kind"].as_array().is_some_and(|kinds| {
                        kinds.iter().any(|k| {
                            matches!(
                                k.as_str(),
                                Some("lib" | "rlib" | "cdylib" | "staticlib" | "bin")
                            )
                        })
                    })
                })
                .map(|t| PathBuf::from(str_of(&t["src_path"])))
                .collect();
            Member {
                name: str_of(&p["name"]),
                dir: manifest.parent().expect("a folder").to_path_buf(),
                roots,
            }
        })
        .collect();
    members.sort_by(|a, b| a.name.cmp(&b.name));
    members
}
