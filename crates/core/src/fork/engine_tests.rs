//! The fork engine in process, on Claude's lazy fork: a real Host and store, a Claude thread
//! imported from a transcript, and a `claude` that only answers `--version` (a lazy fork is
//! derived by Claude at its first prompt, so no Claude runs here; `tests/host_fork*.rs` drive
//! the real CLIs and what the model receives). Checked: what the fork holds, what it shares
//! with its source (nothing but the anchors' coordinates), and that a refusal leaves nothing.

use forkhost_store::{Boundary, ThreadState};

use crate::base::fork_point::{ForkAt, TurnRef};
use crate::files::ForkFiles;
use crate::test_host::{claude_thread, claude_thread_in, ClaudeProgram, TestHost};

async fn three_turns() -> TestHost {
    claude_thread(3, ClaudeProgram::VersionOnly).await
}

fn after(n: i64) -> ForkAt {
    ForkAt::After(TurnRef::Number(n))
}

#[tokio::test]
async fn after_turn_two_the_fork_holds_two_turns_of_its_own_and_the_source_is_untouched() {
    let t = three_turns().await;
    let before = t.transcript();
    let source = t.host.show(&t.thread).await.unwrap();
    let made = t.host.fork(&t.thread, after(2)).await.unwrap();
    let fork = &made.thread;

    assert_eq!(fork.turns.len(), 2);
    assert_eq!(
        fork.thread.state,
        ThreadState::Pending,
        "derived at its first prompt"
    );
    assert_eq!(made.prefill, None);
    let lineage = fork.thread.fork.as_ref().expect("lineage");
    assert_eq!(lineage.source_thread, t.thread);
    assert_eq!(
        lineage.source_turn.as_deref(),
        Some(source.turns[1].id.as_str())
    );
    assert_eq!(lineage.boundary, Boundary::After);
    for (mine, theirs) in fork.turns.iter().zip(&source.turns) {
        assert_ne!(mine.id, theirs.id, "a turn of its own");
        assert_eq!(mine.native_turn_ref, theirs.native_turn_ref);
        assert_eq!(mine.messages.len(), theirs.messages.len());
    }
    assert_eq!(fork.turns[1].number, 2);
    assert_ne!(fork.thread.id, t.thread);
    assert_eq!(fork.thread.cwd, source.thread.cwd);

    assert_eq!(
        t.transcript(),
        before,
        "the source's file is byte for byte the same"
    );
    let again = t.host.show(&t.thread).await.unwrap();
    assert_eq!(again.turns.len(), 3);
    assert_eq!(
        again.turns[1].forks,
        [fork.thread.id.as_str()],
        "the source's turn 2 shows its fork"
    );
    let shown = t.host.show(&fork.thread.id).await.unwrap();
    assert_eq!(shown.turns.len(), 2);
    assert_eq!(t.host.threads().await.unwrap().len(), 2);
}

#[tokio::test]
async fn before_a_turn_the_fork_stops_short_of_it_and_gives_its_prompt_back() {
    let t = three_turns().await;
    let source = t.host.show(&t.thread).await.unwrap();
    let turn_two = source.turns[1].id.clone();
    let made = t
        .host
        .fork(&t.thread, ForkAt::Before(TurnRef::Id(turn_two.clone())))
        .await
        .unwrap();
    assert_eq!(made.thread.turns.len(), 1);
    assert_eq!(made.prefill.as_deref(), Some("prompt 2"));
    let lineage = made.thread.thread.fork.as_ref().unwrap();
    assert_eq!(lineage.boundary, Boundary::Before);
    assert_eq!(lineage.source_turn.as_deref(), Some(turn_two.as_str()));

    let latest = t.host.fork(&t.thread, ForkAt::Latest).await.unwrap();
    assert_eq!(latest.thread.turns.len(), 3);
    assert_eq!(latest.prefill, None);
}

