//! The fork engine: check → insert `creating` with lineage → native fork → read the derived
//! history and give every inherited turn a new host turn id → commit in one transaction →
//! return (with the prefill text for `before`).
//!
//! If the native fork fails, the `creating` row is deleted and the source is unchanged. If the
//! commit fails after the native fork, the row is deleted and the harness's files are left
//! alone. A crash anywhere leaves at most a `creating` row, which the next start removes.

pub(crate) mod continue_in;
pub(crate) mod preview;

use forkhost_harness::{Cut, Forked, HarnessKind, NativeSession, TurnAnchor};
use forkhost_store::{Boundary, Lineage, NewThread, NewTurn, ThreadRow, ThreadState, TurnRow};

use crate::base::error::{HostError, HostResult};
use crate::base::failpoint;
use crate::base::fork_point::{ForkAt, TurnRef};
use crate::base::thread::{encode_pending, Thread};
use crate::base::view::{ForkResult, ForkTiming};
use crate::files::worktree_fork::Decided;
use crate::files::ForkFiles;
use crate::host::{new_id, Host};
use crate::thread::names::{fork_label, numbered};

/// The checked plan of one fork.
/// A runtime a warm spare became, with the events it sent so far.
type Adopted = (
    forkhost_harness::runtime::Runtime,
    tokio::sync::mpsc::UnboundedReceiver<forkhost_harness::RuntimeEvent>,
);

struct Plan {
    source: ThreadRow,
    /// The native session the harness forks: the thread's own, or a pending fork's source.
    native: NativeSession,
    kind: HarnessKind,
    /// The harness the fork runs in: `kind`, or another one the conversation continues in.
    target: HarnessKind,
    /// The cut falls where the harness has no native coordinate (a turn carried in from
    /// another harness, which Codex records outside its turns): the fork is seeded from the
    /// turns' text, as a cross fork is, in the same harness.
    reseed: bool,
    turn: TurnRow,
    boundary: Boundary,
    cut: Cut,
    /// The source's native anchors as read just now.
    anchors: Vec<TurnAnchor>,
    /// How many of the source's turns the fork keeps.
    kept: usize,
}

impl Host {
    /// Forks a thread at a boundary, in its source's folder unless the source has file
    /// checkpoints (then in a worktree with the files as of the fork point).
    pub async fn fork(&self, source_id: &str, at: ForkAt) -> HostResult<ForkResult> {
        self.fork_with(source_id, at, ForkFiles::Auto).await
    }

    /// Forks a thread at a boundary, its files as `files` says. See the module docs for the
    /// protocol; a worktree made for a fork that then fails is removed again.
    pub async fn fork_with(
        &self,
        source_id: &str,
        at: ForkAt,
        files: ForkFiles,
    ) -> HostResult<ForkResult> {
        self.fork_into(source_id, at, files, None).await
    }

