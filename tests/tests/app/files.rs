//! The app's side of a thread's files (docs/architecture.md "Files of a thread", "Folder
//! trust"), end to end: the built app over WebDriver, the real Pi CLI against the fake model
//! (its shell tool writes the files), a temporary git repository per test. Run with
//! `scripts/app-e2e.sh app_files`; without the app or Pi the tests skip. Screenshots land in
//! `test-artifacts/app_files_*/`.

use crate::app_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{anyhow, bail, ensure, Result};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(30);

/// A git repository with one commit, in a folder of the test's own.
fn repository(parent: &Path) -> Result<PathBuf> {
    let repo = parent.join("repo");
    std::fs::create_dir_all(&repo)?;
    git(&repo, &["init", "-q", "-b", "main"])?;
    std::fs::write(repo.join("README.md"), "a test repository\n")?;
    git(&repo, &["add", "README.md"])?;
    git(&repo, &["commit", "-q", "-m", "initial"])?;
    Ok(repo)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| format!("<{e}>"))
}

/// The prompt whose turn writes `text` into notes.txt (Pi's shell tool, run in the thread's
/// folder).
fn write_notes(text: &str) -> String {
    format!("RUN_COMMAND `printf '{text}\\n' > notes.txt`")
}

/// Opens the sidebar's menu of a thread.
async fn thread_menu(client: &Client, thread_id: &str) -> Result<()> {
    let css = format!(r#"button.thread[data-thread-id="{thread_id}"]"#);
    wait_css(client, &css, WAIT).await?;
    context_menu(client, &css).await
}

/// The text of the first element matching `css` (as the user reads it).
async fn text_of(client: &Client, css: &str) -> Result<String> {
    wait_css(client, css, WAIT).await?;
    let v = js_args(
        client,
        "return document.querySelector(arguments[0])?.textContent ?? '';",
        vec![json!(css)],
    )
    .await?;
    Ok(v.as_str().unwrap_or_default().to_owned())
}

/// The active conversation's thread id and folder.
async fn active_thread(client: &Client) -> Result<(String, PathBuf)> {
    let v = wait_js(
        client,
        r#"(() => {
            const c = document.querySelector('[data-conversation]');
            const cwd = c?.querySelector('.conv-head__cwd')?.getAttribute('title');
            return c && cwd ? [c.dataset.conversation, cwd] : null;
        })()"#,
        WAIT,
        "the active conversation",
    )
    .await?;
    let id = v[0].as_str().ok_or_else(|| anyhow!("no thread id"))?;
    let cwd = v[1].as_str().ok_or_else(|| anyhow!("no folder"))?;
    Ok((id.to_owned(), PathBuf::from(cwd)))
}

/// Runs `body` against a launched app; a failure takes a screenshot first.
async fn run(
    env: &AppEnv,
    shots: &mut Shots,
    body: impl AsyncFnOnce(&Client, &mut Shots) -> Result<()>,
) -> Result<()> {
    let client = env.launch().await?;
    let result = body(&client, shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        shots.keep_app_log(env);
    }
    client.close().await.ok();
    result
}

/// (a) fork after turn 1 into a worktree: the fork's window shows its worktree and branch, and
/// the worktree holds turn 1's notes.txt; (b) Changes in this fork lists notes.txt as modified
/// after a turn in it, Bring back refuses in words while the source moved on, then applies;
/// (d) archiving the fork offers to remove its worktree, names the changed file, and removes it
/// only once confirmed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_pi_fork_into_worktree_changes_and_archive() -> Result<()> {
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
    let mut shots = Shots::new("app_files_pi_worktree")?;
    run(&env, &mut shots, async |client, shots| {
        worktree_session(client, &repo, shots).await
    })
    .await
}

