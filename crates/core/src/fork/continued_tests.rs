//! A conversation continued in another harness, in process: a Pi thread imported from its
//! session file, continued in Claude Code, whose seed Forkhost writes itself (no Pi and no
//! Claude runs; `tests/host/continue_in.rs` drives the real CLIs and what the model receives).

use forkhost_harness::HarnessKind;
use forkhost_store::ThreadState;

use crate::base::fork_point::{ForkAt, TurnRef};
use crate::files::ForkFiles;
use crate::test_host::{committed_repo, git, pi_thread, ClaudeProgram, TestHost};

fn after(n: i64) -> ForkAt {
    ForkAt::After(TurnRef::Number(n))
}

/// The Pi thread's permission words, set straight in the store (Pi has none of its own):
/// another harness must not inherit them.
async fn with_permissions(t: &TestHost) {
    let mut row = t.host.store().thread(&t.thread).await.unwrap();
    row.permission_mode = Some("pi-mode".into());
    row.permission_sandbox = Some("pi-sandbox".into());
    t.host.store().update_thread(&row).await.unwrap();
}

#[tokio::test]
async fn a_pi_conversation_continues_in_claude_in_a_session_of_its_own_up_to_the_turn() {
    let t = pi_thread(3, ClaudeProgram::VersionOnly).await;
    with_permissions(&t).await;
    let before = t.transcript();
    let made = t
        .host
        .fork_into(
            &t.thread,
            after(2),
            ForkFiles::Auto,
            Some(HarnessKind::Claude),
        )
        .await
        .unwrap();
    let fork = &made.thread;

    assert_eq!(fork.thread.harness, HarnessKind::Claude);
    assert_eq!(
        fork.thread.state,
        ThreadState::Ready,
        "its session is written now"
    );
    assert!(
        fork.thread.title.contains("Claude Code"),
        "the title names where it went on: {}",
        fork.thread.title
    );
    let note = made
        .carry_note
        .as_deref()
        .expect("what was carried is said");
    assert!(note.contains("from Pi: 2 turns"), "{note}");
    assert_eq!(fork.thread.permissions.mode, None, "Claude's own default");
    assert_eq!(fork.thread.permissions.sandbox, None);
    let lineage = fork.thread.fork.as_ref().unwrap();
    assert_eq!(lineage.source_thread, t.thread);
    assert_eq!(lineage.source_harness, Some(HarnessKind::Pi));

    // Its turns are read back from the Claude session written for it.
    let shown = t.host.show(&fork.thread.id).await.unwrap();
    assert_eq!(shown.turns.len(), 2);
    let path = shown
        .thread
        .native
        .path
        .clone()
        .expect("a Claude session file");
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(written.contains("prompt 2") && written.contains("reply 2"));
    assert!(!written.contains("prompt 3"), "nothing after the cut");
    assert_eq!(t.transcript(), before, "the Pi session is untouched");
    assert_eq!(t.host.threads().await.unwrap().len(), 2);
    assert!(
        t.claude_calls().iter().all(|c| c == "--version"),
        "no Claude ran: {:?}",
        t.claude_calls()
    );
}

#[tokio::test]
async fn a_native_fork_of_a_pi_thread_needs_pi_and_leaves_nothing_when_it_is_missing() {
    // The same thread forked within Pi asks Pi itself, which is not installed here.
    let t = pi_thread(2, ClaudeProgram::VersionOnly).await;
    let err = t
        .host
        .fork_into(&t.thread, after(1), ForkFiles::Auto, None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "harness_not_found", "{err}");
    assert_eq!(t.host.threads().await.unwrap().len(), 1);
}

#[tokio::test]
async fn a_continue_into_a_worktree_that_fails_leaves_no_worktree_and_no_thread() {
    let t = pi_thread(2, ClaudeProgram::VersionOnly).await;
    committed_repo(&t.work());
    // Claude's sessions folder cannot be made (a file stands where it goes): the seed fails
    // after the fork's worktree was added.
    std::fs::write(t.home().join(".claude"), "not a folder").unwrap();
    let err = t
        .host
        .fork_into(
            &t.thread,
            after(1),
            ForkFiles::Worktree,
            Some(HarnessKind::Claude),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), "harness_failed", "{err}");
    assert_eq!(t.host.threads().await.unwrap().len(), 1);
    assert_eq!(t.creating_rows().await, 0);
    let listed = git(&t.work(), &["worktree", "list", "--porcelain"]);
    assert_eq!(
        listed.matches("worktree ").count(),
        1,
        "only the main checkout: {listed}"
    );
    let branches = git(&t.work(), &["branch", "--list", "forkhost/*"]);
    assert_eq!(branches, "", "no fork branch left");
}

/// A branch leaving for another machine: the turns up to the cut, in the harness it continues
/// in, named by its source and cut; made a thread on the other side (here the same Host, as the
/// CLI's `adopt-branch` does there), with exactly those turns. The source is only read.
#[tokio::test]
async fn a_branch_travels_as_its_turns_up_to_the_cut_and_becomes_a_thread_there() {
    let t = pi_thread(3, ClaudeProgram::VersionOnly).await;
    let before = t.transcript();
    let title = t.host.store().thread(&t.thread).await.unwrap().title;

    let same = t.host.branch_seed(&t.thread, after(2), None).await.unwrap();
    assert_eq!(same.harness, HarnessKind::Pi);
    assert_eq!(same.seed.turns.len(), 2);
    assert_eq!(same.title, format!("{title} · after turn 2"));
    let earlier = t
        .host
        .branch_seed(&t.thread, ForkAt::Before(TurnRef::Number(2)), None)
        .await
        .unwrap();
    assert_eq!(earlier.seed.turns.len(), 1);
    assert_eq!(earlier.title, format!("{title} · before turn 2"));
    let missing = t.host.branch_seed(&t.thread, after(9), None).await;
    assert_eq!(missing.unwrap_err().code(), "turn_not_found");

    let branch = t
        .host
        .branch_seed(&t.thread, after(2), Some(HarnessKind::Claude))
        .await
        .unwrap();
    assert_eq!(branch.harness, HarnessKind::Claude);
    assert_eq!(
        branch.title,
        format!("{title} · in Claude Code after turn 2")
    );
    // It travels as JSON and comes back the same.
    let wire = serde_json::to_string(&branch).unwrap();
    let arrived: crate::base::branch::BranchSeed = serde_json::from_str(&wire).unwrap();
    assert_eq!(arrived, branch);

    let made = t
        .host
        .adopt_branch(arrived, &t.work(), Some(true), None)
        .await
        .unwrap();
    assert_eq!(made.thread.harness, HarnessKind::Claude);
    assert_eq!(made.thread.title, branch.title);
    assert_eq!(made.turns.len(), 2);
    assert_eq!(made.thread.state, ThreadState::Ready);
    assert!(
        made.thread.fork.is_none(),
        "no lineage to a thread of another machine"
    );
    assert_eq!(t.transcript(), before, "the source is only read");

    let mut empty = branch.clone();
    empty.seed.turns.clear();
    let refused = t.host.adopt_branch(empty, &t.work(), None, None).await;
    assert_eq!(refused.unwrap_err().code(), "invalid_input");
    let nowhere = t
        .host
        .adopt_branch(branch, std::path::Path::new("/nonexistent"), None, None)
        .await;
    assert_eq!(nowhere.unwrap_err().code(), "invalid_input");
}
