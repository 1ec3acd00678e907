//! `--host NAME`: a command run on a remote host (docs/architecture.md "Remote hosts"). The
//! remote's own `forkhost` runs it, against the remote's store, harnesses and files, through
//! the user's OpenSSH: the same command, the same words and `--json` document, the same exit
//! status, a reply streamed as it comes and an approval asked on this terminal. On the remote
//! the hidden `remote-exec` checks that both sides run one version before anything runs.

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};

use forkhost_core::{Host, HostError, RemoteHostView, SSH_FAILED};

/// How much of ssh's stderr is kept to explain its failure.
const STDERR_TAIL: usize = 8 * 1024;

/// The shell's status for a command it could not find (the remote has no forkhost).
const NOT_FOUND: i32 = 127;

/// Runs this process's command line on the host `name`; its exit status, or why it could not.
pub async fn run(data_dir: PathBuf, name: &str, json: bool) -> Result<ExitCode, HostError> {
    let (host, _) = Host::open(&data_dir).await?;
    let remote = host.remote_host(name).await;
    host.shutdown().await;
    let remote = remote?;
    let args = forwarded(std::env::args().skip(1));
    let tty = std::io::stdin().is_terminal() && !json;
    let command = remote.command(&args, tty)?;
    tokio::task::spawn_blocking(move || relay(&remote, command.command()))
        .await
        .map_err(|e| HostError::Internal(e.to_string()))?
}

/// The command line without what names this machine's side: `--host` and `--data-dir` (the
/// remote uses its own data folder).
fn forwarded(args: impl Iterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_value = false;
    for arg in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        match arg.as_str() {
            "--host" | "--data-dir" => skip_value = true,
            a if a.starts_with("--host=") || a.starts_with("--data-dir=") => {}
            _ => out.push(arg),
        }
    }
    out
}

/// Runs ssh with this terminal's stdin and stdout; its stderr is passed on as it comes and
/// its tail kept, to say why ssh itself failed.
fn relay(
    remote: &RemoteHostView,
    mut command: std::process::Command,
) -> Result<ExitCode, HostError> {
    let mut child = command
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| {
            HostError::HostUnreachable(format!(
                "ssh could not start ({err}); install OpenSSH's client or set FORKHOST_SSH_COMMAND"
            ))
        })?;
    let mut stderr = child.stderr.take().expect("piped");
    let mut tail = Vec::new();
    let mut buffer = [0u8; 4096];
    let mut shown = std::io::stderr();
    loop {
        match stderr.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let _ = shown.write_all(&buffer[..n]);
                tail.extend_from_slice(&buffer[..n]);
                if tail.len() > STDERR_TAIL {
                    tail.drain(..tail.len() - STDERR_TAIL);
                }
            }
        }
    }
    let status = child
        .wait()
        .map_err(|e| HostError::Internal(e.to_string()))?;
    let said = String::from_utf8_lossy(&tail);
    match status.code() {
        Some(SSH_FAILED) => Err(remote.failure(&said)),
        Some(NOT_FOUND) if said.contains("not found") => Err(HostError::HostUnreachable(format!(
            "{} has no forkhost to run; install it there, or give its path: forkhost hosts add {} {} --forkhost PATH",
            remote.name, remote.name, remote.destination
        ))),
        Some(code) => Ok(ExitCode::from(u8::try_from(code).unwrap_or(1))),
        None => Err(HostError::HostUnreachable(format!(
            "the connection to {} ended without a status",
            remote.name
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machines_options_stay_here() {
        let args = [
            "--host",
            "box",
            "--json",
            "send",
            "t",
            "--data-dir=/x",
            "hi",
            "--data-dir",
            "/y",
            "--host=b",
        ];
        assert_eq!(
            forwarded(args.iter().map(|a| a.to_string())),
            ["--json", "send", "t", "hi"]
        );
    }
}
