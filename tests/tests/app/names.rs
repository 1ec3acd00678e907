//! Telling branches apart in the app (issue 25, part 3): six forks of one reply, opened as tabs,
//! get six distinct titles in the sidebar and the tab strip; a fork's tab names its lineage in
//! its tooltip; with more tabs than the strip holds, the overflow control is there, the active
//! tab is scrolled into view, and the "every tab" menu reaches each tab. Run by
//! `scripts/app-e2e.sh` (see `app/shell.rs`).

use crate::app_support;

use std::collections::HashSet;
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use serde_json::Value;

const FORKS: usize = 6;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_six_forks_have_six_names_and_every_tab_is_reachable() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(harness) = HarnessEnv::for_fake(Harness::Pi, &model)? else {
        return Ok(());
    };
    let env = AppEnv::new(&app, Some(&harness))?;
    let mut shots = Shots::new("app_names")?;
    let client = env.launch().await?;
    let result = six_forks(&client, &harness, &mut shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        shots.keep_app_log(&env);
    }
    client.close().await.ok();
    result
}

/// The titles of the tabs and of the sidebar's rows, by thread id.
async fn titles(client: &Client) -> Result<(Vec<(String, String)>, Vec<(String, String)>)> {
    let v = js(
        client,
        r#"const pairs = (css, title) => [...document.querySelectorAll(css)]
             .map(e => [e.dataset.threadId, title(e)]);
           return [
             pairs('[role="tab"][data-thread-id]', e => e.querySelector('.tab__title')?.innerText.trim() ?? ''),
             pairs('button.thread[data-thread-id]', e => (e.getAttribute('title') ?? '').split('\n')[0]),
           ];"#,
    )
    .await?;
    let read = |list: &Value| -> Vec<(String, String)> {
        list.as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|p| {
                (
                    p[0].as_str().unwrap_or("").to_owned(),
                    p[1].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect()
    };
    Ok((read(&v[0]), read(&v[1])))
}

async fn six_forks(client: &Client, harness: &HarnessEnv, shots: &mut Shots) -> Result<()> {
    new_thread(client, "pi", harness.work_dir(), "first prompt").await?;
    send_prompt(client, "second prompt").await?;
    wait_turn_done(client, 2).await?;
    let (_, active) = tabs(client).await?;
    let source = active.context("no source tab")?;

    // Forks open as tabs.
    click(client, r#"button[data-action="settings"]"#).await?;
    wait_css(
        client,
        r#"[data-dialog="settings"]"#,
        Duration::from_secs(10),
    )
    .await?;
    js(
        client,
        r#"document.querySelector('input[data-setting="fork-opens-in-tab"]').click(); return true;"#,
    )
    .await?;
    click(client, r#"button[data-action="save-settings"]"#).await?;
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog="settings"]')"#,
        Duration::from_secs(10),
        "settings to close",
    )
    .await?;

    for n in 1..=FORKS {
        // Back to the source's tab, then Fork on its first reply from the keyboard (select
        // it, Ctrl+Shift+F): the toasts of the forks before stack over its Fork button.
        click(
            client,
            &format!(r#"[role="tab"][data-thread-id="{source}"]"#),
        )
        .await?;
        let reply = r#"article[data-role="assistant"][data-turn="1"]"#;
        wait_css(client, reply, Duration::from_secs(20)).await?;
        click(client, reply).await?;
        wait_css(
            client,
            &format!(r#"{reply}[data-selected="true"]"#),
            Duration::from_secs(5),
        )
        .await?;
        let list = wait_css(client, ".conv-scroll", Duration::from_secs(5)).await?;
        list.send_keys("\u{E009}\u{E008}f").await?;
        wait_js(
            client,
            &format!(
                r#"document.querySelectorAll('[role="tab"]').length === {}"#,
                n + 1
            ),
            Duration::from_secs(30),
            &format!("fork {n}'s tab"),
        )
        .await?;
    }
    // Every fork's row and tab carry its name (the sidebar learns them from the thread list).
    let distinct = |list: &[(String, String)]| -> usize {
        list.iter()
            .filter(|(id, _)| *id != source)
            .map(|(_, t)| t.clone())
            .collect::<HashSet<_>>()
            .len()
    };
    wait_js(
        client,
        &format!(
            r#"(() => {{
                const t = [...document.querySelectorAll('[role="tab"] .tab__title')].map(e => e.innerText.trim());
                return t.length === {all} && new Set(t).size === {all};
            }})()"#,
            all = FORKS + 1
        ),
        Duration::from_secs(20),
        "six distinct tab titles",
    )
    .await?;
    let (tab_titles, sidebar_titles) = titles(client).await?;
    println!("tabs: {tab_titles:?}\nsidebar: {sidebar_titles:?}");
    ensure!(
        distinct(&tab_titles) == FORKS,
        "the forks' tabs are not told apart: {tab_titles:?}"
    );
    ensure!(
        distinct(&sidebar_titles) == FORKS,
        "the forks' sidebar rows are not told apart: {sidebar_titles:?}"
    );
    ensure!(
        tab_titles
            .iter()
            .filter(|(id, _)| *id != source)
            .all(|(_, t)| t.starts_with("after turn 1")),
        "a fork is named by its cut until it has a prompt of its own: {tab_titles:?}"
    );
    // The active fork's tooltip names its lineage.
    let tooltip = js(
        client,
        r#"return document.querySelector('[role="tab"][aria-selected="true"]')?.getAttribute('title') ?? '';"#,
    )
    .await?;
    let tooltip = tooltip.as_str().unwrap_or_default();
    ensure!(
        tooltip.contains("after turn 1"),
        "the tab's tooltip should name its lineage: {tooltip:?}"
    );
    shots.take(client, "six-forks").await;

    // A narrow window: the tabs no longer fit.
    client.set_window_size(640, 600).await?;
    wait_css(client, r#"[data-overflow="true"]"#, Duration::from_secs(10))
        .await
        .context("no overflow control with seven tabs in a narrow window")?;
    let in_view = r#"(() => {
        const strip = document.querySelector('[data-overflow="true"]');
        const tab = document.querySelector('[role="tab"][aria-selected="true"]');
        if (!strip || !tab) return false;
        const s = strip.getBoundingClientRect(), t = tab.getBoundingClientRect();
        return t.left >= s.left - 1 && t.right <= s.right + 1;
    })()"#;
    wait_js(
        client,
        in_view,
        Duration::from_secs(10),
        "the active tab in view",
    )
    .await?;
    shots.take(client, "overflow").await;

    // The every-tab menu lists each tab; picking the source (now scrolled out of view at the
    // strip's start) makes it active and brings it into view.
    click(client, r#"button[aria-label="Every tab"]"#).await?;
    let listed = wait_js(
        client,
        &format!(
            r#"document.querySelectorAll('[role="menuitem"]').length === {} ? [...document.querySelectorAll('[role="menuitem"]')].map(b => b.innerText.trim()) : false"#,
            FORKS + 1
        ),
        Duration::from_secs(10),
        "every tab in the menu",
    )
    .await?;
    let listed: Vec<String> = listed
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|v| {
            v.as_str()
                .unwrap_or_default()
                .trim_start_matches("• ")
                .to_owned()
        })
        .collect();
    let source_title = tab_titles
        .iter()
        .find(|(id, _)| *id == source)
        .map(|(_, t)| t.clone())
        .unwrap_or_default();
    ensure!(
        listed.contains(&source_title),
        "the menu should list the source tab {source_title:?}: {listed:?}"
    );
    menu_item(client, &source_title).await?;
    wait_js(
        client,
        &format!(
            r#"document.querySelector('[role="tab"][aria-selected="true"]')?.dataset.threadId === {}"#,
            serde_json::json!(source)
        ),
        Duration::from_secs(10),
        "the source tab active",
    )
    .await?;
    wait_js(
        client,
        in_view,
        Duration::from_secs(10),
        "the chosen tab in view",
    )
    .await?;
    shots.take(client, "source-from-menu").await;
    Ok(())
}
