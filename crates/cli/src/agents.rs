//! `forkhost agents`: the Agent Client Protocol agents and what each says it can do — the
//! shipped ones (Gemini CLI, OpenCode) and, with `--probe NAME -- COMMAND ARGS…`, any other —
//! each started once and asked (`initialize`), never assumed (docs/architecture.md "ACP
//! agents").

use forkhost_core::{AgentCommand, AgentReport, Host, HostError};

use crate::output::Printed;

#[derive(Debug, clap::Args)]
pub struct AgentsArgs {
    /// Also ask the agent run by the command after `--`, under this name.
    #[arg(long, value_name = "NAME", requires = "command")]
    probe: Option<String>,
    /// The agent's command and its arguments (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

pub async fn agents(host: &Host, args: AgentsArgs) -> Result<Printed, HostError> {
    let extra = match &args.probe {
        Some(name) => Some(AgentCommand::custom(name, &args.command).map_err(HostError::from)?),
        None => None,
    };
    let reports = host.acp_agents(extra).await;
    let text = table(&reports);
    Ok(Printed::new(serde_json::json!({ "agents": reports }), text))
}

/// One line per agent: its version and yes/no per capability, or why it could not be asked.
fn table(reports: &[AgentReport]) -> String {
    let mut out = format!(
        "{:<10} {:<12} {:<5} {:<5} {:<5} {:<6} {}\n",
        "AGENT", "VERSION", "LOAD", "FORK", "LIST", "DELETE", "SIGN-IN"
    );
    let yes = |b: bool| if b { "yes" } else { "no" };
    for report in reports {
        let name = &report.agent.name;
        match (&report.probe, &report.error) {
            (Some(p), _) => out.push_str(&format!(
                "{:<10} {:<12} {:<5} {:<5} {:<5} {:<6} {}\n",
                name,
                p.agent_version.as_deref().unwrap_or("?"),
                yes(p.load),
                yes(p.fork),
                yes(p.list),
                yes(p.delete),
                match p.auth_methods.is_empty() {
                    true => "-".to_owned(),
                    false => p.auth_methods.join(", "),
                }
            )),
            (None, Some(err)) => out.push_str(&format!(
                "{name:<10} {}: {}\n",
                err.code.as_str(),
                err.message.lines().next().unwrap_or_default()
            )),
            (None, None) => {}
        }
    }
    out
}
