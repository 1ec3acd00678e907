//! Benchmark: search over ~1 GB of transcripts (docs/architecture.md "Search"), beside `rg` on
//! the same files when it is installed (figures are printed; nothing is asserted about time).
//!
//! One session per harness is written by that harness's own seed writer (the real CLIs'
//! formats: 600 turns of prompts, replies and shell calls), then copied under each harness's
//! session folder with fresh session ids until the copies make `FORKHOST_BENCH_SEARCH_MB`
//! (default 1024) megabytes: sessions not adopted, searched as such. Three copies carry a
//! rare phrase. Printed, warm (the files were just written and read once): the rare phrase
//! (its first results are all its results), a miss (a full scan), a common phrase stopped at
//! 20 hits (first results) and at 5,000 (the most a search returns), a regular expression;
//! and `rg` for the same phrases. Run with
//! `cargo test -p forkhost-tests --test host_bench_search -- --nocapture`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use forkhost_core::{HarnessKind, Host, HostOptions, SearchQuery, SearchResults};
use forkhost_harness::contract::{Seed, SeedStep, SeedTurn, ShellCall};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

const TURNS: usize = 600;
/// Each search's runs (the median is quoted); the quick form (`FORKHOST_BENCH_QUICK=1`) runs
/// each once: it runs so the bench cannot rot, and its debug-build figures are not quoted.
fn runs() -> usize {
    if forkhost_tests::bench_quick() {
        1
    } else {
        5
    }
}
/// As long as the seed's "what the user asked. " it replaces, so the JSON stays valid.
const RARE: &str = "zanzibar retry policy";
const COMMON: &str = "sentence of the kind";
const MISS: &str = "no-such-word-anywhere";

fn seed() -> Seed {
    let turns = (1..=TURNS)
        .map(|i| {
            let mut reply = vec![SeedStep::Text(format!(
                "reply {i}: {} \"quoted\" — déjà vu",
                "a sentence of the kind a reply holds. ".repeat(8)
            ))];
            if i % 5 == 0 {
                reply.insert(
                    0,
                    SeedStep::Shell(ShellCall {
                        command: format!("grep -rn \"step {i}\" src/"),
                        output: "src/a.rs:1: fn main() {}\n".repeat(6),
                        is_error: false,
                    }),
                );
            }
            SeedTurn {
                prompt: format!("prompt {i}: {}", "what the user asked. ".repeat(4)),
                reply,
            }
        })
        .collect();
    Seed {
        from: "Forkhost".into(),
        turns,
    }
}

fn kind(h: Harness) -> HarnessKind {
    h.name().parse().unwrap()
}

/// Copies `source` beside itself under a new session id until `bytes` are written, each with
/// its replies' words changed; `RARE` in the copies numbered in `rare`. Returns the files
/// written.
fn copies(source: &Path, session_id: &str, bytes: u64, rare: &[usize]) -> Vec<PathBuf> {
    let body = std::fs::read_to_string(source).unwrap();
    let name = source.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(name.contains(session_id), "{name} names {session_id}");
    let mut written = Vec::new();
    let mut total = 0;
    let mut n = 0;
    while total < bytes {
        let id = uuid::Uuid::new_v4().to_string();
        let path = source.with_file_name(name.replace(session_id, &id));
        // Each copy its own words (as long as "reply ", so the JSON stays valid): a copy
        // with the same turns and words as another is a fork's copy, and its hits are dropped.
        let own = body.replace("reply ", &format!("c{:04} ", n % 10_000));
        let text = if rare.contains(&n) {
            own.replacen("what the user asked. ", RARE, 1)
        } else {
            own
        };
        std::fs::write(&path, &text).unwrap();
        total += text.len() as u64;
        written.push(path);
        n += 1;
    }
    written
}

async fn timed(host: &Host, query: SearchQuery) -> (f64, SearchResults) {
    let mut ms = Vec::new();
    let mut last = None;
    for _ in 0..runs() {
        let started = Instant::now();
        let results = host.search(query.clone()).await.unwrap();
        ms.push(started.elapsed().as_secs_f64() * 1e3);
        last = Some(results);
    }
    ms.sort_by(f64::total_cmp);
    (ms[ms.len() / 2], last.unwrap())
}

