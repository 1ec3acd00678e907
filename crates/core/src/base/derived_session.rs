//! The session a harness derived for a fork (or Forkhost seeded for it) when that fork goes no
//! further: removed, so a fork is whole or leaves nothing. Two ways to get here — a step after
//! the derive failed (the fork's undo), or the process ended between the derive and the
//! commit (the `creating` row, which names the session from the moment the harness returned
//! it, is removed at the next open). Never the source's session, never a file some thread
//! still names, never a pending fork's (its file is its source's until its first prompt).

use std::path::Path;

use forkhost_harness::Forked;
use forkhost_store::ThreadRow;

/// Removes the session `forked` names, unless it is pending or `source` is that same file.
pub(crate) fn remove_derived(forked: &Forked, source: Option<&Path>) {
    if forked.pending.is_some() {
        return;
    }
    let Some(path) = forked.session.path.as_deref() else {
        return;
    };
    if source == Some(path) {
        return;
    }
    remove(path);
}

/// At open: removes the sessions of the interrupted forks the store removed (`removed`), unless
/// a thread it keeps (`threads`) names the same file. How many were removed.
pub(crate) fn remove_interrupted(removed: &[ThreadRow], threads: &[ThreadRow]) -> usize {
    let named = |path: &str| {
        threads
            .iter()
            .any(|t| t.native_path.as_deref() == Some(path))
    };
    removed
        .iter()
        .filter(|row| row.pending_fork.is_none())
        .filter_map(|row| row.native_path.as_deref())
        .filter(|path| !named(path))
        .filter(|path| remove(Path::new(path)))
        .count()
}

fn remove(path: &Path) -> bool {
    if !path.is_file() {
        return false;
    }
    match std::fs::remove_file(path) {
        Ok(()) => {
            tracing::info!(path = %path.display(), "removed the session of a fork that went no further");
            true
        }
        Err(err) => {
            tracing::warn!(path = %path.display(), %err, "could not remove a failed fork's session");
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use forkhost_harness::{HarnessKind, NativeSession, PendingFork};

    fn forked(path: &Path, pending: bool) -> Forked {
        let session = NativeSession {
            kind: HarnessKind::Pi,
            session_id: "s".into(),
            path: Some(path.to_owned()),
            cwd: path.parent().unwrap().to_owned(),
        };
        Forked {
            pending: pending.then(|| PendingFork {
                source: None,
                session: session.clone(),
                resume_at: None,
            }),
            session,
        }
    }

    fn row(id: &str, path: &Path, pending: bool) -> ThreadRow {
        ThreadRow {
            id: id.into(),
            harness: "pi".into(),
            cwd: "/w".into(),
            title: id.into(),
            title_custom: false,
            state: forkhost_store::ThreadState::Creating,
            native_session_id: Some(id.into()),
            native_path: Some(path.display().to_string()),
            fork: None,
            pending_fork: pending.then(|| "{}".to_owned()),
            permission_mode: None,
            permission_sandbox: None,
            revision: 0,
            created_at: 0,
            updated_at: 0,
        }
    }

    /// A session file `name` in `dir`.
    fn written(dir: &Path, name: &str) -> std::path::PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, "x").unwrap();
        p
    }

    #[test]
    fn a_derived_session_goes_but_never_the_source_nor_a_pending_one() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str| written(dir.path(), name);
        let (derived, source, pending) = (file("d.jsonl"), file("s.jsonl"), file("p.jsonl"));
        remove_derived(&forked(&source, false), Some(&source));
        remove_derived(&forked(&pending, true), Some(&source));
        remove_derived(&forked(&derived, false), Some(&source));
        assert!(source.is_file() && pending.is_file());
        assert!(!derived.exists());
    }

    #[test]
    fn an_interrupted_forks_session_goes_unless_a_thread_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str| written(dir.path(), name);
        let (half, shared, pending) = (file("h.jsonl"), file("shared.jsonl"), file("p.jsonl"));
        let removed = [
            row("half", &half, false),
            row("shared", &shared, false),
            row("pending", &pending, true),
            row("gone", &dir.path().join("never-written.jsonl"), false),
        ];
        let kept = [row("source", &shared, false)];
        assert_eq!(remove_interrupted(&removed, &kept), 1);
        assert!(!half.exists());
        assert!(shared.is_file() && pending.is_file());
    }
}
