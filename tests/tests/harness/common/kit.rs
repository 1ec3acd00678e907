//! The pieces every real-CLI scenario is made of: one harness in a temporary HOME against the
//! fake model ([`Setup`]), a live runtime and its event stream ([`Live`]), one streamed turn
//! ([`TurnLog`]), and small checks on native files. Every wait on the CLI has the harness's
//! timeout, so a hang fails the test instead of blocking it.

use std::future::Future;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::time::Duration;

use forkhost_harness::{
    read_history, Answer, ApprovalDecision, ApprovalRequest, Cut, ForkRequest, Forked,
    HarnessBinary, HarnessError, History, NativeSession, OpenSpec, Reply, Role, Runtime,
    RuntimeEvent, SessionTarget, TurnAnchor, TurnOutcome, TurnUsage,
};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::HarnessEnv;
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver};

use super::HarnessCase;

pub type Events = UnboundedReceiver<RuntimeEvent>;

/// `fut`, or a panic naming `what` after `timeout`.
pub async fn within<T>(timeout: Duration, what: &str, fut: impl Future<Output = T>) -> T {
    tokio::time::timeout(timeout, fut)
        .await
        .unwrap_or_else(|_| panic!("{what} did not finish within {timeout:?}"))
}

/// One harness CLI in its own temporary HOME, pointed at its own fake model.
pub struct Setup<H> {
    pub fake: FakeModel,
    pub env: HarnessEnv,
    pub binary: HarnessBinary,
    harness: PhantomData<H>,
}

impl<H: HarnessCase> Setup<H> {
    /// `None` (the test skips, and says so) when the harness's `FORKHOST_*_BIN` is unset; a
    /// failure instead under `FORKHOST_REQUIRE_HARNESSES=1` (`forkhost_tests::need`).
    pub async fn start() -> Option<Self> {
        let fake = FakeModel::start(FakeModelOptions::default()).await.unwrap();
        let env = HarnessEnv::for_fake(H::HARNESS, &fake).unwrap()?;
        let binary = within(H::TIMEOUT, "probe", H::binary(&env)).await;
        Some(Setup {
            fake,
            env,
            binary,
            harness: PhantomData,
        })
    }

    pub async fn within<T>(&self, what: &str, fut: impl Future<Output = T>) -> T {
        within(H::TIMEOUT, what, fut).await
    }

    /// The CLI's environment: the temp HOME and the fake model. Inherited variables the
    /// harness env would remove are blanked (an `OpenSpec` can only add variables).
    pub fn vars(&self) -> Vec<(String, String)> {
        let mut vars: Vec<(String, String)> = self
            .env
            .scrubbed_vars()
            .into_iter()
            .map(|k| (k, String::new()))
            .collect();
        vars.extend(self.env.vars().iter().cloned());
        vars
    }

    pub fn cwd(&self) -> PathBuf {
        self.env.work_dir().to_path_buf()
    }

    pub fn spec(&self, target: SessionTarget) -> OpenSpec {
        OpenSpec {
            binary: self.binary.clone(),
            target,
            env: self.vars(),
            permissions: Default::default(),
            trusted: None,
            model: None,
        }
    }

    /// Opens a runtime; see [`Live::open`].
    pub async fn try_open(&self, target: SessionTarget) -> Result<Live, HarnessError> {
        Live::open::<H>(self.spec(target)).await
    }

    pub async fn open(&self, target: SessionTarget) -> Live {
        let what = format!("{target:?}");
        self.try_open(target)
            .await
            .unwrap_or_else(|e| panic!("open {what}: {e:?}"))
    }

    pub async fn open_new(&self) -> Live {
        self.open(SessionTarget::New { cwd: self.cwd() }).await
    }

    /// Opens a runtime on what a fork returned: pending, or the session itself.
    pub async fn open_fork(&self, forked: &Forked) -> Live {
        let target = match &forked.pending {
            Some(pending) => SessionTarget::PendingFork(pending.clone()),
            None => SessionTarget::Resume(forked.session.clone()),
        };
        self.open(target).await
    }

    /// The harness's native fork, with this setup's binary and environment.
    pub async fn fork(
        &self,
        source: &NativeSession,
        anchors: &[TurnAnchor],
        cut: Cut,
    ) -> Result<Forked, HarnessError> {
        self.fork_with(&self.binary, source, anchors, cut, &self.vars())
            .await
    }

    /// The harness's native fork into another folder (`ForkRequest::cwd`).
    pub async fn fork_into(
        &self,
        source: &NativeSession,
        anchors: &[TurnAnchor],
        cut: Cut,
        dir: &Path,
    ) -> Result<Forked, HarnessError> {
        let env = self.vars();
        let request = ForkRequest {
            binary: &self.binary,
            source,
            anchors,
            cut,
            env: &env,
            cwd: Some(dir),
        };
        self.within(
            "fork into a folder",
            forkhost_harness::runtime::fork_with(request),
        )
        .await
    }

