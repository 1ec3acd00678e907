//! Settings ▸ "Agents" in the real debug app, over WebDriver (`scripts/app-e2e.sh
//! app_agents`): asked, the shipped agents are started and show what they said — the pinned
//! OpenCode its version and that it forks at every message, Gemini CLI (not installed here)
//! why not and its install command; "Add an ACP agent…" keeps a stand-in agent by its command
//! line (in the app's store: `forkhost agents` lists it) and shows it cannot fork at an
//! earlier message; Remove forgets it. Skipped when `FORKHOST_APP_BINARY` is unset.

use crate::app_support;

use std::time::Duration;

use anyhow::{ensure, Context, Result};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::acp::opencode::{Bash, OpencodeEnv};
use forkhost_tests::cli::forkhost_bin;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use serde_json::Value;

/// Starting every agent (OpenCode's first start takes seconds on a loaded machine).
const ASKED: Duration = Duration::from_secs(120);

/// `forkhost --json --data-dir DATA agents`, with the app's agent variables: each agent's
/// name and whether it answered that it forks.
fn listed(
    data: &std::path::Path,
    vars: &[(String, String)],
) -> Result<Vec<(String, Option<bool>)>> {
    let out = std::process::Command::new(forkhost_bin())
        .envs(vars.iter().map(|(k, v)| (k, v)))
        .arg("--json")
        .arg("--data-dir")
        .arg(data)
        .arg("agents")
        .output()?;
    ensure!(out.status.success(), "forkhost agents failed: {:?}", out);
    let json: Value = serde_json::from_slice(&out.stdout)?;
    Ok(json["agents"]
        .as_array()
        .context("the agents")?
        .iter()
        .map(|r| {
            (
                r["agent"]["name"].as_str().unwrap_or_default().to_owned(),
                r["probe"]["fork"].as_bool(),
            )
        })
        .collect())
}

async fn row_text(client: &Client, agent: &str, state: &str) -> Result<String> {
    let css = format!(r#"[data-agent="{agent}"][data-agent-state="{state}"]"#);
    let row = wait_css(client, &css, ASKED)
        .await
        .with_context(|| format!("{agent}'s row, {state}"))?;
    Ok(row.text().await?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_agents_are_asked_added_and_removed_in_settings() -> Result<()> {
    let Some(app_binary) = app_binary()? else {
        return Ok(());
    };
    let fake = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(opencode) = OpencodeEnv::for_fake(&fake, Bash::Runs)? else {
        return Ok(());
    };
    let mut vars = opencode.vars.clone();
    vars.push((
        "FORKHOST_OPENCODE_BIN".into(),
        opencode.bin.to_string_lossy().into_owned(),
    ));
    // Gemini CLI is not installed here: the row says so.
    vars.push(("FORKHOST_GEMINI_BIN".into(), String::new()));
    let stand_in = forkhost_tests::acp::stand_in(&opencode.work_dir);
    let env = AppEnv::with_vars(&app_binary, None, &vars)?;
    let mut shots = Shots::new("app_agents")?;
    let client = env.launch().await?;
    let result = async {
        click(&client, r#"button[data-action="settings"]"#).await?;
        wait_css(&client, r#"[data-dialog="settings"]"#, Duration::from_secs(10)).await?;
        ensure!(
            js(&client, "return document.querySelectorAll('[data-agent]').length;").await? == 0,
            "no agent is started before the user asks"
        );
        // The harness cards above load meanwhile and move the button down: a click that
        // landed before they did is made again.
        let mut tries = 0;
        loop {
            click(&client, r#"[data-action="agents-ask"]"#).await?;
            let asked = wait_css(
                &client,
                "[data-agents-asking], [data-agent]",
                Duration::from_secs(10),
            )
            .await;
            match asked {
                Ok(_) => break,
                Err(e) if tries == 2 => return Err(e),
                Err(_) => tries += 1,
            }
        }
        let opencode_row = row_text(&client, "opencode", "ready").await?;
        ensure!(
            opencode_row.contains("1.18.33") && opencode_row.contains("forks at every message"),
            "OpenCode's row: {opencode_row:?}"
        );
        let gemini_row = row_text(&client, "gemini", "error").await?;
        ensure!(
            gemini_row.contains("npm install -g @google/gemini-cli"),
            "Gemini CLI's row: {gemini_row:?}"
        );
        shots.take(&client, "asked").await;

        // An agent added by its command line, one that offers no session/fork.
        click(&client, r#"[data-action="add-agent"]"#).await?;
        type_into(&client, r#"[data-field="agent-name"]"#, "plain-agent").await?;
        let command = format!("env STAND_IN_MODE=plain '{}'", stand_in.display());
        type_into(&client, r#"[data-field="agent-command"]"#, &command).await?;
        click(&client, r#"[data-action="add-agent-save"]"#).await?;
        let added = row_text(&client, "plain-agent", "ready").await?;
        ensure!(added.contains("no session/fork"), "the added agent's row: {added:?}");
        shots.take(&client, "added").await;
        let kept = listed(&env.data_dir, &vars)?;
        ensure!(
            kept.contains(&("plain-agent".to_owned(), Some(false))),
            "the store keeps it: {kept:?}"
        );

        click(
            &client,
            r#"[data-agent="plain-agent"] [data-action="remove-agent"]"#,
        )
        .await?;
        wait_js(
            &client,
            r#"!document.querySelector('[data-agent="plain-agent"]') && !!document.querySelector('[data-agent="opencode"]')"#,
            ASKED,
            "the removed agent's row to go",
        )
        .await?;
        let kept = listed(&env.data_dir, &vars)?;
        ensure!(
            !kept.iter().any(|(name, _)| name == "plain-agent"),
            "forgotten: {kept:?}"
        );
        Ok(())
    }
    .await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        shots.keep_app_log(&env);
    }
    client.close().await.ok();
    result
}
