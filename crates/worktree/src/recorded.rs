//! What the last checkpoint through a [`crate::TreeWatch`] recorded: the next one edits it
//! (`tree_edit.rs`), or is it when nothing changed. A leaf both the watch and the edit read.

use crate::oid::Oid;
use crate::snapshot::Skipped;

#[derive(Clone)]
pub(crate) struct Recorded {
    pub commit: Oid,
    pub skipped: Vec<Skipped>,
    /// How the repository reads files, as the last full scan found it.
    pub reading: Reading,
}

/// How the repository reads working files, as the last full scan found it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reading {
    pub shows_untracked: bool,
    /// `core.fileMode`: whether the executable bit on disk is the file's mode.
    pub file_mode: bool,
}
