//! Search everything in the app (issue 25, part 1): a Pi thread whose reply 2 holds a
//! distinctive word, scrolled out of view by later turns; from another thread's tab, Ctrl+K
//! moves to the sidebar's search box, typing the word lists the hits grouped by thread with
//! the word marked, and opening the reply's hit brings its thread's tab back with that
//! message scrolled into view, highlighted and selected (its Fork action on it). Run by
//! `scripts/app-e2e.sh` (see `app/shell.rs`).

use crate::app_support;

use std::time::Duration;

use anyhow::{ensure, Context, Result};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

const WORD: &str = "quokka";
const REPLY: &str = r#"article[data-role="assistant"][data-turn="2"]"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_search_opens_a_hit_scrolled_and_highlighted() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(harness) = HarnessEnv::for_fake(Harness::Pi, &model)? else {
        return Ok(());
    };
    let env = AppEnv::new(&app, Some(&harness))?;
    let mut shots = Shots::new("app_search")?;
    let client = env.launch().await?;
    let result = search_and_open(&client, &harness, &mut shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        shots.keep_app_log(&env);
    }
    client.close().await.ok();
    result
}

/// Whether the message matched by `css` is rendered and inside the conversation's visible area.
async fn in_view(client: &Client, css: &str) -> Result<bool> {
    let v = js_args(
        client,
        r#"const el = document.querySelector(arguments[0]);
           const list = document.querySelector('.conv-scroll');
           if (!el || !list) return false;
           const r = el.getBoundingClientRect(), l = list.getBoundingClientRect();
           return r.bottom > l.top && r.top < l.bottom;"#,
        vec![serde_json::Value::from(css)],
    )
    .await?;
    Ok(v.as_bool().unwrap_or(false))
}

async fn search_and_open(client: &Client, harness: &HarnessEnv, shots: &mut Shots) -> Result<()> {
    new_thread(client, "pi", harness.work_dir(), "first prompt").await?;
    send_prompt(client, &format!("second prompt about the {WORD}")).await?;
    wait_turn_done(client, 2).await?;
    let filler =
        "a long line of filler text that pushes the earlier turns up and out of view. ".repeat(6);
    for turn in 3..=6 {
        send_prompt(client, &format!("turn {turn}: {filler}")).await?;
        // At the end of the list (only rows in view are rendered), as a reader following it.
        wait_js(
            client,
            &format!(
                r#"(() => {{
                    const list = document.querySelector('.conv-scroll');
                    if (list) list.scrollTop = list.scrollHeight;
                    const running = document.querySelector('[data-live], [data-turn-state="starting"], [data-turn-state="streaming"]');
                    return !running && !!document.querySelector('article[data-role="assistant"][data-turn="{turn}"]:not([data-live])');
                }})()"#
            ),
            Duration::from_secs(90),
            &format!("turn {turn} to finish"),
        )
        .await?;
    }
    let (_, active) = tabs(client).await?;
    let source = active.context("no source tab")?;
    ensure!(
        !in_view(client, REPLY).await?,
        "reply 2 is out of view before the search (else the scroll proves nothing)"
    );

    // Another thread's tab in front.
    new_thread(client, "pi", harness.work_dir(), "another thread").await?;
    wait_turn_done(client, 1).await?;
    let (_, other) = tabs(client).await?;
    ensure!(
        other.as_deref() != Some(source.as_str()),
        "a second tab is active"
    );

    // Ctrl+K: the search box takes the keyboard; typing lists the hits.
    let list = wait_css(client, ".conv-scroll", Duration::from_secs(10)).await?;
    list.send_keys("\u{E009}k").await?;
    wait_js(
        client,
        r#"document.activeElement?.dataset.role === 'search'"#,
        Duration::from_secs(5),
        "Ctrl+K to focus the search box",
    )
    .await?;
    type_into(client, r#"input[data-role="search"]"#, WORD).await?;
    let hit = format!(
        r#"[data-thread-id="{source}"] [data-action="open-hit"][data-turn="2"][data-part="reply"]"#
    );
    wait_css(client, &hit, Duration::from_secs(20)).await?;
    let marked = js_args(
        client,
        r#"return [...document.querySelectorAll(arguments[0] + ' mark')].map(m => m.innerText);"#,
        vec![serde_json::Value::from(hit.as_str())],
    )
    .await?;
    ensure!(
        marked == serde_json::json!([WORD]),
        "the hit is marked: {marked}"
    );
    let prompt_hit = format!(
        r#"[data-thread-id="{source}"] [data-action="open-hit"][data-turn="2"][data-part="user_text"]"#
    );
    wait_css(client, &prompt_hit, Duration::from_secs(5)).await?;
    shots.take(client, "results").await;

    // Opening the reply's hit: its thread's tab, the message in view and highlighted.
    click(client, &hit).await?;
    wait_js(
        client,
        &format!(
            r#"document.querySelector('[role="tab"][aria-selected="true"]')?.dataset.threadId === '{source}'"#
        ),
        Duration::from_secs(10),
        "the hit's thread to be the active tab",
    )
    .await?;
    wait_js(
        client,
        &format!(r#"!!document.querySelector('{REPLY}[data-highlighted="true"]')"#),
        Duration::from_secs(10),
        "the reply to be highlighted",
    )
    .await?;
    ensure!(
        in_view(client, REPLY).await?,
        "reply 2 is scrolled into view"
    );
    let text = js_args(
        client,
        "return document.querySelector(arguments[0])?.innerText ?? ''",
        vec![serde_json::Value::from(REPLY)],
    )
    .await?;
    ensure!(
        text.as_str().unwrap_or("").contains(WORD),
        "the highlighted message is the hit's: {text}"
    );
    shots.take(client, "opened").await;
    wait_css(
        client,
        &format!(r#"{REPLY}[data-selected="true"] [data-action="fork"]"#),
        Duration::from_secs(5),
    )
    .await
    .context("the hit's message is selected, its Fork action on it")?;
    Ok(())
}
