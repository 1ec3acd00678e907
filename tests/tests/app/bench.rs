//! Benchmarks of the desktop app (figures are printed; nothing is asserted about time):
//!
//! - open a 10,000-message thread: the time to read it (`show` over IPC), and from the data
//!   being read to the list's first paint and to a scrollable list at its end (goal ≤ 300 ms);
//!   then scrolling it end to end (frame intervals);
//! - the app's memory (PSS of the app and its WebKit processes; harness processes excluded)
//!   with 10 tabs open (goal ≤ 350 MB), and after each tab opened (what a tab costs);
//! - a 200 KB reply streamed in 2 KB deltas at 50 deltas/s into an open conversation: main
//!   thread busy time per second, dropped frames, the heap after it; now and the way it was
//!   rendered before (all the text on every delta); then into 2, 4 and 8 threads at once, one
//!   shown and the rest in tabs behind it (the window's side of many live forks);
//! - click Fork on that thread, and on one of 300 messages → the fork's window shows its history,
//!   on a quiet machine and on one kept busy by a parallel `cargo build` (goals: ≤ 250 ms and
//!   ≤ 150 ms median under load; a tab ≤ 60 ms; per harness: app_bench_forks).
//!
//! The threads are synthetic Claude transcripts in a temporary HOME, opened through the
//! sidebar's "On this machine" list (which imports them). Run with `scripts/app-e2e.sh app_bench`.

use crate::app_support;

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::{ensure, Context, Result};
use app_support::forks::{bench_fork_tab, fork_runs, runs_summary, BuildLoad};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::need::{need, Group};
use serde_json::{json, Value};

const BIG_TURNS_PLAIN: usize = 4_000;
const BIG_TURNS_TOOL: usize = 500;
/// 4,000 × (prompt + reply) + 500 × (prompt + text + tool call + reply) = 10,000 messages.
const BIG_MESSAGES: usize = BIG_TURNS_PLAIN * 2 + BIG_TURNS_TOOL * 4;
/// The nine other threads: everyday size.
const SMALL_TURNS: usize = 150;
const SMALL_MESSAGES: usize = SMALL_TURNS * 2;
/// Fork windows per thread size and condition (quiet, loaded).
const FORK_RUNS: usize = 3;
/// The streamed reply: its size, the size of each delta, deltas per second.
const STREAM_BYTES: usize = 200 * 1024;
const STREAM_DELTA: usize = 2 * 1024;
const STREAM_RATE: usize = 50;

/// Writes a Claude Code transcript with the record shapes the CLI writes.
struct Transcript {
    session: String,
    cwd: String,
    parent: Option<String>,
    n: u64,
    out: Vec<u8>,
}

impl Transcript {
    fn new(session: &str, cwd: &Path) -> Self {
        Transcript {
            session: session.to_owned(),
            cwd: cwd.display().to_string(),
            parent: None,
            n: 0,
            out: Vec::new(),
        }
    }

    fn uuid(&mut self) -> String {
        self.n += 1;
        format!("{:08x}-0000-4000-8000-{:012x}", self.n, self.n)
    }

    fn record(&mut self, ty: &str, extra: Value) {
        let uuid = self.uuid();
        let mut v = json!({"parentUuid": self.parent, "isSidechain": false, "type": ty, "uuid": uuid,
            "timestamp": "2026-11-29T18:00:01.000Z", "userType": "external", "entrypoint": "cli",
            "cwd": self.cwd, "sessionId": self.session, "version": "2.1.197", "gitBranch": "main"});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        self.parent = Some(uuid);
        serde_json::to_writer(&mut self.out, &v).unwrap();
        self.out.push(b'\n');
    }

    fn prompt(&mut self, text: &str) {
        self.record(
            "user",
            json!({"message": {"role": "user", "content": text}}),
        );
    }

    fn assistant(&mut self, id: &str, block: Value, stop: &str) {
        self.record(
            "assistant",
            json!({"message": {"id": id, "type": "message", "role": "assistant", "model": "claude-opus-4-8",
                "content": [block], "stop_reason": stop, "stop_sequence": null,
                "usage": {"input_tokens": 1200, "output_tokens": 300}}, "requestId": "req_1"}),
        );
    }

