//! Warm spares in a long-lived Host (`HostOptions::warm_forks`, the app): one initialized
//! process per harness that has threads open, kept ready so that a fork runs in it at once and
//! it then is the fork's runtime (`WarmSpare`). A new one starts in the background when one is
//! used; one unused for the idle timeout is stopped; the user never sees them. The one-shot
//! CLI keeps the cold path. The pool itself is `warm_pool.rs`.

use std::time::Instant;

use forkhost_harness::runtime::Runtime;
use forkhost_harness::{ForkRequest, HarnessKind, WarmSpare};

use crate::host::Host;

impl Host {
    /// Makes sure a spare of `kind` is ready or starting (in the background). Nothing for a
    /// one-shot Host, or a harness without spares.
    pub(crate) fn ensure_spare(&self, kind: HarnessKind) {
        if !self.inner.warm_forks || !self.inner.warm.begin_start(kind) {
            return;
        }
        let host = self.clone();
        tokio::spawn(async move {
            let started = host.start_spare(kind).await;
            let Some((since, replaced)) = host.inner.warm.started(kind, started) else {
                return;
            };
            if let Some(old) = replaced {
                old.close().await;
            }
            host.stop_spare_when_idle(kind, since);
        });
    }

    async fn start_spare(&self, kind: HarnessKind) -> Option<Box<dyn WarmSpare>> {
        let binary = self.inner.harnesses.binary(kind).await.ok()?;
        match Runtime::spare(&binary, &self.inner.harness_env).await? {
            Ok(spare) => Some(spare),
            Err(err) => {
                tracing::warn!(harness = %kind, error = %err, "could not start a warm spare");
                None
            }
        }
    }

    /// Stops the spare that became ready at `since` if it is still unused after the idle
    /// timeout (spares count toward the idle-runtime policy).
    fn stop_spare_when_idle(&self, kind: HarnessKind, since: Instant) {
        let host = self.clone();
        let idle = self.inner.idle_timeout;
        tokio::spawn(async move {
            tokio::time::sleep(idle).await;
            if let Some(unused) = host.inner.warm.take_unused_since(kind, since) {
                tracing::info!(harness = %kind, "idle warm spare stopped");
                unused.close().await;
            }
        });
    }

    /// The ready spare of `kind`, if it is alive and can take `request`. The caller starts
    /// the next one ([`Host::ensure_spare`]) once its fork returned: a harness starting up
    /// beside the fork took half of two cores from it (a warm Codex fork ran ~100 ms in the
    /// app against ~50 ms alone).
    pub(crate) async fn take_spare(
        &self,
        kind: HarnessKind,
        request: &ForkRequest<'_>,
    ) -> Option<Box<dyn WarmSpare>> {
        if !self.inner.warm_forks {
            return None;
        }
        let taken = match self.inner.warm.take_for(kind, request) {
            Some(spare) if spare.alive() => Some(spare),
            Some(dead) => {
                dead.close().await;
                None
            }
            None => None,
        };
        taken
    }

    /// Stops every spare (the Host is shutting down).
    pub(crate) async fn close_spares(&self) {
        for spare in self.inner.warm.drain() {
            spare.close().await;
        }
    }
}
