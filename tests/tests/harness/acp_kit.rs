//! What the real ACP agents' tests share (`acp_opencode`, `acp_gemini`): a shipped agent's
//! entry, a session opened through Forkhost's ACP runtime with its events, and one turn read to
//! its end with its approval requests answered as the test says.

use std::path::Path;
use std::time::Duration;

use forkhost_harness::acp::{shipped, AcpRuntime, AcpTarget, AgentCommand};
use forkhost_harness::contract::{
    Answer, ApprovalDecision, ApprovalRequest, RuntimeEvent, TurnOutcome, TurnUsage,
};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

/// A turn may take this long (OpenCode's first prompt adds a title request; Gemini CLI's
/// first start in a HOME is slow).
pub const TURN_LIMIT: Duration = Duration::from_secs(120);

/// The shipped agent `name` (`opencode`, `gemini`).
pub fn agent(name: &str) -> AgentCommand {
    shipped()
        .into_iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("{name} is shipped"))
}

/// A session open in its agent, and the runtime's events.
pub struct Opened {
    pub runtime: AcpRuntime,
    pub events: UnboundedReceiver<RuntimeEvent>,
}

/// Opens `target` in the shipped agent `name` run as `bin` with `vars`; prints how long the
/// process start, `initialize` and the session's open took.
pub async fn open(name: &str, bin: &Path, vars: &[(String, String)], target: AcpTarget) -> Opened {
    let (tx, events) = unbounded_channel();
    let started = std::time::Instant::now();
    let runtime = AcpRuntime::open(&agent(name), bin, target, vars, tx)
        .await
        .unwrap_or_else(|e| panic!("{name} opens the session: {e}"));
    eprintln!(
        "{name}: process start, initialize and session open {} ms",
        started.elapsed().as_millis()
    );
    Opened { runtime, events }
}

pub fn new_in(dir: &Path) -> AcpTarget {
    AcpTarget::New {
        cwd: dir.to_path_buf(),
    }
}

pub fn resume(id: &str, dir: &Path) -> AcpTarget {
    AcpTarget::Resume {
        session_id: id.to_owned(),
        cwd: dir.to_path_buf(),
    }
}

/// What one turn produced.
#[derive(Debug)]
pub struct Turned {
    pub text: String,
    pub checkpoint: Option<String>,
    pub outcome: TurnOutcome,
    pub usage: Option<TurnUsage>,
    pub asked: Vec<ApprovalRequest>,
    pub tool_errors: Vec<bool>,
}

/// Sends `prompt` and reads the turn to its end, answering each approval request with the
/// next of `answers` (a request beyond them fails the test: it was not expected).
pub async fn turn(opened: &mut Opened, prompt: &str, answers: &[ApprovalDecision]) -> Turned {
    opened.runtime.send(prompt).await.expect("the turn starts");
    let mut turned = Turned {
        text: String::new(),
        checkpoint: None,
        outcome: TurnOutcome::Completed,
        usage: None,
        asked: Vec::new(),
        tool_errors: Vec::new(),
    };
    loop {
        let event = tokio::time::timeout(TURN_LIMIT, opened.events.recv())
            .await
            .unwrap_or_else(|_| panic!("no end of the turn {prompt:?} in time: {turned:?}"))
            .expect("the runtime's events go on");
        match event {
            RuntimeEvent::TextDelta { text } => turned.text.push_str(&text),
            RuntimeEvent::ToolResult { is_error, .. } => turned.tool_errors.push(is_error),
            RuntimeEvent::ApprovalRequested { request, reply } => {
                let decision = *answers.get(turned.asked.len()).unwrap_or_else(|| {
                    panic!("an approval nobody expected for {prompt:?}: {request:?}")
                });
                turned.asked.push(request);
                reply
                    .send(Answer::Decision(decision))
                    .await
                    .expect("the answer is written");
            }
            RuntimeEvent::TurnEnded {
                native_checkpoint_ref,
                outcome,
                usage,
                ..
            } => {
                turned.checkpoint = native_checkpoint_ref;
                turned.outcome = outcome;
                turned.usage = usage;
                return turned;
            }
            RuntimeEvent::Exited { error } => panic!("the agent exited mid-turn: {error:?}"),
            _ => {}
        }
    }
}
