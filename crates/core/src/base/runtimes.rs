//! [`Runtimes`]: every thread's [`ThreadHandle`] in this process, and what is done to the live harness
//! processes they hold as a whole: stopping the idle ones, stopping all of them on quit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, Instant};

use crate::base::thread_handle::ThreadHandle;

/// Quitting: how long the runtimes get to close on their own, together. Then whatever is left
/// is dropped, which kills its process tree; the whole stays within the 3 s a quit may take.
pub(crate) const SHUTDOWN_GRACE: Duration = Duration::from_millis(2500);

#[derive(Default)]
pub(crate) struct Runtimes {
    slots: StdMutex<HashMap<String, Arc<ThreadHandle>>>,
}

impl Runtimes {
    /// The thread's slot, made on first use.
    pub fn slot(&self, thread_id: &str) -> Arc<ThreadHandle> {
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots
            .entry(thread_id.to_owned())
            .or_insert_with(|| Arc::new(ThreadHandle::new(thread_id)))
            .clone()
    }

    fn all(&self) -> Vec<(String, Arc<ThreadHandle>)> {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        slots
            .iter()
            .map(|(id, s)| (id.clone(), s.clone()))
            .collect()
    }

    /// Closes every live runtime concurrently. Past `grace` the closes still running are
    /// abandoned: dropping a runtime kills its process tree at once. A runtime whose thread is
    /// held by an operation that outlasts `grace` (a send waiting for the harness) is left to
    /// that operation; when the app exits, its process tree dies with it anyway.
    pub async fn stop_all(&self, grace: Duration) {
        let started = Instant::now();
        let mut closing = tokio::task::JoinSet::new();
        for (_, slot) in self.all() {
            closing.spawn(async move {
                let live = slot.live.lock().await.take();
                if let Some(live) = live {
                    live.close().await;
                }
            });
        }
        let count = closing.len();
        let all_closed = tokio::time::timeout(grace, async {
            while closing.join_next().await.is_some() {}
        })
        .await
        .is_ok();
        if !all_closed {
            tracing::warn!(
                left = closing.len(),
                "runtimes did not close in time; killing them"
            );
            // Aborting drops each close future and with it the runtime it owns.
            closing.shutdown().await;
        }
        tracing::info!(
            slots = count,
            all_closed,
            ms = started.elapsed().as_millis() as u64,
            "runtimes stopped"
        );
    }

    /// Stops runtimes that had no turn for `limit`, checking every so often, for as long as
    /// these runtimes are in use (the task holds them weakly); `stopped` hears each thread whose
    /// runtime it stopped.
    pub fn reap_idle(
        self: &Arc<Self>,
        limit: Duration,
        stopped: impl Fn(&str) + Send + Sync + 'static,
    ) {
        let weak = Arc::downgrade(self);
        let every = (limit / 4).clamp(Duration::from_millis(100), Duration::from_secs(60));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(runtimes) = weak.upgrade() else {
                    break;
                };
                for thread_id in runtimes.stop_idle(limit).await {
                    stopped(&thread_id);
                }
            }
        });
    }

    /// Stops the runtimes idle for `limit`; returns their threads.
    async fn stop_idle(&self, limit: Duration) -> Vec<String> {
        let mut stopped = Vec::new();
        for (id, slot) in self.all() {
            // A thread busy with an operation is not idle.
            let Ok(_op) = slot.ops.try_lock() else {
                continue;
            };
            let mut live = slot.live.lock().await;
            if live.as_ref().is_some_and(|l| l.turn.idle_for(limit)) {
                if let Some(idle) = live.take() {
                    tracing::info!(thread = %id, "idle runtime stopped");
                    idle.close().await;
                    stopped.push(id);
                }
            }
        }
        stopped
    }
}
