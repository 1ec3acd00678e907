//! [`TreeWatch`]: which files of a thread's folder changed since its last checkpoint, so the
//! next checkpoint re-reads only those instead of the whole tree (`Repo::checkpoint_watched`,
//! which edits the last checkpoint's tree: `tree_edit`).
//!
//! Why a watcher and not `git status`: status stats every tracked file and walks every folder,
//! so its cost is the repository's size (about 100 ms for 50,000 files), paid twice a turn.
//! The OS already knows what changed; the watcher writes it down.
//!
//! What makes a recorded list trustworthy, and when it is not:
//! - **Nothing missed in flight.** Events reach the watcher's thread a moment after the write.
//!   Before a list is taken, [`TreeWatch::take`] writes a marker file into a folder of its own
//!   that the same watcher watches and waits until the marker's event arrives: inotify (one
//!   queue per watcher) and FSEvents (one stream) deliver in order, so every change made before
//!   the marker has been recorded by then. A marker that does not arrive in time, like any
//!   watcher error, makes the list unknown.
//! - **Unknown means a full scan**: before the first checkpoint through the watch, after the
//!   OS queue overflowed (inotify's `IN_Q_OVERFLOW`, FSEvents' "must scan subdirs"), after a
//!   watcher error, when more than [`MAX_RECORDED`] paths changed, and after a failed
//!   checkpoint (its list was taken and is gone). A change made while no watch ran (the app
//!   closed) is caught the same way: a new watch starts unknown.
//! - **Folders the OS cannot watch for us** (a network mount, where another machine's writes
//!   raise no event) are refused by [`TreeWatch::start`]; the caller then checkpoints with a
//!   full scan every time, as without a watch. So is every folder on Windows for now, where
//!   the marker's folder and the tree are two directory handles whose events have no promised
//!   order (inotify and FSEvents have one queue per watcher).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use crate::error::{Result, WorktreeError};
use crate::recorded::Recorded;

/// More changed paths than this since a checkpoint and the list is dropped for a full scan:
/// past it, naming every path to git costs more than letting git walk (a build, an install).
pub const MAX_RECORDED: usize = 2_000;

/// How long [`TreeWatch::take`] waits for its marker's event before calling the list unknown.
const MARKER_WAIT: Duration = Duration::from_millis(500);

/// What a checkpoint may assume about the files since the last one through the same watch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Since {
    /// Nothing trustworthy: look at every file.
    Unknown,
    /// Only these paths (absolute, as the OS named them) can have changed.
    Paths(Vec<PathBuf>),
}

/// A watcher on one folder (recursively) recording the paths that change in it, and what the
/// last checkpoint through it recorded. Dropping it stops the watcher.
pub struct TreeWatch {
    folder: PathBuf,
    /// The folder as the OS may spell it in events (macOS reports `/private/tmp/…`).
    canonical: Option<PathBuf>,
    shared: Arc<Shared>,
    /// Holds `marks/`, the markers `take` waits for.
    scratch: tempfile::TempDir,
    _watcher: RecommendedWatcher,
}

#[derive(Default)]
struct Shared {
    log: Mutex<Log>,
    marker_arrived: Condvar,
    /// Events the OS delivered, of any kind (for tests).
    #[cfg(test)]
    heard: std::sync::atomic::AtomicU64,
}

#[derive(Default)]
struct Log {
    paths: BTreeSet<PathBuf>,
    /// Whether `paths` is the whole truth since the last checkpoint (see the module docs).
    known: bool,
    /// The newest marker whose event arrived.
    marker_seen: u64,
    marker_sent: u64,
    /// What the last checkpoint through the watch recorded: the next one edits it, or is it
    /// when nothing changed.
    last: Option<Recorded>,
}

