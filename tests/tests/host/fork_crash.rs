//! Crash safety of the fork engine: a process killed (SIGKILL) at every step of a fork leaves,
//! after a restart, no `creating` row, no anchor pointing at nothing, no session file no thread
//! names (a harness's derived session removed with its fork), the source unchanged, and the
//! fork either complete or absent. And a commit that fails after the native fork leaves no
//! row, no session and a typed error.
//!
//! The crashing process is this test binary re-run as a child (`FORKHOST_CRASH_CHILD`), with
//! forkhost-core's test-only `failpoints` feature. The same holds for a fork that continues in
//! another harness (`FORKHOST_CRASH_INTO`): its seeding step is step 3 of the same engine.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use forkhost_core::FORK_STEPS;
use forkhost_core::{ForkAt, ForkFiles, HarnessKind, Host, HostOptions, TurnRef};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

const CHILD: &str = "FORKHOST_CRASH_CHILD";
/// The harness the child's fork continues in (unset: a native fork).
const INTO: &str = "FORKHOST_CRASH_INTO";

fn kind(h: Harness) -> HarnessKind {
    h.name().parse().unwrap()
}

/// Child mode: open the Host and fork after turn 1; print the result (if still alive).
fn child_fork() -> bool {
    let Ok(spec) = std::env::var(CHILD) else {
        return false;
    };
    let (data, source, env_file) = {
        let mut parts = spec.splitn(3, '\n');
        (
            parts.next().unwrap().to_owned(),
            parts.next().unwrap().to_owned(),
            parts.next().unwrap().to_owned(),
        )
    };
    let env: Vec<(String, String)> =
        serde_json::from_str(&std::fs::read_to_string(env_file).unwrap()).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let (host, _) = Host::open_with(
            &data,
            HostOptions {
                harness_env: env,
                ..Default::default()
            },
        )
        .await
        .unwrap();
        let into = std::env::var(INTO).ok().map(|h| h.parse().unwrap());
        let at = ForkAt::After(TurnRef::Number(1));
        match host
            .fork_into(&source, at, ForkFiles::SameFolder, into)
            .await
        {
            Ok(done) => println!("FORK_OK {}", done.thread.thread.id),
            Err(err) => println!("FORK_ERR {}", err.code()),
        }
        host.shutdown().await;
    });
    true
}

struct Fixture {
    _model: FakeModel,
    env: HarnessEnv,
    env_file: PathBuf,
    data: tempfile::TempDir,
    source: String,
    native: PathBuf,
    bytes: Vec<u8>,
    into: Option<Harness>,
    /// The harnesses' session files before any fork.
    sessions: Vec<PathBuf>,
}

/// The session files the harnesses keep under the test's home (their prompt histories aside),
/// canonical.
fn session_files(env: &HarnessEnv) -> Vec<PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "jsonl")
                && path.file_name().is_some_and(|n| n != "history.jsonl")
            {
                out.push(path.canonicalize().unwrap_or(path));
            }
        }
    }
    let mut out = Vec::new();
    walk(env.home(), &mut out);
    out.sort();
    out
}

