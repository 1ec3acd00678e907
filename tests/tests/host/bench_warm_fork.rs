//! Benchmark: a warm native fork through the Host, as the app makes it (issue 22 item 3), for
//! Codex and Pi. Each fork comes after the harness's spare had time to be ready (a user reads
//! before clicking Fork); the Host checks the folder's trust, takes the spare, forks in it (it
//! becomes the fork's runtime) and starts the next spare. Printed: the native step's median and
//! p90 (`ForkTiming::native_ms`), beside the same fork in a spare alone, which the harness suites
//! print (`warm_spares_fork_like_the_cold_path`: Codex ~50 ms). Nothing is asserted about time;
//! most forks must run warm (a spare slower to start than the pause leaves one cold, counted
//! apart) and the source must stay untouched.
//! Run with `cargo test -p forkhost-tests --test host_bench_warm_fork -- --nocapture`.

use crate::host_kit;

use std::time::Duration;

use forkhost_core::{ForkAt, TurnRef};
use forkhost_tests::harness_env::Harness;

use host_kit::{setup, two_turn_source};

/// Forks per harness (the quick form, `FORKHOST_BENCH_QUICK=1`, makes 3: enough to run
/// every step of the path, warm, so it cannot rot).
fn runs() -> usize {
    if forkhost_tests::bench_quick() {
        3
    } else {
        8
    }
}
/// Between forks: long enough for the next spare to be ready (Pi, a Node program, takes ~1 s).
const READING: Duration = Duration::from_secs(3);

#[tokio::test]
async fn codex_warm_fork_through_the_host() {
    warm_forks(Harness::Codex).await;
}

#[tokio::test]
async fn pi_warm_fork_through_the_host() {
    warm_forks(Harness::Pi).await;
}

/// OpenCode (ACP): the fork copies the turn's snapshot in the spare (`session/fork`).
#[tokio::test]
async fn opencode_warm_fork_through_the_host() {
    warm_forks(Harness::Opencode).await;
}

async fn warm_forks(harness: Harness) {
    let Some(s) = setup(harness).await else {
        return;
    };
    let host = s.host_with(|o| o.warm_forks = true).await;
    let (source, path, bytes) = two_turn_source(&s, &host).await;

    let runs = runs();
    let mut native = Vec::new();
    // OpenCode takes 2–4 s to start where Pi takes ~1 s.
    let reading = match harness {
        Harness::Opencode => READING * 2,
        _ => READING,
    };
    for _ in 0..runs {
        tokio::time::sleep(reading).await;
        let forked = host
            .fork(&source, ForkAt::After(TurnRef::Number(1)))
            .await
            .unwrap();
        // A spare slower to start than READING (a loaded machine) leaves a fork cold: not
        // what this measures, so counted apart.
        if forked.timing.warm {
            native.push(forked.timing.native_ms);
        }
        // Its runtime (the spare it took) is not needed: the next fork takes a new spare.
        host.close(&forked.thread.thread.id).await.unwrap();
    }
    assert_eq!(
        std::fs::read(&path).unwrap_or_default(),
        bytes,
        "the source changed"
    );
    host.shutdown().await;
    assert!(
        native.len() >= runs.div_ceil(2),
        "{}: {} of {runs} forks did not run in a warm spare",
        harness.name(),
        runs - native.len()
    );

    native.sort_by(f64::total_cmp);
    let p90 = native[(native.len() * 9 / 10).min(native.len() - 1)];
    println!(
        "{} warm fork through the Host, native step: median {:.1} ms, p90 {p90:.1} ms ({} warm forks of {runs}, {reading:?} apart; all: {:?})",
        harness.name(),
        native[native.len() / 2],
        native.len(),
        native.iter().map(|ms| ms.round()).collect::<Vec<_>>()
    );
}
