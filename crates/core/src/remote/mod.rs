//! Remote hosts (docs/architecture.md "Remote hosts"): machines the user reaches over SSH,
//! named once (`forkhost hosts add NAME DEST`) and then used by name. SSH is the system's
//! OpenSSH client, run as the user set it up — `~/.ssh/config`, `ProxyJump`, ssh-agent,
//! hardware keys and `known_hosts` behave as in a terminal — and Forkhost keeps no password,
//! key or host key: only the name, the destination and extra ssh options
//! ([`ssh`], [`host_key`]).
//!
//! Calls: the base.

mod address;
pub(crate) mod host_key;
mod install;
pub(crate) mod ssh;

use forkhost_store::queries::remote_hosts::RemoteHostRow;
use serde::Serialize;

use crate::base::error::{HostError, HostResult};
use crate::host::Host;
pub use address::{remote_thread_id, ThreadAddress};
pub use install::{cli_archives_folder, ProgramSource, RemoteSystem, CLI_ARCHIVES_ENV};
pub use ssh::{RemoteCommand, SSH_FAILED};

/// The name that always means this machine (`--to-host local`, `--host local`).
pub const LOCAL_HOST: &str = "local";

/// A remote host as the user added it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct RemoteHostView {
    pub name: String,
    /// What ssh is given: a `~/.ssh/config` host, `user@host` or `ssh://user@host:port`.
    pub destination: String,
    /// Extra ssh arguments for this host.
    pub ssh_options: Vec<String>,
    /// The forkhost program on the remote, when not `forkhost` on its PATH.
    pub remote_program: Option<String>,
}

/// What `hosts add` takes.
#[derive(Debug, Clone, Default)]
pub struct RemoteHostSpec {
    pub name: String,
    pub destination: String,
    pub ssh_options: Vec<String>,
    pub remote_program: Option<String>,
}

impl Host {
    /// Every remote host, by name.
    pub async fn remote_hosts(&self) -> HostResult<Vec<RemoteHostView>> {
        let rows = self.store().remote_hosts().await?;
        rows.into_iter().map(view_of).collect()
    }

    /// The remote host `name`, or `invalid_input` naming the hosts there are.
    pub async fn remote_host(&self, name: &str) -> HostResult<RemoteHostView> {
        match self.store().remote_host(name).await? {
            Some(row) => view_of(row),
            None => {
                let known: Vec<String> = self
                    .store()
                    .remote_hosts()
                    .await?
                    .into_iter()
                    .map(|r| r.name)
                    .collect();
                Err(HostError::InvalidInput(format!(
                    "no remote host is called {name:?} ({}); add it with `forkhost hosts add {name} DESTINATION`",
                    match known.is_empty() {
                        true => "none is added yet".to_owned(),
                        false => format!("known: {}", known.join(", ")),
                    }
                )))
            }
        }
    }

    /// Adds (or changes) a remote host, its input checked: nothing reaches `ssh` that it
    /// could read as an option where a destination belongs.
    pub async fn add_remote_host(&self, spec: RemoteHostSpec) -> HostResult<RemoteHostView> {
        checked_name(&spec.name)?;
        ssh::checked_destination(&spec.destination)?;
        for option in &spec.ssh_options {
            ssh::checked_option(option)?;
        }
        if let Some(program) = &spec.remote_program {
            ssh::checked_program(program)?;
        }
        let row = RemoteHostRow {
            name: spec.name.clone(),
            destination: spec.destination,
            ssh_options: serde_json::to_string(&spec.ssh_options)
                .map_err(|e| HostError::Internal(e.to_string()))?,
            remote_program: spec.remote_program,
            added_at: 0,
        };
        self.store().put_remote_host(&row).await?;
        self.remote_host(&spec.name).await
    }

    /// Forgets a remote host (its threads on the remote are not touched).
    pub async fn remove_remote_host(&self, name: &str) -> HostResult<()> {
        match self.store().remove_remote_host(name).await? {
            true => Ok(()),
            false => Err(HostError::InvalidInput(format!(
                "no remote host is called {name:?}"
            ))),
        }
    }
}

/// The forkhost version a client and a remote must share (the wire between them is this
/// build's command line and output).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The hidden subcommand a client runs on the remote: it checks the versions, then runs the
/// rest of its arguments as `forkhost` would.
pub const REMOTE_EXEC: &str = "remote-exec";

