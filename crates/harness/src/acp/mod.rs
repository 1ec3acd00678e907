//! Agents that speak the Agent Client Protocol (docs/architecture.md "ACP agents"). An agent
//! is a command line, as in Zed's `agent_servers`: Forkhost ships two ([`shipped`]: Gemini
//! CLI, OpenCode) and takes any other as a command. What each can do is asked, never assumed: [`probe`] starts it, says
//! `initialize`, and reads its capabilities (load, fork, list, delete, auth) from its answer.
//!
//! Layers: the agents and what they say they can do ([`probe`], `forkhost agents`); one
//! running agent (`agent`: start, `initialize`, sessions; `wire`: the JSON-RPC framing;
//! `updates`: what `session/update` means, live and replayed; `permission`: its requests on
//! the approval card); a session as a live runtime with a snapshot after each turn
//! ([`AcpRuntime`]); and forks at a turn and histories read back, each in a process of its own
//! ([`AgentSessions`]); OpenCode's sessions read straight from its own database
//! ([`opencode_db`], equal to its replay and much faster). OpenCode is a harness kind of the
//! Host ([`Opencode`]: the registry maps `HarnessKind::Opencode` to it).

mod agent;
mod fork;
pub mod gemini_chat;
mod handshake;
mod opencode;
pub mod opencode_db;
pub mod opencode_reader;
mod permission;
mod probe;
mod runtime;
mod spare;
mod updates;
mod wire;

use serde::Serialize;

pub use fork::AgentSessions;
pub use opencode::Opencode;
pub use probe::{probe, AgentProbe, PROBE_LIMIT};
pub use runtime::{AcpRuntime, AcpTarget};

/// An ACP agent as a command line: the program (a name found on PATH, or a path), its
/// arguments and extra environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AgentCommand {
    /// Its id (`gemini`, `opencode`, or the name a user gave it).
    pub name: String,
    /// The name users know it by ("Gemini CLI").
    pub product_name: String,
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// The variable naming its binary over PATH's (`FORKHOST_GEMINI_BIN`), for a shipped one.
    pub bin_env: Option<String>,
    /// How to install it, for a shipped one.
    pub install: Option<String>,
}

/// The agents Forkhost ships entries for. Gemini CLI takes `--acp` (`--experimental-acp`
/// before 0.30); OpenCode `acp`.
pub fn shipped() -> Vec<AgentCommand> {
    vec![
        AgentCommand {
            name: "gemini".into(),
            product_name: "Gemini CLI".into(),
            program: "gemini".into(),
            args: vec!["--acp".into()],
            env: Vec::new(),
            bin_env: Some("FORKHOST_GEMINI_BIN".into()),
            install: Some("npm install -g @google/gemini-cli".into()),
        },
        AgentCommand {
            name: "opencode".into(),
            product_name: "OpenCode".into(),
            program: "opencode".into(),
            args: vec!["acp".into()],
            env: Vec::new(),
            bin_env: Some("FORKHOST_OPENCODE_BIN".into()),
            install: Some("npm install -g opencode-ai".into()),
        },
    ]
}

impl AgentCommand {
    /// A user's agent: `COMMAND ARGS…` under `name`. The command must name a program (not an
    /// option) and the name be a plain word, as it is shown and stored.
    pub fn custom(name: &str, command: &[String]) -> crate::HarnessResult<AgentCommand> {
        let plain = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        let Some((program, args)) = command.split_first() else {
            return Err(crate::HarnessError::InvalidInput(
                "an agent needs a command: NAME -- COMMAND ARGS…".into(),
            ));
        };
        if !plain || program.is_empty() || program.starts_with('-') {
            return Err(crate::HarnessError::InvalidInput(format!(
                "an agent is a plain name and a program to run, not {name:?} {program:?}"
            )));
        }
        Ok(AgentCommand {
            name: name.to_owned(),
            product_name: name.to_owned(),
            program: program.clone(),
            args: args.to_vec(),
            env: Vec::new(),
            bin_env: None,
            install: None,
        })
    }

    /// The program to run: its variable's path when set, else the command's program.
    pub fn program_from(&self, env: impl Fn(&str) -> Option<String>) -> String {
        self.bin_env
            .as_deref()
            .and_then(env)
            .filter(|p| !p.trim().is_empty())
            .unwrap_or_else(|| self.program.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_agents_run_their_acp_mode_and_a_variable_overrides_the_program() {
        let agents = shipped();
        let names: Vec<_> = agents.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["gemini", "opencode"]);
        assert_eq!(agents[0].args, ["--acp"]);
        assert_eq!(agents[1].args, ["acp"]);
        let bin = |v: &str| (v == "FORKHOST_GEMINI_BIN").then(|| "/opt/gemini".to_owned());
        assert_eq!(agents[0].program_from(bin), "/opt/gemini");
        assert_eq!(agents[1].program_from(bin), "opencode");
    }

    #[test]
    fn a_users_agent_is_a_plain_name_and_a_program() {
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let agent = AgentCommand::custom("qwen", &words(&["qwen", "--acp"])).unwrap();
        assert_eq!(
            (agent.program.as_str(), agent.args.as_slice()),
            ("qwen", &words(&["--acp"])[..])
        );
        for (name, command) in [
            ("qwen", words(&[])),
            ("a b", words(&["qwen"])),
            ("qwen", words(&["-oProxyCommand=x"])),
            ("", words(&["qwen"])),
        ] {
            assert!(
                AgentCommand::custom(name, &command).is_err(),
                "{name:?} {command:?}"
            );
        }
    }
}
