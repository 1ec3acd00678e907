//! Codex's live runtime (`codex app-server`) and native fork (`thread/fork`), with the real
//! CLI against the fake model in a temporary HOME: the shared scenarios (`codex::…`, from
//! `harness_common`) and what only Codex needs.
//!
//! Needs `FORKHOST_CODEX_BIN` (from `scripts/install-harnesses.sh --print-env`); without it
//! every test prints "skipped: FORKHOST_CODEX_BIN not set" and passes
//! (fails, under `FORKHOST_REQUIRE_HARNESSES=1`). Every wait on the CLI
//! has a timeout, so a hang fails instead of blocking.

use crate::harness_common;

use std::time::Duration;

use forkhost_harness::{binary, Cut, Forked, HarnessError, HarnessKind, NativeSession, TurnAnchor};
use forkhost_tests::harness_env::Harness;
use harness_common::kit::{anchors, history_of, Setup};
use harness_common::{HarnessCase, Refusal};
use serde_json::Value;

/// A thread id no Codex has.
const UNKNOWN_ID: &str = "019a0000-0000-7000-8000-000000000000";

/// Codex: an app-server per runtime, a rollout file per thread, eager forks (`thread/fork`
/// writes the fork's rollout), and a rollout read back once the runtime has closed.
struct Codex;

impl HarnessCase for Codex {
    const HARNESS: Harness = Harness::Codex;
    const TIMEOUT: Duration = Duration::from_secs(90);
    const SESSIONS_DIR: &'static str = ".codex/sessions";
    const SESSION_FILES_ARE_JSONL: bool = false;
    const SESSION_FOLDER_PER_CWD: bool = false;
    const SESSION_AT_OPEN: bool = true;
    const SETTLED_BEFORE_CLOSE: bool = false;
    const SHELL_TOOL: &'static str = "shell";
    // The rollout keeps the model's own name for the call (`exec_command`, …, by version).
    const READER_NAMES_THE_SHELL_TOOL: bool = false;
    const TOOL_REPLY_EXACT: bool = false;
    const OLD_VERSION: Option<&'static str> = Some("0.100.0");
    const KILLED_TURN_ENDS_FAILED: bool = false;
    const KILLED_SEND_SAYS: &'static str = "exited unexpectedly";
    const CLOSE_MID_TURN_LEAVES_A_FORKABLE_TURN: bool = true;
    const TIMED_FORKS: &'static [(&'static str, Cut)] = &[
        ("after turn 2", Cut::After(1)),
        ("before turn 2", Cut::Before(1)),
    ];

    fn check_forked(
        name: &str,
        forked: &Forked,
        source: &NativeSession,
        anchors_of_source: &[TurnAnchor],
        kept: usize,
    ) {
        assert!(forked.pending.is_none(), "codex forks are eager");
        assert_ne!(forked.session.path, source.path, "{name}");
        let read_back = history_of(&forked.session);
        assert_eq!(
            read_back.forked_from.as_deref(),
            Some(source.session_id.as_str())
        );
        assert_eq!(
            anchors(&read_back),
            anchors_of_source[..kept],
            "{name}: the fork holds the kept turns"
        );
    }

    fn check_tool_input(input: &Value) {
        assert!(input.to_string().contains("echo tool-ok"), "{input}");
    }

    fn check_reply_after_interrupt(text: &str) {
        assert!(
            text.starts_with("reply (turn 2) to: after the interrupt"),
            "{text}"
        );
    }

    fn unknown_sessions(s: &Setup<Self>, _source: &NativeSession) -> Vec<(NativeSession, bool)> {
        // Refused before spawning (a missing rollout) and by the server (no rollout given).
        let missing = s
            .env
            .home()
            .join(Self::SESSIONS_DIR)
            .join("rollout-missing.jsonl");
        [Some(missing), None]
            .into_iter()
            .map(|path| {
                let ghost = NativeSession {
                    kind: HarnessKind::Codex,
                    session_id: UNKNOWN_ID.into(),
                    path,
                    cwd: s.cwd(),
                };
                (ghost, true)
            })
            .collect()
    }

    fn error_source() -> &'static [&'static str] {
        &["only turn"]
    }

    fn refusals(anchors: &[TurnAnchor]) -> Vec<Refusal> {
        let bogus = vec![TurnAnchor {
            native_turn_ref: UNKNOWN_ID.into(),
            native_checkpoint_ref: Some(UNKNOWN_ID.into()),
            complete: true,
        }];
        let mut running = anchors.to_vec();
        running[0].complete = false;
        vec![
            Refusal::checkpoint("an unknown checkpoint", bogus.clone(), Cut::After(0)),
            Refusal::checkpoint("an unknown checkpoint", bogus, Cut::Before(0)),
            Refusal::turn("out of range", anchors, Cut::After(1)),
            Refusal::checkpoint("a running turn", running, Cut::After(0)),
        ]
    }

    async fn more_errors(_s: &Setup<Self>, _source: &NativeSession, _anchors: &[TurnAnchor]) {
        // `probe` of a binary that does not exist, in a child (the variable is process-wide).
        let exe = std::env::current_exe().unwrap();
        let probe = std::process::Command::new(exe)
            .args([
                "--exact",
                &forkhost_tests::test_name(module_path!(), "probe_of_a_missing_binary_in_a_child"),
                "--nocapture",
            ])
            .env("FORKHOST_CODEX_BIN", "/nonexistent/forkhost/codex")
            .env("FORKHOST_CODEX_PROBE_CHILD", "1")
            .output()
            .unwrap();
        assert!(
            String::from_utf8_lossy(&probe.stdout).contains("probe: HarnessNotFound"),
            "{}",
            String::from_utf8_lossy(&probe.stdout)
        );
    }
}

