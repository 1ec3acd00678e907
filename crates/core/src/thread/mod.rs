//! A thread's life: opened, listed, shown, created, renamed, archived; its turns, the pump
//! that carries a turn's events, live follow of a native file, the anchors that tie turns to
//! the native session, warm harness processes, names, models and permission modes, export,
//! the window layout and the terminal tab.
//!
//! Calls: `files`, `trust`, `requests` and the base.

pub(crate) mod anchors;
pub(crate) mod discovery;
pub(crate) mod disk_full;
pub(crate) mod export;
pub(crate) mod follow;
pub(crate) mod layout;
pub(crate) mod lifecycle;
pub(crate) mod models;
pub(crate) mod names;
pub(crate) mod permissions;
pub(crate) mod pump;
pub(crate) mod snapshots;
pub(crate) mod terminal;
pub(crate) mod turns;
pub(crate) mod warm;
