//! Pi's live runtime and native fork, with the real `pi` CLI against the fake model, each test
//! in its own temporary HOME: the shared scenarios (`pi::…`, from `harness_common`) and what
//! only Pi needs.
//!
//! Needs `FORKHOST_PI_BIN` (from `scripts/install-harnesses.sh --print-env`); without it every
//! test prints "skipped: FORKHOST_PI_BIN not set" and passes
//! (fails, under `FORKHOST_REQUIRE_HARNESSES=1`). Every await on the CLI has a
//! timeout, so a hang fails the test instead of blocking it.

use crate::harness_common;

use std::time::Duration;

use forkhost_harness::{
    binary, open_reader, ApprovalDecision, ApprovalSubject, Cut, Forked, HarnessBinary,
    HarnessError, HarnessKind, NativeSession, TurnAnchor,
};
use forkhost_tests::fake_model::Msg;
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use harness_common::kit::{anchors, history_of, reply, within, Fingerprint, Setup};
use harness_common::{HarnessCase, Refusal};

/// A session file that is not there, in the work dir.
const MISSING_FILE: &str = "no-such-session.jsonl";

/// Pi: one RPC process per runtime, a session file per session, eager forks in a process of
/// their own (a fork before turn 1 is a fresh session, pending until its first prompt).
struct Pi;

impl HarnessCase for Pi {
    const HARNESS: Harness = Harness::Pi;
    const TIMEOUT: Duration = Duration::from_secs(120);
    const SESSIONS_DIR: &'static str = ".pi/agent/sessions";
    const SESSION_AT_OPEN: bool = true;
    const FORK_WHILE_SOURCE_OPEN: bool = true;
    const FORK_CASES: &'static [(&'static str, Cut, usize)] = &[
        ("after turn 1", Cut::After(0), 1),
        ("before turn 2", Cut::Before(1), 1),
        ("before turn 3", Cut::Before(2), 2),
        ("before turn 1", Cut::Before(0), 0),
        ("latest", Cut::After(2), 3),
    ];
    const FORK_OF_FORK_CASES: &'static [(&'static str, Cut, usize)] = &[
        ("fork of fork, latest", Cut::After(3), 4),
        ("fork of fork, before 2", Cut::Before(1), 1),
    ];
    const SHELL_TOOL: &'static str = "bash";
    const KILLED_SEND_SAYS: &'static str = "signal 9";
    const CLOSE_MID_TURN_ENDS_THE_TURN: bool = true;
    const TIMED_FORKS: &'static [(&'static str, Cut)] = &[
        ("after turn 1 (fork)", Cut::After(0)),
        ("latest (clone)", Cut::After(2)),
    ];

    /// The binary and its version, asked with the temporary HOME (never the real one).
    async fn binary(env: &HarnessEnv) -> HarnessBinary {
        let mut cmd = env.command().unwrap();
        cmd.arg("--version").kill_on_drop(true);
        let out = within(Self::TIMEOUT, "pi --version", cmd.output())
            .await
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        HarnessBinary {
            kind: HarnessKind::Pi,
            path: env.bin().unwrap().to_owned(),
            version: binary::parse_version(&text).expect("pi printed no version"),
        }
    }

    fn check_forked(
        name: &str,
        forked: &Forked,
        source: &NativeSession,
        anchors_of_source: &[TurnAnchor],
        kept: usize,
    ) {
        if kept == 0 {
            let pending = forked.pending.as_ref().expect("before turn 1 is pending");
            assert_eq!(pending.source, None);
            assert_eq!(forked.session.path, None);
            return;
        }
        assert_eq!(forked.pending, None, "{name}: a native pi fork is eager");
        let history = history_of(&forked.session);
        assert_eq!(
            history.forked_from.as_deref(),
            source.path.as_ref().unwrap().to_str()
        );
        assert_eq!(
            history.session_id.as_deref(),
            Some(forked.session.session_id.as_str())
        );
        // Pi copies the kept entries with their ids: the same coordinates.
        assert_eq!(anchors(&history), anchors_of_source[..kept], "{name}");
    }

    fn check_reply_after_interrupt(text: &str) {
        assert_eq!(text, reply(2, "after the interrupt"));
    }

    fn check_dialogue_after_interrupt(dialogue: &[Msg], slow: &str) {
        assert_eq!(dialogue.first(), Some(&Msg::user(slow)));
        assert_eq!(dialogue.last(), Some(&Msg::user("after the interrupt")));
    }

    fn unknown_sessions(s: &Setup<Self>, _source: &NativeSession) -> Vec<(NativeSession, bool)> {
        let missing = NativeSession {
            kind: HarnessKind::Pi,
            session_id: "01a228e5-0000-7000-8000-00000000dead".into(),
            path: Some(s.cwd().join(MISSING_FILE)),
            cwd: s.cwd(),
        };
        let by_id = NativeSession {
            path: None,
            ..missing.clone()
        };
        vec![(missing, true), (by_id, false)]
    }

    fn error_source() -> &'static [&'static str] {
        &["one", "two"]
    }

    fn refusals(anchors: &[TurnAnchor]) -> Vec<Refusal> {
        let mut unknown_turn = anchors.to_vec();
        unknown_turn[1].native_turn_ref = "deadbeef".into();
        let mut unknown_checkpoint = anchors.to_vec();
        unknown_checkpoint[1].native_checkpoint_ref = Some("deadbeef".into());
        // A checkpoint that exists but is not where the turn ends: Pi's fork would go on past it.
        let mut wrong_checkpoint = anchors.to_vec();
        wrong_checkpoint[0].native_checkpoint_ref = Some(anchors[0].native_turn_ref.clone());
        vec![
            Refusal::checkpoint("an unknown turn", unknown_turn, Cut::After(0)),
            Refusal::checkpoint("an unknown checkpoint", unknown_checkpoint, Cut::After(1)),
            Refusal::checkpoint("a checkpoint mid-turn", wrong_checkpoint, Cut::After(0)),
            Refusal::turn("out of range", anchors, Cut::After(2)),
            Refusal::turn("out of range", anchors, Cut::Before(5)),
        ]
    }

    async fn more_errors(s: &Setup<Self>, _source: &NativeSession, _anchors: &[TurnAnchor]) {
        assert!(
            !s.cwd().join(MISSING_FILE).exists(),
            "never a silent new session"
        );
    }
}

