//! Worktrees added, filled and removed from several threads of one process at once, as a
//! race's lanes and the spare worktree do: git writes a new worktree's record without a lock,
//! and a git walking the list meanwhile dies on it ("failed to read
//! .git/worktrees/<name>/commondir"). Every call must succeed.

mod common;

use std::sync::{Arc, Barrier};

use common::{outside_folder, Sandbox};
use forkhost_worktree::{CheckpointSpec, WorktreeSpec};

const THREADS: usize = 6;
const ROUNDS: usize = 6;

#[test]
fn six_threads_add_fill_and_discard_worktrees_and_spares_side_by_side() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let r = repo.open();
    let at = r
        .checkpoint(&CheckpointSpec::new("t", "t1-end"))
        .expect("checkpoint")
        .commit;
    let start = Arc::new(Barrier::new(THREADS + 1));
    let mut handles = Vec::new();
    for t in 0..THREADS {
        let (r, at, start) = (r.clone(), at.clone(), start.clone());
        handles.push(std::thread::spawn(move || {
            start.wait();
            let mut kept = Vec::new();
            for n in 0..ROUNDS {
                let (keep, path) = outside_folder(&format!("lane {t} {n}"));
                if t == 0 {
                    // The spare worktree's life beside the lanes: made, then thrown away.
                    r.add_spare(&path, &at)
                        .unwrap_or_else(|e| panic!("spare {n}: {e}"));
                    r.discard_spare(&path)
                        .unwrap_or_else(|e| panic!("discard spare {n}: {e}"));
                    continue;
                }
                let made = r
                    .create_worktree(&WorktreeSpec {
                        at: at.clone(),
                        path,
                        branch: format!("forkhost/lane-{t}-{n}"),
                    })
                    .unwrap_or_else(|e| panic!("lane {t} round {n}: {e}"));
                if n % 2 == 0 {
                    kept.push((keep, made));
                } else {
                    r.remove_worktree(&made.path, forkhost_worktree::Confirm::NothingToLose)
                        .unwrap_or_else(|e| panic!("remove {t} {n}: {e}"));
                }
            }
            kept
        }));
    }
    start.wait();
    let kept: Vec<_> = handles
        .into_iter()
        .flat_map(|h| h.join().expect("a thread panicked"))
        .collect();
    let listed = repo.git(&["worktree", "list", "--porcelain"]);
    for (_, made) in &kept {
        assert!(made.path.join("a.txt").exists(), "{}", made.path.display());
        assert!(
            listed.contains(&format!("branch refs/heads/{}", made.branch)),
            "{listed}"
        );
    }
    assert_eq!(kept.len(), (THREADS - 1) * ROUNDS.div_ceil(2));
}

/// A git that fails its first `rev-list` with `message` (counting its `rev-list` calls in a
/// file), as git does when a branch it listed is deleted before it reads it.
#[cfg(unix)]
fn git_failing_first_rev_list(
    sb: &Sandbox,
    message: &str,
) -> (
    tempfile::TempDir,
    tempfile::TempDir,
    forkhost_worktree::Git,
    std::path::PathBuf,
) {
    let marks = tempfile::tempdir().unwrap();
    let calls = marks.path().join("rev-list-calls");
    let (bin, git) = common::wrapped_git(
        sb,
        &format!(
            "for a in \"$@\"; do if [ \"$a\" = rev-list ]; then echo x >> '{calls}'; if [ \"$(wc -l < '{calls}')\" -eq 1 ]; then echo '{message}' >&2; exit 128; fi; fi; done",
            calls = calls.display()
        ),
    );
    (bin, marks, git, calls)
}

#[cfg(unix)]
#[test]
fn the_unpushed_count_is_asked_again_when_a_branch_went_meanwhile_and_only_then() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let at = repo
        .open()
        .checkpoint(&CheckpointSpec::new("t", "t1-end"))
        .expect("checkpoint")
        .commit;
    let (_keep, path) = outside_folder("fork");
    let made = repo
        .open()
        .create_worktree(&WorktreeSpec {
            at,
            path: path.clone(),
            branch: "forkhost/fork".into(),
        })
        .expect("worktree");
    repo.git_in(
        &made.path,
        &["commit", "-q", "--allow-empty", "-m", "the fork's own"],
    );

    let (_bin, _marks, git, calls) =
        git_failing_first_rev_list(&sb, "fatal: bad object refs/heads/forkhost/gone");
    let r = forkhost_worktree::Repo::discover(&git, &repo.path)
        .unwrap()
        .unwrap();
    let state = r.worktree_state(&path).expect("asked again, not failed");
    assert_eq!(state.unpushed_commits, 1);
    assert_eq!(std::fs::read_to_string(&calls).unwrap().lines().count(), 2);

    // Any other failure is the answer at once.
    let (_bin, _marks, git, calls) = git_failing_first_rev_list(&sb, "fatal: out of memory");
    let r = forkhost_worktree::Repo::discover(&git, &repo.path)
        .unwrap()
        .unwrap();
    let err = r.worktree_state(&path).unwrap_err();
    assert!(err.to_string().contains("out of memory"), "{err}");
    assert_eq!(std::fs::read_to_string(&calls).unwrap().lines().count(), 1);
}
