//! The app's approval card, end to end: a Claude thread in its default mode (it asks before a
//! Write) against the fake model, over WebDriver. The card shows what the harness wants to do,
//! the tab and the sidebar entry are marked while it waits, Enter approves (the file is written,
//! the turn completes; a window reloaded meanwhile shows the card again), Decline refuses (no file, the turn completes, the card goes). Run with
//! `scripts/app-e2e.sh app_approvals`; screenshots land in `test-artifacts/app_approvals/`.

mod app_support;

use std::path::Path;
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

const CARD: &str = "[data-approval-id]";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_claude_approval_card() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(harness) = HarnessEnv::for_fake(Harness::Claude, &model)? else {
        return Ok(());
    };
    let env = AppEnv::new(&app, Some(&harness))?;
    let mut shots = Shots::new("app_approvals")?;
    let client = env.launch().await?;
    let result = approvals(&client, harness.work_dir(), &mut shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
    }
    let closed = client.close().await;
    result?;
    closed.context("ending the WebDriver session")?;
    Ok(())
}

/// Waits for the card of a request that names `file` in the active conversation; its id.
async fn card_naming(client: &Client, file: &str) -> Result<String> {
    let check = format!(
        r#"(() => {{
            const card = document.querySelector('.conv {CARD}');
            return card && card.innerText.includes({file:?}) ? card.dataset.approvalId : '';
        }})()"#
    );
    let id = wait_js(
        client,
        &check,
        TURN,
        &format!("the approval card for {file}"),
    )
    .await?;
    Ok(id.as_str().unwrap_or_default().to_owned())
}

async fn marked(client: &Client, thread: &str) -> Result<bool> {
    let v = js(
        client,
        &format!(
            r#"return [
                document.querySelector('[role="tab"][data-thread-id="{thread}"]')?.dataset.awaitingApproval ?? null,
                document.querySelector('button.thread[data-thread-id="{thread}"]')?.dataset.awaitingApproval ?? null,
            ];"#
        ),
    )
    .await?;
    Ok(v[0] == "true" && v[1] == "true")
}

async fn unmarked(client: &Client, thread: &str) -> Result<()> {
    wait_js(
        client,
        &format!(
            r#"!document.querySelector('[data-thread-id="{thread}"][data-awaiting-approval]') && !document.querySelector('{CARD}')"#
        ),
        Duration::from_secs(20),
        "the card and the markers to go",
    )
    .await?;
    Ok(())
}

async fn approvals(client: &Client, work: &Path, shots: &mut Shots) -> Result<()> {
    let thread = new_thread(client, "claude", work, "hello").await?;

    // Turn 2 wants to write a file: a card, the markers, the composer waiting.
    let approved = work.join("approved.txt");
    send_prompt(client, &format!("WRITE_FILE `{}`", approved.display())).await?;
    let id = card_naming(client, "approved.txt").await?;
    ensure!(!id.is_empty(), "the card has no request id");
    for action in ["approve", "decline", "stop-turn"] {
        wait_css(
            client,
            &format!(r#"[data-approval-id="{id}"] button[data-action="{action}"]"#),
            Duration::from_secs(5),
        )
        .await?;
    }
    ensure!(
        marked(client, &thread).await?,
        "the tab and the sidebar entry should be marked"
    );
    let state = js(
        client,
        r#"return document.querySelector('[data-runtime-state]')?.innerText ?? ''"#,
    )
    .await?;
    ensure!(
        state
            .as_str()
            .unwrap_or_default()
            .contains("Waiting for your approval"),
        "the composer should say it waits: {state}"
    );
    ensure!(!approved.exists(), "nothing is written before the answer");
    shots.take(client, "card").await;

    // A window that starts while the request waits reads it from the Host (pending_approvals).
    js(
        client,
        "window.__beforeReload = true; location.reload(); return true;",
    )
    .await?;
    wait_js(
        client,
        &format!("!window.__beforeReload && document.querySelector('{READY}') !== null"),
        STARTUP,
        "the reloaded window",
    )
    .await?;
    let again = card_naming(client, "approved.txt").await?;
    ensure!(
        again == id,
        "after a reload the card should be the same request: {again} vs {id}"
    );
    ensure!(
        marked(client, &thread).await?,
        "still marked after a reload"
    );

    // Enter in the (empty) composer approves.
    let composer = wait_css(
        client,
        r#"textarea[data-role="composer"]"#,
        Duration::from_secs(5),
    )
    .await?;
    composer.click().await?;
    composer.send_keys("\u{E007}").await?;
    wait_turn_done(client, 2).await?;
    unmarked(client, &thread).await?;
    ensure!(
        approved.exists(),
        "approved: {} should exist",
        approved.display()
    );
    shots.take(client, "approved").await;

    // Turn 3: Decline → no file, the turn still completes.
    let declined = work.join("declined.txt");
    send_prompt(client, &format!("WRITE_FILE `{}`", declined.display())).await?;
    let id = card_naming(client, "declined.txt").await?;
    shots.take(client, "second-card").await;
    click(
        client,
        &format!(r#"[data-approval-id="{id}"] button[data-action="decline"]"#),
    )
    .await?;
    wait_turn_done(client, 3).await?;
    unmarked(client, &thread).await?;
    ensure!(
        !declined.exists(),
        "declined: {} should not exist",
        declined.display()
    );
    shots.take(client, "declined").await;
    Ok(())
}
