//! Pi's live runtime and native fork, with the real `pi` CLI against the fake model, each test
//! in its own temporary HOME.
//!
//! Needs `FORKHOST_PI_BIN` (from `scripts/install-harnesses.sh --print-env`); without it every
//! test prints "skipped: FORKHOST_PI_BIN not set" and passes
//! (fails, under `FORKHOST_REQUIRE_HARNESSES=1`). Every await on the CLI has a
//! timeout, so a hang fails the test instead of blocking it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use forkhost_harness::{
    binary, open_reader, read_history, Cut, Forked, HarnessBinary, HarnessError, HarnessKind,
    NativeSession, OpenSpec, Role, Runtime, RuntimeEvent, SessionTarget, TurnAnchor, TurnOutcome,
};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use tokio::sync::mpsc;

/// Per await on the CLI.
const TIMEOUT: Duration = Duration::from_secs(120);

struct Pi {
    fake: FakeModel,
    env: HarnessEnv,
    binary: HarnessBinary,
}

async fn setup() -> Option<Pi> {
    let fake = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let env = HarnessEnv::for_fake(Harness::Pi, &fake).unwrap()?;
    let binary = pi_binary(&env).await;
    Some(Pi { fake, env, binary })
}

/// The binary and its version, asked with the temporary HOME (never the real one).
async fn pi_binary(env: &HarnessEnv) -> HarnessBinary {
    let mut cmd = env.command().unwrap();
    cmd.arg("--version").kill_on_drop(true);
    let out = tokio::time::timeout(TIMEOUT, cmd.output())
        .await
        .expect("pi --version timed out")
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    HarnessBinary {
        kind: HarnessKind::Pi,
        path: env.bin().unwrap().to_owned(),
        version: binary::parse_version(&text).expect("pi printed no version"),
    }
}

impl Pi {
    fn spec(&self, target: SessionTarget) -> OpenSpec {
        OpenSpec {
            binary: self.binary.clone(),
            target,
            env: self.env.vars().to_vec(),
        }
    }

    async fn open(&self, target: SessionTarget) -> Result<Live, HarnessError> {
        Live::open(self.spec(target)).await
    }

    async fn open_new(&self) -> Live {
        let cwd = self.env.work_dir().to_owned();
        self.open(SessionTarget::New { cwd }).await.unwrap()
    }

    async fn fork(
        &self,
        source: &NativeSession,
        anchors: &[TurnAnchor],
        cut: Cut,
    ) -> Result<Forked, HarnessError> {
        let fork =
            forkhost_harness::runtime::fork(&self.binary, source, anchors, cut, self.env.vars());
        tokio::time::timeout(TIMEOUT, fork)
            .await
            .expect("pi fork timed out")
    }

    /// Opens a runtime on what a fork returned: pending, or the session itself.
    async fn open_fork(&self, forked: &Forked) -> Live {
        let target = match &forked.pending {
            Some(pending) => SessionTarget::PendingFork(pending.clone()),
            None => SessionTarget::Resume(forked.session.clone()),
        };
        self.open(target).await.unwrap()
    }

    /// A session with one turn per prompt; returns it and its anchors (runtime closed).
    async fn session_with(&self, prompts: &[&str]) -> (NativeSession, Vec<TurnAnchor>) {
        let mut live = self.open_new().await;
        for prompt in prompts {
            live.turn(prompt).await.expect_completed();
        }
        let session = live.session.clone();
        live.close().await;
        let anchors = anchors_of(&session);
        (session, anchors)
    }

    fn session_files(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, out);
                } else if path.extension().is_some_and(|e| e == "jsonl") {
                    out.push(path);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.env.home().join(".pi/agent/sessions"), &mut out);
        out.sort();
        out
    }
}

/// A runtime and its event stream.
struct Live {
    runtime: Runtime,
    events: mpsc::UnboundedReceiver<RuntimeEvent>,
    session: NativeSession,
}

/// What one turn streamed.
#[derive(Debug)]
struct TurnEvents {
    events: Vec<RuntimeEvent>,
    started_ref: Option<String>,
    turn_ref: Option<String>,
    checkpoint: Option<String>,
    outcome: TurnOutcome,
    text: String,
}

