//! Terminal tabs: a harness's own TUI in a pseudo-terminal (portable-pty), its output streamed
//! to the window that shows it as `terminal-output` events, keystrokes written back. What to
//! run (and the exclusion with the structured runtime) is the Host's: `terminal_command` before
//! the start, `release_terminal` after the end.
//!
//! A tab ends when its process exits, not when the output ends: a waiter thread waits for the
//! child, kills what it left in its tree, and drops the master. On Windows the output pipe
//! reports no end while the pseudo console is open, and on Unix a leftover tool holding the
//! terminal would keep it open, so waiting for EOF alone could leave a tab open for ever. The
//! child's tree is guarded by the harness process layer ([`Tree`]: its group on Unix, a job on
//! Windows), so it also dies with the app.

mod output;
mod session;
#[cfg(test)]
mod terminal_tests;
mod waiter;

use std::io::Write;
use std::sync::{mpsc, Arc};
use std::time::Duration;

use portable_pty::{native_pty_system, CommandBuilder, PtySize};
use tauri::AppHandle;

use crate::error::{AppErrorCode, CmdResult, CommandError};

pub use crate::event_payloads::{TerminalExit, TerminalOutput};
use output::{stream_output, Sink, Window};
use session::{lock, Session, Sessions};
use waiter::{guard, Waiter};

/// Closing a tab: how long the TUI gets after the hang-up before its tree is killed…
/// Closing a tab: how long the TUI gets after the hang-up before its tree is killed…
const HANG_UP_GRACE: Duration = Duration::from_millis(500);
/// …and how long after the kill before the session is handed back regardless.
const KILL_GRACE: Duration = Duration::from_millis(1500);
/// Quitting: how long the TUIs get after the hang-up (the Host's runtimes then get the rest
/// of the 3 s a quit may take).
const QUIT_GRACE: Duration = Duration::from_millis(200);

/// What to run in the terminal.
#[derive(Debug, Clone)]
pub struct TerminalSpec {
    pub program: String,
    pub args: Vec<String>,
    pub cwd: Option<String>,
    pub env: Vec<(String, String)>,
}

/// The running terminals, by id.
#[derive(Default, Clone)]
pub struct Terminals {
    sessions: Sessions,
}

fn term_err(err: impl std::fmt::Display) -> CommandError {
    CommandError::new(AppErrorCode::Terminal, err.to_string())
}

impl Terminals {
    /// Starts `spec` in a new PTY of `(cols, rows)`; output goes to window `label`. `on_exit`
    /// runs once the process ended (to hand the session back to the Host), unless the tab
    /// was closed first (then [`Terminals::kill`]'s caller hands it back).
    pub fn open(
        &self,
        app: &AppHandle,
        label: &str,
        thread_id: &str,
        spec: TerminalSpec,
        size: (u16, u16),
        on_exit: impl FnOnce() + Send + 'static,
    ) -> CmdResult<String> {
        let window = Window {
            app: app.clone(),
            label: label.to_owned(),
        };
        self.open_with(Arc::new(window), thread_id, spec, size, on_exit)
    }

    fn open_with(
        &self,
        sink: Arc<dyn Sink>,
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
        // The harness search folders, as its structured runtime gets them; the thread's own
        // variables below still win.
        cmd.env("PATH", forkhost_harness::search_path::child_path());
        for (k, v) in &spec.env {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).map_err(term_err)?;
        drop(pair.slave);
        let tree = guard(child.as_ref());
        let killer = child.clone_killer();
        let reader = pair.master.try_clone_reader().map_err(term_err)?;
        let writer = pair.master.take_writer().map_err(term_err)?;
        let id = format!("pty-{}", uuid::Uuid::new_v4().simple());
        tracing::info!(terminal = %id, thread = %thread_id, program = %spec.program, guarded = tree.is_some(), "terminal started");
        lock(&self.sessions).insert(
            id.clone(),
            Session {
                thread_id: thread_id.to_owned(),
                master: pair.master,
                writer,
                tree: tree.clone(),
                killer,
            },
        );
        let (done_tx, done_rx) = mpsc::channel::<()>();
        let short = &id[4..12];
        std::thread::Builder::new()
            .name(format!("terminal-{short}"))
            .spawn({
                let (sink, id) = (sink.clone(), id.clone());
                move || stream_output(reader, &*sink, &id, done_tx)
            })
            .map_err(term_err)?;
        let waiter = Waiter {
            sessions: Arc::clone(&self.sessions),
            sink,
            id: id.clone(),
            thread_id: thread_id.to_owned(),
            tree,
        };
        std::thread::Builder::new()
            .name(format!("terminal-wait-{short}"))
            .spawn(move || waiter.run(child, done_rx, on_exit))
            .map_err(term_err)?;
        Ok(id)
    }

