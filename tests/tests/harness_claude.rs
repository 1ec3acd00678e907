//! Claude Code's live runtime and native fork, with the real CLI against the fake model, each
//! test in its own temporary HOME.
//!
//! Needs `FORKHOST_CLAUDE_BIN` (`eval "$(bash scripts/install-harnesses.sh --print-env)"`); a
//! test prints "skipped: FORKHOST_CLAUDE_BIN not set" and passes when it is unset
//! (fails, under `FORKHOST_REQUIRE_HARNESSES=1`). Every await
//! on the CLI has a timeout, so a hang fails the test instead of blocking it.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use forkhost_harness::binary;
use forkhost_harness::claude::ClaudeRuntime;
use forkhost_harness::{
    read_history, Cut, HarnessBinary, HarnessError, HarnessKind, History, NativeSession, OpenSpec,
    PendingFork, Role, Runtime, RuntimeEvent, SessionTarget, TurnAnchor, TurnOutcome,
};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

/// Per await on the CLI (a cold start on a loaded 2-core machine takes a few seconds).
const TIMEOUT: Duration = Duration::from_secs(60);

struct Setup {
    fake: FakeModel,
    env: HarnessEnv,
    binary: HarnessBinary,
}

async fn setup() -> Option<Setup> {
    let fake = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let env = HarnessEnv::for_fake(Harness::Claude, &fake).unwrap()?;
    let binary = within(binary::probe(HarnessKind::Claude), "probe")
        .await
        .unwrap();
    Some(Setup { fake, env, binary })
}

impl Setup {
    /// The CLI's environment: the temp HOME and the fake model. Inherited variables the
    /// harness env would remove are blanked (an `OpenSpec` can only add variables).
    fn vars(&self) -> Vec<(String, String)> {
        let mut vars: Vec<(String, String)> = self
            .env
            .scrubbed_vars()
            .into_iter()
            .map(|k| (k, String::new()))
            .collect();
        vars.extend(self.env.vars().iter().cloned());
        vars
    }

    fn cwd(&self) -> PathBuf {
        self.env.work_dir().to_path_buf()
    }

    fn projects(&self) -> PathBuf {
        self.env.home().join(".claude/projects")
    }

    async fn open(&self, target: SessionTarget) -> Live {
        let (tx, rx) = unbounded_channel();
        let spec = OpenSpec {
            binary: self.binary.clone(),
            target,
            env: self.vars(),
        };
        let runtime = within(Runtime::open(spec, tx), "open").await.unwrap();
        Live { runtime, rx }
    }

    async fn open_claude(&self, target: SessionTarget) -> (ClaudeRuntime, Events) {
        let (tx, rx) = unbounded_channel();
        let spec = OpenSpec {
            binary: self.binary.clone(),
            target,
            env: self.vars(),
        };
        let runtime = within(ClaudeRuntime::open(spec, tx), "open").await.unwrap();
        (runtime, rx)
    }

    async fn fork(
        &self,
        source: &NativeSession,
        anchors: &[TurnAnchor],
        cut: Cut,
    ) -> Result<forkhost_harness::Forked, HarnessError> {
        within(
            forkhost_harness::runtime::fork(&self.binary, source, anchors, cut, &self.vars()),
            "fork",
        )
        .await
    }

    /// The dialogue of the last model request (system entries left out).
    fn last_dialogue(&self) -> Vec<Msg> {
        self.fake
            .last_model_request()
            .expect("no model request")
            .dialogue()
    }

    /// Every transcript file under the temp HOME's `projects/`.
    fn transcripts(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for dir in std::fs::read_dir(self.projects())
            .into_iter()
            .flatten()
            .flatten()
        {
            for file in std::fs::read_dir(dir.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                if file.path().extension().is_some_and(|e| e == "jsonl") {
                    out.push(file.path());
                }
            }
        }
        out.sort();
        out
    }
}

type Events = UnboundedReceiver<RuntimeEvent>;

