//! The app's approval card, end to end, against the fake model over WebDriver.
//!
//! * `app_claude_approval_card`: a Claude thread in its default mode (it asks before a Write).
//!   The card shows what the harness wants to do, the tab and the sidebar entry are marked while
//!   it waits, Enter approves (the file is written, the turn completes; a window reloaded
//!   meanwhile shows the card again), Decline refuses (no file, the turn completes, the card
//!   goes).
//! * `app_claude_always_this_session_and_stop_turn`: "Always this session" → the same call again
//!   in that thread is not asked (no card ever shows); "Stop turn" → the turn ends interrupted
//!   and nothing is written.
//! * `app_codex_mode_chosen_in_new_thread`: Codex under `untrusted` + `danger-full-access`
//!   chosen in the New thread dialog (the header shows it): the card comes, Enter approves, the
//!   command's file is written.
//! * `app_claude_notifies_an_unfocused_window`: a request in the focused window notifies
//!   nothing; then a second window is opened (the app focuses it),
//!   so the thread's window is not focused when its request arrives: exactly one notification
//!   is recorded through `FORKHOST_TEST_NOTIFICATIONS` (naming the thread and what it wants,
//!   not the path), the window title carries the waiting mark until the request is answered.
//!
//! * `app_claude_question_card`: AskUserQuestion shows as a question card (its options, no
//!   Approve, "Waiting for your answer", the title mark); choosing Blue and Enter answers it (the
//!   model gets Blue), Dismiss answers nothing.
//!
//! Run with `scripts/app-e2e.sh app_approvals`; screenshots land in
//! `test-artifacts/app_approvals*/`.

use crate::app_support;

use std::path::Path;
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use serde_json::Value;

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
        shots.keep_app_log(&env);
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

/// The card takes its room from the list instead of covering it: the list ends above the card
/// and still shows its end, the newest prompt included.
async fn end_in_view(client: &Client) -> Result<()> {
    let check = format!(
        r#"(() => {{
            const list = document.querySelector('.conv .conv-scroll')?.getBoundingClientRect();
            const card = document.querySelector('.conv {CARD}')?.getBoundingClientRect();
            const rows = document.querySelectorAll('.conv .conv-row');
            const users = document.querySelectorAll('.conv article[data-role="user"]');
            const last = rows[rows.length - 1]?.getBoundingClientRect();
            const prompt = users[users.length - 1]?.getBoundingClientRect();
            if (!list || !card || !last || !prompt) return '';
            const ok = list.bottom <= card.top + 1 && last.bottom <= list.bottom + 2
              && prompt.bottom > list.top && prompt.top < list.bottom;
            return ok ? 'ok' : '';
        }})()"#
    );
    wait_js(
        client,
        &check,
        Duration::from_secs(5),
        "the list's end (the newest prompt) in view above the card",
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
    end_in_view(client).await?;
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
    // The card read after the list was laid out (no turn event moved the list) still leaves the
    // list's end in view.
    end_in_view(client).await?;
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
    // Enter approves only a card seen for half a second (ENTER_SETTLE_MS in the UI).
    tokio::time::sleep(Duration::from_millis(700)).await;
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

/// Starts the app with `harness`'s fake-model environment (and `extra` variables), runs `body`,
/// takes a screenshot on failure and ends the session.
async fn with_app<F>(
    harness: Harness,
    artifacts: &str,
    extra: &[(String, String)],
    body: F,
) -> Result<()>
where
    F: for<'a> AsyncFnOnce(&'a Client, &'a HarnessEnv, &'a mut Shots) -> Result<()>,
{
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(env) = HarnessEnv::for_fake(harness, &model)? else {
        return Ok(());
    };
    let app_env = AppEnv::with_vars(&app, Some(&env), extra)?;
    let mut shots = Shots::new(artifacts)?;
    let client = app_env.launch().await?;
    let result = body(&client, &env, &mut shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        shots.keep_app_log(&app_env);
    }
    let closed = client.close().await;
    result?;
    closed.context("ending the WebDriver session")?;
    Ok(())
}

