//! The desktop app as a user sees it: the built app under a virtual display, driven over
//! WebDriver (tauri-driver → WebKitWebDriver). Run it with `scripts/app-e2e.sh`, which builds
//! the UI and the app, starts Xvfb and tauri-driver, and sets the environment:
//!
//! - `FORKHOST_APP_BINARY`: the built app (`target/debug/forkhost-app`). Unset → the test is
//!   skipped, so a plain `cargo test --workspace` passes without a display.
//! - `FORKHOST_WEBDRIVER_URL`: tauri-driver's address (default `http://127.0.0.1:4444`).
//!
//! WebDriver tests are serial: one app session at a time. Checks return errors rather than
//! panic, so the screenshot is taken and the session (and with it the app) always ends.

use crate::app_support;

use std::path::{Path, PathBuf};

use anyhow::{ensure, Context, Result};
use app_support::{
    check_shell_frame, save_screenshot, start_session, wait_for_log_line, write_launcher,
};
use fantoccini::{Client, Locator};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_shell_starts_with_an_empty_shell() -> Result<()> {
    let Some(app_binary) = std::env::var_os("FORKHOST_APP_BINARY").map(PathBuf::from) else {
        return Ok(());
    };
    ensure!(
        app_binary.is_file(),
        "FORKHOST_APP_BINARY={} is not a file; build it with `cargo build -p forkhost-app`",
        app_binary.display()
    );
    let webdriver_url = std::env::var("FORKHOST_WEBDRIVER_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:4444".to_owned());

    // A fresh data folder for this app only. tauri-driver has no way to set the app's
    // environment per session, so the app is started through a tiny wrapper that sets it.
    let scratch = tempfile::tempdir()?;
    let data_dir = scratch.path().join("data");
    let launcher = write_launcher(scratch.path(), &app_binary, &data_dir)?;

    let client = start_session(&webdriver_url, &launcher).await?;
    let checked = check_shell(&client, &data_dir).await;
    // Keep a screenshot whether or not the checks passed, then always end the session (which
    // ends the app) before reporting.
    let shot = save_screenshot(&client, "app_shell").await;
    let closed = client.close().await;
    checked?;
    let shot = shot?;
    closed.context("ending the WebDriver session")?;
    println!("screenshot: {}", shot.display());
    Ok(())
}

async fn check_shell(client: &Client, data_dir: &Path) -> Result<()> {
    check_shell_frame(client).await?;

    let threads_empty = client
        .find(Locator::Css(r#"[data-empty="threads"]"#))
        .await
        .context("empty Threads list")?;
    ensure!(
        threads_empty.is_displayed().await?,
        "the Threads empty state is not visible"
    );
    let text = threads_empty.text().await?;
    ensure!(
        text.contains("No threads yet"),
        "Threads empty state: {text:?}"
    );

    let main_empty = client
        .find(Locator::Css(r#"[data-empty="workspace"]"#))
        .await
        .context("main pane empty state")?;
    ensure!(
        main_empty.is_displayed().await?,
        "the main pane's empty state is not visible"
    );
    let text = main_empty.text().await?;
    ensure!(
        text.contains("No thread open") && text.contains("New thread"),
        "main pane empty state: {text:?}"
    );

    let version = client
        .find(Locator::Css("[data-app-version]"))
        .await
        .context("version in the sidebar footer (app_info over IPC)")?;
    let crate_version = env!("CARGO_PKG_VERSION");
    let attr = version.attr("data-app-version").await?;
    ensure!(
        attr.as_deref() == Some(crate_version),
        "data-app-version is {attr:?}, expected the crate version {crate_version}"
    );
    let version_text = version.text().await?;
    ensure!(
        version_text.contains(crate_version),
        "footer shows {version_text:?}, expected the crate version {crate_version}"
    );

    // The app created its data folder with a log folder holding today's log file.
    let log_file = wait_for_log_line(&data_dir.join("logs"), "forkhost app started").await?;
    println!("log file: {}", log_file.display());
    Ok(())
}
