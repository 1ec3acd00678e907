//! Keeping a thread's anchors in line with its native session, and reading its messages.
//!
//! The native session is the truth; the store follows it. New complete turns become anchors
//! with new host turn ids; a turn whose native identity changed under an existing anchor is a
//! `conflict` — except while a fork materializes, when the fork's own turns take over the
//! positions of the anchors it inherited.

use std::collections::HashMap;
use std::path::Path;

use forkhost_harness::{open_reader, HarnessKind, NativeSession, Turn, TurnAnchor};
use forkhost_store::{NewTurn, StoreError, ThreadRow, ThreadState, TurnRow};

use crate::base::error::{HostError, HostResult};
use crate::base::price;
use crate::base::thread::Thread;
use crate::base::view::{inherited_turns, BranchCost, MessageView, ThreadDetail, TurnView};
use crate::host::{new_id, Host};

/// How often a sync retries when another writer moved the thread on meanwhile.
const SYNC_ATTEMPTS: usize = 5;

impl Host {
    /// Re-reads the thread's native session (incrementally) and records new turns. Returns
    /// whether anything changed.
    pub async fn sync_thread(&self, thread_id: &str) -> HostResult<bool> {
        let slot = self.handle(thread_id);
        let _sync = slot.sync.lock().await;
        for _ in 0..SYNC_ATTEMPTS {
            let thread = self.thread(thread_id).await?;
            let Some(path) = thread.native_path() else {
                return Ok(false);
            };
            if !forkhost_harness::session_present(thread.kind, &path) {
                // A pending fork's file appears with its first prompt; nothing to read yet.
                return Ok(false);
            }
            let anchors = self.read_anchors(thread_id, thread.kind, &path).await?;
            let stored = self.store().turns(thread_id).await?;
            let materializing = thread.is_materializing();
            let row = thread.row;
            let plan = plan_sync(&row, &stored, &anchors, materializing)?;
            if plan.is_empty() && !materializing {
                return Ok(false);
            }
            let mut next = row.clone();
            if materializing && anchors.iter().any(|a| a.complete) {
                next.pending_fork = None;
                if next.state == ThreadState::Pending {
                    next.state = ThreadState::Ready;
                }
            }
            if plan.is_empty() && next == row {
                return Ok(false);
            }
            match self
                .store()
                .sync_turns(&next, &plan.changed, &plan.new_turns)
                .await
            {
                Ok((row, added)) => {
                    if !added.is_empty() {
                        tracing::info!(thread = %thread_id, added = added.len(), "turns recorded");
                    }
                    if !added.is_empty() {
                        // A fork's first own turn names it.
                        self.learn_titles(std::slice::from_ref(&row)).await;
                    }
                    self.row_changed(&row);
                    return Ok(true);
                }
                Err(StoreError::Conflict { .. }) => continue,
                Err(err) => return Err(err.into()),
            }
        }
        Err(HostError::Conflict(format!(
            "thread {thread_id} kept changing while its turns were recorded"
        )))
    }

    /// The anchors of a native file, read on from where the cached reader stopped.
    pub(crate) async fn read_anchors(
        &self,
        thread_id: &str,
        kind: HarnessKind,
        path: &Path,
    ) -> HostResult<Vec<TurnAnchor>> {
        let slot = self.handle(thread_id);
        let cached = slot
            .reader
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .filter(|r| r.path() == path && r.kind() == kind);
        let path = path.to_owned();
        let (reader, anchors) = tokio::task::spawn_blocking(move || {
            let reader = match cached {
                Some(mut reader) => {
                    reader.read_appended()?;
                    reader
                }
                None => open_reader(kind, &path)?,
            };
            let anchors = reader.anchors().to_vec();
            Ok::<_, forkhost_harness::HistoryError>((reader, anchors))
        })
        .await
        .map_err(|e| HostError::Internal(e.to_string()))??;
        *slot.reader.lock().unwrap_or_else(|e| e.into_inner()) = Some(reader);
        Ok(anchors)
    }

