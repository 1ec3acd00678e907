//! The warm spare pool: at most one ready process per harness, and the harnesses whose spare
//! is starting. Only the pool's bookkeeping; starting, timing out and handing out spares is
//! the Host's (`thread/warm.rs`).

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::Instant;

use forkhost_harness::{ForkRequest, HarnessKind, WarmSpare};

struct Ready {
    spare: Box<dyn WarmSpare>,
    since: Instant,
}

#[derive(Default)]
pub(crate) struct WarmPool {
    ready: Mutex<HashMap<HarnessKind, Ready>>,
    starting: Mutex<HashSet<HarnessKind>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl WarmPool {
    /// Marks a spare of `kind` as starting; `false` when one is ready or starting already.
    pub fn begin_start(&self, kind: HarnessKind) -> bool {
        !lock(&self.ready).contains_key(&kind) && lock(&self.starting).insert(kind)
    }

    /// The start of `kind`'s spare ended: it is ready from now (`Some`), or it failed.
    /// Answers when it became ready, and the spare it replaced, which the caller closes.
    pub fn started(
        &self,
        kind: HarnessKind,
        spare: Option<Box<dyn WarmSpare>>,
    ) -> Option<(Instant, Option<Box<dyn WarmSpare>>)> {
        lock(&self.starting).remove(&kind);
        let spare = spare?;
        let since = Instant::now();
        let replaced = lock(&self.ready).insert(kind, Ready { spare, since });
        Some((since, replaced.map(|r| r.spare)))
    }

    /// Takes `kind`'s spare if it is still the one that became ready at `since` (unused).
    pub fn take_unused_since(
        &self,
        kind: HarnessKind,
        since: Instant,
    ) -> Option<Box<dyn WarmSpare>> {
        let mut ready = lock(&self.ready);
        match ready.get(&kind) {
            Some(r) if r.since == since => ready.remove(&kind).map(|r| r.spare),
            _ => None,
        }
    }

    /// Takes `kind`'s spare if it can take `request`; a spare that cannot is left for the
    /// next fork.
    pub fn take_for(
        &self,
        kind: HarnessKind,
        request: &ForkRequest<'_>,
    ) -> Option<Box<dyn WarmSpare>> {
        let mut ready = lock(&self.ready);
        match ready.get(&kind) {
            Some(r) if r.spare.can_fork(request) => ready.remove(&kind).map(|r| r.spare),
            _ => None,
        }
    }

    /// Takes every ready spare (the Host is shutting down).
    pub fn drain(&self) -> Vec<Box<dyn WarmSpare>> {
        lock(&self.ready).drain().map(|(_, r)| r.spare).collect()
    }
}
