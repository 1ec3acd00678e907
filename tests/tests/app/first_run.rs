//! A newcomer's first run of the desktop app (issue 26), with no harness on PATH and no
//! `FORKHOST_*_BIN`: the empty window is the first-run view, listing Claude Code, Codex, Pi and OpenCode
//! as not installed with the command that installs each; Choose its file… pointed at the pinned
//! Pi makes it ready, New thread then preselects Pi (the only one usable) and a thread runs
//! against the fake model. A Codex stand-in that answers `login status` with "Not logged in" is
//! shown as installed but not signed in. Screenshots: `test-artifacts/app_first_run*/`.

use crate::app_support;

use std::path::Path;
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use app_support::{
    app_binary, click, js, js_args, wait_css, wait_js, wait_turn_done, AppEnv, Shots,
};
use fantoccini::Client;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use serde_json::json;

/// How long the first harness reports (versions and sign-in checks) may take.
const DOCTOR: Duration = Duration::from_secs(60);

/// The app's variables for "nothing installed": the harness binaries blanked (an empty
/// override counts as unset), and a PATH holding only the system's folders and `bin_dir`.
fn nothing_installed(bin_dir: &Path, home: Option<&Path>) -> Vec<(String, String)> {
    let mut vars: Vec<(String, String)> = [
        "FORKHOST_CLAUDE_BIN",
        "FORKHOST_CODEX_BIN",
        "FORKHOST_PI_BIN",
        "FORKHOST_OPENCODE_BIN",
    ]
    .into_iter()
    .map(|v| (v.to_owned(), String::new()))
    .collect();
    vars.push((
        "PATH".into(),
        format!("{}:/usr/bin:/bin", bin_dir.display()),
    ));
    if let Some(home) = home {
        vars.push(("HOME".into(), home.display().to_string()));
    }
    vars
}

/// Runs `body` against a launched app; always ends the session, with a screenshot on failure.
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

/// The state (`data-state`) of a harness's card in the first-run list.
async fn card_state(client: &Client, scope: &str, name: &str) -> Result<String> {
    let v = js_args(
        client,
        r#"const [scope, name] = arguments;
           const c = document.querySelector(`${scope} .setup-card[data-harness="${name}"]`);
           return c ? c.dataset.state : null;"#,
        vec![json!(scope), json!(name)],
    )
    .await?;
    Ok(v.as_str().unwrap_or_default().to_owned())
}

async fn wait_card(client: &Client, scope: &str, name: &str, state: &str) -> Result<()> {
    wait_js(
        client,
        &format!(
            r#"(() => {{ const c = document.querySelector('{scope} .setup-card[data-harness="{name}"]'); return c && c.dataset.state === '{state}'; }})()"#
        ),
        DOCTOR,
        &format!("{name} to show as {state}"),
    )
    .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_first_run_leads_from_nothing_installed_to_a_pi_thread() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    // Pi's temporary HOME pointed at the fake model; its binary is what the user will choose.
    let Some(pi) = HarnessEnv::for_fake(Harness::Pi, &model)? else {
        return Ok(());
    };
    let pi_bin = pi.bin().context("the pinned Pi")?.to_path_buf();
    let empty_bin = pi.root().join("empty-bin");
    std::fs::create_dir_all(&empty_bin)?;
    let env = AppEnv::with_vars(&app, Some(&pi), &nothing_installed(&empty_bin, None))?;
    let mut shots = Shots::new("app_first_run")?;
    let mut failure = Shots::new("app_first_run_failure")?;
    let shots_ref = &mut shots;
    let (pi_bin, work) = (&pi_bin, pi.work_dir().to_path_buf());
    let model = &model;
    with_app(&env, &mut failure, |client| async move {
        let result = newcomer(&client, shots_ref, pi_bin, &work, model).await;
        (client, result)
    })
    .await
}