struct Live {
    runtime: Runtime,
    rx: Events,
}

/// One finished turn as the runtime streamed it.
#[derive(Debug)]
struct TurnLog {
    events: Vec<RuntimeEvent>,
    turn_ref: Option<String>,
    checkpoint: Option<String>,
    outcome: TurnOutcome,
    text: String,
}

impl TurnLog {
    fn anchor_refs(&self) -> (Option<String>, Option<String>) {
        (self.turn_ref.clone(), self.checkpoint.clone())
    }
}

async fn within<T>(fut: impl std::future::Future<Output = T>, what: &str) -> T {
    tokio::time::timeout(TIMEOUT, fut)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish within {TIMEOUT:?}"))
}

async fn next_event(rx: &mut Events) -> RuntimeEvent {
    within(rx.recv(), "the next runtime event")
        .await
        .expect("the event channel closed")
}

/// Events up to and including the turn's `TurnEnded`.
async fn finish_turn(rx: &mut Events, mut events: Vec<RuntimeEvent>) -> TurnLog {
    loop {
        let event = next_event(rx).await;
        events.push(event.clone());
        if let RuntimeEvent::TurnEnded {
            native_turn_ref,
            native_checkpoint_ref,
            outcome,
        } = event
        {
            let text = events
                .iter()
                .filter_map(|e| match e {
                    RuntimeEvent::TextDelta { text } => Some(text.as_str()),
                    _ => None,
                })
                .collect();
            return TurnLog {
                events,
                turn_ref: native_turn_ref,
                checkpoint: native_checkpoint_ref,
                outcome,
                text,
            };
        }
    }
}

impl Live {
    async fn turn(&mut self, prompt: &str) -> TurnLog {
        within(self.runtime.send(prompt), "send").await.unwrap();
        let log = finish_turn(&mut self.rx, Vec::new()).await;
        assert_eq!(log.outcome, TurnOutcome::Completed, "{log:?}");
        let started = log.events.iter().find_map(|e| match e {
            RuntimeEvent::TurnStarted { native_turn_ref } => Some(native_turn_ref.clone()),
            _ => None,
        });
        assert_eq!(
            started,
            Some(log.turn_ref.clone()),
            "TurnStarted names the turn"
        );
        log
    }

    async fn close(mut self) {
        within(self.runtime.close(), "close").await.unwrap();
        let mut rest = Vec::new();
        while let Ok(Some(event)) =
            tokio::time::timeout(Duration::from_secs(5), self.rx.recv()).await
        {
            rest.push(event);
        }
        assert_eq!(
            rest.last(),
            Some(&RuntimeEvent::Exited { error: None }),
            "a clean close: {rest:?}"
        );
    }

    fn session(&self) -> NativeSession {
        self.runtime.session().expect("the session is known")
    }
}

fn reply(turn: usize, prompt: &str) -> String {
    format!("reply (turn {turn}) to: {prompt}")
}

/// The user/assistant exchange of `prompts`, as the model sees it when they were turns 1..n.
fn exchange(prompts: &[&str]) -> Vec<Msg> {
    prompts
        .iter()
        .enumerate()
        .flat_map(|(i, p)| [Msg::user(*p), Msg::assistant(reply(i + 1, p))])
        .collect()
}

fn history_of(session: &NativeSession) -> History {
    let path = session.path.as_ref().expect("a claude session has a path");
    read_history(HarnessKind::Claude, path).unwrap()
}

fn anchors(h: &History) -> Vec<TurnAnchor> {
    h.turns.iter().map(|t| t.anchor()).collect()
}

fn refs(h: &History) -> Vec<(Option<String>, Option<String>)> {
    h.turns
        .iter()
        .map(|t| {
            (
                Some(t.native_turn_ref.clone()),
                t.native_checkpoint_ref.clone(),
            )
        })
        .collect()
}

