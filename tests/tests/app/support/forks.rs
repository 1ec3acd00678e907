//! Fork timing in the app, for the benchmarks: click Fork → the fork's window (or tab) painted,
//! read from the windows' `window.__forkhostPerf` marks; and a machine kept busy by a parallel
//! `cargo build` for the figures "under load".

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use fantoccini::Client;
use serde_json::{json, Value};

use super::cpu::{CpuSpent, CpuTrace};
use super::{click, fork_count, fork_window, js, js_args, wait_js, Shots};

/// One click → fork window painted, in ms (wall clock across the two windows).
#[derive(Debug, Clone)]
pub struct ForkWindowFigures {
    /// Click → the inherited history painted in the window: the preview shown while the
    /// harness forks (`src-tauri/src/fork_preview.rs`), else the fork's own list.
    pub history: f64,
    /// The history came from the preview (the fork was not ready yet).
    pub previewed: bool,
    /// Click → the fork's own list painted (its composer live).
    pub painted: f64,
    pub command: f64,
    pub native: f64,
    /// The harness forked in a warm spare.
    pub warm: bool,
    pub host_total: f64,
    pub data: f64,
    pub render: f64,
    pub paint_after_data: f64,
    pub rows: Value,
    pub reads: usize,
    /// The CPU of the app, its web views, its harnesses and the display during the fork
    /// command (click → the command's answer, which holds the native fork).
    pub cpu: CpuSpent,
}

impl ForkWindowFigures {
    pub fn line(&self) -> String {
        format!(
            "click → history shown {:.0} ms{}, fork ready (composer live) {:.0} ms (fork command {:.0} ms: native {:.1} ms{}, host total {:.1} ms; click → data in the window {:.0} ms; window: render {:.0} ms and paint {:.0} ms after the data; {} rows; {} full reads in the window)",
            self.history,
            if self.previewed { " (preview)" } else { "" },
            self.painted,
            self.command,
            self.native,
            if self.warm { " in a warm spare" } else { "" },
            self.host_total,
            self.data,
            self.render,
            self.paint_after_data,
            self.rows,
            self.reads,
        )
    }
}

/// Clicks Fork on the last reply of `thread` (a tab of the main window, which is current) and
/// measures until the fork's window has painted; closes that window when `close` (so that
/// repeated runs each get the app's spare window, as a user's next fork does) and leaves the
/// main window current again.
pub async fn bench_fork(
    client: &Client,
    thread: &str,
    shots: &mut Shots,
    shot: &str,
    close: bool,
) -> Result<ForkWindowFigures> {
    let main = client.window().await?;
    let trace = CpuTrace::start();
    let forks = click_last_fork(client, thread, false).await?;
    let source_perf = wait_js(
        client,
        &format!("window.__forkhostPerf.forks[{forks}] ?? null"),
        Duration::from_secs(60),
        "the fork's timing",
    )
    .await?;
    fork_window(client, forks).await?;
    let fork_perf = wait_js(
        client,
        "window.__forkhostPerf?.opens.find(o => o.scrollableMs !== null) ?? null",
        Duration::from_secs(60),
        "the fork window's paint",
    )
    .await?;
    let rows = js(
        client,
        "return document.querySelector('.conv-scroll')?.dataset.rows",
    )
    .await?;
    shots.take(client, shot).await;
    // Full reads (`show`) the fork window made within a second of its paint (0 expected:
    // the fork arrives with the window).
    tokio::time::sleep(Duration::from_secs(1)).await;
    let fork_reads = js(client, "return window.__forkhostPerf?.reads ?? []").await?;
    let window_perf = js(
        client,
        "const p = window.__forkhostPerf ?? {}; return { assignedAt: p.assignedAt ?? null, visibleAt: p.visibleAt ?? null, firstFrameAt: p.firstFrameAt ?? null, preview: p.preview ?? null };",
    )
    .await?;
    println!("bench: fork ({shot}): source {source_perf}; window {fork_perf} {window_perf}; its reads {fork_reads}");
    let clicked = source_perf["clickedAt"].as_f64().unwrap_or(0.0);
    let n = |v: &Value, k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    let cpu = trace
        .between(clicked, clicked + n(&source_perf, "commandMs"))
        .unwrap_or_default();
    drop(trace);
    println!(
        "bench: fork ({shot}): during the fork command {}",
        cpu.line()
    );
    let painted = n(&fork_perf, "paintedAt") - clicked;
    // The preview counts only when it painted before the fork's own list did.
    let preview = window_perf["preview"]["paintedAt"]
        .as_f64()
        .map(|at| at - clicked)
        .filter(|&at| at < painted);
    let figures = ForkWindowFigures {
        history: preview.unwrap_or(painted),
        previewed: preview.is_some(),
        painted,
        command: n(&source_perf, "commandMs"),
        native: n(&source_perf, "nativeMs"),
        warm: source_perf["warm"] == true,
        host_total: n(&source_perf, "hostTotalMs"),
        data: n(&fork_perf, "readEpoch") - clicked,
        render: n(&fork_perf, "renderMs"),
        paint_after_data: n(&fork_perf, "firstPaintMs"),
        rows,
        reads: fork_reads.as_array().map_or(0, Vec::len),
        cpu,
    };
    if close {
        client.close_window().await?;
    }
    client.switch_to_window(main).await?;
    let source_reads = js_args(
        client,
        "return window.__forkhostPerf.reads.filter(r => r.startedAt >= arguments[0]).map(r => ({ ...r, startedMs: r.startedAt - arguments[0] }))",
        vec![json!(clicked)],
    )
    .await?;
    println!("bench: fork ({shot}): the source window's reads after the click {source_reads}");
    Ok(figures)
}

