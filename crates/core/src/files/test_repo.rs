//! For the files tests: a Claude thread (`test_host.rs`) whose folder `w` is a subfolder of a
//! git repository, with a checkpoint at each of its turns' edges, as turns would have left.

use std::path::{Path, PathBuf};

use super::{ForkFiles, TurnEdge};
use crate::base::fork_point::{ForkAt, TurnRef};
use crate::base::view::ForkResult;
use crate::test_host::{claude_thread_in, committed_repo, ClaudeProgram, TestHost};

/// The thread's folder holds `notes.txt`: "sN" at turn N's start, "eN" at its end, when `tN.txt`
/// appears too. The repository (the folder's parent) has `a.txt` committed. A spare worktree is
/// left to the caller (`spare_jobs`), not filled in the background.
pub(super) async fn checkpointed(turns: i64) -> TestHost {
    checkpointed_with(turns, |o| o.hand_off_spares = true).await
}

/// [`checkpointed`] in a Host whose options `options` set (a long-lived one, the app's, fills
/// its spares itself: `hand_off_spares` false).
pub(super) async fn checkpointed_with(
    turns: i64,
    options: impl FnOnce(&mut crate::host::HostOptions),
) -> TestHost {
    let t = claude_thread_in(turns as usize, ClaudeProgram::VersionOnly, "w", options).await;
    committed_repo(&t.work());
    let folder = t.folder().to_path_buf();
    for n in 1..=turns {
        std::fs::write(folder.join("notes.txt"), format!("s{n}")).unwrap();
        let start = t
            .host
            .checkpoint_turn(&t.thread, &folder, n, TurnEdge::Start)
            .await;
        assert!(start.is_some(), "turn {n}'s start");
        std::fs::write(folder.join("notes.txt"), format!("e{n}")).unwrap();
        std::fs::write(folder.join(format!("t{n}.txt")), "").unwrap();
        let end = t
            .host
            .checkpoint_turn(&t.thread, &folder, n, TurnEdge::End)
            .await;
        assert!(end.is_some(), "turn {n}'s end");
    }
    t
}

pub(super) fn after(n: i64) -> ForkAt {
    ForkAt::After(TurnRef::Number(n))
}

pub(super) fn before(n: i64) -> ForkAt {
    ForkAt::Before(TurnRef::Number(n))
}

/// Forks `source` with its files as `files` says and waits until they are written.
pub(super) async fn fork_ready(
    t: &TestHost,
    source: &str,
    at: ForkAt,
    files: ForkFiles,
) -> ForkResult {
    let made = t.host.fork_with(source, at, files).await.unwrap();
    t.host.files_ready(&made.thread.thread.id).await.unwrap();
    made
}

/// The fork's id and folder.
pub(super) fn fork_of(made: &ForkResult) -> (String, PathBuf) {
    (
        made.thread.thread.id.clone(),
        PathBuf::from(&made.thread.thread.cwd),
    )
}

pub(super) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