async fn fixture(harness: Harness, into: Option<Harness>) -> Option<Fixture> {
    let model = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let harnesses: Vec<Harness> = std::iter::once(harness).chain(into).collect();
    let env = HarnessEnv::for_fake_all(&harnesses, &model).unwrap()?;
    // The source is made by the harness CLI itself, outside Forkhost, then imported.
    let first = env
        .run_prompt("one", None, Duration::from_secs(120))
        .await
        .unwrap();
    assert!(first.success(), "{first}");
    let sid = first.session_id.clone().expect("session id");
    for prompt in ["two", "three"] {
        let out = env
            .run_prompt(prompt, Some(&sid), Duration::from_secs(120))
            .await
            .unwrap();
        assert!(out.success(), "{out}");
    }
    let data = tempfile::tempdir().unwrap();
    let env_file = data.path().join("harness-env.json");
    std::fs::write(&env_file, serde_json::to_string(env.vars()).unwrap()).unwrap();
    let (host, _) = Host::open_with(
        data.path(),
        HostOptions {
            harness_env: env.vars().to_vec(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let imported = host.import(kind(harness), &sid).await.unwrap();
    assert_eq!(imported.turns.len(), 3);
    let native = PathBuf::from(imported.thread.native.path.clone().unwrap());
    host.shutdown().await;
    let bytes = std::fs::read(&native).unwrap();
    let sessions = session_files(&env);
    Some(Fixture {
        _model: model,
        env,
        env_file,
        data,
        source: imported.thread.id,
        native,
        bytes,
        into,
        sessions,
    })
}

fn run_child(test: &str, fx: &Fixture, failpoint: &str) -> (Option<i32>, String) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    fx.env.apply_std(&mut cmd);
    let test = forkhost_tests::test_name(module_path!(), test);
    cmd.args([test.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(
            CHILD,
            format!(
                "{}\n{}\n{}",
                fx.data.path().display(),
                fx.source,
                fx.env_file.display()
            ),
        )
        .env("FORKHOST_FAILPOINT", failpoint)
        .stdin(std::process::Stdio::null());
    if let Some(into) = fx.into {
        cmd.env(INTO, into.name());
    }
    let out = cmd.output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The Host on the fixture's data folder, with its harnesses' environment.
async fn open_host(fx: &Fixture) -> (Host, forkhost_core::OpenReport) {
    Host::open_with(
        fx.data.path(),
        HostOptions {
            harness_env: fx.env.vars().to_vec(),
            ..Default::default()
        },
    )
    .await
    .unwrap()
}

/// The invariants after a restart.
async fn check_after_restart(fx: &Fixture, harness: Harness) -> Option<String> {
    // The Host's open removes what a crash left (the row and the session its harness derived);
    // count it.
    let (host, report) = open_host(fx).await;
    let removed = report.removed_creating;
    host.shutdown().await;
    let opened = forkhost_store::Store::open(fx.data.path().join("forkhost.sqlite"))
        .await
        .unwrap();
    let threads = opened.store.threads().await.unwrap();
    let named: Vec<PathBuf> = threads
        .iter()
        .filter_map(|t| t.native_path.as_deref())
        .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| PathBuf::from(p)))
        .collect();
    for file in session_files(&fx.env) {
        assert!(
            fx.sessions.contains(&file) || named.contains(&file),
            "a session no thread names was left behind: {}",
            file.display()
        );
    }
    assert!(threads
        .iter()
        .all(|t| t.state != forkhost_store::ThreadState::Creating));
    for t in &threads {
        let anchors = opened.store.turns(&t.id).await.unwrap();
        // Every anchor points at a turn of its thread's native session (or, for a pending
        // fork, of its source's).
        let path = match (&t.native_path, &t.pending_fork) {
            (Some(p), None) => PathBuf::from(p),
            _ => fx.native.clone(),
        };
        if path.exists() {
            // A fork that continued in another harness is read as that harness's session.
            let read_as = match t.pending_fork {
                None => t.harness.parse().unwrap(),
                Some(_) => kind(harness),
            };
            let native = forkhost_harness::read_history(read_as, &path).unwrap();
            for a in &anchors {
                assert!(
                    native
                        .turns
                        .iter()
                        .any(|n| n.native_turn_ref == a.native_turn_ref),
                    "anchor {} of {} points at nothing",
                    a.id,
                    t.id
                );
            }
        }
    }
    opened.store.close().await;
    assert_eq!(
        std::fs::read(&fx.native).unwrap(),
        fx.bytes,
        "the source changed"
    );
    let fork = threads
        .iter()
        .find(|t| t.id != fx.source)
        .map(|t| t.id.clone());
    match &fork {
        Some(id) => {
            // Complete: lineage and its one inherited turn.
            let (host, _) = open_host(fx).await;
            let shown = host.show(id).await.unwrap();
            assert_eq!(shown.turns.len(), 1);
            assert_eq!(shown.thread.fork.as_ref().unwrap().source_thread, fx.source);
            let runs_in = fx.into.map_or(kind(harness), kind);
            assert_eq!(
                shown.thread.harness, runs_in,
                "the fork runs where it was asked to"
            );
            host.shutdown().await;
            assert_eq!(removed, 0);
        }
        None => assert!(threads.len() == 1),
    }
    fork
}

async fn crash_at_every_step(harness: Harness, into: Option<Harness>, test: &str) {
    let Some(fx) = fixture(harness, into).await else {
        return;
    };
    let mut forks = 0;
    for step in FORK_STEPS {
        let (code, stdout) = run_child(test, &fx, step);
        assert_eq!(
            code, None,
            "the child should die by SIGKILL at {step}: {stdout}"
        );
        let fork = check_after_restart(&fx, harness).await;
        println!(
            "{}: killed at {step}: fork {}",
            harness.name(),
            if fork.is_some() { "complete" } else { "absent" }
        );
        if step == "after_commit" {
            assert!(fork.is_some(), "a fork committed before the crash survives");
        } else {
            assert!(fork.is_none(), "a fork killed at {step} must be absent");
        }
        if let Some(id) = fork {
            // Clean up so the next step starts from the source alone.
            let store = forkhost_store::Store::open(fx.data.path().join("forkhost.sqlite"))
                .await
                .unwrap()
                .store;
            let row = store.thread(&id).await.unwrap();
            store.delete_thread(&id, row.revision).await.unwrap();
            if let Some(path) = row
                .native_path
                .filter(|p| *p != fx.native.to_string_lossy())
            {
                let _ = std::fs::remove_file(path);
            }
            store.close().await;
            forks += 1;
        }
    }
    assert_eq!(forks, 1);

    // A commit that fails after the native fork: typed error, no row, source unchanged.
    let (code, stdout) = run_child(test, &fx, "before_commit:error");
    assert_eq!(code, Some(0), "{stdout}");
    assert!(stdout.contains("FORK_ERR internal"), "{stdout}");
    assert!(check_after_restart(&fx, harness).await.is_none());

    // And with no failpoint the same fork completes.
    let (_, stdout) = run_child(test, &fx, "none");
    assert!(stdout.contains("FORK_OK"), "{stdout}");
}

macro_rules! crash_test {
    ($name:ident, $harness:expr) => {
        #[test]
        fn $name() {
            if child_fork() {
                return;
            }
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(crash_at_every_step($harness, None, stringify!($name)));
        }
    };
}

crash_test!(claude_fork_survives_a_crash_at_every_step, Harness::Claude);
crash_test!(codex_fork_survives_a_crash_at_every_step, Harness::Codex);
crash_test!(pi_fork_survives_a_crash_at_every_step, Harness::Pi);

/// A fork that continues in another harness: a crash at every step of the same engine.
macro_rules! crash_test_into {
    ($name:ident, $harness:expr, $into:expr) => {
        #[test]
        fn $name() {
            if child_fork() {
                return;
            }
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(crash_at_every_step(
                $harness,
                Some($into),
                stringify!($name),
            ));
        }
    };
}

crash_test_into!(
    pi_continuing_in_claude_survives_a_crash_at_every_step,
    Harness::Pi,
    Harness::Claude
);
crash_test_into!(
    claude_continuing_in_codex_survives_a_crash_at_every_step,
    Harness::Claude,
    Harness::Codex
);
crash_test_into!(
    codex_continuing_in_pi_survives_a_crash_at_every_step,
    Harness::Codex,
    Harness::Pi
);
