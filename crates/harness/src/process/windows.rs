//! Windows: each harness in a Job Object that kills its processes when its last handle
//! closes — ours, closed by the OS too when the app dies — and no console window.
//!
//! The process is assigned right after it starts (std cannot start it suspended), so a child
//! it starts within that instant would escape the job; processes it starts later belong to
//! the job whatever they do.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::process::{Child, Command};
use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
use windows_sys::Win32::System::JobObjects::{
    AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
    SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
};
use windows_sys::Win32::System::Threading::CREATE_NO_WINDOW;

use super::{RawProcess, Signal};

/// The exit code of processes the job ends.
const KILLED: u32 = 1;

pub(super) struct Prepared(Option<Job>);

pub(super) fn prepare(cmd: &mut Command) -> Prepared {
    cmd.creation_flags(CREATE_NO_WINDOW);
    match Job::new() {
        Ok(job) => Prepared(Some(job)),
        Err(err) => {
            tracing::warn!(error = %err, "no job object: this harness's tools outlive it");
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
    pub fn started(prepared: Prepared, child: &Child) -> Group {
        let job = prepared.0.and_then(|job| match child.raw_handle() {
            Some(process) => match job.assign(process as HANDLE) {
                Ok(()) => Some(job),
                Err(err) => {
                    tracing::warn!(error = %err, "could not put the harness in its job");
                    None
                }
            },
            None => None,
        });
        Group {
            job,
            pid: child.id(),
            released: AtomicBool::new(false),
        }
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
