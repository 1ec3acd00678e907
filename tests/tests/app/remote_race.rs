//! Fork ×N on a remote thread (docs/architecture.md "Remote hosts", "Race"), end to end: the
//! built app over WebDriver, the real Pi CLI against the fake model on box, a real OpenSSH
//! server on loopback whose sessions run as the second local user. The race runs on box (its
//! lanes are box's forks, in worktrees of box's repository); its lanes and end reach the race
//! view over the host's link; each lane's model receives the source's turn 1 and the race's
//! prompt; Keep shows the other lane's loss first, then brings the kept lane's file into the
//! source's folder there. Run by `scripts/app-e2e.sh remote_race`.

use crate::app_support;

use std::time::Duration;

use anyhow::{ensure, Context, Result};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::cli::forkhost_bin;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use forkhost_tests::sshd::{Sshd, HOST_ALIAS};

const WAIT: Duration = Duration::from_secs(90);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_pi_race_on_a_remote_thread_runs_there_and_keeps_a_lane_there() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(here) = HarnessEnv::for_fake(Harness::Pi, &model)? else {
        return Ok(());
    };
    let Some(there) = HarnessEnv::for_fake(Harness::Pi, &model)? else {
        return Ok(());
    };
    // box's repository, made before the server hands the tree to its user.
    let repo = there.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"])?;
    std::fs::write(repo.join("README.md"), "a test repository\n")?;
    git(&repo, &["add", "README.md"])?;
    git(&repo, &["commit", "-q", "-m", "initial"])?;
    let Some(sshd) = Sshd::start(&there, &forkhost_bin()) else {
        return Ok(());
    };
    sshd.trust_host_key();
    let ssh = sshd.ssh_command();
    let env = AppEnv::with_vars(
        &app,
        Some(&here),
        &[("FORKHOST_SSH_COMMAND".into(), ssh.clone())],
    )?;
    let cli = |args: &[&str]| crate::remote::cli(&env.data_dir, &ssh, args);
    cli(&["hosts", "add", "box", HOST_ALIAS])?;
    let cwd = repo.display().to_string();
    let made = cli(&[
        "--host",
        "box",
        "new",
        "--harness",
        "pi",
        "--cwd",
        &cwd,
        "first prompt",
    ])?;
    let id = made["thread"]["id"]
        .as_str()
        .context(format!("the new thread's id: {made}"))?
        .to_owned();
    let mut shots = Shots::new("app_remote_race")?;
    let client = env.launch().await?;
    let result = race_there(&client, &id, &repo, &model, &mut shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        shots.keep_app_log(&env);
    }
    client.close().await.ok();
    result
}

async fn race_there(
    client: &Client,
    id: &str,
    repo: &std::path::Path,
    model: &FakeModel,
    shots: &mut Shots,
) -> Result<()> {
    // box's thread, opened from the Hosts list.
    let toggle = r#"[data-host="box"] button[data-action="toggle-host"]"#;
    wait_css(client, toggle, WAIT).await?;
    click(client, toggle).await?;
    let row = format!(r#"[data-host="box"] [data-remote-thread-id="{id}"]"#);
    wait_css(client, &row, WAIT).await?;
    click(client, &row).await?;
    let reply = r#"article[data-role="assistant"][data-turn="1"]:not([data-live])"#;
    wait_css(client, reply, WAIT).await?;

    // Fork ×N on reply 1: two lanes, each writing won.txt in its own worktree there.
    click(
        client,
        r#"article[data-role="assistant"][data-turn="1"] button[data-action="fork-options"]"#,
    )
    .await?;
    menu_item(client, "Fork ×N").await?;
    wait_css(client, r#"[data-dialog="Race"]"#, WAIT).await?;
    let lanes = js(
        client,
        "return document.querySelectorAll('[data-race-lane-choice]').length",
    )
    .await?;
    ensure!(
        lanes.as_u64().is_some_and(|n| n >= 2),
        "lanes offered: {lanes}"
    );
    type_into(
        client,
        r#"textarea[name="race-prompt"]"#,
        "RUN_COMMAND `echo won > won.txt`",
    )
    .await?;
    click(client, r#"button[name="start-race"]"#).await?;
    wait_css(client, "[data-race]", WAIT).await?;
    let deadline = std::time::Instant::now() + WAIT;
    let states = loop {
        let states = js(
            client,
            "return [...document.querySelectorAll('[data-race-lane]')].map(e => e.dataset.laneState)",
        )
        .await?;
        let states: Vec<String> = serde_json::from_value(states)?;
        if !states.is_empty() && states.iter().all(|s| s == "done" || s == "failed") {
            break states;
        }
        ensure!(
            std::time::Instant::now() < deadline,
            "box's lanes did not end: {states:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    ensure!(
        states.len() >= 2 && states.iter().all(|s| s == "done"),
        "box's lanes: {states:?}"
    );
    // Each lane's model got turn 1 and the race's prompt (the RUN_COMMAND's tool call and
    // its result aside).
    let want = [
        history(&["first prompt"]),
        vec![Msg::user("RUN_COMMAND `echo won > won.txt`")],
    ]
    .concat();
    let lanes_asked = model
        .model_requests()
        .into_iter()
        .filter(|r| r.conversation().starts_with(&want))
        .count();
    ensure!(
        lanes_asked >= states.len(),
        "each lane's model got turn 1 and the prompt ({lanes_asked} requests)"
    );
    shots.take(client, "race-there").await;
    save_screenshot(client, "app_remote_race/race-view").await?;

    // Keep lane 1: the other lane's loss first, then its won.txt in box's folder.
    let first = r#"[data-race-lane="1"]"#;
    wait_js(
        client,
        &format!(r#"!document.querySelector('{first} button[name="keep-lane"]').disabled"#),
        WAIT,
        "Keep to be enabled",
    )
    .await?;
    click(client, &format!(r#"{first} button[name="keep-lane"]"#)).await?;
    wait_css(client, &format!("{first} [data-keep-plan]"), WAIT).await?;
    ensure!(
        !repo.join("won.txt").exists(),
        "kept before the loss was confirmed"
    );
    click(client, &format!(r#"{first} button[name="confirm-keep"]"#)).await?;
    let deadline = std::time::Instant::now() + WAIT;
    while !repo.join("won.txt").exists() {
        ensure!(
            std::time::Instant::now() < deadline,
            "won.txt never reached the source's folder on box"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    ensure!(std::fs::read_to_string(repo.join("won.txt"))? == "won\n");
    wait_css(client, r#"[data-race-lane].race-lane--kept"#, WAIT).await?;
    shots.take(client, "kept-there").await;
    Ok(())
}