fn sha256(path: &Path) -> String {
    let out = std::process::Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum runs");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// The user and assistant texts of a read-back history, turn by turn.
fn texts(h: &History) -> Vec<Vec<(Role, String)>> {
    h.turns
        .iter()
        .map(|t| {
            t.messages
                .iter()
                .map(|m| (m.role, m.text.clone()))
                .collect()
        })
        .collect()
}

/// A source session of three turns; returns its coordinates, turn logs, and closes it.
async fn three_turn_source(s: &Setup, prompts: [&str; 3]) -> (NativeSession, Vec<TurnLog>) {
    let mut live = s.open(SessionTarget::New { cwd: s.cwd() }).await;
    let mut logs = Vec::new();
    for p in prompts {
        logs.push(live.turn(p).await);
    }
    let session = live.session();
    live.close().await;
    (session, logs)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// A new session, three turns through `Runtime`: events, the reader's turns and anchors, and
/// what the model saw.
#[tokio::test]
async fn a_new_session_with_three_turns() {
    let Some(s) = setup().await else { return };
    let mut live = s.open(SessionTarget::New { cwd: s.cwd() }).await;
    let session = live.session();
    let path = session.path.clone().unwrap();
    assert_eq!(session.kind, HarnessKind::Claude);
    assert!(
        !path.exists(),
        "the CLI writes nothing before the first prompt"
    );
    assert_eq!(
        path.file_stem().unwrap().to_str(),
        Some(session.session_id.as_str())
    );

    let prompts = ["first prompt", "second prompt", "third prompt"];
    let mut logs = Vec::new();
    for (i, p) in prompts.iter().enumerate() {
        let log = live.turn(p).await;
        assert_eq!(log.text, reply(i + 1, p));
        assert_eq!(
            s.last_dialogue(),
            [exchange(&prompts[..i]), vec![Msg::user(*p)]].concat()
        );
        logs.push(log);
    }
    let announced: Vec<&RuntimeEvent> = logs
        .iter()
        .flat_map(|l| &l.events)
        .filter(|e| matches!(e, RuntimeEvent::Session { .. }))
        .collect();
    assert_eq!(
        announced,
        [&RuntimeEvent::Session {
            session: session.clone()
        }],
        "one Session event, with the coordinates known from the start"
    );

    let history = history_of(&session);
    assert_eq!(
        history.session_id.as_deref(),
        Some(session.session_id.as_str())
    );
    assert_eq!(history.turns.len(), 3);
    assert!(history.turns.iter().all(|t| t.complete));
    let want: Vec<Vec<(Role, String)>> = prompts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            vec![
                (Role::User, p.to_string()),
                (Role::Assistant, reply(i + 1, p)),
            ]
        })
        .collect();
    assert_eq!(texts(&history), want);
    assert_eq!(
        refs(&history),
        logs.iter().map(TurnLog::anchor_refs).collect::<Vec<_>>(),
        "TurnEnded refs are the reader's anchors"
    );
    live.close().await;
}