/// `n` fork windows of `thread`, each closed again, with the app given time to build its next
/// spare window before each (a user's next fork comes later than that; a busy machine builds it
/// more slowly); `load` is kept busy before each click.
pub async fn fork_runs(
    client: &Client,
    thread: &str,
    shots: &mut Shots,
    label: &str,
    n: usize,
    mut load: Option<&mut BuildLoad>,
) -> Result<Vec<ForkWindowFigures>> {
    let mut out = Vec::new();
    for i in 0..n {
        let settle = if load.is_some() { 8 } else { 4 };
        tokio::time::sleep(Duration::from_secs(settle)).await;
        if let Some(load) = load.as_deref_mut() {
            load.keep_busy()?;
        }
        let figures = bench_fork(client, thread, shots, &format!("{label}-{i}"), true).await?;
        ensure!(
            figures.painted.is_finite() && figures.painted > 0.0,
            "fork {i} ({label}) has no paint time: {figures:?}"
        );
        out.push(figures);
    }
    Ok(out)
}

/// Median and p90 of a set of fork windows: painted, native fork, and where the time went.
pub fn runs_summary(runs: &[ForkWindowFigures]) -> String {
    let of = |f: fn(&ForkWindowFigures) -> f64| median_p90(&runs.iter().map(f).collect::<Vec<_>>());
    let (history, history90) = of(|r| r.history);
    let previewed = runs.iter().filter(|r| r.previewed).count();
    let (painted, painted90) = of(|r| r.painted);
    let (command, _) = of(|r| r.command);
    let (native, native90) = of(|r| r.native);
    let (data, _) = of(|r| r.data);
    let (paint, _) = of(|r| r.paint_after_data);
    let warm = runs.iter().filter(|r| r.warm).count();
    let cpu = CpuSpent::median(&runs.iter().map(|r| r.cpu.clone()).collect::<Vec<_>>());
    format!(
        "click → history shown {history:.0} ms (p90 {history90:.0}; {previewed} of {n} by the preview), fork ready (composer live) {painted:.0} ms (p90 {painted90:.0}); native fork {native:.1} ms (p90 {native90:.1}; {warm} of {n} in a warm spare), fork command {command:.0} ms, click → data in the window {data:.0} ms, data → paint {paint:.0} ms; during the fork command: {}",
        cpu.line(),
        n = runs.len()
    )
}

/// How many forks into a tab the bench makes (one figure was too noisy to compare changes by).
const TAB_RUNS: usize = 5;

