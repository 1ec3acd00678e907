//! One ssh command run to its end with bytes on its stdin and what it printed kept: the
//! remote calls (`remote_call.rs`) and the install (`install.rs`) all run ssh this way. A
//! branch's bundle streams through from a file and into one, never whole in memory.

use std::fs::File;
use std::io::{Read, Write};
use std::process::Stdio;

use forkhost_core::HostError;

/// Runs ssh with `input` on its stdin (written from a thread of its own, so a remote that
/// prints before it has read everything never waits on us) and what it printed.
pub fn output_with_input(
    command: std::process::Command,
    input: Vec<u8>,
) -> Result<std::process::Output, HostError> {
    output_streaming(command, Box::new(std::io::Cursor::new(input)), None)
}

/// As [`output_with_input`], the input read as it goes and, with `stdout_to`, the command's
/// stdout written to that file (the output's `stdout` then empty).
pub fn output_streaming(
    mut command: std::process::Command,
    mut input: Box<dyn Read + Send>,
    stdout_to: Option<File>,
) -> Result<std::process::Output, HostError> {
    let stdout = match stdout_to {
        Some(file) => Stdio::from(file),
        None => Stdio::piped(),
    };
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| HostError::HostUnreachable(format!("ssh could not start ({err})")))?;
    let mut stdin = child.stdin.take().expect("piped");
    // A write error means the remote ended early; its status says why.
    let writer = std::thread::spawn(move || {
        let _ = std::io::copy(&mut input, &mut stdin).and_then(|_| stdin.flush());
    });
    let out = child
        .wait_with_output()
        .map_err(|e| HostError::Internal(e.to_string()));
    let _ = writer.join();
    out
}
