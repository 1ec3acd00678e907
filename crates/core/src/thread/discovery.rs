//! Native sessions already on the machine: listing them, importing one as a thread, and
//! rebuilding the store from them after it was moved aside.

use std::path::{Path, PathBuf};

use forkhost_harness::HarnessKind;
use forkhost_store::{Boundary, Lineage, NewThread, NewTurn, ThreadRow, ThreadState};
use serde::Serialize;

use crate::base::branch::BranchSeed;
use crate::base::error::{HostError, HostResult};
use crate::base::view::ThreadDetail;
use crate::files::Placed;
use crate::host::{new_id, Host};

/// A native session found on disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct DiscoveredSession {
    pub harness: HarnessKind,
    pub session_id: String,
    pub path: String,
    /// Unix milliseconds of the file's last change.
    #[ts(type = "number")]
    pub modified: i64,
    /// The thread that already holds it, if any.
    pub thread_id: Option<String>,
}

impl Host {
    /// Where a harness keeps its sessions, as the harnesses see it with this Host's extra
    /// variables (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `PI_CODING_AGENT_DIR`… else under the home
    /// folder they see).
    pub fn session_root(&self, kind: HarnessKind) -> Option<PathBuf> {
        kind.harness().sessions_root(&self.inner.harness_env)
    }

    /// Native sessions on this machine, newest first.
    pub async fn discover(&self) -> HostResult<Vec<DiscoveredSession>> {
        let mut found = Vec::new();
        for kind in HarnessKind::ALL {
            let Some(root) = self.session_root(kind) else {
                continue;
            };
            let files = tokio::task::spawn_blocking(move || session_files(kind, &root))
                .await
                .map_err(|e| HostError::Internal(e.to_string()))?;
            for (path, modified) in files {
                let Some(session_id) = kind.harness().session_id_of(&path) else {
                    continue;
                };
                if kind.harness().check_session_id(&session_id).is_err() {
                    continue;
                }
                let thread_id = self
                    .store()
                    .thread_by_native(kind.as_str(), &session_id)
                    .await?
                    .map(|t| t.id);
                found.push(DiscoveredSession {
                    harness: kind,
                    session_id,
                    path: path.display().to_string(),
                    modified,
                    thread_id,
                });
            }
        }
        found.sort_by_key(|s| std::cmp::Reverse(s.modified));
        Ok(found)
    }

    /// Adopts a native session (by id or path) as a thread. Importing the same session twice
    /// returns the existing thread.
    pub async fn import(&self, kind: HarnessKind, session: &str) -> HostResult<ThreadDetail> {
        self.import_trusting(kind, session, None).await
    }

    /// [`Host::import`], recording `trust` for the session's folder first, over any earlier
    /// decision (`forkhost import --trust yes|no`).
    pub async fn import_trusting(
        &self,
        kind: HarnessKind,
        session: &str,
        trust: Option<bool>,
    ) -> HostResult<ThreadDetail> {
        let path = self.resolve_session(kind, session).await?;
        let row = self.import_path(kind, &path, Some(trust)).await?;
        self.link_lineage(&row).await?;
        self.show(&row.id).await
    }

    /// A branch that came from another machine ([`BranchSeed`]) as a thread here: its turns
    /// written as a native session of its harness in `cwd` (this machine's folder, whose trust
    /// is decided first — `trust` records an answer), then adopted as an imported session is,
    /// under the branch's title. With its files (`bundle`, for [`BranchSeed::files`]) the
    /// thread works in them instead: a new worktree of the clone at `cwd`, or a new repository
    /// made in `cwd` when it is empty (`files/moved.rs`), its trust judged on those files.
    /// Nothing is left when a check fails.
    pub async fn adopt_branch(
        &self,
        branch: BranchSeed,
        cwd: &Path,
        trust: Option<bool>,
        bundle: Option<&Path>,
    ) -> HostResult<ThreadDetail> {
        if branch.seed.turns.is_empty() {
            return Err(HostError::InvalidInput("the branch holds no turns".into()));
        }
        // A machine without the branch's harness refuses before its files are placed: nothing
        // of the branch is left behind on it (`harness_not_found`, with the install words).
        self.inner.harnesses.binary(branch.harness).await?;
        let placed = match (&branch.files, bundle) {
            (Some(files), Some(bundle)) => Some(self.place_files(files, cwd, bundle).await?),
            _ => None,
        };
        let folder = placed.as_ref().map_or(cwd, Placed::cwd).to_owned();
        let turns = branch.seed.turns.len() as i64;
        let origin = branch.origin.clone();
        match self.adopt_in(branch, &folder, trust).await {
            Ok(mut detail) => {
                if let Some(placed) = placed {
                    self.keep_placed(&detail.thread.id, turns, placed).await;
                }
                if let Some(origin) = origin.filter(|o| o.host.is_some()) {
                    detail.moved_from = self.record_origin(&detail.thread.id, origin).await;
                }
                Ok(detail)
            }
            Err(err) => {
                if let Some(placed) = placed {
                    self.undo_placed(placed).await;
                }
                Err(err)
            }
        }
    }

