//! The Debian package as a user gets it: install the built .deb into the system, start the
//! INSTALLED app under a virtual display and drive it over WebDriver (tauri-driver →
//! WebKitWebDriver), run the installed `forkhost` CLI, check the desktop entry and icons, then
//! remove the package and check that everything it installed is gone.
//!
//! Run it with `scripts/deb-e2e.sh`, which builds the package (`scripts/package.sh`), starts Xvfb
//! and tauri-driver and sets:
//!
//! - `FORKHOST_DEB`: the .deb to test. Unset → the test is skipped, so a plain
//!   `cargo test --workspace` passes without a display and without touching the system.
//! - `FORKHOST_WEBDRIVER_URL`: tauri-driver's address (default `http://127.0.0.1:4444`).
//! - `FORKHOST_UPDATE_DEB`, `FORKHOST_UPDATE_VERSION`, `FORKHOST_UPDATE_PORT`: the update round
//!   trip. `FORKHOST_DEB` was then built with its updater pointed at
//!   `http://127.0.0.1:<port>/latest.json` and a throwaway key; `FORKHOST_UPDATE_DEB` is the next
//!   version, signed with that key (`<deb>.sig`). The test serves both on that port (slowly, so
//!   the progress bar can be seen), lets the installed app find the update at start, installs it
//!   from the app's dialog, and checks that the system now has the new package and that the app
//!   restarted into it.
//!
//! It changes the machine: apt-get installs and removes the `forkhost` package (with `sudo`
//! when not root). The package is removed again even when a check fails.

#![cfg(target_os = "linux")]

use crate::app_support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context, Result};
use app_support::{
    check_shell_frame, save_screenshot, start_session, wait_for_log, wait_for_log_line,
    write_launcher,
};
use fantoccini::{Client, Locator};
use forkhost_tests::need::{need, Group};
use serde_json::json;

/// The Debian package name (Tauri derives it from productName, kebab-cased).
const PACKAGE: &str = "forkhost";
/// What the package installs, as a user finds it.
const APP: &str = "/usr/bin/forkhost-app";
const CLI: &str = "/usr/bin/forkhost";
const DESKTOP_FILE: &str = "/usr/share/applications/Forkhost.desktop";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deb_installs_runs_and_removes_cleanly() -> Result<()> {
    // scripts/deb-e2e.sh sets FORKHOST_DEB.
    let Some(deb) = need(Group::Package, "FORKHOST_DEB") else {
        return Ok(());
    };
    let deb = std::fs::canonicalize(&deb)
        .with_context(|| format!("FORKHOST_DEB={} is not a file", deb.display()))?;
    let webdriver_url = std::env::var("FORKHOST_WEBDRIVER_URL")
        .unwrap_or_else(|_| "http://127.0.0.1:4444".to_owned());
    let version = env!("CARGO_PKG_VERSION");

    check_control_fields(&deb, version)?;

    if is_installed(PACKAGE)? {
        println!("{PACKAGE} is already installed: removing it first");
        apt_get(&["remove", "-y", PACKAGE])?;
    }
    apt_get(&["install", "-y", &deb.to_string_lossy()])?;
    ensure!(
        is_installed(PACKAGE)?,
        "{PACKAGE} is not installed after apt-get install"
    );

    let update = UpdateFixture::from_env()?;
    if update.is_none() {
        println!("FORKHOST_UPDATE_DEB not set: the update round trip is not tested");
    }
    // Whatever happens in the checks, the package is removed again.
    let checked = check_installed(&webdriver_url, version, update.as_ref()).await;
    let removed = apt_get(&["remove", "-y", PACKAGE]);
    checked?;
    removed?;

    ensure!(
        !is_installed(PACKAGE)?,
        "{PACKAGE} is still installed after apt-get remove"
    );
    for path in [APP, CLI, DESKTOP_FILE] {
        ensure!(
            !Path::new(path).exists(),
            "{path} is still there after removing the package"
        );
    }
    let leftover_icons = hicolor_icons("forkhost-app");
    ensure!(
        leftover_icons.is_empty(),
        "icons left after removing the package: {leftover_icons:?}"
    );
    println!("removed: {APP}, {CLI}, {DESKTOP_FILE} and the icons are gone");
    Ok(())
}

