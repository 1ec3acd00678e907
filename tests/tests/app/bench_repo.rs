//! Benchmark (issue 22 item 1): click Fork → the fork's window with its history, in a real-sized
//! repository, with "When I fork: a new worktree" (the default). The fork must open at once
//! whatever the repository weighs; its files are filled afterwards ("Preparing files n / N" in
//! its header). Printed, nothing asserted about time:
//!
//! - click → history shown and → fork ready (composer live), as `app_bench_forks` measures them;
//! - click → files ready (the header's "Preparing files" gone), and the most the header counted;
//! - beside them, `git worktree add` of the same commit on the same machine.
//!
//! The first fork has no spare worktree to claim (git writes every file, or the file system
//! clones them); each later one claims the spare the Host filled after the fork before it.
//!
//! The repository has `FORKHOST_BENCH_FILES` files of 20 KiB (default 5,000, 100 MB, so the
//! suite stays quick; 50,000 is the issue's 1 GB repository), in a temporary folder (put it on
//! a file system with copy-on-write clones with `TMPDIR`, as the app's data folder must be).
//! It checks (and fails on) what a bench must get right: each fork is a worktree fork holding
//! every file. Run with `scripts/app-e2e.sh app_bench_repo`.

use crate::app_support;

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{ensure, Context, Result};
use app_support::forks::{bench_fork, median_p90, BuildLoad, ForkWindowFigures};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

/// Forks per condition (quiet, loaded).
const RUNS: usize = 3;
/// `forkhost_worktree::NO_CLONES_ENV`: git writes every file of a fork.
const NO_CLONES_ENV: &str = "FORKHOST_NO_CLONES";
const PER_DIR: usize = 100;
/// ~20 KiB per file, as the worktree crate's checkpoint bench.
const FILE_LINES: usize = 400;

fn files() -> usize {
    std::env::var("FORKHOST_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if app_support::forks::bench_quick() {
            500
        } else {
            5_000
        })
}

/// `n` files of ~20 KiB in folders of `PER_DIR`, committed.
fn repository(repo: &Path, n: usize) -> Result<()> {
    std::fs::create_dir_all(repo)?;
    git(repo, &["init", "-q", "-b", "main"])?;
    for i in 0..n {
        let dir = repo.join(format!("dir{:04}", i / PER_DIR));
        if i % PER_DIR == 0 {
            std::fs::create_dir_all(&dir)?;
        }
        let mut text = String::with_capacity(FILE_LINES * 52);
        for line in 0..FILE_LINES {
            text.push_str(&format!(
                "file {i:06} line {line:04} of a generated source tree\n"
            ));
        }
        std::fs::write(dir.join(format!("file {:03}.txt", i % PER_DIR)), text)?;
    }
    git(repo, &["add", "-A"])?;
    git(repo, &["commit", "-q", "-m", "generated"])?;
    // A user's repository is on disk long before a fork; the gigabyte just written is not yet,
    // and a copy-on-write clone first waits for its source's pending writes.
    #[cfg(unix)]
    let _ = std::process::Command::new("sync").status();
    Ok(())
}