    pub async fn fork_with(
        &self,
        binary: &HarnessBinary,
        source: &NativeSession,
        anchors: &[TurnAnchor],
        cut: Cut,
        env: &[(String, String)],
    ) -> Result<Forked, HarnessError> {
        let fork = forkhost_harness::runtime::fork(binary, source, anchors, cut, env);
        self.within("fork", fork).await
    }

    /// A session with one turn per prompt (runtime closed) and its anchors.
    pub async fn session_with(&self, prompts: &[&str]) -> (NativeSession, Vec<TurnAnchor>) {
        let mut live = self.open_new().await;
        for prompt in prompts {
            live.turn(prompt).await;
        }
        let session = live.session();
        live.close().await;
        let anchors = anchors(&history_of(&session));
        (session, anchors)
    }

    /// The dialogue of the last model request (system entries left out).
    pub fn last_dialogue(&self) -> Vec<Msg> {
        self.fake
            .last_model_request()
            .expect("no model request")
            .dialogue()
    }

    /// Every native session file under the temp HOME, sorted.
    pub fn session_files(&self) -> Vec<PathBuf> {
        fn walk(dir: &Path, jsonl_only: bool, out: &mut Vec<PathBuf>) {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, jsonl_only, out);
                } else if !jsonl_only || path.extension().is_some_and(|e| e == "jsonl") {
                    out.push(path);
                }
            }
        }
        let mut out = Vec::new();
        walk(
            &self.env.home().join(H::SESSIONS_DIR),
            H::SESSION_FILES_ARE_JSONL,
            &mut out,
        );
        out.sort();
        out
    }
}

/// A live runtime and its event stream; remembers the session its `Session` events named.
pub struct Live {
    pub runtime: Runtime,
    pub rx: Events,
    session: Option<NativeSession>,
    timeout: Duration,
    /// The requests the harness waits on, with their replies, kept as the Host keeps them:
    /// forgotten when withdrawn, when their turn ends or the process does.
    pending: std::collections::HashMap<String, Reply>,
}

/// One turn as the runtime streamed it, up to and including its `TurnEnded`.
#[derive(Debug)]
pub struct TurnLog {
    pub events: Vec<RuntimeEvent>,
    pub turn_ref: Option<String>,
    pub checkpoint: Option<String>,
    pub outcome: TurnOutcome,
    pub text: String,
    /// The tokens and cost its `TurnEnded` reported.
    pub usage: Option<TurnUsage>,
}