    /// Records what a runtime learned about its native session (id, file).
    pub(crate) async fn record_session(
        &self,
        thread_id: &str,
        session: &NativeSession,
    ) -> HostResult<()> {
        for _ in 0..SYNC_ATTEMPTS {
            let row = self.store().thread(thread_id).await?;
            let path = session.path.as_ref().map(|p| p.display().to_string());
            if row.native_session_id.as_deref() == Some(&session.session_id)
                && (path.is_none() || row.native_path == path)
            {
                return Ok(());
            }
            let mut next = row.clone();
            next.native_session_id = Some(session.session_id.clone());
            if path.is_some() {
                next.native_path = path;
            }
            match self.store().update_thread(&next).await {
                Ok(row) => {
                    tracing::info!(thread = %thread_id, "native session recorded");
                    self.row_changed(&row);
                    return Ok(());
                }
                Err(StoreError::Conflict { .. }) => continue,
                Err(err) => return Err(err.into()),
            }
        }
        Err(HostError::Conflict(format!(
            "thread {thread_id} kept changing"
        )))
    }

    /// A thread with its turns and their messages.
    pub(crate) async fn detail(&self, thread: &Thread) -> HostResult<ThreadDetail> {
        let stored = self.store().turns(thread.id()).await?;
        let children = self.store().children(thread.id()).await?;
        let mut detail = self.detail_of(thread, &stored, children).await?;
        detail.moved_from = self.store().branch_origin(thread.id()).await?.map(|o| {
            crate::base::branch::BranchOrigin {
                host: Some(o.from_host),
                thread: o.from_thread,
                title: o.from_title,
                turns: o.turns,
            }
        });
        Ok(detail)
    }

    /// [`Host::detail`] from turn rows and children already in hand (a fork just committed has
    /// its rows from the commit, and no children yet: no second read of the store).
    pub(crate) async fn detail_of(
        &self,
        thread: &Thread,
        stored: &[TurnRow],
        children: Vec<ThreadRow>,
    ) -> HostResult<ThreadDetail> {
        let history = match thread.text_file() {
            Some(path) if forkhost_harness::session_present(thread.kind, &path) => {
                let host = self.clone();
                let kind = thread.kind;
                Some(
                    tokio::task::spawn_blocking(move || host.inner.texts.turns(kind, &path))
                        .await
                        .map_err(|e| HostError::Internal(e.to_string()))??,
                )
            }
            _ => None,
        };
        let by_ref: HashMap<&str, &Turn> = history
            .iter()
            .flat_map(|turns| turns.iter())
            .map(|t| (t.native_turn_ref.as_str(), t))
            .collect();
        let mut forks: HashMap<String, Vec<String>> = HashMap::new();
        for child in children {
            if let Some(turn) = child.fork.as_ref().and_then(|f| f.source_turn.clone()) {
                forks.entry(turn).or_default().push(child.id);
            }
        }
        self.learn_titles(std::slice::from_ref(&thread.row)).await;
        let view = self.view_of(&thread.row)?;
        let inherited = inherited_turns(view.fork.as_ref());
        let turns: Vec<TurnView> = stored
            .iter()
            .map(|t| {
                let native = by_ref.get(t.native_turn_ref.as_str());
                let usage = native.and_then(|n| n.usage);
                let model = native.and_then(|n| n.model.clone());
                // Priced here, with the history: the figures cost no second read.
                let (cost_usd, priced_by) =
                    price::price(thread.kind, model.as_deref(), usage.as_ref());
                TurnView {
                    id: t.id.clone(),
                    number: t.ordinal,
                    native_turn_ref: t.native_turn_ref.clone(),
                    native_checkpoint_ref: t.native_checkpoint_ref.clone(),
                    messages: messages_of(&by_ref, &t.native_turn_ref),
                    forks: forks.remove(&t.id).unwrap_or_default(),
                    usage,
                    model,
                    complete: native.is_some_and(|n| n.complete),
                    cost_usd,
                    priced_by,
                    inherited: usize::try_from(t.ordinal).is_ok_and(|n| n <= inherited),
                }
            })
            .collect();
        Ok(ThreadDetail {
            cost: BranchCost::of(&turns),
            thread: view,
            turns,
            moved_from: None,
        })
    }
}