impl TurnEvents {
    fn expect_completed(&self) -> &Self {
        assert_eq!(self.outcome, TurnOutcome::Completed, "{:?}", self.events);
        assert!(
            self.turn_ref.is_some() && self.checkpoint.is_some(),
            "{self:?}"
        );
        assert_eq!(self.started_ref, self.turn_ref);
        self
    }

    fn anchor(&self) -> (Option<String>, Option<String>) {
        (self.turn_ref.clone(), self.checkpoint.clone())
    }
}

impl Live {
    async fn open(spec: OpenSpec) -> Result<Live, HarnessError> {
        let (tx, mut events) = mpsc::unbounded_channel();
        let runtime = tokio::time::timeout(TIMEOUT, Runtime::open(spec, tx))
            .await
            .expect("opening pi timed out")?;
        let first = next_event(&mut events).await;
        let RuntimeEvent::Session { session } = first else {
            panic!("the first event is not Session: {first:?}");
        };
        assert_eq!(runtime.session().as_ref(), Some(&session));
        assert_eq!(session.kind, HarnessKind::Pi);
        assert!(session.path.as_ref().is_some_and(|p| p.is_absolute()));
        Ok(Live {
            runtime,
            events,
            session,
        })
    }

    fn path(&self) -> PathBuf {
        self.session.path.clone().unwrap()
    }

    fn pid(&self) -> u32 {
        match &self.runtime {
            Runtime::Pi(pi) => pi.pid().expect("pi has a pid"),
            _ => unreachable!(),
        }
    }

    async fn send(&mut self, prompt: &str) -> Result<(), HarnessError> {
        tokio::time::timeout(TIMEOUT, self.runtime.send(prompt))
            .await
            .expect("send timed out")
    }

    async fn next(&mut self) -> RuntimeEvent {
        next_event(&mut self.events).await
    }

    /// Events up to and including the first one `stop` accepts.
    async fn until(&mut self, stop: impl Fn(&RuntimeEvent) -> bool) -> Vec<RuntimeEvent> {
        let mut seen = Vec::new();
        loop {
            let event = self.next().await;
            let done = stop(&event);
            seen.push(event);
            if done {
                return seen;
            }
        }
    }

    /// Sends `prompt` and collects its events up to `TurnEnded`.
    async fn turn(&mut self, prompt: &str) -> TurnEvents {
        self.send(prompt).await.unwrap();
        self.finish_turn().await
    }

    async fn finish_turn(&mut self) -> TurnEvents {
        let events = self
            .until(|e| matches!(e, RuntimeEvent::TurnEnded { .. }))
            .await;
        summarize(events)
    }

    async fn close(self) {
        tokio::time::timeout(TIMEOUT, self.runtime.close())
            .await
            .expect("close timed out")
            .unwrap();
    }
}

async fn next_event(events: &mut mpsc::UnboundedReceiver<RuntimeEvent>) -> RuntimeEvent {
    tokio::time::timeout(TIMEOUT, events.recv())
        .await
        .expect("no pi event in time")
        .expect("the event channel closed")
}

fn summarize(events: Vec<RuntimeEvent>) -> TurnEvents {
    let mut started_ref = None;
    let mut text = String::new();
    for event in &events {
        match event {
            RuntimeEvent::TurnStarted { native_turn_ref } => started_ref = native_turn_ref.clone(),
            RuntimeEvent::TextDelta { text: t } => text.push_str(t),
            _ => {}
        }
    }
    let Some(RuntimeEvent::TurnEnded {
        native_turn_ref,
        native_checkpoint_ref,
        outcome,
    }) = events.last().cloned()
    else {
        panic!("no TurnEnded: {events:?}");
    };
    TurnEvents {
        started_ref,
        turn_ref: native_turn_ref,
        checkpoint: native_checkpoint_ref,
        outcome,
        text,
        events,
    }
}

fn anchors_of(session: &NativeSession) -> Vec<TurnAnchor> {
    let reader = open_reader(HarnessKind::Pi, session.path.as_ref().unwrap()).unwrap();
    reader.anchors().to_vec()
}

fn sha256(path: &Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum runs");
    assert!(out.status.success(), "sha256sum {}", path.display());
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned()
}

fn reply(turn: usize, prompt: &str) -> String {
    format!("reply (turn {turn}) to: {prompt}")
}