    pub fn write(&self, id: &str, data: &str) -> CmdResult<()> {
        let mut sessions = lock(&self.sessions);
        let session = sessions.get_mut(id).ok_or_else(|| {
            CommandError::new(AppErrorCode::Terminal, format!("no terminal {id}"))
        })?;
        session
            .writer
            .write_all(data.as_bytes())
            .and_then(|()| session.writer.flush())
            .map_err(term_err)
    }

    pub fn resize(&self, id: &str, cols: u16, rows: u16) -> CmdResult<()> {
        let sessions = lock(&self.sessions);
        let session = sessions.get(id).ok_or_else(|| {
            CommandError::new(AppErrorCode::Terminal, format!("no terminal {id}"))
        })?;
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

    /// Closes a tab: hangs its process up, kills its tree if it lingers, and in any case gives
    /// the session up within [`HANG_UP_GRACE`] + [`KILL_GRACE`] (at once if the process cannot
    /// be signalled), so the thread goes back to its structured runtime even if the kill
    /// fails. Never an error: a close must always close.
    pub fn kill(&self, id: &str) -> CmdResult<()> {
        let mut sessions = lock(&self.sessions);
        let Some(session) = sessions.get_mut(id) else {
            return Ok(());
        };
        if let Err(err) = session.hang_up() {
            tracing::warn!(terminal = %id, error = %err, "terminal process could not be ended; its tab closes anyway");
            sessions.remove(id);
            return Ok(());
        }
        drop(sessions);
        let sessions = Arc::clone(&self.sessions);
        let key = id.to_owned();
        let escalate = move || {
            std::thread::sleep(HANG_UP_GRACE);
            match lock(&sessions).get_mut(&key) {
                Some(session) => session.kill(),
                None => return,
            }
            std::thread::sleep(KILL_GRACE);
            if lock(&sessions).remove(&key).is_some() {
                tracing::warn!(terminal = %key, "terminal process outlived its kill; its tab closes anyway");
            }
        };
        let spawned = std::thread::Builder::new()
            .name("terminal-close".into())
            .spawn(escalate);
        if let Err(err) = spawned {
            tracing::warn!(error = %err, "no thread to close a terminal with; killed at once");
            if let Some(mut session) = lock(&self.sessions).remove(id) {
                session.kill();
            }
        }
        Ok(())
    }

    /// The thread a running terminal belongs to.
    pub fn thread_of(&self, id: &str) -> Option<String> {
        lock(&self.sessions).get(id).map(|s| s.thread_id.clone())
    }

    /// Ends every terminal (at exit): a hang-up, up to [`QUIT_GRACE`] for the TUIs to leave,
    /// then a kill.
    pub fn kill_all(&self) {
        let mut any = false;
        for session in lock(&self.sessions).values_mut() {
            let _ = session.hang_up();
            any = true;
        }
        let start = std::time::Instant::now();
        while any && !lock(&self.sessions).is_empty() && start.elapsed() < QUIT_GRACE {
            std::thread::sleep(Duration::from_millis(10));
        }
        for session in lock(&self.sessions).values_mut() {
            session.kill();
        }
    }
}
