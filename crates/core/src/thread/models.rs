//! A thread's model (docs/architecture.md "Race"): what its harness offers, as the harness
//! reports it (Pi `get_available_models`, Codex `model/list`; Claude names none here, so any
//! name is tried and Claude refuses one it does not know), and switching its running process
//! to one before its next turn. The choice lives in the harness process (Pi and Codex also
//! record it in the session); Forkhost stores no model.

use std::sync::atomic::Ordering;

use crate::base::error::{HostError, HostResult};
use crate::base::thread_handle::ThreadHandle;
use crate::host::Host;

impl Host {
    /// The models the thread's harness offers (empty: it reports none). Starts its process
    /// if none runs.
    pub async fn models(&self, thread_id: &str) -> HostResult<Vec<String>> {
        let slot = self.handle(thread_id);
        slot.files.ready().await.map_err(HostError::InvalidInput)?;
        let _op = slot.ops.lock().await;
        self.ready_for_model(&slot, thread_id).await?;
        let mut live = slot.live.lock().await;
        let Some(current) = live.as_mut() else {
            return Err(HostError::Internal("no runtime".into()));
        };
        Ok(current.runtime.models().await?)
    }

    /// Switches the thread's harness to `model` from its next turn on. A name the harness
    /// refuses is `invalid_input`, in its words; a running turn is `busy`.
    pub async fn set_model(&self, thread_id: &str, model: &str) -> HostResult<()> {
        let model = model.trim();
        if model.is_empty() || model.len() > 200 || model.chars().any(char::is_control) {
            return Err(HostError::InvalidInput(
                "a model name is one line of at most 200 characters".into(),
            ));
        }
        let slot = self.handle(thread_id);
        slot.files.ready().await.map_err(HostError::InvalidInput)?;
        let _op = slot.ops.lock().await;
        self.ready_for_model(&slot, thread_id).await?;
        let mut live = slot.live.lock().await;
        let Some(current) = live.as_mut() else {
            return Err(HostError::Internal("no runtime".into()));
        };
        let live_change = current.runtime.set_model(model).await?;
        if let Ok(mut chosen) = slot.model.lock() {
            *chosen = Some(model.to_owned());
        }
        if !live_change {
            // Started again with it (the runtime is idle: `ready_for_model` saw to that).
            if let Some(old) = live.take() {
                old.close().await;
            }
            let thread = self.thread(thread_id).await?;
            *live = Some(self.open_runtime(&thread).await?);
        }
        tracing::info!(thread = %thread_id, live_change, "model set");
        Ok(())
    }

    /// No terminal holds the thread and an idle process runs (the caller holds `ops`).
    async fn ready_for_model(&self, slot: &ThreadHandle, thread_id: &str) -> HostResult<()> {
        let thread = self.thread(thread_id).await?;
        thread.usable()?;
        if slot.terminal.load(Ordering::SeqCst) {
            return Err(HostError::Busy(format!(
                "thread {thread_id} is open in a terminal tab; close it to choose its model here"
            )));
        }
        self.ready_runtime(slot, &thread).await
    }
}