impl RemoteHostView {
    /// The ssh invocation that runs `forkhost ARGS` on this host, through `remote-exec` (which
    /// refuses in words when the two versions differ). `tty`: the command may ask the user.
    pub fn command(&self, args: &[String], tty: bool) -> HostResult<RemoteCommand> {
        let program = self.remote_program.as_deref().unwrap_or("forkhost");
        let mut argv = vec![
            program.to_owned(),
            REMOTE_EXEC.to_owned(),
            "--client-version".to_owned(),
            VERSION.to_owned(),
            "--".to_owned(),
        ];
        argv.extend(args.iter().cloned());
        ssh::invocation(&self.destination, &self.ssh_options, &argv, tty)
    }

    /// What ssh's own failure (it exited with [`ssh::SSH_FAILED`]) means, in words; a refused
    /// host key is named by its fingerprint, scanned now. Blocking.
    pub fn failure(&self, stderr: &str) -> HostError {
        let key_refused = stderr.contains("Host key verification failed");
        let fingerprint = key_refused
            .then(|| host_key::offered_fingerprint(&self.destination, &self.ssh_options))
            .flatten();
        ssh::failure(&self.name, stderr, fingerprint.as_deref())
    }
}

/// The words for a remote whose forkhost is another version than this one's.
pub fn version_mismatch(client: &str) -> HostError {
    HostError::VersionMismatch(format!(
        "this machine runs forkhost {client} and the remote runs {VERSION}; install forkhost \
         {client} on the remote (or the same version on both)"
    ))
}

fn view_of(row: RemoteHostRow) -> HostResult<RemoteHostView> {
    let ssh_options: Vec<String> = serde_json::from_str(&row.ssh_options)
        .map_err(|e| HostError::Internal(format!("host {}: {e}", row.name)))?;
    Ok(RemoteHostView {
        name: row.name,
        destination: row.destination,
        ssh_options,
        remote_program: row.remote_program,
    })
}

/// A host's name: letters, digits, `-`, `_` and `.`, at most 64, and not `local`.
fn checked_name(name: &str) -> HostResult<()> {
    let plain = !name.is_empty()
        && name.len() <= 64
        && !name.starts_with(['-', '.'])
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !plain {
        return Err(HostError::InvalidInput(format!(
            "a host's name is letters, digits, '-', '_' and '.' (at most 64), not {name:?}"
        )));
    }
    if name == LOCAL_HOST {
        return Err(HostError::InvalidInput(
            "\"local\" always means this machine; pick another name".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_plain_words_and_local_is_taken() {
        for good in ["box", "gpu-1", "dev.box", "a_b"] {
            assert!(checked_name(good).is_ok(), "{good}");
        }
        for bad in ["", "-o", ".x", "a b", "a/b", "local", &"x".repeat(65), "é"] {
            assert!(checked_name(bad).is_err(), "{bad:?}");
        }
    }

    #[tokio::test]
    async fn hosts_are_added_listed_changed_and_removed() {
        let data = tempfile::tempdir().unwrap();
        let (host, _) = Host::open(data.path()).await.unwrap();
        assert!(host.remote_hosts().await.unwrap().is_empty());
        let added = host
            .add_remote_host(RemoteHostSpec {
                name: "box".into(),
                destination: "me@box.example".into(),
                ssh_options: vec!["-p".into(), "2222".into()],
                remote_program: None,
            })
            .await
            .unwrap();
        assert_eq!(added.ssh_options, ["-p", "2222"]);
        let changed = host
            .add_remote_host(RemoteHostSpec {
                name: "box".into(),
                destination: "ssh://me@box.example:2200".into(),
                ..Default::default()
            })
            .await
            .unwrap();
        assert_eq!(host.remote_hosts().await.unwrap(), vec![changed]);
        let refused = host
            .add_remote_host(RemoteHostSpec {
                name: "evil".into(),
                destination: "-oProxyCommand=touch /tmp/x".into(),
                ..Default::default()
            })
            .await;
        assert_eq!(refused.unwrap_err().code(), "invalid_input");
        let missing = host.remote_host("nope").await.unwrap_err();
        assert!(missing.to_string().contains("known: box"), "{missing}");
        host.remove_remote_host("box").await.unwrap();
        assert!(host.remote_hosts().await.unwrap().is_empty());
        assert_eq!(
            host.remove_remote_host("box").await.unwrap_err().code(),
            "invalid_input"
        );
    }
}
