//! Pi's native fork: unit tests (the real-CLI ones are in tests/tests/harness/pi.rs).
use super::steps::plan;
use super::*;
use crate::contract::Cut;
use crate::{HarnessError, TurnAnchor};

use TurnAnchor as A;

fn three() -> Vec<TurnAnchor> {
    vec![
        A::of("u1", Some("a1"), true),
        A::of("u2", Some("a2"), true),
        A::of("u3", Some("a3"), true),
    ]
}

fn native(keep_to: &str, at: At) -> Plan {
    Plan::Native {
        keep_to: keep_to.into(),
        at,
    }
}

#[test]
fn cuts_map_to_pis_fork_and_clone() {
    let a = three();
    assert_eq!(
        plan(&a, Cut::After(0)).unwrap(),
        native("a1", At::UserEntry("u2".into()))
    );
    assert_eq!(
        plan(&a, Cut::Before(1)).unwrap(),
        native("a1", At::UserEntry("u2".into()))
    );
    assert_eq!(
        plan(&a, Cut::Before(2)).unwrap(),
        native("a2", At::UserEntry("u3".into()))
    );
    assert_eq!(plan(&a, Cut::After(2)).unwrap(), native("a3", At::Leaf));
    assert_eq!(plan(&a, Cut::Before(0)).unwrap(), Plan::Fresh);
}

#[test]
fn bad_cuts_are_typed_errors() {
    let a = three();
    assert!(matches!(
        plan(&a, Cut::After(3)),
        Err(HarnessError::TurnNotFound(_))
    ));
    assert!(matches!(
        plan(&a, Cut::Before(3)),
        Err(HarnessError::TurnNotFound(_))
    ));
    assert!(matches!(
        plan(&[], Cut::Before(0)),
        Err(HarnessError::TurnNotFound(_))
    ));
    assert!(matches!(
        plan(&a, Cut::After(usize::MAX)),
        Err(HarnessError::TurnNotFound(_))
    ));
    let running = vec![
        A::of("u1", Some("a1"), true),
        A::of("u2", Some("u2"), false),
    ];
    assert!(matches!(
        plan(&running, Cut::After(1)),
        Err(HarnessError::Unsupported(_))
    ));
    // Before a running turn is fine: everything kept is complete.
    assert_eq!(
        plan(&running, Cut::Before(1)).unwrap(),
        native("a1", At::UserEntry("u2".into()))
    );
    let no_checkpoint = vec![A::of("u1", None, true), A::of("u2", Some("a2"), true)];
    assert!(matches!(
        plan(&no_checkpoint, Cut::After(0)),
        Err(HarnessError::CheckpointNotFound(_))
    ));
    let no_turn_ref = vec![A::of("u1", Some("a1"), true), A::of("", Some("a2"), true)];
    assert!(matches!(
        plan(&no_turn_ref, Cut::Before(1)),
        Err(HarnessError::CheckpointNotFound(_))
    ));
}

#[test]
fn before_turn_one_is_a_fresh_pending_session() {
    let source = NativeSession {
        kind: HarnessKind::Pi,
        session_id: "src".into(),
        path: Some("/s.jsonl".into()),
        cwd: "/work".into(),
    };
    let forked = fresh(&source.cwd);
    let pending = forked.pending.expect("pending");
    assert_eq!(pending.source, None);
    assert_eq!(pending.session, forked.session);
    assert_eq!(forked.session.cwd, source.cwd);
    assert_ne!(forked.session.session_id, source.session_id);
    assert_eq!(forked.session.path, None);
}

#[tokio::test]
async fn an_old_pi_never_forks() {
    let binary = HarnessBinary {
        kind: HarnessKind::Pi,
        path: "/nonexistent/pi".into(),
        version: "0.73.1".into(),
    };
    let source = NativeSession {
        kind: HarnessKind::Pi,
        session_id: "src".into(),
        path: Some("/nonexistent/s.jsonl".into()),
        cwd: "/".into(),
    };
    let anchors = three();
    let err = fork(ForkRequest {
        binary: &binary,
        source: &source,
        anchors: &anchors,
        cut: Cut::After(0),
        env: &[],
        cwd: None,
    })
    .await
    .err();
    assert!(matches!(err, Some(HarnessError::Unsupported(_))), "{err:?}");
}