/// Counts every approval card that ever appears in this window from now on
/// (`window.__cardsSeen`), so a test can prove that none did.
async fn count_cards(client: &Client) -> Result<()> {
    js(
        client,
        &format!(
            r#"window.__cardsSeen = 0;
               window.__cardWatch?.disconnect();
               window.__cardWatch = new MutationObserver((records) => {{
                 for (const r of records) for (const n of r.addedNodes)
                   if (n instanceof Element && (n.matches('{CARD}') || n.querySelector('{CARD}'))) window.__cardsSeen++;
               }});
               window.__cardWatch.observe(document.body, {{ childList: true, subtree: true }});
               return true;"#
        ),
    )
    .await?;
    Ok(())
}

async fn composer_state(client: &Client) -> Result<String> {
    let v = js(
        client,
        r#"return document.querySelector('[data-runtime-state]')?.innerText ?? ''"#,
    )
    .await?;
    Ok(v.as_str().unwrap_or_default().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_claude_always_this_session_and_stop_turn() -> Result<()> {
    with_app(
        Harness::Claude,
        "app_approvals_always_stop",
        &[],
        async |client, harness, shots| {
            let work = harness.work_dir();
            let thread = new_thread(client, "claude", work, "hello").await?;

            // Turn 2: a command, answered "Always this session".
            let touched = work.join("always.txt");
            let prompt = "RUN_COMMAND `touch always.txt`";
            send_prompt(client, prompt).await?;
            let id = card_naming(client, "always.txt").await?;
            shots.take(client, "always-card").await;
            click(
                client,
                &format!(r#"[data-approval-id="{id}"] button[data-action="approve-for-session"]"#),
            )
            .await?;
            wait_turn_done(client, 2).await?;
            unmarked(client, &thread).await?;
            ensure!(touched.exists(), "approved for the session: {} should exist", touched.display());

            // Turn 3: the same call again is not asked, and runs.
            std::fs::remove_file(&touched)?;
            count_cards(client).await?;
            send_prompt(client, prompt).await?;
            wait_turn_done(client, 3).await?;
            let seen = js(client, "return window.__cardsSeen").await?;
            ensure!(seen == 0, "the same call was asked again ({seen} cards) after Always this session");
            ensure!(touched.exists(), "the granted call ran again: {} should exist", touched.display());

            // The header says what "Always" allowed, exactly, and revokes it.
            wait_js(
                client,
                r#"document.querySelector('[data-grants-control]')?.dataset.grants === '1'"#,
                Duration::from_secs(10),
                "the header's session rules",
            )
            .await?;
            click(client, r#"[data-action="show-grants"]"#).await?;
            let listed = js(
                client,
                r#"return document.querySelector('[data-grant-id]')?.innerText ?? ''"#,
            )
            .await?;
            ensure!(
                listed.as_str().unwrap_or_default().contains("touch always.txt"),
                "the rule names its command: {listed}"
            );
            shots.take(client, "session-rules").await;
            click(client, r#"[data-action="revoke-grant"]"#).await?;
            wait_js(
                client,
                r#"document.querySelector('[data-grants-control]') === null"#,
                Duration::from_secs(10),
                "the revoked rule gone from the header",
            )
            .await?;

            // Turn 4: another tool (Write, not granted) is asked; Stop turn ends the turn
            // interrupted and nothing is written.
            let stopped = work.join("stopped.txt");
            send_prompt(client, &format!("WRITE_FILE `{}`", stopped.display())).await?;
            let id = card_naming(client, "stopped.txt").await?;
            click(
                client,
                &format!(r#"[data-approval-id="{id}"] button[data-action="stop-turn"]"#),
            )
            .await?;
            wait_js(
                client,
                // The "Interrupted" marks last only until the thread is re-read after the
                // turn; that the model was never asked again (no turn-4 reply) stays.
                r#"!document.querySelector('[data-turn-state="starting"], [data-turn-state="streaming"]')
                   && (document.querySelector('[data-turn-state="interrupted"]') !== null
                       || (document.querySelector('[data-runtime-state]')?.innerText ?? '').includes('Interrupted')
                       || !document.body.innerText.includes('reply (turn 4)'))"#,
                TURN,
                "turn 4 to end interrupted",
            )
            .await?;
            unmarked(client, &thread).await?;
            let state = composer_state(client).await?;
            ensure!(
                js(client, r#"return document.querySelector('[data-turn-state="failed"]') === null"#).await? == true,
                "the stopped turn should not be a failure (composer: {state})"
            );
            ensure!(!stopped.exists(), "stopped: {} should not exist", stopped.display());
            ensure!(
                js(client, r#"return !document.body.innerText.includes('reply (turn 4)')"#).await?
                    == true,
                "the model was asked again after Stop turn"
            );
            shots.take(client, "stopped").await;
            Ok(())
        },
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_codex_mode_chosen_in_new_thread() -> Result<()> {
    with_app(
        Harness::Codex,
        "app_approvals_codex",
        &[],
        async |client, harness, shots| {
            let work = harness.work_dir();
            // untrusted asks before any command that is not read-only; danger-full-access
            // because the sandbox cannot start on this machine.
            let thread = new_thread_with_mode(
                client,
                "codex",
                work,
                "hello",
                &[("mode", "untrusted"), ("sandbox", "danger-full-access")],
            )
            .await?;
            let shown = js(
                client,
                &format!(
                    r#"const c = document.querySelector('[data-mode-control="{thread}"]');
                       return c ? [c.dataset.mode, c.dataset.sandbox] : null;"#
                ),
            )
            .await?;
            ensure!(
                shown == serde_json::json!(["untrusted", "danger-full-access"]),
                "the header should show the mode chosen in New thread: {shown}"
            );

            let written = work.join("codex.txt");
            send_prompt(client, "RUN_COMMAND `touch codex.txt`").await?;
            let id = card_naming(client, "codex.txt").await?;
            ensure!(!id.is_empty(), "the card has no request id");
            ensure!(
                marked(client, &thread).await?,
                "the tab and the sidebar entry should be marked"
            );
            ensure!(!written.exists(), "nothing runs before the answer");
            shots.take(client, "codex-card").await;
            let composer = wait_css(
                client,
                r#"textarea[data-role="composer"]"#,
                Duration::from_secs(5),
            )
            .await?;
            composer.click().await?;
            // Enter approves only a card seen for half a second (ENTER_SETTLE_MS in the UI).
            tokio::time::sleep(Duration::from_millis(700)).await;
            composer.send_keys("\u{E007}").await?;
            wait_turn_done(client, 2).await?;
            unmarked(client, &thread).await?;
            ensure!(
                written.exists(),
                "approved: {} should exist",
                written.display()
            );
            Ok(())
        },
    )
    .await
}

/// The notification lines the app recorded.
fn notes(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

async fn title(client: &Client) -> Result<String> {
    Ok(js(client, "return document.title")
        .await?
        .as_str()
        .unwrap_or_default()
        .to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_claude_notifies_an_unfocused_window() -> Result<()> {
    let scratch = tempfile::tempdir()?;
    let file = scratch.path().join("notifications.jsonl");
    let extra = [(
        "FORKHOST_TEST_NOTIFICATIONS".to_owned(),
        file.to_string_lossy().into_owned(),
    )];
    with_app(
        Harness::Claude,
        "app_approvals_notify",
        &extra,
        async |client, harness, shots| {
            let work = harness.work_dir();
            let thread = new_thread(client, "claude", work, "hello").await?;
            let main = client.window().await?;
            let plain = title(client).await?;
            ensure!(!plain.contains('●'), "no mark before a request: {plain}");

            // Turn 2, asked while the window is focused: no notification.
            wait_js(
                client,
                "document.hasFocus()",
                Duration::from_secs(20),
                "the main window to have focus",
            )
            .await?;
            let focused = work.join("focused.txt");
            send_prompt(client, &format!("WRITE_FILE `{}`", focused.display())).await?;
            let id = card_naming(client, "focused.txt").await?;
            tokio::time::sleep(Duration::from_secs(2)).await;
            ensure!(
                notes(&file).is_empty(),
                "no notification for a focused window: {:?}",
                notes(&file)
            );
            click(
                client,
                &format!(r#"[data-approval-id="{id}"] button[data-action="approve"]"#),
            )
            .await?;
            wait_turn_done(client, 2).await?;
            wait_js(
                client,
                &format!("document.title === {plain:?}"),
                Duration::from_secs(10),
                "the title without the mark",
            )
            .await?;

            // A second window, which the app focuses: the thread's window is no longer the
            // focused one (under Xvfb without a window manager too: GTK sets the X input focus).
            look_away(client, main.clone()).await?;

            // The request arrives while the window is not focused: sent without focusing it
            // (a script sets the composer and clicks Send).
            let target = work.join("notified.txt");
            send_unfocused(client, &format!("WRITE_FILE `{}`", target.display())).await?;
            let id = card_naming(client, "notified.txt").await?;

            // One notification for this request, naming the thread and the tool, not the path.
            let deadline = std::time::Instant::now() + Duration::from_secs(20);
            while notes(&file).is_empty() && std::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            let lines = notes(&file);
            ensure!(lines.len() == 1, "one notification expected, got {lines:?}");
            ensure!(lines[0]["thread_id"] == thread.as_str(), "{lines:?} for {thread}");
            let body = lines[0]["body"].as_str().unwrap_or_default();
            // Claude's Write arrives as a file change: said in words, without the path.
            ensure!(
                body.contains("wants to change a file"),
                "the body says what it wants: {body}"
            );
            ensure!(!body.contains("notified.txt"), "no path in a notification: {body}");

            // The title is marked while it waits...
            let marked_title = wait_js(
                client,
                "document.title.startsWith('● Waiting for approval — ') ? document.title : ''",
                Duration::from_secs(10),
                "the waiting mark in the window title",
            )
            .await?;
            ensure!(
                marked_title.as_str().unwrap_or_default().ends_with(" — Forkhost"),
                "{marked_title}"
            );
            shots.take(client, "marked-title").await;

            // ...and restored once it is answered.
            js(
                client,
                &format!(r#"document.querySelector('[data-approval-id="{id}"] button[data-action="approve"]').click(); return true;"#),
            )
            .await?;
            wait_turn_done(client, 3).await?;
            wait_js(
                client,
                &format!("document.title === {plain:?}"),
                Duration::from_secs(10),
                "the title without the mark",
            )
            .await?;
            ensure!(target.exists(), "approved: {} should exist", target.display());
            ensure!(notes(&file).len() == 1, "still one notification: {:?}", notes(&file));
            Ok(())
        },
    )
    .await
}

/// The assistant's reply text of turn `turn` in the active conversation.
async fn reply_of(client: &Client, turn: i64) -> Result<String> {
    Ok(rows(client)
        .await?
        .into_iter()
        .filter(|(t, role, _)| *t == turn && role == "assistant")
        .map(|(_, _, text)| text)
        .collect::<Vec<_>>()
        .join("\n"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_claude_question_card() -> Result<()> {
    with_app(
        Harness::Claude,
        "app_approvals_question",
        &[],
        async |client, harness, shots| {
            let work = harness.work_dir();
            let thread = new_thread(client, "claude", work, "hello").await?;

            // Turn 2: AskUserQuestion becomes a question card, not an approval.
            send_prompt(client, "ASK_USER `Which colour?`").await?;
            let id = wait_js(
                client,
                &format!(
                    r#"(() => {{
                        const card = document.querySelector('.conv {CARD}');
                        const q = card?.querySelector('[data-question-index="0"] [data-approval-part="prompt"]');
                        return q && q.innerText.includes('Which colour?') ? card.dataset.approvalId : '';
                    }})()"#
                ),
                TURN,
                "the question card",
            )
            .await?;
            let id = id.as_str().unwrap_or_default().to_owned();
            let card = format!(r#"[data-approval-id="{id}"]"#);
            // The composer's words and the tab's and the sidebar's marks follow the card in
            // renders of their own: wait for them before reading the card's parts.
            wait_js(
                client,
                &format!(
                    r#"(document.querySelector('[data-runtime-state]')?.innerText ?? '').includes('Waiting for your answer')
                       && document.querySelector('[role="tab"][data-thread-id="{thread}"]')?.dataset.awaitingApproval === 'true'
                       && document.querySelector('button.thread[data-thread-id="{thread}"]')?.dataset.awaitingApproval === 'true'"#
                ),
                Duration::from_secs(10),
                "the composer to say it waits for an answer, and the thread's marks",
            )
            .await?;
            let parts = js(
                client,
                &format!(
                    r#"const c = document.querySelector('{card}');
                       return [
                         [...c.querySelectorAll('input[data-option]')].map(i => i.value),
                         c.querySelector('[data-action="approve"]') === null,
                         c.querySelector('[data-action="answer"]').disabled,
                         document.querySelector('[data-runtime-state]')?.innerText ?? '',
                       ];"#
                ),
            )
            .await?;
            ensure!(
                parts[0] == serde_json::json!(["Red", "Blue"]),
                "the options: {parts}"
            );
            ensure!(parts[1] == true, "a question has no Approve: {parts}");
            ensure!(
                parts[2] == true,
                "Answer waits for an answer: {parts}"
            );
            ensure!(
                parts[3]
                    .as_str()
                    .unwrap_or_default()
                    .contains("Waiting for your answer"),
                "{parts}"
            );
            ensure!(marked(client, &thread).await?, "the thread is marked while asked");
            wait_js(
                client,
                "document.title.startsWith('● Question waiting — ')",
                Duration::from_secs(10),
                "the question mark in the title",
            )
            .await?;
            shots.take(client, "question").await;

            // Choose Blue; Enter in the card answers.
            let blue = wait_css(
                client,
                &format!(r#"{card} input[data-option="Blue"]"#),
                Duration::from_secs(5),
            )
            .await?;
            blue.click().await?;
            blue.send_keys("\u{E007}").await?;
            wait_turn_done(client, 2).await?;
            unmarked(client, &thread).await?;
            let reply = reply_of(client, 2).await?;
            ensure!(reply.contains("Blue"), "the model got the answer: {reply}");

            // Turn 3: Dismiss tells the model nobody answered.
            send_prompt(client, "ASK_USER `Which size?`").await?;
            let id = wait_js(
                client,
                &format!(
                    r#"(() => {{
                        const card = document.querySelector('.conv {CARD}');
                        return card && card.innerText.includes('Which size?') ? card.dataset.approvalId : '';
                    }})()"#
                ),
                TURN,
                "the second question card",
            )
            .await?;
            click(
                client,
                &format!(
                    r#"[data-approval-id="{}"] button[data-action="dismiss"]"#,
                    id.as_str().unwrap_or_default()
                ),
            )
            .await?;
            wait_turn_done(client, 3).await?;
            unmarked(client, &thread).await?;
            let reply = reply_of(client, 3).await?;
            ensure!(
                !reply.contains("Blue") && !reply.contains("Red)"),
                "nothing was chosen: {reply}"
            );
            Ok(())
        },
    )
    .await
}
