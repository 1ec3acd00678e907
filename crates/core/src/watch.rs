//! Live sync: a debounced watcher on an open thread's native file. What another writer (the
//! user's own terminal) appends becomes anchors and a `ThreadChanged` event. Re-reading is
//! incremental, so its cost follows the appended bytes.

use std::path::PathBuf;
use std::time::Duration;

use notify_debouncer_mini::{new_debouncer, notify::RecursiveMode, DebounceEventResult};
use tokio::sync::mpsc;

use crate::error::{HostError, HostResult};
use crate::host::Host;

/// Quiet time after the last write before a re-read: harnesses append a turn in bursts.
const DEBOUNCE: Duration = Duration::from_millis(150);

/// A thread being followed. Dropping it stops the watcher and its task.
pub(crate) struct Follow {
    _debouncer: notify_debouncer_mini::Debouncer<notify_debouncer_mini::notify::RecommendedWatcher>,
    path: PathBuf,
}

impl Host {
    /// Follows a thread's native file while it is open in a view. Idempotent; following a
    /// thread whose file doesn't exist yet (a pending fork) watches its folder.
    pub async fn follow(&self, thread_id: &str) -> HostResult<()> {
        let row = self.store().thread(thread_id).await?;
        let Some(path) = row.native_path.map(PathBuf::from) else {
            return Ok(());
        };
        let slot = self.slot(thread_id);
        {
            let watch = slot.watch.lock().unwrap_or_else(|e| e.into_inner());
            if watch.as_ref().is_some_and(|f| f.path == path) {
                return Ok(());
            }
        }
        let Some(dir) = path.parent().map(|d| d.to_owned()) else {
            return Ok(());
        };
        std::fs::create_dir_all(&dir).ok();
        let (tx, mut rx) = mpsc::unbounded_channel::<()>();
        let wanted = path.clone();
        let mut debouncer = new_debouncer(DEBOUNCE, move |res: DebounceEventResult| {
            if let Ok(events) = res {
                if events.iter().any(|e| e.path == wanted) {
                    let _ = tx.send(());
                }
            }
        })
        .map_err(|e| HostError::Internal(format!("file watcher: {e}")))?;
        debouncer
            .watcher()
            .watch(&dir, RecursiveMode::NonRecursive)
            .map_err(|e| HostError::Internal(format!("file watcher: {e}")))?;
        let host = std::sync::Arc::downgrade(&self.inner);
        let id = thread_id.to_owned();
        tokio::spawn(async move {
            while rx.recv().await.is_some() {
                let Some(inner) = host.upgrade() else { break };
                let host = Host { inner };
                if let Err(err) = host.sync_thread(&id).await {
                    tracing::warn!(thread = %id, code = err.code(), "live sync failed");
                    host.emit(crate::events::HostEvent::Error {
                        thread_id: id.clone(),
                        code: err.code().into(),
                        message: err.to_string(),
                    });
                }
            }
        });
        *slot.watch.lock().unwrap_or_else(|e| e.into_inner()) = Some(Follow {
            _debouncer: debouncer,
            path,
        });
        Ok(())
    }

    /// Stops following a thread's native file.
    pub fn unfollow(&self, thread_id: &str) {
        let slot = self.slot(thread_id);
        slot.watch.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}
