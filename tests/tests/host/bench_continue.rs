//! Benchmark: continuing a 300-message conversation in another agent, beside the same-harness
//! fork, for every source and target (figures are printed; nothing is asserted about time).
//!
//! Each source is a native session of 150 turns (a prompt and a reply each, every tenth with a
//! shell call) written by that harness's own seed writer, imported into a Host with the real
//! CLIs against the fake model. Printed per pair: the Host's `fork_into` (check → `creating` →
//! the target's session written → commit), median and max of [`runs`]. The window's side of a
//! fork (data → paint) does not depend on the harness; `app_bench_forks` measures it.
//! Run with `cargo test -p forkhost-tests --test host_bench_continue -- --nocapture`.

use std::time::Instant;

use forkhost_core::{ForkAt, ForkFiles, HarnessKind, Host, HostOptions, TurnRef};
use forkhost_harness::contract::{Seed, SeedStep, SeedTurn, ShellCall};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

const TURNS: usize = 150;
/// Forks per pair: the median and max of 3, or one in the quick form (`FORKHOST_BENCH_QUICK=1`).
fn runs() -> usize {
    if forkhost_tests::bench_quick() {
        1
    } else {
        3
    }
}

fn seed() -> Seed {
    let turns = (1..=TURNS)
        .map(|i| {
            let mut reply = vec![SeedStep::Text(format!(
                "reply {i}: {}",
                "a sentence of the kind a reply holds. ".repeat(8)
            ))];
            if i % 10 == 0 {
                reply.insert(
                    0,
                    SeedStep::Shell(ShellCall {
                        command: format!("ls step-{i}"),
                        output: "a\nb\nc\n".into(),
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn continuing_a_300_message_thread_in_each_harness() {
    let all = [Harness::Claude, Harness::Codex, Harness::Pi];
    let model = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let Some(env) = HarnessEnv::for_fake_all(&all, &model).unwrap() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let options = HostOptions {
        harness_env: env.vars().to_vec(),
        ..Default::default()
    };
    let (host, _) = Host::open_with(data.path(), options).await.unwrap();
    let seed = seed();
    let runs = runs();
    let mut lines = Vec::new();
    for source in all {
        // The binary the Host runs (FORKHOST_*_BIN, as every real-CLI test sets it).
        let binary = forkhost_harness::binary::probe(kind(source)).await.unwrap();
        let request = forkhost_harness::SeedRequest {
            binary: &binary,
            seed: &seed,
            cwd: env.work_dir(),
            env: env.vars(),
        };
        let written = forkhost_harness::runtime::seed_with(request).await.unwrap();
        let imported = host
            .import(kind(source), &written.session.session_id)
            .await
            .unwrap();
        assert_eq!(imported.turns.len(), TURNS, "{source:?} source");
        let src = imported.thread.id;
        for target in all {
            let mut ms = Vec::new();
            for _ in 0..runs {
                let started = Instant::now();
                let forked = host
                    .fork_into(
                        &src,
                        ForkAt::After(TurnRef::Number(TURNS as i64)),
                        ForkFiles::SameFolder,
                        Some(kind(target)),
                    )
                    .await
                    .unwrap();
                ms.push(started.elapsed().as_secs_f64() * 1e3);
                assert_eq!(forked.thread.turns.len(), TURNS);
                assert_eq!(forked.thread.thread.harness, kind(target));
            }
            ms.sort_by(f64::total_cmp);
            // A Codex source written by its seed writer holds injected turns only: a fork of
            // it is re-seeded (no native coordinate to cut at), not a `thread/fork`.
            let what = match (source == target, target) {
                (true, Harness::Codex) => "same harness, re-seeded".to_owned(),
                (true, _) => "same-harness fork".to_owned(),
                (false, _) => format!("continue in {}", target.name()),
            };
            lines.push(format!(
                "{:>6} → {:<6} {:<22} median {:>7.1} ms  max {:>7.1} ms",
                source.name(),
                target.name(),
                what,
                ms[runs / 2],
                ms[runs - 1]
            ));
        }
    }
    host.shutdown().await;
    println!();
    println!(
        "=== continue a {} -message thread (Host fork_into, {runs} runs) ===",
        TURNS * 2
    );
    for line in &lines {
        println!("{line}");
    }
    println!(
        "goal: click → fork window ≤ 150 ms median for a same-harness fork (DESIGN.md Budgets)"
    );
    println!("======================");
}
