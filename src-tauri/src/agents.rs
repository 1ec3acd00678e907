//! Settings ▸ Agents (docs/architecture.md "ACP agents"): the Agent Client Protocol agents —
//! the shipped ones and those the user added — each started once and asked what it can do;
//! adding one by its command line, and forgetting an added one. Each calls one Host method.

use forkhost_core::{AgentCommand, AgentReport};
use tauri::State;

use crate::error::CmdResult;
use crate::state::AppState;

/// Every ACP agent and what it answered (an agent that is missing or fails is listed with
/// its error's code and words).
#[tauri::command(rename_all = "snake_case")]
pub async fn acp_agents(state: State<'_, AppState>) -> CmdResult<Vec<AgentReport>> {
    Ok(state.host.acp_agents(None).await)
}

/// Keeps the agent `name`, started by `command` (a command line, split as a shell would; a
/// shipped name is `conflict`, a name or program Forkhost would not run `invalid_input`).
#[tauri::command(rename_all = "snake_case")]
pub async fn add_acp_agent(
    state: State<'_, AppState>,
    name: String,
    command: String,
) -> CmdResult<AgentCommand> {
    Ok(state.host.add_acp_agent_line(&name, &command).await?)
}

/// Forgets the added agent `name` (its sessions stay the agent's).
#[tauri::command(rename_all = "snake_case")]
pub async fn remove_acp_agent(state: State<'_, AppState>, name: String) -> CmdResult<()> {
    Ok(state.host.remove_acp_agent(name.trim()).await?)
}
