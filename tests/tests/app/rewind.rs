//! Rewind to here in the app (docs/architecture.md "Rewind"), end to end: the built app over
//! WebDriver, the real Pi CLI against the fake model, a temporary git repository. A 3-turn
//! thread whose third turn writes `t3.txt` with a shell command is rewound from the menu of
//! reply 2: the dialog lists `t3.txt` as removed before anything is written, the conversation
//! then shows 2 turns and the file is gone, the old line is a sidebar row marked rewound; Undo
//! rewind in the header shows 3 turns again and the file is back. Run with
//! `scripts/app-e2e.sh app_rewind`; without the app or Pi it skips.

use crate::app_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{ensure, Result};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

const WAIT: Duration = Duration::from_secs(30);

fn repository(parent: &Path) -> Result<PathBuf> {
    let repo = parent.join("repo");
    std::fs::create_dir_all(&repo)?;
    git(&repo, &["init", "-q", "-b", "main"])?;
    std::fs::write(repo.join("README.md"), "a test repository\n")?;
    git(&repo, &["add", "README.md"])?;
    git(&repo, &["commit", "-q", "-m", "initial"])?;
    Ok(repo)
}

/// How many turns the active conversation shows (its highest `data-turn`).
async fn turns_shown(client: &Client) -> Result<i64> {
    let v = js(
        client,
        r#"return Math.max(0, ...[...document.querySelectorAll('article[data-turn]:not([data-live])')]
             .map(e => Number(e.dataset.turn)));"#,
    )
    .await?;
    Ok(v.as_i64().unwrap_or(0))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_pi_rewinds_to_reply_two_and_undoes() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(harness) = HarnessEnv::for_fake(Harness::Pi, &model)? else {
        return Ok(());
    };
    let scratch = tempfile::tempdir()?;
    let repo = repository(scratch.path())?;
    let env = AppEnv::new(&app, Some(&harness))?;
    let mut shots = Shots::new("app_rewind")?;
    let client = env.launch().await?;
    let result = rewind_session(&client, &repo, &mut shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        shots.keep_app_log(&env);
    }
    client.close().await.ok();
    result
}

async fn rewind_session(client: &Client, repo: &Path, shots: &mut Shots) -> Result<()> {
    let thread = new_thread(client, "pi", repo, "first prompt").await?;
    send_prompt(client, "second prompt").await?;
    wait_turn_done(client, 2).await?;
    send_prompt(client, "RUN_COMMAND `touch t3.txt`").await?;
    wait_turn_done(client, 3).await?;
    ensure!(repo.join("t3.txt").exists(), "turn 3 wrote no t3.txt");

    // The menu of reply 2.
    let reply = r#"article[data-role="assistant"][data-turn="2"]"#;
    wait_css(client, reply, WAIT).await?;
    context_menu(client, reply).await?;
    menu_item(client, "Rewind to here").await?;
    wait_css(client, r#"[data-dialog="rewind"]"#, WAIT).await?;
    // What it will do, before anything is written.
    wait_css(
        client,
        r#"[data-rewind-plan="conversation_and_files"] [data-rewind-file="t3.txt"][data-status="deleted"]"#,
        WAIT,
    )
    .await?;
    ensure!(repo.join("t3.txt").exists(), "the plan wrote something");
    shots.take(client, "plan").await;
    click(client, r#"[data-action="rewind-confirm"]"#).await?;
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog="rewind"]')"#,
        WAIT,
        "the rewind dialog to close",
    )
    .await?;
    wait_js(
        client,
        r#"!document.querySelector('article[data-turn="3"]') && !!document.querySelector('article[data-role="assistant"][data-turn="2"]')"#,
        WAIT,
        "the conversation to end at turn 2",
    )
    .await?;
    ensure!(
        turns_shown(client).await? == 2,
        "not 2 turns after the rewind"
    );
    ensure!(!repo.join("t3.txt").exists(), "t3.txt is still there");
    // The old line: a sidebar row marked rewound; the tab is the same thread.
    wait_css(client, r#"button.thread[data-rewound="true"]"#, WAIT).await?;
    let (_, active) = tabs(client).await?;
    ensure!(
        active.as_deref() == Some(thread.as_str()),
        "the tab changed thread"
    );
    shots.take(client, "rewound").await;

    click(client, r#"[data-action="undo-rewind"]"#).await?;
    wait_js(
        client,
        r#"!!document.querySelector('article[data-role="assistant"][data-turn="3"]')"#,
        WAIT,
        "turn 3 to be back",
    )
    .await?;
    ensure!(turns_shown(client).await? == 3, "not 3 turns after Undo");
    ensure!(repo.join("t3.txt").exists(), "t3.txt is not back");
    wait_js(
        client,
        r#"!document.querySelector('[data-action="undo-rewind"]')"#,
        WAIT,
        "Undo rewind to go",
    )
    .await?;
    shots.take(client, "undone").await;
    Ok(())
}
