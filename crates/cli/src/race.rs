//! `forkhost race` and `forkhost keep` (docs/architecture.md "Race"): N lanes from one turn, a
//! compact status line per lane on stderr as it changes, a table at the end; keeping one lane
//! asks before the other lanes' work is discarded.

use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;

use forkhost_core::{
    ApprovalDecision, HarnessKind, Host, HostError, HostResult, KeepPlan, LaneSpec, RaceLane,
    RaceSpec, RaceView,
};

use crate::approve::Approve;
use crate::output::Printed;

/// What `forkhost race` was asked.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("race_at").required(true).args(["after", "before", "latest"])))]
pub struct RaceArgs {
    thread: String,
    #[arg(long, value_name = "TURN")]
    after: Option<String>,
    #[arg(long, value_name = "TURN")]
    before: Option<String>,
    #[arg(long)]
    latest: bool,
    /// How many lanes (2 to 8).
    #[arg(short = 'n', long = "lanes", default_value_t = 2)]
    lanes: usize,
    /// The lanes' harnesses: one for all, or one per lane (claude,codex,pi).
    #[arg(long, value_delimiter = ',', value_name = "H,…")]
    harness: Vec<HarnessKind>,
    /// The lanes' models: one for all, or one per lane, as the harness names them (Pi:
    /// provider/id; Codex: model/list's ids; Claude: its names or aliases). Default: the
    /// harness's own.
    #[arg(long, value_delimiter = ',', value_name = "M,…")]
    model: Vec<String>,
    /// At most this many agents at once (default: the number of cores); the rest queue.
    #[arg(long, value_name = "K")]
    max_parallel: Option<usize>,
    /// Race in a folder outside git: the lanes share it.
    #[arg(long)]
    shared_folder: bool,
    /// all: approve every lane's requests; none (the default): decline them.
    #[arg(long, value_enum)]
    approve: Option<Approve>,
    /// Run CMD in each lane's folder when its turn ends (approves exactly this text for the
    /// repository). Without it, the repository's check command runs (asked first on a
    /// terminal until approved). The check runs as you, outside the lanes' sandboxes and
    /// approvals, and runs what the lanes wrote (scripts, package.json, Makefile).
    #[arg(long, value_name = "CMD", conflicts_with = "no_check")]
    check: Option<String>,
    /// Run no check, not even the repository's.
    #[arg(long)]
    no_check: bool,
    /// The check's time limit in seconds (default 600).
    #[arg(long, value_name = "SECS")]
    check_timeout: Option<u64>,
    /// US dollars the race may spend (`0.50` or `$0.50`): once the lanes that ended spent
    /// more, the lanes still running stop and the queued ones do not start.
    #[arg(long, value_name = "USD", value_parser = parse_dollars)]
    budget: Option<f64>,
    prompt: String,
}

/// `0.5`, `$0.50`: a positive number of US dollars.
fn parse_dollars(text: &str) -> Result<f64, String> {
    let number = text.trim().trim_start_matches('$');
    match number.parse::<f64>() {
        Ok(usd) if usd.is_finite() && usd > 0.0 => Ok(usd),
        _ => Err(format!(
            "{text:?} is not a budget: give a positive number of US dollars, like 0.50"
        )),
    }
}

/// `--harness a,b,c` and `--model x,y,z`: each one for every lane, or one per lane.
fn lane_specs(
    lanes: usize,
    harness: &[HarnessKind],
    model: &[String],
) -> HostResult<Vec<LaneSpec>> {
    let harness = per_lane(lanes, harness, "--harness", "harnesses")?;
    let model = per_lane(lanes, model, "--model", "models")?;
    Ok((0..lanes)
        .map(|i| LaneSpec {
            harness: harness.as_ref().map(|h| h[i]),
            model: model.as_ref().map(|m| m[i].trim().to_owned()),
        })
        .collect())
}

