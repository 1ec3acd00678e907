//! What each branch cost (docs/architecture.md "Cost"): every turn's tokens and money, read
//! from the harness's own session file with the history (`Turn::usage`, no second pass), and
//! counted once across a tree of forks. A fork's file holds the turns it inherited too, which
//! its source already paid for: a fork's **own** turns are those after its fork point, the
//! rest **inherited**, and a tree's total is every thread's own turns — the root's all of them
//! — which is what the provider billed for them. Money is the harness's where it reports it,
//! else the price table's (`base/price.rs`), else unknown (never 0).
//!
//! Calls: `thread` (a thread's detail carries its figures) and the base.

use forkhost_harness::{HarnessKind, TurnUsage};
use serde::{Deserialize, Serialize};

use crate::base::error::HostResult;
use crate::base::price::{PricedBy, PRICE_TABLE};
use crate::base::view::{CostFigure, ThreadDetail};
use crate::host::Host;

/// One turn's figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
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

impl ThreadCost {
    /// The figures of a thread's detail, turn by turn.
    fn of(detail: &ThreadDetail) -> ThreadCost {
        ThreadCost {
            thread_id: detail.thread.id.clone(),
            title: detail.thread.title.clone(),
            harness: detail.thread.harness,
            own: detail.cost.own,
            inherited: detail.cost.inherited,
            turns: detail
                .turns
                .iter()
                .filter(|t| t.complete)
                .map(|t| TurnCost {
                    number: t.number as u32,
                    model: t.model.clone(),
                    usage: t.usage,
                    cost_usd: t.cost_usd,
                    priced_by: t.priced_by,
                    inherited: t.inherited,
                })
                .collect(),
            price_table: detail.cost.price_table.clone(),
        }
    }
}

/// A tree of forks: each thread's own cost, and their sum — what the provider billed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct TreeCost {
    pub root: String,
    pub threads: Vec<ThreadCost>,
    pub total: CostFigure,
    pub price_table: String,
}

/// What one model's turns cost.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ModelCost {
    /// `None`: turns whose file names no model.
    pub model: Option<String>,
    pub figure: CostFigure,
}

/// The own turns of `threads` (a tree's branches, or one thread), summed by model, the most
/// money first. Inherited turns are left out: their source's own turns count them.
pub fn by_model<'a>(threads: impl IntoIterator<Item = &'a ThreadCost>) -> Vec<ModelCost> {
    let mut models: Vec<ModelCost> = Vec::new();
    for turn in threads
        .into_iter()
        .flat_map(|t| &t.turns)
        .filter(|t| !t.inherited)
    {
        let at = match models.iter().position(|m| m.model == turn.model) {
            Some(at) => at,
            None => {
                models.push(ModelCost {
                    model: turn.model.clone(),
                    figure: CostFigure::default(),
                });
                models.len() - 1
            }
        };
        models[at].figure.count(turn.usage.as_ref(), turn.cost_usd);
    }
    models.sort_by(|a, b| b.figure.cost_usd.total_cmp(&a.figure.cost_usd));
    models
}

impl Host {
    /// The cost of one thread: its own turns and the ones it inherited, from the figures its
    /// detail carries (read with the history, priced by [`BranchCost::of`]).
    pub async fn cost(&self, thread_id: &str) -> HostResult<ThreadCost> {
        Ok(ThreadCost::of(&self.show(thread_id).await?))
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
}
