//! One running terminal: its PTY, its writer and its process tree, and the table of them by id.

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};

use forkhost_harness::process::Tree;
use portable_pty::{ChildKiller, MasterPty};

pub(super) struct Session {
    pub(super) thread_id: String,
    pub(super) master: Box<dyn MasterPty + Send>,
    pub(super) writer: Box<dyn Write + Send>,
    /// The child's process tree; `None` if it could not be guarded (then only the child
    /// itself can be ended, through `killer`).
    pub(super) tree: Option<Tree>,
    pub(super) killer: Box<dyn ChildKiller + Send + Sync>,
}

impl Session {
    /// The first step of closing: a hang-up (a TUI saves and leaves), or a kill where there
    /// is no hang-up. An error means the process could not be signalled at all.
    pub(super) fn hang_up(&mut self) -> std::io::Result<()> {
        match &self.tree {
            Some(tree) => {
                tree.hang_up();
                Ok(())
            }
            None => self.killer.kill(),
        }
    }

    pub(super) fn kill(&mut self) {
        match &self.tree {
            Some(tree) => tree.kill(),
            None => {
                let _ = self.killer.kill();
            }
        }
    }
}

pub(super) type Sessions = Arc<Mutex<HashMap<String, Session>>>;

pub(super) fn lock(sessions: &Sessions) -> std::sync::MutexGuard<'_, HashMap<String, Session>> {
    sessions.lock().unwrap_or_else(|e| e.into_inner())
}