/// The dialogue of `prompts` answered one by one.
fn dialogue_of(prompts: &[&str]) -> Vec<Msg> {
    prompts
        .iter()
        .enumerate()
        .flat_map(|(i, p)| [Msg::user(*p), Msg::assistant(reply(i + 1, p))])
        .collect()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// Three turns through `Runtime`: streamed text, `TurnEnded` refs equal to the reader's
/// anchors, the reader's messages, and a clean close (no process left).
#[tokio::test]
async fn new_session_three_turns_match_the_reader() {
    let Some(pi) = setup().await else {
        return;
    };
    let mut live = pi.open_new().await;
    assert_eq!(live.session.cwd, pi.env.work_dir());
    let prompts = ["alpha first", "beta second", "gamma third"];
    let mut refs = Vec::new();
    for (i, prompt) in prompts.iter().enumerate() {
        let turn = live.turn(prompt).await;
        turn.expect_completed();
        assert_eq!(turn.text, reply(i + 1, prompt));
        refs.push(turn.anchor());
    }
    let path = live.path();
    let history = read_history(HarnessKind::Pi, &path).unwrap();
    assert_eq!(
        history.session_id.as_deref(),
        Some(live.session.session_id.as_str())
    );
    assert_eq!(history.turns.len(), 3);
    for (i, turn) in history.turns.iter().enumerate() {
        assert!(turn.complete);
        assert_eq!(
            (
                Some(turn.native_turn_ref.clone()),
                turn.native_checkpoint_ref.clone()
            ),
            refs[i],
            "turn {} anchors",
            i + 1
        );
        let said: Vec<(Role, &str)> = turn
            .messages
            .iter()
            .filter(|m| matches!(m.role, Role::User | Role::Assistant))
            .map(|m| (m.role, m.text.as_str()))
            .collect();
        let expected_reply = reply(i + 1, prompts[i]);
        assert_eq!(
            said,
            [
                (Role::User, prompts[i]),
                (Role::Assistant, expected_reply.as_str())
            ]
        );
    }
    let last = pi.fake.last_model_request().unwrap();
    let mut expected = dialogue_of(&prompts[..2]);
    expected.push(Msg::user(prompts[2]));
    assert_eq!(last.dialogue(), expected);

    let pid = live.pid();
    let Live {
        runtime,
        mut events,
        ..
    } = live;
    tokio::time::timeout(TIMEOUT, runtime.close())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        next_event(&mut events).await,
        RuntimeEvent::Exited { error: None }
    );
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "pi {pid} is still there (zombie or orphan)"
    );
}

