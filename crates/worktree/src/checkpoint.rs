//! Checkpoints: a thread's working files recorded as a commit on a hidden ref
//! `refs/forkhost/<thread>/<label>`, without touching the user's index, HEAD, branch or stash.

use crate::error::{Result, WorktreeError};
use crate::git::nul_fields;
use crate::names;
use crate::oid::Oid;
use crate::recorded::{Reading, Recorded};
use crate::repo::Repo;
use crate::snapshot::{Skipped, DEFAULT_SIZE_LIMIT};
use crate::watch::{Since, TreeWatch};

/// The namespace every ref this crate writes lives under. Nothing outside it is ever written or
/// deleted by a checkpoint or a prune.
pub const REF_PREFIX: &str = "refs/forkhost/";

/// The identity on checkpoint commits, so a machine without `user.name` can checkpoint and the
/// user's identity never lands on a commit they did not make.
const NAME: &str = "Forkhost";
const EMAIL: &str = "forkhost@localhost";

#[derive(Debug, Clone)]
pub struct CheckpointSpec {
    /// The thread the checkpoint belongs to; one ref folder per thread.
    pub thread_id: String,
    /// The checkpoint's name within the thread, e.g. `t3-start`. Reusing a label moves its ref.
    pub label: String,
    /// The previous checkpoint; `None` parents the commit on HEAD (no parent when unborn).
    pub parent: Option<Oid>,
    /// Untracked files larger than this many bytes are skipped and listed.
    pub size_limit: u64,
    /// The thread's folder: only it is walked for changed and untracked files (see the crate
    /// docs, "The scope"); `None` records the whole checkout.
    pub within: Option<std::path::PathBuf>,
}

impl CheckpointSpec {
    pub fn new(thread_id: impl Into<String>, label: impl Into<String>) -> Self {
        CheckpointSpec {
            thread_id: thread_id.into(),
            label: label.into(),
            parent: None,
            size_limit: DEFAULT_SIZE_LIMIT,
            within: None,
        }
    }

    pub fn within(mut self, folder: impl Into<std::path::PathBuf>) -> Self {
        self.within = Some(folder.into());
        self
    }

    pub fn parent(mut self, parent: Oid) -> Self {
        self.parent = Some(parent);
        self
    }

    pub fn size_limit(mut self, bytes: u64) -> Self {
        self.size_limit = bytes;
        self
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub commit: Oid,
    /// The full ref name, `refs/forkhost/<thread>/<label>`.
    pub r#ref: String,
    /// Files that differ from the parent commit (every file when there is no parent).
    pub files_changed_vs_parent: usize,
    /// Untracked files left out (too large, nested repositories).
    pub skipped: Vec<Skipped>,
    /// How much of the folder was read to make it.
    pub scanned: Scanned,
}

/// What a checkpoint read of the folder: what it cost, for a log line, a benchmark or a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scanned {
    /// Every file in scope (`git status` over the folder).
    Full,
    /// Only the paths a [`TreeWatch`] saw change (this many).
    Changed(usize),
    /// Nothing: no change since the last checkpoint through the watch, whose commit it is.
    Unchanged,
}

impl Repo {
    /// Records the checkout's working files as a commit on `refs/forkhost/<thread>/<label>`.
    pub fn checkpoint(&self, spec: &CheckpointSpec) -> Result<Checkpoint> {
        self.record(spec, None)
    }

    /// [`Repo::checkpoint`] for a folder under a [`TreeWatch`] (started on `spec.within`, or on
    /// the checkout's top without one): only the paths the watch saw change since the last
    /// checkpoint through it are re-read, and when none changed the checkpoint *is* the last
    /// one (its commit, under the new label). The first checkpoint through a watch, and any
    /// after the watch lost track (see [`TreeWatch`]), reads the whole folder.
    pub fn checkpoint_watched(
        &self,
        spec: &CheckpointSpec,
        watch: &TreeWatch,
    ) -> Result<Checkpoint> {
        let taken = self.record(spec, Some(watch));
        if taken.is_err() {
            // Its list of changes was taken and is gone with it.
            watch.forget();
        }
        taken
    }

    /// Starts a [`TreeWatch`] on `folder`, a checkout whose files are exactly `commit`'s (a
    /// fork's worktree just filled, before anything ran in it): the first checkpoint through
    /// it is that commit when nothing changed, or an edit of it — no full scan, unlike a watch
    /// started at a checkpoint, which cannot know what changed before it started.
    pub fn watch_checkout(&self, folder: &std::path::Path, commit: &Oid) -> Result<TreeWatch> {
        let commit = self.commit(commit)?;
        let reading = Reading {
            shows_untracked: self.shows_untracked()?,
            file_mode: self.config_bool("core.fileMode")?.unwrap_or(true),
        };
        let watch = TreeWatch::start(folder)?;
        watch.recorded(Recorded {
            commit,
            // A checkout holds no file a checkpoint would leave out: those were never in it.
            skipped: Vec::new(),
            reading,
        });
        watch.known_from_now();
        Ok(watch)
    }

