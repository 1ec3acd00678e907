//! Codex: rollout files under `$CODEX_HOME/sessions/YYYY/MM/DD/`.

pub mod history;

pub use history::{find_rollout, CodexReader};

mod app_server;
mod approvals;
mod defaults;
mod events;
mod harness;
mod native_fork;
mod protocol;
pub mod runtime;
mod seed;
mod spare;
mod state;
mod trust;
mod usage;

pub use defaults::default_sandbox;
pub use harness::Codex;
pub use native_fork::fork;
pub use runtime::{capabilities, CodexRuntime};
