//! What a Pi runtime and its event task share: whether a run is going, why the process died,
//! and whether it was asked to end.

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;

use tokio::sync::watch;

/// Shared between the runtime and its event task.
pub(super) struct RuntimeState {
    /// A prompt was accepted and its run has not settled yet.
    pub busy: watch::Sender<bool>,
    /// Why the process died, once it did without being asked to.
    pub dead: Mutex<Option<String>>,
    /// `close` (or drop) asked the process to end.
    pub closing: AtomicBool,
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
