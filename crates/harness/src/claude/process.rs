//! The CLI process: spawning it in its own process group, keeping the tail of its stderr, and
//! signalling the whole group (the CLI's tool commands are its children, and must not outlive
//! it).

use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStderr, Command};
use tokio::task::JoinHandle;

use crate::{HarnessError, HarnessKind, HarnessResult};

/// How many stderr lines a failure carries, and how long each may be.
const TAIL_LINES: usize = 20;
const TAIL_LINE_BYTES: usize = 400;

/// The last lines the CLI wrote to stderr, bounded in count and size. They are harness
/// diagnostics for a `HarnessFailed`, never logged.
#[derive(Debug, Default)]
pub(crate) struct StderrTail {
    lines: VecDeque<String>,
}

impl StderrTail {
    fn push(&mut self, line: &str) {
        let mut line = line.trim_end().to_owned();
        if line.len() > TAIL_LINE_BYTES {
            let mut cut = TAIL_LINE_BYTES;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line.truncate(cut);
            line.push('…');
        }
        if self.lines.len() == TAIL_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(line);
    }

    pub(crate) fn text(&self) -> String {
        self.lines.iter().cloned().collect::<Vec<_>>().join("\n")
    }
}

pub(crate) type SharedTail = Arc<Mutex<StderrTail>>;

/// The stderr tail as text (empty if the lock was poisoned by a panicking reader).
pub(crate) fn tail_text(tail: &SharedTail) -> String {
    tail.lock().map(|t| t.text()).unwrap_or_default()
}

/// Reads stderr to its end into `tail`.
pub(crate) fn collect_stderr(stderr: ChildStderr, tail: SharedTail) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut reader = BufReader::new(stderr);
        let mut line = Vec::new();
        loop {
            line.clear();
            match reader.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if let Ok(mut tail) = tail.lock() {
                        tail.push(&String::from_utf8_lossy(&line));
                    }
                }
            }
        }
    })
}

/// Starts `binary args…` in `cwd` with `env` added, all three pipes captured, as the leader of
/// a new process group, killed if its handle is dropped.
pub(crate) fn spawn(
    binary: &Path,
    args: &[String],
    cwd: &Path,
    env: &[(String, String)],
) -> HarnessResult<Child> {
    let mut cmd = Command::new(binary);
    cmd.args(args)
        .current_dir(cwd)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    cmd.process_group(0);
    cmd.spawn().map_err(|err| match err.kind() {
        std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
            HarnessError::HarnessNotFound {
                harness: HarnessKind::Claude,
                detail: format!("{} could not start: {err}", binary.display()),
            }
        }
        _ => HarnessError::failed(
            HarnessKind::Claude,
            format!("spawning {}: {err}", binary.display()),
            "",
        ),
    })
}

/// Sends `signal` to the process group led by `pid` (the CLI and its tool commands).
#[cfg(unix)]
pub(crate) fn signal_group(pid: u32, signal: i32) {
    let Ok(pgid) = libc::pid_t::try_from(pid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: killpg only sends a signal; an exited group answers ESRCH, which is fine.
    unsafe {
        libc::killpg(pgid, signal);
    }
}

#[cfg(not(unix))]
pub(crate) fn signal_group(_pid: u32, _signal: i32) {}

#[cfg(unix)]
pub(crate) const SIGTERM: i32 = libc::SIGTERM;
#[cfg(unix)]
pub(crate) const SIGKILL: i32 = libc::SIGKILL;
#[cfg(not(unix))]
pub(crate) const SIGTERM: i32 = 15;
#[cfg(not(unix))]
pub(crate) const SIGKILL: i32 = 9;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_is_bounded() {
        let mut tail = StderrTail::default();
        for i in 0..100 {
            tail.push(&format!("line {i}\n"));
        }
        tail.push(&"é".repeat(1000));
        let text = tail.text();
        assert_eq!(text.lines().count(), TAIL_LINES);
        assert!(text.starts_with("line 81\n"), "{text}");
        assert!(text.len() < TAIL_LINES * (TAIL_LINE_BYTES + 8));
        assert!(text.ends_with('…'));
    }
}
