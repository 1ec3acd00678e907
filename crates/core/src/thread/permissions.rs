//! A thread's permission mode: how much its harness may do without asking, in the harness's
//! own words. Stored with the thread, handed to the runtime when it starts, inherited by forks.

use forkhost_harness::PermissionMode;

use crate::base::error::{HostError, HostResult};
use crate::base::modes::{checked_permissions, sorted};
use crate::base::view::ThreadView;
use crate::host::Host;

impl Host {
    /// Changes the thread's mode. A harness that can take it live does so at once, even
    /// mid-turn (Claude's `set_permission_mode`; Codex from its next turn); otherwise an idle
    /// runtime is stopped so the next send starts it with the new mode, and a running turn is
    /// `busy` (change it once the turn ends).
    ///
    /// The store and the live process never disagree (review L8): the store's
    /// compare-and-swap comes first, under the `live` lock, so a lost swap (`conflict`) leaves
    /// the process untouched; a process that cannot take the stored mode is restarted, or,
    /// mid-turn, the stored mode is put back and the change is `busy`.
    pub async fn set_mode(
        &self,
        thread_id: &str,
        permissions: PermissionMode,
    ) -> HostResult<ThreadView> {
        let slot = self.handle(thread_id);
        let _op = slot.ops.lock().await;
        let thread = self.thread(thread_id).await?;
        let permissions = sorted(thread.kind, permissions);
        checked_permissions(thread.kind, &permissions)?;
        if thread.permissions() == permissions {
            return self.view_of(&thread.row);
        }
        let mut live = slot.live.lock().await;
        let mut row = thread.row.clone();
        row.permission_mode = permissions.mode.clone();
        row.permission_sandbox = permissions.sandbox.clone();
        let row = self.store().update_thread(&row).await?;
        let applied = match live.as_mut() {
            Some(current) if !current.turn.is_dead() => {
                current.runtime.set_mode(&permissions).await
            }
            _ => Ok(false),
        };
        let streaming = live.as_ref().is_some_and(|l| l.turn.is_streaming());
        drop(live);
        let applied_live = match applied {
            Ok(true) => true,
            Ok(false) | Err(_) if !streaming => false,
            failed => {
                // Mid-turn the process keeps its mode: so does the store.
                let mut back = row.clone();
                back.permission_mode = thread.row.permission_mode.clone();
                back.permission_sandbox = thread.row.permission_sandbox.clone();
                if let Err(err) = self.store().update_thread(&back).await {
                    // Then the store keeps the new mode, and the next send starts a process
                    // with it: marked dead, the runtime is replaced once its turn is over.
                    tracing::error!(thread = %thread_id, error = %err, "could not put a thread's mode back; its harness restarts at the next send");
                    if let Some(current) = slot.live.lock().await.as_ref() {
                        current.turn.mark_dead();
                    }
                }
                return Err(match failed {
                    Err(err) => err.into(),
                    _ => HostError::Busy(format!(
                        "a turn is running in thread {thread_id}; change its mode when it ends"
                    )),
                });
            }
        };
        if !applied_live {
            // Holding the thread's lock, no turn can start before the process is gone; the
            // next one starts with the stored mode.
            self.stop_runtime(&slot).await;
        }
        tracing::info!(thread = %thread_id, live = applied_live, "permission mode changed");
        self.row_changed(&row);
        self.view_of(&row)
    }
}

#[cfg(test)]
#[path = "permissions_tests.rs"]
mod tests;
