//! The Host with the real harness CLIs against the fake model: parent and fork streaming at
//! once, concurrent writers, restart recovery, and live sync of turns written outside Forkhost.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use forkhost_core::{ForkAt, HarnessKind, Host, HostEvent, HostOptions, NewThreadSpec, TurnRef};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

const TURN: Duration = Duration::from_secs(120);

struct Setup {
    model: FakeModel,
    env: HarnessEnv,
    data: tempfile::TempDir,
}

async fn setup(harness: Harness) -> Option<Setup> {
    let model = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let env = HarnessEnv::for_fake(harness, &model).unwrap()?;
    Some(Setup {
        model,
        env,
        data: tempfile::tempdir().unwrap(),
    })
}

impl Setup {
    async fn host(&self) -> Host {
        let options = HostOptions {
            harness_env: self.env.vars().to_vec(),
            ..Default::default()
        };
        Host::open_with(self.data.path(), options).await.unwrap().0
    }

    fn kind(&self) -> HarnessKind {
        self.env.harness.name().parse().unwrap()
    }

    async fn thread_with_turns(&self, host: &Host, prompts: &[&str]) -> String {
        let created = host
            .create(NewThreadSpec {
                harness: self.kind(),
                cwd: self.env.work_dir().to_owned(),
                title: Some("source".into()),
                permissions: Default::default(),
            })
            .await
            .unwrap();
        for p in prompts {
            tokio::time::timeout(TURN, host.send(&created.thread.id, p))
                .await
                .expect("turn hung")
                .unwrap();
        }
        created.thread.id
    }
}

fn user_texts(record: &forkhost_tests::fake_model::RequestRecord) -> Vec<String> {
    record
        .conversation()
        .into_iter()
        .filter(|m| m.role == forkhost_tests::fake_model::Role::User)
        .map(|m| m.text)
        .collect()
}

async fn parent_and_fork_stream_at_once(harness: Harness) {
    let Some(s) = setup(harness).await else {
        return;
    };
    let host = s.host().await;
    let source = s.thread_with_turns(&host, &["base"]).await;
    let fork = host
        .fork(&source, ForkAt::Latest)
        .await
        .unwrap()
        .thread
        .thread
        .id;
    let rounds = 20;
    for round in 0..rounds {
        let (pa, pb) = (format!("SLOW parent {round}"), format!("SLOW fork {round}"));
        let (a, b) = tokio::join!(
            tokio::time::timeout(TURN, host.send(&source, &pa)),
            tokio::time::timeout(TURN, host.send(&fork, &pb)),
        );
        a.expect("parent hung").unwrap();
        b.expect("fork hung").unwrap();
    }
    let parent = host.show(&source).await.unwrap();
    let child = host.show(&fork).await.unwrap();
    assert_eq!(parent.turns.len(), rounds + 1);
    assert_eq!(child.turns.len(), rounds + 1);
    let texts = |d: &forkhost_core::ThreadDetail| -> Vec<String> {
        d.turns
            .iter()
            .flat_map(|t| {
                t.messages
                    .iter()
                    .filter(|m| m.role == "user")
                    .map(|m| m.text.clone())
            })
            .collect()
    };
    for (i, text) in texts(&parent).iter().enumerate().skip(1) {
        assert_eq!(text, &format!("SLOW parent {}", i - 1));
    }
    for (i, text) in texts(&child).iter().enumerate().skip(1) {
        assert_eq!(text, &format!("SLOW fork {}", i - 1));
    }
    // Every model request held only its own thread's prompts.
    for r in s.model.model_requests() {
        let users = user_texts(&r);
        let parent_side = users.iter().any(|u| u.starts_with("SLOW parent"));
        let fork_side = users.iter().any(|u| u.starts_with("SLOW fork"));
        assert!(
            !(parent_side && fork_side),
            "a request mixed both threads: {users:?}"
        );
    }
    // And every reply completed.
    for d in [&parent, &child] {
        for t in &d.turns {
            assert!(
                t.messages
                    .iter()
                    .any(|m| m.role == "assistant" && m.text.starts_with("reply (turn")),
                "turn {} incomplete",
                t.number
            );
        }
    }
    host.shutdown().await;
}

