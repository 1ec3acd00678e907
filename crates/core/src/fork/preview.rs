//! What a fork will hold, before it exists: the source's turns up to the cut, read from the
//! store and the text cache (no harness call, no sync), so that a fork's window can show its
//! inherited history while the harness forks. The fork's own detail replaces it.

use forkhost_harness::HarnessKind;
use forkhost_store::TurnRow;

use crate::base::error::{HostError, HostResult};
use crate::base::fork_point::{ForkAt, TurnRef};
use crate::base::view::ThreadDetail;
use crate::host::Host;

impl Host {
    /// The source `source_id` as a fork at `at` (into `into`'s harness) would inherit it: its
    /// turns up to the cut (`before` a turn leaves that turn out), without their fork chips.
    /// Its thread is the source's (the fork has no row yet). `None` where the fork itself
    /// makes no native call (a harness whose fork is lazy, Claude's, forking within itself:
    /// the fork answers at once, and a preview would only take time from it). A cut that names
    /// no turn is `turn_not_found`, as the fork itself would say.
    pub async fn fork_preview(
        &self,
        source_id: &str,
        at: &ForkAt,
        into: Option<HarnessKind>,
    ) -> HostResult<Option<ThreadDetail>> {
        let thread = self.thread(source_id).await?;
        if into.is_none_or(|k| k == thread.kind) {
            let binary = self.inner.harnesses.binary(thread.kind).await?;
            if !binary.capabilities().eager_fork {
                return Ok(None);
            }
        }
        let stored = self.store().turns(source_id).await?;
        let kept = kept_turns(&stored, at).ok_or_else(|| {
            HostError::TurnNotFound(format!("the fork point in thread {source_id}"))
        })?;
        let detail = self.detail_of(&thread, &stored[..kept], Vec::new()).await?;
        Ok(Some(detail))
    }
}

/// How many of `stored` (in order) a fork at `at` keeps; `None` when `at` names no turn.
fn kept_turns(stored: &[TurnRow], at: &ForkAt) -> Option<usize> {
    let position = |r: &TurnRef| r.position(stored);
    match at {
        ForkAt::After(r) => position(r).map(|i| i + 1),
        ForkAt::Before(r) => position(r),
        ForkAt::Latest if stored.is_empty() => None,
        ForkAt::Latest => Some(stored.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(n: i64) -> Vec<TurnRow> {
        (1..=n)
            .map(|i| TurnRow {
                id: format!("t{i}"),
                thread_id: "th".into(),
                ordinal: i,
                native_turn_ref: format!("r{i}"),
                native_checkpoint_ref: None,
            })
            .collect()
    }

    #[test]
    fn keeps_the_turns_up_to_the_cut() {
        let stored = rows(3);
        assert_eq!(
            kept_turns(&stored, &ForkAt::After(TurnRef::Number(2))),
            Some(2)
        );
        assert_eq!(
            kept_turns(&stored, &ForkAt::Before(TurnRef::Number(2))),
            Some(1)
        );
        assert_eq!(
            kept_turns(&stored, &ForkAt::Before(TurnRef::Id("t1".into()))),
            Some(0)
        );
        assert_eq!(kept_turns(&stored, &ForkAt::Latest), Some(3));
    }

    #[test]
    fn a_cut_naming_no_turn_is_none() {
        let stored = rows(3);
        assert_eq!(
            kept_turns(&stored, &ForkAt::After(TurnRef::Number(4))),
            None
        );
        assert_eq!(
            kept_turns(&stored, &ForkAt::After(TurnRef::Number(0))),
            None
        );
        assert_eq!(
            kept_turns(&stored, &ForkAt::Before(TurnRef::Id("x".into()))),
            None
        );
        assert_eq!(kept_turns(&[], &ForkAt::Latest), None);
    }
}
