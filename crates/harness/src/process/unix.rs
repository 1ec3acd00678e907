//! Unix: the harness and its tools in one process group, led by a watchdog.
//!
//! The watchdog is `/bin/sh` blocked reading a pipe whose only writer is the app (the app's
//! end is close-on-exec, so no child inherits it). When the app ends — exit, crash, SIGKILL —
//! the pipe reads EOF and the watchdog kills its group. Because it leads the group and is the
//! app's unreaped child, the group id stays the group's own for as long as the app signals
//! it: a reaped harness can never turn a group kill into a kill of someone else.

use std::io;
use std::process::{Child as StdChild, Command as StdCommand, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use tokio::process::{Child, Command};

use super::{RawProcess, Signal};

/// Leads the group. Ignores what the group is sent on the way to its end (so it outlives a
/// SIGTERM that the harness ignores), and at EOF kills the group, itself included.
const LEADER: &str = "trap '' HUP INT TERM; read _; kill -s KILL 0";
/// Watches a group it cannot join (a PTY child leads a session of its own): kills group $1.
const OUTSIDER: &str = "trap '' HUP INT TERM; read _; kill -s KILL -- -\"$1\"";

/// The watchdog started before the harness, whose group the harness joins.
pub(super) struct Prepared(Option<Watchdog>);

pub(super) fn prepare(cmd: &mut Command) -> Prepared {
    match Watchdog::start(LEADER, None) {
        Ok(watchdog) => {
            cmd.process_group(watchdog.pid);
            Prepared(Some(watchdog))
        }
        Err(err) => {
            tracing::warn!(error = %err, "no process watchdog: this harness leads its own group and outlives a killed app");
            cmd.process_group(0);
            Prepared(None)
        }
    }
}

pub(super) struct Group {
    pgid: Option<libc::pid_t>,
    watchdog: Mutex<Option<Watchdog>>,
    released: AtomicBool,
}

impl Group {
    pub fn started(prepared: Prepared, child: &Child) -> Group {
        let pgid = match &prepared.0 {
            Some(watchdog) => Some(watchdog.pid),
            None => child.id().and_then(to_pid),
        };
        Group {
            pgid,
            watchdog: Mutex::new(prepared.0),
            released: AtomicBool::new(false),
        }
    }

    pub fn adopt(pid: u32, _handle: Option<RawProcess>) -> io::Result<Group> {
        let pgid = to_pid(pid)
            .filter(|&p| p > 1)
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a process id"))?;
        let watchdog = Watchdog::start(OUTSIDER, Some(pgid))?;
        Ok(Group {
            pgid: Some(pgid),
            watchdog: Mutex::new(Some(watchdog)),
            released: AtomicBool::new(false),
        })
    }

    pub fn signal(&self, signal: Signal) {
        if self.released.load(Ordering::SeqCst) {
            return;
        }
        let Some(pgid) = self.pgid.filter(|&p| p > 1) else {
            return;
        };
        let signal = match signal {
            Signal::HangUp => libc::SIGHUP,
            Signal::Terminate => libc::SIGTERM,
            Signal::Kill => libc::SIGKILL,
        };
        // SAFETY: only sends a signal. The group's leader (the watchdog, or an adopted process
        // until `release`) is our unreaped child, so the id is still this group's. A group
        // with no one left answers ESRCH, which is fine.
        unsafe {
            libc::killpg(pgid, signal);
        }
    }

    pub fn release(&self) {
        self.released.store(true, Ordering::SeqCst);
        drop(lock(&self.watchdog).take());
    }

    pub fn id(&self) -> Option<u32> {
        self.pgid.and_then(|p| u32::try_from(p).ok())
    }
}

impl Drop for Group {
    fn drop(&mut self) {
        self.signal(Signal::Kill);
        drop(lock(&self.watchdog).take());
    }
}

struct Watchdog {
    child: StdChild,
    pid: libc::pid_t,
}

impl Watchdog {
    /// `target`: the group to watch from outside; `None` leads a new group.
    fn start(script: &str, target: Option<libc::pid_t>) -> io::Result<Watchdog> {
        use std::os::unix::process::CommandExt;
        let mut cmd = StdCommand::new("/bin/sh");
        cmd.arg("-c").arg(script).arg("forkhost-watchdog");
        if let Some(target) = target {
            cmd.arg(target.to_string());
        }
        // Nothing of ours in its environment or cwd: it runs builtins only and must not pin a
        // folder.
        cmd.env_clear()
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if target.is_none() {
            cmd.process_group(0);
        }
        let mut child = cmd.spawn()?;
        match to_pid(child.id()) {
            Some(pid) => Ok(Watchdog { child, pid }),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                Err(io::Error::other("process id out of range"))
            }
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        // Our unreaped child, so the pid is still its own; SIGKILLed while blocked on a pipe it
        // is gone at once, so the wait is short.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `si_code`s of a child that ended (the same numbers on Linux and macOS, whose libc
/// binding lacks the names).
const ENDED: [libc::c_int; 3] = [1, 2, 3]; // CLD_EXITED, CLD_KILLED, CLD_DUMPED

/// Blocks until process `pid` (a child of ours) has exited, without reaping it: the caller
/// can still signal its group safely, then [`Group::release`] and reap.
pub fn wait_exited(pid: u32) -> io::Result<()> {
    let pid = libc::id_t::from(pid);
    loop {
        // SAFETY: `info` is a plain out-parameter the kernel fills.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        let rc =
            unsafe { libc::waitid(libc::P_PID, pid, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if rc == 0 {
            if ENDED.contains(&info.si_code) {
                return Ok(());
            }
            // macOS also reports a stopped child here, and keeps reporting it (nothing is
            // consumed): look again a little later rather than spin.
            std::thread::sleep(std::time::Duration::from_millis(100));
            continue;
        }
        let err = io::Error::last_os_error();
        if err.kind() != io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

fn to_pid(id: u32) -> Option<libc::pid_t> {
    libc::pid_t::try_from(id).ok()
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
