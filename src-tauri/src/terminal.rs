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

use std::collections::HashMap;
use std::io::{Read, Write};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use forkhost_harness::process::Tree;
use portable_pty::{native_pty_system, Child, ChildKiller, CommandBuilder, MasterPty, PtySize};
use serde::Serialize;
use tauri::{AppHandle, Emitter};

use crate::error::{CmdResult, CommandError};

/// Closing a tab: how long the TUI gets after the hang-up before its tree is killed…
const HANG_UP_GRACE: Duration = Duration::from_millis(500);
/// …and how long after the kill before the session is handed back regardless.
const KILL_GRACE: Duration = Duration::from_millis(1500);
/// Quitting: how long the TUIs get after the hang-up (the Host's runtimes then get the rest
/// of the 3 s a quit may take).
const QUIT_GRACE: Duration = Duration::from_millis(200);
/// After the exit, how long the output already written may take to reach the window.
const OUTPUT_DRAIN: Duration = Duration::from_secs(1);

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

/// Where a terminal's output and end go: its window (a test's channel).
trait Sink: Send + Sync + 'static {
    fn output(&self, output: TerminalOutput);
    fn exit(&self, exit: TerminalExit);
}

struct Window {
    app: AppHandle,
    label: String,
}

impl Sink for Window {
    fn output(&self, output: TerminalOutput) {
        let _ = self.app.emit_to(&self.label, "terminal-output", output);
    }

    fn exit(&self, exit: TerminalExit) {
        let _ = self.app.emit_to(&self.label, "terminal-exit", exit);
    }
}

struct Session {
    thread_id: String,
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    /// The child's process tree; `None` if it could not be guarded (then only the child
    /// itself can be ended, through `killer`).
    tree: Option<Tree>,
    killer: Box<dyn ChildKiller + Send + Sync>,
}

impl Session {
    /// The first step of closing: a hang-up (a TUI saves and leaves), or a kill where there
    /// is no hang-up. An error means the process could not be signalled at all.
    fn hang_up(&mut self) -> std::io::Result<()> {
        match &self.tree {
            Some(tree) => {
                tree.hang_up();
                Ok(())
            }
            None => self.killer.kill(),
        }
    }

    fn kill(&mut self) {
        match &self.tree {
            Some(tree) => tree.kill(),
            None => {
                let _ = self.killer.kill();
            }
        }
    }
}

type Sessions = Arc<Mutex<HashMap<String, Session>>>;

/// The running terminals, by id.
#[derive(Default, Clone)]
pub struct Terminals {
    sessions: Sessions,
}

fn term_err(err: impl std::fmt::Display) -> CommandError {
    CommandError::new("terminal", err.to_string())
}

fn lock(sessions: &Sessions) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
    sessions.lock().unwrap_or_else(|e| e.into_inner())
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
        let sessions = lock(&self.sessions);
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

/// The child's tree under the harness process layer (see the module note); `None`, with a
/// warning, where portable-pty gives nothing to guard it by.
fn guard(child: &(dyn Child + Send + Sync)) -> Option<Tree> {
    let pid = child.process_id()?;
    #[cfg(windows)]
    let handle = child.as_raw_handle();
    #[cfg(not(windows))]
    let handle = None;
    match Tree::adopt(pid, handle) {
        Ok(tree) => Some(tree),
        Err(err) => {
            tracing::warn!(error = %err, "terminal process tree not guarded; its tools may outlive it");
            None
        }
    }
}

/// Streams the PTY's output to the window until it ends; dropping `done` says so.
fn stream_output(
    mut reader: Box<dyn Read + Send>,
    sink: &dyn Sink,
    id: &str,
    done: mpsc::Sender<()>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    let mut decoder = Utf8Stream::default();
    loop {
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let data = decoder.push(&buf[..n]);
                if !data.is_empty() {
                    sink.output(TerminalOutput {
                        id: id.to_owned(),
                        data,
                    });
                }
            }
        }
    }
    drop(done);
}

/// Waits for a terminal's process and ends its tab.
struct Waiter {
    sessions: Sessions,
    sink: Arc<dyn Sink>,
    id: String,
    thread_id: String,
    tree: Option<Tree>,
}

impl Waiter {
    fn run(
        self,
        mut child: Box<dyn Child + Send + Sync>,
        output_done: mpsc::Receiver<()>,
        on_exit: impl FnOnce(),
    ) {
        let code = self.wait_and_clean_up(child.as_mut());
        // The master's end closes the terminal: the pseudo console on Windows, which only
        // then ends the output.
        let session = lock(&self.sessions).remove(&self.id);
        let handed_back = session.is_none();
        drop(session);
        let _ = output_done.recv_timeout(OUTPUT_DRAIN);
        tracing::info!(terminal = %self.id, ?code, "terminal ended");
        self.sink.exit(TerminalExit {
            id: self.id.clone(),
            thread_id: self.thread_id.clone(),
            code,
        });
        if !handed_back {
            on_exit();
        }
    }

    /// Waits for the process to exit, kills whatever it left behind (a tool holding the
    /// terminal), and reaps it; its exit code. On Unix the process is waited for without
    /// being reaped first: until the reap its id, hence its group's, cannot name anyone else.
    #[cfg(unix)]
    fn wait_and_clean_up(&self, child: &mut (dyn Child + Send + Sync)) -> Option<u32> {
        let exited = child
            .process_id()
            .map(forkhost_harness::process::wait_exited);
        if let Some(tree) = &self.tree {
            match exited {
                Some(Ok(())) => tree.kill(),
                Some(Err(err)) => {
                    tracing::warn!(terminal = %self.id, error = %err, "could not wait for the terminal process; its leftovers are not killed");
                }
                None => {}
            }
            tree.release();
        }
        child.wait().ok().map(|status| status.exit_code())
    }

