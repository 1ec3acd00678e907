//! Warm spares: an initialized harness process kept ready so that a fork runs in it at once,
//! and then *is* the fork's runtime (the process that forks a session is its writer). A
//! long-lived Host (the app) keeps one per harness; the one-shot CLI never does.

use std::path::PathBuf;

use async_trait::async_trait;

use super::approval::PermissionMode;
use super::events::EventSender;
use super::live::LiveRuntime;
use super::session::{ForkRequest, Forked};
use crate::error::{HarnessError, HarnessResult};
use crate::kind::HarnessKind;

/// One ready process of a harness that forks in a process of its own.
#[async_trait]
pub trait WarmSpare: Send {
    /// Forks `request.source` at `request.cut` inside this process. On success the process is
    /// the fork's runtime, with `permissions` and its events on `events`; the fork's native
    /// session is exactly what the cold [`Harness::fork`](super::Harness::fork) would make.
    /// On failure the process is closed and nothing of the fork is left behind.
    async fn fork_into_runtime(
        self: Box<Self>,
        request: ForkRequest<'_>,
        permissions: PermissionMode,
        events: EventSender,
    ) -> HarnessResult<(Forked, Box<dyn LiveRuntime>)>;

    /// Whether it can take this fork (e.g. Pi cannot fork into another folder in a running
    /// process); a spare that cannot is left for the next fork and the cold path runs.
    fn can_fork(&self, request: &ForkRequest<'_>) -> bool {
        let _ = request;
        true
    }

    /// Whether its process is still there (a spare that died is replaced, never used).
    fn alive(&self) -> bool;

    fn pid(&self) -> Option<u32>;

    /// Ends the process (an unused spare).
    async fn close(self: Box<Self>);
}

/// The folder a spare of `kind` starts in: [`crate::private_files::spare_folder`], private and
/// empty (review L-9: never the app's own working folder, which may be a project the harness
/// trusts, nor the shared temp folder, where anyone can put a project config above it).
pub(crate) fn spare_folder(kind: HarnessKind) -> HarnessResult<PathBuf> {
    crate::private_files::spare_folder().map_err(|err| {
        HarnessError::failed(kind, format!("cannot make the spare's folder: {err}"), "")
    })
}
