//! Forkhost's mapping store: SQLite via sqlx.
//!
//! It records which native session each thread is, the turn anchors (host turn id → native turn
//! ref and checkpoint ref), lineage, and the window/tab layout. It never holds message text.
//!
//! Every write that changes a thread compare-and-swaps the thread's `revision`; a mismatch is
//! [`StoreError::Conflict`]. The app and the CLI may have one store open at once (WAL mode, a
//! busy timeout, and `BEGIN IMMEDIATE` for multi-statement writes).

mod error;
mod lines;
mod model;
mod open;
mod process;
pub mod queries;
mod store;
mod time;

pub use error::StoreError;
pub use lines::{SwapRecord, Swapped};
pub use model::{
    Boundary, CheckpointRow, Edge, GrantRow, Layout, Lineage, NewThread, NewTurn, TabKind, TabRow,
    ThreadRow, ThreadState, TurnRow, WindowRow, WorktreeRow,
};
pub use open::Recovery;
pub use queries::branch_origins::BranchOriginRow;
pub use queries::rewinds::RewindRow;
pub use store::{Opened, Store};

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