/// Ctrl-click Fork on the last reply of `thread` (the main window's active tab), TAB_RUNS times:
/// each fork opens as a tab of this window. Returns the summary line (median / p90).
pub async fn bench_fork_tab(client: &Client, thread: &str) -> Result<String> {
    let (mut history, mut painted, mut command, mut host, mut paint) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..TAB_RUNS {
        let forks = click_last_fork(client, thread, true).await?;
        let source = wait_js(
            client,
            &format!("window.__forkhostPerf.forks[{forks}] ?? null"),
            Duration::from_secs(30),
            "the fork's timing",
        )
        .await?;
        ensure!(
            source["opensIn"] == "tab",
            "Ctrl-click did not fork into a tab: {source}"
        );
        let fork_id = source["forkId"].as_str().unwrap_or_default().to_owned();
        let open = wait_js(
            client,
            &format!(
                "window.__forkhostPerf.opens.find(o => o.threadId === '{fork_id}' && o.paintedAt !== null) ?? null"
            ),
            Duration::from_secs(60),
            "the fork tab's paint",
        )
        .await?;
        // The history the fork inherits, shown in the tab area at the click where the harness's
        // fork is a call that takes a while (ui/src/fork/preview.ts); none for Claude's own.
        let preview = js(client, "return window.__forkhostPerf.preview ?? null").await?;
        println!("bench: fork into a tab: source {source}; tab {open}; preview {preview}");
        let n = |v: &Value, k: &str| v[k].as_f64().unwrap_or(f64::NAN);
        let clicked = n(&source, "clickedAt");
        let tab = n(&open, "paintedAt") - clicked;
        history.push(match preview["paintedAt"].as_f64() {
            Some(at) if n(&preview, "arrivedAt") >= clicked => at - clicked,
            _ => tab,
        });
        painted.push(tab);
        command.push(n(&source, "commandMs"));
        host.push(n(&source, "hostTotalMs"));
        paint.push(n(&open, "firstPaintMs"));
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let (history, history90) = median_p90(&history);
    let (painted, painted90) = median_p90(&painted);
    let (command, _) = median_p90(&command);
    let (host, _) = median_p90(&host);
    let (paint, _) = median_p90(&paint);
    Ok(format!(
        "click → history shown {history:.0} ms (p90 {history90:.0}), fork tab painted {painted:.0} ms (p90 {painted90:.0}); fork command {command:.0} ms (host total {host:.1} ms), paint {paint:.0} ms after the data (median / p90 of {TAB_RUNS})"
    ))
}

/// Shows `thread`'s tab and clicks Fork on its last reply (with Ctrl: the other place than the
/// setting says). Returns how many forks this window had measured before the click.
pub async fn click_last_fork(client: &Client, thread: &str, ctrl: bool) -> Result<usize> {
    click(
        client,
        &format!(r#"[role="tab"][data-thread-id="{thread}"]"#),
    )
    .await?;
    wait_js(
        client,
        "document.querySelectorAll('article[data-role=\"assistant\"] button[data-action=\"fork\"]:not([aria-disabled])').length > 0",
        Duration::from_secs(30),
        "an enabled Fork",
    )
    .await?;
    let forks = fork_count(client).await?;
    js_args(
        client,
        r#"const b = Array.from(document.querySelectorAll('article[data-role="assistant"] button[data-action="fork"]')).pop();
           b.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, ctrlKey: arguments[0] }));
           return true;"#,
        vec![json!(ctrl)],
    )
    .await?;
    Ok(forks)
}

/// Median and 90th percentile (nearest rank) of `xs`.
pub fn median_p90(xs: &[f64]) -> (f64, f64) {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let p90 = ((v.len() as f64 * 0.9).ceil() as usize).clamp(1, v.len()) - 1;
    (v[v.len() / 2], v[p90])
}

/// A machine busy the way a developer's is: a cold `cargo build` of one of the workspace's
/// crates (with its dependencies) into a target folder of its own, started again whenever it
/// finishes, until dropped. Its output is discarded; the folder is deleted.
pub struct BuildLoad {
    child: Option<Child>,
    dir: tempfile::TempDir,
    runs: usize,
}

impl BuildLoad {
    pub fn start() -> Result<BuildLoad> {
        let dir = tempfile::Builder::new()
            .prefix("forkhost-bench-load-")
            .tempdir()?;
        let mut load = BuildLoad {
            child: None,
            dir,
            runs: 0,
        };
        load.spawn()?;
        Ok(load)
    }

    fn workspace() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    fn spawn(&mut self) -> Result<()> {
        self.runs += 1;
        let target = self.dir.path().join(format!("run-{}", self.runs));
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
        let mut command = Command::new(cargo);
        command
            .args(["build", "--quiet", "-p", "forkhost-store", "--target-dir"])
            .arg(&target)
            .current_dir(Self::workspace())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // A group of its own: stopping the load stops cargo's rustc processes too.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let child = command.spawn().context("starting the load's cargo build")?;
        // The previous run's artifacts are not needed again.
        if self.runs > 1 {
            let _ = std::fs::remove_dir_all(self.dir.path().join(format!("run-{}", self.runs - 1)));
        }
        self.child = Some(child);
        Ok(())
    }

    /// Starts the build again if it has finished (call before each measurement).
    pub fn keep_busy(&mut self) -> Result<()> {
        let finished = match self.child.as_mut() {
            Some(child) => child.try_wait()?.is_some(),
            None => true,
        };
        if finished {
            self.spawn()?;
        }
        Ok(())
    }

    pub fn describe(&self) -> String {
        format!(
            "a parallel `cargo build -p forkhost-store` into an empty target folder ({} run(s))",
            self.runs
        )
    }
}

impl Drop for BuildLoad {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SAFETY: a plain kill(2) of the process group this load started.
            #[cfg(unix)]
            unsafe {
                libc::kill(-(child.id() as i32), libc::SIGKILL)
            };
            #[cfg(not(unix))]
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

pub use forkhost_tests::bench_quick;

/// How many runs a condition gets: `full`, or one in the quick form.
pub fn bench_runs(full: usize) -> usize {
    if bench_quick() {
        1
    } else {
        full
    }
}
