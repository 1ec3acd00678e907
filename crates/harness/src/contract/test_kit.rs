//! What the harness modules' unit tests share: files laid out on disk (a project's config
//! folders for the folder-trust tests of Claude Code and Codex).

use std::path::Path;

/// Writes `text` to `path`, making its folders first.
pub(crate) fn write_file(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}
