//! Codex's live runtime (`codex app-server`) and native fork (`thread/fork`), with the real
//! CLI against the fake model in a temporary HOME.
//!
//! Needs `FORKHOST_CODEX_BIN` (from `scripts/install-harnesses.sh --print-env`); without it
//! every test prints "skipped: FORKHOST_CODEX_BIN not set" and passes
//! (fails, under `FORKHOST_REQUIRE_HARNESSES=1`). Every wait on the CLI
//! has a timeout, so a hang fails instead of blocking.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use forkhost_harness::codex::CodexRuntime;
use forkhost_harness::{
    binary, read_history, Cut, HarnessBinary, HarnessError, HarnessKind, History, NativeSession,
    OpenSpec, Role, Runtime, RuntimeEvent, SessionTarget, TurnAnchor, TurnOutcome,
};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use tokio::sync::mpsc;

/// Any single wait on the CLI (a request, a turn, an event).
const TIMEOUT: Duration = Duration::from_secs(90);

struct Ctx {
    fake: FakeModel,
    env: HarnessEnv,
    binary: HarnessBinary,
}

impl Ctx {
    fn vars(&self) -> Vec<(String, String)> {
        self.env.vars().to_vec()
    }

    fn sessions_dir(&self) -> PathBuf {
        self.env.home().join(".codex/sessions")
    }

    async fn open(&self, target: SessionTarget) -> Result<Live, HarnessError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let spec = OpenSpec {
            binary: self.binary.clone(),
            target,
            env: self.vars(),
        };
        let runtime = within("open", Runtime::open(spec, tx)).await?;
        Ok(Live { runtime, rx })
    }

    async fn open_new(&self) -> Live {
        let target = SessionTarget::New {
            cwd: self.env.work_dir().to_owned(),
        };
        self.open(target).await.expect("open a new codex thread")
    }

    async fn fork(
        &self,
        source: &NativeSession,
        anchors: &[TurnAnchor],
        cut: Cut,
    ) -> Result<forkhost_harness::Forked, HarnessError> {
        let vars = self.vars();
        within(
            "fork",
            forkhost_harness::runtime::fork(&self.binary, source, anchors, cut, &vars),
        )
        .await
    }

    /// A thread with one turn per prompt, closed again.
    async fn thread_with(&self, prompts: &[&str]) -> NativeSession {
        let mut live = self.open_new().await;
        for p in prompts {
            live.turn(p).await;
        }
        let session = live.session();
        live.close().await;
        session
    }
}

async fn setup() -> Option<Ctx> {
    let fake = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let env = HarnessEnv::for_fake(Harness::Codex, &fake).unwrap()?;
    let binary = within("probe", binary::probe(HarnessKind::Codex))
        .await
        .expect("FORKHOST_CODEX_BIN runs");
    Some(Ctx { fake, env, binary })
}

async fn within<T>(what: &str, fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(TIMEOUT, fut)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish within {TIMEOUT:?}"))
}

/// A live runtime and its event stream.
struct Live {
    runtime: Runtime,
    rx: mpsc::UnboundedReceiver<RuntimeEvent>,
}

/// What one turn streamed.
#[derive(Debug)]
struct TurnEvents {
    events: Vec<RuntimeEvent>,
    turn_ref: Option<String>,
    checkpoint: Option<String>,
    outcome: TurnOutcome,
}

