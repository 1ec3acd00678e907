//! Remote hosts in the app (docs/architecture.md "Remote hosts"), end to end: the built app
//! over WebDriver, the real Pi CLI against the fake model on both sides, and a real OpenSSH
//! server on loopback whose sessions run as the second local user. The sidebar lists the host
//! and, opened, its threads as that machine's forkhost lists them; "Continue on another
//! machine…" on a reply moves the branch there with its files as of that reply (a new
//! repository in a new folder), and the host's list shows it; clicked there, the remote thread
//! opens in a tab (read by that host's forkhost), a prompt sent from the app runs there and
//! streams back, and Fork on one of its replies makes a fork there that opens in a tab here
//! (what the model receives next is checked each time); a host that cannot be reached is
//! "offline since …" with ssh's words and Reconnect. Run by `scripts/app-e2e.sh app_remote`.

use crate::app_support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::cli::forkhost_bin;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use forkhost_tests::sshd::{Sshd, HOST_ALIAS};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(60);

/// `forkhost --json --data-dir DATA ARGS` with the server's ssh: its JSON document.
pub(crate) fn cli(data: &Path, ssh: &str, args: &[&str]) -> Result<Value> {
    let out = Command::new(forkhost_bin())
        .env("FORKHOST_SSH_COMMAND", ssh)
        .arg("--json")
        .arg("--data-dir")
        .arg(data)
        .args(args)
        .output()?;
    let json: Value = serde_json::from_slice(&out.stdout).with_context(|| {
        format!(
            "forkhost {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })?;
    ensure!(out.status.success(), "forkhost {args:?}: {json}");
    Ok(json)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_pi_continue_on_another_machine_with_the_files_and_the_hosts_threads() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(here) = HarnessEnv::for_fake(Harness::Pi, &model)? else {
        return Ok(());
    };
    // There: Pi, and Claude Code, whose requests wait for an answer.
    let Some(there) = HarnessEnv::for_fake_all(&[Harness::Pi, Harness::Claude], &model)? else {
        return Ok(());
    };
    // A forkhost of another version there, named by a host of its own: it refuses this
    // client as a real one would (`remote-exec`'s version check).
    let old = there.root().join("old-forkhost");
    std::fs::write(
        &old,
        "#!/bin/sh\necho '{\"error\":{\"code\":\"version_mismatch\",\"message\":\"this host runs forkhost 0.0.1\"}}'\nexit 1\n",
    )?;
    std::fs::set_permissions(&old, std::os::unix::fs::PermissionsExt::from_mode(0o755))?;
    let Some(sshd) = Sshd::start(&there, &forkhost_bin()) else {
        return Ok(());
    };
    sshd.trust_host_key();
    let ssh = sshd.ssh_command();
    // This side's repository, where the agent writes notes.txt.
    let repo = here.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"])?;
    std::fs::write(repo.join("README.md"), "a test repository\n")?;
    git(&repo, &["add", "README.md"])?;
    git(&repo, &["commit", "-q", "-m", "initial"])?;

    let scratch = tempfile::tempdir()?;
    let notifications = scratch.path().join("notifications.jsonl");
    let env = AppEnv::with_vars(
        &app,
        Some(&here),
        &[
            ("FORKHOST_SSH_COMMAND".into(), ssh.clone()),
            (
                "FORKHOST_TEST_NOTIFICATIONS".into(),
                notifications.display().to_string(),
            ),
        ],
    )?;
    cli(&env.data_dir, &ssh, &["hosts", "add", "box", HOST_ALIAS])?;
    cli(
        &env.data_dir,
        &ssh,
        &["hosts", "add", "gone", "nobody@127.0.0.1", "--", "-p", "1"],
    )?;
    let old_arg = old.display().to_string();
    cli(
        &env.data_dir,
        &ssh,
        &["hosts", "add", "old", HOST_ALIAS, "--forkhost", &old_arg],
    )?;
    let mut shots = Shots::new("app_remote")?;
    let client = env.launch().await?;
    let result = flow(
        &client,
        &env.data_dir,
        &ssh,
        &repo,
        &there,
        &model,
        &mut shots,
    )
    .await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        shots.keep_app_log(&env);
    }
    // Give the debounced layout save a moment before the app goes.
    tokio::time::sleep(Duration::from_millis(500)).await;
    client.close().await.ok();
    let remote_tabs = result?;

    // A restart reopens the remote threads' tabs, each read again from its host; then a new
    // thread is started on box from New thread.
    let client = env.launch().await?;
    let mut result = reopened(&client, &remote_tabs).await;
    if result.is_ok() {
        result = started_there(&client, &env.data_dir, &ssh, &there, &model).await;
    }
    if result.is_ok() {
        result = notified_there(&client, &env.data_dir, &ssh, &there, &model, &notifications).await;
    }
    if result.is_err() {
        shots.take(&client, "failure-after-restart").await;
    } else {
        shots.take(&client, "remote-tabs-restored").await;
    }
    client.close().await.ok();
    result
}

/// A remote Claude Code thread asks to write a file while its window is not focused: one
/// notification, naming that thread as this machine's windows name it.
async fn notified_there(
    client: &Client,
    data: &Path,
    ssh: &str,
    there: &HarnessEnv,
    model: &FakeModel,
    notifications: &Path,
) -> Result<()> {
    let folder = there.work_dir().display().to_string();
    let made = cli(
        data,
        ssh,
        &[
            "--host",
            "box",
            "new",
            "--harness",
            "claude",
            "--cwd",
            &folder,
            "hello",
        ],
    )?;
    let id = made["thread"]["id"]
        .as_str()
        .or_else(|| made["id"].as_str())
        .context(format!("the new thread's id: {made}"))?
        .to_owned();
    // Its row in box's list (opened after the restart, read again), then its tab.
    open_host(client, "box").await?;
    click(
        client,
        r#"[data-host="box"] button[aria-label="Refresh box"]"#,
    )
    .await?;
    let row = format!(r#"[data-host="box"] [data-remote-thread-id="{id}"]"#);
    wait_css(client, &row, WAIT).await?;
    click(client, &row).await?;
    let tab = format!("box:{id}");
    wait_js(
        client,
        &format!(
            r#"document.querySelector('[role="tab"][aria-selected="true"]')?.dataset.threadId === '{tab}' && !!document.querySelector('article[data-role="assistant"][data-turn="1"]:not([data-live])')"#
        ),
        WAIT,
        "the remote Claude thread's tab",
    )
    .await?;
    terminal_there(client, model, &tab).await?;
    let main = client.window().await?;
    look_away(client, main).await?;
    let target = there.work_dir().join("notified.txt");
    send_unfocused(client, &format!("WRITE_FILE `{}`", target.display())).await?;
    let card = wait_js(
        client,
        r#"document.querySelector('.conv [data-approval-id]')?.dataset.approvalId ?? null"#,
        WAIT,
        "the remote request's card",
    )
    .await?;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let lines = loop {
        let lines: Vec<serde_json::Value> = std::fs::read_to_string(notifications)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        if !lines.is_empty() || std::time::Instant::now() > deadline {
            break lines;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    ensure!(lines.len() == 1, "one notification expected, got {lines:?}");
    ensure!(lines[0]["thread_id"] == tab.as_str(), "{lines:?} for {tab}");
    ensure!(
        lines[0]["body"]
            .as_str()
            .unwrap_or_default()
            .contains("wants to change a file"),
        "{lines:?}"
    );
    // Answered from here, it runs there.
    click(
        client,
        &format!(
            r#"[data-approval-id="{}"] button[data-action="approve"]"#,
            card.as_str().unwrap_or_default()
        ),
    )
    .await?;
    // After the terminal's two turns.
    wait_turn_done(client, 4).await?;
    ensure!(target.exists(), "the approved write was made there");
    Ok(())
}

/// The terminal tab of box's Claude thread: Claude Code's own TUI runs there over `ssh -t`
/// on the thread's session (it shows turn 1 and takes a turn, whose prompt reaches the model
/// from there after turn 1); the composer waits meanwhile; closing the tab hands the thread
/// back, and the next turn from the app sends the model every turn, the TUI's included.
async fn terminal_there(client: &Client, model: &FakeModel, tab: &str) -> Result<()> {
    click(client, r#"[data-action="open-terminal"]"#).await?;
    wait_css(client, r#"[data-terminal-state="running"]"#, WAIT).await?;
    let screen = |words: &str| {
        format!(
            r#"(document.querySelector('.xterm-rows')?.innerText ?? '').replace(/\s+/g, ' ').includes('{words}')"#
        )
    };
    wait_js(
        client,
        &screen("reply (turn 1) to: hello"),
        WAIT,
        "box's TUI showing the session",
    )
    .await?;
    type_into(client, ".xterm-helper-textarea", "from the remote tui").await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    type_into(client, ".xterm-helper-textarea", "\u{E007}").await?;
    wait_js(
        client,
        &screen("reply (turn 2) to: from the remote tui"),
        WAIT,
        "the remote TUI's reply",
    )
    .await?;
    let got = last_conversation(model)?;
    let want = [history(&["hello"]), vec![Msg::user("from the remote tui")]].concat();
    ensure!(got == want, "the remote TUI's turn sent {got:?}");
    click(
        client,
        &format!(r#"[role="tab"][data-tab-kind="conversation"][data-thread-id="{tab}"]"#),
    )
    .await?;
    composer_waits(client).await?;
    close_terminal(client, Some(tab)).await?;
    send_prompt(client, "after the remote terminal").await?;
    wait_turn_done(client, 3).await?;
    let got = last_conversation(model)?;
    let want = [
        history(&["hello", "from the remote tui"]),
        vec![Msg::user("after the remote terminal")],
    ]
    .concat();
    ensure!(
        got == want,
        "after the remote terminal the model got {got:?}"
    );
    Ok(())
}

/// New thread on box: the dialog's Machine choice, a folder there with project agent config
/// (`.pi/`) nobody decided on — the trust dialog asks about that machine's folder, and the
/// answer is kept there; the thread opens in a tab here, its first prompt reaches the model
/// from there, and box lists it with that folder.
async fn started_there(
    client: &Client,
    data: &Path,
    ssh: &str,
    there: &HarnessEnv,
    model: &FakeModel,
) -> Result<()> {
    let folder = there.work_dir();
    std::fs::create_dir_all(folder.join(".pi"))?;
    std::fs::write(folder.join(".pi/settings.json"), "{}")?;
    let folder_arg = folder.display().to_string();
    let undecided = cli(data, ssh, &["--host", "box", "trust", &folder_arg])?;
    ensure!(
        undecided["trust"]["trusted"].is_null(),
        "undecided there first: {undecided}"
    );
    let (id, question) = new_thread_trusting(
        client,
        Some("box"),
        "pi",
        folder,
        "started on box",
        "trust-yes",
    )
    .await?;
    ensure!(id.starts_with("box:"), "a tab of box's thread: {id}");
    ensure!(
        question.contains(".pi") && question.contains(folder_arg.trim_end_matches('/')),
        "the question names that machine's folder and its config: {question:?}"
    );
    let decided = cli(data, ssh, &["--host", "box", "trust", &folder_arg])?;
    ensure!(
        decided["trust"]["trusted"] == true,
        "the answer is kept there: {decided}"
    );
    let conversation = model
        .last_model_request()
        .context("a request")?
        .conversation();
    ensure!(
        conversation == [Msg::user("started on box")],
        "the new thread's first turn: {conversation:?}"
    );
    let threads = cli(data, ssh, &["--host", "box", "threads"])?;
    let listed = threads["threads"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|t| Some(t["id"].as_str().unwrap_or_default()) == id.strip_prefix("box:"))
        })
        .cloned()
        .context(format!("{id} among box's threads: {threads}"))?;
    ensure!(
        listed["cwd"].as_str().map(|c| c.trim_end_matches('/'))
            == Some(folder.display().to_string().trim_end_matches('/')),
        "in the folder there: {listed}"
    );
    Ok(())
}

/// After a restart: both remote tabs are back, and the active one (the remote fork) shows its
/// turns as its host has them.
async fn reopened(client: &Client, remote_tabs: &[String]) -> Result<()> {
    let want = serde_json::to_string(remote_tabs)?;
    wait_js(
        client,
        &format!(
            r#"(() => {{
                const open = Array.from(document.querySelectorAll('[role="tab"][data-thread-id]'))
                    .map(t => t.dataset.threadId);
                return {want}.every(id => open.includes(id)) ? open : null;
            }})()"#
        ),
        WAIT,
        "the remote tabs after a restart",
    )
    .await?;
    let (tab_list, active) = tabs(client).await?;
    ensure!(
        active.as_deref() == remote_tabs.last().map(String::as_str),
        "the remote fork's tab is the active one again: {tab_list:?} {active:?}"
    );
    wait_js(
        client,
        r#"!!document.querySelector('article[data-role="user"][data-turn="2"]:not([data-live])')"#,
        WAIT,
        "the remote fork's turns, read from its host",
    )
    .await?;
    let shown = rows(client).await?;
    ensure!(
        shown
            .iter()
            .any(|(turn, role, text)| *turn == 2 && role == "user" && text == "in the remote fork"),
        "{shown:?}"
    );
    // The other remote tab, not shown yet, is named from its host's list.
    wait_js(
        client,
        &format!(
            r#"(() => {{
                const t = document.querySelector('[role="tab"][data-thread-id="{}"]');
                const words = t ? t.textContent.trim() : '';
                return words && !words.includes('Loading') ? words : null;
            }})()"#,
            remote_tabs[0]
        ),
        WAIT,
        "the title of a remote tab not shown yet",
    )
    .await?;
    Ok(())
}