async fn newcomer(
    client: &Client,
    shots: &mut Shots,
    pi_bin: &Path,
    work: &Path,
    model: &FakeModel,
) -> Result<()> {
    // Without hovering or opening anything: the empty window is the first-run view.
    let welcome = r#"[data-empty="workspace"][data-first-run="true"]"#;
    wait_css(client, welcome, DOCTOR)
        .await
        .context("the empty window should be the first-run view with nothing installed")?;
    for name in ["claude", "codex", "pi", "opencode"] {
        wait_card(client, welcome, name, "missing").await?;
    }
    let text = js(
        client,
        r#"return document.querySelector('[data-empty="workspace"]').innerText;"#,
    )
    .await?;
    let text = text.as_str().unwrap_or_default();
    for command in [
        "npm install -g @anthropic-ai/claude-code",
        "npm install -g @openai/codex",
        "npm install -g @earendil-works/pi-coding-agent",
        "curl -fsSL https://claude.ai/install.sh | bash",
    ] {
        ensure!(text.contains(command), "{command:?} is not shown:\n{text}");
    }
    ensure!(
        !text.contains("FORKHOST_") && !text.contains("not on PATH"),
        "the first-run view names variables or developer words:\n{text}"
    );
    // WebKit may still show an earlier frame (before the reports came in): let it repaint.
    tokio::time::sleep(Duration::from_secs(1)).await;
    shots.take(client, "none-found").await;

    // Choose its file… (the OS dialog is stood in for: WebDriver cannot drive it).
    js_args(
        client,
        "window.__forkhostPickFile = arguments[0]; return true;",
        vec![json!(pi_bin.to_string_lossy())],
    )
    .await?;
    click(client, r#"[data-action="choose-file-pi"]"#).await?;
    // With one agent ready the window is the usual empty one; the first-run view stays a click
    // away (as from Help ▸ Set Up Agents…).
    wait_css(
        client,
        r#"[data-empty="workspace"] [data-action="open-first-run"]"#,
        DOCTOR,
    )
    .await
    .context("choosing Pi's file should make it ready")?;
    click(client, r#"[data-action="open-first-run"]"#).await?;
    let dialog = r#"[data-dialog="first-run"]"#;
    wait_card(client, dialog, "pi", "ready").await?;
    ensure!(card_state(client, dialog, "claude").await? == "missing");
    shots.take(client, "one-found").await;

    // New thread from the first-run view: Pi is preselected, Start thread says what it waits for.
    click(client, r#"[data-action="first-run-new-thread"]"#).await?;
    wait_css(
        client,
        r#"[data-dialog="new-thread"]"#,
        Duration::from_secs(10),
    )
    .await?;
    wait_js(
        client,
        r#"document.querySelector('input[data-harness="pi"]')?.checked === true"#,
        DOCTOR,
        "Pi to be preselected",
    )
    .await?;
    let why = js(
        client,
        r#"return document.querySelector('[data-harness-why="codex"]')?.innerText ?? null;"#,
    )
    .await?;
    ensure!(
        why.as_str()
            .is_some_and(|w| w.contains("npm install -g @openai/codex")),
        "New thread should say why Codex can't start: {why}"
    );
    let cwd = wait_css(client, r#"input[data-field="cwd"]"#, Duration::from_secs(5)).await?;
    cwd.clear().await.ok();
    let blocker = js(
        client,
        r#"return document.querySelector('[data-start-blocker]')?.innerText ?? null;"#,
    )
    .await?;
    ensure!(
        blocker.as_str() == Some("Choose a project folder"),
        "Start thread should say it needs a folder: {blocker}"
    );
    cwd.send_keys(&work.to_string_lossy()).await?;
    app_support::type_into(
        client,
        r#"textarea[data-field="prompt"]"#,
        "hello from a newcomer",
    )
    .await?;
    app_support::start_thread(client).await?;
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog="new-thread"]')"#,
        Duration::from_secs(30),
        "the New thread dialog to close",
    )
    .await?;
    wait_turn_done(client, 1).await?;
    let last = model
        .last_model_request()
        .context("the fake model got no request")?;
    ensure!(
        last.last_user_text() == Some("hello from a newcomer"),
        "the model saw {:?}",
        last.last_user_text()
    );
    shots.take(client, "pi-thread").await;
    Ok(())
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_first_run_shows_a_codex_that_is_not_signed_in() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let scratch = tempfile::tempdir()?;
    let home = scratch.path().join("home");
    let bin = scratch.path().join("bin");
    std::fs::create_dir_all(&home)?;
    std::fs::create_dir_all(&bin)?;
    // Answers like codex-cli 0.171.0 with an empty CODEX_HOME.
    let codex = bin.join("codex");
    forkhost_test_script::write_executable(
        &codex,
        "#!/bin/sh\ncase \"$1 $2\" in\n  --version*) echo 'codex-cli 0.171.0' ;;\n  'login status') echo 'Not logged in' >&2; exit 1 ;;\n  *) exit 2 ;;\nesac\n",
    )?;
    let env = AppEnv::with_vars(&app, None, &nothing_installed(&bin, Some(&home)))?;
    let mut shots = Shots::new("app_first_run_signed_out")?;
    let mut failure = Shots::new("app_first_run_signed_out_failure")?;
    let shots_ref = &mut shots;
    with_app(&env, &mut failure, |client| async move {
        let result = async {
            let welcome = r#"[data-empty="workspace"][data-first-run="true"]"#;
            wait_css(&client, welcome, DOCTOR).await?;
            wait_card(&client, welcome, "codex", "signed_out").await?;
            let text = js(
                &client,
                r#"return document.querySelector('.setup-card[data-harness="codex"]').innerText;"#,
            )
            .await?;
            let text = text.as_str().unwrap_or_default();
            ensure!(
                text.contains("Not signed in") && text.contains("codex login"),
                "Codex's card: {text}"
            );
            shots_ref.take(&client, "codex-signed-out").await;
            Ok(())
        }
        .await;
        (client, result)
    })
    .await
}