    /// Records where the thread came from (its lineage across machines). Best effort: the
    /// thread is whole without it, so a failure is logged and the thread kept.
    async fn record_origin(
        &self,
        thread_id: &str,
        origin: crate::base::branch::BranchOrigin,
    ) -> Option<crate::base::branch::BranchOrigin> {
        let row = forkhost_store::BranchOriginRow {
            thread_id: thread_id.to_owned(),
            from_host: origin.host.clone()?,
            from_thread: origin.thread.clone(),
            from_title: origin.title.clone(),
            turns: origin.turns,
            moved_at: crate::base::grant_scope::now_ms(),
        };
        match self.store().put_branch_origin(&row).await {
            Ok(()) => Some(origin),
            Err(err) => {
                tracing::warn!(thread = %thread_id, error = %err, "the branch's origin was not recorded");
                None
            }
        }
    }

    /// The branch's thread, its session written in `cwd`.
    async fn adopt_in(
        &self,
        branch: BranchSeed,
        cwd: &Path,
        trust: Option<bool>,
    ) -> HostResult<ThreadDetail> {
        let cwd = crate::thread::lifecycle::checked_cwd(cwd)?;
        if let Some(trusted) = trust {
            self.set_folder_trust(&cwd, trusted).await?;
        }
        self.require_trust_decision(&cwd).await?;
        let binary = self.inner.harnesses.binary(branch.harness).await?;
        let request = forkhost_harness::SeedRequest {
            binary: &binary,
            seed: &branch.seed,
            cwd: &cwd,
            env: &self.inner.harness_env,
        };
        // The seeding process runs in `cwd`: gated as the runtime there is.
        let trusted = crate::trust::fail_closed(self.folder_trust(&cwd).await);
        let written = forkhost_harness::runtime::seed_trusting(request, trusted).await?;
        let path = written
            .session
            .path
            .ok_or_else(|| HostError::HarnessFailed("the seeded session has no file".into()))?;
        let row = self.import_path(branch.harness, &path, None).await?;
        self.rename(&row.id, &branch.title).await?;
        self.show(&row.id).await
    }

    async fn resolve_session(&self, kind: HarnessKind, session: &str) -> HostResult<PathBuf> {
        let session = session.trim();
        if session.is_empty() {
            return Err(HostError::InvalidInput("no session given".into()));
        }
        let as_path = Path::new(session);
        if as_path.is_absolute() || session.ends_with(".jsonl") {
            return if as_path.is_file() {
                dunce::canonicalize(as_path).map_err(|e| HostError::SessionNotFound(e.to_string()))
            } else {
                Err(HostError::SessionNotFound(format!(
                    "no session file at {session}"
                )))
            };
        }
        let root = self
            .session_root(kind)
            .ok_or_else(|| HostError::SessionNotFound(format!("no {kind} session folder")))?;
        let wanted = session.to_owned();
        let hit = tokio::task::spawn_blocking(move || kind.harness().find_session(&root, &wanted))
            .await
            .map_err(|e| HostError::Internal(e.to_string()))?;
        hit.ok_or_else(|| HostError::SessionNotFound(format!("no {kind} session {session}")))
    }

