//! Codex's live runtime (`codex app-server`) and native fork (`thread/fork`), with the real
//! CLI against the fake model in a temporary HOME: the shared scenarios (`codex::…`, from
//! `harness_common`) and what only Codex needs.
//!
//! Needs `FORKHOST_CODEX_BIN` (from `scripts/install-harnesses.sh --print-env`); without it
//! every test prints "skipped: FORKHOST_CODEX_BIN not set" and passes
//! (fails, under `FORKHOST_REQUIRE_HARNESSES=1`). Every wait on the CLI
//! has a timeout, so a hang fails instead of blocking.

mod harness_common;

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
                "probe_of_a_missing_binary_in_a_child",
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