/// Fork after turn 1, before turn 2, before turn 1 and at the latest turn, a prompt in each,
/// a fork of a fork; the model sees exactly the history up to the cut, and no source file
/// changes by a byte.
#[tokio::test]
async fn forks_at_every_boundary() {
    let Some(s) = setup().await else { return };
    let prompts = ["alpha question", "beta question", "gamma question"];
    let (source, logs) = three_turn_source(&s, prompts).await;
    let source_path = source.path.clone().unwrap();
    let source_sha = sha256(&source_path);
    let source_history = history_of(&source);
    let source_anchors = anchors(&source_history);
    assert_eq!(
        refs(&source_history),
        logs.iter().map(TurnLog::anchor_refs).collect::<Vec<_>>()
    );

    // (name, cut, prompts the fork keeps)
    let cases: [(&str, Cut, &[&str]); 4] = [
        ("after turn 1", Cut::After(0), &prompts[..1]),
        ("before turn 2", Cut::Before(1), &prompts[..1]),
        ("before turn 1", Cut::Before(0), &[]),
        ("latest", Cut::After(2), &prompts[..]),
    ];
    let mut first_prompt_times = Vec::new();
    let mut after_turn_1 = None;
    for (name, cut, kept) in cases {
        let forked = s.fork(&source, &source_anchors, cut).await.unwrap();
        let pending = forked.pending.clone().expect("claude forks are pending");
        assert_eq!(pending.session, forked.session);
        assert_eq!(pending.source.is_none(), kept.is_empty(), "{name}");
        let fork_path = forked.session.path.clone().unwrap();
        assert!(!fork_path.exists(), "{name}: lazy, nothing written yet");
        assert_eq!(forked.session.cwd, source.cwd);
        assert_ne!(forked.session.session_id, source.session_id);

        let t0 = Instant::now();
        let mut live = s.open(SessionTarget::PendingFork(pending)).await;
        let prompt = format!("fork prompt {name}");
        let log = live.turn(&prompt).await;
        first_prompt_times.push(t0.elapsed());
        let want = [exchange(kept), vec![Msg::user(&prompt)]].concat();
        assert_eq!(s.last_dialogue(), want, "{name}: what the model saw");
        assert_eq!(log.text, reply(kept.len() + 1, &prompt));
        assert!(
            log.events.contains(&RuntimeEvent::Session {
                session: forked.session.clone()
            }),
            "{name}: the fork materialized as announced"
        );
        assert_eq!(sha256(&source_path), source_sha, "{name}: source untouched");

        let history = history_of(&forked.session);
        assert_eq!(history.turns.len(), kept.len() + 1, "{name}");
        assert_eq!(
            refs(&history)[..kept.len()],
            refs(&source_history)[..kept.len()],
            "{name}: inherited records keep their uuids"
        );
        assert_eq!(refs(&history).last(), Some(&log.anchor_refs()), "{name}");

        // The fork is an ordinary session now: a second turn in the same process.
        let second = format!("second fork prompt {name}");
        live.turn(&second).await;
        let want = [
            exchange(kept),
            exchange_from(kept.len(), &[&prompt]),
            vec![Msg::user(&second)],
        ]
        .concat();
        assert_eq!(s.last_dialogue(), want, "{name}: the fork's second turn");
        live.close().await;
        assert_eq!(sha256(&source_path), source_sha, "{name}: source untouched");
        if kept.len() == 1 && matches!(cut, Cut::After(_)) {
            after_turn_1 = Some((forked.session.clone(), prompt, second));
        }
    }

    // Resume the first fork like any session, then fork it after its second turn.
    let (fork1, f1p1, f1p2) = after_turn_1.unwrap();
    let mut live = s.open(SessionTarget::Resume(fork1.clone())).await;
    live.turn("resumed fork prompt").await;
    assert_eq!(
        s.last_dialogue(),
        [
            exchange(&prompts[..1]),
            exchange_from(1, &[&f1p1, &f1p2]),
            vec![Msg::user("resumed fork prompt")]
        ]
        .concat()
    );
    live.close().await;
    let fork1_sha = sha256(fork1.path.as_ref().unwrap());
    let fork1_anchors = anchors(&history_of(&fork1));
    let grandchild = s.fork(&fork1, &fork1_anchors, Cut::After(1)).await.unwrap();
    let mut live = s
        .open(SessionTarget::PendingFork(
            grandchild.pending.clone().unwrap(),
        ))
        .await;
    live.turn("fork of a fork").await;
    assert_eq!(
        s.last_dialogue(),
        [
            exchange(&prompts[..1]),
            exchange_from(1, &[&f1p1]),
            vec![Msg::user("fork of a fork")]
        ]
        .concat()
    );
    live.close().await;
    assert_eq!(
        sha256(fork1.path.as_ref().unwrap()),
        fork1_sha,
        "the fork source is untouched"
    );
    assert_eq!(sha256(&source_path), source_sha);

    // The native fork call alone (Claude forks lazily: validation and a scan of the source).
    let mut times = Vec::new();
    for _ in 0..7 {
        let t0 = Instant::now();
        s.fork(&source, &source_anchors, Cut::After(1))
            .await
            .unwrap();
        times.push(t0.elapsed());
    }
    println!(
        "claude native fork call: median {:?} of {} runs ({:?}); first prompt of a pending fork \
         (spawn, fork, turn, transcript settled): median {:?} ({:?})",
        median(times.clone()),
        times.len(),
        times,
        median(first_prompt_times.clone()),
        first_prompt_times
    );

    // A runtime opened as soon as the fork exists has the CLI started (and the source loaded)
    // by the time the first prompt comes: then the prompt costs one warm turn.
    let mut warm = Vec::new();
    for _ in 0..3 {
        let forked = s
            .fork(&source, &source_anchors, Cut::After(0))
            .await
            .unwrap();
        let mut live = s
            .open(SessionTarget::PendingFork(forked.pending.unwrap()))
            .await;
        tokio::time::sleep(Duration::from_secs(3)).await;
        let t0 = Instant::now();
        live.turn("warm fork prompt").await;
        warm.push(t0.elapsed());
        assert_eq!(
            s.last_dialogue(),
            [exchange(&prompts[..1]), vec![Msg::user("warm fork prompt")]].concat()
        );
        live.close().await;
    }
    println!(
        "claude first prompt of a pending fork opened 3 s earlier: median {:?} ({warm:?})",
        median(warm.clone())
    );
    assert_eq!(sha256(&source_path), source_sha);
}

