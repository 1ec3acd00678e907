//! How long Pi gets for each step of the runtime and the fork.

use std::time::Duration;

/// Spawn → first `get_state` answer (0.4–0.6 s measured; generous for a loaded machine).
pub(super) const STARTUP_TIMEOUT: Duration = Duration::from_secs(60);
/// Any other command (they answer in milliseconds; `abort` waits for the run to stop).
pub(super) const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a closing Pi may take before its process group is killed.
pub(super) const CLOSE_GRACE: Duration = Duration::from_secs(3);
/// How long to wait for the rest of stderr when reporting a failure.
pub(super) const STDERR_WAIT: Duration = Duration::from_millis(500);
