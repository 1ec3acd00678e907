//! Step 1 of a fork: everything is checked before anything is created — the source usable,
//! the turn named, its native coordinate found and complete, the target harness able to take
//! the cut (and, for another harness, the folder's trust decided) — into a [`Plan`].

use forkhost_harness::{Cut, HarnessBinary, HarnessKind, NativeSession, TurnAnchor};
use forkhost_store::{Boundary, ThreadRow, TurnRow};

use crate::base::error::{HostError, HostResult};
use crate::base::fork_point::{ForkAt, TurnRef};
use crate::host::Host;

/// The checked plan of one fork.
pub(super) struct Plan {
    pub source: ThreadRow,
    /// The native session the harness forks: the thread's own, or a pending fork's source.
    pub native: NativeSession,
    pub kind: HarnessKind,
    /// The harness the fork runs in: `kind`, or another one the conversation continues in.
    pub target: HarnessKind,
    /// The cut falls where the harness has no native coordinate (a turn carried in from
    /// another harness, which Codex records outside its turns): the fork is seeded from the
    /// turns' text, as a cross fork is, in the same harness.
    pub reseed: bool,
    pub turn: TurnRow,
    pub boundary: Boundary,
    pub cut: Cut,
    /// The source's native anchors as read just now.
    pub anchors: Vec<TurnAnchor>,
    /// How many of the source's turns the fork keeps.
    pub kept: usize,
}

impl Host {
    /// Step 1: refuse with a typed error before anything is created.
    pub(super) async fn plan_fork(
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
        if !forkhost_harness::session_present(kind, &path) {
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
        crate::thread::snapshots::with_snapshots(kind, &mut anchors, &stored);
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

    /// Step 1, the target's part: the harness the fork runs in can take this cut (a native
    /// fork of this boundary, or a conversation from another harness, whose folder's trust is
    /// then decided as for a new thread). Answers the binary the fork runs.
    pub(super) async fn check_target(&self, plan: &Plan) -> HostResult<HarnessBinary> {
        let binary = self.inner.harnesses.binary(plan.target).await?;
        let caps = binary.capabilities();
        let why = caps
            .note
            .as_ref()
            .map(|n| format!(": {n}"))
            .unwrap_or_default();
        if plan.target != plan.kind {
            // Another harness reads the folder's project config: trust is decided for it as
            // for a new thread.
            self.require_trust_decision(std::path::Path::new(&plan.source.cwd))
                .await?;
            if caps.boundaries.is_empty() {
                return Err(HostError::Unsupported(format!(
                    "{} {} cannot take a conversation from another harness{}",
                    plan.target, binary.version, why
                )));
            }
        } else if !caps.forks_at(plan.boundary.as_str()) {
            return Err(HostError::Unsupported(format!(
                "{} {} cannot fork {}{}",
                plan.kind, binary.version, plan.boundary, why
            )));
        }
        Ok(binary)
    }

    /// The prompt of the source's turn at `index` (0-based): what "edit and fork" puts back.
    pub(super) async fn prompt_of(
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
