//! Windows: each harness in a Job Object that kills its processes when its last handle
//! closes — ours, closed by the OS too when the app dies — and no console window.
//!
//! The process starts suspended and only runs once it is in the job: a child it starts at
//! once (node under a `claude.cmd` shim) is then in the job too, as is everything later.
//! An adopted process (the terminal tab's: portable-pty's `CreateProcessW` takes no flags of
//! ours) is still assigned just after it starts, so a child it starts within that instant
//! could escape.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::process::{Child, Command};
use windows_sys::Win32::Foundation::{CloseHandle, HANDLE, INVALID_HANDLE_VALUE};
use windows_sys::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Thread32First, Thread32Next, TH32CS_SNAPTHREAD, THREADENTRY32,
};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};
use windows_sys::Win32::System::Threading::{
    OpenThread, ResumeThread, CREATE_NO_WINDOW, CREATE_SUSPENDED, THREAD_SUSPEND_RESUME,
};

use super::{RawProcess, Signal};

/// The exit code of processes the job ends.
const KILLED: u32 = 1;

pub(super) struct Prepared(Option<Job>);

pub(super) fn prepare(cmd: &mut Command) -> Prepared {
    match Job::new() {
        Ok(job) => {
            // Suspended until `Group::started` has put it in the job and resumed it.
            cmd.creation_flags(CREATE_NO_WINDOW | CREATE_SUSPENDED);
            Prepared(Some(job))
        }
        Err(err) => {
            tracing::warn!(error = %err, "no job object: this harness's tools outlive it");
            cmd.creation_flags(CREATE_NO_WINDOW);
            Prepared(None)
        }
    }
}

pub(super) struct Group {
    job: Option<Job>,
    pid: Option<u32>,
    released: AtomicBool,
}

impl Group {
    /// Puts the just started (suspended, see [`prepare`]) process in its job, then lets it
    /// run. If it cannot be resumed it is killed: it would wait suspended forever.
    pub fn started(prepared: Prepared, child: &mut Child) -> io::Result<Group> {
        let pid = child.id();
        let Some(job) = prepared.0 else {
            // Not suspended: there was no job to wait for.
            return Ok(Group {
                job: None,
                pid,
                released: AtomicBool::new(false),
            });
        };
        // As before the suspension, a harness outside its job still runs (with a warning).
        let job = match child
            .raw_handle()
            .map(|process| job.assign(process as HANDLE))
        {
            Some(Ok(())) => Some(job),
            Some(Err(err)) => {
                tracing::warn!(error = %err, "could not put the harness in its job");
                None
            }
            None => None,
        };
        if let Err(err) = pid
            .ok_or_else(|| io::Error::other("the process has no id"))
            .and_then(resume_threads)
        {
            let _ = child.start_kill();
            return Err(err);
        }
        Ok(Group {
            job,
            pid,
            released: AtomicBool::new(false),
        })
    }

    pub fn adopt(pid: u32, handle: Option<RawProcess>) -> io::Result<Group> {
        let handle = handle
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no process handle"))?;
        let job = Job::new()?;
        job.assign(handle as HANDLE)?;
        Ok(Group {
            job: Some(job),
            pid: Some(pid),
            released: AtomicBool::new(false),
        })
    }

    /// Windows has no "please end" for a process without a console: every signal kills.
    pub fn signal(&self, _signal: Signal) {
        if self.released.load(Ordering::SeqCst) {
            return;
        }
        if let Some(job) = &self.job {
            if let Err(err) = job.terminate() {
                tracing::warn!(error = %err, "could not end a harness job");
            }
        }
    }

    /// A job names no process id, so there is nothing to stop watching; leftover processes
    /// still end when the job's handle closes.
    pub fn release(&self) {
        self.released.store(true, Ordering::SeqCst);
    }

    pub fn id(&self) -> Option<u32> {
        self.pid
    }