    /// [`Host::fork_with`] into `into`'s harness: the same harness (or `None`) is a native
    /// fork; another one continues the conversation there, in a new native session of that
    /// harness holding the turns up to the cut ([`crate::fork::continue_in`]).
    pub async fn fork_into(
        &self,
        source_id: &str,
        at: ForkAt,
        files: ForkFiles,
        into: Option<HarnessKind>,
    ) -> HostResult<ForkResult> {
        let started = std::time::Instant::now();
        let ms = |since: std::time::Instant| since.elapsed().as_secs_f64() * 1e3;
        let plan = self.plan_fork(source_id, &at, into).await?;
        let check_ms = ms(started);
        let cross = plan.target != plan.kind;
        let seeded = cross || plan.reseed;
        let binary = self.inner.harnesses.binary(plan.target).await?;
        let caps = binary.capabilities();
        if cross {
            // Another harness reads the folder's project config: trust is decided for it as
            // for a new thread.
            self.require_trust_decision(std::path::Path::new(&plan.source.cwd))
                .await?;
            if caps.boundaries.is_empty() {
                return Err(HostError::Unsupported(format!(
                    "{} {} cannot take a conversation from another harness{}",
                    plan.target,
                    binary.version,
                    caps.note.map(|n| format!(": {n}")).unwrap_or_default()
                )));
            }
        } else if !caps.boundaries.contains(&plan.boundary.as_str()) {
            return Err(HostError::Unsupported(format!(
                "{} {} cannot fork {}{}",
                plan.kind,
                binary.version,
                plan.boundary,
                caps.note.map(|n| format!(": {n}")).unwrap_or_default()
            )));
        }

        // Step 2: the child exists only as `creating` until the commit.
        // The source's session grants stay with it: a fork is a new session and asks again
        // (crate::requests::grants).
        let child = self.insert_creating(&plan).await?;
        failpoint::hit("after_insert")?;

        // Its files: a worktree as of the fork point, or the source's folder.
        let decided = self
            .decide_files(
                &plan.source,
                plan.turn.ordinal,
                plan.boundary,
                &child.id,
                files,
            )
            .await;
        let (worktree, files_note) = match decided {
            Ok(Decided::Worktree(prepared)) => {
                let note = prepared.note.clone();
                (Some(prepared), note)
            }
            Ok(Decided::SameFolder { note }) => (None, note),
            Err(err) => {
                self.discard(&child).await;
                return Err(err);
            }
        };

        // Step 3: the harness derives the native session (in the worktree, for one).
        let source_native = plan.native.clone();
        let native_started = std::time::Instant::now();
        let request = forkhost_harness::ForkRequest {
            binary: &binary,
            source: &source_native,
            anchors: &plan.anchors,
            cut: plan.cut,
            env: &self.inner.harness_env,
            cwd: worktree.as_ref().map(|w| w.cwd.as_path()),
        };
        // The folder whose project config decides whether a warm spare may fork it: a new
        // worktree has no file yet, so its source's folder (the same repository) speaks for it.
        let config_folder = match &worktree {
            Some(_) => std::path::PathBuf::from(&plan.source.cwd),
            None => plan.native.cwd.clone(),
        };
        let mut carry_note = None;
        let (forked, adopted) = match seeded {
            true => {
                let cwd = match &worktree {
                    Some(w) => w.cwd.clone(),
                    None => std::path::PathBuf::from(&plan.source.cwd),
                };
                let seeded = self
                    .seed_fork(&plan.native, plan.kind, plan.kept, &binary, &cwd)
                    .await;
                let (seeded, note) = match seeded {
                    Ok((forked, note)) => (Ok(forked), Some(note)),
                    Err(err) => (Err(err), None),
                };
                // Said only where the conversation crossed into another harness.
                carry_note = note.filter(|_| cross);
                (seeded, None)
            }
            false => self.native_fork(&plan, request, &config_folder).await,
        };
        let forked = match forked {
            Ok(forked) => forked,
            Err(err) => {
                self.discard(&child).await;
                if let Some(worktree) = worktree {
                    self.undo_worktree(*worktree).await;
                }
                return Err(err);
            }
        };
        let native_ms = ms(native_started);
        let warm = adopted.is_some();

        // Step 4: anchors with new host ids, committed in one transaction.
        let commit_started = std::time::Instant::now();
        let mut child_row = child.clone();
        if let Some(worktree) = &worktree {
            child_row.cwd = worktree.cwd.display().to_string();
        }
        let committed = self.commit_fork(&plan, child_row, &forked).await;
        let (committed, turns) = match committed {
            Ok(committed) => committed,
            Err(err) => {
                if let Some((runtime, _)) = adopted {
                    let _ = runtime.close().await;
                }
                if seeded {
                    self.remove_seeded(&forked);
                }
                self.discard(&child).await;
                if let Some(worktree) = worktree {
                    self.undo_worktree(*worktree).await;
                }
                return Err(err);
            }
        };
        // The fork keeps its source's checkpoints for the turns it keeps, and remembers its
        // worktree. Both only add detail: a failure is logged, the fork stands.
        if let Err(err) = self
            .store()
            .copy_checkpoints(&plan.source.id, &committed.id, plan.kept as i64)
            .await
        {
            tracing::warn!(fork = %committed.id, error = %err, "could not copy checkpoints");
        }
        if let Some(worktree) = &worktree {
            if let Err(err) = self
                .store()
                .put_worktree(&worktree.row(&committed.id))
                .await
            {
                tracing::warn!(fork = %committed.id, error = %err, "could not record the worktree");
            }
        }
        failpoint::hit("after_commit")?;
        // Its files are written now, after the fork returns; its Sends wait for them (and the
        // repository's setup command runs once they are there).
        let files_pending = worktree.is_some();
        if let Some(worktree) = worktree {
            self.fill_fork_files(&committed.id, *worktree);
        }
        let commit_ms = ms(commit_started);

        let read_started = std::time::Instant::now();
        let prefill = match plan.boundary {
            Boundary::Before => self.prompt_of(&plan.native, plan.kind, plan.kept).await,
            _ => None,
        };
        tracing::info!(
            source = %plan.source.id, fork = %committed.id, boundary = %plan.boundary,
            kept = plan.kept, native_ms, warm, total_ms = started.elapsed().as_secs_f64() * 1e3,
            "fork made"
        );
        if let Some((runtime, rx)) = adopted {
            // The spare that forked it is its runtime now.
            self.adopt_runtime(&committed.id, runtime, rx).await;
        } else if self.inner.warm_forks && forked.pending.is_some() {
            // The CLI writes nothing before the first prompt, so its process can start now:
            // the first Send then goes straight to the model. Unused, it is stopped as idle.
            let (host, id) = (self.clone(), committed.id.clone());
            tokio::spawn(async move { host.prewarm(&id).await });
        }
        self.row_changed(&committed);
        // Its forks' chips changed (its row may not have).
        self.thread_changed(&plan.source.id).await;
        // A new thread has no children; its turns are the rows just committed.
        let thread = self
            .detail_of(&Thread::parse(committed)?, &turns, Vec::new())
            .await?;
        Ok(ForkResult {
            thread,
            prefill,
            files_note,
            carry_note,
            files_pending,
            timing: ForkTiming {
                check_ms,
                native_ms,
                warm,
                commit_ms,
                read_back_ms: ms(read_started),
                total_ms: ms(started),
            },
        })
    }