#[tokio::test]
async fn forks_of_one_turn_are_named_apart_and_keep_their_sources_mode() {
    let t = three_turns().await;
    t.host
        .set_mode(
            &t.thread,
            forkhost_harness::PermissionMode {
                mode: Some("plan".into()),
                sandbox: None,
            },
        )
        .await
        .unwrap();
    // Claude has no sandbox words; a source row holding one (Codex's kind) passes it on too.
    let mut row = t.host.store().thread(&t.thread).await.unwrap();
    row.permission_sandbox = Some("workspace-write".into());
    t.host.store().update_thread(&row).await.unwrap();
    let first = t.host.fork(&t.thread, after(1)).await.unwrap().thread;
    let second = t.host.fork(&t.thread, after(1)).await.unwrap().thread;
    assert_ne!(first.thread.title, second.thread.title);
    for fork in [&first, &second] {
        assert_eq!(fork.thread.permissions.mode.as_deref(), Some("plan"));
        assert_eq!(
            fork.thread.permissions.sandbox.as_deref(),
            Some("workspace-write")
        );
        assert_eq!(fork.turns.len(), 1);
    }
    // A fork of a fork: its lineage names the fork, and it holds what the fork held.
    let grandchild = t
        .host
        .fork(&first.thread.id, ForkAt::Latest)
        .await
        .unwrap()
        .thread;
    assert_eq!(
        grandchild.thread.fork.as_ref().unwrap().source_thread,
        first.thread.id
    );
    assert_eq!(grandchild.turns.len(), 1);
    assert_eq!(
        grandchild.turns[0].native_turn_ref,
        first.turns[0].native_turn_ref
    );
}

#[tokio::test]
async fn a_refused_fork_says_why_and_leaves_no_thread_behind() {
    let t = three_turns().await;
    let cases = [
        (t.thread.as_str(), after(0), "turn_not_found"),
        (t.thread.as_str(), after(4), "turn_not_found"),
        (
            t.thread.as_str(),
            ForkAt::Before(TurnRef::Number(-1)),
            "turn_not_found",
        ),
        (
            t.thread.as_str(),
            ForkAt::After(TurnRef::Id("no-such-turn".into())),
            "turn_not_found",
        ),
        ("no-such-thread", after(1), "thread_not_found"),
    ];
    for (thread, at, code) in cases {
        let err = t.host.fork(thread, at.clone()).await.unwrap_err();
        assert_eq!(err.code(), code, "{at:?}: {err}");
    }
    assert_eq!(t.host.threads().await.unwrap().len(), 1);

    let missing = claude_thread(2, ClaudeProgram::Missing).await;
    let err = missing
        .host
        .fork(&missing.thread, after(1))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "harness_not_found", "{err}");
    assert_eq!(missing.host.threads().await.unwrap().len(), 1);

    let gone = claude_thread(2, ClaudeProgram::VersionOnly).await;
    gone.delete_transcript();
    let err = gone.host.fork(&gone.thread, after(1)).await.unwrap_err();
    assert_eq!(err.code(), "session_not_found", "{err}");
    assert_eq!(gone.host.threads().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_forks_timing_is_in_milliseconds_and_its_steps_add_up_to_at_most_its_total() {
    let t = three_turns().await;
    let outer = std::time::Instant::now();
    let made = t.host.fork(&t.thread, after(2)).await.unwrap();
    let outer_ms = outer.elapsed().as_secs_f64() * 1e3;
    let timing = made.timing;
    assert!(!timing.warm, "no warm spare in this Host");
    let steps = timing.check_ms + timing.native_ms + timing.commit_ms + timing.read_back_ms;
    assert!(
        steps <= timing.total_ms + 1e-6,
        "steps {steps} ms > total {} ms",
        timing.total_ms
    );
    // Measured inside the call: no more than the call took, and most of it (a unit slip of a
    // thousand either way would break one side).
    assert!(timing.total_ms <= outer_ms, "{timing:?} vs {outer_ms} ms");
    assert!(
        timing.total_ms >= outer_ms / 4.0,
        "{timing:?} vs {outer_ms} ms"
    );
}

#[tokio::test]
async fn a_fork_whose_files_cannot_be_made_is_refused_after_its_row_and_leaves_no_row() {
    // A worktree asked for outside git fails after the `creating` row went in.
    let t = three_turns().await;
    let err = t
        .host
        .fork_with(&t.thread, after(1), ForkFiles::Worktree)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "unsupported", "{err}");
    assert_eq!(t.creating_rows().await, 0, "the half-made fork is gone");
    assert_eq!(t.host.threads().await.unwrap().len(), 1);
    // The same fork in the same folder is made, and its row is committed.
    let made = t.host.fork(&t.thread, after(1)).await.unwrap();
    assert_eq!(made.thread.turns.len(), 1);
    assert_eq!(t.creating_rows().await, 0);
}

