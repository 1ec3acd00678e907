//! What starting an ACP agent and greeting it share, for the probe and for a running agent:
//! the protocol version, what is read of `initialize`'s answer, and a start's faults in words.

use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use super::AgentCommand;
use crate::error::HarnessError;

/// The ACP protocol version Forkhost speaks.
pub(super) const PROTOCOL_VERSION: u64 = 1;

/// `initialize`'s answer: only what is read; anything else, or a field of another shape, is
/// left out rather than refused (agents add fields between versions).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct Initialized {
    pub protocol_version: u64,
    pub agent_capabilities: Capabilities,
    pub auth_methods: Vec<Value>,
    pub agent_info: Option<AgentInfo>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub(super) struct Capabilities {
    pub load_session: bool,
    pub prompt_capabilities: PromptCapabilities,
    pub session_capabilities: serde_json::Map<String, Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct PromptCapabilities {
    pub image: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct AgentInfo {
    pub name: String,
    pub version: String,
}

/// An agent's failure, named as users know it, with its stderr tail.
pub(crate) fn failed(product: &str, message: String, stderr_tail: String) -> HarnessError {
    HarnessError::AgentFailed {
        agent: product.to_owned(),
        message,
        stderr_tail,
    }
}

/// Starts `agent` (as `program`, in `cwd`, with its own variables and `env` added) in a
/// process group of its own, stdio piped; a start that fails is said in words.
pub(super) fn spawn(
    agent: &AgentCommand,
    program: &Path,
    cwd: &Path,
    env: &[(String, String)],
) -> crate::HarnessResult<crate::process::Spawned> {
    let mut command = crate::process::HarnessCommand::new(program);
    command
        .args(&agent.args)
        .cwd(cwd)
        .envs(&agent.env)
        .envs(env);
    command
        .spawn()
        .map_err(|err| spawn_error(agent, program, err))
}

/// Why an agent could not be started, in words: not installed (with how to install it), or
/// another reason.
fn spawn_error(agent: &AgentCommand, program: &Path, err: std::io::Error) -> HarnessError {
    match err.kind() {
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
        _ => failed(
            &agent.product_name,
            format!("could not start: {err}"),
            String::new(),
        ),
    }
}
