//! Benchmark: a race of N Pi lanes from turn 2 of a thread in a git repository, from the call
//! to every lane streaming (its first text delta), for N = 2, 4, 8, beside N single worktree
//! forks made one by one, each sent the prompt as soon as it exists (what N clicks on Fork and
//! Send would do). Figures are printed; nothing is asserted about time. Lanes run at once
//! (`max_parallel` N); the machine's core count is printed with them.
//! Run with `cargo test -p forkhost-tests --test host_bench_race -- --nocapture`.
#![cfg(unix)]

use crate::host_kit;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use forkhost_core::{ForkAt, ForkFiles, Host, HostEvent, LaneSpec, RaceLane, RaceSpec, TurnRef};
use forkhost_tests::harness_env::Harness;
use tokio::sync::broadcast;

use host_kit::{git, setup, turn};

const PROMPT: &str = "bench prompt";

/// Waits until every thread of `threads` sent a text delta (or `deadline`); the time each did.
async fn first_deltas(
    events: &mut broadcast::Receiver<HostEvent>,
    threads: &Mutex<HashSet<String>>,
    want: usize,
    seen: &mut HashMap<String, Instant>,
) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(120);
    while seen.len() < want {
        let Ok(event) = tokio::time::timeout_at(deadline, events.recv()).await else {
            return;
        };
        if let Ok(HostEvent::TextDelta { thread_id, .. }) = event {
            if threads.lock().unwrap().contains(&thread_id) {
                seen.entry(thread_id).or_insert_with(Instant::now);
            }
        }
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn race_figures(host: &Host, source: &str, n: usize) -> String {
    let lanes: Arc<Mutex<HashSet<String>>> = Arc::default();
    let running: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let (l, r) = (lanes.clone(), running.clone());
    let on_lane = Arc::new(move |lane: &RaceLane| {
        if let Some(id) = &lane.thread_id {
            l.lock().unwrap().insert(id.clone());
            if lane.state == forkhost_core::LaneState::Running {
                r.lock()
                    .unwrap()
                    .entry(id.clone())
                    .or_insert_with(Instant::now);
            }
        }
    });
    let mut events = host.subscribe();
    let started = Instant::now();
    let spec = RaceSpec {
        source: source.to_owned(),
        at: ForkAt::After(TurnRef::Number(2)),
        lanes: vec![LaneSpec::default(); n],
        prompt: PROMPT.into(),
        shared_folder: false,
        max_parallel: Some(n),
        approve: None,
        check: None,
        check_timeout: None,
        budget_usd: None,
    };
    let racing = {
        let host = host.clone();
        tokio::spawn(async move { host.race(spec, on_lane).await })
    };
    let mut seen = HashMap::new();
    first_deltas(&mut events, &lanes, n, &mut seen).await;
    let streaming = seen.values().max().map(|t| ms(*t - started));
    let race = racing.await.unwrap().unwrap();
    let all_ended = ms(started.elapsed());
    let sent = running
        .lock()
        .unwrap()
        .values()
        .max()
        .map(|t| ms(*t - started));
    for lane in &race.lanes {
        host.archive(lane.thread_id.as_deref().unwrap(), true)
            .await
            .ok();
    }
    format!(
        "race      N={n}: all prompts sent {:>7.0} ms, all streaming {:>7.0} ms, all ended {all_ended:>7.0} ms",
        sent.unwrap_or(f64::NAN),
        streaming.unwrap_or(f64::NAN)
    )
}

async fn one_by_one_figures(host: &Host, source: &str, n: usize) -> String {
    let forks: Arc<Mutex<HashSet<String>>> = Arc::default();
    let mut events = host.subscribe();
    let started = Instant::now();
    let mut done = Vec::new();
    for _ in 0..n {
        let forked = host
            .fork_into(
                source,
                ForkAt::After(TurnRef::Number(2)),
                ForkFiles::Worktree,
                None,
            )
            .await
            .unwrap();
        let id = forked.thread.thread.id;
        forks.lock().unwrap().insert(id.clone());
        done.push((id.clone(), host.start_turn(&id, PROMPT).await.unwrap()));
    }
    let sent = ms(started.elapsed());
    let mut seen = HashMap::new();
    first_deltas(&mut events, &forks, n, &mut seen).await;
    let streaming = seen.values().max().map(|t| ms(*t - started));
    for (_, rx) in done.iter_mut() {
        let _ = rx.await;
    }
    let all_ended = ms(started.elapsed());
    for (id, _) in &done {
        host.archive(id, true).await.ok();
    }
    format!(
        "one by one N={n}: all prompts sent {sent:>7.0} ms, all streaming {:>7.0} ms, all ended {all_ended:>7.0} ms",
        streaming.unwrap_or(f64::NAN)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn race_of_n_lanes_beside_n_forks_one_by_one() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    let host = s.host().await;
    let source = s.thread(&host, Default::default()).await;
    turn(&host, &source, "one").await;
    turn(&host, &source, "two").await;
    // Warm: one fork and its first turn, so the figures are not a cold start's.
    println!("{}", one_by_one_figures(&host, &source, 1).await);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut lines = vec![format!("{cores} cores")];
    // The quick form (`FORKHOST_BENCH_QUICK=1`) stops at 4 lanes: every step, fewer rows.
    let sizes: &[usize] = if forkhost_tests::bench_quick() {
        &[2, 4]
    } else {
        &[2, 4, 8]
    };
    for &n in sizes {
        lines.push(race_figures(&host, &source, n).await);
        lines.push(one_by_one_figures(&host, &source, n).await);
    }
    println!("--- race bench (Pi, fake model)\n{}", lines.join("\n"));
}
