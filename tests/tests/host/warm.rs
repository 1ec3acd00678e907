//! Warm forks in a long-lived Host (the app's), with the real CLIs against the fake model:
//! a lazy Claude fork's harness process starts right after the fork, so the first Send goes
//! straight to the model; a Codex fork runs in the warm spare its harness keeps, which is then
//! the fork's runtime. Either way the fork's first turn carries exactly the kept history, the
//! source is untouched, and the figures are printed warm beside cold (never asserted).

use crate::host_kit;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use forkhost_core::{ForkAt, Host, HostEvent, HostOptions, TurnRef};
use forkhost_tests::fake_model::{FakeModel, Role};
use forkhost_tests::harness_env::Harness;
use tokio::sync::broadcast::Receiver;

use host_kit::{setup, turn, two_turn_source as source, Setup, TURN};

/// Between the fork and the first Send: a user typing the prompt.
const TYPING: Duration = Duration::from_secs(2);

/// A Host without warm forks over its own data folder, with the source imported.
async fn cold_host(s: &Setup, data: &Path, source: &Path) -> (Host, String) {
    let options = HostOptions {
        harness_env: s.env.vars().to_vec(),
        ..Default::default()
    };
    let host = Host::open_with(data, options).await.unwrap().0;
    let imported = host
        .import(s.kind(), &source.display().to_string())
        .await
        .unwrap()
        .thread
        .id;
    (host, imported)
}

/// Waits for the thread's harness process to start, at most `limit`.
async fn started(events: &mut Receiver<HostEvent>, thread: &str, limit: Duration) -> bool {
    let waited = tokio::time::timeout(limit, async {
        loop {
            if let HostEvent::RuntimeStarted { thread_id } = events.recv().await.unwrap() {
                if thread_id == thread {
                    return;
                }
            }
        }
    });
    waited.await.is_ok()
}

/// The user prompts of the model's last request.
fn prompts(model: &FakeModel) -> Vec<String> {
    let last = model.last_model_request().unwrap();
    last.dialogue()
        .into_iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.text)
        .collect()
}

/// Sends `prompt` and returns how long until the model saw its request.
async fn send_to_model(host: &Host, model: &FakeModel, thread: &str, prompt: &str) -> Duration {
    let before = model.model_requests().len();
    let sent = Instant::now();
    let done = host.start_turn(thread, prompt).await.unwrap();
    let waited = tokio::time::timeout(TURN, async {
        while model.model_requests().len() <= before {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    });
    waited.await.expect("the model saw no request");
    let elapsed = sent.elapsed();
    let outcome = tokio::time::timeout(TURN, done).await.expect("turn hung");
    assert_eq!(outcome.unwrap(), forkhost_core::TurnOutcome::Completed);
    elapsed
}

fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        match path.is_dir() {
            true => out.extend(files_below(&path)),
            false => out.push(path),
        }
    }
    out
}

#[tokio::test]
async fn claude_warm_fork_starts_its_process_at_fork_time() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    let warm = s.host_with(|o| o.warm_forks = true).await;
    let (source_id, source_path, source_bytes) = source(&s, &warm).await;

    let mut events = warm.subscribe();
    let after1 = ForkAt::After(TurnRef::Number(1));
    let fork = warm
        .fork(&source_id, after1.clone())
        .await
        .unwrap()
        .thread
        .thread;
    assert!(
        started(&mut events, &fork.id, TURN).await,
        "not started ahead"
    );
    // The user reads the fork and types; the CLI finishes starting meanwhile.
    tokio::time::sleep(TYPING).await;
    let warm_ms = send_to_model(&warm, &s.model, &fork.id, "after the fork").await;
    assert_eq!(prompts(&s.model), ["first question", "after the fork"]);
    assert_eq!(std::fs::read(&source_path).unwrap(), source_bytes);

    // A warm fork nobody uses writes nothing.
    let unused = warm
        .fork(&source_id, ForkAt::Latest)
        .await
        .unwrap()
        .thread
        .thread;
    assert!(started(&mut events, &unused.id, TURN).await);
    warm.shutdown().await;
    let unused_file = format!("{}.jsonl", unused.native.session_id.unwrap());
    let written: Vec<_> = files_below(s.env.home())
        .into_iter()
        .filter(|p| p.ends_with(&unused_file))
        .collect();
    assert!(written.is_empty(), "an unused warm fork wrote {written:?}");

    let cold_data = tempfile::tempdir().unwrap();
    let (cold, imported) = cold_host(&s, cold_data.path(), &source_path).await;
    let cold_fork = cold.fork(&imported, after1).await.unwrap().thread.thread;
    tokio::time::sleep(TYPING).await;
    let cold_ms = send_to_model(&cold, &s.model, &cold_fork.id, "after a cold fork").await;
    println!(
        "claude fork: Send → model request warm {:.0} ms | cold {:.0} ms (goal ≤ 50 ms warm)",
        warm_ms.as_secs_f64() * 1e3,
        cold_ms.as_secs_f64() * 1e3
    );
}

