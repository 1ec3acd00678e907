//! [`LiveRuntime`]: one running process of a harness, attached to one thread.

use async_trait::async_trait;

use super::approval::PermissionMode;
use crate::error::HarnessResult;

/// A live harness process attached to one thread.
#[async_trait]
pub trait LiveRuntime: Send {
    /// Starts a turn with `prompt`; returns once the harness accepted it. The turn's events
    /// follow on the channel, ending with `TurnEnded`. A turn already running is `Busy`.
    async fn send(&mut self, prompt: &str) -> HarnessResult<()>;
    /// Stops the running turn, if any; it ends with `TurnOutcome::Interrupted`.
    async fn interrupt(&mut self) -> HarnessResult<()>;
    /// Takes a new permission mode without a restart, where the harness can: `Ok(true)` when
    /// it applies from now (or from the next turn); `Ok(false)` when the process must be
    /// started again with it (the default).
    async fn set_mode(&mut self, mode: &PermissionMode) -> HarnessResult<bool> {
        let _ = mode;
        Ok(false)
    }
    /// The models it offers, as it reports them (empty: it reports none; a name is then
    /// tried as given, and the harness refuses one it does not know).
    async fn models(&mut self) -> HarnessResult<Vec<String>> {
        Ok(Vec::new())
    }
    /// Uses `model` from the next turn on: `Ok(true)` once it took it; `Ok(false)` when the
    /// process must be started again with it ([`super::OpenSpec::model`]). A name it refuses
    /// is `InvalidInput`, in words.
    async fn set_model(&mut self, model: &str) -> HarnessResult<bool> {
        let _ = model;
        Err(crate::HarnessError::Unsupported(
            "this harness cannot change its model".into(),
        ))
    }
    /// Ends the process cleanly (or kills it after a grace period).
    async fn close(self: Box<Self>) -> HarnessResult<()>;
    /// The harness's process id, while it runs.
    fn pid(&self) -> Option<u32>;
}

/// Implements [`LiveRuntime`] for a harness's runtime type by its inherent `send`,
/// `interrupt`, `close(self)` and `pid` (which its own tests call directly); with `modes`,
/// also by its inherent `set_mode` (one that changes mode live); with `models`, by its
/// inherent `models` and `set_model`. Approvals need nothing here: a request carries its own
/// reply ([`super::Reply`]).
macro_rules! live_runtime {
    ($runtime:ty, modes, models) => {
        $crate::contract::live_runtime!($runtime, {
            async fn set_mode(
                &mut self,
                mode: &$crate::contract::PermissionMode,
            ) -> $crate::HarnessResult<bool> {
                <$runtime>::set_mode(self, mode).await
            }

            async fn models(&mut self) -> $crate::HarnessResult<Vec<String>> {
                <$runtime>::models(self).await
            }

            async fn set_model(&mut self, model: &str) -> $crate::HarnessResult<bool> {
                <$runtime>::set_model(self, model).await
            }
        });
    };
    ($runtime:ty, models) => {
        $crate::contract::live_runtime!($runtime, {
            async fn models(&mut self) -> $crate::HarnessResult<Vec<String>> {
                <$runtime>::models(self).await
            }

            async fn set_model(&mut self, model: &str) -> $crate::HarnessResult<bool> {
                <$runtime>::set_model(self, model).await
            }
        });
    };
    ($runtime:ty, modes) => {
        $crate::contract::live_runtime!($runtime, {
            async fn set_mode(
                &mut self,
                mode: &$crate::contract::PermissionMode,
            ) -> $crate::HarnessResult<bool> {
                <$runtime>::set_mode(self, mode).await
            }
        });
    };
    ($runtime:ty) => {
        $crate::contract::live_runtime!($runtime, {});
    };
    ($runtime:ty, { $($extra:item)* }) => {
        #[async_trait::async_trait]
        impl $crate::contract::LiveRuntime for $runtime {
            async fn send(&mut self, prompt: &str) -> $crate::HarnessResult<()> {
                <$runtime>::send(self, prompt).await
            }

            async fn interrupt(&mut self) -> $crate::HarnessResult<()> {
                <$runtime>::interrupt(self).await
            }

            async fn close(self: Box<Self>) -> $crate::HarnessResult<()> {
                <$runtime>::close(*self).await
            }

            fn pid(&self) -> Option<u32> {
                <$runtime>::pid(self)
            }

            $($extra)*
        }
    };
}
pub(crate) use live_runtime;
