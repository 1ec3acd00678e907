//! Continue in another agent: step 3 of a fork whose target is another harness. The source's
//! turns up to the cut are read from its native file (never written), carried over
//! ([`forkhost_harness::carry`]) and written by the target as a new native session of its
//! own ([`forkhost_harness::Harness::seed`]); nothing is sent to a model. The rest of the
//! fork (the `creating` row, the worktree, the commit of the anchors the target's reader finds
//! in the new session, the crash points) is the fork engine's, as for a native fork.

use std::path::Path;

use forkhost_harness::{Forked, HarnessBinary, HarnessKind, NativeSession};

use crate::base::error::{HostError, HostResult};
use crate::host::Host;

impl Host {
    /// Writes the first `kept` turns of `source` (a `kind` session) as a new session of
    /// `target`'s harness in `cwd`.
    pub(crate) async fn seed_fork(
        &self,
        source: &NativeSession,
        kind: HarnessKind,
        kept: usize,
        target: &HarnessBinary,
        cwd: &Path,
    ) -> HostResult<(Forked, String)> {
        let seed = self.seed_of_turns(source, kind, kept, target.kind).await?;
        let note = seed.note(target.kind.harness().product_name());
        let request = forkhost_harness::SeedRequest {
            binary: target,
            seed: &seed,
            cwd,
            env: &self.inner.harness_env,
        };
        // The seeding process runs in `cwd`: gated as the runtime there is (review M-2).
        let trusted = crate::trust::fail_closed(self.folder_trust(cwd).await);
        let seeded = forkhost_harness::runtime::seed_trusting(request, trusted).await?;
        Ok((seeded, note))
    }

    /// The first `kept` turns of `source` (a `kind` session) as a seed for `target`'s harness.
    pub(crate) async fn seed_of_turns(
        &self,
        source: &NativeSession,
        kind: HarnessKind,
        kept: usize,
        target: HarnessKind,
    ) -> HostResult<forkhost_harness::Seed> {
        let path = source
            .path
            .clone()
            .ok_or_else(|| HostError::SessionNotFound("the source has no native file".into()))?;
        let host = self.clone();
        let turns = tokio::task::spawn_blocking(move || host.inner.texts.turns(kind, &path))
            .await
            .map_err(|err| HostError::Internal(err.to_string()))??;
        if turns.len() < kept {
            return Err(HostError::TurnNotFound(format!(
                "the source holds {} turns; the fork keeps {kept}",
                turns.len()
            )));
        }
        Ok(forkhost_harness::carry::seed_of(
            kind,
            target,
            &turns[..kept],
        ))
    }
}