/// The flow in one app session; the remote tabs it leaves open (the remote thread's, then its
/// fork's, the active one).
async fn flow(
    client: &Client,
    data: &Path,
    ssh: &str,
    repo: &Path,
    there: &HarnessEnv,
    model: &FakeModel,
    shots: &mut Shots,
) -> Result<Vec<String>> {
    // The sidebar lists both hosts; opened, box has no threads yet and gone is offline.
    open_host(client, "box").await?;
    wait_css(
        client,
        r#"[data-host="box"][data-host-state="ready"]"#,
        WAIT,
    )
    .await?;
    // Its agents, as box's doctor finds them there: Pi and Claude Code, with their versions.
    let agents = wait_css(client, r#"[data-host="box"] [data-part="harnesses"]"#, WAIT)
        .await?
        .text()
        .await?;
    ensure!(
        agents.contains("Pi ") && agents.contains("Claude Code "),
        "box's agents: {agents:?}"
    );
    host_setup_view(client).await?;
    open_host(client, "gone").await?;
    let offline = wait_css(client, r#"[data-host="gone"] [data-part="offline"]"#, WAIT).await?;
    let words = offline.text().await?;
    ensure!(words.starts_with("offline since "), "{words}");
    ensure!(words.contains("Reconnect"), "{words}");

    // A thread here whose agent wrote notes.txt in turn 1 and changed it in turn 2.
    new_thread(
        client,
        "pi",
        repo,
        "RUN_COMMAND `printf 'one\\n' > notes.txt`",
    )
    .await?;
    send_prompt(client, "RUN_COMMAND `printf 'two\\n' > notes.txt`").await?;
    wait_turn_done(client, 2).await?;

    // Continue on another machine… after reply 1, into a new folder there.
    let chevron =
        r#"article[data-role="assistant"][data-turn="1"] button[data-action="fork-options"]"#;
    let mut tries = 0;
    loop {
        click(client, chevron).await?;
        match menu_item(client, "Continue on another machine…").await {
            Ok(()) => break,
            Err(e) if tries == 2 => return Err(e),
            Err(_) => tries += 1,
        }
    }
    wait_css(
        client,
        r#"[data-dialog="Continue on another machine"]"#,
        WAIT,
    )
    .await?;
    choose(client, r#"select[name="host"]"#, "box").await?;
    let folder = there.root().join("moved");
    type_into(
        client,
        r#"input[name="remote-cwd"]"#,
        &folder.display().to_string(),
    )
    .await?;
    click(client, r#"button[name="continue-on-host"]"#).await?;
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog="Continue on another machine"]')"#,
        WAIT,
        "the dialog closing once the branch is there",
    )
    .await?;

    // The host's list shows the branch; the remote's forkhost has it, in its files as of turn 1.
    let listed = wait_js(
        client,
        r#"(() => {
            const t = document.querySelector('[data-host="box"] [data-remote-thread-id]');
            return t ? t.dataset.remoteThreadId : null;
        })()"#,
        WAIT,
        "the moved thread in box's list",
    )
    .await?;
    let moved = listed.as_str().unwrap_or_default().to_owned();
    shots.take(client, "hosts").await;
    let threads = cli(data, ssh, &["--host", "box", "threads"])?;
    let ids: Vec<&str> = threads["threads"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["id"].as_str()).collect())
        .unwrap_or_default();
    ensure!(ids == [moved.as_str()], "{threads}");
    let notes = std::fs::read_to_string(folder.join("notes.txt"))?;
    ensure!(notes == "one\n", "the files as of reply 1: {notes:?}");
    ensure!(
        std::fs::read_to_string(repo.join("notes.txt"))? == "two\n",
        "this side unchanged"
    );

    // The moved branch runs there: the remote model receives turn 1, then the new prompt.
    cli(
        data,
        ssh,
        &[
            "--host",
            "box",
            "send",
            &moved,
            "on the remote",
            "--approve",
            "none",
        ],
    )?;
    let conversation = model
        .last_model_request()
        .context("a request")?
        .conversation();
    ensure!(
        conversation.last() == Some(&Msg::user("on the remote")),
        "{conversation:?}"
    );
    ensure!(
        !conversation
            .iter()
            .any(|m| format!("{m:?}").contains("printf 'two")),
        "turn 2 stays behind: {conversation:?}"
    );

    // The moved thread opens here in a tab, read by box's own forkhost; a prompt sent from the
    // app runs there (the model there receives the branch and it) and streams back.
    let remote_id = format!("box:{moved}");
    click(
        client,
        &format!(r#"[data-host="box"] [data-remote-thread-id="{moved}"]"#),
    )
    .await?;
    wait_js(
        client,
        r#"!!document.querySelector('article[data-role="user"][data-turn="2"]:not([data-live])')"#,
        WAIT,
        "the remote thread's turns",
    )
    .await?;
    let (tab_list, active) = tabs(client).await?;
    ensure!(
        active.as_deref() == Some(remote_id.as_str()),
        "{tab_list:?}"
    );
    let folder = js(
        client,
        r#"return document.querySelector('.conv-head__cwd[data-host="box"]')?.textContent ?? '';"#,
    )
    .await?;
    ensure!(
        folder.as_str().unwrap_or_default().starts_with("box:"),
        "the header names the host: {folder}"
    );
    // Where it came from: this machine's thread (its title), after turn 1; a link back here.
    let origin = wait_css(client, "[data-moved-from]", WAIT).await?;
    let said = origin.text().await?;
    ensure!(
        said.starts_with("Continued from ") && said.ends_with("after turn 1"),
        "the header's origin: {said:?}"
    );
    ensure!(
        origin.attr("data-action").await?.as_deref() == Some("open-moved-from"),
        "this machine's thread opens from it"
    );
    let shown = rows(client).await?;
    ensure!(
        shown
            .iter()
            .any(|(turn, role, text)| *turn == 2 && role == "user" && text == "on the remote"),
        "{shown:?}"
    );
    send_prompt(client, "from the app").await?;
    wait_turn_done(client, 3).await?;
    let conversation = model
        .last_model_request()
        .context("a request")?
        .conversation();
    ensure!(
        conversation.last() == Some(&Msg::user("from the app"))
            && conversation.contains(&Msg::user("on the remote")),
        "{conversation:?}"
    );
    let shown = rows(client).await?;
    ensure!(
        shown
            .iter()
            .any(|(turn, role, text)| *turn == 3 && role == "assistant" && !text.is_empty()),
        "the reply streamed back: {shown:?}"
    );
    shots.take(client, "remote-thread").await;

    // The search box searches box too (its connection is up): the remote thread's hit, marked
    // with its host; opening it shows that thread's tab.
    type_into(client, r#"input[data-role="search"]"#, "from the app").await?;
    let hit = format!(
        r#"[data-host="box"][data-thread-id="{remote_id}"] [data-action="open-hit"][data-turn="3"][data-part="user_text"]"#
    );
    wait_css(client, &hit, WAIT).await?;
    let meta = js_args(
        client,
        r#"return document.querySelector(arguments[0])?.closest('[data-thread-id]')?.querySelector('.search__meta')?.textContent ?? '';"#,
        vec![Value::from(hit.as_str())],
    )
    .await?;
    ensure!(
        meta.as_str().unwrap_or_default().contains("on box"),
        "the hit names its host: {meta}"
    );
    click(client, &hit).await?;
    wait_js(
        client,
        &format!(
            r#"document.querySelector('[role="tab"][aria-selected="true"]')?.dataset.threadId === '{remote_id}'"#
        ),
        WAIT,
        "the hit's remote thread to be the active tab",
    )
    .await?;
    let search_box = wait_css(client, r#"input[data-role="search"]"#, WAIT).await?;
    search_box.send_keys("\u{E00C}").await?;

    // Fork there after reply 1, into a tab here: a new thread of box whose next turn receives
    // turn 1 and none of what followed it.
    let chevron =
        r#"article[data-role="assistant"][data-turn="1"] button[data-action="fork-options"]"#;
    let mut tries = 0;
    loop {
        click(client, chevron).await?;
        match menu_item(client, "Fork after this reply in a new tab").await {
            Ok(()) => break,
            Err(e) if tries == 2 => return Err(e),
            Err(_) => tries += 1,
        }
    }
    let fork_id = wait_js(
        client,
        &format!(
            r#"(() => {{
                const t = document.querySelector('[role="tab"][aria-selected="true"]');
                const id = t ? t.dataset.threadId : '';
                return id.startsWith('box:') && id !== '{remote_id}' ? id : null;
            }})()"#
        ),
        WAIT,
        "the remote fork's tab",
    )
    .await?;
    let fork_id = fork_id.as_str().unwrap_or_default().to_owned();
    send_prompt(client, "in the remote fork").await?;
    wait_turn_done(client, 2).await?;
    let conversation = model
        .last_model_request()
        .context("a request")?
        .conversation();
    let said = format!("{conversation:?}");
    ensure!(
        conversation.last() == Some(&Msg::user("in the remote fork"))
            && said.contains("printf 'one")
            && !said.contains("on the remote")
            && !said.contains("from the app"),
        "the fork's first turn receives turn 1 only: {conversation:?}"
    );
    let threads = cli(data, ssh, &["--host", "box", "threads"])?;
    let forked = threads["threads"]
        .as_array()
        .and_then(|a| {
            a.iter().find(|t| {
                Some(t["id"].as_str().unwrap_or_default()) == fork_id.strip_prefix("box:")
            })
        })
        .cloned()
        .context(format!("{fork_id} among box's threads: {threads}"))?;
    ensure!(
        forked["fork"]["source_thread"] == moved.as_str(),
        "the fork's lineage there: {forked}"
    );

    // Rewind the remote fork to reply 1 from its menu, planned and done by its host; then
    // Undo rewind brings turn 2 back.
    let reply = r#"article[data-role="assistant"][data-turn="1"]"#;
    context_menu(client, reply).await?;
    menu_item(client, "Rewind to here").await?;
    wait_css(client, r#"[data-dialog="rewind"] [data-rewind-plan]"#, WAIT).await?;
    click(client, r#"[data-action="rewind-confirm"]"#).await?;
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog="rewind"]') && !document.querySelector('article[data-turn="2"]')"#,
        WAIT,
        "the remote fork to end at turn 1",
    )
    .await?;
    let rewound = cli(
        data,
        ssh,
        &[
            "--host",
            "box",
            "show",
            fork_id.strip_prefix("box:").unwrap_or_default(),
        ],
    )?;
    ensure!(
        rewound["thread"]["turns"].as_array().map(Vec::len) == Some(1),
        "the host has the fork at turn 1: {rewound}"
    );
    // The fork's toast sits over the header's buttons: dismissed, as a user would.
    js(
        client,
        r#"document.querySelectorAll('.toast [aria-label="Dismiss"]').forEach(b => b.click()); return true;"#,
    )
    .await?;
    click(client, r#"[data-action="undo-rewind"]"#).await?;
    wait_js(
        client,
        r#"!!document.querySelector('article[data-role="assistant"][data-turn="2"]')"#,
        WAIT,
        "turn 2 of the remote fork to be back",
    )
    .await?;
    // Its folder as its host has it: the header's chip (a worktree there, in git).
    let chip = wait_js(
        client,
        r#"(() => { const c = document.querySelector('[data-folder-kind]'); return c ? c.dataset.folderKind + ' ' + c.textContent : null; })()"#,
        WAIT,
        "the remote fork's folder in the header",
    )
    .await?;
    ensure!(
        chip.as_str().unwrap_or_default().starts_with("worktree"),
        "the remote fork's folder is a worktree there: {chip}"
    );

    // Reconnect reads again, and says the same while the host stays unreachable.
    click(
        client,
        r#"[data-host="gone"] button[data-action="reconnect"]"#,
    )
    .await?;
    wait_css(client, r#"[data-host="gone"] [data-part="offline"]"#, WAIT).await?;

    // A host of another version says so and offers the update; after it, its threads (the
    // same remote user's: the moved branch) are listed, read by this version.
    open_host(client, "old").await?;
    wait_css(
        client,
        r#"[data-host="old"] button[data-action="update-host"]"#,
        WAIT,
    )
    .await?;
    click(
        client,
        r#"[data-host="old"] button[data-action="update-host"]"#,
    )
    .await?;
    wait_css(
        client,
        &format!(r#"[data-host="old"] [data-remote-thread-id="{moved}"]"#),
        WAIT,
    )
    .await?;
    let hosts = cli(data, ssh, &["hosts"])?;
    let installed = hosts["hosts"]
        .as_array()
        .and_then(|a| a.iter().find(|h| h["name"] == "old"))
        .map(|h| h["remote_program"].as_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    ensure!(
        installed.contains(".cache/forkhost/bin/forkhost-"),
        "the host remembers the copy: {hosts}"
    );
    Ok(vec![remote_id, fork_id])
}

/// box's set-up view (its "Set up agents…"): the agents box's forkhost finds, Pi ready with
/// its version, no file to choose from this machine, and New thread from there starts on box.
async fn host_setup_view(client: &Client) -> Result<()> {
    click(client, r#"[data-host="box"] [data-action="host-setup"]"#).await?;
    let dialog = r#"[data-dialog="first-run"]"#;
    wait_css(
        client,
        &format!(r#"{dialog} .setup-card[data-harness="pi"][data-state="ready"]"#),
        WAIT,
    )
    .await
    .context("box's set-up view shows its Pi ready")?;
    // The text as the page holds it (a modal's rendered text read empty over WebDriver).
    let text = js(
        client,
        r#"return document.querySelector('[data-dialog="first-run"]')?.textContent ?? '';"#,
    )
    .await?;
    let text = text.as_str().unwrap_or_default();
    ensure!(
        text.contains("Set up agents on box"),
        "the view names the host: {text:?}"
    );
    let pi = js(
        client,
        r#"return document.querySelector('[data-dialog="first-run"] .setup-card[data-harness="pi"]')?.textContent ?? '';"#,
    )
    .await?;
    let pi = pi.as_str().unwrap_or_default();
    ensure!(
        pi.chars().any(|c| c.is_ascii_digit()),
        "Pi's version there: {pi:?}"
    );
    let choose = js(
        client,
        r#"return document.querySelectorAll('[data-dialog="first-run"] [data-action^="choose-file-"]').length;"#,
    )
    .await?;
    ensure!(
        choose == 0,
        "no file of box's is chosen from here: {choose}"
    );
    click(client, r#"[data-action="first-run-new-thread"]"#).await?;
    wait_js(
        client,
        r#"document.querySelector('[data-dialog="new-thread"] input[data-machine="box"]')?.checked === true"#,
        WAIT,
        "New thread from box's set-up view to start on box",
    )
    .await?;
    js(
        client,
        r#"document.querySelector('[data-dialog="new-thread"] .form__actions > button:not(.button--primary)').click(); return null;"#,
    )
    .await?;
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog]')"#,
        WAIT,
        "the dialog to close",
    )
    .await?;
    Ok(())
}

/// Opens a host's row in the sidebar.
async fn open_host(client: &Client, name: &str) -> Result<()> {
    let css = format!(r#"[data-host="{name}"] button[data-action="toggle-host"]"#);
    wait_css(client, &css, WAIT).await?;
    click(client, &css).await
}
