//! Benchmark: many live forks at once (issue 22 item 5). A Pi thread in a generated git
//! repository is forked N times (N = 1, 2, 4, 8) after its turn 1, each fork in its own
//! worktree; then every fork runs one turn at the same time (a shell command that changes a
//! file, then a reply streamed over 2 s), with a start and an end checkpoint each through its
//! folder's watcher. Printed per N, nothing asserted about time:
//!
//! - the wall time from the sends to the last turn's end (the 2 s stream is the floor);
//! - the CPU time of this process (the Host: checkpoints, watchers, event pumps) and of the
//!   processes under it (every harness process: the forks', the source's and the warm spare's,
//!   and the commands they ran that were still there to be counted);
//! - memory: this process's PSS, and the PSS of the processes under it and how many they are;
//! - every checkpoint of the run: how it read the tree (watched or full) and its median / max.
//!
//! The repository has `FORKHOST_BENCH_FILES` files of 20 KiB (default 5,000 so the suite stays
//! quick; 50,000 is the 1 GB repository). It checks (and fails on) what a bench must
//! get right: every turn ended and each fork's checkpoint holds its own change.
//! Run with `cargo test -p forkhost-tests --test host_bench_live_forks -- --nocapture`.

// It reads /proc: Linux only.
#![cfg(target_os = "linux")]

use crate::host_kit;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use forkhost_core::{ForkAt, ForkFiles, HarnessKind, NewThreadSpec, TurnRef};
use forkhost_tests::harness_env::Harness;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::Layer;

use host_kit::{git, setup, TURN};

const COUNTS: [usize; 4] = [1, 2, 4, 8];

/// A checkpoint the Host recorded: how it read the tree, and how long it took.
#[derive(Debug, Clone)]
struct Recorded {
    read: String,
    ms: u64,
}

/// Collects the Host's "checkpoint recorded" events (their `read` and `ms` fields).
#[derive(Clone, Default)]
struct Checkpoints(Arc<Mutex<Vec<Recorded>>>);

impl<S: tracing::Subscriber> Layer<S> for Checkpoints {
    fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
        #[derive(Default)]
        struct Fields {
            message: String,
            read: String,
            ms: Option<u64>,
        }
        impl Visit for Fields {
            fn record_u64(&mut self, field: &Field, value: u64) {
                if field.name() == "ms" {
                    self.ms = Some(value);
                }
            }
            fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
                match field.name() {
                    "message" => self.message = format!("{value:?}"),
                    "read" => self.read = format!("{value:?}"),
                    _ => {}
                }
            }
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        if let (true, Some(ms)) = (fields.message == "checkpoint recorded", fields.ms) {
            let read = fields
                .read
                .split(['(', ' ', '{'])
                .next()
                .unwrap_or_default()
                .to_owned();
            self.0.lock().unwrap().push(Recorded { read, ms });
        }
    }
}

/// CPU time (user + system, in clock ticks) and PSS (kB) of this process and, apart, of its
/// descendants (the harness processes and their children).
#[derive(Debug, Default, Clone, Copy)]
struct Usage {
    own_ticks: u64,
    children_ticks: u64,
    own_pss: u64,
    children_pss: u64,
    children: usize,
}

