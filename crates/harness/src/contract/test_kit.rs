//! What the harness modules' unit tests share: files laid out on disk (a project's config
//! folders for the folder-trust tests of Claude Code and Codex), and a seeded session read
//! back (the seed tests of Claude Code and Pi).

use std::path::Path;

use crate::{History, ToolCall};

/// Writes `text` to `path`, making its folders first.
pub(crate) fn write_file(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The tool calls of turn `turn`, in order, as the harness's reader shows them.
pub(crate) fn tool_calls(history: &History, turn: usize) -> Vec<ToolCall> {
    history.turns[turn]
        .messages
        .iter()
        .filter_map(|m| m.tool.clone())
        .collect()
}