/// One value for all lanes, or one per lane (`None`: none given).
fn per_lane<T: Clone>(
    lanes: usize,
    given: &[T],
    flag: &str,
    what: &str,
) -> HostResult<Option<Vec<T>>> {
    match given.len() {
        0 => Ok(None),
        1 => Ok(Some(vec![given[0].clone(); lanes])),
        n if n == lanes => Ok(Some(given.to_vec())),
        n => Err(HostError::InvalidInput(format!(
            "{flag} names {n} {what} for {lanes} lanes: give one for all, or one per lane"
        ))),
    }
}

fn seconds(ms: u64) -> String {
    format!("{:.1}s", ms as f64 / 1000.0)
}

/// "1 file +3 −0", or "-" when not known.
fn files_cell(lane: &RaceLane) -> String {
    match &lane.files {
        None => "-".into(),
        Some(files) => {
            let added: usize = files.iter().map(|f| f.added_lines).sum();
            let removed: usize = files.iter().map(|f| f.removed_lines).sum();
            let word = if files.len() == 1 { "file" } else { "files" };
            format!("{} {word} +{added} −{removed}", files.len())
        }
    }
}

/// "passed", "failed (exit 1)", "timed out", or "-" when none ran.
fn check_cell(lane: &RaceLane) -> String {
    match &lane.check {
        None => "-".into(),
        Some(c) if c.passed => "passed".into(),
        Some(c) if c.timed_out => "timed out".into(),
        Some(c) => match c.exit_code {
            Some(code) => format!("failed (exit {code})"),
            None => "failed".into(),
        },
    }
}

/// One lane's status line.
/// What a lane's own turns cost since the fork point: the harness's money, else the price
/// table's; "unknown price" when neither has one, "-" before its turn ended.
fn spent_cell(lane: &RaceLane) -> String {
    match &lane.spent {
        None => "-".into(),
        Some(s) if s.turns == 0 => "-".into(),
        Some(s) if s.unpriced_turns == s.turns => "unknown price".into(),
        Some(s) if s.unpriced_turns > 0 => {
            format!("${:.4} + {} unpriced", s.cost_usd, s.unpriced_turns)
        }
        Some(s) => format!("${:.4}", s.cost_usd),
    }
}

fn status_line(lane: &RaceLane) -> String {
    let mut line = format!("lane {} · {}", lane.lane, lane.harness);
    if let Some(model) = &lane.model {
        line.push_str(&format!(" ({model})"));
    }
    line.push_str(&format!(" · {}", lane.state.as_str()));
    if lane.elapsed_ms > 0 {
        line.push_str(&format!(" · {}", seconds(lane.elapsed_ms)));
    }
    if let Some(usage) = &lane.usage {
        line.push_str(&format!(" · {}", crate::usage::tokens(Some(usage))));
    }
    if lane.spent.is_some() {
        line.push_str(&format!(" · {} since the fork", spent_cell(lane)));
    }
    if lane.files.is_some() {
        line.push_str(&format!(" · {}", files_cell(lane)));
    }
    if lane.check.is_some() {
        line.push_str(&format!(" · check {}", check_cell(lane)));
    }
    if let Some(message) = &lane.message {
        line.push_str(&format!(" · {message}"));
    }
    line
}

/// The race's end as a table.
pub fn table(race: &RaceView) -> String {
    let mut rows = vec![[
        "lane".to_owned(),
        "harness".into(),
        "model".into(),
        "state".into(),
        "time".into(),
        "tokens".into(),
        "cost".into(),
        "files changed".into(),
        "check".into(),
        "thread".into(),
    ]];
    for lane in &race.lanes {
        rows.push([
            lane.lane.to_string(),
            lane.harness.to_string(),
            lane.model.clone().unwrap_or_else(|| "-".into()),
            lane.state.as_str().to_owned(),
            seconds(lane.elapsed_ms),
            crate::usage::tokens(lane.usage.as_ref()),
            spent_cell(lane),
            files_cell(lane),
            check_cell(lane),
            lane.thread_id.clone().unwrap_or_else(|| "-".into()),
        ]);
    }
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out: Vec<String> = rows
        .iter()
        .map(|r| {
            r.iter()
                .zip(&widths)
                .map(|(cell, w)| format!("{cell}{}", " ".repeat(w - cell.chars().count())))
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_owned()
        })
        .collect();
    for lane in race.lanes.iter().filter(|l| l.message.is_some()) {
        out.push(format!(
            "lane {}: {}",
            lane.lane,
            lane.message.as_deref().unwrap_or_default()
        ));
    }
    if race.shared_folder {
        out.push("the lanes shared the source's folder (not in git)".into());
    }
    out.join("\n")
}