/// The package's control fields: name, the crate version, a description and dependencies.
fn check_control_fields(deb: &Path, version: &str) -> Result<()> {
    let out = run(Command::new("dpkg-deb").arg("-f").arg(deb).args([
        "Package",
        "Version",
        "Architecture",
        "Depends",
        "Description",
    ]))?;
    let fields = String::from_utf8_lossy(&out.stdout).into_owned();
    let field = |name: &str| -> Option<String> {
        fields
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}: ")))
            .map(|v| v.trim().to_owned())
    };
    ensure!(
        field("Package").as_deref() == Some(PACKAGE),
        "Package field in:\n{fields}"
    );
    ensure!(
        field("Version").as_deref() == Some(version),
        "Version field (want the crate version {version}) in:\n{fields}"
    );
    let depends = field("Depends").unwrap_or_default();
    ensure!(
        depends.contains("libwebkit2gtk-4.1-0") && depends.contains("libgtk-3-0"),
        "Depends lacks webkit/gtk: {depends:?}"
    );
    let description = field("Description").unwrap_or_default();
    ensure!(
        !description.is_empty() && description != "(none)",
        "no Description in:\n{fields}"
    );
    println!("control: {}", fields.replace('\n', " | "));
    Ok(())
}

async fn check_installed(
    webdriver_url: &str,
    version: &str,
    update: Option<&UpdateFixture>,
) -> Result<()> {
    // What dpkg says the package owns.
    let out = run(Command::new("dpkg").args(["-L", PACKAGE]))?;
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    for path in [APP, CLI, DESKTOP_FILE] {
        ensure!(
            listed.lines().any(|line| line == path),
            "dpkg -L {PACKAGE} does not list {path}:\n{listed}"
        );
    }
    for path in [APP, CLI] {
        ensure!(is_executable(Path::new(path)), "{path} is not executable");
    }

    let icon_name = check_desktop_entry()?;
    let icons = hicolor_icons(&icon_name);
    ensure!(
        !icons.is_empty(),
        "no hicolor icon named {icon_name} installed"
    );
    println!("icons: {icons:?}");

    // The CLI on PATH.
    let path_var = std::env::var("PATH").unwrap_or_default();
    ensure!(
        std::env::split_paths(&path_var).any(|dir| dir == Path::new("/usr/bin")),
        "/usr/bin is not on PATH ({path_var})"
    );
    let out = run(Command::new(CLI).arg("--version"))?;
    let printed = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    ensure!(
        printed == format!("forkhost {version}"),
        "`forkhost --version` printed {printed:?}, expected \"forkhost {version}\""
    );
    println!("{CLI} --version: {printed}");

    // The installed app, started from the path its desktop entry runs.
    let scratch = tempfile::tempdir()?;
    let data_dir = scratch.path().join("data");
    let launcher = write_launcher(scratch.path(), Path::new(APP), &data_dir)?;
    // The update server must be up before the app starts: it checks once, at start.
    let server = match update {
        Some(update) => Some(update.serve().await?),
        None => None,
    };
    let client = start_session(webdriver_url, &launcher).await?;
    let checked = check_shell(&client, version).await;
    let shot = save_screenshot(&client, "deb_install").await;
    if let (Some(update), Some(server)) = (update, &server) {
        if checked.is_ok() {
            // The app restarts into the new version: this session ends with the old process.
            let updated = check_update(&client, update, server, &data_dir).await;
            let _ = client.close().await;
            stop_app(&data_dir);
            checked?;
            shot?;
            return updated;
        }
    }
    let closed = client.close().await;
    checked?;
    let shot = shot?;
    closed.context("ending the WebDriver session")?;
    println!("screenshot: {}", shot.display());

    // The app wrote its log under <data>/logs; the installed CLI opens the same data folder.
    let log_file = wait_for_log_line(&data_dir.join("logs"), "forkhost app started").await?;
    println!("log file: {}", log_file.display());
    let out = run(Command::new(CLI)
        .arg("--data-dir")
        .arg(&data_dir)
        .args(["--json", "threads"]))?;
    let threads: serde_json::Value = serde_json::from_slice(&out.stdout)
        .with_context(|| format!("`forkhost --json threads` printed {:?}", out.stdout))?;
    println!("forkhost --json threads on the app's data folder: {threads}");
    Ok(())
}

