//! The app's web views stay on the app's own page, and its data folder is private: a script (or
//! a link) navigating the window to a remote page is refused and the link goes to the system
//! browser instead; `window.open` makes no web view; a `file:` URL goes nowhere; the store and
//! log files are `0600` in `0700` folders. Run by `scripts/app-e2e.sh` (see `app/shell.rs`).
//!
//! The "system browser" is a stand-in `xdg-open` first on the app's PATH that writes down what
//! it was asked to open.
#![cfg(unix)]

use crate::app_support;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use app_support::{app_binary, js, wait_for_log_line, AppEnv, Shots};
use fantoccini::{Client, Locator};

const APP_ORIGIN: &str = "tauri://localhost";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_windows_stay_on_the_app_and_links_open_in_the_browser() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let fake = tempfile::tempdir()?;
    let opened = fake.path().join("opened.txt");
    let bin = fake.path().join("bin");
    std::fs::create_dir(&bin)?;
    let xdg_open = bin.join("xdg-open");
    forkhost_test_script::write_executable(
        &xdg_open,
        &format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" >> {}\n",
            app_support::sh_quote(&opened.to_string_lossy())
        ),
    )?;
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let env = AppEnv::with_vars(&app, None, &[("PATH".into(), path)])?;
    let client = env.launch().await?;
    let mut shots = Shots::new("app_navigation")?;
    let checked = check(&client, &opened, &env.data_dir).await;
    shots.take(&client, "after").await;
    let closed = client.close().await;
    checked?;
    closed.context("ending the WebDriver session")?;
    Ok(())
}

async fn check(client: &Client, opened: &Path, data_dir: &Path) -> Result<()> {
    let before = client.windows().await?.len();

    js(
        client,
        "window.location.href = 'https://example.invalid/remote?x=1'; return 1;",
    )
    .await?;
    wait_opened(opened, "https://example.invalid/remote?x=1").await?;
    still_on_the_app(client).await?;

    // A link that asks for a new window, clicked (a user gesture, so no popup blocker).
    js(
        client,
        "const a = document.createElement('a'); a.id = 'nav-test-link'; \
         a.href = 'https://example.invalid/popup'; a.target = '_blank'; a.textContent = 'link'; \
         a.style = 'position:fixed;left:8px;top:8px;z-index:99999;padding:8px;background:#fff'; \
         document.body.append(a); return 1;",
    )
    .await?;
    client
        .find(Locator::Css("#nav-test-link"))
        .await?
        .click()
        .await?;
    wait_opened(opened, "https://example.invalid/popup").await?;
    // And a script's window.open (blocked without a gesture on some engines, sent to the
    // browser on others): never a web view.
    js(
        client,
        "window.open('https://example.invalid/script', '_blank'); return 1;",
    )
    .await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    still_on_the_app(client).await?;
    let after = client.windows().await?.len();
    ensure!(
        after == before,
        "a new window was made ({before} → {after})"
    );

    // Not a link the browser should get either: refused outright.
    js(
        client,
        "window.location.href = 'file:///etc/hostname'; return 1;",
    )
    .await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    still_on_the_app(client).await?;
    let text = std::fs::read_to_string(opened).unwrap_or_default();
    ensure!(
        !text.contains("file:"),
        "a file: URL was handed on: {text:?}"
    );

    let logs = data_dir.join("logs");
    wait_for_log_line(&logs, "link opened in the browser, not in the app").await?;

    // What the app wrote is the user's alone.
    let mode = |p: &Path| -> Result<u32> {
        Ok(std::fs::metadata(p)
            .with_context(|| p.display().to_string())?
            .permissions()
            .mode()
            & 0o777)
    };
    ensure!(
        mode(data_dir)? == 0o700,
        "data folder {:o}",
        mode(data_dir)?
    );
    ensure!(mode(&logs)? == 0o700, "logs folder {:o}", mode(&logs)?);
    for entry in std::fs::read_dir(data_dir)?.chain(std::fs::read_dir(&logs)?) {
        let path = entry?.path();
        if path.is_file() {
            ensure!(
                mode(&path)? & 0o077 == 0,
                "{} is {:o}",
                path.display(),
                mode(&path)?
            );
        }
    }
    Ok(())
}

async fn still_on_the_app(client: &Client) -> Result<()> {
    let href = js(client, "return window.location.href;").await?;
    let href = href.as_str().unwrap_or_default().to_owned();
    ensure!(
        href.starts_with(APP_ORIGIN),
        "the window left the app: {href}"
    );
    let ready = js(
        client,
        "return !!document.querySelector('[data-app-ready=\"true\"]');",
    )
    .await?;
    ensure!(ready == true, "the app's page is gone ({href})");
    Ok(())
}

async fn wait_opened(opened: &Path, url: &str) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let text = std::fs::read_to_string(opened).unwrap_or_default();
        if text.lines().any(|l| l.trim() == url) {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("the browser was never asked to open {url} (it got {text:?})");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
