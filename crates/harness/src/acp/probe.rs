//! What an ACP agent says it can do: started in a process group of its own, greeted with
//! `initialize` (protocol v1, Forkhost's name and version, no client file system or terminal
//! offered), its answer read into [`AgentProbe`], then stopped with its group. Bounded by a
//! limit: an agent that hangs is killed and said to hang, never waited on.
//!
//! The exchange is one JSON-RPC request written here, not through the protocol's reference SDK
//! (`agent-client-protocol`): the SDK and its schema crate turn on serde_json's
//! `preserve_order`, which Cargo then turns on for the whole workspace, changing the key order
//! of every JSON document Forkhost writes (a carried Claude Code session's tool inputs among
//! them). Adopting the SDK for sessions is that decision, taken with the whole suite re-run.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::handshake::{failed, spawn, Initialized, PROTOCOL_VERSION};
use super::AgentCommand;
use crate::error::{HarnessError, HarnessResult};

/// How long an agent may take to answer `initialize` (Gemini CLI's first start is reported
/// near 12 s cold).
pub const PROBE_LIMIT: Duration = Duration::from_secs(60);

/// An agent's answer to `initialize`, as Forkhost reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AgentProbe {
    pub name: String,
    /// What the agent calls itself (`agentInfo`), when it says.
    pub agent_name: Option<String>,
    pub agent_version: Option<String>,
    /// The protocol version it answered with.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub protocol_version: u64,
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
    #[cfg_attr(feature = "ts", ts(type = "number"))]
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
    let spawned = spawn(agent, program, cwd, env)?;
    let crate::process::Spawned {
        mut child,
        tree,
        stderr,
    } = spawned;
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        tree.kill();
        return Err(failed(
            &agent.product_name,
            "started without pipes".into(),
            String::new(),
        ));
    };
    let answered = tokio::time::timeout(limit, initialize(stdin, stdout)).await;
    tree.kill();
    let _ = child.wait().await;
    let said = stderr.text();
    let answer = match answered {
        Err(_) => {
            return Err(failed(
                &agent.product_name,
                format!("did not answer `initialize` within {} s", limit.as_secs()),
                said,
            ))
        }
        Ok(Err(why)) => {
            return Err(failed(
                &agent.product_name,
                format!("did not speak the Agent Client Protocol: {why}"),
                said,
            ))
        }
        Ok(Ok(answer)) => answer,
    };
    if answer.protocol_version != PROTOCOL_VERSION {
        return Err(HarnessError::Unsupported(format!(
            "{} speaks another ACP protocol version ({}); Forkhost speaks version \
             {PROTOCOL_VERSION}",
            agent.product_name, answer.protocol_version
        )));
    }
    let caps = &answer.agent_capabilities;
    let session = |name: &str| {
        caps.session_capabilities
            .get(name)
            .is_some_and(|v| !v.is_null())
    };
    Ok(AgentProbe {
        name: agent.name.clone(),
        agent_name: answer.agent_info.as_ref().map(|i| i.name.clone()),
        agent_version: answer.agent_info.as_ref().map(|i| i.version.clone()),
        protocol_version: answer.protocol_version,
        load: caps.load_session,
        fork: session("fork"),
        list: session("list"),
        delete: session("delete"),
        images: caps.prompt_capabilities.image,
        auth_methods: answer
            .auth_methods
            .iter()
            .filter_map(|m| m["id"].as_str().map(str::to_owned))
            .collect(),
        ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
    })
}

/// Writes `initialize` and reads lines until its answer: a notification meanwhile is passed
/// over; a line that is no JSON, an error answer or the end of the output is why it failed.
async fn initialize(
    mut stdin: tokio::process::ChildStdin,
    stdout: tokio::process::ChildStdout,
) -> Result<Initialized, String> {
    let request = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": {
                "fs": {"readTextFile": false, "writeTextFile": false},
                "terminal": false,
            },
            "clientInfo": {"name": "forkhost", "version": env!("CARGO_PKG_VERSION")},
        },
    });
    let line = format!("{request}\n");
    stdin
        .write_all(line.as_bytes())
        .await
        .map_err(|e| format!("its stdin closed ({e})"))?;
    stdin
        .flush()
        .await
        .map_err(|e| format!("its stdin closed ({e})"))?;
    let mut lines = BufReader::new(stdout).lines();
    loop {
        let Some(line) = lines.next_line().await.map_err(|e| e.to_string())? else {
            return Err("it ended without answering".into());
        };
        if line.trim().is_empty() {
            continue;
        }
        let message: Value = serde_json::from_str(&line)
            .map_err(|_| format!("it wrote a line that is no JSON-RPC: {:.120}", line))?;
        if message["id"] != 1 {
            continue;
        }
        if let Some(error) = message.get("error") {
            return Err(format!("it refused `initialize`: {error}"));
        }
        return serde_json::from_value(message["result"].clone())
            .map_err(|e| format!("its answer could not be read: {e}"));
    }
}