impl TurnEvents {
    fn text(&self) -> String {
        self.events
            .iter()
            .filter_map(|e| match e {
                RuntimeEvent::TextDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    fn started_ref(&self) -> Option<String> {
        self.events.iter().find_map(|e| match e {
            RuntimeEvent::TurnStarted { native_turn_ref } => native_turn_ref.clone(),
            _ => None,
        })
    }
}

impl Live {
    async fn next(&mut self) -> RuntimeEvent {
        next_event(&mut self.rx).await
    }

    /// Waits for the event `pick` accepts, returning it and those before it.
    async fn until<T>(
        &mut self,
        pick: impl FnMut(&RuntimeEvent) -> Option<T>,
    ) -> (Vec<RuntimeEvent>, T) {
        until(&mut self.rx, pick).await
    }

    async fn wait_turn_end(&mut self) -> TurnEvents {
        let (events, (turn_ref, checkpoint, outcome)) = self
            .until(|e| match e {
                RuntimeEvent::TurnEnded {
                    native_turn_ref,
                    native_checkpoint_ref,
                    outcome,
                } => Some((
                    native_turn_ref.clone(),
                    native_checkpoint_ref.clone(),
                    outcome.clone(),
                )),
                RuntimeEvent::Exited { error } => panic!("exited mid-turn: {error:?}"),
                _ => None,
            })
            .await;
        TurnEvents {
            events,
            turn_ref,
            checkpoint,
            outcome,
        }
    }

    /// Sends a prompt and waits for its turn to end, which must complete.
    async fn turn(&mut self, prompt: &str) -> TurnEvents {
        within("send", self.runtime.send(prompt))
            .await
            .expect("send");
        let turn = self.wait_turn_end().await;
        assert_eq!(turn.outcome, TurnOutcome::Completed, "{turn:?}");
        turn
    }

    fn session(&self) -> NativeSession {
        self.runtime.session().expect("the session is known")
    }

    fn codex(&self) -> &CodexRuntime {
        match &self.runtime {
            Runtime::Codex(r) => r,
            _ => panic!("not a codex runtime"),
        }
    }

    /// Closes the runtime; the process is gone afterwards and reported as a clean exit.
    async fn close(self) {
        let pid = self.codex().pid();
        let Live { runtime, mut rx } = self;
        within("close", runtime.close()).await.expect("close");
        let (_, error) = until(&mut rx, |e| match e {
            RuntimeEvent::Exited { error } => Some(error.clone()),
            _ => None,
        })
        .await;
        assert_eq!(error, None, "a requested close is not an error");
        if let Some(pid) = pid {
            assert!(!process_alive(pid), "app-server {pid} survived close");
        }
    }
}

async fn next_event(rx: &mut mpsc::UnboundedReceiver<RuntimeEvent>) -> RuntimeEvent {
    within("the next runtime event", rx.recv())
        .await
        .expect("the event stream ended")
}

async fn until<T>(
    rx: &mut mpsc::UnboundedReceiver<RuntimeEvent>,
    mut pick: impl FnMut(&RuntimeEvent) -> Option<T>,
) -> (Vec<RuntimeEvent>, T) {
    let mut seen = Vec::new();
    loop {
        let e = next_event(rx).await;
        if let Some(t) = pick(&e) {
            seen.push(e);
            return (seen, t);
        }
        seen.push(e);
    }
}

/// Whether process `pid` exists. Answered on Unix only (signal 0), where these tests run.
#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    // SAFETY: signal 0 only checks whether the process exists.
    unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
}

#[cfg(not(unix))]
fn process_alive(pid: u32) -> bool {
    unimplemented!("process_alive({pid}): the real-CLI tests run on Unix")
}

fn read(path: &Path) -> History {
    read_history(HarnessKind::Codex, path).expect("read the rollout")
}

fn rollout(session: &NativeSession) -> PathBuf {
    session.path.clone().expect("a codex session has a rollout")
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

/// A file's hash and bytes, to prove it was not written.
struct Fingerprint {
    path: PathBuf,
    sha: String,
    bytes: Vec<u8>,
}

impl Fingerprint {
    fn of(path: &Path) -> Self {
        Fingerprint {
            path: path.to_owned(),
            sha: sha256(path),
            bytes: std::fs::read(path).unwrap(),
        }
    }

    fn assert_unchanged(&self, after: &str) {
        assert_eq!(
            sha256(&self.path),
            self.sha,
            "{} changed after {after}",
            self.path.display()
        );
        assert!(std::fs::read(&self.path).unwrap() == self.bytes);
    }
}

fn reply(turn: usize, prompt: &str) -> String {
    format!("reply (turn {turn}) to: {prompt}")
}

/// The dialogue of a conversation of plain prompts: user, assistant, user, ...
fn dialogue_of(prompts: &[&str]) -> Vec<Msg> {
    let mut out = Vec::new();
    for (i, p) in prompts.iter().enumerate() {
        out.push(Msg::user(*p));
        out.push(Msg::assistant(reply(i + 1, p)));
    }
    out
}

fn rollout_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![dir.to_owned()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Three turns through `Runtime`: events stream in order, `TurnEnded` names the turn the
/// reader indexes (same turn ref and checkpoint), the reader returns the text, the model saw
/// the whole conversation, and close leaves no process behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_turns_match_the_reader() {
    let Some(ctx) = setup().await else { return };
    let mut live = ctx.open_new().await;
    let first = live.next().await;
    let RuntimeEvent::Session { session } = first else {
        panic!("the first event names the session: {first:?}");
    };
    assert_eq!(session.kind, HarnessKind::Codex);
    assert_eq!(session, live.session());
    assert_eq!(session.cwd, ctx.env.work_dir());

    let prompts = ["first prompt", "second prompt", "third prompt"];
    let mut ended = Vec::new();
    for (i, p) in prompts.iter().enumerate() {
        let turn = live.turn(p).await;
        assert_eq!(turn.text(), reply(i + 1, p), "deltas make the reply");
        assert_eq!(
            turn.started_ref(),
            turn.turn_ref,
            "TurnStarted names the turn"
        );
        ended.push((turn.turn_ref.clone(), turn.checkpoint.clone()));
    }
    live.close().await;

    let history = read(&rollout(&session));
    assert_eq!(
        history.session_id.as_deref(),
        Some(session.session_id.as_str())
    );
    assert_eq!(history.turns.len(), 3);
    for (i, turn) in history.turns.iter().enumerate() {
        assert!(turn.complete);
        assert_eq!(
            (
                Some(turn.native_turn_ref.clone()),
                turn.native_checkpoint_ref.clone()
            ),
            ended[i],
            "TurnEnded refs equal the reader's anchors"
        );
        let said: Vec<(Role, &str)> = turn
            .messages
            .iter()
            .filter(|m| matches!(m.role, Role::User | Role::Assistant))
            .map(|m| (m.role, m.text.as_str()))
            .collect();
        let answer = reply(i + 1, prompts[i]);
        assert_eq!(
            said,
            vec![(Role::User, prompts[i]), (Role::Assistant, answer.as_str())]
        );
    }
    let last = ctx.fake.last_model_request().unwrap();
    let mut expected = dialogue_of(&prompts[..2]);
    expected.push(Msg::user(prompts[2]));
    assert_eq!(last.dialogue(), expected);
}

/// Fork after turn 1, before turn 2, before turn 1 and at the latest turn, a prompt in each
/// fork, and a fork of a fork: each fork holds exactly the kept turns, the model sees exactly
/// that history and then the new prompt, and neither the source's rollout nor a forked
/// parent's changes (sha256) through any fork or fork turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forks_cut_at_turn_boundaries_and_never_touch_the_source() {
    let Some(ctx) = setup().await else { return };
    let prompts = ["one", "two", "three"];
    let source = ctx.thread_with(&prompts).await;
    let source_file = rollout(&source);
    let print = Fingerprint::of(&source_file);
    let history = read(&source_file);
    let anchors: Vec<TurnAnchor> = history.turns.iter().map(|t| t.anchor()).collect();
    assert_eq!(anchors.len(), 3);

    let cases = [
        ("after turn 1", Cut::After(0), 1),
        ("before turn 2", Cut::Before(1), 1),
        ("before turn 1", Cut::Before(0), 0),
        ("latest", Cut::After(2), 3),
    ];
    let mut after_one = None;
    for (name, cut, kept) in cases {
        let forked = ctx.fork(&source, &anchors, cut).await.expect(name);
        print.assert_unchanged(name);
        assert!(forked.pending.is_none(), "codex forks are eager");
        let fork = forked.session.clone();
        assert_ne!(fork.session_id, source.session_id);
        let fork_file = rollout(&fork);
        assert_ne!(fork_file, source_file);
        let read_back = read(&fork_file);
        assert_eq!(
            read_back.forked_from.as_deref(),
            Some(source.session_id.as_str())
        );
        let refs: Vec<_> = read_back.turns.iter().map(|t| t.anchor()).collect();
        assert_eq!(
            refs,
            anchors[..kept],
            "{name}: the fork holds the kept turns"
        );

        let prompt = format!("new prompt {name}");
        let mut live = ctx
            .open(SessionTarget::Resume(fork.clone()))
            .await
            .expect(name);
        let turn = live.turn(&prompt).await;
        assert_eq!(turn.text(), reply(kept + 1, &prompt));
        live.close().await;
        print.assert_unchanged(&format!("a turn in the fork {name}"));

        let mut expected = dialogue_of(&prompts[..kept]);
        expected.push(Msg::user(&prompt));
        let seen = ctx.fake.last_model_request().unwrap();
        assert_eq!(seen.dialogue(), expected, "{name}: what the model saw");
        let grown = read(&fork_file);
        assert_eq!(grown.turns.len(), kept + 1);
        assert_eq!(grown.turns[kept].native_turn_ref, turn.turn_ref.unwrap());
        if matches!(cut, Cut::After(0)) {
            after_one = Some((fork, prompt));
        }
    }

    // A fork of the "after turn 1" fork, after its own new turn.
    let (parent, branch_prompt) = after_one.unwrap();
    let parent_file = rollout(&parent);
    let parent_print = Fingerprint::of(&parent_file);
    let parent_anchors: Vec<_> = read(&parent_file)
        .turns
        .iter()
        .map(|t| t.anchor())
        .collect();
    let grandchild = ctx
        .fork(&parent, &parent_anchors, Cut::After(1))
        .await
        .expect("fork of a fork")
        .session;
    parent_print.assert_unchanged("the fork of the fork");
    let read_back = read(&rollout(&grandchild));
    assert_eq!(
        read_back.forked_from.as_deref(),
        Some(parent.session_id.as_str())
    );
    let mut live = ctx.open(SessionTarget::Resume(grandchild)).await.unwrap();
    live.turn("grandchild prompt").await;
    live.close().await;
    let seen = ctx.fake.last_model_request().unwrap();
    assert_eq!(
        seen.dialogue(),
        vec![
            Msg::user("one"),
            Msg::assistant(reply(1, "one")),
            Msg::user(&branch_prompt),
            Msg::assistant(reply(2, &branch_prompt)),
            Msg::user("grandchild prompt"),
        ]
    );
    parent_print.assert_unchanged("a turn in the fork of the fork");
    print.assert_unchanged("everything");
}

/// A tool turn streams the call and its result with one id, and the reader reads both back
/// as a tool message of that turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_turn_streams_call_and_result() {
    let Some(ctx) = setup().await else { return };
    let mut live = ctx.open_new().await;
    let prompt = "please CALL_TOOL now";
    let turn = live.turn(prompt).await;
    let session = live.session();
    live.close().await;

    let call = turn.events.iter().find_map(|e| match e {
        RuntimeEvent::ToolCall { id, name, input } => {
            Some((id.clone(), name.clone(), input.clone()))
        }
        _ => None,
    });
    let (call_id, name, input) = call.expect("a ToolCall event");
    assert_eq!(name, "shell");
    assert!(input.to_string().contains("echo tool-ok"), "{input}");
    let result = turn.events.iter().find_map(|e| match e {
        RuntimeEvent::ToolResult {
            id,
            output,
            is_error,
        } => Some((id.clone(), output.clone(), *is_error)),
        _ => None,
    });
    let (result_id, output, is_error) = result.expect("a ToolResult event");
    assert!(call_id.is_some());
    assert_eq!(result_id, call_id);
    assert!(output.contains("tool-ok") && !is_error, "{output}");
    let call_at = turn
        .events
        .iter()
        .position(|e| matches!(e, RuntimeEvent::ToolCall { .. }));
    let result_at = turn
        .events
        .iter()
        .position(|e| matches!(e, RuntimeEvent::ToolResult { .. }));
    assert!(call_at < result_at);
    assert!(
        turn.text().starts_with(&reply(1, prompt)),
        "{}",
        turn.text()
    );

    let history = read(&rollout(&session));
    assert_eq!(history.turns.len(), 1);
    let messages = &history.turns[0].messages;
    let tool = messages
        .iter()
        .find(|m| m.role == Role::Tool)
        .and_then(|m| m.tool.clone())
        .expect("the reader has the tool call");
    assert_eq!(
        tool.id, call_id,
        "the reader and the events agree on the call id"
    );
    assert!(tool.input.to_string().contains("echo tool-ok"));
    assert!(tool.output.unwrap_or_default().contains("tool-ok"));
    assert!(!tool.is_error);
    assert_eq!(messages[0].role, Role::User);
    assert_eq!(messages[0].text, prompt);
    let last = messages.last().unwrap();
    assert_eq!(last.role, Role::Assistant);
    assert_eq!(last.text, turn.text());
}

/// Typed errors: unknown sessions, unknown checkpoints, bad turn indexes, a missing binary and
/// an old version are refused, and a refused fork leaves no file behind.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_are_typed() {
    let Some(ctx) = setup().await else { return };
    let source = ctx.thread_with(&["only turn"]).await;
    let anchors: Vec<_> = read(&rollout(&source))
        .turns
        .iter()
        .map(|t| t.anchor())
        .collect();
    let files = rollout_files(&ctx.sessions_dir());
    let print = Fingerprint::of(&rollout(&source));
    let unknown_id = "019a0000-0000-7000-8000-000000000000";

