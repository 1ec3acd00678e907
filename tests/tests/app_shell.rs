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

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::json;

const READY: &str = r#"[data-app-ready="true"]"#;
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_shell_starts_with_an_empty_shell() -> Result<()> {
    let Some(app_binary) = std::env::var_os("FORKHOST_APP_BINARY").map(PathBuf::from) else {
        println!("skipped: FORKHOST_APP_BINARY not set");
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
    client
        .wait()
        .at_most(STARTUP_TIMEOUT)
        .for_element(Locator::Css(READY))
        .await
        .with_context(|| format!("the shell never set {READY} within {STARTUP_TIMEOUT:?}"))?;

    let title = client.title().await?;
    ensure!(
        title == "Forkhost",
        "window title is {title:?}, expected \"Forkhost\""
    );

    let new_thread = client
        .find(Locator::Css(r#"button[data-action="new-thread"]"#))
        .await
        .context("New thread button")?;
    ensure!(
        new_thread.is_displayed().await?,
        "New thread is not visible"
    );
    let label = new_thread.text().await?;
    ensure!(
        label.trim() == "New thread",
        "New thread button says {label:?}"
    );

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

async fn start_session(webdriver_url: &str, launcher: &Path) -> Result<Client> {
    let mut caps = fantoccini::wd::Capabilities::new();
    caps.insert(
        "tauri:options".into(),
        json!({ "application": launcher, "args": [] }),
    );
    caps.insert("browserName".into(), json!("wry"));
    ClientBuilder::new(HttpConnector::new())
        .capabilities(caps)
        .connect(webdriver_url)
        .await
        .with_context(|| format!("WebDriver session at {webdriver_url} (is tauri-driver running?)"))
}

/// A launcher script that runs the app with `FORKHOST_DATA_DIR` set to `data_dir`.
fn write_launcher(dir: &Path, app_binary: &Path, data_dir: &Path) -> Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("forkhost-app-launcher");
    let script = format!(
        "#!/bin/sh\nFORKHOST_DATA_DIR={}\nexport FORKHOST_DATA_DIR\nexec {} \"$@\"\n",
        sh_quote(&data_dir.to_string_lossy()),
        sh_quote(&std::fs::canonicalize(app_binary)?.to_string_lossy()),
    );
    std::fs::write(&path, script)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    Ok(path)
}

fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Waits until a file in `log_dir` contains `needle` (the writer is non-blocking).
async fn wait_for_log_line(log_dir: &Path, needle: &str) -> Result<PathBuf> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Ok(entries) = std::fs::read_dir(log_dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_file()
                    && std::fs::read_to_string(&path).is_ok_and(|text| text.contains(needle))
                {
                    return Ok(path);
                }
            }
        }
        if Instant::now() > deadline {
            bail!("no log file in {} contains {needle:?}", log_dir.display());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Saves a PNG of the window into `test-artifacts/` at the repository root.
async fn save_screenshot(client: &Client, name: &str) -> Result<PathBuf> {
    let png = client.screenshot().await.context("taking a screenshot")?;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-artifacts");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, png)?;
    Ok(path.canonicalize().unwrap_or(path))
}
