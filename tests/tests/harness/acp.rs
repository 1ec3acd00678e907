//! ACP agents asked what they can do (`crates/harness/src/acp/`), against the stand-in agent
//! (`tests/src/acp/`): its capabilities read as it answers them, and each fault — not
//! installed, a crash at start, a hang, a line that is no JSON-RPC, another protocol version —
//! ends in a typed error with its words, the agent's process stopped.

use std::time::{Duration, Instant};

use forkhost_harness::acp::{probe, AgentCommand};
use forkhost_harness::HarnessError;

fn agent(program: &std::path::Path) -> AgentCommand {
    AgentCommand::custom("stand-in", &[program.display().to_string()]).unwrap()
}

fn mode(mode: &str) -> Vec<(String, String)> {
    vec![("STAND_IN_MODE".into(), mode.into())]
}

#[tokio::test]
async fn an_agents_capabilities_are_read_from_its_answer() {
    let dir = tempfile::tempdir().unwrap();
    let program = forkhost_tests::acp::stand_in(dir.path());
    let agent = agent(&program);
    let full = probe(
        &agent,
        &program,
        dir.path(),
        &mode("fork"),
        Duration::from_secs(20),
    )
    .await
    .unwrap();
    assert_eq!(
        (full.agent_name.as_deref(), full.agent_version.as_deref()),
        (Some("stand-in"), Some("0.0.1"))
    );
    assert!(
        full.load && full.fork && full.list && !full.delete && full.images,
        "{full:?}"
    );
    assert_eq!(full.auth_methods, ["stand-in-key"]);
    let plain = probe(
        &agent,
        &program,
        dir.path(),
        &mode("plain"),
        Duration::from_secs(20),
    )
    .await
    .unwrap();
    assert!(
        !plain.load && !plain.fork && !plain.list && plain.auth_methods.is_empty(),
        "{plain:?}"
    );
}

#[tokio::test]
async fn each_fault_of_starting_an_agent_ends_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let program = forkhost_tests::acp::stand_in(dir.path());
    let agent = agent(&program);
    let limit = Duration::from_secs(3);

    let missing = dir.path().join("no-such-agent");
    let err = probe(&agent, &missing, dir.path(), &[], limit)
        .await
        .unwrap_err();
    assert!(matches!(err, HarnessError::AgentNotFound { .. }), "{err}");

    let err = probe(&agent, &program, dir.path(), &mode("crash"), limit)
        .await
        .unwrap_err();
    let HarnessError::AgentFailed { stderr_tail, .. } = &err else {
        panic!("a crash is a failure: {err}");
    };
    assert!(
        stderr_tail.contains("cannot read its config"),
        "{err}: {stderr_tail}"
    );

    let started = Instant::now();
    let err = probe(&agent, &program, dir.path(), &mode("hang"), limit)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, HarnessError::AgentFailed { message, .. } if message.contains("within 3 s")),
        "{err}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the hang was bounded"
    );

    let err = probe(&agent, &program, dir.path(), &mode("garbage"), limit)
        .await
        .unwrap_err();
    assert!(matches!(err, HarnessError::AgentFailed { .. }), "{err}");

    let err = probe(&agent, &program, dir.path(), &mode("v2"), limit)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, HarnessError::Unsupported(m) if m.contains("another ACP protocol version") && m.contains('2')),
        "{err}"
    );
}

/// The faults of a running session, against the stand-in: each ends in words, and a turn
/// never waits forever.
mod sessions {
    use super::*;
    use forkhost_harness::acp::{AcpRuntime, AcpTarget};
    use forkhost_harness::contract::{
        Answer, ApprovalDecision, ApprovalSubject, RuntimeEvent, TurnOutcome,
    };
    use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

    const WAIT: Duration = Duration::from_secs(30);

    async fn open(
        dir: &std::path::Path,
        how: &str,
    ) -> Result<(AcpRuntime, UnboundedReceiver<RuntimeEvent>), HarnessError> {
        let program = forkhost_tests::acp::stand_in(dir);
        let (tx, rx) = unbounded_channel();
        let target = AcpTarget::New {
            cwd: dir.to_path_buf(),
        };
        let runtime = AcpRuntime::open(&agent(&program), &program, target, &mode(how), tx).await?;
        Ok((runtime, rx))
    }

