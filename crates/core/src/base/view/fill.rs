//! A fork's worktree being filled, as a view shows it.

use serde::{Deserialize, Serialize};

/// How far a fork's files are written, for a view opened meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct FillView {
    #[ts(type = "number")]
    pub done: u64,
    /// 0 until git has counted the files.
    #[ts(type = "number")]
    pub total: u64,
}