    /// Step 1: refuse with a typed error before anything is created.
    async fn plan_fork(
        &self,
        source_id: &str,
        at: &ForkAt,
        into: Option<HarnessKind>,
    ) -> HostResult<Plan> {
        let thread = self.thread(source_id).await?;
        thread.usable()?;
        let kind = thread.kind;
        let stored = self.store().turns(source_id).await?;
        if thread.native.is_none() || stored.is_empty() {
            return Err(HostError::TurnNotFound(format!(
                "thread {source_id} has no turns to fork from yet"
            )));
        }
        // A fork that materializes with its first prompt has no file yet; its inherited turns
        // are its own source's records, so it forks from there.
        let native = thread.fork_source()?;
        let path = native.path.clone().ok_or_else(|| {
            HostError::SessionNotFound(format!("thread {source_id} has no native file"))
        })?;
        if !path.exists() {
            return Err(HostError::SessionNotFound(format!(
                "the native session of thread {source_id} is gone"
            )));
        }
        // Fresh native anchors: a reply that finished since the last sync counts; a turn
        // still streaming does not. Only as many as the thread holds (a pending fork keeps a
        // prefix of its source's).
        let mut anchors = self.read_anchors(source_id, kind, &path).await?;
        if thread.pending.is_some() {
            anchors.truncate(stored.len());
        }
        let index_of = |turn: &TurnRow| -> HostResult<usize> {
            let i = (turn.ordinal - 1) as usize;
            match anchors.get(i) {
                Some(a) if a.native_turn_ref == turn.native_turn_ref => Ok(i),
                _ => anchors
                    .iter()
                    .position(|a| a.native_turn_ref == turn.native_turn_ref)
                    .ok_or_else(|| {
                        HostError::CheckpointNotFound(format!(
                            "turn {} is no longer in the native session",
                            turn.ordinal
                        ))
                    }),
            }
        };
        let find = |r: &TurnRef| -> HostResult<TurnRow> {
            Ok(stored[r.resolve(&stored, source_id)?].clone())
        };
        let (turn, boundary) = match at {
            ForkAt::After(r) => (find(r)?, Boundary::After),
            ForkAt::Before(r) => (find(r)?, Boundary::Before),
            ForkAt::Latest => {
                let last = stored
                    .iter()
                    .rev()
                    .find(|t| index_of(t).is_ok_and(|i| anchors[i].complete))
                    .cloned()
                    .ok_or_else(|| {
                        HostError::TurnNotFound(format!("thread {source_id} has no completed turn"))
                    })?;
                (last, Boundary::Latest)
            }
        };
        let index = index_of(&turn)?;
        if !anchors[index].complete {
            return Err(HostError::Busy(format!(
                "turn {} is still in progress",
                turn.ordinal
            )));
        }
        let (cut, kept) = match boundary {
            Boundary::Before => (Cut::Before(index), index),
            _ => (Cut::After(index), index + 1),
        };
        // A synthetic ref (`@<offset>`: a turn the harness recorded without an id) is no
        // coordinate the harness can cut at.
        let synthetic = |i: usize| anchors[i].native_turn_ref.starts_with('@');
        let reseed = match cut {
            Cut::After(i) => synthetic(i),
            Cut::Before(i) => synthetic(i),
        };
        Ok(Plan {
            source: thread.row,
            native,
            kind,
            target: into.unwrap_or(kind),
            reseed,
            turn,
            boundary,
            cut,
            anchors,
            kept,
        })
    }