/// Forks after turn 1, before turn 2, before turn 1 and latest, and a fork of a fork: the
/// model sees exactly the kept history, then the new prompt; the source's bytes never change.
#[tokio::test]
async fn forks_cut_exactly_and_leave_the_source_alone() {
    let Some(pi) = setup().await else {
        return;
    };
    let prompts = ["alpha", "beta", "gamma"];
    // The source stays open (idle) while it is forked: forks use a process of their own.
    let mut source_live = pi.open_new().await;
    for prompt in prompts {
        source_live.turn(prompt).await.expect_completed();
    }
    let source = source_live.session.clone();
    let source_path = source_live.path();
    let anchors = anchors_of(&source);
    assert_eq!(anchors.len(), 3);
    let original = sha256(&source_path);

    let cases: [(&str, Cut, usize); 5] = [
        ("after turn 1", Cut::After(0), 1),
        ("before turn 2", Cut::Before(1), 1),
        ("before turn 3", Cut::Before(2), 2),
        ("before turn 1", Cut::Before(0), 0),
        ("latest", Cut::After(2), 3),
    ];
    let mut after_one = None;
    for (name, cut, kept) in cases {
        let forked = pi.fork(&source, &anchors, cut).await.unwrap();
        assert_eq!(
            sha256(&source_path),
            original,
            "{name}: fork changed the source"
        );
        assert_ne!(forked.session.session_id, source.session_id);
        if kept == 0 {
            let pending = forked.pending.as_ref().expect("before turn 1 is pending");
            assert_eq!(pending.source, None);
            assert_eq!(forked.session.path, None);
        } else {
            assert_eq!(forked.pending, None, "{name}: a native pi fork is eager");
            let path = forked.session.path.clone().expect("the fork has a file");
            let history = read_history(HarnessKind::Pi, &path).unwrap();
            assert_eq!(history.forked_from.as_deref(), source_path.to_str());
            assert_eq!(
                history.session_id.as_deref(),
                Some(forked.session.session_id.as_str())
            );
            let fork_anchors: Vec<TurnAnchor> = history.turns.iter().map(|t| t.anchor()).collect();
            // Pi copies the kept entries with their ids: the same coordinates.
            assert_eq!(fork_anchors, anchors[..kept], "{name}");
        }

        let mut live = pi.open_fork(&forked).await;
        let prompt = format!("delta after {name}");
        let turn = live.turn(&prompt).await;
        turn.expect_completed();
        assert_eq!(turn.text, reply(kept + 1, &prompt), "{name}");
        let mut expected = dialogue_of(&prompts[..kept]);
        expected.push(Msg::user(&prompt));
        let seen = pi.fake.last_model_request().unwrap().dialogue();
        assert_eq!(seen, expected, "{name}: the model saw another history");
        assert_eq!(
            sha256(&source_path),
            original,
            "{name}: a fork turn changed the source"
        );

        let fork_path = live.path();
        let history = read_history(HarnessKind::Pi, &fork_path).unwrap();
        assert_eq!(history.turns.len(), kept + 1, "{name}");
        let new = history.turns[kept].anchor();
        assert_eq!(
            (Some(new.native_turn_ref), new.native_checkpoint_ref),
            turn.anchor()
        );
        if kept == 0 {
            assert_eq!(
                live.session.session_id, forked.session.session_id,
                "the pending fork materialized under its minted id"
            );
        }
        if kept == 1 && after_one.is_none() {
            after_one = Some((live.session.clone(), prompt.clone()));
        }
        live.close().await;
    }

    // A fork of a fork: from [alpha, delta], latest and before its turn 2.
    let (fork1, delta) = after_one.unwrap();
    let fork1_path = fork1.path.clone().unwrap();
    let fork1_sha = sha256(&fork1_path);
    let fork1_anchors = anchors_of(&fork1);
    assert_eq!(fork1_anchors.len(), 2);
    for (name, cut, kept) in [
        ("fork of fork, latest", Cut::After(1), 2),
        ("fork of fork, before 2", Cut::Before(1), 1),
    ] {
        let forked = pi.fork(&fork1, &fork1_anchors, cut).await.unwrap();
        assert_eq!(sha256(&fork1_path), fork1_sha, "{name}");
        let history = read_history(HarnessKind::Pi, forked.session.path.as_ref().unwrap()).unwrap();
        assert_eq!(history.forked_from.as_deref(), fork1_path.to_str());
        let mut live = pi.open_fork(&forked).await;
        let prompt = format!("epsilon {name}");
        live.turn(&prompt).await.expect_completed();
        let lineage = ["alpha", delta.as_str()];
        let mut expected = dialogue_of(&lineage[..kept]);
        expected.push(Msg::user(&prompt));
        assert_eq!(
            pi.fake.last_model_request().unwrap().dialogue(),
            expected,
            "{name}"
        );
        assert_eq!(sha256(&fork1_path), fork1_sha, "{name}");
        live.close().await;
    }
    assert_eq!(sha256(&source_path), original);
    source_live.close().await;
}

