//! A thread's permission mode as the live harness runs it, with the real Codex CLI against the
//! fake model: a change back to the harness default (`config.toml`'s approval policy) really
//! restores it in the running thread (review M7), and the thread's stored mode is the one the
//! process runs with.

use crate::host_kit;

use forkhost_core::{ApprovalDecision, HostEvent, TurnOutcome};
use forkhost_tests::harness_env::Harness;

use host_kit::{mode, setup, turn_answering};

/// The case, as a new user meets it: a thread created with `danger-full-access`, then
/// `forkhost mode T never` (no sandbox word: back to `config.toml`'s, here `read-only`). The
/// stored mode says the default sandbox, so the process must run it: the next command cannot
/// write (this machine's read-only sandbox cannot even start, so the command fails), where
/// before the fix the app-server kept full access and wrote the file. (`config.toml` cannot
/// say `untrusted` in Codex 0.171.0: "no longer supported", so the sandbox word is the one a
/// config can bring back.) The change applies live: the next `turn/start` carries config's
/// sandbox explicitly.
#[tokio::test]
async fn codex_back_to_the_default_sandbox_restores_the_configs_sandbox() {
    let Some(s) = setup(Harness::Codex).await else {
        return;
    };
    let config = s.env.home().join(".codex/config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    let full = "sandbox_mode = \"danger-full-access\"";
    assert!(text.contains(full), "{text}");
    std::fs::write(&config, text.replace(full, "sandbox_mode = \"read-only\"")).unwrap();
    let host = s.host().await;
    let thread = host
        .create(s.spec(mode(Some("never"), Some("danger-full-access"))))
        .await
        .unwrap()
        .thread
        .id;
    let work = s.env.work_dir().to_path_buf();
    let first = turn_answering(
        &host,
        &thread,
        "RUN_COMMAND `touch one.txt`",
        ApprovalDecision::Decline,
    )
    .await;
    assert_eq!(first, (0, TurnOutcome::Completed));
    assert!(work.join("one.txt").exists(), "full access writes");

    let mut events = host.subscribe();
    let view = host
        .set_mode(&thread, mode(Some("never"), None))
        .await
        .unwrap();
    assert_eq!(view.permissions.mode.as_deref(), Some("never"));
    // No sandbox word stored: the view names the one that runs, config.toml's (issue 39).
    assert_eq!(view.permissions.sandbox.as_deref(), Some("read-only"));
    assert!(view.permissions.sandbox_default, "{:?}", view.permissions);
    while let Ok(event) = events.try_recv() {
        assert!(
            !matches!(event, HostEvent::RuntimeStopped { .. }),
            "applied live, as config.toml's value, without a restart"
        );
    }
    let second = turn_answering(
        &host,
        &thread,
        "RUN_COMMAND `touch two.txt`",
        ApprovalDecision::Decline,
    )
    .await;
    assert_eq!(second.0, 0, "never asks");
    assert!(
        !work.join("two.txt").exists(),
        "the process still ran with full access after the change to the default sandbox"
    );
    let shown = host.show(&thread).await.unwrap();
    assert_eq!(
        shown.thread.permissions.sandbox.as_deref(),
        Some("read-only")
    );
    assert!(shown.thread.permissions.sandbox_default);

    // A new process on the same thread (after a close, or the next app start) runs the default
    // too: `thread/resume` without the word would keep the thread's last one.
    host.close(&thread).await.unwrap();
    let third = turn_answering(
        &host,
        &thread,
        "RUN_COMMAND `touch three.txt`",
        ApprovalDecision::Decline,
    )
    .await;
    assert_eq!(third.0, 0);
    assert!(!work.join("three.txt").exists(), "resumed with full access");
}
