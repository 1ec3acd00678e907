//! One `forkhost --json` command run on a remote host to its end, its answer read back: a JSON
//! document (`call`) or bytes the command wrote itself (`call_bytes`, a bundle of files), or
//! the remote's own typed error, or why ssh could not run it. The branch moves between
//! machines are made of these calls (`remote.rs`, `moved_files.rs`).

use std::process::Output;

use forkhost_core::{Host, HostError, RemoteHostView, SSH_FAILED};
use serde_json::Value;

/// The shell's status for a command it could not find (the remote has no forkhost).
const NOT_FOUND: i32 = 127;

/// A command run on a remote: what it gave, or the remote had no forkhost to run it.
pub enum Ran<T> {
    Done(T),
    NoForkhost,
}

/// `args` on `remote` with `input` on its stdin: its JSON document. A remote with no forkhost
/// gets this one first (`install.rs`), once; `local` remembers where it went.
pub async fn call(
    local: &Host,
    remote: &RemoteHostView,
    args: &[String],
    input: &[u8],
) -> Result<Value, HostError> {
    call_reading(local, remote, args, input, read_json).await
}

/// As [`call`], for a command that writes bytes of its own on success (its errors are JSON).
pub async fn call_bytes(
    local: &Host,
    remote: &RemoteHostView,
    args: &[String],
    input: &[u8],
) -> Result<Vec<u8>, HostError> {
    call_reading(local, remote, args, input, read_bytes).await
}

type Reader<T> = fn(&RemoteHostView, Output) -> Result<T, HostError>;

async fn call_reading<T: Send + 'static>(
    local: &Host,
    remote: &RemoteHostView,
    args: &[String],
    input: &[u8],
    read: Reader<T>,
) -> Result<T, HostError> {
    let mut remote = remote.clone();
    for first in [true, false] {
        match call_once(&remote, args, input, read).await? {
            Ran::Done(value) => return Ok(value),
            Ran::NoForkhost if first && remote.remote_program.is_none() => {
                remote = crate::install::install(local, &remote).await?;
            }
            Ran::NoForkhost => break,
        }
    }
    Err(no_forkhost(&remote))
}

async fn call_once<T: Send + 'static>(
    remote: &RemoteHostView,
    args: &[String],
    input: &[u8],
    read: Reader<T>,
) -> Result<Ran<T>, HostError> {
    let command = remote.command(args, false)?.command();
    let (remote, input) = (remote.clone(), input.to_vec());
    tokio::task::spawn_blocking(move || {
        let out = crate::ssh_output::output_with_input(command, input)?;
        let said = String::from_utf8_lossy(&out.stderr);
        if let Some(err) = ssh_failure(&remote, out.status.code(), &said) {
            return Err(err);
        }
        if missing_forkhost(out.status.code(), &said) {
            return Ok(Ran::NoForkhost);
        }
        read(&remote, out).map(Ran::Done)
    })
    .await
    .map_err(|e| HostError::Internal(e.to_string()))?
}

/// The JSON document a command printed, or the error it reported in it.
fn read_json(remote: &RemoteHostView, out: Output) -> Result<Value, HostError> {
    let value: Value = serde_json::from_slice(&out.stdout).map_err(|_| {
        let said = String::from_utf8_lossy(&out.stderr);
        HostError::HostUnreachable(format!(
            "{} answered no JSON: {}",
            remote.name,
            said.lines().last().unwrap_or("")
        ))
    })?;
    match value.get("error") {
        Some(error) => Err(reported(error)),
        None => Ok(value),
    }
}

/// The bytes a command wrote when it succeeded; its JSON error when it did not.
fn read_bytes(remote: &RemoteHostView, out: Output) -> Result<Vec<u8>, HostError> {
    if out.status.success() {
        return Ok(out.stdout);
    }
    match read_json(remote, out) {
        Ok(_) => Err(HostError::HostUnreachable(format!(
            "{} failed without saying why",
            remote.name
        ))),
        Err(err) => Err(err),
    }
}

fn reported(error: &Value) -> HostError {
    HostError::reported(
        error["code"].as_str().unwrap_or("internal"),
        error["message"].as_str().unwrap_or("the remote failed"),
    )
}

/// What a remote command's exit status says of the connection itself, both ways a command runs
/// (`remote.rs`'s relay, the calls here): ssh's own failure (255); `None` when ssh connected.
pub fn ssh_failure(remote: &RemoteHostView, code: Option<i32>, said: &str) -> Option<HostError> {
    (code == Some(SSH_FAILED)).then(|| remote.failure(said))
}

/// The remote's shell found no forkhost to run (its status 127).
pub fn missing_forkhost(code: Option<i32>, said: &str) -> bool {
    code == Some(NOT_FOUND) && said.contains("not found")
}

pub fn no_forkhost(remote: &RemoteHostView) -> HostError {
    HostError::HostUnreachable(match &remote.remote_program {
        Some(program) => format!(
            "{} has no forkhost at {program}; install it there, or forget the path: forkhost hosts add {} {}",
            remote.name, remote.name, remote.destination
        ),
        None => format!(
            "{} has no forkhost to run and it could not be installed; install it there, or give its path: forkhost hosts add {} {} --forkhost PATH",
            remote.name, remote.name, remote.destination
        ),
    })
}
