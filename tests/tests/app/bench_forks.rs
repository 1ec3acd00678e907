//! Benchmark: click Fork → the fork's window painted, for every harness, on a quiet machine and
//! on one kept busy by a parallel `cargo build` (figures are printed; nothing is asserted about
//! time). Each harness gets the built app with its real CLI against the fake model, a thread of
//! two turns typed into the app, then `RUNS` forks of its last reply, each in a window of its
//! own (the app's preloaded spare, as a user's fork gets it), closed after it painted.
//!
//! Goal (issue "Speed where users feel it"): ≤ 150 ms median under load for a 300-message
//! thread, every harness. The 300- and 10,000-message figures are `app_bench`'s (Claude
//! transcripts generated in bulk); the window's side of a fork (data → paint) does not depend
//! on the harness, the native fork does, and is printed here per harness.
//! Run with `scripts/app-e2e.sh app_bench_forks`.

use crate::app_support;

use std::time::Duration;

use anyhow::{Context, Result};
use app_support::forks::{fork_runs, runs_summary, BuildLoad, ForkWindowFigures};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

/// Forks per harness and condition.
const RUNS: usize = 5;

#[tokio::test(flavor = "multi_thread")]
async fn app_bench_fork_windows() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let software = !has_render_node();
    let mut report = Vec::new();
    for which in [Harness::Claude, Harness::Codex, Harness::Pi] {
        let Some(harness) = HarnessEnv::for_fake(which, &model)? else {
            report.push(format!(
                "{}: skipped (its CLI is not installed)",
                which.name()
            ));
            continue;
        };
        // The app's own rendering choice for this machine, as app_bench measures it.
        let vars = [(
            "WEBKIT_DISABLE_COMPOSITING_MODE".to_owned(),
            if software { "1" } else { "0" }.to_owned(),
        )];
        let env = AppEnv::with_vars(&app, Some(&harness), &vars)?;
        let mut shots = Shots::new(&format!("app_bench_forks_{}", which.name()))?;
        if software {
            shots = shots.without_compositing();
        }
        let client = env.launch().await?;
        let result = harness_forks(&client, &harness, which, &mut shots).await;
        if result.is_err() {
            shots.take(&client, "failure").await;
        }
        client.close().await.ok();
        report.extend(result?);
    }
    println!();
    println!("=== fork windows per harness (median / p90 of {RUNS}; a thread of 2 turns) ===");
    println!(
        "rendering: {}",
        if software {
            "software, no compositing (the app's default without a GPU render node)"
        } else {
            "compositing (GPU render node)"
        }
    );
    for line in &report {
        println!("{line}");
    }
    println!("goal: click → fork window with its history ≤ 150 ms median under load (300 messages); \"history shown\" is the preview read while the harness forks, \"fork ready\" the fork's own list with its composer live");
    println!("======================");
    Ok(())
}

/// A two-turn thread of `which`, then `RUNS` fork windows quiet and `RUNS` under load.
async fn harness_forks(
    client: &Client,
    harness: &HarnessEnv,
    which: Harness,
    shots: &mut Shots,
) -> Result<Vec<String>> {
    new_thread(client, which.name(), harness.work_dir(), "first prompt").await?;
    send_prompt(client, "second prompt").await?;
    wait_turn_done(client, 2).await?;
    let (_, active) = tabs(client).await?;
    let thread = active.context("no active tab")?;

    let mut lines = Vec::new();
    let runs = app_support::forks::bench_runs(RUNS);
    let quiet = fork_runs(client, &thread, shots, "quiet", runs, None).await?;
    lines.push(summary(which, "quiet", &quiet));
    if app_support::forks::bench_quick() {
        lines.push(format!(
            "{:<6} loaded: skipped (FORKHOST_BENCH_QUICK=1)",
            which.name()
        ));
        return Ok(lines);
    }
    let mut load = BuildLoad::start()?;
    // Let the build get going (its first seconds are cargo reading the lock file).
    tokio::time::sleep(Duration::from_secs(5)).await;
    let loaded = fork_runs(client, &thread, shots, "loaded", RUNS, Some(&mut load)).await?;
    lines.push(summary(
        which,
        &format!("loaded by {}", load.describe()),
        &loaded,
    ));
    drop(load);
    Ok(lines)
}

fn summary(which: Harness, condition: &str, runs: &[ForkWindowFigures]) -> String {
    format!("{:<6} {condition}: {}", which.name(), runs_summary(runs))
}