    // Resume of an unknown thread: refused before spawning (missing path) and by the server.
    for path in [Some(ctx.sessions_dir().join("rollout-missing.jsonl")), None] {
        let ghost = NativeSession {
            kind: HarnessKind::Codex,
            session_id: unknown_id.into(),
            path,
            cwd: ctx.env.work_dir().to_owned(),
        };
        let err = ctx.open(SessionTarget::Resume(ghost.clone())).await.err();
        assert!(
            matches!(err, Some(HarnessError::SessionNotFound(_))),
            "{err:?}"
        );
        let err = ctx.fork(&ghost, &anchors, Cut::After(0)).await.unwrap_err();
        assert!(matches!(err, HarnessError::SessionNotFound(_)), "{err:?}");
    }

    // An unknown checkpoint, in both directions.
    let bogus = vec![TurnAnchor {
        native_turn_ref: unknown_id.into(),
        native_checkpoint_ref: Some(unknown_id.into()),
        complete: true,
    }];
    for cut in [Cut::After(0), Cut::Before(0)] {
        let err = ctx.fork(&source, &bogus, cut).await.unwrap_err();
        assert!(
            matches!(err, HarnessError::CheckpointNotFound(_)),
            "{err:?}"
        );
    }
    // Out of range, and a turn still in progress.
    let err = ctx
        .fork(&source, &anchors, Cut::After(1))
        .await
        .unwrap_err();
    assert!(matches!(err, HarnessError::TurnNotFound(_)), "{err:?}");
    let mut running = anchors.clone();
    running[0].complete = false;
    let err = ctx
        .fork(&source, &running, Cut::After(0))
        .await
        .unwrap_err();
    assert!(
        matches!(err, HarnessError::CheckpointNotFound(_)),
        "{err:?}"
    );

