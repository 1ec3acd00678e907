//! The base: what every wing stands on and nothing in it calls up. The views the shells
//! receive, the fork point, a thread's parsed row and its live handle, errors, events and the
//! leaves (text, watch, prices, pending requests, modes, grant scopes, runtimes and pools). No file here
//! calls a Host method defined in a wing (`tests/tests/support/no_circles.rs` checks it).

pub(crate) mod acp_agents;
pub(crate) mod branch;
pub(crate) mod derived_session;
pub(crate) mod error;
pub(crate) mod events;
pub(crate) mod failpoint;
pub(crate) mod fork_point;
pub(crate) mod grant_scope;
pub mod harnesses;
pub(crate) mod modes;
pub(crate) mod pending;
pub(crate) mod price;
pub(crate) mod runtimes;
pub(crate) mod text;
pub(crate) mod thread;
pub(crate) mod thread_handle;
pub(crate) mod thread_views;
#[cfg(test)]
mod thread_views_tests;
pub(crate) mod view;
pub(crate) mod warm_pool;
pub(crate) mod watch;
pub(crate) mod worktree_claims;
