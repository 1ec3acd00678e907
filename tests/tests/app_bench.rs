//! Benchmarks of the desktop app (figures are printed; nothing is asserted about time):
//!
//! - open a 10,000-message thread: the time to read it (`show` over IPC), and from the data
//!   being read to the list's first paint and to a scrollable list at its end (goal ≤ 300 ms);
//!   then scrolling it end to end (frame intervals);
//! - the app's memory (RSS of the app and its WebKit processes; harness processes excluded)
//!   with 10 tabs open (goal ≤ 500 MB);
//! - click Fork on that thread, and on one of 300 messages → the fork's window shows its history
//!   (goal ≤ 250 ms for Claude).
//!
//! The threads are synthetic Claude transcripts in a temporary HOME, opened through the
//! sidebar's "On this machine" list (which imports them). Run with `scripts/app-e2e.sh app_bench`.

mod app_support;

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::{ensure, Context, Result};
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

    // Ten tabs: the big thread and the nine small ones.
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

    // Fork on the big thread → a new window with its history (needs the Claude CLI for the
    // capability check).
    let mut fork_line = "skipped (FORKHOST_CLAUDE_BIN not set)".to_owned();
    let mut small_fork_line = fork_line.clone();
    let mut tab_fork_line = fork_line.clone();
    if need(Group::Harness, "FORKHOST_CLAUDE_BIN").is_some() {
        fork_line = bench_fork(client, &big_thread, shots, "fork-window").await?;
        // A thread of everyday size; the spare window is rebuilt 1.5 s after a fork.
        tokio::time::sleep(Duration::from_secs(3)).await;
        if let Some((small, _)) = tab_list.iter().find(|(t, _)| *t != big_thread) {
            small_fork_line = bench_fork(client, small, shots, "fork-window-small").await?;
            tab_fork_line = bench_fork_tab(client, small).await?;
        }
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
        "memory with 10 tabs: app {:.0} MB PSS / {:.0} MB RSS (idle, no tabs: {:.0} MB PSS / {:.0} MB RSS); harness processes {:.0} MB (excluded)   goal ≤ 500 MB",
        mb(ten.app_pss),
        mb(ten.app_rss),
        mb(idle.app_pss),
        mb(idle.app_rss),
        mb(ten.harness_rss)
    );
    println!("fork of the {messages}-message thread: {fork_line}   goal ≤ 250 ms");
    println!("fork of a {SMALL_MESSAGES}-message thread: {small_fork_line}   goal ≤ 250 ms");
    println!("  the same, into a tab (Ctrl-click): {tab_fork_line}");
    println!("======================");
    ensure!(
        messages as usize == BIG_MESSAGES,
        "the thread shows {messages} messages, expected {BIG_MESSAGES}"
    );
    Ok(())
}

/// Clicks Fork on the last reply of `thread` (a tab of the main window, which is current) and
/// measures until the fork's window has painted; returns the summary line and leaves the main
/// window current again.
async fn bench_fork(
    client: &Client,
    thread: &str,
    shots: &mut Shots,
    shot: &str,
) -> Result<String> {
    let main = client.window().await?;
    let forks = click_last_fork(client, thread, false).await?;
    let source_perf = wait_js(
        client,
        &format!("window.__forkhostPerf.forks[{forks}] ?? null"),
        Duration::from_secs(30),
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
    let fork_rows = js(
        client,
        "return document.querySelector('.conv-scroll')?.dataset.rows",
    )
    .await?;
    shots.take(client, shot).await;
    // Full reads (`show`) the fork window made within a second of its paint (0 expected:
    // the fork arrives with the window).
    tokio::time::sleep(Duration::from_secs(1)).await;
    let fork_reads = js(client, "return window.__forkhostPerf?.reads ?? []").await?;
    let fork_window_perf = js(
        client,
        "const p = window.__forkhostPerf ?? {}; return { assignedAt: p.assignedAt ?? null, visibleAt: p.visibleAt ?? null, firstFrameAt: p.firstFrameAt ?? null };",
    )
    .await?;
    println!("bench: fork ({shot}): source {source_perf}; window {fork_perf} {fork_window_perf}; its reads {fork_reads}");
    let clicked = source_perf["clickedAt"].as_f64().unwrap_or(0.0);
    let painted = fork_perf["paintedAt"].as_f64().unwrap_or(0.0);
    let n = |v: &Value, k: &str| v[k].as_f64().unwrap_or(0.0);
    let line = format!(
        "click → fork window painted {:.0} ms (fork command {:.0} ms: native {:.1} ms, host total {:.1} ms; click → data in the window {:.0} ms; window: read {:.0} ms, render {:.0} ms and paint {:.0} ms after the data; {} rows; {} full reads in the window)",
        painted - clicked,
        n(&source_perf, "commandMs"),
        n(&source_perf, "nativeMs"),
        n(&source_perf, "hostTotalMs"),
        n(&fork_perf, "readEpoch") - clicked,
        n(&fork_perf, "readMs"),
        n(&fork_perf, "renderMs"),
        n(&fork_perf, "firstPaintMs"),
        fork_rows,
        fork_reads.as_array().map_or(0, Vec::len),
    );
    client.switch_to_window(main).await?;
    let source_reads = js_args(
        client,
        "return window.__forkhostPerf.reads.filter(r => r.startedAt >= arguments[0]).map(r => ({ ...r, startedMs: r.startedAt - arguments[0] }))",
        vec![json!(clicked)],
    )
    .await?;
    println!("bench: fork ({shot}): the source window's reads after the click {source_reads}");
    Ok(line)
}

/// Ctrl-click Fork on the last reply of `thread` (the main window's active tab): the fork opens
/// as a tab of this window. Returns the summary line.
async fn bench_fork_tab(client: &Client, thread: &str) -> Result<String> {
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
    println!("bench: fork into a tab: source {source}; tab {open}");
    let n = |v: &Value, k: &str| v[k].as_f64().unwrap_or(0.0);
    Ok(format!(
        "click → fork tab painted {:.0} ms (fork command {:.0} ms: native {:.1} ms, host total {:.1} ms; render {:.0} ms and paint {:.0} ms after the data)",
        n(&open, "paintedAt") - n(&source, "clickedAt"),
        n(&source, "commandMs"),
        n(&source, "nativeMs"),
        n(&source, "hostTotalMs"),
        n(&open, "renderMs"),
        n(&open, "firstPaintMs"),
    ))
}

/// Shows `thread`'s tab and clicks Fork on its last reply (with Ctrl: the other place than the
/// setting says). Returns how many forks this window had measured before the click.
async fn click_last_fork(client: &Client, thread: &str, ctrl: bool) -> Result<usize> {
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