    // A binary that does not exist, through `probe` and through a bogus path.
    let missing = "/nonexistent/forkhost/codex";
    let exe = std::env::current_exe().unwrap();
    let probe = std::process::Command::new(exe)
        .args([
            "--exact",
            "probe_of_a_missing_binary_in_a_child",
            "--nocapture",
        ])
        .env("FORKHOST_CODEX_BIN", missing)
        .env("FORKHOST_CODEX_PROBE_CHILD", "1")
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&probe.stdout).contains("probe: HarnessNotFound"),
        "{}",
        String::from_utf8_lossy(&probe.stdout)
    );
    let bogus_bin = HarnessBinary {
        path: missing.into(),
        ..ctx.binary.clone()
    };
    let (tx, _rx) = mpsc::unbounded_channel();
    let spec = OpenSpec {
        binary: bogus_bin.clone(),
        target: SessionTarget::New {
            cwd: ctx.env.work_dir().to_owned(),
        },
        env: ctx.vars(),
    };
    let err = Runtime::open(spec, tx).await.err();
    assert!(
        matches!(err, Some(HarnessError::HarnessNotFound { .. })),
        "{err:?}"
    );
    let err = forkhost_harness::runtime::fork(&bogus_bin, &source, &anchors, Cut::After(0), &[])
        .await
        .unwrap_err();
    assert!(
        matches!(err, HarnessError::HarnessNotFound { .. }),
        "{err:?}"
    );

    // A version below the verified one forks nothing.
    let old = HarnessBinary {
        version: "0.100.0".into(),
        ..ctx.binary.clone()
    };
    assert!(old.capabilities().boundaries.is_empty());
    let err = forkhost_harness::runtime::fork(&old, &source, &anchors, Cut::After(0), &ctx.vars())
        .await
        .unwrap_err();
    assert!(matches!(err, HarnessError::Unsupported(_)), "{err:?}");
    assert_eq!(
        ctx.binary.capabilities().boundaries,
        vec!["after", "before", "latest"]
    );

    assert_eq!(
        rollout_files(&ctx.sessions_dir()),
        files,
        "no stray native file"
    );
    print.assert_unchanged("the refused forks");
}

