//! Codex: rollout files under `$CODEX_HOME/sessions/YYYY/MM/DD/`, and the app-server's history
//! pages.

pub mod history;
pub mod pages;

pub use history::{find_rollout, CodexReader};
pub use pages::{
    items_page, thread_item_message, turn_from_page, turns_page, ItemsPage, PageItem, TurnsPage,
};

mod app_server;
mod harness;
mod native_fork;
mod protocol;
pub mod runtime;

pub use harness::Codex;
pub use runtime::{capabilities, fork, CodexRuntime};
