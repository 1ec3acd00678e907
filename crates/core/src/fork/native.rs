//! Step 3 of a fork: the harness derives the session. A native fork runs in a warm spare where
//! the app keeps one, else in a process of its own (the next spare starts once it returned); a
//! conversation continued in another harness, or cut where its harness has no coordinate, is
//! seeded from the turns' text instead ([`crate::fork::continue_in`]).

use std::path::PathBuf;

use forkhost_harness::{Forked, HarnessBinary};

use super::plan::Plan;
use super::Adopted;
use crate::base::error::HostResult;
use crate::files::worktree_fork::Prepared;
use crate::host::Host;

/// What step 3 derived.
pub(super) struct Derived {
    pub forked: Forked,
    /// The warm spare that forked it (its runtime from now on).
    pub adopted: Option<Adopted>,
    /// What carried over into another harness, said to the user.
    pub carry_note: Option<String>,
}

impl Host {
    /// Step 3: the derived session, in the fork's worktree when it has one.
    pub(super) async fn derive(
        &self,
        plan: &Plan,
        binary: &HarnessBinary,
        worktree: Option<&Prepared>,
    ) -> HostResult<Derived> {
        let cross = plan.target != plan.kind;
        if cross || plan.reseed {
            let cwd = match worktree {
                Some(w) => w.cwd.clone(),
                None => PathBuf::from(&plan.source.cwd),
            };
            let (forked, note) = self
                .seed_fork(&plan.native, plan.kind, plan.kept, binary, &cwd)
                .await?;
            return Ok(Derived {
                forked,
                adopted: None,
                // Said only where the conversation crossed into another harness.
                carry_note: Some(note).filter(|_| cross),
            });
        }
        let request = forkhost_harness::ForkRequest {
            binary,
            source: &plan.native,
            anchors: &plan.anchors,
            cut: plan.cut,
            env: &self.inner.harness_env,
            cwd: worktree.map(|w| w.cwd.as_path()),
        };
        // The folder whose project config decides whether a warm spare may fork it: a new
        // worktree has no file yet, so its source's folder (the same repository) speaks for it.
        let config_folder = match worktree {
            Some(_) => PathBuf::from(&plan.source.cwd),
            None => plan.native.cwd.clone(),
        };
        let (forked, adopted) = self.native_fork(plan, request, &config_folder).await;
        Ok(Derived {
            forked: forked?,
            adopted,
            carry_note: None,
        })
    }

    /// Step 3's native call: in a warm spare of the harness where the app keeps one (the spare
    /// then is the fork's runtime, returned with its events), else in a process of its own.
    /// A spare is only used where starting it knew nothing the fork's folder needs (its
    /// project config, when the folder has one); a spare that dies is replaced by the cold
    /// path.
    async fn native_fork(
        &self,
        plan: &Plan,
        request: forkhost_harness::ForkRequest<'_>,
        folder: &std::path::Path,
    ) -> (HostResult<Forked>, Option<Adopted>) {
        let found = self.folder_trust(folder).await;
        let plain_folder = matches!(&found, Ok(v) if v.for_harness().is_none());
        // The cold fork's own process is gated as the runtime is (review M-2).
        let trusted = crate::trust::fail_closed(found);
        let spare = match plain_folder {
            true => self.take_spare(plan.kind, &request).await,
            false => None,
        };
        let forked = self.fork_in(spare, plan, request, trusted).await;
        // The next fork's spare starts now, not beside this fork (`take_spare`).
        if plain_folder {
            self.ensure_spare(plan.kind);
        }
        forked
    }

    /// The native fork in `spare` (which then is the fork's runtime), else cold.
    async fn fork_in(
        &self,
        spare: Option<Box<dyn forkhost_harness::WarmSpare>>,
        plan: &Plan,
        request: forkhost_harness::ForkRequest<'_>,
        trusted: Option<bool>,
    ) -> (HostResult<Forked>, Option<Adopted>) {
        if let Some(spare) = spare {
            let permissions = forkhost_harness::PermissionMode {
                mode: plan.source.permission_mode.clone(),
                sandbox: plan.source.permission_sandbox.clone(),
            };
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            match spare.fork_into_runtime(request, permissions, tx).await {
                Ok((forked, live)) => {
                    let runtime = forkhost_harness::Runtime::from_live(live);
                    return (Ok(forked), Some((runtime, rx)));
                }
                Err(err @ forkhost_harness::HarnessError::HarnessFailed { .. }) => {
                    tracing::warn!(error = %err, "a warm spare failed to fork; forking cold");
                }
                Err(err) => return (Err(err.into()), None),
            }
        }
        let forked = forkhost_harness::runtime::fork_trusting(request, trusted).await;
        (forked.map_err(Into::into), None)
    }
}
