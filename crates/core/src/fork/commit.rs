//! Steps 2 and 4 of a fork: the child row inserted as `creating`, and the commit that makes it
//! a thread. Between them a [`ForkTxn`] holds everything the fork made so far — the row, its
//! worktree, a warm spare it adopted, the session its harness derived (or Forkhost seeded) —
//! and undoes all of it if a step fails ([`ForkTxn::attempt`]) or the fork is dropped
//! half-way (a closed window, a cancelled call), unless [`ForkTxn::commit`] ran. A crash
//! leaves at most the `creating` row, which names the derived session from the moment the
//! harness returned it ([`ForkTxn::derived`]); the next start removes both
//! ([`crate::base::derived_session`]).

use std::path::PathBuf;

use forkhost_harness::{Forked, TurnAnchor};
use forkhost_store::{Lineage, NewThread, NewTurn, ThreadRow, ThreadState, TurnRow};

use super::plan::Plan;
use super::Adopted;
use crate::base::derived_session::remove_derived;
use crate::base::error::{HostError, HostResult};
use crate::base::failpoint;
use crate::base::thread::encode_pending;
use crate::files::worktree_fork::Prepared;
use crate::host::{new_id, Host};
use crate::thread::names::{fork_label, numbered};

/// A fork between its `creating` row and its commit: what to undo if it goes no further.
pub(super) struct ForkTxn {
    host: Host,
    /// The `creating` row.
    pub child: ThreadRow,
    /// The fork's worktree, made for it.
    pub worktree: Option<Box<Prepared>>,
    /// The warm spare that forked it, which is its runtime once committed.
    pub adopted: Option<Adopted>,
    /// The session the harness derived (or Forkhost seeded): removed with the fork.
    derived: Option<Forked>,
    /// The source's session file, which no undo removes whatever a harness answered.
    source: Option<PathBuf>,
    /// Committed or undone: nothing is left to do.
    done: bool,
}

impl ForkTxn {
    /// Step 2: the child exists only as `creating` until [`ForkTxn::commit`].
    pub(super) async fn begin(host: &Host, plan: &Plan) -> HostResult<ForkTxn> {
        let child = host.insert_creating(plan).await?;
        Ok(ForkTxn {
            host: host.clone(),
            child,
            worktree: None,
            adopted: None,
            derived: None,
            source: plan.native.path.clone(),
            done: false,
        })
    }

    /// Step 3 returned `forked`: the fork owns that session now (its undo removes it), and the
    /// `creating` row names it, so a process that ends before the commit leaves nothing the
    /// next start cannot find. A pending fork has no file of its own yet.
    pub(super) async fn derived(&mut self, forked: &Forked) -> HostResult<()> {
        self.derived = Some(forked.clone());
        if forked.pending.is_some() {
            return Ok(());
        }
        let mut row = self.child.clone();
        row.native_session_id = Some(forked.session.session_id.clone());
        row.native_path = forked
            .session
            .path
            .as_ref()
            .map(|p| p.display().to_string());
        let noted = self.host.store().update_thread(&row).await;
        let row = self.attempt(noted.map_err(HostError::from)).await?;
        self.child = row;
        Ok(())
    }

    /// `result`, after undoing the fork when it is an error: the caller returns it with `?`.
    pub(super) async fn attempt<T>(&mut self, result: HostResult<T>) -> HostResult<T> {
        if result.is_err() {
            self.undo().await;
        }
        result
    }

    /// The fork is a thread now: nothing is undone, and its worktree (to fill) and adopted
    /// runtime go on to the caller.
    pub(super) fn commit(mut self) -> (Option<Box<Prepared>>, Option<Adopted>) {
        self.done = true;
        (self.worktree.take(), self.adopted.take())
    }

    /// Undoes what the fork made, newest first: the adopted runtime closed, the derived
    /// session removed, the row deleted, the worktree removed. The source is never touched.
    async fn undo(&mut self) {
        if std::mem::replace(&mut self.done, true) {
            return;
        }
        undo_parts(
            &self.host,
            &self.child,
            self.adopted.take(),
            Derived(self.derived.take(), self.source.take()),
            self.worktree.take(),
        )
        .await;
    }
}

impl Drop for ForkTxn {
    /// A fork dropped half-way (its caller went away) is undone in the background, as a failed
    /// step would undo it; without a runtime to do it on, the next start removes the row.
    fn drop(&mut self) {
        if self.done {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let (host, child) = (self.host.clone(), self.child.clone());
        let (adopted, derived, worktree) = (
            self.adopted.take(),
            Derived(self.derived.take(), self.source.take()),
            self.worktree.take(),
        );
        runtime.spawn(async move { undo_parts(&host, &child, adopted, derived, worktree).await });
    }
}

/// The derived session to remove, beside the source's file that must stay.
struct Derived(Option<Forked>, Option<PathBuf>);

async fn undo_parts(
    host: &Host,
    child: &ThreadRow,
    adopted: Option<Adopted>,
    Derived(derived, source): Derived,
    worktree: Option<Box<Prepared>>,
) {
    if let Some((runtime, _)) = adopted {
        let _ = runtime.close().await;
    }
    if let Some(forked) = derived {
        remove_derived(&forked, source.as_deref());
    }
    host.discard(child).await;
    if let Some(worktree) = worktree {
        host.undo_worktree(*worktree).await;
    }
}

impl Host {
    /// Step 2: the child row, `creating` until the commit, with its lineage and its label.
    pub(super) async fn insert_creating(&self, plan: &Plan) -> HostResult<ThreadRow> {
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

    /// Step 4: the derived session's anchors under new host turn ids, and the row made
    /// `ready` (or `pending`, for a fork the harness writes with its first prompt), in one
    /// transaction.
    pub(super) async fn commit_fork(
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
        let mut inherited = inherited;
        crate::thread::snapshots::inherit_snapshots(
            (plan.kind, plan.target),
            &mut inherited,
            &plan.anchors,
        );
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
    pub(super) async fn discard(&self, child: &ThreadRow) {
        self.unfollow(&child.id);
        if let Err(err) = self.store().delete_thread(&child.id, child.revision).await {
            tracing::warn!(thread = %child.id, error = %err, "could not remove a failed fork");
        }
    }
}
