//! Settings ▸ "Command-line tool" in the real debug app, over WebDriver (run it with
//! `scripts/app-e2e.sh app_cli_tool`): Install links `$HOME/.local/bin/forkhost` to the
//! `forkhost` built beside the app, the UI shows its `--version` and that `~/.local/bin` is not
//! on PATH, Uninstall takes the link away; a `forkhost` that is someone else's is shown as a
//! conflict, stays byte-identical until the user confirms, and is replaced when they do.
//!
//! The app runs with a temp HOME and a PATH without `~/.local/bin`, so the real `~/.local/bin`
//! is never touched. Skipped when `FORKHOST_APP_BINARY` is unset (see app/shell.rs).

use crate::app_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use app_support::*;
use fantoccini::Client;

const SETTLE: Duration = Duration::from_secs(20);
const SYSTEM_PATH: &str = "/usr/local/bin:/usr/bin:/bin";
const FOREIGN: &str = "#!/bin/sh\necho 'forkhost 0.0.0-someone-else'\n";

/// The CLI the app bundles: `forkhost` beside `forkhost-app` (dev builds: `target/debug/`).
fn bundled_cli(app_binary: &Path) -> Result<PathBuf> {
    let cli = app_binary
        .parent()
        .context("the app binary has no folder")?
        .join("forkhost");
    ensure!(
        cli.is_file(),
        "no `forkhost` CLI beside the app at {}: the app's Install action links to it. Build it \
         into the same target folder with `cargo build -p forkhost-cli` (scripts/app-e2e.sh and \
         scripts/test.sh do)",
        cli.display()
    );
    Ok(cli.canonicalize()?)
}

/// An app with `home` as HOME and a PATH that leaves `~/.local/bin` out.
fn app_env(app_binary: &Path, home: &Path) -> Result<AppEnv> {
    AppEnv::with_vars(
        app_binary,
        None,
        &[
            ("HOME".into(), home.to_string_lossy().into_owned()),
            ("PATH".into(), SYSTEM_PATH.into()),
        ],
    )
}

/// Takes a screenshot when `result` failed, then always ends the session (and the app).
async fn finish(client: Client, shots: &mut Shots, result: Result<()>) -> Result<()> {
    if result.is_err() {
        shots.take(&client, "failure").await;
    }
    let closed = client.close().await;
    result?;
    closed.context("ending the WebDriver session")?;
    Ok(())
}

