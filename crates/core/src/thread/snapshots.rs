//! The snapshot chain's records. An ACP agent forks a session only at its head, so its runtime
//! copies the session after each completed turn (docs/architecture.md "ACP agents") and names
//! the copy as the turn's checkpoint when the turn ends. Its session records no such thing: the
//! store's turn row keeps it, and a fork reads it back from there.

use forkhost_harness::{HarnessKind, TurnAnchor};
use forkhost_store::TurnRow;

use crate::base::error::HostResult;
use crate::host::Host;

impl Host {
    /// Keeps `snapshot` as the checkpoint of the thread's turn `ordinal` (1-based), once the
    /// turn's anchor is stored. A turn whose anchor is not there keeps none (Fork there says
    /// why); the turn itself stands.
    pub(crate) async fn keep_snapshot(
        &self,
        thread_id: &str,
        ordinal: i64,
        snapshot: &str,
    ) -> HostResult<()> {
        // Other harnesses name their own checkpoints in their sessions, read by the sync.
        if !self
            .thread(thread_id)
            .await?
            .kind
            .harness()
            .keeps_snapshots()
        {
            return Ok(());
        }
        let turn = self.store().turn_at(thread_id, ordinal).await?;
        if turn.native_checkpoint_ref.is_none() {
            self.store().set_turn_checkpoint(&turn.id, snapshot).await?;
            tracing::info!(thread = %thread_id, ordinal, "turn snapshot kept");
        }
        Ok(())
    }
}

/// For a harness whose checkpoints are snapshots ([`Harness::keeps_snapshots`]): each anchor
/// without a checkpoint takes its stored turn's.
///
/// [`Harness::keeps_snapshots`]: forkhost_harness::Harness::keeps_snapshots
pub(crate) fn with_snapshots(kind: HarnessKind, anchors: &mut [TurnAnchor], stored: &[TurnRow]) {
    if !kind.harness().keeps_snapshots() {
        return;
    }
    for anchor in anchors.iter_mut() {
        if anchor.native_checkpoint_ref.is_none() {
            anchor.native_checkpoint_ref = stored
                .iter()
                .find(|t| t.native_turn_ref == anchor.native_turn_ref)
                .and_then(|t| t.native_checkpoint_ref.clone());
        }
    }
}

/// A fork in the same snapshot-keeping harness holds copies of its source's turns, so the
/// source's snapshot of each is a copy of the fork's too: the fork's inherited anchors take
/// them, turn by turn.
pub(crate) fn inherit_snapshots(
    (source, target): (HarnessKind, HarnessKind),
    inherited: &mut [TurnAnchor],
    from: &[TurnAnchor],
) {
    if source != target || !target.harness().keeps_snapshots() {
        return;
    }
    for (anchor, source) in inherited.iter_mut().zip(from) {
        if anchor.native_checkpoint_ref.is_none() {
            anchor.native_checkpoint_ref = source.native_checkpoint_ref.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchor(turn: &str, checkpoint: Option<&str>) -> TurnAnchor {
        TurnAnchor {
            native_turn_ref: turn.into(),
            native_checkpoint_ref: checkpoint.map(Into::into),
            complete: true,
        }
    }

    fn checkpoints(anchors: &[TurnAnchor]) -> Vec<Option<&str>> {
        anchors
            .iter()
            .map(|a| a.native_checkpoint_ref.as_deref())
            .collect()
    }

    #[test]
    fn anchors_without_a_checkpoint_take_their_stored_snapshot() {
        let row = |ordinal: i64, turn: &str, checkpoint: Option<&str>| TurnRow {
            id: format!("h{ordinal}"),
            thread_id: "t".into(),
            ordinal,
            native_turn_ref: turn.into(),
            native_checkpoint_ref: checkpoint.map(Into::into),
        };
        let stored = [
            row(1, "a", Some("snap-a")),
            row(2, "b", Some("snap-b")),
            row(3, "c", None),
        ];
        let read = || {
            vec![
                anchor("a", None),
                anchor("b", Some("own")),
                anchor("c", None),
            ]
        };
        let mut anchors = read();
        with_snapshots(HarnessKind::Opencode, &mut anchors, &stored);
        assert_eq!(checkpoints(&anchors), [Some("snap-a"), Some("own"), None]);
        // A harness whose session records its checkpoints takes none from the store.
        let mut anchors = read();
        with_snapshots(HarnessKind::Pi, &mut anchors, &stored);
        assert_eq!(checkpoints(&anchors), [None, Some("own"), None]);
    }

    #[test]
    fn a_fork_in_the_same_agent_inherits_its_sources_snapshots() {
        let from = [anchor("a", Some("snap-a")), anchor("b", Some("snap-b"))];
        let fork = || vec![anchor("x", None), anchor("y", Some("own"))];
        let mut inherited = fork();
        let same = (HarnessKind::Opencode, HarnessKind::Opencode);
        inherit_snapshots(same, &mut inherited, &from);
        assert_eq!(checkpoints(&inherited), [Some("snap-a"), Some("own")]);
        for other in [
            (HarnessKind::Opencode, HarnessKind::Pi),
            (HarnessKind::Pi, HarnessKind::Opencode),
            (HarnessKind::Pi, HarnessKind::Pi),
        ] {
            let mut inherited = fork();
            inherit_snapshots(other, &mut inherited, &from);
            assert_eq!(checkpoints(&inherited), [None, Some("own")], "{other:?}");
        }
    }
}