/// Checks the installed desktop entry and returns its icon name.
fn check_desktop_entry() -> Result<String> {
    let text =
        std::fs::read_to_string(DESKTOP_FILE).with_context(|| format!("reading {DESKTOP_FILE}"))?;
    let key = |name: &str| -> Option<String> {
        text.lines()
            .find_map(|line| line.strip_prefix(&format!("{name}=")))
            .map(|v| v.trim().to_owned())
    };
    ensure!(
        key("Type").as_deref() == Some("Application"),
        "Type in:\n{text}"
    );
    ensure!(
        key("Name").as_deref() == Some("Forkhost"),
        "Name in:\n{text}"
    );
    let exec = key("Exec").unwrap_or_default();
    let program = exec.split_whitespace().next().unwrap_or_default();
    let program = if program.starts_with('/') {
        PathBuf::from(program)
    } else {
        Path::new("/usr/bin").join(program)
    };
    ensure!(
        program == Path::new(APP),
        "Exec={exec:?} does not start {APP}"
    );
    let categories = key("Categories").unwrap_or_default();
    ensure!(
        categories.split(';').any(|c| c == "Development"),
        "Categories={categories:?} lacks Development"
    );
    let icon = key("Icon").context("no Icon= in the desktop entry")?;
    println!("desktop entry: Exec={exec} Icon={icon} Categories={categories}");
    Ok(icon)
}

/// PNG icons named `name` in the hicolor theme.
fn hicolor_icons(name: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let Ok(sizes) = std::fs::read_dir("/usr/share/icons/hicolor") else {
        return found;
    };
    for size in sizes.flatten() {
        let icon = size.path().join("apps").join(format!("{name}.png"));
        if icon.is_file() {
            found.push(icon);
        }
    }
    found.sort();
    found
}

async fn check_shell(client: &Client, version: &str) -> Result<()> {
    check_shell_frame(client).await?;
    // The installed build reports the same version as the package.
    let shown = client
        .find(Locator::Css("[data-app-version]"))
        .await
        .context("version in the sidebar footer")?
        .attr("data-app-version")
        .await?;
    ensure!(
        shown.as_deref() == Some(version),
        "data-app-version is {shown:?}, expected {version}"
    );
    Ok(())
}

