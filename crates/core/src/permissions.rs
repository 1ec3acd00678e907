//! A thread's permission mode: how much its harness may do without asking, in the harness's
//! own words. Stored with the thread, handed to the runtime when it starts, inherited by forks.

use forkhost_harness::PermissionMode;

use crate::error::{HostError, HostResult};
use crate::events::HostEvent;
use crate::host::{checked_permissions, Host};
use crate::view::ThreadView;

impl Host {
    /// Changes the thread's mode. A harness takes its mode when its process starts, so an idle
    /// runtime is stopped here and the next send starts it with the new mode; a running turn
    /// is `busy` (change it once the turn ends).
    pub async fn set_mode(
        &self,
        thread_id: &str,
        permissions: PermissionMode,
    ) -> HostResult<ThreadView> {
        let slot = self.slot(thread_id);
        let _op = slot.ops.lock().await;
        let thread = self.thread(thread_id).await?;
        checked_permissions(thread.kind, &permissions)?;
        if thread.permissions() == permissions {
            return Ok((&thread.row).into());
        }
        if slot
            .live
            .lock()
            .await
            .as_ref()
            .is_some_and(|l| l.turn.is_streaming())
        {
            return Err(HostError::Busy(format!(
                "a turn is running in thread {thread_id}; change its mode when it ends"
            )));
        }
        let mut row = thread.row.clone();
        row.permission_mode = permissions.mode;
        row.permission_sandbox = permissions.sandbox;
        let row = self.store().update_thread(&row).await?;
        // Holding the thread's lock, no turn can start before the process is gone.
        self.stop_runtime(&slot).await;
        tracing::info!(thread = %thread_id, "permission mode changed");
        self.emit(HostEvent::ThreadChanged {
            thread_id: thread_id.to_owned(),
        });
        Ok((&row).into())
    }
}
