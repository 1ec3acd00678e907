//! Warm spares in a long-lived Host (`HostOptions::warm_forks`, the app): one initialized
//! process per harness that has threads open, kept ready so that a fork runs in it at once and
//! it then is the fork's runtime (`WarmSpare`). A new one starts in the background when one is
//! used; one unused for the idle timeout is stopped; the user never sees them. The one-shot
//! CLI keeps the cold path.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use forkhost_harness::runtime::Runtime;
use forkhost_harness::{ForkRequest, HarnessKind, WarmSpare};

use crate::host::Host;

struct Ready {
    spare: Box<dyn WarmSpare>,
    since: Instant,
}

/// The ready spares, at most one per harness, and the harnesses whose spare is starting.
#[derive(Default)]
pub(crate) struct Spares {
    ready: Mutex<HashMap<HarnessKind, Ready>>,
    starting: Mutex<HashSet<HarnessKind>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Host {
    /// Makes sure a spare of `kind` is ready or starting (in the background). Nothing for a
    /// one-shot Host, or a harness without spares.
    pub(crate) fn ensure_spare(&self, kind: HarnessKind) {
        if !self.inner.warm_forks
            || lock(&self.inner.spares.ready).contains_key(&kind)
            || !lock(&self.inner.spares.starting).insert(kind)
        {
            return;
        }
        let host = self.clone();
        tokio::spawn(async move {
            let started = host.start_spare(kind).await;
            lock(&host.inner.spares.starting).remove(&kind);
            let Some(spare) = started else {
                return;
            };
            let since = Instant::now();
            let replaced = lock(&host.inner.spares.ready).insert(kind, Ready { spare, since });
            if let Some(old) = replaced {
                old.spare.close().await;
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
        let idle: Duration = self.inner.idle_timeout;
        tokio::spawn(async move {
            tokio::time::sleep(idle).await;
            let unused = {
                let mut ready = lock(&host.inner.spares.ready);
                match ready.get(&kind) {
                    Some(r) if r.since == since => ready.remove(&kind),
                    _ => None,
                }
            };
            if let Some(unused) = unused {
                tracing::info!(harness = %kind, "idle warm spare stopped");
                unused.spare.close().await;
            }
        });
    }

    /// The ready spare of `kind`, if it is alive and can take `request`; a new one starts
    /// in its place.
    pub(crate) async fn take_spare(
        &self,
        kind: HarnessKind,
        request: &ForkRequest<'_>,
    ) -> Option<Box<dyn WarmSpare>> {
        if !self.inner.warm_forks {
            return None;
        }
        let taken = {
            let mut ready = lock(&self.inner.spares.ready);
            match ready.get(&kind) {
                Some(r) if r.spare.can_fork(request) => ready.remove(&kind),
                _ => None,
            }
        };
        let taken = match taken {
            Some(r) if r.spare.alive() => Some(r.spare),
            Some(dead) => {
                dead.spare.close().await;
                None
            }
            None => None,
        };
        self.ensure_spare(kind);
        taken
    }

    /// Stops every spare (the Host is shutting down).
    pub(crate) async fn close_spares(&self) {
        let all: Vec<Ready> = lock(&self.inner.spares.ready)
            .drain()
            .map(|(_, r)| r)
            .collect();
        for ready in all {
            ready.spare.close().await;
        }
    }
}