/// [`exchange`] for prompts that were turns `offset + 1..`.
fn exchange_from(offset: usize, prompts: &[&str]) -> Vec<Msg> {
    prompts
        .iter()
        .enumerate()
        .flat_map(|(i, p)| [Msg::user(*p), Msg::assistant(reply(offset + i + 1, p))])
        .collect()
}

/// A tool round trip streams ToolCall then ToolResult, and reads back as a tool message.
#[tokio::test]
async fn a_tool_call_turn() {
    let Some(s) = setup().await else { return };
    let mut live = s.open(SessionTarget::New { cwd: s.cwd() }).await;
    let prompt = "please CALL_TOOL now";
    let log = live.turn(prompt).await;
    let call = log
        .events
        .iter()
        .position(|e| {
            matches!(e, RuntimeEvent::ToolCall { name, input, .. }
            if name == "Bash" && input["command"] == "echo tool-ok")
        })
        .unwrap_or_else(|| panic!("no Bash ToolCall: {:?}", log.events));
    let result = log
        .events
        .iter()
        .position(|e| {
            matches!(e, RuntimeEvent::ToolResult { output, is_error: false, .. }
            if output.contains("tool-ok"))
        })
        .unwrap_or_else(|| panic!("no ToolResult: {:?}", log.events));
    assert!(call < result);
    let (
        RuntimeEvent::ToolCall { id: call_id, .. },
        RuntimeEvent::ToolResult { id: result_id, .. },
    ) = (&log.events[call], &log.events[result])
    else {
        unreachable!()
    };
    assert!(
        call_id.is_some() && call_id == result_id,
        "the result answers the call"
    );
    assert_eq!(
        log.text,
        format!("{} (tool result: tool-ok)", reply(1, prompt))
    );

    let history = history_of(&live.session());
    assert_eq!(history.turns.len(), 1);
    let turn = &history.turns[0];
    assert!(turn.complete);
    let roles: Vec<Role> = turn.messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Tool, Role::Assistant],
        "{:?}",
        turn.messages
    );
    assert_eq!(turn.messages[0].text, prompt);
    let tool = turn.messages[1].tool.as_ref().unwrap();
    assert_eq!((tool.name.as_str(), &tool.id), ("Bash", call_id));
    assert_eq!(tool.input["command"], "echo tool-ok");
    assert_eq!(tool.output.as_deref(), Some("tool-ok"));
    assert!(!tool.is_error);
    assert_eq!(turn.messages[2].text, log.text);
    assert_eq!(refs(&history), [log.anchor_refs()]);
    live.close().await;
}

