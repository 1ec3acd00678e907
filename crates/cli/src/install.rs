//! Install on connect (docs/architecture.md "Remote hosts"): a remote host with no forkhost
//! gets this one, copied over the same ssh, when it runs this build's OS and architecture (or
//! its system's CLI of this version from the release archives folder, `cli_archives_folder`);
//! `forkhost hosts install NAME` does it by hand (a remote of another version, say). The host
//! then remembers where it went.

use forkhost_core::{
    cli_archives_folder, Host, HostError, RemoteCommand, RemoteHostSpec, RemoteHostView,
    RemoteSystem, SSH_FAILED, VERSION,
};

/// Copies this forkhost to `remote` and records its path there; the host as it is now.
pub async fn install(host: &Host, remote: &RemoteHostView) -> Result<RemoteHostView, HostError> {
    let printed = captured(remote, remote.probe_command()?, Vec::new()).await?;
    let system = RemoteSystem::read(&printed)?;
    let source = system.program_source(&remote.name, cli_archives_folder().as_deref())?;
    let path = system.install_path();
    let program = source.read()?;
    eprintln!(
        "forkhost: installing forkhost {VERSION} on {} ({path}, {} MB)…",
        remote.name,
        program.len() / 1_000_000
    );
    captured(remote, remote.upload_command(&path)?, program).await?;
    host.add_remote_host(RemoteHostSpec {
        name: remote.name.clone(),
        destination: remote.destination.clone(),
        ssh_options: remote.ssh_options.clone(),
        remote_program: Some(path),
    })
    .await
}

/// Runs `command` with `input` on its stdin; what it printed, or why it failed in words.
async fn captured(
    remote: &RemoteHostView,
    command: RemoteCommand,
    input: Vec<u8>,
) -> Result<String, HostError> {
    let remote = remote.clone();
    tokio::task::spawn_blocking(move || {
        let out = crate::ssh_output::output_with_input(command.command(), input)?;
        let said = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
            Some(SSH_FAILED) => Err(remote.failure(&said)),
            _ => Err(HostError::HostUnreachable(format!(
                "{} could not take forkhost: {}",
                remote.name,
                said.trim()
            ))),
        }
    })
    .await
    .map_err(|e| HostError::Internal(e.to_string()))?
}