    fn plain_turn(&mut self, i: usize) {
        self.prompt(&format!(
            "Step {i}: please look at `src/module_{}.rs` and explain what `handle_{i}` does.",
            i % 37
        ));
        let reply = match i % 4 {
            0 => format!("Here is what **handle_{i}** does:\n\n1. It reads the input.\n2. It validates it against the schema.\n3. It writes the result to the store.\n\nNothing else touches shared state."),
            1 => format!("The function is short:\n\n```rust\nfn handle_{i}(input: &str) -> Result<u32, Error> {{\n    let n = input.trim().parse::<u32>()?;\n    Ok(n * 2)\n}}\n```\n\nIt doubles a parsed number."),
            2 => format!("Turn {i}. Short answer: it is a thin wrapper around `store::put`, see [the docs](https://example.com/docs/{i})."),
            _ => format!("{}\n\n> Note: this part of the code base is old.", "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(1 + i % 6)),
        };
        self.assistant(
            &format!("msg_{i}"),
            json!({"type": "text", "text": reply}),
            "end_turn",
        );
    }

    fn tool_turn(&mut self, i: usize) {
        self.prompt(&format!("Run the tests of package {i}."));
        self.assistant(
            &format!("msg_{i}_a"),
            json!({"type": "text", "text": "Running them now."}),
            "tool_use",
        );
        let tool = format!("toolu_{i:06}");
        self.assistant(
            &format!("msg_{i}_a"),
            json!({"type": "tool_use", "id": tool, "name": "Bash",
                   "input": {"command": format!("cargo test -p package_{i}"), "description": "Run tests"}}),
            "tool_use",
        );
        let out = format!(
            "running 12 tests\n{}test result: ok. 12 passed",
            "test it_works ... ok\n".repeat(12)
        );
        self.record(
            "user",
            json!({"message": {"role": "user", "content": [{"tool_use_id": tool, "type": "tool_result", "content": out, "is_error": false}]}}),
        );
        self.assistant(
            &format!("msg_{i}_b"),
            json!({"type": "text", "text": format!("All 12 tests of package {i} pass.")}),
            "end_turn",
        );
    }

    fn write(self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir)?;
        let mut f = std::fs::File::create(dir.join(format!("{}.jsonl", self.session)))?;
        f.write_all(&self.out)?;
        Ok(())
    }
}

fn session_id(n: u32) -> String {
    format!("b0000000-0000-4000-8000-{n:012}")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_bench() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let home = tempfile::Builder::new()
        .prefix("forkhost-bench-")
        .tempdir()?;
    let work = home.path().join("work");
    std::fs::create_dir_all(&work)?;
    let projects = home
        .path()
        .join(".claude/projects")
        .join(work.display().to_string().replace(['/', '.'], "-"));

    // The big thread, and nine small ones for the tabs.
    let mut big = Transcript::new(&session_id(1), &work);
    for i in 0..BIG_TURNS_PLAIN + BIG_TURNS_TOOL {
        if i % 9 == 4 && i / 9 < BIG_TURNS_TOOL {
            big.tool_turn(i);
        } else {
            big.plain_turn(i);
        }
    }
    let big_bytes = big.out.len();
    big.write(&projects)?;
    for n in 2..=10 {
        let mut small = Transcript::new(&session_id(n), &work);
        for i in 0..SMALL_TURNS {
            small.plain_turn(i);
        }
        small.write(&projects)?;
    }
    println!(
        "bench: a {BIG_MESSAGES}-message transcript ({:.1} MB) and nine of {SMALL_MESSAGES} messages",
        big_bytes as f64 / 1e6
    );

    let s = |p: &Path| p.display().to_string();
    let mut vars = vec![
        ("HOME".to_owned(), s(home.path())),
        (
            "XDG_CONFIG_HOME".to_owned(),
            s(&home.path().join(".config")),
        ),
        ("XDG_CACHE_HOME".to_owned(), s(&home.path().join(".cache"))),
        (
            "XDG_DATA_HOME".to_owned(),
            s(&home.path().join(".local/share")),
        ),
        (
            "CLAUDE_CONFIG_DIR".to_owned(),
            s(&home.path().join(".claude")),
        ),
    ];
    // Measure what users get: the app's own rendering choice for this machine (plain software
    // rendering without a GPU render node), not the compositing the other e2e tests force so
    // that WebDriver screenshots work.
    let software = !has_render_node();
    vars.push((
        "WEBKIT_DISABLE_COMPOSITING_MODE".to_owned(),
        if software { "1" } else { "0" }.to_owned(),
    ));
    println!(
        "bench: rendering: {}",
        if software {
            "software, no compositing (no GPU render node: the app's default here)"
        } else {
            "compositing (GPU render node)"
        }
    );
    let env = AppEnv::with_vars(&app, None, &vars)?;
    let mut shots = Shots::new("app_bench")?;
    if software {
        shots = shots.without_compositing();
    }
    let client = env.launch().await?;
    let result = bench(&client, &env, &mut shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
    }
    client.close().await.ok();
    result
}

