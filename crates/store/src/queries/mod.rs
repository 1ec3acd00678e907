//! One module per table. Each function takes a connection (or a transaction deref'd to one) so
//! that [`crate::Store`] can compose several into one transaction.

pub mod acp_agents;
pub mod branch_origins;
pub mod checkpoints;
pub mod checks;
pub mod grants;
pub mod layout;
pub mod lineage;
pub mod races;
pub mod remote_hosts;
pub mod rewinds;
pub mod setup;
pub mod threads;
pub mod trust;
pub mod turns;
pub mod worktrees;