    /// Windows: a job is a handle, not an id, so its leftovers are ended after the reap.
    #[cfg(not(unix))]
    fn wait_and_clean_up(&self, child: &mut (dyn Child + Send + Sync)) -> Option<u32> {
        let code = child.wait().ok().map(|status| status.exit_code());
        if let Some(tree) = &self.tree {
            tree.kill();
            tree.release();
        }
        code
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

    /// A tab's life with real processes: the tab ends with its process, a close always closes.
    #[cfg(unix)]
    mod lifecycle {
        use super::super::*;

        #[derive(Debug)]
        enum Seen {
            Output(String),
            Exit(Option<u32>),
        }

        struct Channel(Mutex<mpsc::Sender<Seen>>);

        impl Sink for Channel {
            fn output(&self, output: TerminalOutput) {
                let _ = self.0.lock().unwrap().send(Seen::Output(output.data));
            }
            fn exit(&self, exit: TerminalExit) {
                let _ = self.0.lock().unwrap().send(Seen::Exit(exit.code));
            }
        }

        /// Opens `script` in a terminal; returns the terminals, the tab's id, what it shows, and
        /// whether `on_exit` ran.
        fn open_sh(script: &str) -> (Terminals, String, mpsc::Receiver<Seen>, mpsc::Receiver<()>) {
            let terminals = Terminals::default();
            let (tx, rx) = mpsc::channel();
            let (exit_tx, exit_rx) = mpsc::channel();
            let spec = TerminalSpec {
                program: "sh".into(),
                args: vec!["-c".into(), script.into()],
                cwd: None,
                env: vec![],
            };
            let id = terminals
                .open_with(
                    Arc::new(Channel(Mutex::new(tx))),
                    "thread-1",
                    spec,
                    (80, 24),
                    move || {
                        let _ = exit_tx.send(());
                    },
                )
                .unwrap();
            (terminals, id, rx, exit_rx)
        }

        /// Everything shown until the exit: (text, exit code).
        fn until_exit(rx: &mpsc::Receiver<Seen>, limit: Duration) -> (String, Option<u32>) {
            let mut text = String::new();
            loop {
                match rx.recv_timeout(limit) {
                    Ok(Seen::Output(data)) => text.push_str(&data),
                    Ok(Seen::Exit(code)) => return (text, code),
                    Err(err) => panic!("no exit within {limit:?} ({err}); shown: {text:?}"),
                }
            }
        }

        #[cfg(target_os = "linux")]
        fn alive(pid: u32) -> bool {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                !stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|rest| rest.trim_start().starts_with('Z'))
            })
        }

        /// A tool left running (deaf to the hang-up the kernel sends when the shell ends) still
        /// holds the terminal, so the output never ends by itself: the tab ends with the
        /// process, the tool is killed with its tree, the session is handed back.
        #[cfg(target_os = "linux")]
        #[test]
        fn a_tab_ends_with_its_process_though_a_tool_holds_the_terminal() {
            let (terminals, id, rx, exited) =
                open_sh("trap '' HUP; sleep 300 & echo \"tool $!\"; exit 3");
            let (text, code) = until_exit(&rx, Duration::from_secs(10));
            assert_eq!(code, Some(3), "{text:?}");
            let tool: u32 = text
                .split_whitespace()
                .skip_while(|w| *w != "tool")
                .nth(1)
                .and_then(|p| p.parse().ok())
                .unwrap_or_else(|| panic!("{text:?}"));
            // Its files close (the output ends) a moment before it is counted dead.
            let killed = std::time::Instant::now();
            while alive(tool) && killed.elapsed() < Duration::from_secs(2) {
                std::thread::sleep(Duration::from_millis(5));
            }
            assert!(!alive(tool), "the tool {tool} outlived its terminal");
            assert_eq!(terminals.thread_of(&id), None);
            exited.recv_timeout(Duration::from_secs(1)).unwrap();
        }

        /// Quitting ends every tab within the quit grace, a TUI that ignores the hang-up too.
        #[test]
        fn quitting_ends_every_tab() {
            let (terminals, id, rx, _exited) = open_sh("trap '' HUP; echo ready; sleep 300");
            loop {
                match rx.recv_timeout(Duration::from_secs(10)).unwrap() {
                    Seen::Output(data) if data.contains("ready") => break,
                    Seen::Output(_) => {}
                    Seen::Exit(code) => panic!("exited early: {code:?}"),
                }
            }
            let started = std::time::Instant::now();
            terminals.kill_all();
            assert!(started.elapsed() < QUIT_GRACE + Duration::from_millis(100));
            until_exit(&rx, Duration::from_secs(2));
            assert_eq!(terminals.thread_of(&id), None);
        }

        /// Closing a tab whose TUI ignores the hang-up: killed after the grace, handed back.
        #[test]
        fn closing_a_tab_kills_a_process_that_ignores_the_hang_up() {
            let (terminals, id, rx, _exited) = open_sh("trap '' HUP; echo ready; sleep 300");
            let started = std::time::Instant::now();
            loop {
                match rx.recv_timeout(Duration::from_secs(10)).unwrap() {
                    Seen::Output(data) if data.contains("ready") => break,
                    Seen::Output(_) => {}
                    Seen::Exit(code) => panic!("exited early: {code:?}"),
                }
            }
            terminals.kill(&id).unwrap();
            let limit = HANG_UP_GRACE + KILL_GRACE + Duration::from_secs(1);
            until_exit(&rx, limit);
            assert_eq!(terminals.thread_of(&id), None);
            println!("terminal closed in {:?}", started.elapsed());
            // A second close of a gone tab is fine.
            terminals.kill(&id).unwrap();
        }
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