harness_common::harness_suite!(
    codex: Codex,
    tokio::test(flavor = "multi_thread", worker_threads = 2)
);

/// Run by `codex::errors_are_typed_and_leave_nothing_behind` in a child process with
/// `FORKHOST_CODEX_BIN` pointing nowhere (the variable is process-wide, so it is not changed
/// in this process).
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

/// Approval requests against the real CLI: the fake model's shell call writes a file, the
/// thread runs with an approval policy that makes Codex ask, and each decision is checked by
/// what happened to the file and what the model was told next.
mod codex_approvals {
    use std::path::PathBuf;

    use forkhost_harness::{
        ApprovalDecision, ApprovalRequest, ApprovalSubject, HarnessError, OpenSpec, PermissionMode,
        RuntimeEvent, SessionTarget, TurnOutcome,
    };
    use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
    use forkhost_tests::harness_env::HarnessEnv;

    use super::harness_common::kit::{Live, TurnLog};
    use super::harness_common::HarnessCase;
    use super::Codex;

    /// What the scripted shell call writes, relative to the thread's working directory.
    const FILE: &str = "approved.txt";

    struct Asking {
        fake: FakeModel,
        env: HarnessEnv,
        binary: forkhost_harness::HarnessBinary,
    }

    impl Asking {
        /// `None` when `FORKHOST_CODEX_BIN` is unset (the test skips and says so).
        async fn start() -> Option<Asking> {
            Asking::running(&format!("echo approved-run | tee {FILE}")).await
        }

        /// A fake model whose `CALL_TOOL` shell call runs `command`.
        async fn running(command: &str) -> Option<Asking> {
            let opts = FakeModelOptions {
                tool_command: command.to_owned(),
                ..FakeModelOptions::default()
            };
            let fake = FakeModel::start(opts).await.unwrap();
            let env = HarnessEnv::for_fake(Codex::HARNESS, &fake).unwrap()?;
            let binary = Codex::binary(&env).await;
            Some(Asking { fake, env, binary })
        }

        fn file(&self) -> PathBuf {
            self.env.work_dir().join(FILE)
        }

