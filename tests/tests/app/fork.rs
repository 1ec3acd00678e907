//! The desktop app's fork flows as a user performs them, end to end: the built app under a
//! virtual display over WebDriver, the real harness CLIs against the fake model, a fresh data
//! folder and HOME per run. Run with `scripts/app-e2e.sh` (which sets `FORKHOST_APP_BINARY`,
//! `FORKHOST_WEBDRIVER_URL` and the `FORKHOST_*_BIN` harness paths); without them the tests
//! skip. Screenshots of every step land in `test-artifacts/app_fork_*/`.
//!
//! The strongest check of a fork is what the model receives on the fork's next turn: exactly
//! the history up to the boundary, then the new prompt.

use crate::app_support;

use std::time::Duration;

use anyhow::{ensure, Context, Result};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

const SLOW: Duration = Duration::from_secs(8);

/// Runs `body` against a launched app; always takes a last screenshot and ends the session.
async fn with_app<F, Fut>(env: &AppEnv, shots: &mut Shots, body: F) -> Result<()>
where
    F: FnOnce(Client) -> Fut,
    Fut: std::future::Future<Output = (Client, Result<()>)>,
{
    let client = env.launch().await?;
    let (client, result) = body(client).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        shots.keep_app_log(env);
    }
    let closed = client.close().await;
    result?;
    closed.context("ending the WebDriver session")?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_claude_fork_flow() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    // SLOW replies stream for 8 s: long enough for two tabs to be seen streaming together.
    let model = FakeModel::start(FakeModelOptions {
        slow_duration: SLOW,
        ..FakeModelOptions::default()
    })
    .await?;
    let Some(harness) = HarnessEnv::for_fake(Harness::Claude, &model)? else {
        return Ok(());
    };
    let env = AppEnv::new(&app, Some(&harness))?;
    let mut shots = Shots::new("app_fork_claude")?;

    // Everything but the restart runs in one app session.
    let mut layout_before = Vec::new();
    {
        let shots = &mut shots;
        let layout = &mut layout_before;
        let model = &model;
        let harness = &harness;
        with_app(
            &env,
            &mut Shots::new("app_fork_claude_failure")?,
            |client| async move {
                let result = claude_session(&client, model, harness, shots, layout).await;
                (client, result)
            },
        )
        .await?;
    }

    // Restart: the windows and their tabs come back.
    let client = env.launch().await?;
    let result = check_layout(&client, &layout_before, &mut shots).await;
    if result.is_err() {
        shots.take(&client, "restart-failure").await;
        shots.keep_app_log(&env);
    }
    client.close().await.ok();
    result
}