/// A tool call streams ToolCall and ToolResult, and the reader reads it back as a tool message.
#[tokio::test]
async fn tool_call_turn_streams_and_reads_back() {
    let Some(pi) = setup().await else {
        return;
    };
    let mut live = pi.open_new().await;
    let prompt = "please CALL_TOOL for pi";
    let turn = live.turn(prompt).await;
    turn.expect_completed();
    let call = turn
        .events
        .iter()
        .find_map(|e| match e {
            RuntimeEvent::ToolCall { id, name, input } => {
                Some((id.clone(), name.clone(), input.clone()))
            }
            _ => None,
        })
        .expect("a ToolCall event");
    assert_eq!(call.1, "bash");
    assert_eq!(call.2["command"], "echo tool-ok");
    let result = turn
        .events
        .iter()
        .find_map(|e| match e {
            RuntimeEvent::ToolResult {
                id,
                output,
                is_error,
            } => Some((id.clone(), output.clone(), *is_error)),
            _ => None,
        })
        .expect("a ToolResult event");
    assert_eq!(result.0, call.0, "the result answers the call");
    assert!(result.1.contains("tool-ok") && !result.2, "{result:?}");
    let calls = turn
        .events
        .iter()
        .filter(|e| matches!(e, RuntimeEvent::ToolCall { .. }))
        .count();
    assert_eq!(calls, 1, "one call, reported once");
    assert_eq!(
        turn.text,
        format!("{} (tool result: tool-ok)", reply(1, prompt))
    );

    let history = read_history(HarnessKind::Pi, live.path()).unwrap();
    assert_eq!(history.turns.len(), 1);
    let read = &history.turns[0];
    assert_eq!(
        (
            Some(read.native_turn_ref.clone()),
            read.native_checkpoint_ref.clone()
        ),
        turn.anchor()
    );
    let tool = read
        .messages
        .iter()
        .find(|m| m.role == Role::Tool)
        .and_then(|m| m.tool.clone())
        .expect("a tool message");
    assert_eq!(tool.name, "bash");
    assert_eq!(tool.id, call.0);
    assert_eq!(tool.input["command"], "echo tool-ok");
    assert!(
        tool.output
            .as_deref()
            .is_some_and(|o| o.contains("tool-ok")),
        "{tool:?}"
    );
    assert!(!tool.is_error);
    let roles: Vec<Role> = read.messages.iter().map(|m| m.role).collect();
    assert_eq!(roles.first(), Some(&Role::User));
    assert_eq!(roles.last(), Some(&Role::Assistant));
    live.close().await;
}

/// Typed errors: unknown session, unknown checkpoint, unknown turn, missing binary; and no
/// stray native file after a failed fork.
#[tokio::test]
async fn errors_are_typed_and_leave_nothing_behind() {
    let Some(pi) = setup().await else {
        return;
    };
    let work = pi.env.work_dir().to_owned();
    let missing = NativeSession {
        kind: HarnessKind::Pi,
        session_id: "01a228e5-0000-7000-8000-00000000dead".into(),
        path: Some(work.join("no-such-session.jsonl")),
        cwd: work.clone(),
    };
    let err = pi.open(SessionTarget::Resume(missing.clone())).await.err();
    assert!(
        matches!(err, Some(HarnessError::SessionNotFound(_))),
        "{err:?}"
    );
    let by_id = NativeSession {
        path: None,
        ..missing.clone()
    };
    let err = pi.open(SessionTarget::Resume(by_id)).await.err();
    assert!(
        matches!(err, Some(HarnessError::SessionNotFound(_))),
        "{err:?}"
    );
    assert!(
        !work.join("no-such-session.jsonl").exists(),
        "never a silent new session"
    );
    let anchor = TurnAnchor {
        native_turn_ref: "u".into(),
        native_checkpoint_ref: Some("a".into()),
        complete: true,
    };
    let err = pi
        .fork(&missing, &[anchor.clone(), anchor], Cut::After(0))
        .await
        .err();
    assert!(
        matches!(err, Some(HarnessError::SessionNotFound(_))),
        "{err:?}"
    );

    let (source, anchors) = pi.session_with(&["one", "two"]).await;
    let path = source.path.clone().unwrap();
    let original = sha256(&path);
    let files = pi.session_files();

    let mut unknown_turn = anchors.clone();
    unknown_turn[1].native_turn_ref = "deadbeef".into();
    let err = pi.fork(&source, &unknown_turn, Cut::After(0)).await.err();
    assert!(
        matches!(err, Some(HarnessError::CheckpointNotFound(_))),
        "{err:?}"
    );
    let mut unknown_checkpoint = anchors.clone();
    unknown_checkpoint[1].native_checkpoint_ref = Some("deadbeef".into());
    let err = pi
        .fork(&source, &unknown_checkpoint, Cut::After(1))
        .await
        .err();
    assert!(
        matches!(err, Some(HarnessError::CheckpointNotFound(_))),
        "{err:?}"
    );
    // A checkpoint that exists but is not where the turn ends: Pi's fork would go on past it.
    let mut wrong_checkpoint = anchors.clone();
    wrong_checkpoint[0].native_checkpoint_ref = Some(anchors[0].native_turn_ref.clone());
    let err = pi
        .fork(&source, &wrong_checkpoint, Cut::After(0))
        .await
        .err();
    assert!(
        matches!(err, Some(HarnessError::CheckpointNotFound(_))),
        "{err:?}"
    );
    let err = pi.fork(&source, &anchors, Cut::After(2)).await.err();
    assert!(
        matches!(err, Some(HarnessError::TurnNotFound(_))),
        "{err:?}"
    );
    let err = pi.fork(&source, &anchors, Cut::Before(5)).await.err();
    assert!(
        matches!(err, Some(HarnessError::TurnNotFound(_))),
        "{err:?}"
    );
    assert_eq!(sha256(&path), original);
    assert_eq!(
        pi.session_files(),
        files,
        "a failed fork left a native file behind"
    );

    let bogus = HarnessBinary {
        path: "/nonexistent/forkhost/pi".into(),
        ..pi.binary.clone()
    };
    let spec = OpenSpec {
        binary: bogus.clone(),
        target: SessionTarget::New { cwd: work },
        env: pi.env.vars().to_vec(),
    };
    let err = Live::open(spec).await.err();
    assert!(
        matches!(
            err,
            Some(HarnessError::HarnessNotFound {
                harness: HarnessKind::Pi,
                ..
            })
        ),
        "{err:?}"
    );
    let err =
        forkhost_harness::runtime::fork(&bogus, &source, &anchors, Cut::After(0), pi.env.vars())
            .await
            .err();
    assert!(
        matches!(err, Some(HarnessError::HarnessNotFound { .. })),
        "{err:?}"
    );
    assert_eq!(pi.session_files(), files);
}