impl TreeWatch {
    /// Starts watching `folder` and everything under it. Refused (an I/O error saying why) for
    /// a folder whose changes the OS cannot report (a network mount) or when the watcher
    /// cannot start (e.g. Linux's inotify watch limit reached).
    pub fn start(folder: &Path) -> Result<TreeWatch> {
        // Windows watches the marker folder and the tree through two directory handles, whose
        // events come in no promised order: a marker seen is no proof that an earlier change
        // was. Until that is answered there, its checkpoints read the whole folder.
        if cfg!(windows) {
            return Err(unwatchable(format!(
                "{}: on Windows checkpoints read the whole folder (no ordered marker)",
                folder.display()
            )));
        }
        if let Some(kind) = crate::mount::unwatchable_kind(folder) {
            return Err(unwatchable(format!(
                "{} is on a {kind} file system, whose changes may raise no events here",
                folder.display()
            )));
        }
        let scratch = tempfile::Builder::new()
            .prefix("forkhost-watch-")
            .tempdir()?;
        let marks = scratch.path().join("marks");
        std::fs::create_dir(&marks)?;
        let shared = Arc::new(Shared::default());
        let canonical = dunce::canonicalize(folder).ok();
        let filter = Filter {
            git_dirs: [Some(folder), canonical.as_deref()]
                .into_iter()
                .flatten()
                .map(|f| f.join(".git"))
                .collect(),
            marks: [Some(marks.clone()), dunce::canonicalize(&marks).ok()]
                .into_iter()
                .flatten()
                .collect(),
        };
        let to_log = Arc::clone(&shared);
        // A symlinked folder is one entry to git (the link), so what lies behind it is not
        // watched (it may be anywhere on the disk).
        // Changes only: opens and reads (git, an agent's search, the clones of a fork's fill
        // read every file) are not asked of the OS at all, so they cannot fill its queue,
        // whose overflow would make the next checkpoint read the whole folder.
        let config = notify::Config::default()
            .with_follow_symlinks(false)
            .with_event_kinds(notify::EventKindMask::CORE);
        let mut watcher = RecommendedWatcher::new(
            move |event: notify::Result<notify::Event>| to_log.record(&filter, event),
            config,
        )
        .map_err(|e| unwatchable(format!("the file watcher did not start: {e}")))?;
        watcher
            .watch(&marks, RecursiveMode::NonRecursive)
            .map_err(|e| unwatchable(format!("the file watcher did not start: {e}")))?;
        watcher
            .watch(folder, RecursiveMode::Recursive)
            .map_err(|e| unwatchable(format!("{} cannot be watched: {e}", folder.display())))?;
        Ok(TreeWatch {
            folder: folder.to_owned(),
            canonical,
            shared,
            scratch,
            _watcher: watcher,
        })
    }

    /// The folder watched.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// Whether the next checkpoint through this watch can skip the full scan (for a test or a
    /// log line; the checkpoint decides for itself).
    pub fn knows_changes(&self) -> bool {
        self.log().known
    }

    /// Makes the next checkpoint a full scan, as after an overflow.
    pub fn forget(&self) {
        self.log().known = false;
    }

    /// The list is the whole truth since the watch started: for a watch whose folder held
    /// exactly its last recorded checkpoint then (`Repo::watch_checkout`). What it recorded
    /// meanwhile stays: those are changes made after the start.
    pub(crate) fn known_from_now(&self) {
        self.log().known = true;
    }

    /// The paths recorded since the last checkpoint, emptying the list; `Unknown` when the list
    /// cannot be trusted. Waits (at most [`MARKER_WAIT`]) until every change made before the
    /// call has reached the list.
    pub(crate) fn take(&self) -> Since {
        let seq = {
            let mut log = self.log();
            log.marker_sent += 1;
            log.marker_sent
        };
        let marker = self.scratch.path().join("marks").join(format!("m{seq}"));
        if std::fs::write(&marker, b"").is_err() {
            self.forget();
        }
        let deadline = Instant::now() + MARKER_WAIT;
        let mut log = self.log();
        while log.marker_seen < seq {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                tracing::debug!("file watcher marker late: full scan");
                log.known = false;
                break;
            }
            log = self
                .shared
                .marker_arrived
                .wait_timeout(log, left)
                .map(|(guard, _)| guard)
                .unwrap_or_else(|e| e.into_inner().0);
        }
        let paths = std::mem::take(&mut log.paths);
        let known = std::mem::replace(&mut log.known, true);
        drop(log);
        let _ = std::fs::remove_file(&marker);
        match known {
            true => Since::Paths(paths.into_iter().collect()),
            false => Since::Unknown,
        }
    }

    /// The paths of `since` relative to the folder, `/`-separated; `None` when one is outside
    /// it or not Unicode (a full scan settles those).
    pub(crate) fn relative(&self, paths: &[PathBuf]) -> Option<Vec<String>> {
        paths
            .iter()
            .map(|p| {
                let rel = p.strip_prefix(&self.folder).ok().or_else(|| {
                    self.canonical
                        .as_deref()
                        .and_then(|c| p.strip_prefix(c).ok())
                })?;
                let parts: Option<Vec<&str>> =
                    rel.components().map(|c| c.as_os_str().to_str()).collect();
                Some(parts?.join("/"))
            })
            .collect()
    }

    pub(crate) fn last(&self) -> Option<Recorded> {
        self.log().last.clone()
    }

    /// After a checkpoint through the watch: what it recorded.
    pub(crate) fn recorded(&self, recorded: Recorded) {
        self.log().last = Some(recorded);
    }

    fn log(&self) -> MutexGuard<'_, Log> {
        self.shared.log()
    }
}