/// Run by `errors_are_typed` in a child process with `FORKHOST_CODEX_BIN` pointing nowhere
/// (the variable is process-wide, so it is not changed in this process).
#[tokio::test]
async fn probe_of_a_missing_binary_in_a_child() {
    if std::env::var_os("FORKHOST_CODEX_PROBE_CHILD").is_none() {
        return;
    }
    match binary::probe(HarnessKind::Codex).await {
        Err(HarnessError::HarnessNotFound { .. }) => println!("probe: HarnessNotFound"),
        other => println!("probe: {other:?}"),
    }
}

/// A SLOW turn killed from outside: `Exited` with an error, then `HarnessFailed` with the
/// stderr tail on the next send. (Unix: it kills with SIGKILL.)
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_harness_reports_exit_and_fails_the_next_send() {
    let Some(ctx) = setup().await else { return };
    let mut live = ctx.open_new().await;
    within("send", live.runtime.send("SLOW answer please"))
        .await
        .unwrap();
    live.until(|e| matches!(e, RuntimeEvent::TextDelta { .. }).then_some(()))
        .await;
    let pid = live.codex().pid().expect("a pid");
    // SAFETY: kills the app-server this test started.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
    let (_, error) = live
        .until(|e| match e {
            RuntimeEvent::Exited { error } => Some(error.clone()),
            RuntimeEvent::TurnEnded { .. } => panic!("the turn cannot end normally: {e:?}"),
            _ => None,
        })
        .await;
    let error = error.expect("an unasked exit carries an error");
    assert!(error.contains("signal 9"), "{error}");
    let err = within("send", live.runtime.send("again"))
        .await
        .unwrap_err();
    match err {
        HarnessError::HarnessFailed {
            harness,
            message,
            stderr_tail,
        } => {
            assert_eq!(harness, HarnessKind::Codex);
            assert!(message.contains("exited unexpectedly"), "{message}");
            assert!(stderr_tail.lines().count() <= 20);
            println!("stderr tail after the kill:\n{stderr_tail}");
        }
        other => panic!("expected HarnessFailed, got {other:?}"),
    }
    assert!(!process_alive(pid), "reaped");
    within("close", live.runtime.close()).await.unwrap();
}

