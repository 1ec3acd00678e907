//! `forkhost hosts`: the remote hosts this machine knows by name (docs/architecture.md "Remote
//! hosts") — listed, added or changed, removed. What ssh needs beyond the destination (keys,
//! jumps, agents) stays in the user's `~/.ssh/config`; options given after `--` are kept for
//! this host alone.

use forkhost_core::{Host, HostError, RemoteHostSpec, RemoteHostView};

use crate::output::Printed;

#[derive(Debug, clap::Args)]
pub struct HostsArgs {
    #[command(subcommand)]
    action: Option<HostsAction>,
}

#[derive(Debug, clap::Subcommand)]
enum HostsAction {
    /// Add (or change) the remote host NAME: DESTINATION is a ~/.ssh/config host, user@host or
    /// ssh://user@host:port; extra ssh options follow `--`.
    Add {
        name: String,
        destination: String,
        /// The forkhost program on the remote, when it is not `forkhost` on its PATH.
        #[arg(long, value_name = "PATH")]
        forkhost: Option<String>,
        #[arg(last = true, value_name = "SSH_OPTION")]
        ssh_options: Vec<String>,
    },
    /// Forget the remote host NAME (its threads on the remote stay there).
    Remove { name: String },
    /// Copy this forkhost to the remote host NAME (done on its own the first time a host has
    /// none; by hand for a remote of another version).
    Install { name: String },
}

pub async fn hosts(host: &Host, args: HostsArgs) -> Result<Printed, HostError> {
    match args.action {
        None => {
            let hosts = host.remote_hosts().await?;
            let text = match hosts.is_empty() {
                true => "no remote hosts (add one: forkhost hosts add NAME DESTINATION)".to_owned(),
                false => hosts.iter().map(line).collect::<Vec<_>>().join("\n"),
            };
            Ok(Printed::new(serde_json::json!({ "hosts": hosts }), text))
        }
        Some(HostsAction::Add {
            name,
            destination,
            forkhost,
            ssh_options,
        }) => {
            let added = host
                .add_remote_host(RemoteHostSpec {
                    name,
                    destination,
                    ssh_options,
                    remote_program: forkhost,
                })
                .await?;
            let text = line(&added);
            Ok(Printed::new(serde_json::json!({ "host": added }), text))
        }
        Some(HostsAction::Install { name }) => {
            let remote = host.remote_host(&name).await?;
            // By hand: over what the host had, even a path the user gave.
            let remote = RemoteHostView {
                remote_program: None,
                ..remote
            };
            let installed = crate::install::install(host, &remote).await?;
            let text = format!(
                "installed forkhost {} on {}: {}",
                forkhost_core::VERSION,
                installed.name,
                installed.remote_program.as_deref().unwrap_or("")
            );
            Ok(Printed::new(serde_json::json!({ "host": installed }), text))
        }
        Some(HostsAction::Remove { name }) => {
            host.remove_remote_host(&name).await?;
            Ok(Printed::new(
                serde_json::json!({ "removed": name }),
                format!("removed {name}"),
            ))
        }
    }
}

fn line(host: &RemoteHostView) -> String {
    let mut out = format!("{:<12} {}", host.name, host.destination);
    if !host.ssh_options.is_empty() {
        out.push_str(&format!("  [{}]", host.ssh_options.join(" ")));
    }
    if let Some(program) = &host.remote_program {
        out.push_str(&format!("  forkhost: {program}"));
    }
    out
}