/// Unknown sessions and checkpoints, bad cuts, an old version and a missing binary are typed
/// errors, and none leaves a transcript behind.
#[tokio::test]
async fn errors_are_typed() {
    let Some(s) = setup().await else { return };
    let (source, _) = three_turn_source(&s, ["one", "two", "three"]).await;
    let source_path = source.path.clone().unwrap();
    let source_sha = sha256(&source_path);
    let source_anchors = anchors(&history_of(&source));
    let files = s.transcripts();
    let (tx, _rx) = unbounded_channel();
    let open = |target: SessionTarget| {
        ClaudeRuntime::open(
            OpenSpec {
                binary: s.binary.clone(),
                target,
                env: s.vars(),
            },
            tx.clone(),
        )
    };

    // An unknown session: refused before anything runs.
    let unknown = NativeSession {
        session_id: uuid::Uuid::new_v4().to_string(),
        path: None,
        ..source.clone()
    };
    let err = within(open(SessionTarget::Resume(unknown.clone())), "open")
        .await
        .err();
    assert!(
        matches!(err, Some(HarnessError::SessionNotFound(_))),
        "{err:?}"
    );
    let err = s
        .fork(&unknown, &source_anchors, Cut::After(0))
        .await
        .unwrap_err();
    assert!(matches!(err, HarnessError::SessionNotFound(_)), "{err:?}");

    // A transcript the CLI does not know under that id: the CLI says so, and send answers it.
    let elsewhere = s.env.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let stray = elsewhere.join(format!("{}.jsonl", unknown.session_id));
    std::fs::copy(&source_path, &stray).unwrap();
    let mut rt = within(
        open(SessionTarget::Resume(NativeSession {
            path: Some(stray.clone()),
            ..unknown.clone()
        })),
        "open",
    )
    .await
    .unwrap();
    let err = within(rt.send("hello?"), "send").await.unwrap_err();
    assert!(matches!(err, HarnessError::SessionNotFound(_)), "{err:?}");
    within(rt.close(), "close").await.unwrap();

    // Cuts: out of range, and a checkpoint that is not in the source.
    for cut in [Cut::After(3), Cut::Before(3)] {
        let err = s.fork(&source, &source_anchors, cut).await.unwrap_err();
        assert!(
            matches!(err, HarnessError::TurnNotFound(_)),
            "{cut:?}: {err:?}"
        );
    }
    let mut bogus = source_anchors.clone();
    bogus[0].native_checkpoint_ref = Some(uuid::Uuid::new_v4().to_string());
    let err = s.fork(&source, &bogus, Cut::After(0)).await.unwrap_err();
    assert!(
        matches!(err, HarnessError::CheckpointNotFound(_)),
        "{err:?}"
    );
    let mut running = source_anchors.clone();
    running[2].complete = false;
    let err = s.fork(&source, &running, Cut::After(2)).await.unwrap_err();
    assert!(
        matches!(err, HarnessError::CheckpointNotFound(_)),
        "{err:?}"
    );

    // A checkpoint the scan accepts (it is in the copy we point at) but the CLI, which loads
    // the session by id, does not know: the CLI's own "No message found" → CheckpointNotFound.
    let crafted = uuid::Uuid::new_v4().to_string();
    let copy_dir = s.env.root().join("copy");
    std::fs::create_dir_all(&copy_dir).unwrap();
    let copy = copy_dir.join(source_path.file_name().unwrap());
    let mut text = std::fs::read_to_string(&source_path).unwrap();
    text.push_str(&format!(
        "{{\"type\":\"assistant\",\"uuid\":\"{crafted}\",\"parentUuid\":null,\"message\":{{\"role\":\"assistant\",\"content\":[]}}}}\n"
    ));
    std::fs::write(&copy, text).unwrap();
    let pending = PendingFork {
        source: Some(NativeSession {
            path: Some(copy),
            ..source.clone()
        }),
        session: NativeSession {
            session_id: uuid::Uuid::new_v4().to_string(),
            path: None,
            ..source.clone()
        },
        resume_at: Some(crafted),
    };
    let mut rt = within(open(SessionTarget::PendingFork(pending)), "open")
        .await
        .unwrap();
    let err = within(rt.send("fork here"), "send").await.unwrap_err();
    assert!(
        matches!(err, HarnessError::CheckpointNotFound(_)),
        "{err:?}"
    );
    within(rt.close(), "close").await.unwrap();

    // A version without the verified fork path: no boundaries, and fork refuses.
    let old = HarnessBinary {
        version: "2.0.0".into(),
        ..s.binary.clone()
    };
    let caps = old.capabilities();
    assert!(
        caps.boundaries.is_empty() && caps.note.is_some(),
        "{caps:?}"
    );
    let err = within(
        forkhost_harness::runtime::fork(&old, &source, &source_anchors, Cut::After(0), &s.vars()),
        "fork",
    )
    .await
    .unwrap_err();
    assert!(matches!(err, HarnessError::Unsupported(_)), "{err:?}");
    assert_eq!(
        s.binary.capabilities().boundaries,
        ["after", "before", "latest"]
    );

    // A binary that is not there.
    let missing = HarnessBinary {
        path: s.env.root().join("no-such-claude"),
        ..s.binary.clone()
    };
    let err = within(
        Runtime::open(
            OpenSpec {
                binary: missing,
                target: SessionTarget::New { cwd: s.cwd() },
                env: s.vars(),
            },
            tx.clone(),
        ),
        "open",
    )
    .await
    .err();
    assert!(
        matches!(
            err,
            Some(HarnessError::HarnessNotFound {
                harness: HarnessKind::Claude,
                ..
            })
        ),
        "{err:?}"
    );

    assert_eq!(
        s.transcripts(),
        files,
        "no failed attempt left a transcript"
    );
    assert_eq!(sha256(&source_path), source_sha);
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

/// Waits for the runtime's `Exited`, returning everything before it too.
async fn until_exited(rx: &mut Events) -> Vec<RuntimeEvent> {
    let mut events = Vec::new();
    loop {
        let event = next_event(rx).await;
        events.push(event.clone());
        if matches!(event, RuntimeEvent::Exited { .. }) {
            return events;
        }
    }
}

/// Waits for the first text delta of the running turn.
async fn until_text(rx: &mut Events) -> Vec<RuntimeEvent> {
    let mut events = Vec::new();
    loop {
        let event = next_event(rx).await;
        events.push(event.clone());
        if matches!(event, RuntimeEvent::TextDelta { .. }) {
            return events;
        }
    }
}

/// The CLI killed from outside mid-turn: the turn fails, `Exited` carries the error, the next
/// send answers `HarnessFailed`, and nothing is left running. (Unix: it kills with SIGKILL.)
#[cfg(unix)]
#[tokio::test]
async fn a_killed_harness_is_reported() {
    let Some(s) = setup().await else { return };
    let (mut rt, mut rx) = s.open_claude(SessionTarget::New { cwd: s.cwd() }).await;
    let pid = rt.pid().expect("a pid");
    within(rt.send("SLOW please, then die"), "send")
        .await
        .unwrap();
    until_text(&mut rx).await;
    // SAFETY: kill only sends a signal to the CLI we started.
    assert_eq!(unsafe { libc::kill(pid as i32, libc::SIGKILL) }, 0);
    let events = until_exited(&mut rx).await;
    let n = events.len();
    assert!(
        matches!(
            &events[n - 2],
            RuntimeEvent::TurnEnded {
                outcome: TurnOutcome::Failed { .. },
                ..
            }
        ),
        "{events:?}"
    );
    let RuntimeEvent::Exited { error: Some(error) } = &events[n - 1] else {
        panic!("no Exited with an error: {events:?}")
    };
    assert!(error.contains("signal"), "{error}");
    let err = within(rt.send("are you there?"), "send").await.unwrap_err();
    let HarnessError::HarnessFailed {
        harness,
        message,
        stderr_tail,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert_eq!(*harness, HarnessKind::Claude);
    assert!(message.contains("signal"), "{message}");
    assert!(stderr_tail.lines().count() <= 20);
    assert!(!alive(pid), "reaped, no zombie");
    within(rt.close(), "close").await.unwrap();
}

/// Interrupting a slow turn ends it as Interrupted; a send meanwhile is Busy; the runtime takes
/// the next prompt; closing mid-turn leaves no process behind.
#[tokio::test]
async fn interrupt_then_continue_then_close_mid_turn() {
    let Some(s) = setup().await else { return };
    let (mut rt, mut rx) = s.open_claude(SessionTarget::New { cwd: s.cwd() }).await;
    let pid = rt.pid().unwrap();
    within(rt.send("SLOW story"), "send").await.unwrap();
    let before = until_text(&mut rx).await;
    let err = within(rt.send("too early"), "send").await.unwrap_err();
    assert!(matches!(err, HarnessError::Busy(_)), "{err:?}");
    let t0 = Instant::now();
    within(rt.interrupt(), "interrupt").await.unwrap();
    let stopped_in = t0.elapsed();
    let log = finish_turn(&mut rx, before).await;
    assert_eq!(log.outcome, TurnOutcome::Interrupted, "{log:?}");
    println!("claude interrupt: the turn ended {stopped_in:?} after the request");

    within(rt.send("after the interrupt"), "send")
        .await
        .unwrap();
    let next = finish_turn(&mut rx, Vec::new()).await;
    assert_eq!(next.outcome, TurnOutcome::Completed, "{next:?}");
    assert!(
        next.text.starts_with("reply (turn 2) to: "),
        "{}",
        next.text
    );

    let history = history_of(&rt.session().unwrap());
    assert_eq!(history.turns.len(), 2);
    assert!(history.turns[0].complete);
    assert_eq!(refs(&history), [log.anchor_refs(), next.anchor_refs()]);

    within(rt.send("SLOW again"), "send").await.unwrap();
    until_text(&mut rx).await;
    let t0 = Instant::now();
    within(rt.close(), "close").await.unwrap();
    println!("claude close mid-turn: {:?}", t0.elapsed());
    let events = until_exited(&mut rx).await;
    assert_eq!(
        events.last(),
        Some(&RuntimeEvent::Exited { error: None }),
        "{events:?}"
    );
    assert!(!alive(pid), "closed, reaped");
}

/// A cwd past the CLI's 200-character folder-name limit, with non-ASCII characters: the
/// runtime predicts the transcript's path exactly.
#[tokio::test]
async fn a_long_cwd_maps_to_the_clis_folder() {
    let Some(s) = setup().await else { return };
    let cwd = s
        .cwd()
        .join("a-rather-long-folder_name.with.dots-ünïcode/".repeat(6))
        .join("😀 leaf");
    std::fs::create_dir_all(&cwd).unwrap();
    let mut live = s.open(SessionTarget::New { cwd: cwd.clone() }).await;
    live.turn("where am I").await;
    let session = live.session();
    let path = session.path.clone().unwrap();
    assert!(path.is_file(), "{} exists", path.display());
    let folder = path
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(folder.len() > 200, "{folder}");
    assert_eq!(s.transcripts(), [path]);
    // Resume by id works from that cwd too.
    live.close().await;
    let mut live = s.open(SessionTarget::Resume(session)).await;
    live.turn("still here").await;
    live.close().await;
}