fn usage() -> Usage {
    let me = std::process::id();
    let mut parents: BTreeMap<u32, u32> = BTreeMap::new();
    for pid in forkhost_tests::procs::pids() {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        if let Some(ppid) = stat_field(&stat, 3) {
            parents.insert(pid, ppid as u32);
        }
    }
    let mut tree = vec![me];
    let mut i = 0;
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(
            parents
                .iter()
                .filter(|(_, p)| **p == parent)
                .map(|(c, _)| *c),
        );
        i += 1;
    }
    let mut u = Usage::default();
    for pid in tree {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // utime and stime: fields 14 and 15 (1-based), counted after the command's ')'.
        let ticks = stat_field(&stat, 13).unwrap_or(0) + stat_field(&stat, 14).unwrap_or(0);
        let pss = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
            .unwrap_or_default()
            .lines()
            .find(|l| l.starts_with("Pss:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
            .unwrap_or(0);
        if pid == me {
            u.own_ticks = ticks;
            u.own_pss = pss;
        } else {
            u.children_ticks += ticks;
            u.children_pss += pss;
            u.children += 1;
        }
    }
    u
}

/// The `n`th field (0-based, the pid being 0) of a `/proc/<pid>/stat` line.
fn stat_field(stat: &str, n: usize) -> Option<u64> {
    let after = &stat[stat.rfind(')')? + 2..];
    after.split_whitespace().nth(n - 2)?.parse().ok()
}

fn ticks_ms(ticks: u64) -> f64 {
    // SAFETY: sysconf reads a constant of the system.
    let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as f64;
    ticks as f64 * 1e3 / per_second
}

/// A committed repository of `files` files of ~20 KiB, 100 to a folder.
fn generated_repo(repo: &Path, files: usize) {
    let line = "a line of the kind a source file holds, long enough to weigh.\n";
    let body = line.repeat(20 * 1024 / line.len());
    for i in 0..files {
        let dir = repo.join(format!("src/d{:04}", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        std::fs::write(dir.join(format!("f{i}.txt")), format!("{i}\n{body}")).unwrap();
    }
    git(repo, &["init", "-q", "-b", "main"]);
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "generated"]);
}

fn median(values: &mut [u64]) -> u64 {
    values.sort_unstable();
    values.get(values.len() / 2).copied().unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_forks_from_one_to_eight() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let checkpoints = Checkpoints::default();
    // Global: the Host's tasks run on the runtime's worker threads. The only test here.
    let subscriber = tracing_subscriber::registry().with(checkpoints.clone());
    tracing::subscriber::set_global_default(subscriber).expect("the bench's subscriber");
    let files: usize = std::env::var("FORKHOST_BENCH_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if forkhost_tests::bench_quick() {
            500
        } else {
            5_000
        });
    let repo = s.env.work_dir().to_path_buf();
    let made = Instant::now();
    generated_repo(&repo, files);
    eprintln!(
        "live forks: a repository of {files} files made in {:.1} s",
        made.elapsed().as_secs_f64()
    );

    let host = s.host_with(|o| o.warm_forks = true).await;
    let source = host
        .create(NewThreadSpec {
            harness: HarnessKind::Pi,
            cwd: repo.clone(),
            title: Some("source".into()),
            permissions: Default::default(),
        })
        .await
        .unwrap()
        .thread
        .id;
    host_kit::turn(&host, &source, "RUN_COMMAND `printf one > first.txt`").await;

    let mut rows = Vec::new();
    // The quick form (`FORKHOST_BENCH_QUICK=1`) stops at 4 forks: every step, fewer rows.
    let counts = if forkhost_tests::bench_quick() {
        &COUNTS[..3]
    } else {
        &COUNTS[..]
    };
    for &n in counts {
        let mut forks = Vec::new();
        for _ in 0..n {
            let fork = host
                .fork_with(
                    &source,
                    ForkAt::After(TurnRef::Number(1)),
                    ForkFiles::Worktree,
                )
                .await
                .unwrap();
            let id = fork.thread.thread.id.clone();
            host.files_ready(&id).await.unwrap();
            forks.push(id);
        }
        // Let the forks' harness processes start and settle before measuring.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        checkpoints.0.lock().unwrap().clear();
        let before = usage();
        let started = Instant::now();
        let turns = forks.iter().enumerate().map(|(i, id)| {
            let host = host.clone();
            let prompt = format!("RUN_COMMAND `printf {i} > changed-{i}.txt` SLOW");
            let id = id.clone();
            async move {
                tokio::time::timeout(TURN, host_kit::turn(&host, &id, &prompt))
                    .await
                    .expect("a live fork's turn hung")
            }
        });
        futures::future::join_all(turns).await;
        let wall = started.elapsed();
        let after = usage();
        for (i, id) in forks.iter().enumerate() {
            let cwd = host.show(id).await.unwrap().thread.cwd;
            assert_eq!(
                std::fs::read_to_string(Path::new(&cwd).join(format!("changed-{i}.txt"))).unwrap(),
                i.to_string(),
                "fork {i} ran its own command in its own folder"
            );
            let view = host.files(id).await.unwrap();
            assert!(
                view.checkpoints
                    .iter()
                    .any(|c| c.turn == 2 && c.edge == "end"),
                "fork {i}'s turn ended with a checkpoint"
            );
        }
        let recorded = checkpoints.0.lock().unwrap().clone();
        let mut ms: Vec<u64> = recorded.iter().map(|r| r.ms).collect();
        let watched = recorded.iter().filter(|r| r.read != "Full").count();
        let (med, max) = (median(&mut ms), ms.last().copied().unwrap_or(0));
        rows.push((n, wall, before, after, recorded.len(), watched, med, max));
        for id in forks {
            host.close(&id).await.unwrap();
        }
    }
    host.shutdown().await;

    eprintln!("\nlive forks: {files} files; each fork runs a shell command and a 2 s streamed reply, all at once");
    eprintln!(
        "{:>2} | {:>8} | {:>9} | {:>12} | {:>8} | {:>20} | checkpoints (watched): median / max",
        "N", "wall", "host CPU", "harness CPU", "host PSS", "harness PSS (procs)"
    );
    for (n, wall, before, after, count, watched, med, max) in rows {
        let host_cpu = ticks_ms(after.own_ticks.saturating_sub(before.own_ticks));
        let harness_cpu = ticks_ms(after.children_ticks.saturating_sub(before.children_ticks));
        eprintln!(
            "{n:>2} | {:>5.0} ms | {host_cpu:>6.0} ms | {harness_cpu:>9.0} ms | {:>5.0} MB | {:>9.0} MB ({:>2} procs) | {count} ({watched}): {med} / {max} ms",
            wall.as_secs_f64() * 1e3,
            after.own_pss as f64 / 1024.0,
            after.children_pss as f64 / 1024.0,
            after.children,
        );
    }
}
