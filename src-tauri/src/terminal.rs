//! Terminal tabs: a harness's own TUI in a pseudo-terminal (portable-pty), its output streamed
//! to the window that shows it as `terminal-output` events, keystrokes written back. What to
//! run (and the exclusion with the structured runtime) is the Host's: `terminal_command` before
//! the start, `release_terminal` after the end.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::{Arc, Mutex};

use portable_pty::{native_pty_system, Child, CommandBuilder, MasterPty, PtySize};
use serde::Serialize;
use tauri::{AppHandle, Emitter};

use crate::error::{CmdResult, CommandError};

/// What to run in the terminal.
#[derive(Debug, Clone)]
pub struct TerminalSpec {
    pub program: String,
    pub args: Vec<String>,
    pub cwd: Option<String>,
    pub env: Vec<(String, String)>,
}

/// Output of a terminal, sent to the window that opened it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct TerminalOutput {
    pub id: String,
    pub data: String,
}

/// A terminal's process ended.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct TerminalExit {
    pub id: String,
    pub thread_id: String,
    pub code: Option<u32>,
}

struct Session {
    thread_id: String,
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    child: Box<dyn Child + Send + Sync>,
}

/// The running terminals, by id.
#[derive(Default, Clone)]
pub struct Terminals {
    sessions: Arc<Mutex<HashMap<String, Session>>>,
}

fn term_err(err: impl std::fmt::Display) -> CommandError {
    CommandError::new("terminal", err.to_string())
}

impl Terminals {
    /// Starts `spec` in a new PTY of `(cols, rows)`; output goes to window `label`. `on_exit`
    /// runs once the process ended (to hand the session back to the Host).
    pub fn open(
        &self,
        app: &AppHandle,
        label: &str,
        thread_id: &str,
        spec: TerminalSpec,
        (cols, rows): (u16, u16),
        on_exit: impl FnOnce() + Send + 'static,
    ) -> CmdResult<String> {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: rows.max(2),
                cols: cols.max(10),
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(term_err)?;
        let mut cmd = CommandBuilder::new(&spec.program);
        cmd.args(&spec.args);
        if let Some(cwd) = &spec.cwd {
            cmd.cwd(cwd);
        }
        cmd.env("TERM", "xterm-256color");
        cmd.env("COLORTERM", "truecolor");
        for (k, v) in &spec.env {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).map_err(term_err)?;
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().map_err(term_err)?;
        let writer = pair.master.take_writer().map_err(term_err)?;
        let id = format!("pty-{}", uuid::Uuid::new_v4().simple());
        tracing::info!(terminal = %id, thread = %thread_id, program = %spec.program, "terminal started");
        self.sessions
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                id.clone(),
                Session {
                    thread_id: thread_id.to_owned(),
                    master: pair.master,
                    writer,
                    child,
                },
            );

        let app = app.clone();
        let label = label.to_owned();
        let sessions = Arc::clone(&self.sessions);
        let term_id = id.clone();
        let thread = thread_id.to_owned();
        std::thread::Builder::new()
            .name(format!("terminal-{}", &id[4..12]))
            .spawn(move || {
                let mut buf = vec![0u8; 16 * 1024];
                let mut decoder = Utf8Stream::default();
                loop {
                    match reader.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            let data = decoder.push(&buf[..n]);
                            if !data.is_empty() {
                                let _ = app.emit_to(
                                    &label,
                                    "terminal-output",
                                    TerminalOutput {
                                        id: term_id.clone(),
                                        data,
                                    },
                                );
                            }
                        }
                    }
                }
                let session = sessions
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&term_id);
                let code = session.and_then(|mut s| s.child.wait().ok().map(|st| st.exit_code()));
                tracing::info!(terminal = %term_id, ?code, "terminal ended");
                let _ = app.emit_to(
                    &label,
                    "terminal-exit",
                    TerminalExit {
                        id: term_id,
                        thread_id: thread,
                        code,
                    },
                );
                on_exit();
            })
            .map_err(term_err)?;
        Ok(id)
    }

    pub fn write(&self, id: &str, data: &str) -> CmdResult<()> {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let session = sessions
            .get_mut(id)
            .ok_or_else(|| CommandError::new("terminal", format!("no terminal {id}")))?;
        session
            .writer
            .write_all(data.as_bytes())
            .and_then(|()| session.writer.flush())
            .map_err(term_err)
    }

    pub fn resize(&self, id: &str, cols: u16, rows: u16) -> CmdResult<()> {
        let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        let session = sessions
            .get(id)
            .ok_or_else(|| CommandError::new("terminal", format!("no terminal {id}")))?;
        session
            .master
            .resize(PtySize {
                rows: rows.max(2),
                cols: cols.max(10),
                pixel_width: 0,
                pixel_height: 0,
            })
            .map_err(term_err)
    }

    /// Ends a terminal's process; its reader thread then reports the exit.
    pub fn kill(&self, id: &str) -> CmdResult<()> {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(session) = sessions.get_mut(id) {
            session.child.kill().map_err(term_err)?;
        }
        Ok(())
    }

    /// The thread a running terminal belongs to.
    pub fn thread_of(&self, id: &str) -> Option<String> {
        let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        sessions.get(id).map(|s| s.thread_id.clone())
    }

    /// Ends every terminal (at exit).
    pub fn kill_all(&self) {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        for session in sessions.values_mut() {
            let _ = session.child.kill();
        }
    }
}

/// Turns a byte stream into text without splitting a multi-byte character across chunks;
/// invalid bytes become U+FFFD.
#[derive(Default)]
struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(text) => {
                    out.push_str(text);
                    self.pending.clear();
                    return out;
                }
                Err(err) => {
                    let valid = err.valid_up_to();
                    out.push_str(std::str::from_utf8(&self.pending[..valid]).unwrap_or_default());
                    match err.error_len() {
                        // An incomplete character at the end: keep it for the next chunk.
                        None => {
                            self.pending.drain(..valid);
                            return out;
                        }
                        Some(bad) => {
                            out.push('\u{FFFD}');
                            self.pending.drain(..valid + bad);
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_stream_keeps_split_characters_whole() {
        let mut s = Utf8Stream::default();
        let bytes = "héllo ✓".as_bytes();
        let (a, b) = bytes.split_at(2); // splits the é
        let mut out = s.push(a);
        out.push_str(&s.push(b));
        assert_eq!(out, "héllo ✓");
        assert_eq!(s.push(&[0xff, b'a']), "\u{FFFD}a");
    }

    #[test]
    fn pty_runs_a_program_and_streams_its_output() {
        // portable-pty end to end, without a window: the same calls `open` makes.
        let pair = native_pty_system()
            .openpty(PtySize {
                rows: 24,
                cols: 80,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
        let mut cmd = CommandBuilder::new("sh");
        cmd.args(["-c", "printf 'pty-ok %s' \"$FOO\""]);
        cmd.env("FOO", "bar");
        let mut child = pair.slave.spawn_command(cmd).unwrap();
        drop(pair.slave);
        let mut reader = pair.master.try_clone_reader().unwrap();
        let mut out = String::new();
        let mut buf = [0u8; 1024];
        let mut decoder = Utf8Stream::default();
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            out.push_str(&decoder.push(&buf[..n]));
            if out.contains("pty-ok bar") {
                break;
            }
        }
        assert!(out.contains("pty-ok bar"), "{out:?}");
        assert!(child.wait().unwrap().success());
    }
}
