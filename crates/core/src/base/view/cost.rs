//! What turns cost, summed: the figures a thread's detail carries (`ThreadDetail::cost`) and
//! the cost wing adds up over a tree.

use forkhost_harness::TurnUsage;
use forkhost_store::Boundary;
use serde::{Deserialize, Serialize};

use super::{ForkView, TurnView};
use crate::base::price::PRICE_TABLE;

/// Tokens and money summed over turns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct CostFigure {
    pub turns: u32,
    #[ts(type = "number")]
    pub input_tokens: u64,
    #[ts(type = "number")]
    pub cached_input_tokens: u64,
    #[ts(type = "number")]
    pub cache_write_tokens: u64,
    #[ts(type = "number")]
    pub output_tokens: u64,
    #[ts(type = "number")]
    pub reasoning_tokens: u64,
    /// US dollars of the turns that have a price.
    pub cost_usd: f64,
    /// Turns without a price (their model is not in the table, or they reported nothing):
    /// the money figure leaves them out and says so.
    pub unpriced_turns: u32,
}

impl CostFigure {
    /// Counts one turn: its tokens where it reported them, its money where it has a price.
    pub(crate) fn count(&mut self, usage: Option<&TurnUsage>, cost_usd: Option<f64>) {
        self.turns += 1;
        if let Some(u) = usage {
            self.input_tokens += u.input_tokens;
            self.cached_input_tokens += u.cached_input_tokens.unwrap_or(0);
            self.cache_write_tokens += u.cache_write_tokens.unwrap_or(0);
            self.output_tokens += u.output_tokens;
            self.reasoning_tokens += u.reasoning_tokens.unwrap_or(0);
        }
        match cost_usd {
            Some(cost) => self.cost_usd += cost,
            None => self.unpriced_turns += 1,
        }
    }

    pub(crate) fn plus(mut self, other: &CostFigure) -> CostFigure {
        self.turns += other.turns;
        self.input_tokens += other.input_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
        self.cache_write_tokens += other.cache_write_tokens;
        self.output_tokens += other.output_tokens;
        self.reasoning_tokens += other.reasoning_tokens;
        self.cost_usd += other.cost_usd;
        self.unpriced_turns += other.unpriced_turns;
        self
    }
}

/// A thread's own and inherited figures, as its detail carries them (`ThreadDetail::cost`):
/// priced while the history is read, not in a second pass.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct BranchCost {
    /// The turns after the fork point (a thread that is no fork: all of them).
    pub own: CostFigure,
    /// The turns that came with the fork: its source paid for them.
    pub inherited: CostFigure,
    /// What priced the turns the harness did not.
    pub price_table: String,
}

impl BranchCost {
    /// Sums priced turns. A turn still running is left out: its figure is not known yet.
    pub(crate) fn of(turns: &[TurnView]) -> BranchCost {
        let mut cost = BranchCost {
            own: CostFigure::default(),
            inherited: CostFigure::default(),
            price_table: PRICE_TABLE.to_owned(),
        };
        for turn in turns.iter().filter(|t| t.complete) {
            let figure = match turn.inherited {
                true => &mut cost.inherited,
                false => &mut cost.own,
            };
            figure.count(turn.usage.as_ref(), turn.cost_usd);
        }
        cost
    }
}

/// How many of a fork's first turns came with it: the source's turns up to the cut (`None`,
/// a thread that is no fork: none). A source turn whose number is not known counts none.
pub(crate) fn inherited_turns(fork: Option<&ForkView>) -> usize {
    let Some(fork) = fork else {
        return 0;
    };
    let number = fork
        .source_turn_number
        .and_then(|n| usize::try_from(n).ok())
        .unwrap_or(0);
    match fork.boundary {
        Boundary::Before => number.saturating_sub(1),
        Boundary::After | Boundary::Latest => number,
    }
}