    /// The turn's text, its end, and whether the process was said to exit, in order.
    async fn to_the_end(
        rx: &mut UnboundedReceiver<RuntimeEvent>,
    ) -> (String, TurnOutcome, Option<String>) {
        let mut text = String::new();
        let mut exited = None;
        loop {
            let event = tokio::time::timeout(WAIT, rx.recv())
                .await
                .expect("the turn ends in time")
                .expect("events go on");
            match event {
                RuntimeEvent::TextDelta { text: t } => text.push_str(&t),
                RuntimeEvent::Exited { error } => exited = error,
                RuntimeEvent::TurnEnded { outcome, .. } => return (text, outcome, exited),
                RuntimeEvent::ApprovalRequested { request, reply } => {
                    assert_eq!(
                        request.subject,
                        ApprovalSubject::Command {
                            command: "rm -rf build".into(),
                            cwd: None
                        }
                    );
                    assert!(
                        !request.can_approve_for_session(),
                        "the stand-in offers no always"
                    );
                    reply
                        .send(Answer::Decision(ApprovalDecision::Approve))
                        .await
                        .unwrap();
                }
                _ => {}
            }
        }
    }

    #[tokio::test]
    async fn a_turn_streams_and_a_broken_line_among_its_updates_is_passed_over() {
        let dir = tempfile::tempdir().unwrap();
        let (mut runtime, mut rx) = open(dir.path(), "garbage-turn").await.unwrap();
        assert_eq!(runtime.session_id(), "s1");
        runtime.send("hello").await.unwrap();
        let (text, outcome, exited) = to_the_end(&mut rx).await;
        assert_eq!(
            (text.as_str(), &outcome, exited),
            ("stand-in: stand-in: hello", &TurnOutcome::Completed, None)
        );
        runtime.close().await.unwrap();
    }

    #[tokio::test]
    async fn an_agent_that_dies_mid_turn_ends_it_failed_in_words() {
        let dir = tempfile::tempdir().unwrap();
        let (mut runtime, mut rx) = open(dir.path(), "crash-turn").await.unwrap();
        runtime.send("hello").await.unwrap();
        let (text, outcome, mut exited) = to_the_end(&mut rx).await;
        // The exit may come after the turn's end (the answer that never comes is failed as
        // soon as the output closes; the exit is reported once the process is reaped).
        while exited.is_none() {
            match tokio::time::timeout(WAIT, rx.recv()).await {
                Ok(Some(RuntimeEvent::Exited { error })) => {
                    exited = Some(error.unwrap_or_default())
                }
                Ok(Some(_)) => continue,
                other => panic!("no exit reported: {other:?}"),
            }
        }
        assert_eq!(text, "half a repl");
        assert!(
            matches!(&outcome, TurnOutcome::Failed { message } if message.contains("exited before it answered")),
            "{outcome:?}"
        );
        assert!(
            exited
                .as_deref()
                .is_some_and(|e| e.contains("exited unexpectedly")),
            "{exited:?}"
        );
        let again = runtime.send("again").await.unwrap_err();
        assert!(
            matches!(&again, HarnessError::AgentFailed { message, .. } if message.contains("no longer running")),
            "{again}"
        );
    }

    #[tokio::test]
    async fn a_refused_session_is_said_and_a_permission_request_takes_the_cards_answer() {
        let dir = tempfile::tempdir().unwrap();
        let err = open(dir.path(), "refuse-new")
            .await
            .map(|_| ())
            .unwrap_err();
        assert!(
            matches!(&err, HarnessError::AgentFailed { message, .. } if message.contains("no sessions today")),
            "{err}"
        );

        let (mut runtime, mut rx) = open(dir.path(), "ask").await.unwrap();
        runtime.send("clean up").await.unwrap();
        let (text, outcome, _) = to_the_end(&mut rx).await;
        assert_eq!(outcome, TurnOutcome::Completed);
        assert_eq!(
            text, r#"answer: {"optionId": "allow-1", "outcome": "selected"}"#,
            "the agent received the option it named for allow once"
        );
        runtime.close().await.unwrap();
    }
}