harness_common::harness_suite!(pi: Pi, tokio::test);

/// `latest` from anchors read before another prompt arrived still cuts after that turn: the
/// fork checks the source's leaf and forks before the new prompt instead of cloning it.
#[tokio::test]
async fn latest_from_stale_anchors_still_cuts_at_the_turn() {
    let Some(s) = Setup::<Pi>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    for prompt in ["one", "two"] {
        live.turn(prompt).await;
    }
    let source = live.session();
    let reader = open_reader(HarnessKind::Pi, source.path.as_ref().unwrap()).unwrap();
    let stale = reader.anchors().to_vec();
    live.turn("three").await;
    live.close().await;
    let print = Fingerprint::of(source.path.as_ref().unwrap());
    let forked = s.fork(&source, &stale, Cut::After(1)).await.unwrap();
    assert_eq!(anchors(&history_of(&forked.session)), stale);
    print.assert_unchanged("the fork");
}

// --- Extension dialogs: Pi never asks, but its extensions may (`ctx.ui.select` and the
// like, answered over RPC). The permission gate below is the shape of Pi's own
// `examples/extensions/permission-gate.ts`: it asks before every bash call.

/// A global extension (in the test's temporary agent dir) asking before each bash command.
const GATE: &str = r#"export default function (pi) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash") return undefined;
    const choice = await ctx.ui.select(`Run ${event.input.command}?`, ["Yes", "No"]);
    if (choice !== "Yes") return { block: true, reason: "Blocked by the user" };
    return undefined;
  });
}
"#;

async fn gated() -> Option<Setup<Pi>> {
    let s = Setup::<Pi>::start().await?;
    let extensions = s.env.home().join(".pi/agent/extensions");
    std::fs::create_dir_all(&extensions).unwrap();
    std::fs::write(extensions.join("gate.ts"), GATE).unwrap();
    Some(s)
}

/// The extension's select is a question; "Yes" lets the command run and the model sees its
/// result; approving it as if it were a permission is refused.
#[tokio::test]
async fn pi_extension_dialog_is_a_question_answered_by_the_user() {
    let Some(s) = gated().await else {
        return;
    };
    let mut live = s.open_new().await;
    let (request, before) = live.ask("RUN_COMMAND `touch gated.txt`").await;
    let ApprovalSubject::Question { questions } = &request.subject else {
        panic!("not a question: {:?}", request.subject)
    };
    assert_eq!(questions[0].prompt, "Run touch gated.txt?");
    assert_eq!(questions[0].options, ["Yes", "No"]);
    assert!(!s.cwd().join("gated.txt").exists(), "nothing runs unasked");
    let approve = live.answer(&request.id, ApprovalDecision::Approve).await;
    assert!(
        matches!(approve, Err(HarnessError::InvalidInput(_))),
        "{approve:?}"
    );
    s.within(
        "answer",
        live.answer_question(&request.id, Some(vec!["Yes".into()])),
    )
    .await
    .expect("answer");
    let log = live.finish_turn(before).await;
    log.expect_completed();
    assert!(s.cwd().join("gated.txt").is_file());
    live.close().await;
}

/// Dismissing the dialog: the extension blocks the command, and the model is told.
#[tokio::test]
async fn pi_dismissed_extension_dialog_blocks_the_call() {
    let Some(s) = gated().await else {
        return;
    };
    let mut live = s.open_new().await;
    let (request, before) = live.ask("RUN_COMMAND `touch gated.txt`").await;
    s.within("dismiss", live.answer_question(&request.id, None))
        .await
        .expect("dismiss");
    let log = live.finish_turn(before).await;
    log.expect_completed();
    assert!(!s.cwd().join("gated.txt").exists());
    let dialogue = s.last_dialogue();
    assert!(
        dialogue
            .iter()
            .any(|m| m.text.contains("Blocked by the user")),
        "the model was told: {dialogue:?}"
    );
    live.close().await;
}