async fn worktree_session(client: &Client, repo: &Path, shots: &mut Shots) -> Result<()> {
    let main = client.window().await?;
    let source = new_thread(client, "pi", repo, &write_notes("turn 1")).await?;
    ensure!(
        read(&repo.join("notes.txt")) == "turn 1\n",
        "turn 1 wrote {:?}",
        read(&repo.join("notes.txt"))
    );
    send_prompt(client, &write_notes("turn 2")).await?;
    wait_turn_done(client, 2).await?;
    ensure!(
        read(&repo.join("notes.txt")) == "turn 2\n",
        "turn 2 wrote {:?}",
        read(&repo.join("notes.txt"))
    );
    // The header says the folder is in git, with checkpoints.
    wait_css(client, r#".conv-head [data-folder-kind="folder"]"#, WAIT).await?;
    shots.take(client, "source-two-turns").await;

    // The repository's setup command, set in the app (the header's Setup…): `pwd`, whose
    // output in the fork's window proves it ran in the new worktree.
    click(client, r#".conv-head [data-action="setup-command"]"#).await?;
    wait_css(
        client,
        r#"[data-field="setup-command"]:not([disabled])"#,
        WAIT,
    )
    .await?;
    type_into(client, r#"[data-field="setup-command"]"#, "pwd").await?;
    click(client, r#"[data-action="setup-save"]"#).await?;
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog="setup-command"]')"#,
        WAIT,
        "the setup dialog to close",
    )
    .await?;

    // (a) Fork after turn 1's reply, choosing the worktree from the Fork menu.
    fork_from_menu(client, 1, "New worktree with the files as of this message").await?;
    let chip = wait_css(client, r#".conv-head [data-folder-kind="worktree"]"#, WAIT).await?;
    let branch = chip.attr("data-branch").await?.unwrap_or_default();
    ensure!(
        branch.starts_with("forkhost/"),
        "the worktree's branch is {branch:?}"
    );
    let chip_text = text_of(client, r#".conv-head [data-folder-kind="worktree"]"#).await?;
    ensure!(
        chip_text.contains(&branch),
        "the chip says {chip_text:?}, not its branch {branch}"
    );
    let (fork, worktree) = active_thread(client).await?;
    ensure!(fork != source, "the fork window shows the source");
    ensure!(worktree != repo, "the fork runs in the source's folder");
    // The worktree is filled after the fork opened; its setup command runs once it is.
    wait_css(client, r#"[data-worktree-setup="done"]"#, WAIT).await?;
    ensure!(
        read(&worktree.join("notes.txt")) == "turn 1\n",
        "the worktree's notes.txt is {:?}, not turn 1's",
        read(&worktree.join("notes.txt"))
    );
    ensure!(
        read(&repo.join("notes.txt")) == "turn 2\n",
        "the source's folder changed"
    );
    wait_css(client, r#"[data-worktree-setup="done"]"#, WAIT).await?;
    let setup_output = text_of(client, r#"[data-worktree-setup="done"] pre"#).await?;
    ensure!(
        Path::new(setup_output.trim()).canonicalize().ok() == worktree.canonicalize().ok(),
        "the setup command printed {setup_output:?}, not the worktree {}",
        worktree.display()
    );
    shots.take(client, "fork-window-worktree").await;

    // (b) A turn in the fork, then Changes in this fork.
    send_prompt(client, &write_notes("fork")).await?;
    wait_turn_done(client, 2).await?;
    ensure!(
        read(&worktree.join("notes.txt")) == "fork\n",
        "the fork's turn wrote elsewhere"
    );
    ensure!(
        read(&repo.join("notes.txt")) == "turn 2\n",
        "the fork's turn wrote into the source"
    );
    // Compare (from the fork's header): turn 1 once, then each one's turn 2 side by side, and
    // the difference between their current files.
    click(client, r#".conv-head [data-action="compare"]"#).await?;
    click(client, &format!(r#"[data-compare-with="{source}"]"#)).await?;
    wait_css(
        client,
        r#"[data-dialog="compare"] [data-file-path="notes.txt"][data-status="modified"]"#,
        WAIT,
    )
    .await?;
    wait_css(
        client,
        r#"[data-dialog="compare"] [data-shared-turns="1"]"#,
        WAIT,
    )
    .await?;
    let left = text_of(client, r#"[data-compare-side="a"]"#).await?;
    let right = text_of(client, r#"[data-compare-side="b"]"#).await?;
    ensure!(
        left.contains("printf 'fork") && right.contains("printf 'turn 2"),
        "the branches side by side read {left:?} | {right:?}"
    );
    let code = text_of(client, r#"[data-dialog="compare"] [data-diff-text]"#).await?;
    ensure!(
        code.contains("-fork") && code.contains("+turn 2"),
        "the compare diff reads {code:?}"
    );
    shots.take(client, "compare-view").await;
    click(
        client,
        r#"[data-dialog="compare"] button[aria-label="Close"]"#,
    )
    .await?;
    click(client, r#"[data-action="show-changes"]"#).await?;
    wait_css(
        client,
        r#"[data-dialog="changes"] [data-file-path="notes.txt"][data-status="modified"]"#,
        WAIT,
    )
    .await?;
    let diff = text_of(client, r#"[data-dialog="changes"] [data-diff-text]"#).await?;
    ensure!(
        diff.contains("-turn 1") && diff.contains("+fork"),
        "the diff reads {diff:?}"
    );
    let counts = js(
        client,
        r#"const f = document.querySelector('[data-file-path="notes.txt"]');
           return [f.querySelector('[data-added]').dataset.added, f.querySelector('[data-removed]').dataset.removed];"#,
    )
    .await?;
    ensure!(
        counts == json!(["1", "1"]),
        "notes.txt's counts are {counts}"
    );
    shots.take(client, "changes-view").await;

    // Bring back to the source: refused in words while its notes.txt moved on (turn 2)...
    click(client, r#"[data-action="bring-back"]"#).await?;
    let words = text_of(client, r#"[data-bring-back-result="conflict"]"#).await?;
    ensure!(
        words.contains("notes.txt"),
        "the conflict does not name the file: {words:?}"
    );
    ensure!(
        read(&repo.join("notes.txt")) == "turn 2\n",
        "a refused bring back changed the source"
    );
    shots.take(client, "bring-back-conflict").await;
    // ... and applied once the source's file is back as at the fork point.
    std::fs::write(repo.join("notes.txt"), "turn 1\n")?;
    click(client, r#"[data-action="bring-back"]"#).await?;
    wait_css(
        client,
        r#"[data-bring-back-result="applied"] [data-applied-path="notes.txt"]"#,
        WAIT,
    )
    .await?;
    ensure!(
        read(&repo.join("notes.txt")) == "fork\n",
        "bring back left the source's notes.txt {:?}",
        read(&repo.join("notes.txt"))
    );
    let head = git(repo, &["log", "--oneline"])?;
    ensure!(
        head.lines().count() == 1,
        "bring back committed in the source: {head}"
    );
    shots.take(client, "bring-back-applied").await;
    click(
        client,
        r#"[data-dialog="changes"] button[aria-label="Close"]"#,
    )
    .await?;

    // (d) Archive the fork from the main window's sidebar: the dialog names the changed file;
    // nothing is removed until confirmed.
    client.switch_to_window(main.clone()).await?;
    thread_menu(client, &fork).await?;
    menu_item(client, "Archive").await?;
    wait_css(
        client,
        r#"[data-dialog="archive"] [data-loss-file="notes.txt"]"#,
        WAIT,
    )
    .await?;
    let said = text_of(client, r#"[data-dialog="archive"] [data-loses="true"]"#).await?;
    ensure!(
        said.contains("notes.txt"),
        "the archive dialog says {said:?}"
    );
    ensure!(
        worktree.exists(),
        "the worktree was removed before the user confirmed"
    );
    shots.take(client, "archive-loss").await;
    click(client, r#"[data-action="archive-remove-worktree"]"#).await?;
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog="archive"]')"#,
        WAIT,
        "the archive dialog to close",
    )
    .await?;
    let deadline = std::time::Instant::now() + WAIT;
    while worktree.exists() {
        if std::time::Instant::now() > deadline {
            bail!(
                "the worktree {} is still there after confirming",
                worktree.display()
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    ensure!(
        read(&repo.join("notes.txt")) == "fork\n",
        "removing the worktree touched the source"
    );

    // "Same folder" from the Fork menu: the fork works in the source's folder.
    fork_from_menu(client, 2, "Same folder").await?;
    wait_css(client, r#".conv-head [data-folder-kind="folder"]"#, WAIT).await?;
    let (_, same) = active_thread(client).await?;
    ensure!(
        std::fs::canonicalize(&same)? == std::fs::canonicalize(repo)?,
        "a same-folder fork works in {}",
        same.display()
    );

    // A worktree the user deletes by hand: the fork's window says its folder is gone (with
    // Remove worktree and Archive), instead of errors.
    client.switch_to_window(main.clone()).await?;
    fork_from_menu(client, 1, "New worktree with the files as of this message").await?;
    wait_css(client, r#".conv-head [data-folder-kind="worktree"]"#, WAIT).await?;
    let (_, second) = active_thread(client).await?;
    std::fs::remove_dir_all(&second)?;
    js(client, "location.reload(); return true;").await?;
    wait_css(
        client,
        r#"[data-folder-gone="true"] [data-action="remove-worktree"]"#,
        WAIT,
    )
    .await?;
    wait_css(
        client,
        r#"[data-folder-gone="true"] [data-action="archive"]"#,
        WAIT,
    )
    .await?;
    wait_css(client, r#".conv-head [data-folder-kind="gone"]"#, WAIT).await?;
    shots.take(client, "folder-gone").await;
    wait_js(
        client,
        &format!(r#"!document.querySelector('button.thread[data-thread-id="{fork}"]')"#),
        WAIT,
        "the archived fork to leave the sidebar",
    )
    .await?;
    Ok(())
}

/// A worktree fork opens before its files are written: its header says "Preparing files", a
/// prompt sent meanwhile says it waits for them, and goes out (and runs in the complete tree)
/// once they are there. A smudge filter holds the fill until the test lets it go.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_pi_fork_opens_before_its_files_and_its_prompt_waits() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(harness) = HarnessEnv::for_fake(Harness::Pi, &model)? else {
        return Ok(());
    };
    let scratch = tempfile::tempdir()?;
    let repo = repository(scratch.path())?;
    let release = scratch.path().join("release");
    std::fs::write(repo.join(".gitattributes"), "*.dat filter=held\n")?;
    let smudge = format!(
        "sh -c 'while [ ! -e \"{}\" ]; do sleep 0.02; done; cat'",
        release.display()
    );
    // The app's own global git config (Forkhost runs no filter driver of the repository's own
    // `.git/config`, review M-6; the user's global ones it runs, as git would).
    let global = scratch.path().join("gitconfig");
    let set = std::process::Command::new("git")
        .args(["config", "--file"])
        .arg(&global)
        .args(["filter.held.smudge", &smudge])
        .status()?;
    ensure!(set.success(), "git config --file {}", global.display());
    std::fs::write(repo.join("held.dat"), "held until released\n")?;
    git(&repo, &["add", "-A"])?;
    git(&repo, &["commit", "-q", "-m", "a held file"])?;
    let vars = [("GIT_CONFIG_GLOBAL".to_owned(), global.display().to_string())];
    let env = AppEnv::with_vars(&app, Some(&harness), &vars)?;
    let mut shots = Shots::new("app_files_pi_preparing")?;
    run(&env, &mut shots, async |client, shots| {
        new_thread(client, "pi", &repo, &write_notes("turn 1")).await?;
        fork_from_menu(client, 1, "New worktree with the files as of this message").await?;
        let bar = text_of(client, "[data-files-preparing]").await?;
        ensure!(bar.contains("Preparing files"), "the header says {bar:?}");
        send_prompt(client, "RUN_COMMAND `cat held.dat`").await?;
        let state = wait_js(
            client,
            r#"document.querySelector('[data-runtime-state]')?.textContent.includes("Waiting for the fork's files") || null"#,
            WAIT,
            "the composer to say the prompt waits for the files",
        )
        .await?;
        ensure!(state == true);
        shots.take(client, "fork-preparing-files").await;
        // Still waiting, the prompt shown as the live turn, after the screenshot too.
        let waiting = js(
            client,
            r#"return [document.querySelector('[data-runtime-state]')?.textContent ?? '',
                       [...document.querySelectorAll('[data-live]')].map(e => e.textContent).join(' ')];"#,
        )
        .await?;
        ensure!(
            waiting[0].as_str().unwrap_or_default().contains("Waiting for the fork's files")
                && waiting[1].as_str().unwrap_or_default().contains("cat held.dat"),
            "after the screenshot: {waiting}"
        );
        let asked = model.model_requests().len();
        tokio::time::sleep(Duration::from_millis(500)).await;
        ensure!(
            model.model_requests().len() == asked,
            "the prompt went out before the files were there"
        );
        std::fs::write(&release, "")?;
        wait_js(
            client,
            "!document.querySelector('[data-files-preparing]') || null",
            WAIT,
            "the header's progress to go",
        )
        .await?;
        wait_turn_done(client, 2).await?;
        let last = model
            .last_model_request()
            .ok_or_else(|| anyhow!("the model saw nothing"))?;
        ensure!(
            last.dialogue()
                .iter()
                .any(|m| m.text.contains("held until released")),
            "the prompt ran before the files were there"
        );
        shots.take(client, "fork-files-ready").await;
        Ok(())
    })
    .await
}

/// (c) New thread in a folder with `.pi/` asks whether to trust it (text naming the folder and
/// what was found); Cancel creates nothing, Trust creates the thread and it runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_pi_new_thread_asks_folder_trust() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(harness) = HarnessEnv::for_fake(Harness::Pi, &model)? else {
        return Ok(());
    };
    let scratch = tempfile::tempdir()?;
    let project = scratch.path().join("project");
    std::fs::create_dir_all(project.join(".pi"))?;
    let env = AppEnv::new(&app, Some(&harness))?;
    let mut shots = Shots::new("app_files_pi_trust")?;
    run(&env, &mut shots, async |client, shots| {
        trust_session(client, &project, shots).await
    })
    .await
}

async fn open_new_thread(client: &Client, folder: &Path, prompt: &str) -> Result<()> {
    click(client, r#"button[data-action="new-thread"]"#).await?;
    wait_css(client, r#"[data-dialog="new-thread"]"#, WAIT).await?;
    let radio = r#"input[data-harness="pi"]"#;
    wait_js(
        client,
        &format!(
            r#"document.querySelector('{radio}') && !document.querySelector('{radio}').disabled"#
        ),
        WAIT,
        "Pi to be available",
    )
    .await?;
    js(
        client,
        &format!(r#"document.querySelector('{radio}').click(); return true;"#),
    )
    .await?;
    wait_css(
        client,
        r#"[data-dialog="new-thread"] [data-mode-picker="pi"]"#,
        WAIT,
    )
    .await?;
    let cwd = wait_css(client, r#"input[data-field="cwd"]"#, WAIT).await?;
    cwd.clear().await.ok();
    cwd.send_keys(&folder.to_string_lossy()).await?;
    type_into(client, r#"textarea[data-field="prompt"]"#, prompt).await?;
    Ok(())
}

async fn trust_session(client: &Client, project: &Path, shots: &mut Shots) -> Result<()> {
    open_new_thread(client, project, "hello there").await?;
    // A click on a button still disabled (its harness's report coming in on a loaded machine)
    // does nothing and says nothing: wait until it can be pressed.
    wait_js(
        client,
        r#"document.querySelector('button[data-action="create-thread"]')?.disabled === false"#,
        WAIT,
        "Start thread to be enabled",
    )
    .await?;
    start_thread(client).await?;
    let question = text_of(client, r#"[data-dialog="trust"] [data-trust-question]"#).await?;
    let root = std::fs::canonicalize(project)?;
    ensure!(
        question.contains(&*root.to_string_lossy())
            && question.contains(".pi")
            && question.contains("Trust this folder?"),
        "the trust question reads {question:?}"
    );
    shots.take(client, "trust-dialog").await;

    // Cancel: nothing is created, the New thread dialog is still there.
    click(client, r#"[data-action="trust-cancel"]"#).await?;
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog="trust"]')"#,
        WAIT,
        "the trust dialog to close",
    )
    .await?;
    ensure!(
        js(
            client,
            r#"return !!document.querySelector('[data-dialog="new-thread"]')"#
        )
        .await?
            == true,
        "Cancel closed the New thread dialog"
    );
    let (tabs_now, _) = tabs(client).await?;
    ensure!(tabs_now.is_empty(), "Cancel created a thread: {tabs_now:?}");

    // Trust: the thread is created and its first turn runs.
    start_thread(client).await?;
    click(client, r#"[data-dialog="trust"] [data-action="trust-yes"]"#).await?;
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog="new-thread"]')"#,
        WAIT,
        "the New thread dialog to close",
    )
    .await?;
    wait_turn_done(client, 1).await?;
    let (tabs_now, active) = tabs(client).await?;
    ensure!(
        tabs_now.len() == 1 && active.is_some(),
        "after Trust: tabs {tabs_now:?}"
    );
    shots.take(client, "trusted-thread").await;

    // Asked once: a second thread there starts without the question.
    open_new_thread(client, project, "again").await?;
    start_thread(client).await?;
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog="new-thread"]') || !!document.querySelector('[data-dialog="trust"]')"#,
        WAIT,
        "the second thread to start",
    )
    .await?;
    ensure!(
        js(
            client,
            r#"return !document.querySelector('[data-dialog="trust"]')"#
        )
        .await?
            == true,
        "the folder's trust was asked a second time"
    );
    Ok(())
}