/// Codex: the thread's harness keeps a warm spare; a fork runs in it and it is the fork's
/// runtime at once (its `runtime_started` comes with the fork, before any Send).
#[tokio::test]
async fn codex_fork_runs_in_a_warm_spare_that_becomes_its_runtime() {
    let Some(s) = setup(Harness::Codex).await else {
        return;
    };
    let warm = s.host_with(|o| o.warm_forks = true).await;
    let (source_id, source_path, source_bytes) = source(&s, &warm).await;
    // The spare started with the source's runtime; give it time to be ready.
    tokio::time::sleep(Duration::from_secs(3)).await;

    let mut events = warm.subscribe();
    let after1 = ForkAt::After(TurnRef::Number(1));
    let forked = warm.fork(&source_id, after1.clone()).await.unwrap();
    let fork = forked.thread.thread.id.clone();
    assert!(
        started(&mut events, &fork, Duration::from_secs(5)).await,
        "the fork did not come with its runtime (no warm spare used)"
    );
    turn(&warm, &fork, "after the fork").await;
    assert_eq!(prompts(&s.model), ["first question", "after the fork"]);
    assert_eq!(std::fs::read(&source_path).unwrap(), source_bytes);
    // Another fork: the spare was replaced in the background.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let again = warm.fork(&source_id, ForkAt::Latest).await.unwrap();
    warm.shutdown().await;

    let cold_data = tempfile::tempdir().unwrap();
    let (cold, imported) = cold_host(&s, cold_data.path(), &source_path).await;
    let cold_fork = cold.fork(&imported, after1).await.unwrap();
    println!(
        "codex fork, native call: warm {:.0} ms and {:.0} ms | cold {:.0} ms (goal ≤ 60 ms warm)",
        forked.timing.native_ms, again.timing.native_ms, cold_fork.timing.native_ms
    );
}

