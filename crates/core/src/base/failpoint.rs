//! Crash points for tests of the fork engine, compiled only with the `failpoints` feature.
//!
//! `FORKHOST_FAILPOINT=<step>` kills the process (SIGKILL, no clean-up) when the fork engine
//! reaches `<step>`; `FORKHOST_FAILPOINT=<step>:error` makes that step fail with an error.

use crate::base::error::{HostError, HostResult};

/// The steps of the fork engine, in order.
pub const FORK_STEPS: [&str; 4] = [
    "after_insert",
    "after_native_fork",
    "before_commit",
    "after_commit",
];

#[cfg(feature = "failpoints")]
pub(crate) fn hit(step: &str) -> HostResult<()> {
    let Ok(spec) = std::env::var("FORKHOST_FAILPOINT") else {
        return Ok(());
    };
    let (name, action) = spec.split_once(':').unwrap_or((spec.as_str(), "kill"));
    if name != step {
        return Ok(());
    }
    if action == "error" {
        return Err(HostError::Internal(format!("failpoint {step}")));
    }
    // Like a crash: no destructors, no flushing.
    #[cfg(unix)]
    unsafe {
        // SAFETY: raising a signal at our own process; SIGKILL cannot be handled.
        libc_kill_self();
    }
    std::process::abort();
}

#[cfg(all(feature = "failpoints", unix))]
unsafe fn libc_kill_self() {
    extern "C" {
        fn getpid() -> i32;
        fn kill(pid: i32, sig: i32) -> i32;
    }
    const SIGKILL: i32 = 9;
    kill(getpid(), SIGKILL);
}

#[cfg(not(feature = "failpoints"))]
#[inline(always)]
pub(crate) fn hit(_step: &str) -> HostResult<()> {
    let _ = HostError::Internal;
    Ok(())
}
