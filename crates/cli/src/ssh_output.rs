//! One ssh command run to its end with bytes on its stdin and what it printed kept: the
//! remote calls (`remote.rs`) and the install (`install.rs`) both run ssh this way.

use std::io::Write;
use std::process::Stdio;

use forkhost_core::HostError;

/// Runs ssh with `input` on its stdin (written from a thread of its own, so a remote that
/// prints before it has read everything never waits on us) and what it printed.
pub fn output_with_input(
    mut command: std::process::Command,
    input: Vec<u8>,
) -> Result<std::process::Output, HostError> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| HostError::HostUnreachable(format!("ssh could not start ({err})")))?;
    let mut stdin = child.stdin.take().expect("piped");
    // A write error means the remote ended early; its status says why.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child
        .wait_with_output()
        .map_err(|e| HostError::Internal(e.to_string()));
    let _ = writer.join();
    out
}
