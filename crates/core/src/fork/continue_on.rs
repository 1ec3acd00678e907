//! Continue on another machine (docs/architecture.md "Remote hosts"): the branch of a thread up
//! to a message, in the harness it continues in, as a [`BranchSeed`] another machine's forkhost
//! turns into a native session of its own ([`Host::adopt_branch`]), with the files of the
//! fork point where the source records checkpoints (`files/moved.rs`). The cut is checked as a
//! fork's is; the source is only read.

use forkhost_harness::HarnessKind;

use crate::base::branch::{BranchOrigin, BranchSeed};
use crate::base::error::HostResult;
use crate::base::fork_point::ForkAt;
use crate::host::Host;
use crate::thread::names::fork_label;

impl Host {
    /// The branch of `source_id` at `at`, for `into`'s harness (the source's when `None`).
    pub async fn branch_seed(
        &self,
        source_id: &str,
        at: ForkAt,
        into: Option<HarnessKind>,
    ) -> HostResult<BranchSeed> {
        let plan = self.plan_fork(source_id, &at, into).await?;
        let seed = self
            .seed_of_turns(&plan.native, plan.kind, plan.kept, plan.target)
            .await?;
        let into = (plan.target != plan.kind).then(|| plan.target.harness().product_name());
        let label = fork_label(plan.boundary, plan.turn.ordinal, into);
        let (files, files_note) = match self
            .branch_files(&plan.source, plan.turn.ordinal, plan.boundary)
            .await
        {
            Ok(files) => (Some(files), None),
            Err(why) => (None, Some(why)),
        };
        let origin = BranchOrigin {
            host: None,
            thread: plan.source.id.clone(),
            title: plan.source.title.clone(),
            turns: seed.turns.len() as i64,
        };
        Ok(BranchSeed {
            harness: plan.target,
            title: format!("{} · {label}", plan.source.title),
            seed,
            files,
            files_note,
            origin: Some(origin),
        })
    }
}