/// Killing Pi mid-turn: `Exited` with an error, then `HarnessFailed` on the next send. (Unix:
/// it kills with SIGKILL.)
#[cfg(unix)]
#[tokio::test]
async fn a_crash_mid_turn_is_reported() {
    let Some(pi) = setup().await else {
        return;
    };
    let mut live = pi.open_new().await;
    live.send("SLOW please, then crash").await.unwrap();
    live.until(|e| matches!(e, RuntimeEvent::TextDelta { .. }))
        .await;
    let pid = live.pid();
    // SAFETY: a plain signal to the pi process this test started.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
    let events = live
        .until(|e| matches!(e, RuntimeEvent::Exited { .. }))
        .await;
    let Some(RuntimeEvent::Exited { error: Some(error) }) = events.last() else {
        panic!("no Exited with an error: {events:?}");
    };
    assert!(error.contains("signal 9"), "{error}");
    assert!(
        events.iter().any(|e| matches!(
            e,
            RuntimeEvent::TurnEnded {
                outcome: TurnOutcome::Failed { .. },
                ..
            }
        )),
        "the running turn ends as failed: {events:?}"
    );
    let err = live.send("are you there?").await.err();
    let Some(HarnessError::HarnessFailed {
        harness,
        message,
        stderr_tail,
    }) = err
    else {
        panic!("expected HarnessFailed, got {err:?}");
    };
    assert_eq!(harness, HarnessKind::Pi);
    assert!(message.contains("signal 9"), "{message}");
    assert!(stderr_tail.lines().count() <= 20);
    live.close().await;
}

/// Interrupting a slow turn ends it as `Interrupted`; the runtime takes the next prompt.
#[tokio::test]
async fn interrupt_ends_the_turn_and_the_runtime_goes_on() {
    let Some(pi) = setup().await else {
        return;
    };
    let mut live = pi.open_new().await;
    let slow = "SLOW please, I will interrupt";
    live.send(slow).await.unwrap();
    let err = live.send("too early").await.err();
    assert!(matches!(err, Some(HarnessError::Busy(_))), "{err:?}");
    live.until(|e| matches!(e, RuntimeEvent::TextDelta { .. }))
        .await;
    let started = Instant::now();
    tokio::time::timeout(TIMEOUT, live.runtime.interrupt())
        .await
        .expect("interrupt timed out")
        .unwrap();
    let interrupted = live.finish_turn().await;
    println!("pi interrupt → TurnEnded in {:?}", started.elapsed());
    assert_eq!(interrupted.outcome, TurnOutcome::Interrupted);
    assert!(interrupted.turn_ref.is_some() && interrupted.checkpoint.is_some());

    let next = "after the interrupt";
    let turn = live.turn(next).await;
    turn.expect_completed();
    assert_eq!(turn.text, reply(2, next));
    let seen = pi.fake.last_model_request().unwrap().dialogue();
    assert_eq!(seen.first(), Some(&Msg::user(slow)));
    assert_eq!(seen.last(), Some(&Msg::user(next)));

    let history = read_history(HarnessKind::Pi, live.path()).unwrap();
    assert_eq!(history.turns.len(), 2);
    let first = history.turns[0].anchor();
    assert_eq!(
        (Some(first.native_turn_ref), first.native_checkpoint_ref),
        interrupted.anchor()
    );
    live.close().await;
}