fn status_css(state: &str) -> String {
    format!(r#"[data-cli-tool-status="{state}"]"#)
}

async fn open_settings(client: &Client) -> Result<()> {
    click(client, r#"button[data-action="settings"]"#).await?;
    wait_css(
        client,
        r#"[data-dialog="settings"]"#,
        Duration::from_secs(10),
    )
    .await?;
    wait_js(
        client,
        r#"(() => { const s = document.querySelector('[data-cli-tool-status]')?.dataset.cliToolStatus; return s && s !== 'loading' ? s : null; })()"#,
        SETTLE,
        "the command-line tool's status",
    )
    .await?;
    // The harness cards above the section grow as their reports come in (a loaded machine
    // takes seconds): a click aimed before they settle lands on whatever moved under it.
    wait_js(
        client,
        r#"(() => { const cards = [...document.querySelectorAll('[data-dialog="settings"] .harness-card')]; return cards.length > 0 && cards.every((c) => c.dataset.reported === 'true') ? true : null; })()"#,
        SETTLE,
        "the harness cards' reports",
    )
    .await?;
    Ok(())
}

/// Waits for the section to show `state`; a timeout says what the section shows instead (its
/// text holds the error a failed command left there).
async fn wait_status(client: &Client, state: &str, what: &str) -> Result<()> {
    if let Err(err) = wait_css(client, &status_css(state), SETTLE).await {
        let shown = section_text(client).await.unwrap_or_default();
        return Err(err.context(format!("{what}; the section shows: {shown:?}")));
    }
    Ok(())
}

async fn section_text(client: &Client) -> Result<String> {
    let text = js(
        client,
        r#"return document.querySelector('[data-cli-tool-status]').textContent;"#,
    )
    .await?;
    Ok(text.as_str().unwrap_or_default().to_owned())
}

/// `path --version`, as a terminal would run it.
fn version_of(path: &Path) -> Result<String> {
    let out = std::process::Command::new(path)
        .arg("--version")
        .output()
        .with_context(|| format!("running {} --version", path.display()))?;
    ensure!(out.status.success(), "{} --version failed", path.display());
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_cli_tool_installs_and_uninstalls_the_link() -> Result<()> {
    let Some(app_binary) = app_binary()? else {
        return Ok(());
    };
    let cli = bundled_cli(&app_binary)?;
    let home = tempfile::Builder::new()
        .prefix("forkhost-home-")
        .tempdir()?;
    let link = home.path().join(".local/bin/forkhost");
    let env = app_env(&app_binary, home.path())?;
    let mut shots = Shots::new("app_cli_tool")?;
    let expected = format!("forkhost {}", env!("CARGO_PKG_VERSION"));

    let client = env.launch().await?;
    let result = async {
        {
            open_settings(&client).await?;
            wait_css(&client, &status_css("not_installed"), SETTLE).await?;
            shots.take(&client, "not-installed").await;
            ensure!(
                std::fs::symlink_metadata(&link).is_err(),
                "something is at {} before Install",
                link.display()
            );

            click(&client, r#"button[data-action="cli-tool-install"]"#).await?;
            wait_status(&client, "installed", "the section never said installed").await?;
            shots.take(&client, "installed").await;

            // On disk: a link to the CLI beside the app, which runs.
            let target = std::fs::read_link(&link)
                .with_context(|| format!("{} is not a symlink", link.display()))?;
            ensure!(
                target == cli,
                "{} links to {}, expected {}",
                link.display(),
                target.display(),
                cli.display()
            );
            let version = version_of(&link)?;
            ensure!(version == expected, "{} --version printed {version:?}", link.display());

            // In the UI: that version, and that ~/.local/bin is not on PATH.
            let shown = js(
                &client,
                r#"return document.querySelector('[data-cli-tool-version]')?.dataset.cliToolVersion ?? null;"#,
            )
            .await?;
            ensure!(
                shown.as_str() == Some(expected.as_str()),
                "the UI shows version {shown}, expected {expected:?}"
            );
            let text = section_text(&client).await?;
            ensure!(text.contains(&expected), "section text: {text:?}");
            let warning = wait_css(&client, r#"[data-cli-tool-warning="not_on_path"]"#, SETTLE)
                .await
                .context("the not-on-PATH warning")?
                .text()
                .await?;
            ensure!(
                warning.contains("~/.local/bin is not on your PATH"),
                "warning says {warning:?}"
            );

            click(&client, r#"button[data-action="cli-tool-uninstall"]"#).await?;
            wait_status(&client, "not_installed", "the section never said not installed after Uninstall").await?;
            shots.take(&client, "uninstalled").await;
            ensure!(
                std::fs::symlink_metadata(&link).is_err(),
                "{} is still there after Uninstall",
                link.display()
            );
            ensure!(cli.is_file(), "Uninstall touched the bundled CLI");
            let text = section_text(&client).await?;
            ensure!(text.contains("Not installed"), "section text: {text:?}");
            Ok(())
        }
    }
    .await;
    finish(client, &mut shots, result).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_cli_tool_replaces_a_foreign_forkhost_only_when_confirmed() -> Result<()> {
    let Some(app_binary) = app_binary()? else {
        return Ok(());
    };
    let cli = bundled_cli(&app_binary)?;
    let home = tempfile::Builder::new()
        .prefix("forkhost-home-")
        .tempdir()?;
    let foreign = home.path().join(".local/bin/forkhost");
    std::fs::create_dir_all(foreign.parent().unwrap())?;
    std::fs::write(&foreign, FOREIGN)?;
    let env = app_env(&app_binary, home.path())?;
    let mut shots = Shots::new("app_cli_tool_conflict")?;

    let client = env.launch().await?;
    let result = async {
        {
            open_settings(&client).await?;
            wait_status(&client, "conflict", "the section never showed the conflict").await?;
            let text = section_text(&client).await?;
            ensure!(
                text.contains(&foreign.display().to_string()) && text.contains("already taken"),
                "section text: {text:?}"
            );

            // Install without confirming: the confirm step, nothing written.
            click(&client, r#"button[data-action="cli-tool-install"]"#).await?;
            wait_css(&client, "[data-cli-tool-confirm]", SETTLE).await?;
            shots.take(&client, "confirm").await;
            click(&client, r#"button[data-action="cli-tool-cancel"]"#).await?;
            wait_js(
                &client,
                "!document.querySelector('[data-cli-tool-confirm]')",
                SETTLE,
                "the confirm step to close",
            )
            .await?;
            ensure!(
                std::fs::read_to_string(&foreign)? == FOREIGN
                    && !std::fs::symlink_metadata(&foreign)?
                        .file_type()
                        .is_symlink(),
                "the foreign forkhost changed without confirmation"
            );
            wait_css(&client, &status_css("conflict"), SETTLE).await?;

            // Confirmed: replaced by the link.
            click(&client, r#"button[data-action="cli-tool-install"]"#).await?;
            click(&client, r#"button[data-action="cli-tool-replace"]"#).await?;
            wait_status(
                &client,
                "installed",
                "the section never said installed after Replace",
            )
            .await?;
            shots.take(&client, "replaced").await;
            let target = std::fs::read_link(&foreign)
                .with_context(|| format!("{} is not a symlink after Replace", foreign.display()))?;
            ensure!(
                target == cli,
                "links to {}, expected {}",
                target.display(),
                cli.display()
            );
            let version = version_of(&foreign)?;
            ensure!(
                version == format!("forkhost {}", env!("CARGO_PKG_VERSION")),
                "--version printed {version:?}"
            );
            Ok(())
        }
    }
    .await;
    finish(client, &mut shots, result).await
}