    async fn insert_creating(&self, plan: &Plan) -> HostResult<ThreadRow> {
        let cross = plan.target != plan.kind;
        let into = cross.then(|| plan.target.harness().product_name());
        let label = fork_label(plan.boundary, plan.turn.ordinal, into);
        let title = numbered(&label, &self.store().children(&plan.source.id).await?);
        Ok(self
            .store()
            .insert_thread(&NewThread {
                id: new_id(),
                harness: plan.target.to_string(),
                cwd: plan.source.cwd.clone(),
                title,
                state: ThreadState::Creating,
                native_session_id: None,
                native_path: None,
                fork: Some(Lineage {
                    source_thread: plan.source.id.clone(),
                    source_turn: Some(plan.turn.id.clone()),
                    boundary: plan.boundary,
                    source_harness: Some(plan.source.harness.clone()),
                }),
                pending_fork: None,
                // A fork may do what its source may; another harness starts at its default,
                // as a new thread does (the source's words are not its words).
                permission_mode: (!cross)
                    .then(|| plan.source.permission_mode.clone())
                    .flatten(),
                permission_sandbox: (!cross)
                    .then(|| plan.source.permission_sandbox.clone())
                    .flatten(),
            })
            .await?)
    }

    async fn commit_fork(
        &self,
        plan: &Plan,
        mut child: ThreadRow,
        forked: &Forked,
    ) -> HostResult<(ThreadRow, Vec<TurnRow>)> {
        failpoint::hit("after_native_fork")?;
        let inherited: Vec<TurnAnchor> = match (&forked.pending, &forked.session.path) {
            // The fork's file appears with its first prompt: until then its turns are the
            // source's, at the source's coordinates.
            (Some(_), _) => plan.anchors[..plan.kept].to_vec(),
            (None, Some(path)) => {
                let anchors = self.read_anchors(&child.id, plan.target, path).await?;
                if anchors.len() != plan.kept || anchors.iter().any(|a| !a.complete) {
                    return Err(HostError::HarnessFailed(format!(
                        "the derived session holds {} turns; expected {}",
                        anchors.len(),
                        plan.kept
                    )));
                }
                anchors
            }
            (None, None) => {
                return Err(HostError::HarnessFailed(
                    "the harness reported no file for the derived session".into(),
                ))
            }
        };
        let new_turns: Vec<NewTurn> = inherited
            .iter()
            .map(|a| NewTurn {
                id: new_id(),
                native_turn_ref: a.native_turn_ref.clone(),
                native_checkpoint_ref: a.native_checkpoint_ref.clone(),
            })
            .collect();
        child.native_session_id = Some(forked.session.session_id.clone());
        child.native_path = forked
            .session
            .path
            .as_ref()
            .map(|p| p.display().to_string());
        match &forked.pending {
            Some(pending) => {
                child.state = ThreadState::Pending;
                child.pending_fork = Some(encode_pending(pending)?);
            }
            None => child.state = ThreadState::Ready,
        }
        failpoint::hit("before_commit")?;
        Ok(self.store().commit_thread(&child, &new_turns).await?)
    }

    /// Removes a `creating` row after a failed fork. Best effort: if this fails too, the next
    /// start removes it.
    async fn discard(&self, child: &ThreadRow) {
        self.unfollow(&child.id);
        if let Err(err) = self.store().delete_thread(&child.id, child.revision).await {
            tracing::warn!(thread = %child.id, error = %err, "could not remove a failed fork");
        }
    }

    /// The prompt of the source's turn at `index` (0-based): what "edit and fork" puts back.
    async fn prompt_of(
        &self,
        source: &NativeSession,
        kind: HarnessKind,
        index: usize,
    ) -> Option<String> {
        let path = source.path.clone()?;
        let host = self.clone();
        let turns = tokio::task::spawn_blocking(move || host.inner.texts.turns(kind, &path))
            .await
            .ok()?
            .ok()?;
        turns.get(index).and_then(|t| {
            t.messages
                .iter()
                .find(|m| m.role == forkhost_harness::Role::User)
                .map(|m| m.text.clone())
        })
    }
}

mod native;

#[cfg(test)]
mod continued_tests;
#[cfg(test)]
mod engine_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fork_points_parse_from_the_ui_shape() {
        let p: ForkAt = serde_json::from_str(r#"{"kind":"after","turn":2}"#).unwrap();
        assert_eq!(p, ForkAt::After(TurnRef::Number(2)));
        let p: ForkAt = serde_json::from_str(r#"{"kind":"before","turn":"t-1"}"#).unwrap();
        assert_eq!(p, ForkAt::Before(TurnRef::Id("t-1".into())));
        let p: ForkAt = serde_json::from_str(r#"{"kind":"latest"}"#).unwrap();
        assert_eq!(p, ForkAt::Latest);
    }
}