/// Closing during a turn: the turn ends as interrupted, then `Exited` without an error, and
/// no process is left.
#[tokio::test]
async fn close_mid_turn_is_clean() {
    let Some(pi) = setup().await else {
        return;
    };
    let mut live = pi.open_new().await;
    live.send("SLOW please, I will close").await.unwrap();
    live.until(|e| matches!(e, RuntimeEvent::TextDelta { .. }))
        .await;
    let pid = live.pid();
    let Live {
        runtime,
        mut events,
        ..
    } = live;
    let started = Instant::now();
    tokio::time::timeout(TIMEOUT, runtime.close())
        .await
        .unwrap()
        .unwrap();
    println!("pi close mid-turn took {:?}", started.elapsed());
    let mut rest = Vec::new();
    loop {
        let event = next_event(&mut events).await;
        let last = matches!(event, RuntimeEvent::Exited { .. });
        rest.push(event);
        if last {
            break;
        }
    }
    assert_eq!(rest.last(), Some(&RuntimeEvent::Exited { error: None }));
    assert!(
        rest.iter().any(|e| matches!(
            e,
            RuntimeEvent::TurnEnded {
                outcome: TurnOutcome::Interrupted,
                ..
            }
        )),
        "{rest:?}"
    );
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "pi {pid} is still there"
    );
}

/// `latest` from anchors read before another prompt arrived still cuts after that turn: the
/// fork checks the source's leaf and forks before the new prompt instead of cloning it.
#[tokio::test]
async fn latest_from_stale_anchors_still_cuts_at_the_turn() {
    let Some(pi) = setup().await else {
        return;
    };
    let mut live = pi.open_new().await;
    for prompt in ["one", "two"] {
        live.turn(prompt).await.expect_completed();
    }
    let source = live.session.clone();
    let stale = anchors_of(&source);
    live.turn("three").await.expect_completed();
    live.close().await;
    let original = sha256(source.path.as_ref().unwrap());
    let forked = pi.fork(&source, &stale, Cut::After(1)).await.unwrap();
    let fork_anchors: Vec<TurnAnchor> =
        read_history(HarnessKind::Pi, forked.session.path.as_ref().unwrap())
            .unwrap()
            .turns
            .iter()
            .map(|t| t.anchor())
            .collect();
    assert_eq!(fork_anchors, stale);
    assert_eq!(sha256(source.path.as_ref().unwrap()), original);
}

/// The native fork call's wall time (spawn, RPC, close), median of a few runs. Printed only.
#[tokio::test]
async fn fork_timings() {
    let Some(pi) = setup().await else {
        return;
    };
    let (source, anchors) = pi.session_with(&["alpha", "beta", "gamma"]).await;
    let mut report = Vec::new();
    for (name, cut) in [
        ("after turn 1 (fork)", Cut::After(0)),
        ("latest (clone)", Cut::After(2)),
    ] {
        let mut samples = Vec::new();
        for _ in 0..5 {
            let started = Instant::now();
            let forked = pi.fork(&source, &anchors, cut).await.unwrap();
            samples.push(started.elapsed());
            assert!(forked.session.path.as_ref().is_some_and(|p| p.is_file()));
        }
        let (min, max) = (
            *samples.iter().min().unwrap(),
            *samples.iter().max().unwrap(),
        );
        report.push(format!(
            "pi fork {name}: median {:?} (min {min:?}, max {max:?}, 5 runs; spawn + RPC + close)",
            median(samples)
        ));
    }
    for line in report {
        println!("{line}");
    }
}