async fn bench(client: &Client, env: &AppEnv, shots: &mut Shots) -> Result<()> {
    let pid = app_pid(&env.data_dir).context("the app's process")?;
    // Idle: the main window without tabs, and the spare window the app preloads for forks.
    tokio::time::sleep(Duration::from_secs(5)).await;
    let (idle, idle_procs) = memory_kb(pid);
    println!("bench: idle processes (pid, name, RSS kB, PSS kB): {idle_procs:?}");

    // Import every session through "On this machine".
    click(client, r#"[data-action="toggle-sessions"]"#).await?;
    wait_js(
        client,
        "document.querySelectorAll('.session[data-session-id]').length >= 10",
        Duration::from_secs(30),
        "the ten sessions on this machine",
    )
    .await?;
    shots.take(client, "sessions").await;
    let big = session_id(1);
    click(client, &format!(r#".session[data-session-id="{big}"]"#)).await?;
    wait_js(
        client,
        "document.querySelectorAll('article[data-turn][data-role]').length > 0",
        Duration::from_secs(60),
        "the big thread",
    )
    .await?;
    let (tab_list, active) = tabs(client).await?;
    let big_thread = active.context("no active tab")?;
    ensure!(tab_list.len() == 1, "{tab_list:?}");

    // Open it from the sidebar, cold (its tab closed, so the window forgets it), three times.
    let mut opens = Vec::new();
    for round in 0..3 {
        click(client, r#"[role="tab"] [data-action="close-tab"]"#).await?;
        wait_css(
            client,
            r#"[data-empty="workspace"]"#,
            Duration::from_secs(10),
        )
        .await?;
        js(client, "window.__forkhostPerf.opens = []; return true;").await?;
        click(
            client,
            &format!(r#"button.thread[data-thread-id="{big_thread}"]"#),
        )
        .await?;
        let open = wait_js(
            client,
            "window.__forkhostPerf.opens.find(o => o.scrollableMs !== null) ?? null",
            Duration::from_secs(60),
            "the thread's paint marks",
        )
        .await?;
        println!("bench: open #{round}: {open}");
        opens.push(open);
    }
    let messages = opens[0]["messages"].as_u64().unwrap_or(0);
    let rendered = js(
        client,
        "return document.querySelectorAll('article[data-turn]').length",
    )
    .await?;
    // The thread's cost comes with its history (the same `show`, no second read): its chip is
    // there when the list is, and the read time above includes pricing 5,000 turns.
    let cost = js(
        client,
        "return document.querySelector('[data-branch-cost]')?.textContent ?? null",
    )
    .await?;
    ensure!(
        cost.as_str().is_some_and(|c| c.starts_with("this branch ")),
        "the big thread's cost chip: {cost}"
    );
    let at_end = js(
        client,
        "const s = document.querySelector('.conv-scroll'); return Math.abs(s.scrollHeight - s.scrollTop - s.clientHeight) < 4;",
    )
    .await?;
    ensure!(at_end == true, "the list should open at its end");
    shots.take(client, "big-thread").await;

    // Scroll like a wheel or trackpad: 150 frames of 120 px up from the end, then 40 jumps
    // (a dragged scrollbar) to spread-out places; frame intervals are measured.
    let scroll = client
        .execute_async(
            r#"const done = arguments[arguments.length - 1];
               const el = document.querySelector('.conv-scroll');
               const stats = (gaps) => { const g = gaps.slice().sort((a, b) => a - b);
                 return { frames: g.length, meanMs: g.reduce((a, b) => a + b, 0) / g.length,
                          p95Ms: g[Math.floor(g.length * 0.95)], maxMs: g[g.length - 1] }; };
               const wheel = [], jumps = []; let i = 0, last = performance.now();
               function step() {
                 const now = performance.now(); wheel.push(now - last); last = now;
                 el.scrollTop = el.scrollTop - 120;
                 if (++i < 150) requestAnimationFrame(step); else { i = 0; last = performance.now(); requestAnimationFrame(jump); }
               }
               function jump() {
                 const now = performance.now(); if (i > 0) jumps.push(now - last); last = now;
                 const max = el.scrollHeight - el.clientHeight;
                 el.scrollTop = Math.round(max * ((i * 0.37) % 1));
                 if (++i <= 40) requestAnimationFrame(jump);
                 else done({ wheel: stats(wheel), jumps: stats(jumps),
                             rows: document.querySelectorAll('article[data-turn]').length });
               }
               requestAnimationFrame(step);"#,
            vec![],
        )
        .await?;
    println!("bench: scrolling: {scroll}");

    // Ten tabs: the big thread and the nine small ones; memory after each (what a tab costs).
    tokio::time::sleep(Duration::from_millis(500)).await;
    let mut per_tab = vec![memory_kb(pid).0.app_pss];
    for n in 2..=10 {
        let id = session_id(n);
        click(client, &format!(r#".session[data-session-id="{id}"]"#)).await?;
        wait_js(
            client,
            &format!("document.querySelectorAll('[role=\"tab\"]').length === {n}"),
            Duration::from_secs(60),
            "another tab",
        )
        .await?;
        wait_js(
            client,
            "document.querySelectorAll('article[data-turn][data-role]').length > 0",
            Duration::from_secs(60),
            "its messages",
        )
        .await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        per_tab.push(memory_kb(pid).0.app_pss);
    }
    // Visit every tab once, so each has been rendered.
    let (tab_list, _) = tabs(client).await?;
    for (thread, _) in &tab_list {
        click(
            client,
            &format!(r#"[role="tab"][data-thread-id="{thread}"]"#),
        )
        .await?;
        wait_js(
            client,
            "document.querySelectorAll('article[data-turn][data-role]').length > 0",
            Duration::from_secs(60),
            "the tab's messages",
        )
        .await?;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (ten, procs) = memory_kb(pid);
    shots.take(client, "ten-tabs").await;
    println!("bench: processes with 10 tabs (pid, name, RSS kB, PSS kB): {procs:?}");
    println!("bench: app PSS kB after 1..10 tabs: {per_tab:?}");
    // The same window left alone: what the garbage collector and the allocators give back
    // (the figure right after varies by ±30 MB between runs with the collector's timing).
    tokio::time::sleep(Duration::from_secs(10)).await;
    let (ten_settled, settled_procs) = memory_kb(pid);
    println!("bench: processes with 10 tabs, 10 s later: {settled_procs:?}");
    let dom = js(
        client,
        "return { elements: document.getElementsByTagName('*').length, rows: document.querySelectorAll('article[data-turn]').length, lists: document.querySelectorAll('.conv-scroll').length }",
    )
    .await?;
    println!("bench: the window's DOM with 10 tabs (only the shown tab renders rows): {dom}");

    // A long reply streamed into an open conversation (a small thread's tab): first as it is
    // rendered now, then the way it was before (all the text re-rendered on every delta).
    let small_threads: Vec<String> = tab_list
        .iter()
        .filter(|(t, _)| *t != big_thread)
        .map(|(t, _)| t.clone())
        .collect();
    let stream_now = bench_stream(client, pid, &small_threads[..1], false).await?;
    // `FORKHOST_BENCH_QUICK=1` (scripts/test.sh, and while working on the window): the open,
    // the tabs, one stream and one quiet fork of each size; the old way's stream, the many live
    // streams and the forks under load are left out.
    let quick = app_support::forks::bench_quick();
    let fork_runs_each = app_support::forks::bench_runs(FORK_RUNS);
    let stream_before = if quick {
        Value::Null
    } else {
        bench_stream(client, pid, &small_threads[..1], true).await?
    };
    // Many live forks (issue 22 item 5), the window's side: the same reply streamed into 2, 4
    // and 8 threads at once, one shown and the others in tabs behind it, as the Host's events
    // for 8 forks streaming side by side reach the window (their processes and checkpoints:
    // `host_bench_live_forks`).
    let mut live_streams = vec![(1, stream_now.clone())];
    for n in [2, 4, 8] {
        if small_threads.len() >= n && !quick {
            live_streams.push((
                n,
                bench_stream(client, pid, &small_threads[..n], false).await?,
            ));
        }
    }

    // Fork on the big thread and on a thread of everyday size → a new window with its history
    // (needs the Claude CLI for the capability check), quiet and under load; then into a tab.
    let mut fork_lines = vec!["skipped (FORKHOST_CLAUDE_BIN not set)".to_owned()];
    let mut tab_fork_line = fork_lines[0].clone();
    if need(Group::Harness, "FORKHOST_CLAUDE_BIN").is_some() {
        let small = tab_list
            .iter()
            .find(|(t, _)| *t != big_thread)
            .map(|(t, _)| t.clone())
            .context("a thread of everyday size")?;
        let sizes = [
            (format!("{BIG_MESSAGES}"), big_thread.clone(), 250),
            (format!("{SMALL_MESSAGES}"), small.clone(), 150),
        ];
        let mut quiet = Vec::new();
        for (size, thread, _) in &sizes {
            let label = format!("fork-{size}-quiet");
            quiet.push(fork_runs(client, thread, shots, &label, fork_runs_each, None).await?);
        }
        let mut loaded = Vec::new();
        let mut condition = "loaded: skipped (FORKHOST_BENCH_QUICK=1)".to_owned();
        if !quick {
            let mut load = BuildLoad::start()?;
            // Let the build get going (its first seconds are cargo reading the lock file).
            tokio::time::sleep(Duration::from_secs(5)).await;
            for (size, thread, _) in &sizes {
                let label = format!("fork-{size}-loaded");
                loaded.push(
                    fork_runs(client, thread, shots, &label, FORK_RUNS, Some(&mut load)).await?,
                );
            }
            condition = format!("loaded by {}", load.describe());
        }
        fork_lines.clear();
        for (i, ((size, _, goal), quiet)) in sizes.iter().zip(&quiet).enumerate() {
            let loaded = loaded
                .get(i)
                .map(|runs| format!(": {}", runs_summary(runs)))
                .unwrap_or_default();
            fork_lines.push(format!(
                "fork of a {size}-message thread (median / p90 of {fork_runs_each}), goal ≤ {goal} ms median loaded:\n    quiet: {}\n    {condition}{loaded}",
                runs_summary(quiet),
            ));
        }
        tokio::time::sleep(Duration::from_secs(4)).await;
        tab_fork_line = bench_fork_tab(client, &small).await?;
    }

    let f = |v: &Value, k: &str| v[k].as_f64().unwrap_or(f64::NAN);
    let median = |k: &str| {
        let mut xs: Vec<f64> = opens.iter().map(|o| f(o, k)).collect();
        xs.sort_by(|a, b| a.total_cmp(b));
        xs[xs.len() / 2]
    };
    println!();
    println!("=== app benchmarks ===");
    println!("open a {messages}-message thread (sidebar, cold; median of 3, first in brackets):");
    println!(
        "  read (show over IPC)           {:>7.0} ms  [{:.0}]",
        median("readMs"),
        f(&opens[0], "readMs")
    );
    println!(
        "  data read → first paint        {:>7.0} ms  [{:.0}]   goal ≤ 300 ms",
        median("firstPaintMs"),
        f(&opens[0], "firstPaintMs")
    );
    println!(
        "  data read → scrollable, at end {:>7.0} ms  [{:.0}]   goal ≤ 300 ms",
        median("scrollableMs"),
        f(&opens[0], "scrollableMs")
    );
    println!("  rows in the DOM                {rendered} (virtualized)");
    println!(
        "  its cost, priced with the read   {} (in the read above: no second pass)",
        cost.as_str().unwrap_or_default()
    );
    println!(
        "  scrolling, wheel (150 × 120 px): mean {:.1} ms, p95 {:.1} ms, max {:.1} ms per frame",
        f(&scroll["wheel"], "meanMs"),
        f(&scroll["wheel"], "p95Ms"),
        f(&scroll["wheel"], "maxMs")
    );
    println!(
        "  scrolling, 40 jumps far away:   mean {:.1} ms, p95 {:.1} ms, max {:.1} ms per frame",
        f(&scroll["jumps"], "meanMs"),
        f(&scroll["jumps"], "p95Ms"),
        f(&scroll["jumps"], "maxMs")
    );
    let mb = |kb: u64| kb as f64 / 1024.0;
    println!(
        "memory with 10 tabs: app {:.0} MB PSS / {:.0} MB RSS, {:.0} MB PSS 10 s later (idle, no tabs: {:.0} MB PSS / {:.0} MB RSS); harness processes {:.0} MB (excluded)   goal ≤ 350 MB PSS",
        mb(ten.app_pss),
        mb(ten.app_rss),
        mb(ten_settled.app_pss),
        mb(idle.app_pss),
        mb(idle.app_rss),
        mb(ten.harness_rss)
    );
    println!(
        "  what a tab costs: the {messages}-message one {:.0} MB, a {SMALL_MESSAGES}-message one {:.1} MB on average (PSS after each tab opened)",
        mb(per_tab[0].saturating_sub(idle.app_pss)),
        mb(per_tab[per_tab.len() - 1].saturating_sub(per_tab[0])) / (per_tab.len() - 1) as f64
    );
    println!("a {} KB reply streamed in {} KB deltas at {} deltas/s into an open conversation (Host events fed to the window's handler through a WebDriver-only hook, as the bridge delivers them):", STREAM_BYTES / 1024, STREAM_DELTA / 1024, STREAM_RATE);
    for (label, v) in [
        ("now", &stream_now),
        ("before (whole text per delta)", &stream_before),
    ] {
        if v.is_null() {
            continue;
        }
        println!("  {label}:");
        println!(
            "    main thread busy               {:>7.0} ms per second   (idle window: {:.0} ms/s){}",
            f(v, "busyMsPerSec"),
            f(v, "idleBusyMsPerSec"),
            match v["longTaskMsPerSec"].as_f64() {
                Some(x) => format!("; long tasks {x:.0} ms/s"),
                None => "; no long-task entries in this WebKit: timer-gap probe".to_owned(),
            }
        );
        println!(
            "    dropped frames (> 25 ms)       {:>7} of {} frames, p95 {:.1} ms, max {:.0} ms   goal: none",
            v["dropped"], v["frames"], f(v, "p95FrameMs"), f(v, "maxFrameMs")
        );
        println!(
            "    where the time went            {:.0} ms in the events, {:.0} ms taking the text in ({} times: store + React), {:.0} ms sanitizing between frames, {:.0} ms rendering {} frames of streamed text + {:.0} ms of layout right after",
            f(v, "emitMs"),
            f(v, "takeMs"),
            v["takes"],
            f(v, "livePrepareMs"),
            f(v, "liveMs"),
            v["liveFrames"],
            f(v, "liveLayoutMs")
        );
        println!(
            "    stream took                    {:>7.0} ms for {} of {} deltas (paced: {:.0} ms{}); {} Markdown parses of {:.1} MB in all, {}",
            f(v, "streamMs"),
            v["deltas"],
            v["of"],
            f(v, "pacedMs"),
            if v["deltas"] == v["of"] {
                ""
            } else {
                "; stopped after 30 s"
            },
            v["parses"],
            f(v, "charsParsed") / 1e6,
            match v["workerReplies"].as_u64() {
                Some(n) if n > 0 => format!("in the stream worker ({n} answers)"),
                _ => "on the page's main thread".to_owned(),
            }
        );
        println!(
            "    JS heap after the stream       {}; app PSS {:.0} MB → {:.0} MB (web process {:.0} → {:.0} MB)",
            match v["jsHeapMB"].as_f64() {
                Some(x) => format!("{x:.1} MB"),
                None => "n/a (WebKit has no performance.memory)".to_owned(),
            },
            f(v, "pssBeforeMB"),
            f(v, "pssAfterMB"),
            f(v, "webBeforeMB"),
            f(v, "webAfterMB")
        );
    }
    println!("many live forks, the window's side: the same reply streamed into n threads at once (one shown, the rest in tabs behind it):");
    for (n, v) in &live_streams {
        println!(
            "  {n} live: main thread busy {:.0} ms/s; dropped frames {} of {}, p95 {:.1} ms, max {:.0} ms; stream took {:.0} ms (paced {:.0}); app PSS {:.0} → {:.0} MB (web process {:.0} → {:.0} MB)",
            f(v, "busyMsPerSec"),
            v["dropped"],
            v["frames"],
            f(v, "p95FrameMs"),
            f(v, "maxFrameMs"),
            f(v, "streamMs"),
            f(v, "pacedMs"),
            f(v, "pssBeforeMB"),
            f(v, "pssAfterMB"),
            f(v, "webBeforeMB"),
            f(v, "webAfterMB")
        );
    }
    for line in &fork_lines {
        println!("{line}");
    }
    println!("fork of a {SMALL_MESSAGES}-message thread into a tab (Ctrl-click), quiet: {tab_fork_line}   goal ≤ 60 ms");
    println!("======================");
    ensure!(
        messages as usize == BIG_MESSAGES,
        "the thread shows {messages} messages, expected {BIG_MESSAGES}"
    );
    Ok(())
}

/// Streams a long Markdown reply into `thread` (shown in the main window) as Host events at
/// `STREAM_RATE` per second, fed to the window's event handler through its WebDriver-only hook
/// (the fake model's replies go through a harness CLI, whose pacing is its own); `whole` renders
/// it the way it was before (the whole text on every delta). Returns the figures.
async fn bench_stream(client: &Client, pid: u32, threads: &[String], whole: bool) -> Result<Value> {
    let thread = threads.first().context("a thread to stream into")?;
    click(
        client,
        &format!(r#"[role="tab"][data-thread-id="{thread}"]"#),
    )
    .await?;
    wait_js(
        client,
        "document.querySelectorAll('article[data-turn][data-role]').length > 0",
        Duration::from_secs(30),
        "the conversation to stream into",
    )
    .await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The way it was before takes far longer than the paced 2 s.
    client
        .update_timeouts(fantoccini::wd::TimeoutConfiguration::new(
            Some(Duration::from_secs(300)),
            None,
            None,
        ))
        .await?;
    let (before, before_procs) = memory_kb(pid);
    let mut v = client
        .execute_async(
            r#"const [threadIds, whole, total, size, rate] = arguments;
               const done = arguments[arguments.length - 1];
               const emit = window.__forkhostHostEvent;
               if (!emit) { done({ error: `no hook (navigator.webdriver: ${navigator.webdriver})` }); return; }
               window.__forkhostLiveMode = whole ? "whole" : "";
               const stats = window.__forkhostRenderStats ?? { parses: 0, chars: 0 };
               const section = (i) => [
                 `## Step ${i}: what changes\n\n`,
                 `The module \`store_${i}\` keeps its rows in a **B-tree**; reads take the lock once and `,
                 `writes batch their changes, see [the notes](https://example.com/notes/${i}). `.repeat(3), `\n\n`,
                 `- read the file and parse it\n- check the schema of entry ${i}\n- write the result back\n\n`,
                 "```rust\n", `fn step_${i}(input: &str) -> Result<u32, Error> {\n`,
                 `    let n = input.trim().parse::<u32>()?;\n    Ok(n * ${i % 7 + 2})\n}\n`.repeat(4), "```\n\n",
                 `| field | type | note |\n| --- | --- | --- |\n| id | u64 | key ${i} |\n| name | text | shown |\n\n`,
                 `> Note: step ${i} is safe to run twice.\n\n`,
               ].join("");
               let reply = "";
               for (let i = 1; reply.length < total; i++) reply += section(i);
               reply = reply.slice(0, total);
               const deltas = [];
               for (let i = 0; i < reply.length; i += size) deltas.push(reply.slice(i, i + size));
               const longTasks = (typeof PerformanceObserver !== "undefined" &&
                 (PerformanceObserver.supportedEntryTypes ?? []).includes("longtask"));
               // Probes: animation frames, and a 0 ms timer chain (its gaps beyond the 4 ms clamp
               // are time the main thread was busy: tasks, style, layout, paint).
               function probe() {
                 const p = { frames: [], gaps: [], long: 0, running: true, start: performance.now() };
                 let lastFrame = performance.now(), lastTick = performance.now();
                 const frame = () => { const now = performance.now(); p.frames.push(now - lastFrame); lastFrame = now; if (p.running) requestAnimationFrame(frame); };
                 const tick = () => { const now = performance.now(); p.gaps.push(now - lastTick); lastTick = now; if (p.running) setTimeout(tick, 0); };
                 requestAnimationFrame(frame); setTimeout(tick, 0);
                 if (longTasks) { p.observer = new PerformanceObserver((list) => { for (const e of list.getEntries()) p.long += e.duration; }); p.observer.observe({ entryTypes: ["longtask"] }); }
                 p.stop = () => { p.running = false; p.observer?.disconnect(); p.ms = performance.now() - p.start;
                   const busy = p.gaps.reduce((a, g) => a + Math.max(0, g - 4.5), 0);
                   const f = p.frames.slice(1).sort((a, b) => a - b);
                   return { ms: p.ms, busyMsPerSec: busy / (p.ms / 1000), longTaskMsPerSec: longTasks ? p.long / (p.ms / 1000) : null,
                            frames: f.length, dropped: f.filter((x) => x > 16.7 * 1.5).length,
                            p95FrameMs: f[Math.floor(f.length * 0.95)] ?? 0, maxFrameMs: f[f.length - 1] ?? 0 }; };
                 return p;
               }
               const idle = probe();
               setTimeout(() => {
                 const idleStats = idle.stop();
                 const p = probe();
                 const parses0 = stats.parses, chars0 = stats.chars;
                 const live0 = { frames: stats.liveFrames ?? 0, ms: stats.liveMs ?? 0, layout: stats.liveLayoutMs ?? 0, prepare: stats.livePrepareMs ?? 0, worker: stats.workerReplies ?? 0, takes: stats.takes ?? 0, takeMs: stats.takeMs ?? 0 };
                 let emitMs = 0;
                 // The first thread is the one shown; the others stream in tabs behind it.
                 for (const threadId of threadIds) emit({ type: "turn_started", thread_id: threadId });
                 const t0 = performance.now(); let i = 0;
                 const next = () => {
                   const e0 = performance.now();
                   for (const threadId of threadIds) emit({ type: "text_delta", thread_id: threadId, text: deltas[i] });
                   i++;
                   // The store's update and React's render of it (a microtask after the event).
                   queueMicrotask(() => { emitMs += performance.now() - e0; });
                   // The way it was before falls minutes behind: stop after 30 s and say so.
                   if (i < deltas.length && performance.now() - t0 < 30000) setTimeout(next, Math.max(0, t0 + i * (1000 / rate) - performance.now()));
                   else {
                     const streamMs = performance.now() - t0;
                     // Let the last frame land, then stop.
                     setTimeout(() => {
                       const s = p.stop();
                       const shown = document.querySelector('article[data-live="true"][data-role="assistant"] .md');
                       done({ ...s, idleBusyMsPerSec: idleStats.busyMsPerSec, deltas: i, of: deltas.length, streamMs,
                              pacedMs: (deltas.length - 1) * 1000 / rate, parses: stats.parses - parses0,
                              charsParsed: stats.chars - chars0, emitMs,
                              liveFrames: (stats.liveFrames ?? 0) - live0.frames, liveMs: (stats.liveMs ?? 0) - live0.ms,
                              liveLayoutMs: (stats.liveLayoutMs ?? 0) - live0.layout, livePrepareMs: (stats.livePrepareMs ?? 0) - live0.prepare, workerReplies: (stats.workerReplies ?? 0) - live0.worker, takes: (stats.takes ?? 0) - live0.takes, takeMs: (stats.takeMs ?? 0) - live0.takeMs, shownChars: shown ? shown.textContent.length : null,
                              jsHeapMB: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null });
                     }, 500);
                   }
                 };
                 setTimeout(next, 0);
               }, 1000);"#,
            vec![
                json!(threads),
                json!(whole),
                json!(STREAM_BYTES),
                json!(STREAM_DELTA),
                json!(STREAM_RATE),
            ],
        )
        .await?;
    ensure!(v.get("error").is_none(), "streaming bench: {v}");
    let (after, after_procs) = memory_kb(pid);
    // The turn ends: the window re-reads the thread and drops the live turn.
    js_args(
        client,
        r#"for (const id of arguments[0]) window.__forkhostHostEvent({ type: "turn_ended", thread_id: id, outcome: "completed", message: null });
           window.__forkhostLiveMode = ""; return true;"#,
        vec![json!(threads)],
    )
    .await?;
    wait_js(
        client,
        "document.querySelector('article[data-live=\"true\"]') === null",
        Duration::from_secs(30),
        "the live turn to go",
    )
    .await?;
    // The web process showing the main window: the one that grew most with the tabs.
    let web = |procs: &[(u32, String, u64, u64)]| {
        procs
            .iter()
            .filter(|p| p.1.starts_with("WebKitWebProces"))
            .map(|p| p.3)
            .max()
            .unwrap_or(0) as f64
            / 1024.0
    };
    v["pssBeforeMB"] = json!(before.app_pss as f64 / 1024.0);
    v["pssAfterMB"] = json!(after.app_pss as f64 / 1024.0);
    v["webBeforeMB"] = json!(web(&before_procs));
    v["webAfterMB"] = json!(web(&after_procs));
    println!(
        "bench: stream ({}, {} live): {v}",
        if whole { "before" } else { "now" },
        threads.len()
    );
    Ok(v)
}