fn is_installed(package: &str) -> Result<bool> {
    let out = Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .context("running dpkg-query")?;
    Ok(out.status.success()
        && String::from_utf8_lossy(&out.stdout).contains("install ok installed"))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// `apt-get ARGS` as root: directly when root, else through `sudo -n`.
fn apt_get(args: &[&str]) -> Result<()> {
    let root = unsafe { libc::geteuid() } == 0;
    let mut cmd = if root {
        Command::new("apt-get")
    } else {
        let mut c = Command::new("sudo");
        c.args(["-n", "apt-get"]);
        c
    };
    cmd.env("DEBIAN_FRONTEND", "noninteractive")
        .args(["-q", "-o", "DPkg::Lock::Timeout=120"])
        .args(args);
    run(&mut cmd).map(|_| ())
}

/// Runs a command; an error carries its exit status and output.
fn run(cmd: &mut Command) -> Result<Output> {
    let shown = format!("{cmd:?}");
    let out = cmd.output().with_context(|| format!("starting {shown}"))?;
    if !out.status.success() {
        bail!(
            "{shown} failed ({}):\n{}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(out)
}

// ---- the update round trip --------------------------------------------------------------------

/// The newer package and where the installed app looks for it.
struct UpdateFixture {
    deb: PathBuf,
    signature: String,
    version: String,
    port: u16,
}

/// Notes shown in the app's update dialog (Markdown; raw HTML must stay text).
const UPDATE_NOTES: &str = "Round-trip test release.\n\n### What's new\n\n- **Signed** by the \
     test's own key\n\n<img src=x onerror=\"document.title='pwned'\">";

/// The update server sends the package this fast, so the download lasts a few seconds.
const SERVE_CHUNK: usize = 256 * 1024;
const SERVE_PAUSE: Duration = Duration::from_millis(60);

impl UpdateFixture {
    fn from_env() -> Result<Option<UpdateFixture>> {
        let Some(deb) = std::env::var_os("FORKHOST_UPDATE_DEB").map(PathBuf::from) else {
            return Ok(None);
        };
        let sig_path = PathBuf::from(format!("{}.sig", deb.display()));
        let signature = std::fs::read_to_string(&sig_path)
            .with_context(|| format!("reading the update's signature {}", sig_path.display()))?;
        let version = std::env::var("FORKHOST_UPDATE_VERSION")
            .context("FORKHOST_UPDATE_VERSION must come with FORKHOST_UPDATE_DEB")?;
        let port = std::env::var("FORKHOST_UPDATE_PORT")
            .context("FORKHOST_UPDATE_PORT must come with FORKHOST_UPDATE_DEB")?
            .parse()
            .context("FORKHOST_UPDATE_PORT")?;
        Ok(Some(UpdateFixture {
            deb,
            signature: signature.trim().to_owned(),
            version,
            port,
        }))
    }

    /// Serves `/latest.json` (the release manifest, as the release workflow publishes it) and
    /// `/update.deb` on the port the installed app was built to ask; logs every request.
    async fn serve(&self) -> Result<UpdateServer> {
        use axum::body::Body;
        use axum::http::header;
        use axum::routing::get;
        use futures::StreamExt;

        let deb =
            std::fs::read(&self.deb).with_context(|| format!("reading {}", self.deb.display()))?;
        let base = format!("http://127.0.0.1:{}", self.port);
        let manifest = json!({
            "version": self.version,
            "notes": UPDATE_NOTES,
            "pub_date": "2026-11-29T12:00:00Z",
            "platforms": {
                "linux-x86_64-deb": { "signature": self.signature, "url": format!("{base}/update.deb") },
            },
        })
        .to_string();
        let requests = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let deb = axum::body::Bytes::from(deb);
        let log = requests.clone();
        let app = axum::Router::new()
            .route(
                "/latest.json",
                get(
                    move || async move { ([(header::CONTENT_TYPE, "application/json")], manifest) },
                ),
            )
            .route(
                "/update.deb",
                get({
                    let deb = deb.clone();
                    move || async move {
                        let len = deb.len();
                        let chunks = (0..len).step_by(SERVE_CHUNK).map(move |at| {
                            let end = (at + SERVE_CHUNK).min(len);
                            deb.slice(at..end)
                        });
                        let stream = futures::stream::iter(chunks).then(|chunk| async move {
                            tokio::time::sleep(SERVE_PAUSE).await;
                            Ok::<_, std::io::Error>(chunk)
                        });
                        (
                            [
                                (header::CONTENT_TYPE, "application/octet-stream".to_owned()),
                                (header::CONTENT_LENGTH, len.to_string()),
                            ],
                            Body::from_stream(stream),
                        )
                    }
                }),
            )
            .layer(axum::middleware::from_fn(
                move |req: axum::extract::Request, next: axum::middleware::Next| {
                    let log = log.clone();
                    async move {
                        log.lock().unwrap().push(req.uri().path().to_owned());
                        next.run(req).await
                    }
                },
            ));
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", self.port))
            .await
            .with_context(|| format!("binding the update server to 127.0.0.1:{}", self.port))?;
        let task = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        println!(
            "update server: {base}/latest.json ({} bytes of package)",
            deb.len()
        );
        Ok(UpdateServer { requests, task })
    }
}

struct UpdateServer {
    requests: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for UpdateServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl UpdateServer {
    fn requests(&self) -> Vec<String> {
        self.requests.lock().unwrap().clone()
    }
}

/// The app found the update at start and shows it; Install downloads it with progress,
/// installs it with the system's package tool, and restarts into it.
async fn check_update(
    client: &Client,
    update: &UpdateFixture,
    server: &UpdateServer,
    data_dir: &Path,
) -> Result<()> {
    let started = Instant::now();
    let version = client
        .wait()
        .at_most(Duration::from_secs(60))
        .for_element(Locator::Css(
            r#"[data-dialog="update"] [data-update-version]"#,
        ))
        .await
        .context("the update dialog never showed a version (the check at start found nothing?)")?
        // textContent, not the rendered text: the dialog may still be fading in.
        .prop("textContent")
        .await?
        .unwrap_or_default();
    println!(
        "update dialog after {:.1?}: version {version}",
        started.elapsed()
    );
    ensure!(
        version.trim() == update.version,
        "the dialog offers {version:?}, the server {}",
        update.version
    );
    let notes = client
        .find(Locator::Css("[data-update-notes]"))
        .await
        .context("release notes in the update dialog")?;
    let text = notes.prop("textContent").await?.unwrap_or_default();
    ensure!(
        text.contains("Round-trip test release") && text.contains("Signed by the test's own key"),
        "release notes shown: {text:?}"
    );
    ensure!(
        notes.find(Locator::Css("img, script")).await.is_err(),
        "raw HTML in the notes became elements"
    );
    ensure!(
        server.requests().iter().any(|p| p == "/latest.json"),
        "the app never asked for /latest.json: {:?}",
        server.requests()
    );
    let _ = save_screenshot(client, "deb_update_offer").await;

    client
        .find(Locator::Css(r#"[data-action="update-install"]"#))
        .await
        .context("Install and restart button")?
        .click()
        .await?;
    let clicked = Instant::now();

    // Watch the dialog until the old process goes away under the session.
    let mut stages: Vec<String> = Vec::new();
    let mut progress_seen: Vec<u32> = Vec::new();
    let mut shot_taken = false;
    while clicked.elapsed() < Duration::from_secs(180) {
        let Ok(dialog) = client.find(Locator::Css("[data-update-status]")).await else {
            break;
        };
        let Ok(Some(stage)) = dialog.attr("data-update-status").await else {
            break;
        };
        if stage == "failed" {
            let why = dialog.text().await.unwrap_or_default();
            bail!("the update failed in the app: {why}");
        }
        if stages.last() != Some(&stage) {
            println!("  {:>6.2}s  {stage}", clicked.elapsed().as_secs_f64());
            stages.push(stage.clone());
        }
        if stage == "downloading" {
            let bar = client.find(Locator::Css("[data-update-progress]")).await;
            let value = match bar {
                Ok(bar) => bar.attr("data-update-progress").await.ok().flatten(),
                Err(_) => None,
            };
            if let Some(value) = value {
                if let Ok(value) = value.parse::<u32>() {
                    if progress_seen.last() != Some(&value) {
                        progress_seen.push(value);
                    }
                    if !shot_taken && value >= 30 {
                        shot_taken = save_screenshot(client, "deb_update_progress").await.is_ok();
                    }
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!("stages: {stages:?}; progress seen: {progress_seen:?}");
    ensure!(
        stages.iter().any(|s| s == "downloading"),
        "never saw the download stage: {stages:?}"
    );
    ensure!(
        progress_seen.iter().any(|p| (1..100).contains(p)),
        "the progress bar never showed a partial download: {progress_seen:?}"
    );
    ensure!(
        server.requests().iter().any(|p| p == "/update.deb"),
        "the app never downloaded the package: {:?}",
        server.requests()
    );

    // The system's package is the new one, and the app came back as the new version.
    let deadline = Instant::now() + Duration::from_secs(180);
    let installed = loop {
        let out = Command::new("dpkg-query")
            .args(["-W", "-f=${Version}", PACKAGE])
            .output()?;
        let installed = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        if installed == update.version || Instant::now() > deadline {
            break installed;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    ensure!(
        installed == update.version,
        "dpkg says {PACKAGE} {installed} is installed, expected {}",
        update.version
    );
    println!(
        "package {PACKAGE} {installed} installed {:.1?} after the click",
        clicked.elapsed()
    );
    let restarted = format!("version={}", update.version);
    let log = wait_for_log(&data_dir.join("logs"), Duration::from_secs(60), |line| {
        line.contains("forkhost app started") && line.contains(&restarted)
    })
    .await
    .with_context(|| {
        format!(
            "the app did not start again as the new version; its logs end:\n{}",
            log_tails(&data_dir.join("logs"), 25)
        )
    })?;
    println!(
        "restarted as {} {:.1?} after the click ({})",
        update.version,
        clicked.elapsed(),
        log.display()
    );
    Ok(())
}

/// The last `lines` lines of each log file under `dir`, for a failure's message.
fn log_tails(dir: &Path, lines: usize) -> String {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return format!("(no log folder at {})", dir.display());
    };
    let mut out = String::new();
    for entry in entries.flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        let all: Vec<&str> = text.lines().collect();
        out.push_str(&format!("== {}\n", entry.path().display()));
        for line in &all[all.len().saturating_sub(lines)..] {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Ends the app processes started on `data_dir` (the restarted app has no WebDriver session
/// to end it).
fn stop_app(data_dir: &Path) {
    let wanted = format!("FORKHOST_DATA_DIR={}", data_dir.display());
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in procs.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        let exe = std::fs::read_link(entry.path().join("exe")).unwrap_or_default();
        if !exe.to_string_lossy().starts_with(APP) {
            continue;
        }
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if environ
            .split(|b| *b == 0)
            .any(|var| var == wanted.as_bytes())
        {
            println!("stopping the restarted app (pid {pid})");
            unsafe { libc::kill(pid, libc::SIGTERM) };
        }
    }
}
