//! `forkhost cost THREAD [--tree] [--by turn|model]` (docs/architecture.md "Cost"): what a
//! branch cost — its own turns since its fork point and what it inherited — or, with `--tree`,
//! every branch of its tree and their sum, each turn counted once; `--by model` sums the own
//! turns by model instead. Money the harness did not report is priced by
//! the price table the output names; a turn it cannot price is counted as unpriced, never 0.

use forkhost_core::{by_model, CostFigure, Host, HostError, ModelCost, ThreadCost};

use crate::output::Printed;
use crate::usage::tokens;

#[derive(Debug, clap::Args)]
pub struct CostArgs {
    thread: String,
    /// Every branch of the thread's tree, and their sum (what the provider billed).
    #[arg(long)]
    tree: bool,
    /// `turn` (the default): each turn; `model`: the own turns summed by model.
    #[arg(long, value_enum, default_value_t = By::Turn)]
    by: By,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum By {
    Turn,
    Model,
}

pub async fn cost(host: &Host, args: CostArgs) -> Result<Printed, HostError> {
    if args.by == By::Model {
        let (threads, price_table) = match args.tree {
            true => {
                let tree = host.tree_cost(&args.thread).await?;
                (tree.threads, tree.price_table)
            }
            false => {
                let thread = host.cost(&args.thread).await?;
                let table = thread.price_table.clone();
                (vec![thread], table)
            }
        };
        let models = by_model(&threads);
        let mut lines: Vec<String> = models.iter().map(model_line).collect();
        if lines.is_empty() {
            lines.push("no turns of its own".to_owned());
        }
        lines.push(format!("prices: {price_table}"));
        let json = serde_json::to_value(&models).map_err(|e| HostError::Internal(e.to_string()))?;
        return Ok(Printed::new(
            serde_json::json!({ "by_model": json, "price_table": price_table }),
            lines.join("\n"),
        ));
    }
    if args.tree {
        let tree = host.tree_cost(&args.thread).await?;
        let mut lines: Vec<String> = tree
            .threads
            .iter()
            .map(|t| {
                format!(
                    "{:<40} own {}",
                    crate::output::one_line(&t.title),
                    figure(&t.own)
                )
            })
            .collect();
        lines.push(format!("{:<40} {}", "tree", figure(&tree.total)));
        lines.push(format!("prices: {}", tree.price_table));
        let json = serde_json::to_value(&tree).map_err(|e| HostError::Internal(e.to_string()))?;
        return Ok(Printed::new(
            serde_json::json!({ "tree": json }),
            lines.join("\n"),
        ));
    }
    let thread = host.cost(&args.thread).await?;
    let text = thread_text(&thread);
    let json = serde_json::to_value(&thread).map_err(|e| HostError::Internal(e.to_string()))?;
    Ok(Printed::new(serde_json::json!({ "cost": json }), text))
}

fn thread_text(thread: &ThreadCost) -> String {
    let mut lines = vec![
        format!("this branch: {}", figure(&thread.own)),
        format!("inherited:   {}", figure(&thread.inherited)),
    ];
    for turn in &thread.turns {
        lines.push(format!(
            "  turn {:>3}{} {:<24} {}",
            turn.number,
            if turn.inherited { " (inherited)" } else { "" },
            turn.model.as_deref().unwrap_or("-"),
            match (&turn.usage, turn.cost_usd) {
                (Some(u), Some(c)) => format!("{} · ${c:.4}", tokens(Some(u))),
                (Some(u), None) => format!("{} · unknown price", tokens(Some(u))),
                (None, _) => "no usage recorded".to_owned(),
            }
        ));
    }
    lines.push(format!("prices: {}", thread.price_table));
    lines.join("\n")
}

fn model_line(m: &ModelCost) -> String {
    format!(
        "{:<32} {}",
        m.model.as_deref().unwrap_or("(model not named)"),
        figure(&m.figure)
    )
}

fn figure(f: &CostFigure) -> String {
    let money = match (f.turns, f.unpriced_turns) {
        (0, _) => "$0".to_owned(),
        (_, 0) => format!("${:.4}", f.cost_usd),
        (n, u) if u == n => "unknown price".to_owned(),
        (_, u) => format!("${:.4} + {u} unpriced turns", f.cost_usd),
    };
    format!(
        "{} turns · {} in / {} out tokens · {money}",
        f.turns, f.input_tokens, f.output_tokens
    )
}