impl TurnLog {
    fn of(events: Vec<RuntimeEvent>) -> TurnLog {
        let Some(RuntimeEvent::TurnEnded {
            native_turn_ref,
            native_checkpoint_ref,
            outcome,
            usage,
        }) = events.last().cloned()
        else {
            panic!("no TurnEnded: {events:?}");
        };
        let text = events
            .iter()
            .filter_map(|e| match e {
                RuntimeEvent::TextDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        TurnLog {
            events,
            turn_ref: native_turn_ref,
            checkpoint: native_checkpoint_ref,
            outcome,
            text,
            usage,
        }
    }

    /// The turn's refs as the reader's anchors hold them.
    pub fn anchor_refs(&self) -> (Option<String>, Option<String>) {
        (self.turn_ref.clone(), self.checkpoint.clone())
    }

    /// The refs of its `TurnStarted` events.
    pub fn started_refs(&self) -> Vec<Option<String>> {
        self.events
            .iter()
            .filter_map(|e| match e {
                RuntimeEvent::TurnStarted { native_turn_ref } => Some(native_turn_ref.clone()),
                _ => None,
            })
            .collect()
    }

    /// A completed turn, named by exactly one `TurnStarted`, with a turn ref and a checkpoint.
    pub fn expect_completed(&self) -> &Self {
        assert_eq!(self.outcome, TurnOutcome::Completed, "{:?}", self.events);
        assert!(
            self.turn_ref.is_some() && self.checkpoint.is_some(),
            "{self:?}"
        );
        assert_eq!(
            self.started_refs(),
            std::slice::from_ref(&self.turn_ref),
            "TurnStarted names the turn"
        );
        self
    }
}

impl Live {
    /// A runtime that already runs (a warm spare that became a fork's), with its events.
    pub async fn adopted<H: HarnessCase>(runtime: Runtime, rx: Events) -> Live {
        let mut live = Live {
            runtime,
            rx,
            session: None,
            timeout: H::TIMEOUT,
            pending: Default::default(),
        };
        if H::SESSION_AT_OPEN {
            let first = live.next().await;
            assert!(
                matches!(first, RuntimeEvent::Session { .. }),
                "the first event names the session: {first:?}"
            );
        }
        live
    }

    /// Sends `prompt` and waits for the harness to ask something (an approval or a
    /// question); returns the request and the events before it. A turn that ends unasked
    /// fails the test.
    pub async fn ask(&mut self, prompt: &str) -> (ApprovalRequest, Vec<RuntimeEvent>) {
        self.send(prompt).await.expect("send");
        let seen = self
            .until(|e| {
                matches!(
                    e,
                    RuntimeEvent::ApprovalRequested { .. } | RuntimeEvent::TurnEnded { .. }
                )
            })
            .await;
        let Some(RuntimeEvent::ApprovalRequested { request, .. }) = seen.last().cloned() else {
            panic!("the harness did not ask: {seen:?}");
        };
        (request, seen)
    }

    /// Starts the runtime. A harness that knows its session at once
    /// ([`HarnessCase::SESSION_AT_OPEN`]) names it in its first event.
    pub async fn open<H: HarnessCase>(spec: OpenSpec) -> Result<Live, HarnessError> {
        let (tx, rx) = unbounded_channel();
        let runtime = within(H::TIMEOUT, "open", Runtime::open(spec, tx)).await?;
        let mut live = Live {
            runtime,
            rx,
            session: None,
            timeout: H::TIMEOUT,
            pending: Default::default(),
        };
        if H::SESSION_AT_OPEN {
            let first = live.next().await;
            let RuntimeEvent::Session { session } = first else {
                panic!("the first event names the session: {first:?}");
            };
            assert_eq!(session.kind, H::KIND);
            assert!(session.path.as_ref().is_some_and(|p| p.is_absolute()));
        }
        Ok(live)
    }

    /// The session as the last `Session` event named it (Claude names it with the first turn).
    pub fn session(&self) -> NativeSession {
        self.session.clone().expect("no Session event yet")
    }

    pub fn path(&self) -> PathBuf {
        self.session().path.expect("the session has a file")
    }

    /// The harness process's id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.runtime.pid()
    }

    pub async fn send(&mut self, prompt: &str) -> Result<(), HarnessError> {
        within(self.timeout, "send", self.runtime.send(prompt)).await
    }

    pub async fn interrupt(&mut self) -> Result<(), HarnessError> {
        within(self.timeout, "interrupt", self.runtime.interrupt()).await
    }

    pub async fn next(&mut self) -> RuntimeEvent {
        let event = within(self.timeout, "the next runtime event", self.rx.recv())
            .await
            .expect("the event channel closed");
        match &event {
            RuntimeEvent::Session { session } => self.session = Some(session.clone()),
            RuntimeEvent::ApprovalRequested { request, reply } => {
                self.pending.insert(request.id.clone(), reply.clone());
            }
            RuntimeEvent::ApprovalWithdrawn { id } => {
                self.pending.remove(id);
            }
            RuntimeEvent::TurnEnded { .. } | RuntimeEvent::Exited { .. } => self.pending.clear(),
            _ => {}
        }
        event
    }

    /// Answers the pending request `id` through its reply, as the Host does; one that is not
    /// pending (answered, withdrawn, its turn over) is `InvalidInput`.
    pub async fn answer(
        &mut self,
        id: &str,
        decision: ApprovalDecision,
    ) -> Result<(), HarnessError> {
        self.reply(id, Answer::Decision(decision)).await
    }

    /// Answers the pending question `id` with one text per question, or dismisses it.
    pub async fn answer_question(
        &mut self,
        id: &str,
        answers: Option<Vec<String>>,
    ) -> Result<(), HarnessError> {
        self.reply(id, Answer::Questions(answers)).await
    }

    async fn reply(&mut self, id: &str, answer: Answer) -> Result<(), HarnessError> {
        let Some(reply) = self.pending.get(id).cloned() else {
            return Err(HarnessError::InvalidInput(format!(
                "no pending request {id:?}"
            )));
        };
        let sent = within(self.timeout, "an answer", reply.send(answer)).await;
        // A refused answer leaves the request pending, as it does in the Host.
        if !matches!(sent, Err(HarnessError::InvalidInput(_))) {
            self.pending.remove(id);
        }
        sent
    }

    /// Events up to and including the first one `stop` accepts.
    pub async fn until(&mut self, stop: impl Fn(&RuntimeEvent) -> bool) -> Vec<RuntimeEvent> {
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

    /// Events up to and including the first text delta of the running turn.
    pub async fn until_text(&mut self) -> Vec<RuntimeEvent> {
        self.until(|e| matches!(e, RuntimeEvent::TextDelta { .. }))
            .await
    }

    /// Events up to and including `Exited`.
    pub async fn until_exited(&mut self) -> Vec<RuntimeEvent> {
        self.until(|e| matches!(e, RuntimeEvent::Exited { .. }))
            .await
    }

    /// The running turn's events (after `before`) up to its `TurnEnded`.
    pub async fn finish_turn(&mut self, mut before: Vec<RuntimeEvent>) -> TurnLog {
        let rest = self
            .until(|e| match e {
                RuntimeEvent::Exited { error } => panic!("exited mid-turn: {error:?}"),
                e => matches!(e, RuntimeEvent::TurnEnded { .. }),
            })
            .await;
        before.extend(rest);
        TurnLog::of(before)
    }

    /// Sends `prompt` and waits for its turn, which must complete.
    pub async fn turn(&mut self, prompt: &str) -> TurnLog {
        self.send(prompt).await.expect("send");
        let log = self.finish_turn(Vec::new()).await;
        log.expect_completed();
        log
    }

    /// Closes the runtime: what it reported afterwards ends with a clean `Exited`, and its
    /// process is gone (reaped, no zombie).
    pub async fn close(self) -> Vec<RuntimeEvent> {
        let pid = self.pid();
        let Live {
            runtime,
            mut rx,
            timeout,
            ..
        } = self;
        within(timeout, "close", runtime.close())
            .await
            .expect("close");
        let mut rest = Vec::new();
        while let Ok(Some(event)) = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await {
            rest.push(event);
        }
        assert_eq!(
            rest.last(),
            Some(&RuntimeEvent::Exited { error: None }),
            "a requested close is a clean exit: {rest:?}"
        );
        let exits = rest
            .iter()
            .filter(|e| matches!(e, RuntimeEvent::Exited { .. }))
            .count();
        assert_eq!(exits, 1, "{rest:?}");
        if let Some(pid) = pid {
            assert!(!alive(pid), "{pid} survived close (zombie or orphan)");
        }
        rest
    }

    /// Closes the runtime and nothing more: for one that already failed.
    pub async fn close_quietly(self) {
        within(self.timeout, "close", self.runtime.close())
            .await
            .expect("close");
    }
}

/// Whether process `pid` exists (a zombie does). The real-CLI tests run on Unix.
#[cfg(unix)]
pub fn alive(pid: u32) -> bool {
    // SAFETY: signal 0 only checks whether the process exists.
    unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
}

#[cfg(not(unix))]
pub fn alive(pid: u32) -> bool {
    unimplemented!("alive({pid}): the real-CLI tests run on Unix")
}

/// The fake model's answer to `prompt` as turn `turn` (1-based).
pub fn reply(turn: usize, prompt: &str) -> String {
    format!("reply (turn {turn}) to: {prompt}")
}

/// The user/assistant exchange of `prompts`, as the model sees it when they were turns 1..n.
pub fn exchange<S: AsRef<str>>(prompts: &[S]) -> Vec<Msg> {
    exchange_from(0, prompts)
}

/// [`exchange`] for prompts that were turns `offset + 1..`.
pub fn exchange_from<S: AsRef<str>>(offset: usize, prompts: &[S]) -> Vec<Msg> {
    prompts
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            let p = p.as_ref();
            [Msg::user(p), Msg::assistant(reply(offset + i + 1, p))]
        })
        .collect()
}

