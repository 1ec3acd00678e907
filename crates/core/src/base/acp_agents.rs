//! The ACP agents and what each says it can do (`forkhost agents`): the shipped ones
//! (Gemini CLI, OpenCode), the ones a user added (`agents add`, kept in the store), and one a
//! user names by its command for a single look, each started once and asked (`initialize`),
//! side by side. An agent that is not installed, fails or speaks another protocol is listed
//! with its error's code and words, never left out.

use std::path::PathBuf;

use forkhost_harness::acp::{self, AgentCommand, AgentProbe, PROBE_LIMIT};
use serde::Serialize;

use crate::base::error::{ErrorCode, HostError, HostResult};
use crate::host::Host;

/// One agent's row of the matrix.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct AgentReport {
    pub agent: AgentCommand,
    /// The program run (its variable's, else the command's).
    pub program: String,
    /// What it answered; `None` when it could not be asked (`error` says why).
    pub probe: Option<AgentProbe>,
    pub error: Option<AgentError>,
}

#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct AgentError {
    pub code: ErrorCode,
    pub message: String,
}

impl Host {
    /// Every shipped ACP agent, and `extra` (a user's command) when given, asked what it can
    /// do — in an empty folder of the data folder's, so that no project's agent config is
    /// read by a probe.
    pub async fn acp_agents(&self, extra: Option<AgentCommand>) -> Vec<AgentReport> {
        let mut agents = acp::shipped();
        match self.added_acp_agents().await {
            Ok(added) => agents.extend(added),
            Err(err) => tracing::warn!(code = err.code(), "the added agents could not be read"),
        }
        agents.extend(extra);
        let env = self.inner.harness_env.clone();
        let cwd = self.data_dir().join("agent-probe");
        if std::fs::create_dir_all(&cwd).is_err() {
            tracing::warn!("the agents' probe folder could not be made; asking in the data folder");
        }
        // Side by side: a slow agent's start does not hold the others'.
        let asked: Vec<_> = agents
            .into_iter()
            .map(|agent| {
                let (env, cwd) = (env.clone(), cwd.clone());
                tokio::spawn(async move { report(agent, &env, cwd).await })
            })
            .collect();
        let mut reports = Vec::new();
        for one in asked {
            if let Ok(report) = one.await {
                reports.push(report);
            }
        }
        reports
    }

    /// The agents a user added, by name.
    pub async fn added_acp_agents(&self) -> HostResult<Vec<AgentCommand>> {
        let rows = self.store().acp_agents().await?;
        let mut agents = Vec::with_capacity(rows.len());
        for row in rows {
            let command: Vec<String> = serde_json::from_str(&row.command)
                .map_err(|e| HostError::Internal(format!("agent {}: {e}", row.name)))?;
            agents.push(AgentCommand::custom(&row.name, &command)?);
        }
        Ok(agents)
    }

    /// Adds the ACP agent `name`, started by `command` (a program and its arguments), or
    /// changes its command. A shipped agent's name is taken (`conflict`); a name or command
    /// Forkhost would not run is `invalid_input`. Nothing is started here: `forkhost agents`
    /// asks it what it can do.
    pub async fn add_acp_agent(&self, name: &str, command: &[String]) -> HostResult<AgentCommand> {
        if acp::shipped().iter().any(|a| a.name == name) {
            return Err(HostError::Conflict(format!(
                "{name} is one of the agents Forkhost ships; add yours under another name"
            )));
        }
        let agent = AgentCommand::custom(name, command)?;
        let stored =
            serde_json::to_string(command).map_err(|e| HostError::Internal(e.to_string()))?;
        self.store().put_acp_agent(name, &stored).await?;
        tracing::info!(agent = %name, "acp agent added");
        Ok(agent)
    }

    /// [`Host::add_acp_agent`] with the command as a user typed it (Settings ▸ Agents):
    /// split into words as a POSIX shell would, quotes kept together, nothing expanded.
    pub async fn add_acp_agent_line(&self, name: &str, line: &str) -> HostResult<AgentCommand> {
        let words = shlex::split(line)
            .filter(|w| !w.is_empty())
            .ok_or_else(|| {
                HostError::InvalidInput(format!(
                    "{line:?} is not a command: a program and its arguments, quoted as in a shell"
                ))
            })?;
        self.add_acp_agent(name.trim(), &words).await
    }

    /// Forgets the added agent `name` (its sessions are the agent's and stay where they are).
    pub async fn remove_acp_agent(&self, name: &str) -> HostResult<()> {
        match self.store().remove_acp_agent(name).await? {
            true => Ok(()),
            false => Err(HostError::InvalidInput(format!(
                "no added agent is called {name:?}"
            ))),
        }
    }
}

async fn report(agent: AgentCommand, env: &[(String, String)], cwd: PathBuf) -> AgentReport {
    let lookup = |name: &str| {
        env.iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(name).ok())
    };
    let program = agent.program_from(lookup);
    let asked = acp::probe(&agent, program.as_ref(), &cwd, env, PROBE_LIMIT).await;
    let (probe, error) = match asked {
        Ok(probe) => (Some(probe), None),
        Err(err) => {
            let err = HostError::from(err);
            let error = AgentError {
                code: err.error_code(),
                message: err.to_string(),
            };
            (None, Some(error))
        }
    };
    AgentReport {
        agent,
        program,
        probe,
        error,
    }
}