    fn record(&self, spec: &CheckpointSpec, watch: Option<&TreeWatch>) -> Result<Checkpoint> {
        let thread = names::component(&spec.thread_id)?;
        let label = names::component(&spec.label)?;
        let r#ref = format!("{REF_PREFIX}{thread}/{label}");
        let message = format!("forkhost checkpoint {thread}/{label}");
        let since = watch.map(TreeWatch::take);
        let last = watch.and_then(TreeWatch::last);
        if let (Some(watch), Some(Since::Paths(paths)), Some(last)) = (watch, &since, &last) {
            if let Some(done) = self.record_changes(spec, &r#ref, &message, watch, paths, last)? {
                return Ok(done);
            }
        }

        let given = match &spec.parent {
            Some(p) => Some(self.commit(p)?),
            None => None,
        };
        let snapshot = self.snapshot(spec.size_limit, spec.within.as_deref())?;
        // Without a previous checkpoint the parent is HEAD, as the status pass saw it.
        let parent = given.or_else(|| snapshot.head.clone());
        // Counting changed files needs only the trees, so it runs beside commit + update-ref.
        let (commit, files_changed_vs_parent) = std::thread::scope(|scope| {
            let counting = scope.spawn(|| self.count_changed(parent.as_ref(), &snapshot.tree));
            let commit = self.commit_and_point(&r#ref, &message, parent.as_ref(), &snapshot.tree);
            let count = counting
                .join()
                .unwrap_or_else(|_| Err(crate::git::failed("git diff-tree".into(), b"panicked")));
            Ok::<_, WorktreeError>((commit?, count?))
        })?;
        if let Some(watch) = watch {
            let reading = Reading {
                shows_untracked: snapshot.shows_untracked,
                file_mode: self.config_bool("core.fileMode")?.unwrap_or(true),
            };
            watch.recorded(Recorded {
                commit: commit.clone(),
                skipped: snapshot.skipped.clone(),
                reading,
            });
        }
        tracing::debug!(%r#ref, files = files_changed_vs_parent, "checkpoint recorded");
        Ok(Checkpoint {
            commit,
            r#ref,
            files_changed_vs_parent,
            skipped: snapshot.skipped,
            scanned: Scanned::Full,
        })
    }

    /// The checkpoint from what the watch saw change since `last`: `last` itself when nothing
    /// did, else an edit of its tree; `None` when a full scan must decide.
    fn record_changes(
        &self,
        spec: &CheckpointSpec,
        r#ref: &str,
        message: &str,
        watch: &TreeWatch,
        paths: &[std::path::PathBuf],
        last: &Recorded,
    ) -> Result<Option<Checkpoint>> {
        if paths.is_empty() {
            self.point(r#ref, message, &last.commit)?;
            let files_changed_vs_parent = match &spec.parent {
                Some(parent) if *parent != last.commit => {
                    self.count_changed(Some(parent), &last.commit)?
                }
                _ => 0,
            };
            tracing::debug!(%r#ref, "checkpoint unchanged since the last one");
            return Ok(Some(Checkpoint {
                commit: last.commit.clone(),
                r#ref: r#ref.to_owned(),
                files_changed_vs_parent,
                skipped: last.skipped.clone(),
                scanned: Scanned::Unchanged,
            }));
        }
        // An edit continues the last checkpoint's chain only.
        if spec.parent.as_ref() != Some(&last.commit) {
            return Ok(None);
        }
        let Some(relative) = watch.relative(paths) else {
            return Ok(None);
        };
        let changed: Vec<String> = match self.relative_of(watch.folder())? {
            Some(prefix) => relative
                .into_iter()
                .map(|p| match p.is_empty() {
                    true => prefix.clone(),
                    false => format!("{prefix}/{p}"),
                })
                .collect(),
            None => relative,
        };
        let Some(edited) = self.edit_checkpoint(spec.size_limit, r#ref, message, last, &changed)?
        else {
            return Ok(None);
        };
        let files_changed_vs_parent = match edited.files_changed {
            Some(count) => count,
            None => self.count_changed(Some(&last.commit), &edited.commit)?,
        };
        watch.recorded(Recorded {
            commit: edited.commit.clone(),
            skipped: edited.skipped.clone(),
            reading: last.reading,
        });
        tracing::debug!(%r#ref, files = files_changed_vs_parent, "checkpoint edited");
        Ok(Some(Checkpoint {
            commit: edited.commit,
            r#ref: r#ref.to_owned(),
            files_changed_vs_parent,
            skipped: edited.skipped,
            scanned: Scanned::Changed(changed.len()),
        }))
    }

    /// Points `r#ref` at an existing commit.
    pub(crate) fn point(&self, r#ref: &str, message: &str, commit: &Oid) -> Result<()> {
        self.git
            .call(&self.root)
            .args(["update-ref", "-m", message, r#ref, commit.as_str()])
            .run()?;
        Ok(())
    }

    /// `commit-tree` with the fixed identity, then the ref pointed at the new commit.
    fn commit_and_point(
        &self,
        r#ref: &str,
        message: &str,
        parent: Option<&Oid>,
        tree: &Oid,
    ) -> Result<Oid> {
        let mut call = self
            .git
            .call(&self.root)
            .env("GIT_AUTHOR_NAME", NAME)
            .env("GIT_AUTHOR_EMAIL", EMAIL)
            .env("GIT_COMMITTER_NAME", NAME)
            .env("GIT_COMMITTER_EMAIL", EMAIL)
            .args(["commit-tree", "--no-gpg-sign", "-m", message]);
        if let Some(p) = parent {
            call = call.args(["-p", p.as_str()]);
        }
        let out = call.arg(tree.as_str()).run()?;
        let commit = Oid::from_output(&out)
            .ok_or_else(|| crate::git::failed("git commit-tree".into(), b"no commit id"))?;
        self.point(r#ref, message, &commit)?;
        Ok(commit)
    }

    /// Files that differ between `parent`'s tree and `tree` (a tree or a commit; all of
    /// `tree`'s files when there is no parent).
    fn count_changed(&self, parent: Option<&Oid>, tree: &Oid) -> Result<usize> {
        let call = self.git.call(&self.root).args([
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--name-only",
        ]);
        let out = match parent {
            Some(p) => call.args([p.as_str(), tree.as_str()]).run()?,
            None => self
                .git
                .call(&self.root)
                .args(["ls-tree", "-r", "-z", "--name-only", tree.as_str()])
                .run()?,
        };
        Ok(nul_fields(&out).count())
    }

    /// Points `refs/forkhost/<thread>/<label>` at each given commit (existing checkpoints,
    /// named for another thread too): a thread that takes over another's turns keeps their
    /// checkpoints reachable under its own name, whatever the other thread's refs become.
    pub fn name_checkpoints(&self, thread_id: &str, named: &[(String, Oid)]) -> Result<()> {
        let thread = names::component(thread_id)?;
        let mut script = String::new();
        for (label, commit) in named {
            let label = names::component(label)?;
            script.push_str(&format!(
                "update {REF_PREFIX}{thread}/{label} {}\n",
                commit.as_str()
            ));
        }
        // Nothing named: an empty script, which git takes as nothing to do.
        self.git
            .call(&self.root)
            .args(["update-ref", "--stdin"])
            .stdin(script.into_bytes())
            .run()?;
        Ok(())
    }

    /// The thread's checkpoints, `(label, commit)`, sorted by label.
    pub fn checkpoints(&self, thread_id: &str) -> Result<Vec<(String, Oid)>> {
        let thread = names::component(thread_id)?;
        let prefix = format!("{REF_PREFIX}{thread}/");
        let out = self
            .git
            .call(&self.root)
            .args(["for-each-ref", "--format=%(objectname) %(refname)", &prefix])
            .run()?;
        let text = String::from_utf8_lossy(&out);
        let mut found: Vec<(String, Oid)> = text
            .lines()
            .filter_map(|line| {
                let (oid, name) = line.split_once(' ')?;
                let label = name.strip_prefix(&prefix)?;
                Some((label.to_owned(), oid.parse().ok()?))
            })
            .collect();
        found.sort();
        Ok(found)
    }

    /// The commit a checkpoint label names, or [`WorktreeError::CheckpointNotFound`].
    pub fn checkpoint_commit(&self, thread_id: &str, label: &str) -> Result<Oid> {
        let name = format!(
            "{REF_PREFIX}{}/{}",
            names::component(thread_id)?,
            names::component(label)?
        );
        self.resolve_commit(&name)?
            .ok_or(WorktreeError::CheckpointNotFound(name))
    }

    /// Deletes the thread's checkpoint refs (`refs/forkhost/<thread>/*`) and nothing else. The
    /// commits stay in the object store until git's own garbage collection finds them unreachable.
    /// Returns how many refs were deleted.
    pub fn prune(&self, thread_id: &str) -> Result<usize> {
        let thread = names::component(thread_id)?;
        let prefix = format!("{REF_PREFIX}{thread}/");
        let refs: Vec<String> = self
            .checkpoints(thread)?
            .into_iter()
            .map(|(label, _)| format!("{prefix}{label}"))
            .collect();
        if refs.is_empty() {
            return Ok(0);
        }
        let mut script = String::new();
        for name in &refs {
            // Every name was listed under the prefix a line ago; assert it again before deleting.
            debug_assert!(name.starts_with(&prefix));
            script.push_str("delete ");
            script.push_str(name);
            script.push('\n');
        }
        self.git
            .call(&self.root)
            .args(["update-ref", "--stdin"])
            .stdin(script.into_bytes())
            .run()?;
        tracing::debug!(thread, count = refs.len(), "pruned checkpoints");
        Ok(refs.len())
    }
}
