//! What a harness asks of the user while a turn runs: approvals (tools, questions, plans) and
//! the grants that answer them ahead of time ("always", scoped to what the card showed).
//!
//! Calls: the base.

pub(crate) mod approvals;
pub(crate) mod grants;
