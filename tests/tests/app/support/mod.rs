//! Shared pieces of the desktop app's end-to-end tests (`app_*.rs`): launching the built app
//! over WebDriver with a fresh data folder and a harness environment, and small helpers to
//! drive it. See `scripts/app-e2e.sh` for the environment these tests expect.
#![allow(dead_code)]

pub mod cpu;
pub mod forks;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, ensure, Context, Result};
use fantoccini::elements::Element;
use fantoccini::wd::WindowHandle;
use fantoccini::{Client, ClientBuilder, Locator};
use forkhost_test_script::write_executable;
use forkhost_tests::fake_model::{FakeModel, Msg};
use forkhost_tests::harness_env::HarnessEnv;
use forkhost_tests::need::{need, Group};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{json, Value};

pub const READY: &str = r#".app[data-app-ready="true"]"#;
pub const STARTUP: Duration = Duration::from_secs(40);
/// A harness turn against the fake model (process start included).
pub const TURN: Duration = Duration::from_secs(90);

/// What every start shows first, checked by `app_shell` (the built app) and `pkg_deb` (the
/// installed one): the shell ready within 30 s, the window titled "Forkhost", and a visible
/// "New thread" button.
pub async fn check_shell_frame(client: &Client) -> Result<()> {
    const SHELL_READY: &str = r#"[data-app-ready="true"]"#;
    const SHELL_STARTUP: Duration = Duration::from_secs(30);
    client
        .wait()
        .at_most(SHELL_STARTUP)
        .for_element(Locator::Css(SHELL_READY))
        .await
        .with_context(|| format!("the shell never set {SHELL_READY} within {SHELL_STARTUP:?}"))?;
    let title = client.title().await?;
    anyhow::ensure!(
        title == "Forkhost",
        "window title is {title:?}, expected \"Forkhost\""
    );
    let new_thread = client
        .find(Locator::Css(r#"button[data-action="new-thread"]"#))
        .await
        .context("New thread button")?;
    anyhow::ensure!(
        new_thread.is_displayed().await?,
        "New thread is not visible"
    );
    let label = new_thread.text().await?;
    anyhow::ensure!(
        label.trim() == "New thread",
        "New thread button says {label:?}"
    );
    Ok(())
}

/// The built app, or `None` (the test is skipped) when `FORKHOST_APP_BINARY` is unset; a
/// failure instead under `FORKHOST_REQUIRE_HARNESSES=1` (see `forkhost_tests::need`).
pub fn app_binary() -> Result<Option<PathBuf>> {
    Ok(need(Group::App, "FORKHOST_APP_BINARY"))
}

pub fn webdriver_url() -> String {
    std::env::var("FORKHOST_WEBDRIVER_URL").unwrap_or_else(|_| "http://127.0.0.1:4444".to_owned())
}

/// A fresh data folder and a launcher script that runs the app with it and with one harness's
/// environment (tauri-driver can't set the app's environment per session).
pub struct AppEnv {
    pub scratch: tempfile::TempDir,
    pub data_dir: PathBuf,
    pub launcher: PathBuf,
}

impl AppEnv {
    pub fn new(app_binary: &Path, harness: Option<&HarnessEnv>) -> Result<AppEnv> {
        Self::with_vars(app_binary, harness, &[])
    }

    pub fn with_vars(
        app_binary: &Path,
        harness: Option<&HarnessEnv>,
        extra: &[(String, String)],
    ) -> Result<AppEnv> {
        let scratch = tempfile::Builder::new().prefix("forkhost-app-").tempdir()?;
        let data_dir = scratch.path().join("data");
        let launcher = scratch.path().join("forkhost-app-launcher");
        let mut script = String::from("#!/bin/sh\n");
        let mut unset = Vec::new();
        let mut set: Vec<(String, String)> = vec![(
            "FORKHOST_DATA_DIR".into(),
            data_dir.to_string_lossy().into_owned(),
        )];
        if let Some(env) = harness {
            unset.extend(env.scrubbed_vars());
            set.extend(env.vars().iter().cloned());
        }
        // The ACP agents only where a test names them (`extra`): the app asks every harness
        // it finds at start, and OpenCode is a 185 MB program.
        unset.extend([
            "FORKHOST_OPENCODE_BIN".to_owned(),
            "FORKHOST_GEMINI_BIN".to_owned(),
        ]);
        // The harness binaries, and the app's own switches when the test run sets them.
        for var in [
            "FORKHOST_CLAUDE_BIN",
            "FORKHOST_CODEX_BIN",
            "FORKHOST_PI_BIN",
            "FORKHOST_SPARE_WINDOW",
            "WEBKIT_DISABLE_COMPOSITING_MODE",
        ] {
            if let Ok(v) = std::env::var(var) {
                set.push((var.into(), v));
            }
        }
        set.extend(extra.iter().cloned());
        for var in &unset {
            if var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                script.push_str(&format!("unset {var}\n"));
            }
        }
        for (k, v) in &set {
            script.push_str(&format!("{k}={}\nexport {k}\n", sh_quote(v)));
        }
        if let Some(env) = harness {
            script.push_str(&format!(
                "cd {}\n",
                sh_quote(&env.work_dir().to_string_lossy())
            ));
        }
        script.push_str(&format!(
            "exec {} \"$@\"\n",
            sh_quote(&std::fs::canonicalize(app_binary)?.to_string_lossy())
        ));
        write_executable(&launcher, &script)?;
        Ok(AppEnv {
            scratch,
            data_dir,
            launcher,
        })
    }

    /// Starts the app (a WebDriver session) and waits until its main window is ready.
    pub async fn launch(&self) -> Result<Client> {
        let url = webdriver_url();
        let client = match start_session(&url, &self.launcher).await {
            Ok(client) => client,
            Err(first) => {
                // Once in a while, right after the previous test's app closed, GTK could not
                // open the virtual display and the app died before its window existed (its
                // panic is in test-artifacts/tauri-driver.log): the launch, not the app's
                // behaviour, is tried again, once.
                eprintln!("the app did not start ({first:#}); launching it again");
                tokio::time::sleep(Duration::from_secs(2)).await;
                start_session(&url, &self.launcher).await?
            }
        };
        wait_css(&client, READY, STARTUP)
            .await
            .context("the app never became ready")?;
        // The app may already have built its hidden spare window (for forks); drive the main
        // window.
        window_by_label(&client, "main")
            .await
            .context("the main window")?;
        Ok(client)
    }
}

pub fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Screenshots of one test, numbered in order, in `test-artifacts/<test>/`.
pub struct Shots {
    dir: PathBuf,
    n: usize,
    /// Why screenshots are not taken in this run, if they aren't.
    off: Option<&'static str>,
}

/// Whether this machine has a GPU render node: without one the app renders without WebKit's
/// compositing by default (`software_rendering_defaults` in src-tauri/src/platform.rs).
pub fn has_render_node() -> bool {
    std::fs::read_dir("/dev/dri").is_ok_and(|dir| {
        dir.flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

impl Shots {
    pub fn new(test: &str) -> Result<Shots> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../test-artifacts")
            .join(test);
        std::fs::create_dir_all(&dir)?;
        for entry in std::fs::read_dir(&dir)?.flatten() {
            if entry.path().extension().is_some_and(|e| e == "png") {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        Ok(Shots {
            dir,
            n: 0,
            off: None,
        })
    }

    /// No screenshots in this run: WebKitWebDriver's screenshots hang when the app renders
    /// without compositing.
    pub fn without_compositing(mut self) -> Shots {
        self.off = Some("the app renders without compositing, where WebDriver screenshots hang");
        self
    }

    /// After a failure: copies the app's log files (they hold no prompts) beside the
    /// screenshots, and prints their last warnings, so a run that only keeps its output (CI)
    /// still says what the app saw. Never fails the test.
    pub fn keep_app_log(&self, env: &AppEnv) {
        let logs = env.data_dir.join("logs");
        let Ok(entries) = std::fs::read_dir(&logs) else {
            println!("no app log in {}", logs.display());
            return;
        };
        let mut lines = Vec::new();
        for entry in entries.flatten() {
            let to = self
                .dir
                .join(format!("app-{}", entry.file_name().to_string_lossy()));
            std::fs::copy(entry.path(), &to).ok();
            if let Ok(text) = std::fs::read_to_string(entry.path()) {
                lines.extend(
                    text.lines()
                        .filter(|l| l.contains("WARN") || l.contains("ERROR"))
                        .map(str::to_owned),
                );
            }
        }
        println!(
            "the app's log: {} (its last warnings below)",
            self.dir.display()
        );
        for line in &lines[lines.len().saturating_sub(12)..] {
            println!("  {line}");
        }
    }

    /// Saves the current window as `NN-name.png`; returns its path. Never fails the test.
    pub async fn take(&mut self, client: &Client, name: &str) -> Option<PathBuf> {
        self.n += 1;
        if let Some(why) = self.off {
            println!("screenshot {name} skipped: {why}");
            return None;
        }
        // Let the last frame land.
        tokio::time::sleep(Duration::from_millis(150)).await;
        match client.screenshot().await {
            Ok(png) => {
                let path = self.dir.join(format!("{:02}-{name}.png", self.n));
                std::fs::write(&path, png).ok()?;
                println!("screenshot: {}", path.display());
                Some(path)
            }
            Err(err) => {
                println!("screenshot {name} failed: {err}");
                None
            }
        }
    }
}

pub async fn js(client: &Client, script: &str) -> Result<Value> {
    client
        .execute(script, vec![])
        .await
        .with_context(|| format!("script: {script}"))
}

pub async fn js_args(client: &Client, script: &str, args: Vec<Value>) -> Result<Value> {
    client
        .execute(script, args)
        .await
        .with_context(|| format!("script: {script}"))
}

/// Polls `check` (a JS expression) until it is truthy; returns its value.
pub async fn wait_js(client: &Client, check: &str, timeout: Duration, what: &str) -> Result<Value> {
    let deadline = Instant::now() + timeout;
    let script = format!("return ({check});");
    loop {
        let value = js(client, &script).await?;
        if truthy(&value) {
            return Ok(value);
        }
        if Instant::now() > deadline {
            bail!("timed out after {timeout:?} waiting for {what} ({check}); last value {value}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

pub async fn wait_css(client: &Client, css: &str, timeout: Duration) -> Result<Element> {
    client
        .wait()
        .at_most(timeout)
        .for_element(Locator::Css(css))
        .await
        .with_context(|| format!("waiting {timeout:?} for {css}"))
}

pub async fn click(client: &Client, css: &str) -> Result<()> {
    let el = wait_css(client, css, Duration::from_secs(15)).await?;
    settle(client, css).await;
    let Err(first) = el.click().await else {
        return Ok(());
    };
    // WebDriver scrolls the element to the edge of its scroll area, and it can move before the
    // click lands (a section above it still laying out, e.g. Settings' harness checks), so the
    // click is refused and nothing happened. Once more, from the middle of its scroll area.
    tokio::time::sleep(Duration::from_millis(300)).await;
    js_args(
        client,
        "document.querySelector(arguments[0])?.scrollIntoView({block: 'center'})",
        vec![Value::from(css)],
    )
    .await?;
    let el = wait_css(client, css, Duration::from_secs(15)).await?;
    el.click()
        .await
        .with_context(|| format!("clicking {css} (a second time; the first: {first})"))
}

/// Waits (at most 3 s) until the element's box has stood still for 300 ms in the middle of
/// its scroll area: a section above it still laying out (a harness report coming in on a
/// loaded machine) would move it from under the click.
async fn settle(client: &Client, css: &str) {
    let script = "const e = document.querySelector(arguments[0]); if (!e) return null; \
                  e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); \
                  return [r.x, r.y, r.width, r.height];";
    let (mut last, mut still) = (None, 0);
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        let rect = js_args(client, script, vec![Value::from(css)]).await.ok();
        if rect.is_some() && rect == last {
            still += 1;
            if still >= 3 {
                return;
            }
        } else {
            still = 0;
        }
        last = rect;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Types into a field (appending).
pub async fn type_into(client: &Client, css: &str, text: &str) -> Result<()> {
    let el = wait_css(client, css, Duration::from_secs(15)).await?;
    el.send_keys(text)
        .await
        .with_context(|| format!("typing into {css}"))
}

/// The message rows shown: (turn, role, text).
pub async fn rows(client: &Client) -> Result<Vec<(i64, String, String)>> {
    let v = js(
        client,
        r#"return Array.from(document.querySelectorAll('article[data-turn][data-role]:not([data-live])'))
             .map(e => [Number(e.dataset.turn), e.dataset.role, (e.querySelector('.msg__body')?.innerText ?? '').trim()]);"#,
    )
    .await?;
    let mut out = Vec::new();
    for row in v.as_array().cloned().unwrap_or_default() {
        out.push((
            row[0].as_i64().unwrap_or(0),
            row[1].as_str().unwrap_or("").to_owned(),
            row[2].as_str().unwrap_or("").to_owned(),
        ));
    }
    Ok(out)
}

/// Types a prompt into the active composer and clicks Send.
pub async fn send_prompt(client: &Client, prompt: &str) -> Result<()> {
    let composer = wait_css(
        client,
        r#"textarea[data-role="composer"]"#,
        Duration::from_secs(20),
    )
    .await?;
    composer.clear().await.ok();
    composer.send_keys(prompt).await?;
    wait_js(
        client,
        r#"document.querySelector('[data-action="send"]') && !document.querySelector('[data-action="send"]').disabled"#,
        Duration::from_secs(10),
        "Send to be enabled",
    )
    .await?;
    click(client, r#"[data-action="send"]"#).await
}

/// Opens the context menu of the element `css` matches (a right click where it starts).
pub async fn context_menu(client: &Client, css: &str) -> Result<()> {
    js_args(
        client,
        r#"const el = document.querySelector(arguments[0]);
           const r = el.getBoundingClientRect();
           el.dispatchEvent(new MouseEvent('contextmenu', { bubbles: true, cancelable: true, clientX: r.left + 10, clientY: r.top + 5 }));
           return true;"#,
        vec![json!(css)],
    )
    .await?;
    Ok(())
}

/// Opens a second window (which the app focuses) and comes back to `main` without focusing
/// it: `main` is then a window the user is not looking at (under Xvfb without a window
/// manager too: GTK sets the X input focus).
pub async fn look_away(client: &Client, main: WindowHandle) -> Result<()> {
    let before = client.windows().await?;
    js(
        client,
        r#"window.__TAURI_INTERNALS__.invoke('open_window', { tabs: [], prefill: null, focus_composer: false }); return true;"#,
    )
    .await?;
    let _other = new_window(client, &before).await.ok();
    client.switch_to_window(main).await?;
    wait_js(
        client,
        "!document.hasFocus()",
        Duration::from_secs(20),
        "the main window to lose focus",
    )
    .await?;
    Ok(())
}

/// [`send_prompt`] without focusing the window: a script sets the composer and clicks Send.
pub async fn send_unfocused(client: &Client, prompt: &str) -> Result<()> {
    js_args(
        client,
        r#"const [text] = arguments;
           const box = document.querySelector('textarea[data-role="composer"]');
           Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, text);
           box.dispatchEvent(new Event('input', { bubbles: true }));
           return true;"#,
        vec![json!(prompt)],
    )
    .await?;
    wait_js(
        client,
        r#"document.querySelector('[data-action="send"]') && !document.querySelector('[data-action="send"]').disabled"#,
        Duration::from_secs(10),
        "Send to be enabled",
    )
    .await?;
    js(
        client,
        r#"document.querySelector('[data-action="send"]').click(); return true;"#,
    )
    .await?;
    Ok(())
}

/// Waits until turn `turn` of the active conversation has a reply and nothing is running.
/// A failed turn ends the wait with its message.
pub async fn wait_turn_done(client: &Client, turn: i64) -> Result<()> {
    let check = format!(
        r#"(() => {{
            const failed = document.querySelector('[data-turn-state="failed"]');
            if (failed) return 'failed: ' + failed.innerText;
            const running = document.querySelector('[data-live], [data-turn-state="starting"], [data-turn-state="streaming"]');
            const reply = document.querySelector('article[data-role="assistant"][data-turn="{turn}"]:not([data-live])');
            return !running && reply ? 'done' : '';
        }})()"#
    );
    let v = wait_js(client, &check, TURN, &format!("turn {turn} to finish")).await?;
    if let Some(s) = v.as_str() {
        if s.starts_with("failed") {
            bail!("turn {turn} {s}");
        }
    }
    Ok(())
}

/// The window handle that appeared since `before`.
pub async fn new_window(client: &Client, before: &[WindowHandle]) -> Result<WindowHandle> {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let now = client.windows().await?;
        if let Some(h) = now.into_iter().find(|h| !before.contains(h)) {
            return Ok(h);
        }
        if Instant::now() > deadline {
            bail!("no new window appeared");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// How many forks the current window has made (its `__forkhostPerf.forks`).
pub async fn fork_count(client: &Client) -> Result<usize> {
    let v = js(client, "return (window.__forkhostPerf?.forks ?? []).length").await?;
    Ok(v.as_u64().unwrap_or(0) as usize)
}

/// The window that fork number `index` of the current window opened in: switches to it (and
/// waits until it is ready) and returns its handle. Fork windows may be the app's preloaded
/// spare window, so they are found by label, not as a new handle.
pub async fn fork_window(client: &Client, index: usize) -> Result<WindowHandle> {
    let label = wait_js(
        client,
        &format!("(window.__forkhostPerf?.forks ?? [])[{index}]?.window"),
        Duration::from_secs(30),
        "the fork's window",
    )
    .await?;
    let label = label.as_str().unwrap_or_default().to_owned();
    window_by_label(client, &label).await
}

/// Switches to the (non-spare, ready) window with this label; a fork's window once the fork's
/// own list replaced the history shown while it was made (`ui/src/fork/ForkPreview.tsx`).
pub async fn window_by_label(client: &Client, label: &str) -> Result<WindowHandle> {
    let origin = client.window().await?;
    let deadline = Instant::now() + STARTUP;
    let check = format!(
        r#"const a = document.querySelector('.app'); return !!a && a.dataset.window === '{label}' && a.dataset.appReady === 'true' && !a.dataset.spare && !document.querySelector('[data-fork-preview]');"#
    );
    loop {
        for handle in client.windows().await? {
            if client.switch_to_window(handle.clone()).await.is_err() {
                continue;
            }
            if js(client, &check).await.is_ok_and(|v| v == true) {
                return Ok(handle);
            }
        }
        client.switch_to_window(origin.clone()).await?;
        if Instant::now() > deadline {
            bail!("no ready window labelled {label}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The label of the current window, or `None` for a spare one.
pub async fn window_label(client: &Client) -> Result<Option<String>> {
    let v = js(
        client,
        "const a = document.querySelector('.app'); return a && !a.dataset.spare ? a.dataset.window : null;",
    )
    .await?;
    Ok(v.as_str().map(str::to_owned))
}

/// Switches to a window and waits until its UI is ready.
pub async fn switch_ready(client: &Client, handle: &WindowHandle) -> Result<()> {
    client.switch_to_window(handle.clone()).await?;
    wait_css(client, READY, STARTUP).await?;
    Ok(())
}

/// The tabs of the current window: (thread id, kind), and the active one's thread id.
pub async fn tabs(client: &Client) -> Result<(Vec<(String, String)>, Option<String>)> {
    let v = js(
        client,
        r#"return [Array.from(document.querySelectorAll('[role="tab"][data-thread-id]')).map(t => [t.dataset.threadId, t.dataset.tabKind]),
                   document.querySelector('[role="tab"][aria-selected="true"]')?.dataset.threadId ?? null];"#,
    )
    .await?;
    let list = v[0]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|t| {
            (
                t[0].as_str().unwrap_or("").to_owned(),
                t[1].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    Ok((list, v[1].as_str().map(str::to_owned)))
}

/// Starts a thread through New thread: harness, folder, first prompt; waits for its reply.
pub async fn new_thread(
    client: &Client,
    harness: &str,
    cwd: &Path,
    prompt: &str,
) -> Result<String> {
    new_thread_with_mode(client, harness, cwd, prompt, &[]).await
}

/// Chooses `value` in the `<select>` matched by `css` the way a user's pick reaches React (a
/// `change` event).
pub async fn choose(client: &Client, css: &str, value: &str) -> Result<()> {
    let done = js_args(
        client,
        r#"const [css, value] = arguments;
           const s = document.querySelector(css);
           if (!s || s.disabled || ![...s.options].some(o => o.value === value)) return false;
           Object.getOwnPropertyDescriptor(HTMLSelectElement.prototype, 'value').set.call(s, value);
           s.dispatchEvent(new Event('change', { bubbles: true }));
           return s.value === value;"#,
        vec![json!(css), json!(value)],
    )
    .await?;
    anyhow::ensure!(done == true, "cannot choose {value:?} in {css}");
    Ok(())
}

/// [`new_thread`], choosing the permission mode in the dialog first: `(field, word)` pairs,
/// `field` being `mode` or `sandbox` (the dialog's `select[data-field=…]`).
pub async fn new_thread_with_mode(
    client: &Client,
    harness: &str,
    cwd: &Path,
    prompt: &str,
    mode: &[(&str, &str)],
) -> Result<String> {
    new_thread_on(client, None, harness, cwd, prompt, mode).await
}

/// [`new_thread_with_mode`] on the remote host `machine` (the dialog's Machine choice; `cwd` a
/// folder there), or on this machine for `None`.
pub async fn new_thread_on(
    client: &Client,
    machine: Option<&str>,
    harness: &str,
    cwd: &Path,
    prompt: &str,
    mode: &[(&str, &str)],
) -> Result<String> {
    let (id, _) = new_thread_asked(client, machine, harness, cwd, prompt, mode, None).await?;
    Ok(id)
}

/// [`new_thread_on`] in a folder whose project agent config is undecided: the trust dialog
/// comes up after Start thread, and `trust` (`trust-yes`, `trust-no`) answers it. The tab's
/// thread id and the dialog's question.
pub async fn new_thread_trusting(
    client: &Client,
    machine: Option<&str>,
    harness: &str,
    cwd: &Path,
    prompt: &str,
    trust: &str,
) -> Result<(String, String)> {
    let (id, question) =
        new_thread_asked(client, machine, harness, cwd, prompt, &[], Some(trust)).await?;
    Ok((id, question.unwrap_or_default()))
}

async fn new_thread_asked(
    client: &Client,
    machine: Option<&str>,
    harness: &str,
    cwd: &Path,
    prompt: &str,
    mode: &[(&str, &str)],
    trust: Option<&str>,
) -> Result<(String, Option<String>)> {
    click(client, r#"button[data-action="new-thread"]"#).await?;
    wait_css(
        client,
        r#"[data-dialog="new-thread"]"#,
        Duration::from_secs(10),
    )
    .await?;
    if let Some(machine) = machine {
        let radio = format!(r#"input[data-machine="{machine}"]"#);
        wait_css(client, &radio, Duration::from_secs(30)).await?;
        js(
            client,
            &format!(r#"document.querySelector('{radio}').click(); return true;"#),
        )
        .await?;
    }
    // The harness list comes from doctor; wait until this one is selectable.
    let radio = format!(r#"input[data-harness="{harness}"]"#);
    wait_js(
        client,
        &format!(
            r#"document.querySelector('{radio}') && !document.querySelector('{radio}').disabled"#
        ),
        Duration::from_secs(30),
        &format!("{harness} to be available"),
    )
    .await?;
    js(
        client,
        &format!(r#"document.querySelector('{radio}').click(); return true;"#),
    )
    .await?;
    // The mode choice shows once doctor answered (it moves the dialog's buttons): wait for it.
    wait_css(
        client,
        &format!(r#"[data-dialog="new-thread"] [data-mode-picker="{harness}"]"#),
        Duration::from_secs(30),
    )
    .await?;
    for (field, word) in mode {
        let css = format!(
            r#"[data-dialog="new-thread"] [data-mode-picker="{harness}"] select[data-field="{field}"]"#
        );
        wait_css(client, &css, Duration::from_secs(10)).await?;
        choose(client, &css, word).await?;
    }
    let cwd_field = wait_css(client, r#"input[data-field="cwd"]"#, Duration::from_secs(5)).await?;
    cwd_field.clear().await.ok();
    cwd_field.send_keys(&cwd.to_string_lossy()).await?;
    type_into(client, r#"textarea[data-field="prompt"]"#, prompt).await?;
    start_thread(client).await?;
    let question = match trust {
        Some(action) => {
            let question = wait_js(
                client,
                r#"document.querySelector('[data-dialog="trust"] [data-trust-question]')?.textContent || null"#,
                Duration::from_secs(60),
                "the folder's trust question",
            )
            .await?;
            click(
                client,
                &format!(r#"[data-dialog="trust"] [data-action="{action}"]"#),
            )
            .await?;
            Some(question.as_str().unwrap_or_default().to_owned())
        }
        None => None,
    };
    wait_js(
        client,
        r#"!document.querySelector('[data-dialog="new-thread"]')"#,
        Duration::from_secs(60),
        "the New thread dialog to close",
    )
    .await?;
    wait_turn_done(client, 1).await?;
    let (_, active) = tabs(client).await?;
    let active = active.ok_or_else(|| anyhow!("no active tab after New thread"))?;
    Ok((active, question))
}

/// `Forkhost`'s `__forkhostPerf` record of the current window.
pub async fn perf(client: &Client) -> Result<Value> {
    js(client, "return window.__forkhostPerf ?? null;").await
}

/// Memory of a process tree, in kB.
#[derive(Debug, Default, Clone, Copy)]
pub struct Memory {
    /// The app and its WebKit processes: resident set (shared pages counted in each process).
    pub app_rss: u64,
    /// The same, proportional (shared pages split between the processes that map them).
    pub app_pss: u64,
    /// Everything else under the app (harness CLIs, their node/tool children): resident set.
    pub harness_rss: u64,
}

/// The memory of a process and its descendants, split into the app's own processes (the app
/// and its WebKit helpers) and harness processes (anything else: node, claude, codex…).
pub fn memory_kb(root_pid: u32) -> (Memory, Vec<(u32, String, u64, u64)>) {
    let mut procs: Vec<(u32, u32, String)> = Vec::new();
    for pid in forkhost_tests::procs::pids() {
        if let Some((name, ppid)) = forkhost_tests::procs::name_and_parent(pid) {
            procs.push((pid, ppid, name));
        }
    }
    let mut tree = vec![root_pid];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        for p in &procs {
            if p.1 == parent && !tree.contains(&p.0) {
                tree.push(p.0);
            }
        }
        i += 1;
    }
    let rollup = |pid: u32, key: &str| -> u64 {
        std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
            .unwrap_or_default()
            .lines()
            .find(|l| l.starts_with(key))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let mut mem = Memory::default();
    let mut list = Vec::new();
    for p in procs.iter().filter(|p| tree.contains(&p.0)) {
        let rss = rollup(p.0, "Rss:");
        let pss = rollup(p.0, "Pss:");
        let ours = p.0 == root_pid || p.2.starts_with("WebKit") || p.2.starts_with("forkhost");
        if ours {
            mem.app_rss += rss;
            mem.app_pss += pss;
        } else {
            mem.harness_rss += rss;
        }
        list.push((p.0, p.2.clone(), rss, pss));
    }
    (mem, list)
}

/// The app's pid: the forkhost-app process whose FORKHOST_DATA_DIR is `data_dir`.
pub fn app_pid(data_dir: &Path) -> Option<u32> {
    let want = format!("FORKHOST_DATA_DIR={}", data_dir.display());
    for entry in std::fs::read_dir("/proc").ok()?.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
        if !comm.trim().starts_with("forkhost-app") {
            continue;
        }
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if environ.split(|b| *b == 0).any(|kv| kv == want.as_bytes()) {
            return Some(pid);
        }
    }
    None
}

// ---- a bare session: a launcher that only sets the data folder (app_shell, deb_install) ------

/// A WebDriver session that starts `launcher`.
pub async fn start_session(webdriver_url: &str, launcher: &Path) -> Result<Client> {
    let mut caps = fantoccini::wd::Capabilities::new();
    caps.insert(
        "tauri:options".into(),
        json!({ "application": launcher, "args": [] }),
    );
    caps.insert("browserName".into(), json!("wry"));
    let mut builder = ClientBuilder::new(HttpConnector::new());
    builder.capabilities(caps);
    let connect = builder.connect(webdriver_url);
    // WebKitWebDriver waits for ever for an app that died at start (its panic is in
    // test-artifacts/tauri-driver.log): fail the test instead of the whole run's budget.
    tokio::time::timeout(SESSION_START, connect)
        .await
        .map_err(|_| {
            anyhow!(
                "no WebDriver session within {SESSION_START:?}: the app did not start (see test-artifacts/tauri-driver.log)"
            )
        })?
        .with_context(|| format!("WebDriver session at {webdriver_url} (is tauri-driver running?)"))
}

/// How long the app may take to start under WebDriver before a test gives up.
const SESSION_START: Duration = Duration::from_secs(60);

/// A launcher script (in `dir`) that runs `app` with `FORKHOST_DATA_DIR` set to `data_dir`
/// and a fresh HOME in `dir` (tauri-driver cannot set an app's environment per session). The
/// empty window asks the harnesses whether they are signed in, which must never read or write
/// the real `~/.claude`, `~/.codex` or `~/.pi`.
pub fn write_launcher(dir: &Path, app: &Path, data_dir: &Path) -> Result<PathBuf> {
    let path = dir.join("forkhost-app-launcher");
    let home = dir.join("home");
    std::fs::create_dir_all(&home)?;
    let script = format!(
        "#!/bin/sh\nFORKHOST_DATA_DIR={}\nexport FORKHOST_DATA_DIR\nHOME={}\nexport HOME\nexec {} \"$@\"\n",
        sh_quote(&data_dir.to_string_lossy()),
        sh_quote(&home.to_string_lossy()),
        sh_quote(&std::fs::canonicalize(app)?.to_string_lossy()),
    );
    write_executable(&path, &script)?;
    Ok(path)
}

/// Waits for a line satisfying `wanted` in a log file under `log_dir` (the app's writer is
/// non-blocking); returns that file.
pub async fn wait_for_log(
    log_dir: &Path,
    timeout: Duration,
    wanted: impl Fn(&str) -> bool,
) -> Result<PathBuf> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Ok(entries) = std::fs::read_dir(log_dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_file()
                    && std::fs::read_to_string(&path).is_ok_and(|text| text.lines().any(&wanted))
                {
                    return Ok(path);
                }
            }
        }
        if Instant::now() > deadline {
            bail!("no such line in the logs of {}", log_dir.display());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits for a log line containing `needle`.
pub async fn wait_for_log_line(log_dir: &Path, needle: &str) -> Result<PathBuf> {
    wait_for_log(log_dir, Duration::from_secs(10), |line| {
        line.contains(needle)
    })
    .await
    .with_context(|| format!("waiting for {needle:?}"))
}

/// Saves a PNG of the window as `test-artifacts/<name>.png` at the repository root.
pub async fn save_screenshot(client: &Client, name: &str) -> Result<PathBuf> {
    let png = client.screenshot().await.context("taking a screenshot")?;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-artifacts");
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{name}.png"));
    std::fs::write(&path, png)?;
    Ok(path.canonicalize().unwrap_or(path))
}

/// Opens the Fork menu of turn `turn`'s reply, picks `item`, and switches to the fork's window.
pub async fn fork_from_menu(client: &Client, turn: u32, item: &str) -> Result<()> {
    let forks = fork_count(client).await?;
    let chevron = format!(
        r#"article[data-role="assistant"][data-turn="{turn}"] button[data-action="fork-options"]"#
    );
    // A menu closes when the window loses focus (another window appearing on a loaded
    // machine's display): open it again before giving up.
    let mut tries = 0;
    loop {
        click(client, &chevron).await?;
        match menu_item(client, item).await {
            Ok(()) => break,
            Err(e) if tries == 2 => return Err(e),
            Err(_) => tries += 1,
        }
    }
    fork_window(client, forks).await?;
    Ok(())
}

/// Clicks the open context menu's item whose text starts with `label`.
pub async fn menu_item(client: &Client, label: &str) -> Result<()> {
    let found = wait_js(
        client,
        &format!(
            r#"(() => {{
                const item = [...document.querySelectorAll('[role="menuitem"]')]
                  .find(b => b.innerText.trim().startsWith({label}) && !b.disabled);
                if (!item) return false;
                item.click();
                return true;
            }})()"#,
            label = json!(label)
        ),
        Duration::from_secs(10),
        &format!("the menu item {label:?}"),
    )
    .await?;
    ensure!(found == true, "no menu item {label:?}");
    Ok(())
}

/// Runs git in `dir` without the user's own configuration (and with a test identity); returns
/// what it printed.
pub fn git(dir: &Path, args: &[&str]) -> Result<String> {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args(args)
        .output()
        .context("running git")?;
    ensure!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The composer of the conversation shown waits while a terminal tab has its session.
pub async fn composer_waits(client: &Client) -> Result<()> {
    let disabled = js(
        client,
        r#"return document.querySelector('textarea[data-role="composer"]').disabled"#,
    )
    .await?;
    anyhow::ensure!(
        disabled == true,
        "the composer should wait while the terminal has the session"
    );
    Ok(())
}

/// Closes the terminal tab (of `thread`, else the only one) and waits until the composer is
/// usable again: the session is handed back.
pub async fn close_terminal(client: &Client, thread: Option<&str>) -> Result<()> {
    let of = thread
        .map(|t| format!(r#"[data-thread-id="{t}"]"#))
        .unwrap_or_default();
    click(
        client,
        &format!(r#"[role="tab"][data-tab-kind="terminal"]{of} [data-action="close-tab"]"#),
    )
    .await?;
    wait_js(
        client,
        r#"!document.querySelector('textarea[data-role="composer"]').disabled"#,
        Duration::from_secs(10),
        "the composer to be usable",
    )
    .await?;
    Ok(())
}

/// Clicks New thread's Start thread. A click can land on whatever a late report moved under it
/// (WebDriver calls that a success): it is clicked again until the dialog is busy, gone or
/// asking about the folder. A busy button is disabled, so a second click never starts a second
/// thread.
pub async fn start_thread(client: &Client) -> Result<()> {
    for attempt in 1..=3 {
        click(client, r#"button[data-action="create-thread"]"#).await?;
        let started = wait_js(
            client,
            r#"!document.querySelector('[data-dialog="new-thread"]') || document.querySelector('button[data-action="create-thread"]')?.disabled || !!document.querySelector('[data-dialog="trust"]')"#,
            Duration::from_secs(10),
            "the New thread dialog to start the thread",
        )
        .await;
        match started {
            Ok(_) => return Ok(()),
            Err(err) if attempt == 3 => return Err(err),
            Err(_) => {}
        }
    }
    Ok(())
}

/// The fake model's reply to `text` in turn `turn`.
pub fn reply(turn: usize, text: &str) -> Msg {
    Msg::assistant(format!("reply (turn {turn}) to: {text}"))
}

/// A conversation of these prompts, each answered by the fake model in its turn.
pub fn history(prompts: &[&str]) -> Vec<Msg> {
    let mut out = Vec::new();
    for (i, p) in prompts.iter().enumerate() {
        out.push(Msg::user(*p));
        out.push(reply(i + 1, p));
    }
    out
}

/// What the model received in its last request.
pub fn last_conversation(model: &FakeModel) -> Result<Vec<Msg>> {
    Ok(model
        .last_model_request()
        .context("the model got no request")?
        .conversation())
}
