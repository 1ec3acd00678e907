//! One `forkhost --json` command run on a remote host to its end, its answer read back: a JSON
//! document (`call`; `call_then_file` with a file streamed after its input) or bytes the
//! command wrote itself (`call_into_file`, a bundle of files, streamed into a file), or the
//! remote's own typed error, or why ssh could not run it. The branch moves between
//! machines are made of these calls (`remote.rs`, `moved_files.rs`).

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
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
    let exchange = Exchange {
        input: input.to_vec(),
        then: None,
        into: None,
    };
    call_reading(local, remote, args, exchange, read_json).await
}

/// As [`call`], the file `then` streamed to its stdin after `input` (a branch's bundle).
pub async fn call_then_file(
    local: &Host,
    remote: &RemoteHostView,
    args: &[String],
    input: &[u8],
    then: &Path,
) -> Result<Value, HostError> {
    let exchange = Exchange {
        input: input.to_vec(),
        then: Some(then.to_owned()),
        into: None,
    };
    call_reading(local, remote, args, exchange, read_json).await
}

/// As [`call`], for a command that writes bytes of its own on success (a bundle): they are
/// streamed into the file `into`; its errors are JSON, read back from there.
pub async fn call_into_file(
    local: &Host,
    remote: &RemoteHostView,
    args: &[String],
    input: &[u8],
    into: &Path,
) -> Result<(), HostError> {
    let exchange = Exchange {
        input: input.to_vec(),
        then: None,
        into: Some(into.to_owned()),
    };
    call_reading(local, remote, args, exchange, read_into_file).await
}

/// What goes to a remote command's stdin, and where its stdout goes (`None`: kept).
#[derive(Clone)]
struct Exchange {
    input: Vec<u8>,
    then: Option<PathBuf>,
    into: Option<PathBuf>,
}

type Reader<T> = fn(&RemoteHostView, &Exchange, Output) -> Result<T, HostError>;

async fn call_reading<T: Send + 'static>(
    local: &Host,
    remote: &RemoteHostView,
    args: &[String],
    exchange: Exchange,
    read: Reader<T>,
) -> Result<T, HostError> {
    let mut remote = remote.clone();
    for first in [true, false] {
        match call_once(&remote, args, exchange.clone(), read).await? {
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
    exchange: Exchange,
    read: Reader<T>,
) -> Result<Ran<T>, HostError> {
    let command = remote.command(args, false)?.command();
    let remote = remote.clone();
    tokio::task::spawn_blocking(move || {
        let opened = |path: &Path, file: std::io::Result<File>| {
            file.map_err(|e| HostError::Internal(format!("{}: {e}", path.display())))
        };
        let mut input: Box<dyn Read + Send> =
            Box::new(std::io::Cursor::new(exchange.input.clone()));
        if let Some(then) = &exchange.then {
            input = Box::new(input.chain(opened(then, File::open(then))?));
        }
        let stdout_to = match &exchange.into {
            Some(into) => Some(opened(into, File::create(into))?),
            None => None,
        };
        let out = crate::ssh_output::output_streaming(command, input, stdout_to)?;
        let said = String::from_utf8_lossy(&out.stderr);
        if let Some(err) = ssh_failure(&remote, out.status.code(), &said) {
            return Err(err);
        }
        if missing_forkhost(out.status.code(), &said) {
            return Ok(Ran::NoForkhost);
        }
        read(&remote, &exchange, out).map(Ran::Done)
    })
    .await
    .map_err(|e| HostError::Internal(e.to_string()))?
}

/// The JSON document a command printed, or the error it reported in it.
fn read_json(remote: &RemoteHostView, _: &Exchange, out: Output) -> Result<Value, HostError> {
    let value: Value = serde_json::from_slice(&out.stdout).map_err(|_| {
        let said = String::from_utf8_lossy(&out.stderr);
        HostError::HostUnreachable(format!(
            "{} answered no JSON: {}",
            remote.name,
            said.lines().last().unwrap_or("")
        ))
    })?;
    match HostError::in_document(&value) {
        Some(err) => Err(err),
        None => Ok(value),
    }
}

/// Success when the command wrote its bytes into the file; its JSON error, read back from
/// there, when it did not.
fn read_into_file(
    remote: &RemoteHostView,
    exchange: &Exchange,
    mut out: Output,
) -> Result<(), HostError> {
    if out.status.success() {
        return Ok(());
    }
    if let Some(into) = &exchange.into {
        out.stdout = std::fs::read(into).unwrap_or_default();
    }
    match read_json(remote, exchange, out) {
        Ok(_) => Err(HostError::HostUnreachable(format!(
            "{} failed without saying why",
            remote.name
        ))),
        Err(err) => Err(err),
    }
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