/// Interrupting a SLOW turn ends it as `Interrupted` (a second send meanwhile is `Busy`), the
/// reader sees the turn closed at the same ref, and the runtime takes the next prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn interrupt_ends_the_turn_and_the_runtime_goes_on() {
    let Some(ctx) = setup().await else { return };
    let mut live = ctx.open_new().await;
    within("send", live.runtime.send("SLOW story"))
        .await
        .unwrap();
    live.until(|e| matches!(e, RuntimeEvent::TextDelta { .. }).then_some(()))
        .await;
    let busy = within("send", live.runtime.send("too early")).await;
    assert!(matches!(busy, Err(HarnessError::Busy(_))), "{busy:?}");
    let asked = Instant::now();
    within("interrupt", live.runtime.interrupt()).await.unwrap();
    println!("interrupt returned after {:?}", asked.elapsed());
    let stopped = live.wait_turn_end().await;
    assert_eq!(stopped.outcome, TurnOutcome::Interrupted);
    assert!(
        !stopped.text().contains("reply (turn 1) to: SLOW story"),
        "the reply was cut short"
    );

    let next = live.turn("after the interrupt").await;
    assert!(
        next.text()
            .starts_with("reply (turn 2) to: after the interrupt"),
        "{}",
        next.text()
    );
    let session = live.session();
    live.close().await;

    let history = read(&rollout(&session));
    assert_eq!(history.turns.len(), 2);
    assert!(history.turns[0].complete, "an interrupted turn is closed");
    assert_eq!(
        Some(history.turns[0].native_turn_ref.clone()),
        stopped.turn_ref
    );
    assert_eq!(history.turns[0].native_checkpoint_ref, stopped.checkpoint);
    assert_eq!(
        Some(history.turns[1].native_turn_ref.clone()),
        next.turn_ref
    );
}