/// `forkhost race`.
pub async fn race(host: &Host, args: RaceArgs, json: bool) -> HostResult<Printed> {
    let at = crate::fork_at(args.after, args.before, args.latest)?;
    let lanes = lane_specs(args.lanes, &args.harness, &args.model)?;
    if args.check_timeout == Some(0) {
        return Err(HostError::InvalidInput(
            "a check time limit of 0 seconds would stop every check at once".into(),
        ));
    }
    let folder = std::path::PathBuf::from(host.show(&args.thread).await?.thread.cwd);
    let check = crate::check::race_check(host, &folder, args.check, args.no_check, json).await?;
    // Nobody can answer N lanes' requests one by one here: `all` approves, else decline.
    let approve = match args.approve {
        Some(Approve::All) => ApprovalDecision::Approve,
        _ => ApprovalDecision::Decline,
    };
    let on_lane = Arc::new(|lane: &RaceLane| eprintln!("{}", status_line(lane)));
    let race = host
        .race(
            RaceSpec {
                source: args.thread,
                at,
                lanes,
                prompt: args.prompt,
                shared_folder: args.shared_folder,
                max_parallel: args.max_parallel,
                approve: Some(approve),
                check,
                check_timeout: args.check_timeout.map(std::time::Duration::from_secs),
                budget_usd: args.budget,
            },
            on_lane,
        )
        .await?;
    let text = table(&race);
    Ok(Printed::new(serde_json::json!({ "race": race }), text))
}

/// What discarding the other lanes loses, in words; `None` when nothing.
fn loss_words(plan: &KeepPlan) -> Option<String> {
    let lost: Vec<String> = plan
        .others
        .iter()
        .filter_map(|o| {
            let loss = o.loss.as_ref().filter(|l| l.exists)?;
            let n = loss.files.len() + loss.ignored.len();
            (n > 0 || loss.commits > 0).then(|| {
                format!(
                    "lane {} ({}): {n} changed files, {} commits",
                    o.lane, o.thread_id, loss.commits
                )
            })
        })
        .collect();
    (!lost.is_empty()).then(|| lost.join("; "))
}

/// `forkhost keep`: asks before discarding the other lanes' work unless `yes`.
pub async fn keep(host: &Host, lane: &str, yes: bool, json: bool) -> HostResult<Printed> {
    let plan = host.keep_plan(lane).await?;
    if let Some(lost) = loss_words(&plan).filter(|_| !yes) {
        let can_ask = !json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
        if !can_ask {
            return Err(HostError::InvalidInput(format!(
                "keeping lane {lane} discards the other lanes' work ({lost}); pass --yes to \
                 confirm"
            )));
        }
        eprint!("Keeping {lane} discards {lost}. Discard? [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            return Err(HostError::InvalidInput(
                "nothing kept: the other lanes' work stays".into(),
            ));
        }
    }
    let kept = host.keep(lane, Some(&plan)).await?;
    let mut text = format!(
        "kept {lane}: {} files brought back into {} (uncommitted)",
        kept.brought_back.files.len(),
        kept.plan.source
    );
    for f in &kept.brought_back.files {
        text.push_str(&format!(
            "\n  {} {} +{} −{}",
            f.status.as_str(),
            f.path,
            f.added_lines,
            f.removed_lines
        ));
    }
    for other in &kept.plan.others {
        text.push_str(&format!(
            "\narchived lane {} ({}), its worktree removed",
            other.lane, other.thread_id
        ));
    }
    Ok(Printed::new(serde_json::json!({ "kept": kept }), text))
}
