//! What an ACP agent says it can do: started in a process group of its own, greeted with
//! `initialize` (protocol v1, Forkhost's name and version, no client file system or terminal
//! offered), its answer read into [`AgentProbe`], then stopped with its group. Bounded by a
//! limit: an agent that hangs is killed and said to hang, never waited on.

use std::path::Path;
use std::time::{Duration, Instant};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{AuthMethod, Implementation, InitializeRequest};
use agent_client_protocol::{ByteStreams, Client};
use serde::Serialize;
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

use super::AgentCommand;
use crate::error::{HarnessError, HarnessResult};
use crate::process::HarnessCommand;

/// How long an agent may take to answer `initialize` (Gemini CLI's first start is reported
/// near 12 s cold).
pub const PROBE_LIMIT: Duration = Duration::from_secs(60);

/// An agent's answer to `initialize`, as Forkhost reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AgentProbe {
    pub name: String,
    /// What the agent calls itself (`agentInfo`), when it says.
    pub agent_name: Option<String>,
    pub agent_version: Option<String>,
    /// The protocol version it answered with.
    pub protocol_version: String,
    /// `session/load`: its sessions can be opened again (their history replayed).
    pub load: bool,
    /// `session/fork` (unstable): a session can be copied at its head.
    pub fork: bool,
    /// `session/list`: its existing sessions can be listed (and adopted).
    pub list: bool,
    /// `session/delete`.
    pub delete: bool,
    /// Prompts may carry images.
    pub images: bool,
    /// How it signs in (`authenticate`'s methods), by id.
    pub auth_methods: Vec<String>,
    /// From start to its answer.
    pub ms: u64,
}

/// Starts `agent` (as `program`, in `cwd`, with `env` added) and asks what it can do.
pub async fn probe(
    agent: &AgentCommand,
    program: &Path,
    cwd: &Path,
    env: &[(String, String)],
    limit: Duration,
) -> HarnessResult<AgentProbe> {
    let started = Instant::now();
    let mut command = HarnessCommand::new(program);
    command
        .args(&agent.args)
        .cwd(cwd)
        .envs(&agent.env)
        .envs(env);
    let spawned = command.spawn().map_err(|err| match err.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
            HarnessError::AgentNotFound {
                agent: agent.product_name.clone(),
                detail: format!(
                    "{} could not run ({err}){}",
                    program.display(),
                    agent
                        .install
                        .as_ref()
                        .map(|i| format!("; install it with `{i}`"))
                        .unwrap_or_default()
                ),
            }
        }
        _ => failed(agent, format!("could not start: {err}"), String::new()),
    })?;
    let crate::process::Spawned {
        mut child,
        tree,
        stderr,
    } = spawned;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        tree.kill();
        return Err(failed(agent, "started without pipes".into(), String::new()));
    };
    let transport = ByteStreams::new(stdin.compat_write(), stdout.compat());
    let hello = InitializeRequest::new(ProtocolVersion::V1)
        .client_info(Implementation::new("forkhost", env!("CARGO_PKG_VERSION")));
    let asked = Client
        .v1()
        .name("forkhost")
        .connect_with(transport, async |cx| {
            cx.send_request(hello).block_task().await
        });
    let answered = tokio::time::timeout(limit, asked).await;
    tree.kill();
    let _ = child.wait().await;
    let said = stderr.text();
    let answer = match answered {
        Err(_) => {
            return Err(failed(
                agent,
                format!("did not answer `initialize` within {} s", limit.as_secs()),
                said,
            ))
        }
        // The SDK's v1 connection refuses a peer of another version itself.
        Ok(Err(err)) if err.to_string().contains("protocol version") => {
            return Err(HarnessError::Unsupported(format!(
                "{} speaks another ACP protocol version ({err}); Forkhost speaks version 1",
                agent.product_name
            )))
        }
        Ok(Err(err)) => {
            return Err(failed(
                agent,
                format!("did not speak the Agent Client Protocol: {err}"),
                said,
            ))
        }
        Ok(Ok(answer)) => answer,
    };
    if answer.protocol_version != ProtocolVersion::V1 {
        return Err(HarnessError::Unsupported(format!(
            "{} speaks ACP protocol version {}; Forkhost speaks version 1",
            agent.product_name, answer.protocol_version
        )));
    }
    let caps = &answer.agent_capabilities;
    let sessions = &caps.session_capabilities;
    Ok(AgentProbe {
        name: agent.name.clone(),
        agent_name: answer.agent_info.as_ref().map(|i| i.name.clone()),
        agent_version: answer.agent_info.as_ref().map(|i| i.version.clone()),
        protocol_version: answer.protocol_version.to_string(),
        load: caps.load_session,
        fork: sessions.fork.is_some(),
        list: sessions.list.is_some(),
        delete: sessions.delete.is_some(),
        images: caps.prompt_capabilities.image,
        auth_methods: answer.auth_methods.iter().map(method_id).collect(),
        ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

fn method_id(method: &AuthMethod) -> String {
    match method {
        AuthMethod::Terminal(m) => m.id.to_string(),
        AuthMethod::Agent(m) => m.id.to_string(),
        #[allow(unreachable_patterns)]
        _ => "other".to_owned(),
    }
}

fn failed(agent: &AgentCommand, message: String, stderr_tail: String) -> HarnessError {
    HarnessError::AgentFailed {
        agent: agent.product_name.clone(),
        message,
        stderr_tail,
    }
}