/// Closing in the middle of a SLOW turn interrupts it, ends the process (no survivor, a clean
/// `Exited`), and leaves a rollout whose turn is closed and forkable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn close_mid_turn_ends_the_turn_and_the_process() {
    let Some(ctx) = setup().await else { return };
    let mut live = ctx.open_new().await;
    within("send", live.runtime.send("SLOW and long"))
        .await
        .unwrap();
    live.until(|e| matches!(e, RuntimeEvent::TextDelta { .. }).then_some(()))
        .await;
    let session = live.session();
    let started = Instant::now();
    live.close().await;
    println!("close mid-turn took {:?}", started.elapsed());
    let history = read(&rollout(&session));
    assert_eq!(history.turns.len(), 1);
    assert!(history.turns[0].complete, "the close interrupted the turn");
    let anchors: Vec<_> = history.turns.iter().map(|t| t.anchor()).collect();
    ctx.fork(&session, &anchors, Cut::After(0))
        .await
        .expect("the closed turn is forkable");
}

/// The wall time of the native fork call (`fork`: its own app-server, `thread/fork`, the
/// read-back check), median of five. Printed, never asserted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fork_wall_time() {
    let Some(ctx) = setup().await else { return };
    let source = ctx.thread_with(&["a", "b", "c"]).await;
    let anchors: Vec<_> = read(&rollout(&source))
        .turns
        .iter()
        .map(|t| t.anchor())
        .collect();
    for (name, cut) in [
        ("after turn 2", Cut::After(1)),
        ("before turn 2", Cut::Before(1)),
    ] {
        let mut times = Vec::new();
        for _ in 0..5 {
            let started = Instant::now();
            ctx.fork(&source, &anchors, cut).await.unwrap();
            times.push(started.elapsed());
        }
        times.sort();
        println!(
            "codex fork {name}: median {:?} (min {:?}, max {:?}, 5 runs, 3-turn source)",
            times[2], times[0], times[4]
        );
    }
}