    /// Whether `process` is in this tree's job (for tests: any process may be in some job).
    #[cfg(test)]
    pub fn in_job(&self, process: HANDLE) -> bool {
        let Some(job) = &self.job else { return false };
        let mut result = 0;
        // SAFETY: open handles, borrowed for the call.
        let ok = unsafe {
            windows_sys::Win32::System::JobObjects::IsProcessInJob(process, job.0, &mut result)
        };
        ok != 0 && result != 0
    }
}

/// Resumes the threads of a process created suspended. tokio's `Child` keeps no thread
/// handle, so the thread is looked up by its process id in a Toolhelp snapshot. The id
/// cannot name another process meanwhile: the `Child` holds the process handle.
fn resume_threads(pid: u32) -> io::Result<()> {
    // SAFETY: plain call; the pid argument is ignored for a thread snapshot (all threads).
    let snapshot = unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPTHREAD, 0) };
    if snapshot == INVALID_HANDLE_VALUE {
        return Err(io::Error::last_os_error());
    }
    let snapshot = Handle(snapshot);
    let mut entry = THREADENTRY32 {
        dwSize: std::mem::size_of::<THREADENTRY32>() as u32,
        ..Default::default()
    };
    // Every thread of the process is resumed, not just the first found: an antivirus may have
    // injected a running thread of its own, and resuming a running thread does nothing, while
    // leaving the main one suspended would hang the harness forever.
    let mut resumed = 0;
    // SAFETY: an open snapshot and an entry with its size set, as both calls require.
    let mut more = unsafe { Thread32First(snapshot.0, &mut entry) } != 0;
    while more {
        if entry.th32OwnerProcessID == pid {
            // SAFETY: plain call; the handle is checked and closed by `Handle`.
            let thread = unsafe { OpenThread(THREAD_SUSPEND_RESUME, 0, entry.th32ThreadID) };
            if thread.is_null() {
                return Err(io::Error::last_os_error());
            }
            let thread = Handle(thread);
            // SAFETY: an open thread handle with THREAD_SUSPEND_RESUME.
            if unsafe { ResumeThread(thread.0) } == u32::MAX {
                return Err(io::Error::last_os_error());
            }
            resumed += 1;
        }
        // SAFETY: as above.
        more = unsafe { Thread32Next(snapshot.0, &mut entry) } != 0;
    }
    if resumed == 0 {
        // Not NotFound: `start_error` would call the harness missing.
        return Err(io::Error::other(format!(
            "no thread of the suspended process {pid}"
        )));
    }
    Ok(())
}

/// A handle closed when dropped.
struct Handle(HANDLE);

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: an open handle we own, closed once.
        unsafe {
            CloseHandle(self.0);
        }
    }
}

/// An owned job handle; closing it kills what is left in the job.
struct Job(HANDLE);

// SAFETY: a job handle is a kernel object reference, usable from any thread.
unsafe impl Send for Job {}
unsafe impl Sync for Job {}

impl Job {
    fn new() -> io::Result<Job> {
        // SAFETY: no attributes (the handle is not inheritable), no name.
        let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
        if handle.is_null() {
            return Err(io::Error::last_os_error());
        }
        let job = Job(handle);
        let mut limits = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
        limits.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        // SAFETY: `limits` is the struct this information class names, with its size.
        let ok = unsafe {
            SetInformationJobObject(
                job.0,
                JobObjectExtendedLimitInformation,
                (&limits as *const JOBOBJECT_EXTENDED_LIMIT_INFORMATION).cast(),
                std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
            )
        };
        if ok == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(job)
    }

    fn assign(&self, process: HANDLE) -> io::Result<()> {
        // SAFETY: both handles are open; the process handle is borrowed for the call.
        if unsafe { AssignProcessToJobObject(self.0, process) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    fn terminate(&self) -> io::Result<()> {
        // SAFETY: an open job handle.
        if unsafe { TerminateJobObject(self.0, KILLED) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

impl Drop for Job {
    fn drop(&mut self) {
        // SAFETY: we own the handle and close it once; KILL_ON_JOB_CLOSE ends the processes.
        unsafe {
            CloseHandle(self.0);
        }
    }
}