#[tokio::test]
async fn a_thread_with_no_turns_yet_has_nothing_to_fork() {
    let t = three_turns().await;
    let new = t
        .host
        .create(crate::thread::lifecycle::NewThreadSpec {
            harness: forkhost_harness::HarnessKind::Claude,
            cwd: t.folder().to_path_buf(),
            title: None,
            permissions: Default::default(),
        })
        .await
        .unwrap();
    // And a session with a file but no turn in it yet (its header only).
    let empty = crate::test_host::pi_thread(0, ClaudeProgram::VersionOnly).await;
    for (host, thread) in [(&t.host, &new.thread.id), (&empty.host, &empty.thread)] {
        let err = host.fork(thread, ForkAt::Latest).await.unwrap_err();
        assert_eq!(err.code(), "turn_not_found", "{err}");
        assert!(
            err.to_string().contains("no turns to fork from yet"),
            "{err}"
        );
    }
}

/// The three-turn transcript as it reads after turn 2 left the native session (rewound in the
/// harness's own TUI): turn 3's prompt now follows turn 1's reply.
fn without_turn_two(t: &TestHost) -> String {
    let text = String::from_utf8(t.transcript()).unwrap();
    text.lines()
        .filter(|l| !l.contains(r#""uuid":"u2""#) && !l.contains(r#""uuid":"r2""#))
        .map(|l| l.replace(r#""parentUuid":"r2""#, r#""parentUuid":"r1""#) + "\n")
        .collect()
}

#[tokio::test]
async fn a_turn_that_moved_in_the_native_session_is_found_by_its_ref_and_one_that_left_is_refused()
{
    let t = three_turns().await;
    let source = t.host.show(&t.thread).await.unwrap();
    t.write_transcript(&without_turn_two(&t));

    // Turn 3 is the native session's second turn now: the fork cuts there, holding two.
    let made = t.host.fork(&t.thread, after(3)).await.unwrap();
    let refs: Vec<_> = made
        .thread
        .turns
        .iter()
        .map(|turn| turn.native_turn_ref.clone())
        .collect();
    assert_eq!(
        refs,
        [
            source.turns[0].native_turn_ref.clone(),
            source.turns[2].native_turn_ref.clone()
        ]
    );
    let err = t.host.fork(&t.thread, after(2)).await.unwrap_err();
    assert_eq!(err.code(), "checkpoint_not_found", "{err}");
}

#[tokio::test]
async fn a_lazy_fork_starts_its_harness_ahead_only_in_a_host_that_keeps_forks_warm() {
    let cold = three_turns().await;
    let warm = claude_thread_in(3, ClaudeProgram::VersionOnly, "w", |o| o.warm_forks = true).await;
    for t in [&cold, &warm] {
        t.host.fork(&t.thread, after(1)).await.unwrap();
    }
    let started = |t: &TestHost| t.claude_calls().iter().any(|c| c != "--version");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while !started(&warm) {
        assert!(
            std::time::Instant::now() < deadline,
            "the warm Host never started Claude"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // The cold Host had as long, and longer than the warm one needed.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(
        !started(&cold),
        "started without being asked: {:?}",
        cold.claude_calls()
    );
}

/// A fork whose caller goes away between its steps (a window closed, a call cancelled) is
/// undone as a failed step would be: its `creating` row does not wait for the next start.
#[tokio::test]
async fn a_fork_dropped_half_way_leaves_no_row() {
    let t = three_turns().await;
    let plan = t.host.plan_fork(&t.thread, &after(2), None).await.unwrap();
    let txn = super::commit::ForkTxn::begin(&t.host, &plan).await.unwrap();
    let child = txn.child.id.clone();
    assert_eq!(
        t.host.store().thread(&child).await.unwrap().state,
        ThreadState::Creating
    );
    drop(txn);
    let gone = async {
        while t.host.store().thread(&child).await.is_ok() {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), gone)
        .await
        .expect("the dropped fork's row is removed");

    // A committed one stays.
    let made = t.host.fork(&t.thread, after(2)).await.unwrap();
    assert!(t.host.store().thread(&made.thread.thread.id).await.is_ok());
}

/// The session a fork's harness derived belongs to the fork from the moment the harness
/// returns it: the `creating` row names it (so a crash before the commit leaves nothing the
/// next open cannot find), and a step that fails after it removes it with the row. A pending
/// fork has no file of its own yet: nothing is named, nothing removed.
#[tokio::test]
async fn a_derived_session_is_named_by_the_creating_row_and_goes_with_a_failed_fork() {
    use forkhost_harness::{Forked, HarnessKind, NativeSession, PendingFork};
    let t = three_turns().await;
    let before = t.transcript();
    let dir = tempfile::tempdir().unwrap();
    let forked = |name: &str, pending: bool| {
        let path = dir.path().join(name);
        std::fs::write(&path, "{}\n").unwrap();
        let session = NativeSession {
            kind: HarnessKind::Claude,
            session_id: name.to_owned(),
            path: Some(path.clone()),
            cwd: dir.path().to_owned(),
        };
        let forked = Forked {
            pending: pending.then(|| PendingFork {
                source: None,
                session: session.clone(),
                resume_at: None,
            }),
            session,
        };
        (forked, path)
    };

    let plan = t.host.plan_fork(&t.thread, &after(2), None).await.unwrap();
    let mut txn = super::commit::ForkTxn::begin(&t.host, &plan).await.unwrap();
    let child = txn.child.id.clone();
    let (derived, file) = forked("derived", false);
    txn.derived(&derived).await.unwrap();
    let row = t.host.store().thread(&child).await.unwrap();
    assert_eq!(row.state, ThreadState::Creating);
    assert_eq!(row.native_path, Some(file.display().to_string()));
    assert_eq!(row.native_session_id.as_deref(), Some("derived"));
    let failed: crate::base::error::HostResult<()> = Err(crate::base::error::HostError::Internal(
        "a later step failed".into(),
    ));
    assert!(txn.attempt(failed).await.is_err());
    assert!(!file.exists(), "the derived session went with the fork");
    assert!(t.host.store().thread(&child).await.is_err(), "and its row");

    // A pending fork: its row names no file, and its undo removes none.
    let mut txn = super::commit::ForkTxn::begin(&t.host, &plan).await.unwrap();
    let child = txn.child.id.clone();
    let (pending, kept) = forked("pending", true);
    txn.derived(&pending).await.unwrap();
    assert_eq!(
        t.host.store().thread(&child).await.unwrap().native_path,
        None
    );
    let failed: crate::base::error::HostResult<()> = Err(crate::base::error::HostError::Internal(
        "a later step failed".into(),
    ));
    assert!(txn.attempt(failed).await.is_err());
    assert!(kept.exists(), "a pending fork's file is not its own");
    assert!(t.host.store().thread(&child).await.is_err());
    assert_eq!(t.transcript(), before, "the source is untouched");
}
