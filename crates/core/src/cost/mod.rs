//! What each branch cost (docs/architecture.md "Cost"): every turn's tokens and money, read
//! from the harness's own session file with the history (`Turn::usage`, no second pass), and
//! counted once across a tree of forks. A fork's file holds the turns it inherited too, which
//! its source already paid for: a fork's **own** turns are those after its fork point, the
//! rest **inherited**, and a tree's total is every thread's own turns — the root's all of them
//! — which is what the provider billed for them. Money is the harness's where it reports it,
//! else the price table's ([`price`]), else unknown (never 0).
//!
//! Calls: the base.

pub(crate) mod price;

use forkhost_harness::{HarnessKind, TurnUsage};
use forkhost_store::{Boundary, ThreadRow};
use serde::Serialize;

use crate::base::error::{HostError, HostResult};
use crate::base::thread::Thread;
use crate::host::Host;
pub use price::{PricedBy, PRICE_TABLE};

/// Tokens and money summed over turns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, ts_rs::TS)]
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
    fn add(&mut self, turn: &TurnCost) {
        self.turns += 1;
        if let Some(u) = &turn.usage {
            self.input_tokens += u.input_tokens;
            self.cached_input_tokens += u.cached_input_tokens.unwrap_or(0);
            self.cache_write_tokens += u.cache_write_tokens.unwrap_or(0);
            self.output_tokens += u.output_tokens;
            self.reasoning_tokens += u.reasoning_tokens.unwrap_or(0);
        }
        match turn.cost_usd {
            Some(cost) => self.cost_usd += cost,
            None => self.unpriced_turns += 1,
        }
    }

    fn plus(mut self, other: &CostFigure) -> CostFigure {
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

/// One turn's figure.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct TurnCost {
    /// 1-based, as the thread shows it.
    pub number: u32,
    pub model: Option<String>,
    pub usage: Option<TurnUsage>,
    pub cost_usd: Option<f64>,
    pub priced_by: PricedBy,
    /// The turn came with the fork (its source paid for it).
    pub inherited: bool,
}

/// A thread's cost: its own turns, what it inherited, each turn.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ThreadCost {
    pub thread_id: String,
    pub title: String,
    pub harness: HarnessKind,
    pub own: CostFigure,
    pub inherited: CostFigure,
    pub turns: Vec<TurnCost>,
    /// What priced the turns the harness did not.
    pub price_table: String,
}

/// A tree of forks: each thread's own cost, and their sum — what the provider billed.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct TreeCost {
    pub root: String,
    pub threads: Vec<ThreadCost>,
    pub total: CostFigure,
    pub price_table: String,
}

impl Host {
    /// The cost of one thread: its own turns and the ones it inherited.
    pub async fn cost(&self, thread_id: &str) -> HostResult<ThreadCost> {
        let thread = self.thread(thread_id).await?;
        let inherited = self.inherited_turns(&thread.row).await?;
        let read = self.turns_of(&thread).await?;
        let complete: Vec<&forkhost_harness::Turn> = read.iter().filter(|t| t.complete).collect();
        // A fork not written yet holds exactly its source's turns up to the cut.
        let turns = match thread.pending.is_some() {
            true => &complete[..inherited.min(complete.len())],
            false => &complete[..],
        };
        let mut cost = ThreadCost {
            thread_id: thread.row.id.clone(),
            title: thread.row.title.clone(),
            harness: thread.kind,
            own: CostFigure::default(),
            inherited: CostFigure::default(),
            turns: Vec::new(),
            price_table: PRICE_TABLE.to_owned(),
        };
        for (i, turn) in turns.iter().enumerate() {
            let (cost_usd, priced_by) =
                price::price(thread.kind, turn.model.as_deref(), turn.usage.as_ref());
            let row = TurnCost {
                number: i as u32 + 1,
                model: turn.model.clone(),
                usage: turn.usage,
                cost_usd,
                priced_by,
                inherited: i < inherited,
            };
            match row.inherited {
                true => cost.inherited.add(&row),
                false => cost.own.add(&row),
            }
            cost.turns.push(row);
        }
        Ok(cost)
    }

    /// The cost of the tree `thread_id` is in: its root and every fork below it, each once.
    pub async fn tree_cost(&self, thread_id: &str) -> HostResult<TreeCost> {
        let mut root = self.store().thread(thread_id).await?;
        let mut seen = vec![root.id.clone()];
        while let Some(fork) = root.fork.clone() {
            match self.store().thread(&fork.source_thread).await {
                Ok(source) if !seen.contains(&source.id) => {
                    seen.push(source.id.clone());
                    root = source;
                }
                _ => break,
            }
        }
        let mut threads = Vec::new();
        let mut queue = vec![root.id.clone()];
        let mut visited = Vec::new();
        while let Some(id) = queue.pop() {
            if visited.contains(&id) {
                continue;
            }
            visited.push(id.clone());
            queue.extend(self.store().children(&id).await?.into_iter().map(|c| c.id));
            threads.push(self.cost(&id).await?);
        }
        let total = threads
            .iter()
            .fold(CostFigure::default(), |sum, t| sum.plus(&t.own));
        Ok(TreeCost {
            root: root.id,
            threads,
            total,
            price_table: PRICE_TABLE.to_owned(),
        })
    }

    /// How many of a thread's turns came with it from its source: none for a thread that is no
    /// fork; the source's turns up to the cut for a fork.
    async fn inherited_turns(&self, row: &ThreadRow) -> HostResult<usize> {
        let Some(fork) = &row.fork else {
            return Ok(0);
        };
        let numbers = self.store().source_turn_numbers(Some(&row.id)).await?;
        let Some((_, number)) = numbers.into_iter().find(|(id, _)| id == &row.id) else {
            return Ok(0);
        };
        let number = usize::try_from(number).unwrap_or(0);
        Ok(match fork.boundary {
            Boundary::Before => number.saturating_sub(1),
            Boundary::After | Boundary::Latest => number,
        })
    }

    /// A thread's turns as its file holds them, with their usage; a fork that is not written
    /// yet (it materializes with its first prompt) holds its source's.
    async fn turns_of(
        &self,
        thread: &Thread,
    ) -> HostResult<std::sync::Arc<Vec<forkhost_harness::Turn>>> {
        let native = thread.fork_source()?;
        let Some(path) = native.path.clone() else {
            return Ok(Default::default());
        };
        let (host, kind) = (self.clone(), native_kind(thread));
        let turns = tokio::task::spawn_blocking(move || host.inner.texts.turns(kind, &path))
            .await
            .map_err(|e| HostError::Internal(e.to_string()))??;
        Ok(turns)
    }
}

/// The harness whose format a thread's readable file is in: a pending fork that continues in
/// another harness still reads as its source's.
fn native_kind(thread: &Thread) -> HarnessKind {
    match (&thread.pending, &thread.row.fork) {
        (Some(_), Some(fork)) => fork
            .source_harness
            .as_deref()
            .and_then(|h| h.parse().ok())
            .unwrap_or(thread.kind),
        _ => thread.kind,
    }
}