/// `rg ARGS ROOT…` timed (median of [`runs`]), or `None` without `rg`.
fn rg(args: &[&str], roots: &[PathBuf]) -> Option<f64> {
    let mut ms = Vec::new();
    for _ in 0..runs() {
        let started = Instant::now();
        let out = Command::new("rg").args(args).args(roots).output().ok()?;
        ms.push(started.elapsed().as_secs_f64() * 1e3);
        // 0: found, 1: none found; anything else is an error.
        assert!(out.status.code().is_some_and(|c| c <= 1), "rg {args:?}");
    }
    ms.sort_by(f64::total_cmp);
    Some(ms[ms.len() / 2])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_over_a_gigabyte_of_transcripts() {
    let all = [Harness::Claude, Harness::Codex, Harness::Pi];
    let model = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let Some(env) = HarnessEnv::for_fake_all(&all, &model).unwrap() else {
        return;
    };
    let megabytes: u64 = std::env::var("FORKHOST_BENCH_SEARCH_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if forkhost_tests::bench_quick() {
            // The smallest size that still holds copy 9 of every harness's file (`copies`).
            64
        } else {
            1024
        });
    let data = tempfile::tempdir().unwrap();
    let options = HostOptions {
        harness_env: env.vars().to_vec(),
        ..Default::default()
    };
    let (host, _) = Host::open_with(data.path(), options).await.unwrap();
    let seed = seed();
    let mut files = Vec::new();
    let mut roots = Vec::new();
    for (i, harness) in all.into_iter().enumerate() {
        let binary = forkhost_harness::binary::probe(kind(harness))
            .await
            .unwrap();
        let request = forkhost_harness::SeedRequest {
            binary: &binary,
            seed: &seed,
            cwd: env.work_dir(),
            env: env.vars(),
        };
        let written = forkhost_harness::runtime::seed_with(request).await.unwrap();
        let path = written.session.path.clone().unwrap();
        files.extend(copies(
            &path,
            &written.session.session_id,
            megabytes * 1024 * 1024 / 3,
            &[7 + i],
        ));
        files.push(path);
        roots.push(host.session_root(kind(harness)).unwrap());
    }
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    let query = |text: &str, limit: usize| SearchQuery {
        text: text.into(),
        limit: Some(limit),
        ..SearchQuery::default()
    };

    let started = Instant::now();
    let first = host.search(query(RARE, 200)).await.unwrap();
    let first_ms = started.elapsed().as_secs_f64() * 1e3;
    assert_eq!(
        first.groups.len(),
        3,
        "the rare phrase in one copy per harness"
    );
    assert_eq!(first.files, files.len(), "every file read");
    let (rare_ms, rare) = timed(&host, query(RARE, 200)).await;
    assert_eq!(rare.hits, 3, "{rare:#?}");
    let (miss_ms, miss) = timed(&host, query(MISS, 200)).await;
    assert_eq!(miss.hits, 0);
    let (page_ms, page) = timed(&host, query(COMMON, 20)).await;
    assert!(page.hits >= 20 && page.truncated);
    let (most_ms, most) = timed(&host, query(COMMON, 5_000)).await;
    assert_eq!(most.hits, 5_000);
    let regex = SearchQuery {
        regex: true,
        ..query(r"zanzibar \w+ policy", 200)
    };
    let (regex_ms, regexed) = timed(&host, regex).await;
    assert_eq!(regexed.hits, 3);
    host.shutdown().await;

    let gb = bytes as f64 / 1e9;
    let rate = |ms: f64| gb / (ms / 1e3);
    println!();
    println!(
        "=== search {} transcripts, {:.2} GB ({} harnesses' formats; warm, median of {}) ===",
        files.len(),
        gb,
        all.len(),
        runs()
    );
    println!("first search (files just written)       {first_ms:>8.1} ms");
    println!(
        "rare phrase, 3 hits (first = all)       {rare_ms:>8.1} ms  {:>5.2} GB/s",
        rate(rare_ms)
    );
    println!(
        "miss (full scan, 0 hits)                {miss_ms:>8.1} ms  {:>5.2} GB/s",
        rate(miss_ms)
    );
    println!("common phrase, first 20 hits            {page_ms:>8.1} ms");
    println!("common phrase, 5,000 hits (the most)    {most_ms:>8.1} ms");
    println!("regex, 3 hits                           {regex_ms:>8.1} ms");
    let rg_rare = rg(&["-c", "-i", "-F", "--no-messages", RARE], &roots);
    match rg_rare {
        Some(rg_rare) => {
            let rg_miss = rg(&["-c", "-i", "-F", "--no-messages", MISS], &roots).unwrap();
            let rg_first = rg(&["-m", "1", "-l", "-F", COMMON], &roots).unwrap();
            let rg_regex = rg(&["-c", "-i", r"zanzibar \w+ policy"], &roots).unwrap();
            println!(
                "rg: rare {rg_rare:.1} ms · miss {rg_miss:.1} ms · common -m1 -l {rg_first:.1} ms · regex {rg_regex:.1} ms"
            );
        }
        None => println!("rg: not installed (no figure)"),
    }
    println!("goal: first results over 1 GB ≤ 300 ms warm (issue 25)");
    println!("======================");
}
