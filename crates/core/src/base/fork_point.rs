//! The fork point: a turn as the user names it ([`TurnRef`]: its number or its host id) and
//! where a fork cuts ([`ForkAt`]). Fork, preview, rewind and export all resolve a `TurnRef`
//! against a thread's turns, with the same words when it names none ([`TurnRef::resolve`]).

use forkhost_store::TurnRow;
use serde::{Deserialize, Serialize};

use crate::base::error::{HostError, HostResult};
use crate::base::view::TurnView;

/// A turn as the user names it: its host turn id or its 1-based number. The UI sends it as a
/// JSON number or string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
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

impl ForkAt {
    /// The fork point as the CLI's `fork` takes it (`--after N`, `--before ID`, `--latest`): how
    /// a client on this machine asks another machine's forkhost for it.
    pub fn cli_words(&self) -> Vec<String> {
        let turn = |r: &TurnRef| match r {
            TurnRef::Number(n) => n.to_string(),
            TurnRef::Id(id) => id.clone(),
        };
        match self {
            ForkAt::After(r) => vec!["--after".into(), turn(r)],
            ForkAt::Before(r) => vec!["--before".into(), turn(r)],
            ForkAt::Latest => vec!["--latest".into()],
        }
    }
}

/// A turn of a list a [`TurnRef`] resolves against: a stored row or a turn's view.
pub(crate) trait HasTurnId {
    fn turn_id(&self) -> &str;
}

impl HasTurnId for TurnRow {
    fn turn_id(&self) -> &str {
        &self.id
    }
}

impl HasTurnId for TurnView {
    fn turn_id(&self) -> &str {
        &self.id
    }
}

impl TurnRef {
    /// The 0-based index of the turn this names in `turns` (a thread's turns in order), or
    /// `None` when it names none.
    pub(crate) fn position<T: HasTurnId>(&self, turns: &[T]) -> Option<usize> {
        match self {
            TurnRef::Number(n) if *n >= 1 && (*n as usize) <= turns.len() => Some(*n as usize - 1),
            TurnRef::Number(_) => None,
            TurnRef::Id(id) => turns.iter().position(|t| t.turn_id() == id),
        }
    }

    /// [`Self::position`], or `turn_not_found` naming what was asked of which thread.
    pub(crate) fn resolve<T: HasTurnId>(&self, turns: &[T], thread_id: &str) -> HostResult<usize> {
        self.position(turns).ok_or_else(|| match self {
            TurnRef::Number(n) => HostError::TurnNotFound(format!(
                "turn {n} (thread {thread_id} has {} turns)",
                turns.len()
            )),
            TurnRef::Id(id) => HostError::TurnNotFound(format!("{id} in thread {thread_id}")),
        })
    }
}