    /// Records a native file as a `ready` thread with anchors for its complete turns.
    /// `trust`: `None` skips the folder-trust check (rebuilding threads that existed);
    /// `Some(given)` requires a decision, recording `given` first (over any earlier one).
    async fn import_path(
        &self,
        kind: HarnessKind,
        path: &Path,
        trust: Option<Option<bool>>,
    ) -> HostResult<ThreadRow> {
        let owned = path.to_owned();
        let (history, cwd) = tokio::task::spawn_blocking(move || {
            let history = forkhost_harness::read_history(kind, &owned)?;
            Ok::<_, forkhost_harness::HistoryError>((history, kind.harness().recorded_cwd(&owned)))
        })
        .await
        .map_err(|e| HostError::Internal(e.to_string()))??;
        let session_id = history
            .session_id
            .clone()
            .or_else(|| kind.harness().session_id_of(path))
            .ok_or_else(|| {
                HostError::InvalidInput(format!("{} has no session id", path.display()))
            })?;
        // The id is put on command lines (the terminal tab's `--resume`): one the harness
        // never makes (`--settings=…` as a file name or a recorded id) is refused here.
        kind.harness().check_session_id(&session_id)?;
        // An explicit answer is recorded even over an earlier one and for a session imported
        // before (`--trust no` on a trusted folder must hold back its config).
        if let (Some(Some(trusted)), Some(folder)) = (trust, cwd.as_deref().map(Path::new)) {
            if folder.is_dir() {
                self.set_folder_trust(folder, trusted).await?;
            }
        }
        if let Some(existing) = self
            .store()
            .thread_by_native(kind.as_str(), &session_id)
            .await?
        {
            return Ok(existing);
        }
        let cwd = cwd.unwrap_or_else(|| "/".to_owned());
        if let (Some(_), true) = (trust, Path::new(&cwd).is_dir()) {
            self.require_trust_decision(Path::new(&cwd)).await?;
        }
        let title = history
            .turns
            .first()
            .map(|_| format!("{kind} {}", short(&session_id)))
            .unwrap_or_else(|| format!("{kind} session"));
        let creating = self
            .store()
            .insert_thread(&NewThread {
                id: new_id(),
                harness: kind.to_string(),
                cwd,
                title,
                state: ThreadState::Creating,
                native_session_id: Some(session_id),
                native_path: Some(path.display().to_string()),
                fork: None,
                pending_fork: None,
                permission_mode: None,
                permission_sandbox: None,
            })
            .await?;
        let turns: Vec<NewTurn> = history
            .turns
            .iter()
            .take_while(|t| t.complete)
            .map(|t| NewTurn {
                id: new_id(),
                native_turn_ref: t.native_turn_ref.clone(),
                native_checkpoint_ref: t.native_checkpoint_ref.clone(),
            })
            .collect();
        let mut ready = creating.clone();
        ready.state = ThreadState::Ready;
        let (row, _) = match self.store().commit_thread(&ready, &turns).await {
            Ok(done) => done,
            Err(err) => {
                let _ = self
                    .store()
                    .delete_thread(&creating.id, creating.revision)
                    .await;
                return Err(err.into());
            }
        };
        tracing::info!(thread = %row.id, harness = %kind, turns = turns.len(), "session imported");
        self.row_changed(&row);
        Ok(row)
    }

    /// Sets a thread's lineage from what its harness recorded (Codex `forked_from_id`, Pi
    /// `parentSession`) or, for Claude, from record uuids shared with another thread.
    async fn link_lineage(&self, row: &ThreadRow) -> HostResult<()> {
        if row.fork.is_some() {
            return Ok(());
        }
        let kind = crate::base::thread::Thread::parse(row.clone())?.kind;
        let Some(path) = row.native_path.clone() else {
            return Ok(());
        };
        let forked_from = {
            let path = PathBuf::from(&path);
            tokio::task::spawn_blocking(move || forkhost_harness::read_history(kind, &path))
                .await
                .map_err(|e| HostError::Internal(e.to_string()))??
                .forked_from
        };
        let mine = self.store().turns(&row.id).await?;
        let mut candidates = Vec::new();
        for other in self.store().threads().await? {
            if other.id == row.id || other.harness != row.harness {
                continue;
            }
            let recorded = forked_from.as_deref().is_some_and(|f| {
                other.native_session_id.as_deref() == Some(f)
                    || other.native_path.as_deref() == Some(f)
            });
            if forked_from.is_some() && !recorded {
                continue;
            }
            let theirs = self.store().turns(&other.id).await?;
            let shared = mine
                .iter()
                .zip(&theirs)
                .take_while(|(a, b)| a.native_turn_ref == b.native_turn_ref)
                .count();
            // Without a recorded source, the source is the oldest thread that shares the
            // longest prefix of turns with this one (Claude forks keep their source's uuids).
            if recorded
                || (shared > 0 && other.created_at <= row.created_at && theirs.len() >= shared)
            {
                candidates.push((recorded, shared, other, theirs));
            }
        }
        candidates.sort_by_key(|(recorded, shared, o, _)| {
            (!*recorded, std::cmp::Reverse(*shared), o.created_at)
        });
        let Some((_, shared, source, theirs)) = candidates.into_iter().next() else {
            return Ok(());
        };
        if forked_from.is_none() && (shared == 0 || shared == mine.len() && shared == theirs.len())
        {
            // Identical histories are not a fork relation we can orient.
            return Ok(());
        }
        let mut next = row.clone();
        next.fork = Some(if shared == 0 {
            Lineage {
                source_thread: source.id.clone(),
                source_turn: theirs.first().map(|t| t.id.clone()),
                boundary: Boundary::Before,
                source_harness: Some(source.harness.clone()),
            }
        } else {
            Lineage {
                source_thread: source.id.clone(),
                source_turn: Some(theirs[shared - 1].id.clone()),
                boundary: Boundary::After,
                source_harness: Some(source.harness.clone()),
            }
        });
        self.store().update_thread(&next).await?;
        Ok(())
    }