pub fn history_of(session: &NativeSession) -> History {
    let path = session.path.as_ref().expect("the session has a file");
    read_history(session.kind, path).unwrap()
}

pub fn anchors(h: &History) -> Vec<TurnAnchor> {
    h.turns.iter().map(|t| t.anchor()).collect()
}

/// Each turn's (turn ref, checkpoint), as a `TurnEnded` names them.
pub fn refs(h: &History) -> Vec<(Option<String>, Option<String>)> {
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

/// The role and text of every message, turn by turn; `dialogue_only` keeps users and
/// assistants alone.
pub fn texts(h: &History, dialogue_only: bool) -> Vec<Vec<(Role, String)>> {
    h.turns
        .iter()
        .map(|t| {
            t.messages
                .iter()
                .filter(|m| !dialogue_only || matches!(m.role, Role::User | Role::Assistant))
                .map(|m| (m.role, m.text.clone()))
                .collect()
        })
        .collect()
}

pub fn sha256(path: &Path) -> String {
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

/// A file's hash and bytes, to prove it was not written.
pub struct Fingerprint {
    path: PathBuf,
    sha: String,
    bytes: Vec<u8>,
}

impl Fingerprint {
    pub fn of(path: &Path) -> Self {
        Fingerprint {
            path: path.to_owned(),
            sha: sha256(path),
            bytes: std::fs::read(path).unwrap(),
        }
    }

    pub fn assert_unchanged(&self, after: &str) {
        assert_eq!(
            sha256(&self.path),
            self.sha,
            "{} changed after {after}",
            self.path.display()
        );
        assert!(std::fs::read(&self.path).unwrap() == self.bytes);
    }
}

pub fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}