async fn restart_recovery(harness: Harness) {
    let Some(s) = setup(harness).await else {
        return;
    };
    let host = s.host().await;
    let doomed = s.thread_with_turns(&host, &["doomed"]).await;
    let kept = s.thread_with_turns(&host, &["kept"]).await;
    let path = PathBuf::from(
        host.show(&doomed)
            .await
            .unwrap()
            .thread
            .native
            .path
            .unwrap(),
    );
    // A pending fork (Claude: materializes on its first prompt) must survive the restart.
    let fork = host
        .fork(&kept, ForkAt::After(TurnRef::Number(1)))
        .await
        .unwrap();
    host.shutdown().await;
    drop(host);

    std::fs::remove_file(&path).unwrap();
    let (host, report) = Host::open_with(
        s.data.path(),
        HostOptions {
            harness_env: s.env.vars().to_vec(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(report.missing, vec![doomed.clone()]);
    for err in [
        host.show(&doomed).await.map(|_| ()).unwrap_err(),
        host.send(&doomed, "hello?").await.map(|_| ()).unwrap_err(),
        host.fork(&doomed, ForkAt::Latest)
            .await
            .map(|_| ())
            .unwrap_err(),
    ] {
        assert_eq!(err.code(), "session_not_found", "{err}");
    }
    assert!(!path.exists(), "no silent new session");

    let fork_id = fork.thread.thread.id;
    let reopened = host.show(&fork_id).await.unwrap();
    assert_eq!(
        reopened.turns.len(),
        1,
        "the fork keeps its inherited turn across the restart"
    );
    let after = tokio::time::timeout(TURN, host.send(&fork_id, "after restart"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after.thread.state.as_str(), "ready");
    assert_eq!(after.turns.len(), 2);
    assert!(PathBuf::from(after.thread.native.path.unwrap()).exists());
    assert_eq!(
        s.model.last_model_request().unwrap().conversation(),
        vec![
            Msg::user("kept"),
            Msg::assistant("reply (turn 1) to: kept"),
            Msg::user("after restart")
        ]
    );
    host.shutdown().await;
}

async fn live_sync(harness: Harness) {
    let Some(s) = setup(harness).await else {
        return;
    };
    let host = s.host().await;
    let id = s.thread_with_turns(&host, &["in forkhost"]).await;
    let session = host
        .show(&id)
        .await
        .unwrap()
        .thread
        .native
        .session_id
        .unwrap();
    host.close(&id).await.unwrap();
    host.follow(&id).await.unwrap();
    let mut events = host.subscribe();

    // The user's own terminal: the harness CLI itself appends a turn.
    let out = s
        .env
        .run_prompt("from the terminal", Some(&session), TURN)
        .await
        .unwrap();
    assert!(out.success(), "{out}");

    let gained = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            if let Ok(HostEvent::ThreadChanged { thread_id, .. }) = events.recv().await {
                if thread_id == id && host.show(&id).await.unwrap().turns.len() == 2 {
                    return;
                }
            }
        }
    })
    .await;
    assert!(
        gained.is_ok(),
        "the watcher never picked up the appended turn"
    );
    let shown = host.show(&id).await.unwrap();
    let last = &shown.turns[1];
    assert!(last
        .messages
        .iter()
        .any(|m| m.role == "user" && m.text == "from the terminal"));
    host.shutdown().await;
}

fn forkhost_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().join("forkhost")
}