#[tokio::test(flavor = "multi_thread")]
async fn app_bench_fork_in_a_big_repository() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(harness) = HarnessEnv::for_fake(Harness::Claude, &model)? else {
        println!("app_bench_repo: skipped (Claude Code is not installed)");
        return Ok(());
    };
    let n = files();
    let parent = tempfile::Builder::new()
        .prefix("forkhost-bench-repo-")
        .tempdir()?;
    let repo = parent.path().join("repo");
    let t = Instant::now();
    repository(&repo, n)?;
    println!(
        "app_bench_repo: {n} files generated and committed in {:.1} s",
        t.elapsed().as_secs_f64()
    );

    let software = !has_render_node();
    let mut vars = vec![(
        "WEBKIT_DISABLE_COMPOSITING_MODE".to_owned(),
        if software { "1" } else { "0" }.to_owned(),
    )];
    // `FORKHOST_NO_CLONES=1`: the same forks with git writing every file (the A/B of the
    // copy-on-write fill on a file system that clones).
    let no_clones = std::env::var(NO_CLONES_ENV).is_ok_and(|v| v == "1");
    if no_clones {
        vars.push((NO_CLONES_ENV.to_owned(), "1".to_owned()));
    }
    let env = AppEnv::with_vars(&app, Some(&harness), &vars)?;
    let mut shots = Shots::new("app_bench_repo")?;
    if software {
        shots = shots.without_compositing();
    }
    let client = env.launch().await?;
    let result = forks(&client, &repo, n, &mut shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        keep_logs(&env.data_dir);
    }
    client.close().await.ok();
    let mut lines = result?;
    // Where each fill's time went, as the app logged it (the clones, git's checkout).
    lines.extend(fill_log_lines(&env.data_dir));

    // The anchor: git's own checkout of the same commit, on the same machine.
    let plain = parent.path().join("plain");
    let t = Instant::now();
    git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "--detach",
            &plain.display().to_string(),
            "HEAD",
        ],
    )?;
    let plain_ms = t.elapsed().as_secs_f64() * 1000.0;
    git(
        &repo,
        &[
            "worktree",
            "remove",
            "--force",
            &plain.display().to_string(),
        ],
    )?;

    println!();
    println!(
        "=== fork into a worktree in a {n}-file repository (~{} MB) ===",
        n * FILE_LINES * 52 / 1_000_000
    );
    for line in &lines {
        println!("{line}");
    }
    if no_clones {
        println!("(clones turned off: {}=1)", NO_CLONES_ENV);
    }
    println!("beside: git worktree add of the same commit {plain_ms:.0} ms");
    println!("goal: click → fork window with its history ≤ 150 ms loaded, whatever the repository's size; the files filled afterwards");
    println!("======================");
    Ok(())
}

/// A two-turn Claude thread in `repo`, then `RUNS` worktree forks quiet and `RUNS` loaded.
async fn forks(client: &Client, repo: &Path, n: usize, shots: &mut Shots) -> Result<Vec<String>> {
    new_thread(client, "claude", repo, "first prompt").await?;
    send_prompt(client, "second prompt").await?;
    wait_turn_done(client, 2).await?;
    let (_, active) = tabs(client).await?;
    let thread = active.context("no active tab")?;
    let mut lines = Vec::new();
    let quiet = runs(client, &thread, n, shots, "quiet", None).await?;
    lines.push(format!("quiet: {}", summary(&quiet)));
    let mut loaded = Vec::new();
    if app_support::forks::bench_quick() {
        lines.push("loaded: skipped (FORKHOST_BENCH_QUICK=1)".to_owned());
    } else {
        let mut load = BuildLoad::start()?;
        tokio::time::sleep(Duration::from_secs(5)).await;
        loaded = runs(client, &thread, n, shots, "loaded", Some(&mut load)).await?;
        lines.push(format!(
            "loaded by {}: {}",
            load.describe(),
            summary(&loaded)
        ));
    }
    for (label, set) in [("quiet", &quiet), ("loaded", &loaded)] {
        for (i, (figures, files)) in set.iter().enumerate() {
            lines.push(format!(
                "  {label} fork {}{}: {}; files ready {:.0} ms (the header counted up to {})",
                i + 1,
                if i == 0 && label == "quiet" {
                    " (no spare yet)"
                } else {
                    ""
                },
                figures.line(),
                files.ready_ms,
                files
                    .most_counted
                    .as_deref()
                    .unwrap_or("nothing: ready at once"),
            ));
        }
    }
    Ok(lines)
}

/// When a fork's files were all there, and the header's count at its highest.
struct FilesReady {
    ready_ms: f64,
    most_counted: Option<String>,
}