        fn spec(&self, mode: &str, sandbox: &str) -> OpenSpec {
            let mut env: Vec<(String, String)> = self
                .env
                .scrubbed_vars()
                .into_iter()
                .map(|k| (k, String::new()))
                .collect();
            env.extend(self.env.vars().iter().cloned());
            OpenSpec {
                binary: self.binary.clone(),
                target: SessionTarget::New {
                    cwd: self.env.work_dir().to_path_buf(),
                },
                env,
                permissions: PermissionMode {
                    mode: Some(mode.into()),
                    sandbox: Some(sandbox.into()),
                },
                trusted: None,
                model: None,
            }
        }

        /// A runtime under `untrusted` (which asks for every shell call) and
        /// `danger-full-access` (the sandbox cannot start here), asked once: the runtime, the
        /// turn's events so far and the request.
        async fn asked(&self) -> (Live, Vec<RuntimeEvent>, ApprovalRequest) {
            let mut live = self.open("untrusted", "danger-full-access").await;
            let (before, request) = ask(&mut live, "CALL_TOOL please").await;
            (live, before, request)
        }

        async fn open(&self, mode: &str, sandbox: &str) -> Live {
            Live::open::<Codex>(self.spec(mode, sandbox))
                .await
                .unwrap_or_else(|e| panic!("open {mode}/{sandbox}: {e:?}"))
        }

        /// The tool result the model's last request carried, whitespace-joined.
        fn last_tool_result(&self) -> String {
            let last = self.fake.last_model_request().expect("a model request");
            let dialogue = last.dialogue();
            let result = dialogue
                .iter()
                .rev()
                .find(|m| m.role == forkhost_tests::fake_model::Role::Tool)
                .unwrap_or_else(|| panic!("no tool result in {dialogue:?}"));
            result.text.clone()
        }
    }

    /// Answers a pending request; the runtime must take it.
    async fn answer(live: &mut Live, id: &str, decision: ApprovalDecision) {
        live.answer(id, decision).await.unwrap();
    }

    /// Sends a prompt that makes the model call the shell tool, and returns the request Codex
    /// raised (with the turn's events up to and including it).
    async fn ask(live: &mut Live, prompt: &str) -> (Vec<RuntimeEvent>, ApprovalRequest) {
        let (request, seen) = live.ask(prompt).await;
        (seen, request)
    }

