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