    /// After the store was moved aside: adopt every native session on disk, then link forks
    /// to their sources. Returns how many threads were rebuilt.
    pub(crate) async fn rebuild_from_native(&self) -> usize {
        let Ok(found) = self.discover().await else {
            return 0;
        };
        // Oldest session first, so sources come before their forks. A file's last change says
        // little (a harness may touch a source again after it was forked); the first
        // timestamp the session recorded says when it began.
        let mut ordered: Vec<(String, DiscoveredSession)> = Vec::with_capacity(found.len());
        for session in found {
            let path = PathBuf::from(&session.path);
            let began = tokio::task::spawn_blocking(move || first_timestamp(&path))
                .await
                .ok()
                .flatten()
                .unwrap_or_default();
            ordered.push((began, session));
        }
        ordered.sort_by(|(a, x), (b, y)| a.cmp(b).then(x.modified.cmp(&y.modified)));
        let mut rows = Vec::new();
        for (_, session) in &ordered {
            match self
                .import_path(session.harness, Path::new(&session.path), None)
                .await
            {
                Ok(row) => rows.push(row),
                Err(err) => {
                    tracing::warn!(code = err.code(), "a native session could not be rebuilt")
                }
            }
        }
        for row in &rows {
            if let Ok(fresh) = self.store().thread(&row.id).await {
                if let Err(err) = self.link_lineage(&fresh).await {
                    tracing::warn!(code = err.code(), "lineage could not be rebuilt");
                }
            }
        }
        tracing::info!(threads = rows.len(), "store rebuilt from native sessions");
        rows.len()
    }
}

fn short(id: &str) -> &str {
    id.get(..8).unwrap_or(id)
}

/// Session files under a harness's root, with their modification times.
fn session_files(kind: HarnessKind, root: &Path) -> Vec<(PathBuf, i64)> {
    kind.harness()
        .session_files(root)
        .into_iter()
        .filter_map(|p| {
            let modified = std::fs::metadata(&p)
                .and_then(|m| m.modified())
                .ok()?
                .duration_since(std::time::UNIX_EPOCH)
                .ok()?
                .as_millis() as i64;
            Some((p, modified))
        })
        .collect()
}

/// The first `timestamp` a native session recorded (ISO 8601, so text order is time order):
/// when the session began, even for a fork whose copied records carry older times further on.
fn first_timestamp(path: &Path) -> Option<String> {
    forkhost_harness::contract::first_recorded(path, |v| v.get("timestamp"))
}

#[cfg(test)]
mod tests {
    use forkhost_harness::HarnessKind;

    use crate::base::error::HostError;
    use crate::test_host::with_claude_thread;

    /// Review M-4: a session whose id could be read as an option is never imported.
    #[tokio::test]
    async fn an_id_that_is_not_the_harnesses_is_refused_at_import() {
        let t = with_claude_thread().await;
        let id = "--settings={}";
        let record = serde_json::json!({
            "type": "user", "uuid": "u1", "parentUuid": null, "sessionId": id,
            "cwd": t.folder().display().to_string(), "timestamp": "2026-12-05T04:00:01.000Z",
            "message": {"role": "user", "content": "hello"},
        });
        let file = t.folder().join(format!("{id}.jsonl"));
        std::fs::write(&file, format!("{record}\n")).unwrap();
        let refused = t
            .host
            .import(HarnessKind::Claude, &file.display().to_string())
            .await
            .unwrap_err();
        assert!(matches!(refused, HostError::InvalidInput(_)), "{refused:?}");
    }
}