async fn two_processes_race(harness: Harness) {
    let Some(s) = setup(harness).await else {
        return;
    };
    let host = s.host().await;
    let id = s.thread_with_turns(&host, &["race"]).await;
    let revision = host
        .threads()
        .await
        .unwrap()
        .into_iter()
        .find(|t| t.id == id)
        .unwrap()
        .revision;
    host.shutdown().await;
    drop(host);

    let spawn = |args: Vec<String>| {
        let mut cmd = Command::new(forkhost_bin());
        s.env.apply_std(&mut cmd);
        cmd.arg("--json")
            .arg("--data-dir")
            .arg(s.data.path())
            .args(args);
        cmd.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        cmd.spawn().unwrap()
    };
    let rev = revision.to_string();
    let a = spawn(vec![
        "rename".into(),
        id.clone(),
        "from A".into(),
        "--if-revision".into(),
        rev.clone(),
    ]);
    let b = spawn(vec![
        "rename".into(),
        id.clone(),
        "from B".into(),
        "--if-revision".into(),
        rev.clone(),
    ]);
    let f = spawn(vec!["fork".into(), id.clone(), "--latest".into()]);
    let outs: Vec<_> = [a, b, f]
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    let json = |o: &std::process::Output| -> serde_json::Value {
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let renames = [json(&outs[0]), json(&outs[1])];
    let wins: Vec<_> = renames
        .iter()
        .filter(|j| j.get("thread").is_some())
        .collect();
    let conflicts: Vec<_> = renames
        .iter()
        .filter(|j| j["error"]["code"] == "conflict")
        .collect();
    assert_eq!((wins.len(), conflicts.len()), (1, 1), "{renames:?}");
    assert!(
        outs[2].status.success(),
        "the fork is not disturbed by the renames: {}",
        json(&outs[2])
    );

    let host = s.host().await;
    let all = host.threads().await.unwrap();
    assert_eq!(all.len(), 2, "nothing lost, nothing extra");
    let renamed = all.iter().find(|t| t.id == id).unwrap();
    assert_eq!(renamed.title, wins[0]["thread"]["title"].as_str().unwrap());
    assert_eq!(renamed.revision, revision + 1);
    host.shutdown().await;
}

macro_rules! per_harness {
    ($($name:ident => $body:ident),* $(,)?) => {
        $(
            mod $name {
                use super::*;
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn claude() { $body(Harness::Claude).await }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn codex() { $body(Harness::Codex).await }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn pi() { $body(Harness::Pi).await }
            }
        )*
    };
}

per_harness! {
    streaming_side_by_side => parent_and_fork_stream_at_once,
    restart => restart_recovery,
    live => live_sync,
    race => two_processes_race,
}

/// A store moved aside at open is rebuilt from the native sessions on disk, with lineage where
/// the harness records it (Codex `forked_from_id`, Pi `parentSession`, Claude shared uuids).
async fn rebuild_after_store_loss(harness: Harness) {
    let Some(s) = setup(harness).await else {
        return;
    };
    let host = s.host().await;
    let source = s.thread_with_turns(&host, &["one", "two"]).await;
    let fork = host
        .fork(&source, ForkAt::After(TurnRef::Number(1)))
        .await
        .unwrap();
    let fork_id = fork.thread.thread.id;
    host.send(&fork_id, "in the fork").await.unwrap();
    let source_session = host
        .show(&source)
        .await
        .unwrap()
        .thread
        .native
        .session_id
        .unwrap();
    let fork_session = host
        .show(&fork_id)
        .await
        .unwrap()
        .thread
        .native
        .session_id
        .unwrap();
    host.shutdown().await;
    drop(host);

    let store = s.data.path().join("forkhost.sqlite");
    std::fs::write(&store, b"this is not a database, it is a note about one").unwrap();
    for companion in ["forkhost.sqlite-wal", "forkhost.sqlite-shm"] {
        let _ = std::fs::remove_file(s.data.path().join(companion));
    }
    let (host, report) = Host::open_with(
        s.data.path(),
        HostOptions {
            harness_env: s.env.vars().to_vec(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert!(report.recovered.is_some());
    assert_eq!(report.rebuilt, 2, "both native sessions came back");
    let threads = host.threads().await.unwrap();
    let by_session = |sid: &str| {
        threads
            .iter()
            .find(|t| t.native.session_id.as_deref() == Some(sid))
            .unwrap()
            .clone()
    };
    let new_source = by_session(&source_session);
    let new_fork = by_session(&fork_session);
    let lineage = new_fork.fork.expect("the fork's lineage came back");
    assert_eq!(lineage.source_thread, new_source.id);
    let shown = host.show(&new_source.id).await.unwrap();
    assert_eq!(shown.turns.len(), 2);
    println!(
        "{}: rebuilt lineage {} at {:?}",
        harness.name(),
        lineage.boundary,
        lineage.source_turn
    );
    if lineage.source_turn.is_some() {
        assert_eq!(
            lineage.source_turn.as_deref(),
            Some(shown.turns[0].id.as_str())
        );
        assert_eq!(lineage.boundary.as_str(), "after");
    }
    host.shutdown().await;
}

per_harness! {
    rebuild => rebuild_after_store_loss,
}

/// An idle runtime is stopped; the next send starts a new one on the same native session.
async fn idle_runtimes_stop(harness: Harness) {
    let Some(s) = setup(harness).await else {
        return;
    };
    let options = HostOptions {
        harness_env: s.env.vars().to_vec(),
        idle_timeout: Some(Duration::from_millis(500)),
        ..Default::default()
    };
    let (host, _) = Host::open_with(s.data.path(), options).await.unwrap();
    let mut events = host.subscribe();
    let id = s.thread_with_turns(&host, &["before idling"]).await;
    let session = host.show(&id).await.unwrap().thread.native.session_id;
    let stopped = tokio::time::timeout(Duration::from_secs(30), async {
        while !matches!(
            events.recv().await,
            Ok(HostEvent::RuntimeStopped { thread_id }) if thread_id == id
        ) {}
    })
    .await;
    assert!(stopped.is_ok(), "the idle runtime was never stopped");
    let after = tokio::time::timeout(TURN, host.send(&id, "after idling"))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(after.turns.len(), 2);
    assert_eq!(
        after.thread.native.session_id, session,
        "the same native session"
    );
    assert_eq!(
        s.model.last_model_request().unwrap().conversation(),
        vec![
            Msg::user("before idling"),
            Msg::assistant("reply (turn 1) to: before idling"),
            Msg::user("after idling")
        ]
    );
    host.shutdown().await;
}

per_harness! {
    idle => idle_runtimes_stop,
}
