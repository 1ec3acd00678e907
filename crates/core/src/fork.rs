//! The fork engine: check → insert `creating` with lineage → native fork → read the derived
//! history and give every inherited turn a new host turn id → commit in one transaction →
//! return (with the prefill text for `before`).
//!
//! If the native fork fails, the `creating` row is deleted and the source is unchanged. If the
//! commit fails after the native fork, the row is deleted and the harness's files are left
//! alone. A crash anywhere leaves at most a `creating` row, which the next start removes.

use forkhost_harness::{Cut, Forked, HarnessKind, NativeSession, TurnAnchor};
use forkhost_store::{Boundary, Lineage, NewThread, NewTurn, ThreadRow, ThreadState, TurnRow};
use serde::Deserialize;

use crate::error::{HostError, HostResult};
use crate::events::HostEvent;
use crate::failpoint;
use crate::host::{new_id, Host};
use crate::thread::{encode_pending, Thread};
use crate::view::{ForkResult, ForkTiming};

/// A turn as the user names it: its host turn id or its 1-based number. The UI sends it as a
/// JSON number or string.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(untagged)]
#[ts(export)]
pub enum TurnRef {
    Number(#[ts(type = "number")] i64),
    Id(String),
}

impl TurnRef {
    /// `"3"` is a number, anything else a host turn id.
    pub fn parse(text: &str) -> TurnRef {
        match text.trim().parse::<i64>() {
            Ok(n) => TurnRef::Number(n),
            Err(_) => TurnRef::Id(text.trim().to_owned()),
        }
    }
}

/// Where a fork cuts, as the user names it (the shells deserialize it from
/// `{"kind":"after"|"before","turn":…}` or `{"kind":"latest"}`). The fork engine resolves it
/// to a store [`Boundary`] and a harness [`Cut`].
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(tag = "kind", content = "turn", rename_all = "snake_case")]
#[ts(export)]
pub enum ForkAt {
    /// After the turn (inclusive).
    After(TurnRef),
    /// Before the turn (its prompt comes back for editing).
    Before(TurnRef),
    /// After the last completed turn.
    Latest,
}

/// The checked plan of one fork.
struct Plan {
    source: ThreadRow,
    /// The native session the harness forks: the thread's own, or a pending fork's source.
    native: NativeSession,
    kind: HarnessKind,
    turn: TurnRow,
    boundary: Boundary,
    cut: Cut,
    /// The source's native anchors as read just now.
    anchors: Vec<TurnAnchor>,
    /// How many of the source's turns the fork keeps.
    kept: usize,
}

impl Host {
    /// Forks a thread at a boundary. See the module docs for the protocol.
    pub async fn fork(&self, source_id: &str, at: ForkAt) -> HostResult<ForkResult> {
        let started = std::time::Instant::now();
        let ms = |since: std::time::Instant| since.elapsed().as_secs_f64() * 1e3;
        let plan = self.plan_fork(source_id, &at).await?;
        let check_ms = ms(started);
        let binary = self.inner.harnesses.binary(plan.kind).await?;
        let caps = binary.capabilities();
        if !caps.boundaries.contains(&plan.boundary.as_str()) {
            return Err(HostError::Unsupported(format!(
                "{} {} cannot fork {}{}",
                plan.kind,
                binary.version,
                plan.boundary,
                caps.note.map(|n| format!(": {n}")).unwrap_or_default()
            )));
        }

        // Step 2: the child exists only as `creating` until the commit.
        let child = self.insert_creating(&plan).await?;
        failpoint::hit("after_insert")?;

        // Step 3: the harness derives the native session.
        let source_native = plan.native.clone();
        let native_started = std::time::Instant::now();
        let forked = match forkhost_harness::runtime::fork(
            &binary,
            &source_native,
            &plan.anchors,
            plan.cut,
            &self.inner.harness_env,
        )
        .await
        {
            Ok(forked) => forked,
            Err(err) => {
                self.discard(&child).await;
                return Err(err.into());
            }
        };
        let native_ms = ms(native_started);

        // Step 4: anchors with new host ids, committed in one transaction.
        let commit_started = std::time::Instant::now();
        let (committed, turns) = match self.commit_fork(&plan, child.clone(), &forked).await {
            Ok(committed) => committed,
            Err(err) => {
                self.discard(&child).await;
                return Err(err);
            }
        };
        failpoint::hit("after_commit")?;
        let commit_ms = ms(commit_started);

        let read_started = std::time::Instant::now();
        let prefill = match plan.boundary {
            Boundary::Before => self.prompt_of(&plan.native, plan.kind, plan.kept).await,
            _ => None,
        };
        tracing::info!(
            source = %plan.source.id, fork = %committed.id, boundary = %plan.boundary,
            kept = plan.kept, native_ms, total_ms = started.elapsed().as_secs_f64() * 1e3,
            "fork made"
        );
        self.emit(HostEvent::ThreadChanged {
            thread_id: committed.id.clone(),
        });
        self.emit(HostEvent::ThreadChanged {
            thread_id: plan.source.id.clone(),
        });
        // A new thread has no children; its turns are the rows just committed.
        let thread = self
            .detail_of(&Thread::parse(committed)?, &turns, Vec::new())
            .await?;
        Ok(ForkResult {
            thread,
            prefill,
            timing: ForkTiming {
                check_ms,
                native_ms,
                commit_ms,
                read_back_ms: ms(read_started),
                total_ms: ms(started),
            },
        })
    }

    /// Step 1: refuse with a typed error before anything is created.
    async fn plan_fork(&self, source_id: &str, at: &ForkAt) -> HostResult<Plan> {
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
            match r {
                TurnRef::Number(n) if *n >= 1 && (*n as usize) <= stored.len() => {
                    Ok(stored[*n as usize - 1].clone())
                }
                TurnRef::Number(n) => Err(HostError::TurnNotFound(format!(
                    "turn {n} (thread {source_id} has {} turns)",
                    stored.len()
                ))),
                TurnRef::Id(id) => {
                    stored.iter().find(|t| &t.id == id).cloned().ok_or_else(|| {
                        HostError::TurnNotFound(format!("{id} in thread {source_id}"))
                    })
                }
            }
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
        Ok(Plan {
            source: thread.row,
            native,
            kind,
            turn,
            boundary,
            cut,
            anchors,
            kept,
        })
    }

    async fn insert_creating(&self, plan: &Plan) -> HostResult<ThreadRow> {
        let title: String = format!("{} (fork)", plan.source.title)
            .chars()
            .take(200)
            .collect();
        Ok(self
            .store()
            .insert_thread(&NewThread {
                id: new_id(),
                harness: plan.source.harness.clone(),
                cwd: plan.source.cwd.clone(),
                title,
                state: ThreadState::Creating,
                native_session_id: None,
                native_path: None,
                fork: Some(Lineage {
                    source_thread: plan.source.id.clone(),
                    source_turn: Some(plan.turn.id.clone()),
                    boundary: plan.boundary,
                }),
                pending_fork: None,
                // A fork may do what its source may.
                permission_mode: plan.source.permission_mode.clone(),
                permission_sandbox: plan.source.permission_sandbox.clone(),
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
                let anchors = self.read_anchors(&child.id, plan.kind, path).await?;
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
