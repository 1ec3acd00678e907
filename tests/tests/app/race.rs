//! Fork ×N in the app (issue 24) over WebDriver with the real Pi CLI against the fake model:
//! Fork ×3 on reply 2 opens the race dialog, then the race view in the source's tab with three
//! lanes (at least two running at once, the third queued while the machine's slots are taken);
//! each lane's check (shown with its exact text and ticked in the dialog) ends with its result
//! and output tail, one passing; Keep on the passing lane shows the other lanes' loss first, then
//! brings its file into the source's folder. A screenshot of the race view lands in
//! test-artifacts/app_race/. Run by `scripts/app-e2e.sh app_race`.
#![cfg(unix)]

use crate::app_support;

use std::path::Path;
use std::time::Duration;

use anyhow::{ensure, Result};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(60);

/// Lists the lane's folder (its output's tail shows), then passes only where won.txt is.
const CHECK: &str = "ls; test -f won.txt";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_race_three_lanes_from_reply_two_check_and_keep() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(harness) = HarnessEnv::for_fake(Harness::Pi, &model)? else {
        return Ok(());
    };
    let repo = harness.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"])?;
    std::fs::write(repo.join("README.md"), "a test repository\n")?;
    git(&repo, &["add", "README.md"])?;
    git(&repo, &["commit", "-q", "-m", "initial"])?;
    let env = AppEnv::new(&app, Some(&harness))?;
    let mut shots = Shots::new("app_race")?;
    let client = env.launch().await?;
    let result = race(&client, &repo, &mut shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        shots.keep_app_log(&env);
    }
    client.close().await.ok();
    result
}

/// How many lanes are in each state now.
async fn states(client: &Client) -> Result<Vec<String>> {
    let v = js(
        client,
        r#"return [...document.querySelectorAll('[data-race-lane]')].map(e => e.dataset.laneState);"#,
    )
    .await?;
    Ok(v.as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|s| s.as_str().unwrap_or("").to_owned())
        .collect())
}

async fn race(client: &Client, repo: &Path, shots: &mut Shots) -> Result<()> {
    new_thread(client, "pi", repo, "first prompt").await?;
    send_prompt(client, "second prompt").await?;
    wait_turn_done(client, 2).await?;

    click(
        client,
        r#"article[data-role="assistant"][data-turn="2"] button[data-action="fork-options"]"#,
    )
    .await?;
    menu_item(client, "Fork ×N").await?;
    wait_css(client, r#"[data-dialog="Race"]"#, WAIT).await?;
    // The lane that claims the repository's .git/race-claim first writes won.txt; SLOW keeps
    // every reply streaming for 2 s.
    let claim = repo.join(".git").join("race-claim");
    let prompt = format!(
        "SLOW RUN_COMMAND `mkdir '{}' 2>/dev/null && echo won > won.txt; true`",
        claim.display()
    );
    type_into(client, r#"textarea[name="race-prompt"]"#, &prompt).await?;
    type_into(client, r#"input[aria-label="Check command"]"#, CHECK).await?;
    // The exact text is shown before it may run.
    let shown = wait_js(
        client,
        r#"document.querySelector('.race-dialog__check code')?.textContent ?? false"#,
        WAIT,
        "the check command shown",
    )
    .await?;
    ensure!(shown == json!(CHECK), "the dialog showed {shown}");
    click(client, r#"input[name="run-check"]"#).await?;
    shots.take(client, "race-dialog").await;
    click(client, r#"button[name="start-race"]"#).await?;

    // The race view, in the source's tab, with three lanes.
    wait_css(client, "[data-race]", WAIT).await?;
    wait_js(
        client,
        r#"document.querySelectorAll('[data-race-lane]').length === 3"#,
        WAIT,
        "three lanes",
    )
    .await?;
    // Lanes streaming at once (the rest queued for a slot, on a 2-core machine).
    let mut most_running = 0;
    let mut saw_reply = false;
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let now = states(client).await?;
        most_running = most_running.max(now.iter().filter(|s| *s == "running").count());
        if !saw_reply && most_running >= 2 {
            let text = js(
                client,
                r#"return [...document.querySelectorAll('[data-lane-reply]')].some(e => e.textContent.trim().length > 0);"#,
            )
            .await?;
            if text == json!(true) {
                saw_reply = true;
                shots.take(client, "race-streaming").await;
            }
        }
        if now.len() == 3 && now.iter().all(|s| s == "done" || s == "failed") {
            break;
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "lanes did not end: {now:?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    ensure!(
        most_running >= 2,
        "lanes never ran at once (at most {most_running})"
    );
    let ended = states(client).await?;
    ensure!(ended.iter().all(|s| s == "done"), "lanes: {ended:?}");

    // Each lane's check, one passing, with the output's tail shown.
    let checks = wait_js(
        client,
        r#"(() => {
            const all = [...document.querySelectorAll('[data-lane-check]')].map(e => e.dataset.laneCheck);
            return all.length === 3 ? all : false;
        })()"#,
        WAIT,
        "three check results",
    )
    .await?;
    let checks: Vec<String> = serde_json::from_value(checks)?;
    ensure!(
        checks.iter().filter(|c| *c == "passed").count() == 1,
        "checks: {checks:?}"
    );
    let tails = js(
        client,
        r#"return [...document.querySelectorAll('[data-lane-check] .race-lane__tail')].map(e => e.textContent);"#,
    )
    .await?;
    let tails: Vec<String> = serde_json::from_value(tails)?;
    ensure!(
        tails.len() == 3 && tails.iter().all(|t| t.contains("README.md")),
        "the checks' output tails: {tails:?}"
    );
    // Each lane's tokens, as its harness reported them for its turn.
    let usage = js(
        client,
        r#"return [...document.querySelectorAll('[data-lane-usage]')].map(e => e.textContent);"#,
    )
    .await?;
    let usage: Vec<String> = serde_json::from_value(usage)?;
    ensure!(
        usage.len() == 3
            && usage
                .iter()
                .all(|u| u.contains(" in / ") && u.contains(" out")),
        "the lanes' tokens: {usage:?}"
    );
    shots.take(client, "race-view").await;
    save_screenshot(client, "app_race/race-view").await?;

    // Keep the passing lane: the loss first, then its file in the source's folder.
    let winner = r#"[data-race-lane]:has([data-lane-check="passed"])"#;
    wait_js(
        client,
        &format!(r#"!document.querySelector('{winner} button[name="keep-lane"]').disabled"#),
        WAIT,
        "Keep to be enabled",
    )
    .await?;
    click(client, &format!(r#"{winner} button[name="keep-lane"]"#)).await?;
    wait_css(client, &format!("{winner} [data-keep-plan]"), WAIT).await?;
    ensure!(
        !repo.join("won.txt").exists(),
        "kept before the loss was confirmed"
    );
    shots.take(client, "keep-loss").await;
    click(client, &format!(r#"{winner} button[name="confirm-keep"]"#)).await?;
    let deadline = std::time::Instant::now() + WAIT;
    while !repo.join("won.txt").exists() {
        ensure!(
            std::time::Instant::now() < deadline,
            "won.txt never reached the source's folder"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    ensure!(std::fs::read_to_string(repo.join("won.txt"))? == "won\n");
    wait_css(client, r#"[data-race-lane].race-lane--kept"#, WAIT).await?;
    shots.take(client, "kept").await;
    Ok(())
}
