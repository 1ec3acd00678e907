//! [`FileWatch`]: a debounced watcher on one file. It calls back once a burst of writes to the
//! file settles; what a change means is the caller's business.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify_debouncer_mini::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_mini::{new_debouncer, DebounceEventResult, Debouncer};

/// Quiet time after the last write before a re-read: harnesses append a turn in bursts.
const DEBOUNCE: Duration = Duration::from_millis(150);

#[derive(Debug, thiserror::Error)]
pub(crate) enum WatchError {
    #[error("file watcher: {0} has no folder")]
    NoFolder(PathBuf),
    #[error("file watcher: {0}")]
    Notify(#[from] notify_debouncer_mini::notify::Error),
}

/// A file being watched. Dropping it stops the watcher.
pub(crate) struct FileWatch {
    _debouncer: Debouncer<RecommendedWatcher>,
    path: PathBuf,
}

impl FileWatch {
    /// Watches `path`, calling `on_change` (on the watcher's own thread) after writes to it
    /// settle. The file need not exist yet (a pending fork's appears with its first prompt): its
    /// folder is watched, and created if missing.
    pub fn start(
        path: &Path,
        on_change: impl Fn() + Send + 'static,
    ) -> Result<FileWatch, WatchError> {
        let dir = path
            .parent()
            .ok_or_else(|| WatchError::NoFolder(path.to_owned()))?;
        std::fs::create_dir_all(dir).ok();
        let wanted = Target::new(path);
        let mut debouncer = new_debouncer(DEBOUNCE, move |res: DebounceEventResult| {
            if let Ok(events) = res {
                if events.iter().any(|e| wanted.matches(&e.path)) {
                    on_change();
                }
            }
        })?;
        debouncer
            .watcher()
            .watch(dir, RecursiveMode::NonRecursive)?;
        Ok(FileWatch {
            _debouncer: debouncer,
            path: path.to_owned(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The file a watcher waits for, recognized however the OS spells its path: inotify reports
/// the watched folder's path (through any symlink), macOS FSEvents the canonical one
/// (`/private/tmp/…` for `/tmp/…`, the target of a symlinked `~/.claude`).
#[derive(Debug, Clone)]
struct Target {
    path: PathBuf,
    file_name: Option<OsString>,
    /// The folder as given and as resolved (when it exists).
    dirs: Vec<PathBuf>,
}

impl Target {
    fn new(path: &Path) -> Self {
        let dir = path.parent().map(Path::to_path_buf);
        let canonical = dir.as_deref().and_then(|d| dunce::canonicalize(d).ok());
        Self::with_canonical_dir(path, canonical)
    }

    fn with_canonical_dir(path: &Path, canonical_dir: Option<PathBuf>) -> Self {
        let mut dirs: Vec<PathBuf> = path.parent().map(Path::to_path_buf).into_iter().collect();
        dirs.extend(canonical_dir.filter(|c| !dirs.contains(c)));
        Target {
            path: path.to_path_buf(),
            file_name: path.file_name().map(|n| n.to_os_string()),
            dirs,
        }
    }

    fn matches(&self, event: &Path) -> bool {
        event == self.path
            || (event.file_name() == self.file_name.as_deref()
                && event
                    .parent()
                    .is_some_and(|p| self.dirs.iter().any(|d| d == p)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn macos_events_carry_the_canonical_path() {
        let target = Target::with_canonical_dir(
            Path::new("/tmp/h/.claude/projects/-w/s.jsonl"),
            Some(PathBuf::from("/private/tmp/h/.claude/projects/-w")),
        );
        assert!(target.matches(Path::new("/tmp/h/.claude/projects/-w/s.jsonl")));
        assert!(target.matches(Path::new("/private/tmp/h/.claude/projects/-w/s.jsonl")));
        assert!(!target.matches(Path::new("/private/tmp/h/.claude/projects/-w/t.jsonl")));
        assert!(!target.matches(Path::new("/private/tmp/h/.claude/projects/-x/s.jsonl")));
        assert!(!target.matches(Path::new("/private/tmp/h/.claude/projects/-w")));
        // A symlinked config folder: events name the link's target.
        let target = Target::with_canonical_dir(
            Path::new("/Users/me/.claude/projects/-w/s.jsonl"),
            Some(PathBuf::from("/Volumes/data/claude/projects/-w")),
        );
        assert!(target.matches(Path::new("/Volumes/data/claude/projects/-w/s.jsonl")));
    }
}
