//! `set_mode` in process: the store and a stand-in harness process (`test_host.rs`) must never
//! disagree about the mode, whatever the process answers and whether a turn runs.

use forkhost_harness::{HarnessError, HarnessKind, PermissionMode};

use crate::base::events::HostEvent;
use crate::test_host::{self, TestHost};

fn mode(word: &str) -> PermissionMode {
    PermissionMode {
        mode: Some(word.into()),
        sandbox: None,
    }
}

async fn stored(t: &TestHost) -> Option<String> {
    t.host
        .show(&t.thread)
        .await
        .unwrap()
        .thread
        .permissions
        .mode
}

fn takes_it_live() -> forkhost_harness::HarnessResult<bool> {
    Ok(true)
}

fn needs_a_restart() -> forkhost_harness::HarnessResult<bool> {
    Ok(false)
}

fn fails() -> forkhost_harness::HarnessResult<bool> {
    Err(HarnessError::HarnessFailed {
        harness: HarnessKind::Claude,
        message: "pipe closed".into(),
        stderr_tail: String::new(),
    })
}

/// Whether `events` got a `ThreadChanged` for the thread (and drains them).
fn changed(t: &TestHost, events: &mut tokio::sync::broadcast::Receiver<HostEvent>) -> bool {
    let mut seen = false;
    while let Ok(event) = events.try_recv() {
        if let HostEvent::ThreadChanged { thread_id, .. } = event {
            seen |= thread_id == t.thread;
        }
    }
    seen
}

#[tokio::test]
async fn without_a_process_the_mode_is_stored_and_bad_ones_are_refused() {
    let t = test_host::with_claude_thread().await;
    let mut events = t.host.subscribe();
    let view = t.host.set_mode(&t.thread, mode("plan")).await.unwrap();
    assert_eq!(view.permissions.mode.as_deref(), Some("plan"));
    assert_eq!(stored(&t).await.as_deref(), Some("plan"));
    assert!(changed(&t, &mut events));

    // The same mode again changes nothing and tells no view.
    t.host.set_mode(&t.thread, mode("plan")).await.unwrap();
    assert!(!changed(&t, &mut events));

    for (thread, bad, code) in [
        (t.thread.as_str(), mode("yolo"), "invalid_input"),
        ("no-such-thread", mode("plan"), "thread_not_found"),
    ] {
        let err = t.host.set_mode(thread, bad).await.unwrap_err();
        assert_eq!(err.code(), code, "{err}");
    }
    assert_eq!(stored(&t).await.as_deref(), Some("plan"));
    assert!(!changed(&t, &mut events));
}

#[tokio::test]
async fn a_process_that_takes_the_mode_live_keeps_running_with_it() {
    let t = test_host::with_claude_thread().await;
    let (log, turn) = t.attach(takes_it_live).await;
    turn.begin(2);
    t.host
        .set_mode(&t.thread, mode("acceptEdits"))
        .await
        .unwrap();
    assert_eq!(log.lock().unwrap().modes, [mode("acceptEdits")]);
    assert!(!log.lock().unwrap().closed);
    assert!(t.attached().await);
    assert_eq!(stored(&t).await.as_deref(), Some("acceptEdits"));
}

#[tokio::test]
async fn an_idle_process_that_cannot_take_it_is_stopped_and_the_next_start_has_it() {
    for answer in [needs_a_restart, fails] {
        let t = test_host::with_claude_thread().await;
        let (log, _turn) = t.attach(answer).await;
        t.host.set_mode(&t.thread, mode("plan")).await.unwrap();
        assert_eq!(log.lock().unwrap().modes, [mode("plan")]);
        assert!(log.lock().unwrap().closed, "stopped");
        assert!(!t.attached().await);
        assert_eq!(stored(&t).await.as_deref(), Some("plan"));
    }
}

#[tokio::test]
async fn mid_turn_a_process_that_cannot_take_it_keeps_its_mode_and_so_does_the_store() {
    for (answer, code) in [
        (needs_a_restart as fn() -> _, "busy"),
        (fails, "harness_failed"),
    ] {
        let t = test_host::with_claude_thread().await;
        t.host.set_mode(&t.thread, mode("default")).await.unwrap();
        let (log, turn) = t.attach(answer).await;
        turn.begin(2);
        let mut events = t.host.subscribe();
        let err = t.host.set_mode(&t.thread, mode("plan")).await.unwrap_err();
        assert_eq!(err.code(), code, "{err}");
        assert_eq!(stored(&t).await.as_deref(), Some("default"), "put back");
        assert!(!log.lock().unwrap().closed, "the turn goes on");
        assert!(t.attached().await);
        assert!(!turn.is_dead());
        assert!(!changed(&t, &mut events));
    }
}

#[tokio::test]
async fn a_dead_process_is_not_asked_and_is_replaced() {
    let t = test_host::with_claude_thread().await;
    let (log, turn) = t.attach(takes_it_live).await;
    turn.mark_dead();
    t.host.set_mode(&t.thread, mode("plan")).await.unwrap();
    assert!(log.lock().unwrap().modes.is_empty(), "not asked");
    assert!(log.lock().unwrap().closed);
    assert!(!t.attached().await);
    assert_eq!(stored(&t).await.as_deref(), Some("plan"));
}
