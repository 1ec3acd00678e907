//! The fork engine (docs/architecture.md "Fork"), in five steps:
//!
//! 1. **check** ([`plan`]): the source, the turn, its native coordinate and the target harness,
//!    refused in words before anything is created;
//! 2. **creating** ([`commit`]): the child row with its lineage, `creating` until the commit,
//!    and its files — a worktree as of the fork point, or the source's folder;
//! 3. **derive** ([`native`]): the harness forks the native session (or Forkhost seeds one, for
//!    another harness: [`continue_in`]);
//! 4. **commit** ([`commit`]): the derived turns under new host ids, in one transaction;
//! 5. **return**: the fork's files filled, its runtime adopted or warmed, the prefill for
//!    `before`, its timing.
//!
//! Steps 2-4 run inside a [`commit::ForkTxn`], which undoes the row, the worktree, an adopted
//! spare and the session the harness derived (or Forkhost seeded) when a step fails, so a
//! failed fork leaves nothing and the source is never touched. A crash leaves at most a
//! `creating` row naming the derived session, and the next start removes both.
//!
//! Calls: `thread` (names, anchors, warm spares, turns), `files`, `trust` and the base.

mod commit;
pub(crate) mod continue_in;
mod continue_on;
mod native;
mod plan;
pub(crate) mod preview;

use std::time::Instant;

use forkhost_harness::HarnessKind;
use forkhost_store::Boundary;

use crate::base::error::HostResult;
use crate::base::failpoint;
use crate::base::fork_point::ForkAt;
use crate::base::thread::Thread;
use crate::base::view::{ForkResult, ForkTiming};
use crate::files::worktree_fork::Decided;
use crate::files::ForkFiles;
use crate::host::Host;
use commit::ForkTxn;

/// A runtime a warm spare became, with the events it sent so far.
type Adopted = (
    forkhost_harness::runtime::Runtime,
    tokio::sync::mpsc::UnboundedReceiver<forkhost_harness::RuntimeEvent>,
);

/// Milliseconds since `since`, for [`ForkTiming`].
fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
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
        // Step 1: check.
        let started = Instant::now();
        let plan = self.plan_fork(source_id, &at, into).await?;
        let binary = self.check_target(&plan).await?;
        let check_ms = ms(started);

        // Step 2: creating. The source's session grants stay with it: a fork is a new session
        // and asks again (crate::requests::grants).
        let mut txn = ForkTxn::begin(self, &plan).await?;
        txn.attempt(failpoint::hit("after_insert")).await?;
        let (turn, child_id) = (plan.turn.ordinal, txn.child.id.clone());
        let decided = self
            .decide_files(&plan.source, turn, plan.boundary, &child_id, files)
            .await;
        let files_note = match txn.attempt(decided).await? {
            Decided::Worktree(prepared) => {
                let note = prepared.note.clone();
                txn.worktree = Some(prepared);
                note
            }
            Decided::SameFolder { note } => note,
        };

        // Step 3: derive.
        let native_started = Instant::now();
        let derived = self
            .derive(&plan, &binary, txn.worktree.as_deref())
            .await
            .map_err(crate::thread::disk_full::fork_failure);
        let derived = txn.attempt(derived).await?;
        let native_ms = ms(native_started);
        let warm = derived.adopted.is_some();
        let forked = derived.forked;
        txn.adopted = derived.adopted;
        txn.derived(&forked).await?;

        // Step 4: commit.
        let commit_started = Instant::now();
        let mut child_row = txn.child.clone();
        if let Some(worktree) = &txn.worktree {
            child_row.cwd = worktree.cwd.display().to_string();
        }
        let committed = self.commit_fork(&plan, child_row, &forked).await;
        let (committed, turns) = txn.attempt(committed).await?;
        let (worktree, adopted) = txn.commit();

        // Step 5: return. The fork keeps its source's checkpoints for the turns it keeps, and
        // remembers its worktree; both only add detail: a failure is logged, the fork stands.
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

        let read_started = Instant::now();
        let prefill = match plan.boundary {
            Boundary::Before => self.prompt_of(&plan.native, plan.kind, plan.kept).await,
            _ => None,
        };
        tracing::info!(
            source = %plan.source.id, fork = %committed.id, boundary = %plan.boundary,
            kept = plan.kept, native_ms, warm, total_ms = ms(started), "fork made"
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
            carry_note: derived.carry_note,
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
}

#[cfg(test)]
mod continued_tests;
#[cfg(test)]
mod engine_tests;

#[cfg(test)]
mod tests {
    use crate::base::fork_point::{ForkAt, TurnRef};

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