    fn check_command(request: &ApprovalRequest, cwd: &std::path::Path) {
        let ApprovalSubject::Command { command, cwd: at } = &request.subject else {
            panic!("not a command: {request:?}");
        };
        assert!(command.contains(FILE), "{command}");
        assert_eq!(at.as_deref(), Some(cwd), "{request:?}");
        assert!(request.tool_call_id.is_some(), "{request:?}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn approve_runs_the_command_and_the_model_sees_its_output() {
        let Some(s) = Asking::start().await else {
            return;
        };
        let (mut live, before, request) = s.asked().await;
        check_command(&request, s.env.work_dir());
        assert!(!s.file().exists(), "nothing runs before the answer");
        assert!(
            before
                .iter()
                .any(|e| matches!(e, RuntimeEvent::ToolCall { .. })),
            "{before:?}"
        );
        let unknown = live.answer("no-such-request", ApprovalDecision::Approve);
        assert!(matches!(unknown.await, Err(HarnessError::InvalidInput(_))));
        answer(&mut live, &request.id, ApprovalDecision::Approve).await;
        let again = live.answer(&request.id, ApprovalDecision::Approve);
        assert!(matches!(again.await, Err(HarnessError::InvalidInput(_))));
        let log = live.finish_turn(before).await;
        log.expect_completed();
        assert_eq!(requests(&log), 1, "{:?}", log.events);
        assert_eq!(
            std::fs::read_to_string(s.file()).unwrap().trim(),
            "approved-run"
        );
        let result = s.last_tool_result();
        assert!(
            result.contains("exited with code 0") && result.contains("approved-run"),
            "{result}"
        );
        live.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn decline_leaves_no_file_and_the_model_is_told() {
        let Some(s) = Asking::start().await else {
            return;
        };
        let (mut live, before, request) = s.asked().await;
        answer(&mut live, &request.id, ApprovalDecision::Decline).await;
        let log = live.finish_turn(before).await;
        log.expect_completed();
        assert!(!s.file().exists());
        let result = s.last_tool_result();
        assert!(result.contains("rejected by user"), "{result}");
        assert!(log.text.contains("rejected by user"), "{}", log.text);
        live.close().await;
    }

    /// The request lists its `availableDecisions`; 0.171.0 lists no `acceptForSession` for a
    /// shell command, so "for the session" is refused before it reaches Codex (Codex would
    /// take it, but the user would approve what Codex did not offer), the request stays
    /// pending, and approving once runs it. The next identical command is asked again.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn approve_for_session_only_where_codex_offers_it() {
        let Some(s) = Asking::start().await else {
            return;
        };
        let mut live = s.open("untrusted", "danger-full-access").await;
        let (before, request) = ask(&mut live, "CALL_TOOL first").await;
        assert!(!request.can_approve_for_session(), "{request:?}");
        let refused = live
            .answer(&request.id, ApprovalDecision::ApproveForSession)
            .await;
        assert!(
            matches!(
                refused,
                Err(forkhost_harness::HarnessError::InvalidInput(_))
            ),
            "{refused:?}"
        );
        assert!(!s.file().exists());
        answer(&mut live, &request.id, ApprovalDecision::Approve).await;
        live.finish_turn(before).await.expect_completed();
        assert!(s.file().exists());
        std::fs::remove_file(s.file()).unwrap();
        let (before, request) = ask(&mut live, "CALL_TOOL second").await;
        check_command(&request, s.env.work_dir());
        answer(&mut live, &request.id, ApprovalDecision::Decline).await;
        live.finish_turn(before).await.expect_completed();
        assert!(!s.file().exists());
        live.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn decline_and_stop_ends_the_turn_interrupted() {
        let Some(s) = Asking::start().await else {
            return;
        };
        let (mut live, before, request) = s.asked().await;
        answer(&mut live, &request.id, ApprovalDecision::DeclineAndStop).await;
        let log = live.finish_turn(before).await;
        assert_eq!(log.outcome, TurnOutcome::Interrupted, "{:?}", log.events);
        assert!(!s.file().exists());
        assert_eq!(
            s.fake.model_requests().len(),
            1,
            "the model is not asked again"
        );
        // The thread goes on.
        live.turn("after the stop").await;
        live.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn interrupting_withdraws_the_pending_request() {
        let Some(s) = Asking::start().await else {
            return;
        };
        let mut live = s.open("untrusted", "danger-full-access").await;
        let (_, request) = ask(&mut live, "CALL_TOOL please").await;
        live.interrupt().await.unwrap();
        // The turn ends interrupted; its request waits for nothing any more (the server
        // resolves it, or the Host forgets it with the turn), so a late answer is refused.
        let ended = live
            .until(|e| matches!(e, RuntimeEvent::TurnEnded { .. }))
            .await;
        assert!(
            matches!(
                ended.last(),
                Some(RuntimeEvent::TurnEnded {
                    outcome: TurnOutcome::Interrupted,
                    ..
                })
            ),
            "{ended:?}"
        );
        let late = live.answer(&request.id, ApprovalDecision::Approve);
        assert!(matches!(late.await, Err(HarnessError::InvalidInput(_))));
        assert!(!s.file().exists());
        live.close().await;
    }

    #[cfg(unix)]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_crash_withdraws_the_pending_request() {
        let Some(s) = Asking::start().await else {
            return;
        };
        let mut live = s.open("untrusted", "danger-full-access").await;
        let (asked, _) = ask(&mut live, "CALL_TOOL please").await;
        let Some(RuntimeEvent::ApprovalRequested { reply, .. }) = asked.last().cloned() else {
            panic!("no request: {asked:?}");
        };
        let pid = live.pid().expect("a pid");
        // SAFETY: kill only sends a signal to the CLI this test started.
        assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
        let events = live.until_exited().await;
        assert!(
            matches!(events.last(), Some(RuntimeEvent::Exited { error: Some(_) })),
            "{events:?}"
        );
        // The request's own reply can no longer reach a server: the answer fails in words,
        // and nothing was approved.
        let late = reply
            .send(forkhost_harness::Answer::Decision(
                ApprovalDecision::Approve,
            ))
            .await;
        assert!(
            matches!(late, Err(HarnessError::HarnessFailed { .. })),
            "{late:?}"
        );
        assert!(!s.file().exists());
        live.close_quietly().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn never_with_full_access_runs_unasked() {
        let Some(s) = Asking::start().await else {
            return;
        };
        let mut live = s.open("never", "danger-full-access").await;
        let log = live.turn("CALL_TOOL please").await;
        assert_no_request(&log);
        assert!(s.file().exists());
        live.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_resumed_thread_takes_the_policy_it_is_opened_with() {
        let Some(s) = Asking::start().await else {
            return;
        };
        let mut live = s.open("never", "danger-full-access").await;
        live.turn("CALL_TOOL unasked").await;
        let session = live.session();
        live.close().await;
        std::fs::remove_file(s.file()).unwrap();
        let mut spec = s.spec("untrusted", "danger-full-access");
        spec.target = SessionTarget::Resume(session);
        let mut live = Live::open::<Codex>(spec).await.unwrap();
        let (before, request) = ask(&mut live, "CALL_TOOL asked").await;
        check_command(&request, s.env.work_dir());
        answer(&mut live, &request.id, ApprovalDecision::Decline).await;
        live.finish_turn(before).await.expect_completed();
        assert!(!s.file().exists());
        live.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn never_with_read_only_does_not_ask() {
        let Some(s) = Asking::start().await else {
            return;
        };
        let mut live = s.open("never", "read-only").await;
        let log = live.turn("CALL_TOOL please").await;
        assert_no_request(&log);
        // The write is refused unasked. (On this machine the sandbox cannot even start: see
        // "Codex: approval requests and sandbox" in docs/harness-behaviour.md.)
        assert!(!s.file().exists());
        let result = s.last_tool_result();
        assert!(!result.contains("exited with code 0"), "{result}");
        live.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_patch_asks_with_its_file_and_diff() {
        let patch = format!(
            "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: {FILE}\n+patched\n*** End Patch\nEOF"
        );
        let Some(s) = Asking::running(&patch).await else {
            return;
        };
        let (mut live, before, request) = s.asked().await;
        // Codex turns a shell `apply_patch` into a fileChange item; the request names only the
        // item, the path and diff come from its `item/started`.
        let path = s.file().to_string_lossy().into_owned();
        assert_eq!(
            request.subject,
            ApprovalSubject::FileChange {
                paths: vec![path],
                diff: Some("patched\n".into())
            }
        );
        assert!(!s.file().exists(), "nothing is written before the answer");
        answer(&mut live, &request.id, ApprovalDecision::Approve).await;
        live.finish_turn(before).await.expect_completed();
        assert_eq!(std::fs::read_to_string(s.file()).unwrap(), "patched\n");
        let result = s.last_tool_result();
        assert!(result.contains("Updated the following files"), "{result}");
        live.close().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn words_codex_does_not_take_are_refused_before_spawning() {
        let Some(s) = Asking::start().await else {
            return;
        };
        for (mode, sandbox) in [("on-failure", "read-only"), ("never", "workspaceWrite")] {
            let opened = Live::open::<Codex>(s.spec(mode, sandbox)).await;
            assert!(
                matches!(opened, Err(HarnessError::InvalidInput(_))),
                "{mode}/{sandbox}"
            );
        }
    }

    fn requests(log: &TurnLog) -> usize {
        log.events
            .iter()
            .filter(|e| matches!(e, RuntimeEvent::ApprovalRequested { .. }))
            .count()
    }

    fn assert_no_request(log: &TurnLog) {
        assert_eq!(requests(log), 0, "{:?}", log.events);
    }
}