impl std::fmt::Debug for TreeWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeWatch")
            .field("folder", &self.folder)
            .finish_non_exhaustive()
    }
}

/// Which events are not the user's files: the repository's own `.git` (a commit, an index
/// refresh) and the markers.
struct Filter {
    git_dirs: Vec<PathBuf>,
    marks: Vec<PathBuf>,
}

impl Shared {
    fn log(&self) -> MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs on the watcher's thread for every event.
    fn record(&self, filter: &Filter, event: notify::Result<notify::Event>) {
        #[cfg(test)]
        self.heard
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut log = self.log();
        let event = match event {
            Ok(event) => event,
            Err(err) => {
                tracing::debug!(error = %err, "file watcher error: full scan next");
                log.known = false;
                return;
            }
        };
        if event.need_rescan() {
            log.known = false;
            log.paths.clear();
            return;
        }
        // Reads and opens change nothing (inotify's close-after-write comes with a modify).
        if matches!(event.kind, EventKind::Access(_)) {
            return;
        }
        for path in event.paths {
            if path
                .parent()
                .is_some_and(|p| filter.marks.iter().any(|m| m == p))
            {
                let seq = path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .and_then(|n| n.strip_prefix('m'))
                    .and_then(|n| n.parse::<u64>().ok());
                if let Some(seq) = seq {
                    log.marker_seen = log.marker_seen.max(seq);
                    self.marker_arrived.notify_all();
                }
                continue;
            }
            if filter.git_dirs.iter().any(|g| path.starts_with(g)) {
                continue;
            }
            if !log.known {
                continue; // a full scan is coming anyway
            }
            log.paths.insert(path);
            if log.paths.len() > MAX_RECORDED {
                log.known = false;
                log.paths.clear();
            }
        }
    }
}

fn unwatchable(why: String) -> WorktreeError {
    WorktreeError::Io(std::io::Error::new(std::io::ErrorKind::Unsupported, why))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;
    use std::time::{Duration, Instant};

    /// Reading the tree raises no event at all: with opens watched, every read of a file was
    /// one event, and a search through a big tree filled the OS's queue (16,384 events here),
    /// whose overflow sent the next checkpoint back to a full scan.
    #[test]
    fn reading_files_is_not_heard_only_changes_are() {
        let dir = tempfile::tempdir().expect("temp dir");
        for i in 0..50 {
            std::fs::write(dir.path().join(format!("f{i}.txt")), "x").expect("write");
        }
        let watch = TreeWatch::start(dir.path()).expect("watch");
        watch.known_from_now();
        for _ in 0..3 {
            for i in 0..50 {
                std::fs::read(dir.path().join(format!("f{i}.txt"))).expect("read");
            }
        }
        let changed = dir.path().join("f7.txt");
        std::fs::write(&changed, "y").expect("change");
        // Events come in order: once the change is heard, any read before it was too.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !watch.log().paths.iter().any(|p| p.ends_with("f7.txt")) {
            assert!(Instant::now() < deadline, "the change was never heard");
            std::thread::sleep(Duration::from_millis(10));
        }
        let heard = watch.shared.heard.load(Ordering::Relaxed);
        assert!(heard <= 5, "{heard} events for 150 reads and one write");
        assert!(watch.knows_changes());
    }
}