fn messages_of(turns: &HashMap<&str, &Turn>, native_turn_ref: &str) -> Vec<MessageView> {
    turns
        .get(native_turn_ref)
        .map(|t| {
            t.messages
                .iter()
                .filter_map(MessageView::from_message)
                .collect()
        })
        .unwrap_or_default()
}

#[derive(Debug, Default)]
struct SyncPlan {
    changed: Vec<TurnRow>,
    new_turns: Vec<NewTurn>,
}

impl SyncPlan {
    fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.new_turns.is_empty()
    }
}

/// Compares stored anchors with the native ones, position by position. Only complete turns
/// become anchors: a turn still being written is picked up once it ends.
fn plan_sync(
    row: &ThreadRow,
    stored: &[TurnRow],
    native: &[TurnAnchor],
    materializing: bool,
) -> HostResult<SyncPlan> {
    let mut plan = SyncPlan::default();
    for (turn, anchor) in stored.iter().zip(native) {
        let same_turn = turn.native_turn_ref == anchor.native_turn_ref;
        if !same_turn && !materializing {
            return Err(HostError::Conflict(format!(
                "turn {} of thread {} changed in its native session",
                turn.ordinal, row.id
            )));
        }
        let checkpoint_moved = anchor.complete
            && anchor.native_checkpoint_ref.is_some()
            && turn.native_checkpoint_ref != anchor.native_checkpoint_ref;
        if !same_turn || checkpoint_moved {
            plan.changed.push(TurnRow {
                native_turn_ref: anchor.native_turn_ref.clone(),
                native_checkpoint_ref: anchor.native_checkpoint_ref.clone(),
                ..turn.clone()
            });
        }
    }
    plan.new_turns = native
        .iter()
        .skip(stored.len())
        .take_while(|a| a.complete)
        .map(|a| NewTurn {
            id: new_id(),
            native_turn_ref: a.native_turn_ref.clone(),
            native_checkpoint_ref: a.native_checkpoint_ref.clone(),
        })
        .collect();
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row() -> ThreadRow {
        ThreadRow {
            state: ThreadState::Ready,
            native_session_id: Some("s".into()),
            ..crate::base::thread::tests::row()
        }
    }

    fn stored(refs: &[&str]) -> Vec<TurnRow> {
        refs.iter()
            .enumerate()
            .map(|(i, r)| TurnRow {
                id: format!("h{i}"),
                thread_id: "t".into(),
                ordinal: i as i64 + 1,
                native_turn_ref: (*r).into(),
                native_checkpoint_ref: Some(format!("cp-{r}")),
            })
            .collect()
    }

    fn native(refs: &[(&str, bool)]) -> Vec<TurnAnchor> {
        refs.iter()
            .map(|(r, complete)| TurnAnchor {
                native_turn_ref: (*r).into(),
                native_checkpoint_ref: Some(format!("cp-{r}")),
                complete: *complete,
            })
            .collect()
    }

    #[test]
    fn appends_only_complete_new_turns() {
        let plan = plan_sync(
            &row(),
            &stored(&["a"]),
            &native(&[("a", true), ("b", true), ("c", false)]),
            false,
        )
        .unwrap();
        assert!(plan.changed.is_empty());
        let refs: Vec<_> = plan
            .new_turns
            .iter()
            .map(|t| t.native_turn_ref.as_str())
            .collect();
        assert_eq!(refs, ["b"]);
    }

    #[test]
    fn a_changed_turn_identity_is_a_conflict_unless_materializing() {
        let err = plan_sync(&row(), &stored(&["a"]), &native(&[("x", true)]), false).unwrap_err();
        assert_eq!(err.code(), "conflict");
        let plan = plan_sync(&row(), &stored(&["a"]), &native(&[("x", true)]), true).unwrap();
        assert_eq!(plan.changed[0].native_turn_ref, "x");
        assert_eq!(plan.changed[0].id, "h0", "the host turn id stays");
    }
}