async fn claude_session(
    client: &Client,
    model: &FakeModel,
    harness: &HarnessEnv,
    shots: &mut Shots,
    layout: &mut Vec<(String, Vec<(String, String)>)>,
) -> Result<()> {
    let main = client.window().await?;
    shots.take(client, "empty").await;

    // A Claude thread with three turns, through New thread and the composer.
    let source = new_thread(client, "claude", harness.work_dir(), "first prompt").await?;
    shots.take(client, "turn-1").await;
    send_prompt(client, "second prompt").await?;
    wait_turn_done(client, 2).await?;
    send_prompt(client, "third prompt").await?;
    wait_turn_done(client, 3).await?;
    let source_rows = rows(client).await?;
    ensure!(
        source_rows.len() == 6,
        "three turns should show six messages: {source_rows:?}"
    );
    ensure!(
        last_conversation(model)?
            == history(&["first prompt", "second prompt", "third prompt"])[..5],
        "turn 3 got the wrong history: {:?}",
        last_conversation(model)?
    );
    // The sidebar lists it; the composer and send are there.
    wait_css(
        client,
        &format!(r#"button.thread[data-thread-id="{source}"]"#),
        Duration::from_secs(5),
    )
    .await?;
    shots.take(client, "three-turns").await;

    // Fork on the second reply → a new window with exactly turns 1–2, composer focused.
    let fork_button = r#"article[data-role="assistant"][data-turn="2"] button[data-action="fork"]"#;
    let label = wait_css(client, fork_button, Duration::from_secs(5))
        .await?
        .attr("aria-label")
        .await?
        .unwrap_or_default();
    ensure!(label.starts_with("Fork"), "fork button label {label:?}");
    let forks = fork_count(client).await?;
    click(client, fork_button).await?;
    let record = wait_js(
        client,
        &format!("(window.__forkhostPerf?.forks ?? [])[{forks}] ?? null"),
        Duration::from_secs(30),
        "the fork's record",
    )
    .await?;
    fork_window(client, forks).await?;
    wait_js(
        client,
        r#"document.querySelectorAll('article[data-turn][data-role]').length === 4"#,
        Duration::from_secs(20),
        "the fork's inherited history",
    )
    .await?;
    let fork_rows = rows(client).await?;
    ensure!(
        fork_rows
            .iter()
            .map(|r| (r.0, r.1.as_str()))
            .collect::<Vec<_>>()
            == [(1, "user"), (1, "assistant"), (2, "user"), (2, "assistant")],
        "the fork window should hold exactly turns 1–2: {fork_rows:?}"
    );
    ensure!(
        fork_rows[..] == source_rows[..4],
        "inherited text differs: {fork_rows:?}"
    );
    let focused = js(
        client,
        "return document.activeElement?.dataset?.role ?? null",
    )
    .await?;
    ensure!(
        focused == "composer",
        "the fork's composer should have the keyboard, not {focused}"
    );
    let lineage = wait_css(
        client,
        r#"[data-action="jump-to-source"]"#,
        Duration::from_secs(10),
    )
    .await?;
    wait_js(
        client,
        r#"document.querySelector('[data-action="jump-to-source"]').innerText.includes('after turn 2')"#,
        Duration::from_secs(10),
        "the lineage header",
    )
    .await?;
    let lineage_text = lineage.text().await?;
    ensure!(
        lineage_text.contains("Forked from") && lineage_text.contains("after turn 2"),
        "lineage header says {lineage_text:?}"
    );
    let png = shots.take(client, "fork-window").await;
    // The README's screenshot is refreshed only on request: a test run leaves the tree clean.
    if let Some(png) =
        png.filter(|_| std::env::var_os("FORKHOST_REFRESH_DOCS_SCREENSHOT").is_some())
    {
        let docs =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/screenshot-fork.png");
        std::fs::copy(&png, &docs).ok();
    }
    let timing = perf(client).await?;
    let painted = timing["opens"][0]["paintedAt"].as_f64().unwrap_or(f64::NAN);
    println!(
        "fork (Claude, 2 turns): click → fork window painted {:.0} ms; fork command {:.0} ms (native {:.1} ms, host total {:.1} ms)",
        painted - record["clickedAt"].as_f64().unwrap_or(f64::NAN),
        record["commandMs"].as_f64().unwrap_or(f64::NAN),
        record["nativeMs"].as_f64().unwrap_or(f64::NAN),
        record["hostTotalMs"].as_f64().unwrap_or(f64::NAN),
    );

    // Send in the fork: the model sees turns 1–2, then the new prompt.
    send_prompt(client, "fork prompt").await?;
    wait_turn_done(client, 3).await?;
    let want = [
        history(&["first prompt", "second prompt"]),
        vec![Msg::user("fork prompt")],
    ]
    .concat();
    let got = last_conversation(model)?;
    ensure!(
        got == want,
        "the fork's first turn got {got:?}, want {want:?}"
    );
    shots.take(client, "fork-window-sent").await;

    // The source window is unchanged, and shows the fork's chip on the second reply.
    client.switch_to_window(main.clone()).await?;
    wait_css(
        client,
        r#"article[data-role="assistant"][data-turn="2"] [data-action="show-forks"]"#,
        Duration::from_secs(15),
    )
    .await
    .context("the fork chip on the source message")?;
    let after = rows(client).await?;
    ensure!(after == source_rows, "the source changed: {after:?}");
    shots.take(client, "source-with-chip").await;

    // Edit and fork on the third user message → its prompt in the new window's composer.
    let edit_button = r#"article[data-role="user"][data-turn="3"] button[data-action="fork"]"#;
    let label = wait_css(client, edit_button, Duration::from_secs(5))
        .await?
        .attr("aria-label")
        .await?
        .unwrap_or_default();
    ensure!(
        label.starts_with("Edit and fork"),
        "edit button label {label:?}"
    );
    let forks = fork_count(client).await?;
    click(client, edit_button).await?;
    fork_window(client, forks).await?;
    let composer = wait_js(
        client,
        r#"document.querySelector('textarea[data-role="composer"]')?.value"#,
        Duration::from_secs(20),
        "the prefilled composer",
    )
    .await?;
    ensure!(composer == "third prompt", "the composer holds {composer}");
    let edit_rows = rows(client).await?;
    ensure!(
        edit_rows.iter().all(|r| r.0 <= 2) && edit_rows.len() == 4,
        "a fork before turn 3 holds turns 1–2: {edit_rows:?}"
    );
    shots.take(client, "edit-and-fork").await;

    // The lineage line jumps to the source message, opening its thread in this window.
    click(client, r#"[data-action="jump-to-source"]"#).await?;
    wait_css(
        client,
        r#"article[data-highlighted="true"][data-turn="3"][data-role="user"]"#,
        Duration::from_secs(20),
    )
    .await
    .context("the source message highlighted after the lineage jump")?;
    shots.take(client, "lineage-jump").await;

    // Forks open as tabs once Settings says so; Ctrl-click then opens a window.
    client.switch_to_window(main.clone()).await?;
    click(client, r#"button[data-action="settings"]"#).await?;
    wait_css(
        client,
        r#"[data-dialog="settings"]"#,
        Duration::from_secs(10),
    )
    .await?;
    shots.take(client, "settings").await;
    js(client, r#"document.querySelector('input[data-setting="fork-opens-in-tab"]').click(); return true;"#).await?;
    click(client, r#"button[data-action="save-settings"]"#).await?;
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog="settings"]')"#,
        Duration::from_secs(10),
        "settings to close",
    )
    .await?;

    let forks = fork_count(client).await?;
    click(
        client,
        r#"article[data-role="assistant"][data-turn="1"] button[data-action="fork"]"#,
    )
    .await?;
    wait_js(
        client,
        r#"document.querySelectorAll('[role="tab"]').length === 2"#,
        Duration::from_secs(20),
        "the fork's tab",
    )
    .await?;
    let opened_in = wait_js(
        client,
        &format!("(window.__forkhostPerf?.forks ?? [])[{forks}]?.opensIn"),
        Duration::from_secs(10),
        "the tab fork's record",
    )
    .await?;
    ensure!(opened_in == "tab", "the fork opened in a {opened_in}");
    let (tab_list, active) = tabs(client).await?;
    let tab_fork = active.clone().context("no active tab")?;
    ensure!(
        tab_fork != source && tab_list.iter().any(|t| t.0 == source),
        "tabs: {tab_list:?}"
    );
    wait_js(
        client,
        r#"document.querySelectorAll('article[data-turn][data-role]').length === 2"#,
        Duration::from_secs(20),
        "the tab fork's history",
    )
    .await?;
    shots.take(client, "fork-as-tab").await;

    // Ctrl-click on the source: the other place (a window).
    click(
        client,
        &format!(r#"[role="tab"][data-thread-id="{source}"]"#),
    )
    .await?;
    wait_js(
        client,
        r#"document.querySelectorAll('article[data-turn][data-role]').length === 6"#,
        Duration::from_secs(20),
        "the source tab",
    )
    .await?;
    let forks = fork_count(client).await?;
    js(
        client,
        r#"document.querySelector('article[data-role="assistant"][data-turn="1"] button[data-action="fork"]')
             .dispatchEvent(new MouseEvent('click', { bubbles: true, ctrlKey: true })); return true;"#,
    )
    .await?;
    fork_window(client, forks).await?;
    client.switch_to_window(main.clone()).await?;

    // Two tabs stream at once (SLOW replies take 8 s each). The tab fork's first prompt
    // starts its runtime (and its native session) first, so both harnesses are warm.
    click(
        client,
        &format!(r#"[role="tab"][data-thread-id="{tab_fork}"]"#),
    )
    .await?;
    send_prompt(client, "warm up").await?;
    wait_turn_done(client, 2).await?;
    model.clear_requests();
    send_prompt(client, "SLOW one").await?;
    click(
        client,
        &format!(r#"[role="tab"][data-thread-id="{source}"]"#),
    )
    .await?;
    send_prompt(client, "SLOW two").await?;
    wait_js(
        client,
        &format!(
            r#"document.querySelector('[role="tab"][data-thread-id="{source}"] .spinner') &&
               document.querySelector('[role="tab"][data-thread-id="{tab_fork}"] .spinner')"#
        ),
        Duration::from_secs(30),
        "both tabs streaming",
    )
    .await?;
    shots.take(client, "two-tabs-streaming").await;
    wait_turn_done(client, 4).await?;
    click(
        client,
        &format!(r#"[role="tab"][data-thread-id="{tab_fork}"]"#),
    )
    .await?;
    wait_turn_done(client, 3).await?;
    let slow: Vec<_> = model
        .model_requests()
        .into_iter()
        .filter(|r| r.last_user_text().is_some_and(|t| t.starts_with("SLOW")))
        .collect();
    ensure!(
        slow.len() >= 2,
        "expected both SLOW turns at the model, got {}",
        slow.len()
    );
    let gap = slow[0].at_ms.abs_diff(slow[1].at_ms);
    println!("the two streams started {gap} ms apart (each streams for {SLOW:?})");
    ensure!(
        u128::from(gap) < SLOW.as_millis(),
        "the streams did not overlap: {gap} ms apart"
    );
    shots.take(client, "two-tabs-done").await;

    // A reply carrying script is shown as text or inert: nothing runs.
    click(
        client,
        &format!(r#"[role="tab"][data-thread-id="{source}"]"#),
    )
    .await?;
    let payload = r#"XSS <img src=x onerror="window.__pwned='img'"> <script>window.__pwned='script'</script> [click me](javascript:window.__pwned='link') <a href="javascript:window.__pwned='a'">raw link</a>"#;
    send_prompt(client, payload).await?;
    wait_turn_done(client, 5).await?;
    let check = js(
        client,
        r#"const md = Array.from(document.querySelectorAll('article[data-role="assistant"] .md')).pop();
           return { pwned: window.__pwned ?? null,
                    active: md ? md.querySelectorAll('img, script, iframe, [onerror], [onclick], a[href^="javascript" i]').length : -1,
                    text: md ? md.innerText : null };"#,
    )
    .await?;
    ensure!(check["pwned"].is_null(), "script ran: {check}");
    ensure!(check["active"] == 0, "active content in the reply: {check}");
    ensure!(
        check["text"]
            .as_str()
            .is_some_and(|t| t.contains("<img src=x")),
        "the payload should show as text: {check}"
    );
    // Click the links: still nothing runs, and the page stays.
    js(
        client,
        r#"document.querySelectorAll('.md a').forEach(a => a.click()); return true;"#,
    )
    .await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let pwned = js(client, "return window.__pwned ?? null").await?;
    ensure!(pwned.is_null(), "script ran after clicking: {pwned}");
    wait_css(client, READY, Duration::from_secs(2)).await?;
    shots.take(client, "xss-inert").await;

    // Note what is open, for the restart.
    for handle in client.windows().await? {
        client.switch_to_window(handle).await?;
        wait_css(client, READY, STARTUP).await?;
        // The hidden spare window the app keeps for the next fork is not part of the layout.
        let Some(label) = window_label(client).await? else {
            continue;
        };
        let (list, _) = tabs(client).await?;
        layout.push((label, list));
    }
    layout.sort();
    println!("layout before restart: {layout:?}");
    // Give the debounced layout save a moment.
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(())
}

async fn check_layout(
    client: &Client,
    before: &[(String, Vec<(String, String)>)],
    shots: &mut Shots,
) -> Result<()> {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let mut after = Vec::new();
    loop {
        after.clear();
        for handle in client.windows().await? {
            client.switch_to_window(handle).await?;
            if wait_css(client, READY, STARTUP).await.is_err() {
                continue;
            }
            let Some(label) = window_label(client).await? else {
                continue;
            };
            let (list, _) = tabs(client).await?;
            after.push((label, list));
        }
        if after.len() >= before.len() || std::time::Instant::now() > deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    for handle in client.windows().await? {
        client.switch_to_window(handle).await?;
        if let Some(label) = window_label(client).await? {
            shots.take(client, &format!("restored-{label}")).await;
        }
    }
    after.sort();
    println!("layout after restart: {after:?}");
    ensure!(
        after == before,
        "windows and tabs after restart:\n{after:?}\nbefore:\n{before:?}"
    );
    Ok(())
}

/// The terminal tab: Claude's own TUI on the thread's session; what it writes reaches the
/// conversation through live sync, the composer waits meanwhile, and closing the tab hands the
/// session back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_terminal_tab() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(harness) = HarnessEnv::for_fake(Harness::Claude, &model)? else {
        return Ok(());
    };
    let env = AppEnv::new(&app, Some(&harness))?;
    let mut shots = Shots::new("app_terminal")?;
    let client = env.launch().await?;
    let result = terminal_session(&client, &model, &harness, &mut shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
    }
    client.close().await.ok();
    result
}

async fn terminal_session(
    client: &Client,
    model: &FakeModel,
    harness: &HarnessEnv,
    shots: &mut Shots,
) -> Result<()> {
    new_thread(client, "claude", harness.work_dir(), "before the terminal").await?;
    click(client, r#"[data-action="open-terminal"]"#).await?;
    wait_css(client, r#"[data-terminal-state="running"]"#, STARTUP).await?;
    // The TUI shows the resumed conversation and its prompt.
    wait_js(
        client,
        r#"(document.querySelector('.xterm-rows')?.innerText ?? '').includes('reply (turn 1) to: before the terminal')"#,
        Duration::from_secs(60),
        "the TUI showing the session",
    )
    .await?;
    shots.take(client, "tui").await;
    type_into(client, ".xterm-helper-textarea", "from the tui").await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    type_into(client, ".xterm-helper-textarea", "\u{E007}").await?;
    wait_js(
        client,
        r#"(document.querySelector('.xterm-rows')?.innerText ?? '').includes('reply (turn 2) to: from the tui')"#,
        TURN,
        "the TUI's reply",
    )
    .await?;
    shots.take(client, "tui-turn").await;

    // The conversation tab shows the TUI's turn (live sync); its composer waits.
    click(client, r#"[role="tab"][data-tab-kind="conversation"]"#).await?;
    wait_css(
        client,
        r#"article[data-role="assistant"][data-turn="2"]"#,
        Duration::from_secs(30),
    )
    .await
    .context("the TUI's turn in the conversation")?;
    let rows = rows(client).await?;
    ensure!(
        rows.iter()
            .any(|r| r.0 == 2 && r.2.contains("from the tui")),
        "{rows:?}"
    );
    composer_waits(client).await?;
    shots.take(client, "conversation-while-terminal").await;

    // Closing the terminal tab hands the session back: the next turn comes from here.
    close_terminal(client, None).await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    send_prompt(client, "after the terminal").await?;
    wait_turn_done(client, 3).await?;
    let got = last_conversation(model)?;
    let want = [
        history(&["before the terminal", "from the tui"]),
        vec![Msg::user("after the terminal")],
    ]
    .concat();
    ensure!(got == want, "after the terminal the model got {got:?}");
    shots.take(client, "after-terminal").await;

    // A tool call shows collapsed; opened, it shows its input and output and pushes the next
    // message down (the list re-measures it).
    send_prompt(client, "CALL_TOOL and report").await?;
    wait_turn_done(client, 4).await?;
    let head = wait_css(
        client,
        r#"article[data-role="tool"][data-turn="4"] .tool__head"#,
        Duration::from_secs(10),
    )
    .await?;
    ensure!(
        head.attr("aria-expanded").await?.as_deref() == Some("false"),
        "a tool call starts collapsed"
    );
    head.click().await?;
    let check = wait_js(
        client,
        r#"(() => {
            const tool = document.querySelector('article[data-role="tool"][data-turn="4"] .tool');
            if (!tool || tool.dataset.open !== 'true') return '';
            const rows = Array.from(document.querySelectorAll('.conv-row')).map(r => r.getBoundingClientRect());
            const overlap = rows.some((r, i) => i > 0 && r.top < rows[i - 1].bottom - 1);
            return overlap ? '' : tool.innerText;
        })()"#,
        Duration::from_secs(10),
        "the opened tool call, without overlapping rows",
    )
    .await?;
    let text = check.as_str().unwrap_or_default();
    ensure!(
        text.contains("echo tool-ok") && text.contains("tool-ok"),
        "the tool call shows {text:?}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    shots.take(client, "tool-call-open").await;
    Ok(())
}

/// Codex: a thread through the UI, Fork on the first reply into a new window, a turn there
/// (the model sees turn 1, then the new prompt), and Edit and fork on the second prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_codex_fork_flow() -> Result<()> {
    harness_fork_flow(Harness::Codex).await
}

/// Pi: the same flow as Codex.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_pi_fork_flow() -> Result<()> {
    harness_fork_flow(Harness::Pi).await
}

/// OpenCode, an ACP agent: the same flow; its Fork on reply 1 copies that turn's snapshot.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_opencode_fork_flow() -> Result<()> {
    harness_fork_flow(Harness::Opencode).await
}

async fn harness_fork_flow(which: Harness) -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(harness) = HarnessEnv::for_fake(which, &model)? else {
        return Ok(());
    };
    // The other app tests leave OpenCode out (its binary is 185 MB, and its doctor check
    // starts it); this one names it.
    let opencode: Vec<(String, String)> = match (which, harness.bin()) {
        (Harness::Opencode, Some(bin)) => vec![(
            which.bin_var().to_owned(),
            bin.to_string_lossy().into_owned(),
        )],
        _ => Vec::new(),
    };
    let env = AppEnv::with_vars(&app, Some(&harness), &opencode)?;
    let mut shots = Shots::new(&format!("app_fork_{}", which.name()))?;
    let client = env.launch().await?;
    let result = harness_session(&client, &model, &harness, which, &mut shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        shots.keep_app_log(&env);
    }
    client.close().await.ok();
    result
}

async fn harness_session(
    client: &Client,
    model: &FakeModel,
    harness: &HarnessEnv,
    which: Harness,
    shots: &mut Shots,
) -> Result<()> {
    // OpenCode also asks the model for a new session's title, a request without tools.
    let last_conversation = |model: &FakeModel| -> Result<Vec<Msg>> {
        match which {
            Harness::Opencode => model
                .last_turn_request()
                .map(|r| r.conversation())
                .context("the model got no turn"),
            _ => last_conversation(model),
        }
    };
    let main = client.window().await?;
    new_thread(client, which.name(), harness.work_dir(), "first prompt").await?;
    send_prompt(client, "second prompt").await?;
    wait_turn_done(client, 2).await?;
    let source_rows = rows(client).await?;
    ensure!(
        last_conversation(model)? == history(&["first prompt", "second prompt"])[..3],
        "turn 2 got {:?}",
        last_conversation(model)?
    );
    shots.take(client, "two-turns").await;

    // Fork on the first reply → a new window with turn 1 only. Codex does it from the
    // keyboard: select the reply, then Ctrl+Shift+F ("Fork Selected Message").
    let forks = fork_count(client).await?;
    if which == Harness::Codex {
        click(client, r#"article[data-role="assistant"][data-turn="1"]"#).await?;
        wait_css(
            client,
            r#"article[data-role="assistant"][data-turn="1"][data-selected="true"]"#,
            Duration::from_secs(5),
        )
        .await?;
        let list = wait_css(client, ".conv-scroll", Duration::from_secs(5)).await?;
        list.send_keys("\u{E009}\u{E008}f").await?;
    } else {
        click(
            client,
            r#"article[data-role="assistant"][data-turn="1"] button[data-action="fork"]"#,
        )
        .await?;
    }
    fork_window(client, forks).await?;
    wait_js(
        client,
        "document.querySelectorAll('article[data-turn][data-role]').length > 0",
        Duration::from_secs(20),
        "the fork's history",
    )
    .await?;
    let fork_rows = rows(client).await?;
    ensure!(
        !fork_rows.is_empty() && fork_rows.iter().all(|r| r.0 == 1),
        "the fork should hold turn 1 only: {fork_rows:?}"
    );
    ensure!(
        fork_rows[..] == source_rows[..fork_rows.len()],
        "inherited text differs: {fork_rows:?}"
    );
    // The history shown while the harness forked (when the fork took long enough for it to
    // paint) has given way to the fork's own, live one.
    let preview = js(client, "return window.__forkhostPerf?.preview ?? null").await?;
    println!("{}: the fork window's preview: {preview}", which.name());
    let live = js(
        client,
        r#"return !document.querySelector('[data-fork-preview]') && document.querySelector('textarea[data-role="composer"]')?.disabled === false"#,
    )
    .await?;
    ensure!(live == true, "the fork window is still a preview");
    let focused = js(
        client,
        "return document.activeElement?.dataset?.role ?? null",
    )
    .await?;
    ensure!(
        focused == "composer",
        "the composer should have the keyboard, not {focused}"
    );
    shots.take(client, "fork-window").await;
    send_prompt(client, "fork prompt").await?;
    wait_turn_done(client, 2).await?;
    let want = [history(&["first prompt"]), vec![Msg::user("fork prompt")]].concat();
    let got = last_conversation(model)?;
    ensure!(got == want, "the fork's turn got {got:?}, want {want:?}");
    shots.take(client, "fork-sent").await;

    // The source is unchanged; Edit and fork on the second prompt, where the harness can.
    client.switch_to_window(main.clone()).await?;
    ensure!(rows(client).await? == source_rows, "the source changed");
    let edit = wait_css(
        client,
        r#"article[data-role="user"][data-turn="2"] button[data-action="fork"]"#,
        Duration::from_secs(5),
    )
    .await?;
    if edit.attr("aria-disabled").await?.as_deref() == Some("true") {
        let why = edit.attr("title").await?.unwrap_or_default();
        ensure!(
            why.starts_with("Can't fork"),
            "disabled without a reason: {why:?}"
        );
        println!("{}: Edit and fork is unavailable: {why}", which.name());
        return Ok(());
    }
    let forks = fork_count(client).await?;
    edit.click().await?;
    fork_window(client, forks).await?;
    let composer = wait_js(
        client,
        r#"document.querySelector('textarea[data-role="composer"]')?.value"#,
        Duration::from_secs(20),
        "the prefilled composer",
    )
    .await?;
    ensure!(composer == "second prompt", "the composer holds {composer}");
    let edit_rows = rows(client).await?;
    ensure!(
        edit_rows.iter().all(|r| r.0 == 1),
        "a fork before turn 2 holds turn 1: {edit_rows:?}"
    );
    shots.take(client, "edit-and-fork").await;
    Ok(())
}

/// Continue in Codex on reply 2 of a Claude Code thread: the window that opens shows the two
/// turns and the chip, and a prompt sent there is answered by Codex (its own protocol to the
/// fake model), which received the Claude conversation as its history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_claude_continues_in_codex() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(harness) = HarnessEnv::for_fake_all(&[Harness::Claude, Harness::Codex], &model)?
    else {
        return Ok(());
    };
    let env = AppEnv::new(&app, Some(&harness))?;
    let mut shots = Shots::new("app_continue_in_codex")?;
    let (model, harness) = (&model, &harness);
    with_app(&env, &mut shots, |client| async move {
        let result = continue_in_codex(&client, model, harness).await;
        (client, result)
    })
    .await
}

async fn continue_in_codex(client: &Client, model: &FakeModel, harness: &HarnessEnv) -> Result<()> {
    new_thread(client, "claude", harness.work_dir(), "first prompt").await?;
    send_prompt(client, "second prompt").await?;
    wait_turn_done(client, 2).await?;
    let source_rows = rows(client).await?;
    fork_from_menu(client, 2, "Continue in Codex").await?;
    wait_js(
        client,
        "document.querySelectorAll('article[data-turn][data-role]').length > 0",
        Duration::from_secs(20),
        "the continued conversation",
    )
    .await?;
    let fork_rows = rows(client).await?;
    ensure!(
        fork_rows[..] == source_rows[..],
        "the two turns shown differ: {fork_rows:?} vs {source_rows:?}"
    );
    // The chip reads the source's turn number after a moment ("…" until then).
    let chip = wait_js(
        client,
        "(t => t && !t.includes('…') ? t : null)(document.querySelector('.lineage')?.textContent)",
        Duration::from_secs(10),
        "the lineage chip",
    )
    .await?;
    let chip = chip.as_str().unwrap_or_default();
    ensure!(
        chip.starts_with("Continued in Codex from") && chip.contains("after turn 2"),
        "the chip says {chip:?}"
    );
    send_prompt(client, "on codex now").await?;
    wait_turn_done(client, 3).await?;
    let request = model.last_model_request().context("no model request")?;
    ensure!(
        request.path.ends_with("/responses"),
        "the reply should come from Codex (the Responses API), not {}",
        request.path
    );
    let want = [
        history(&["first prompt", "second prompt"]),
        vec![Msg::user("on codex now")],
    ]
    .concat();
    ensure!(
        request.conversation() == want,
        "Codex received {:?}",
        request.conversation()
    );
    let shown = rows(client).await?;
    ensure!(
        shown
            .iter()
            .any(|r| r.0 == 3 && r.2 == "reply (turn 3) to: on codex now"),
        "the reply is shown: {shown:?}"
    );
    Ok(())
}