/// The first fork is warm too (issue 22, item 4): a thread only opened in a view (followed, as
/// the app does when it shows one), whose harness never ran in this Host, starts its harness's
/// spare; its first fork runs in it and comes with its runtime.
#[tokio::test]
async fn opening_a_thread_starts_its_harnesss_spare_for_the_first_fork() {
    let Some(s) = setup(Harness::Codex).await else {
        return;
    };
    // The conversation was had elsewhere (another Host, as the user's own terminal would).
    let other = s.host().await;
    let (_, source_path, source_bytes) = source(&s, &other).await;
    other.shutdown().await;
    let data = tempfile::tempdir().unwrap();
    let warm = Host::open_with(
        data.path(),
        HostOptions {
            harness_env: s.env.vars().to_vec(),
            warm_forks: true,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .0;
    let imported = warm
        .import(s.kind(), &source_path.display().to_string())
        .await
        .unwrap()
        .thread
        .id;
    warm.follow(&imported).await.unwrap();
    // The user reads the thread before choosing where to fork.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let mut events = warm.subscribe();
    let forked = warm
        .fork(&imported, ForkAt::After(TurnRef::Number(1)))
        .await
        .unwrap();
    let fork = forked.thread.thread.id.clone();
    assert!(
        started(&mut events, &fork, Duration::from_secs(5)).await,
        "the first fork did not run in a warm spare"
    );
    turn(&warm, &fork, "after the fork").await;
    assert_eq!(prompts(&s.model), ["first question", "after the fork"]);
    assert_eq!(std::fs::read(&source_path).unwrap(), source_bytes);
    println!(
        "first codex fork of a thread only opened: native call {:.0} ms (warm spare)",
        forked.timing.native_ms
    );
    warm.shutdown().await;
}

/// The user prompts of the last model request that offered tools: OpenCode also asks the model
/// for a session's title, a request without tools, when it chooses.
fn turn_prompts(model: &FakeModel) -> Vec<String> {
    let last = model.last_turn_request().expect("a turn's model request");
    last.dialogue()
        .into_iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.text)
        .collect()
}

/// Each turn's messages of `thread` as the Host reads them back.
async fn read_back(host: &Host, thread: &str) -> Vec<Vec<(String, String)>> {
    let detail = host.show(thread).await.unwrap();
    detail
        .turns
        .iter()
        .map(|t| {
            t.messages
                .iter()
                .map(|m| (format!("{:?}", m.role), m.text.clone()))
                .collect()
        })
        .collect()
}

/// OpenCode (ACP) keeps a warm spare too: a fork copies the turn's snapshot inside it instead
/// of starting OpenCode, and the spare is then the fork's runtime, whose first turn carries
/// exactly the kept history; a fork before the first turn is a new session there. The source
/// reads back the same. Printed: warm beside cold (the same fork in a Host without spares).
#[tokio::test]
async fn opencode_fork_copies_its_snapshot_in_a_warm_spare_that_becomes_its_runtime() {
    let Some(s) = setup(Harness::Opencode).await else {
        return;
    };
    let warm = s.host_with(|o| o.warm_forks = true).await;
    let (source_id, _, _) = source(&s, &warm).await;
    let before = read_back(&warm, &source_id).await;
    // The spare started with the source's runtime; OpenCode takes 2–4 s to start.
    tokio::time::sleep(Duration::from_secs(6)).await;

    let mut events = warm.subscribe();
    let after1 = ForkAt::After(TurnRef::Number(1));
    let forked = warm.fork(&source_id, after1.clone()).await.unwrap();
    let fork = forked.thread.thread.id.clone();
    assert!(forked.timing.warm, "the fork did not run in the warm spare");
    assert!(
        started(&mut events, &fork, Duration::from_secs(5)).await,
        "the fork did not come with its runtime"
    );
    turn(&warm, &fork, "after the fork").await;
    assert_eq!(turn_prompts(&s.model), ["first question", "after the fork"]);

    // Before the first turn: a new session in the next spare.
    tokio::time::sleep(Duration::from_secs(6)).await;
    let fresh = warm
        .fork(&source_id, ForkAt::Before(TurnRef::Number(1)))
        .await
        .unwrap();
    assert!(fresh.timing.warm, "the second fork did not run in a spare");
    assert_eq!(fresh.prefill.as_deref(), Some("first question"));
    turn(&warm, &fresh.thread.thread.id, "from the start").await;
    assert_eq!(turn_prompts(&s.model), ["from the start"]);
    assert_eq!(read_back(&warm, &source_id).await, before);
    warm.shutdown().await;

    // The same fork in a Host without spares, over the same store (the snapshots are there).
    let cold = s.host().await;
    let cold_fork = cold.fork(&source_id, after1).await.unwrap();
    assert!(!cold_fork.timing.warm);
    println!(
        "opencode fork, native step: warm {:.0} ms (after turn 1) and {:.0} ms (before turn 1) | cold {:.0} ms",
        forked.timing.native_ms, fresh.timing.native_ms, cold_fork.timing.native_ms
    );
    cold.shutdown().await;
}