async fn runs(
    client: &Client,
    thread: &str,
    n: usize,
    shots: &mut Shots,
    label: &str,
    mut load: Option<&mut BuildLoad>,
) -> Result<Vec<(ForkWindowFigures, FilesReady)>> {
    let mut out = Vec::new();
    for i in 0..app_support::forks::bench_runs(RUNS) {
        // Time for the Host to fill the spare worktree the last fork left it to fill.
        let settle = if load.is_some() { 20 } else { 10 };
        tokio::time::sleep(Duration::from_secs(settle)).await;
        if let Some(load) = load.as_deref_mut() {
            load.keep_busy()?;
        }
        let main = client.window().await?;
        let index = fork_count(client).await?;
        let figures = bench_fork(client, thread, shots, &format!("{label}-{i}"), false).await?;
        let files = files_ready(client, index).await?;
        fork_window(client, index).await?;
        let folder = js(
            client,
            r#"const h = document.querySelector('.conv-head');
               return [h?.querySelector('[data-folder-kind]')?.dataset.folderKind ?? null,
                       h?.querySelector('.conv-head__cwd')?.getAttribute('title') ?? null];"#,
        )
        .await?;
        ensure!(
            folder[0] == "worktree",
            "fork {i} ({label}) is not a worktree fork: {folder}"
        );
        let worktree = Path::new(folder[1].as_str().context("the fork's folder")?);
        let held = count_files(worktree)?;
        ensure!(
            held == n,
            "fork {i} ({label}) holds {held} files of {n} once its files are ready"
        );
        client.close_window().await?;
        client.switch_to_window(main).await?;
        ensure!(
            figures.painted.is_finite(),
            "fork {i} ({label}) has no paint time"
        );
        out.push((figures, files));
    }
    Ok(out)
}

/// Waits (in the source's window, which hears every fork's fill) until fork number `index`'s
/// files are ready: its click → the fill's end, and the most files its progress counted.
async fn files_ready(client: &Client, index: usize) -> Result<FilesReady> {
    let fill = wait_js(
        client,
        &format!(
            "(() => {{ const p = window.__forkhostPerf; const f = p.forks[{index}];
                 const fill = f && p.fills[f.forkId];
                 return fill && fill.preparedAt !== null ? {{ ...fill, clickedAt: f.clickedAt }} : null; }})()"
        ),
        Duration::from_secs(300),
        "the fork's files",
    )
    .await?;
    let n = |k: &str| fill[k].as_f64().unwrap_or(f64::NAN);
    let most = (n("total") > 0.0).then(|| format!("{} / {}", n("done"), n("total")));
    Ok(FilesReady {
        ready_ms: n("preparedAt") - n("clickedAt"),
        most_counted: most,
    })
}

/// The app's log lines about filling a fork's worktree (`crates/worktree`: "files cloned from
/// the source checkout", "worktree filled", "spare worktree filled"), shortened to their fields.
fn fill_log_lines(data_dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(data_dir.join("logs")) else {
        return out;
    };
    for entry in entries.flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        for line in text.lines() {
            if ["files cloned from the source checkout", "worktree filled"]
                .iter()
                .any(|m| line.contains(m))
            {
                out.push(format!("  app log: {}", line.trim()));
            }
        }
    }
    out
}

/// The app's log files, into `test-artifacts/app_bench_repo/logs` (the data folder goes with
/// the test).
fn keep_logs(data_dir: &Path) {
    let into = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test-artifacts/app_bench_repo/logs");
    let _ = std::fs::create_dir_all(&into);
    if let Ok(entries) = std::fs::read_dir(data_dir.join("logs")) {
        for entry in entries.flatten() {
            let _ = std::fs::copy(entry.path(), into.join(entry.file_name()));
        }
    }
}

/// Files under `dir`, not counting git's own (`.git` is a file in a worktree).
fn count_files(dir: &Path) -> Result<usize> {
    let mut n = 0;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_name() == ".git" {
            continue;
        }
        if entry.file_type()?.is_dir() {
            n += count_files(&entry.path())?;
        } else {
            n += 1;
        }
    }
    Ok(n)
}

fn summary(runs: &[(ForkWindowFigures, FilesReady)]) -> String {
    let of = |f: &dyn Fn(&(ForkWindowFigures, FilesReady)) -> f64| {
        median_p90(&runs.iter().map(f).collect::<Vec<_>>())
    };
    let (history, history90) = of(&|r| r.0.history);
    let (painted, painted90) = of(&|r| r.0.painted);
    let (files, files90) = of(&|r| r.1.ready_ms);
    format!(
        "click → history shown {history:.0} ms (p90 {history90:.0}), fork ready {painted:.0} ms (p90 {painted90:.0}), files ready {files:.0} ms (p90 {files90:.0}) (median / p90 of {})",
        runs.len()
    )
}
