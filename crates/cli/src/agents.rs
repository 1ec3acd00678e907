//! `forkhost agents`: the Agent Client Protocol agents and what each says it can do — the
//! shipped ones (Gemini CLI, OpenCode), the ones added with `agents add NAME -- COMMAND ARGS…`
//! and, with `--probe NAME -- COMMAND ARGS…`, any other once — each started and asked
//! (`initialize`), never assumed (docs/architecture.md "ACP agents"). `agents remove NAME`
//! forgets an added one.

use forkhost_core::{AgentCommand, AgentReport, Host, HostError};

use crate::output::Printed;

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct AgentsArgs {
    #[command(subcommand)]
    action: Option<AgentsAction>,
    /// Also ask the agent run by the command after `--`, under this name (once; nothing kept).
    #[arg(long, value_name = "NAME", requires = "command")]
    probe: Option<String>,
    /// The agent's command and its arguments (after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[derive(Debug, clap::Subcommand)]
enum AgentsAction {
    /// Add an ACP agent under NAME, started by the command after `--` (or change its command).
    Add {
        name: String,
        /// The agent's command and its arguments (after `--`).
        #[arg(last = true, required = true, value_name = "COMMAND")]
        command: Vec<String>,
    },
    /// Forget an added agent.
    Remove { name: String },
}

pub async fn agents(host: &Host, args: AgentsArgs) -> Result<Printed, HostError> {
    match args.action {
        Some(AgentsAction::Add { name, command }) => {
            let agent = host.add_acp_agent(&name, &command).await?;
            let text = format!(
                "added {} ({}); `forkhost agents` asks it what it can do\n",
                agent.name,
                command.join(" ")
            );
            return Ok(Printed::new(serde_json::json!({ "added": agent }), text));
        }
        Some(AgentsAction::Remove { name }) => {
            host.remove_acp_agent(&name).await?;
            return Ok(Printed::new(
                serde_json::json!({ "removed": name }),
                format!("removed {name}\n"),
            ));
        }
        None => {}
    }
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
