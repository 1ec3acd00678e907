//! Claude Code's live runtime and native fork, with the real CLI against the fake model, each
//! test in its own temporary HOME: the shared scenarios (`claude::…`, from
//! `harness_common`) and the tests only Claude needs.
//!
//! Needs `FORKHOST_CLAUDE_BIN` (`eval "$(bash scripts/install-harnesses.sh --print-env)"`); a
//! test prints "skipped: FORKHOST_CLAUDE_BIN not set" and passes when it is unset
//! (fails, under `FORKHOST_REQUIRE_HARNESSES=1`). Every await
//! on the CLI has a timeout, so a hang fails the test instead of blocking it.

use crate::harness_common;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use forkhost_harness::{
    ApprovalDecision, ApprovalRequest, ApprovalSubject, Cut, Forked, HarnessError, NativeSession,
    PendingFork, PermissionMode, RuntimeEvent, SessionTarget, TurnAnchor, TurnOutcome,
};
use forkhost_tests::fake_model::script::{ASK_OPTIONS, WRITTEN};
use forkhost_tests::fake_model::{Msg, Role};
use forkhost_tests::harness_env::Harness;
use harness_common::kit::{exchange, median, within, Fingerprint, Live, Setup, TurnLog};
use harness_common::{checkpoint_not_found, HarnessCase, Refusal};

/// Claude Code: it names its session with the first turn and writes nothing before it, and
/// forks lazily (the fork call checks the source; the first prompt makes the fork).
struct Claude;

impl HarnessCase for Claude {
    const HARNESS: Harness = Harness::Claude;
    const TIMEOUT: Duration = Duration::from_secs(60);
    const SESSIONS_DIR: &'static str = ".claude/projects";
    const PRICES_A_TURN: bool = true;
    const SESSION_AT_OPEN: bool = false;
    const PLAIN_TURN_IS_DIALOGUE_ONLY: bool = true;
    const FORK_RUNS_THE_CLI: bool = false;
    const SHELL_TOOL: &'static str = "Bash";
    const TOOL_OUTPUT_EXACT: bool = true;
    const TOOL_TURN_IS_USER_TOOL_ASSISTANT: bool = true;
    const OLD_VERSION: Option<&'static str> = Some("2.0.0");
    const KILLED_EXIT_SAYS: &'static str = "signal";
    const KILLED_SEND_SAYS: &'static str = "signal";
    const TIMED_FORKS: &'static [(&'static str, Cut)] = &[("after turn 2", Cut::After(1))];
    const TIMED_RUNS: usize = 7;

    fn check_new_session(session: &NativeSession, files_before_first_prompt: &[PathBuf]) {
        assert_eq!(
            files_before_first_prompt,
            [] as [PathBuf; 0],
            "the CLI writes nothing before the first prompt"
        );
        let path = session.path.clone().unwrap();
        assert!(path.is_file(), "{}", path.display());
        assert_eq!(
            path.file_stem().unwrap().to_str(),
            Some(session.session_id.as_str())
        );
    }

    fn check_forked(
        name: &str,
        forked: &Forked,
        _source: &NativeSession,
        _anchors: &[TurnAnchor],
        kept: usize,
    ) {
        let pending = forked.pending.clone().expect("claude forks are pending");
        assert_eq!(pending.session, forked.session, "{name}");
        assert_eq!(pending.source.is_none(), kept == 0, "{name}");
        let fork_path = forked.session.path.clone().unwrap();
        assert!(!fork_path.exists(), "{name}: lazy, nothing written yet");
    }

    fn check_fork_turn(forked: &Forked, _live: &Live, log: &TurnLog, _kept: usize) {
        assert!(
            log.events.contains(&RuntimeEvent::Session {
                session: forked.session.clone()
            }),
            "the fork materialized as announced"
        );
    }

    fn check_reply_after_interrupt(text: &str) {
        assert!(text.starts_with("reply (turn 2) to: "), "{text}");
    }

    fn unknown_sessions(_s: &Setup<Self>, source: &NativeSession) -> Vec<(NativeSession, bool)> {
        let unknown = NativeSession {
            session_id: uuid::Uuid::new_v4().to_string(),
            path: None,
            ..source.clone()
        };
        vec![(unknown, true)]
    }

    fn error_source() -> &'static [&'static str] {
        &["one", "two", "three"]
    }

    fn refusals(anchors: &[TurnAnchor]) -> Vec<Refusal> {
        let mut bogus = anchors.to_vec();
        bogus[0].native_checkpoint_ref = Some(uuid::Uuid::new_v4().to_string());
        let mut running = anchors.to_vec();
        running[2].complete = false;
        vec![
            Refusal::turn("out of range", anchors, Cut::After(3)),
            Refusal::turn("out of range", anchors, Cut::Before(3)),
            Refusal::checkpoint("a checkpoint not in the source", bogus, Cut::After(0)),
            Refusal::checkpoint("a running turn", running, Cut::After(2)),
        ]
    }

    async fn more_errors(s: &Setup<Self>, source: &NativeSession, _anchors: &[TurnAnchor]) {
        let source_path = source.path.clone().unwrap();

        // A transcript the CLI does not know under that id: the CLI says so, and send answers it.
        let unknown_id = uuid::Uuid::new_v4().to_string();
        let elsewhere = s.env.root().join("elsewhere");
        std::fs::create_dir_all(&elsewhere).unwrap();
        let stray = elsewhere.join(format!("{unknown_id}.jsonl"));
        std::fs::copy(&source_path, &stray).unwrap();
        let mut live = s
            .open(SessionTarget::Resume(NativeSession {
                session_id: unknown_id,
                path: Some(stray),
                ..source.clone()
            }))
            .await;
        let err = live.send("hello?").await.unwrap_err();
        assert!(
            matches!(err, forkhost_harness::HarnessError::SessionNotFound(_)),
            "{err:?}"
        );
        live.close_quietly().await;

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
        let mut live = s.open(SessionTarget::PendingFork(pending)).await;
        let err = live.send("fork here").await.unwrap_err();
        assert!(checkpoint_not_found(&err), "{err:?}");
        live.close_quietly().await;
    }
}

harness_common::harness_suite!(claude: Claude, tokio::test);

/// A runtime opened as soon as the fork exists has the CLI started (and the source loaded)
/// by the time the first prompt comes: then the prompt costs one warm turn.
#[tokio::test]
async fn a_pending_fork_opened_early_answers_warm() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    let prompts = ["alpha question", "beta question", "gamma question"];
    let (source, source_anchors) = s.session_with(&prompts).await;
    let print = Fingerprint::of(source.path.as_ref().unwrap());
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
    print.assert_unchanged("the warm forks");
}

/// A cwd past the CLI's 200-character folder-name limit, with non-ASCII characters: the
/// runtime predicts the transcript's path exactly.
#[tokio::test]
async fn a_long_cwd_maps_to_the_clis_folder() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
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
    assert_eq!(s.session_files(), [path]);
    // Resume by id works from that cwd too.
    live.close().await;
    let mut live = s.open(SessionTarget::Resume(session)).await;
    live.turn("still here").await;
    live.close().await;
}

// --- Tool approvals over stdio ("Claude Code: tool approvals over stdio" in
// docs/harness-behaviour.md). `CALL_TOOL`'s `echo` is read-only, which Claude runs unasked; a
// scripted `touch` (or `Write`) in the session's cwd is what it asks about.

/// A command that writes a file in the cwd, and that prompt.
const TOUCH: &str = "touch approved.txt";
const ASK_TOUCH: &str = "RUN_COMMAND `touch approved.txt`";

/// Sends `prompt` and waits for the CLI's question; returns it and the events before it.
async fn asked(live: &mut Live, prompt: &str) -> (ApprovalRequest, Vec<RuntimeEvent>) {
    live.ask(prompt).await
}

async fn answer(live: &mut Live, id: &str, decision: ApprovalDecision) {
    within(Claude::TIMEOUT, "answer", live.answer(id, decision))
        .await
        .unwrap_or_else(|e| panic!("answer {decision:?}: {e:?}"));
}

fn tool_results(log: &TurnLog) -> Vec<(String, bool)> {
    log.events
        .iter()
        .filter_map(|e| match e {
            RuntimeEvent::ToolResult {
                output, is_error, ..
            } => Some((output.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

fn asked_in(log: &TurnLog) -> usize {
    log.events
        .iter()
        .filter(|e| matches!(e, RuntimeEvent::ApprovalRequested { .. }))
        .count()
}

/// Approve: the command runs in the session's cwd, and the model's next request carries its
/// result. The request names the command, its cwd and the tool call it is about.
#[tokio::test]
async fn claude_approve_runs_the_call() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let (request, before) = asked(&mut live, ASK_TOUCH).await;
    assert_eq!(
        request.subject,
        ApprovalSubject::Command {
            command: TOUCH.into(),
            cwd: Some(s.cwd())
        }
    );
    let call_id = before.iter().find_map(|e| match e {
        RuntimeEvent::ToolCall { id, .. } => id.clone(),
        _ => None,
    });
    assert!(call_id.is_some());
    assert_eq!(request.tool_call_id, call_id, "{before:?}");
    assert!(request.can_approve_for_session());
    assert!(
        !s.cwd().join("approved.txt").exists(),
        "nothing runs unasked"
    );
    answer(&mut live, &request.id, ApprovalDecision::Approve).await;
    let log = live.finish_turn(before).await;
    log.expect_completed();
    assert!(s.cwd().join("approved.txt").is_file());
    let results = tool_results(&log);
    assert!(matches!(results.as_slice(), [(_, false)]), "{results:?}");
    let dialogue = s.last_dialogue();
    assert!(
        dialogue.iter().any(|m| m.role == Role::Tool),
        "the model saw the result: {dialogue:?}"
    );
    assert!(log.text.contains("(tool result: "), "{}", log.text);
    // Answered once: the id is spent.
    let again = live.answer(&request.id, ApprovalDecision::Approve).await;
    assert!(
        matches!(again, Err(HarnessError::InvalidInput(_))),
        "{again:?}"
    );
    live.close().await;
}

/// Decline: nothing runs, the model is told, and the turn goes on to its end.
#[tokio::test]
async fn claude_decline_tells_the_model() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let (request, before) = asked(&mut live, ASK_TOUCH).await;
    answer(&mut live, &request.id, ApprovalDecision::Decline).await;
    let log = live.finish_turn(before).await;
    log.expect_completed();
    assert!(!s.cwd().join("approved.txt").exists());
    let results = tool_results(&log);
    assert!(
        matches!(results.as_slice(), [(text, true)] if text.contains("declined")),
        "{results:?}"
    );
    assert!(
        log.text.contains("declined"),
        "the model was told: {}",
        log.text
    );
    live.close().await;
}

/// Approve for this session: the same call again in the same session is not asked.
#[tokio::test]
async fn claude_approve_for_session_asks_once() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let (request, before) = asked(&mut live, ASK_TOUCH).await;
    answer(&mut live, &request.id, ApprovalDecision::ApproveForSession).await;
    live.finish_turn(before).await.expect_completed();
    std::fs::remove_file(s.cwd().join("approved.txt")).unwrap();
    let log = live.turn(ASK_TOUCH).await;
    assert_eq!(asked_in(&log), 0, "{:?}", log.events);
    assert!(s.cwd().join("approved.txt").is_file());
    live.close().await;
}

/// Decline and stop: nothing runs and the turn ends interrupted.
#[tokio::test]
async fn claude_decline_and_stop_interrupts_the_turn() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let (request, before) = asked(&mut live, ASK_TOUCH).await;
    answer(&mut live, &request.id, ApprovalDecision::DeclineAndStop).await;
    let log = live.finish_turn(before).await;
    assert_eq!(log.outcome, TurnOutcome::Interrupted, "{:?}", log.events);
    assert!(!s.cwd().join("approved.txt").exists());
    // The session goes on.
    live.turn("after the stop").await;
    live.close().await;
}

/// An interrupt while a request waits: the CLI withdraws it, and it cannot be answered.
#[tokio::test]
async fn claude_interrupt_withdraws_the_pending_request() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let (request, before) = asked(&mut live, ASK_TOUCH).await;
    live.interrupt().await.unwrap();
    let log = live.finish_turn(before).await;
    assert_eq!(log.outcome, TurnOutcome::Interrupted);
    assert!(
        log.events.contains(&RuntimeEvent::ApprovalWithdrawn {
            id: request.id.clone()
        }),
        "{:?}",
        log.events
    );
    let late = live.answer(&request.id, ApprovalDecision::Approve).await;
    assert!(
        matches!(late, Err(HarnessError::InvalidInput(_))),
        "{late:?}"
    );
    assert!(!s.cwd().join("approved.txt").exists());
    live.close().await;
}

/// `Write` is a file change, asked with its path and a diff; approved, the file is written.
#[tokio::test]
async fn claude_write_is_asked_as_a_file_change() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    let path = s.cwd().join("written.txt");
    let mut live = s.open_new().await;
    let prompt = format!("WRITE_FILE `{}`", path.display());
    let (request, before) = asked(&mut live, &prompt).await;
    let ApprovalSubject::FileChange { paths, diff } = &request.subject else {
        panic!("not a file change: {request:?}")
    };
    assert_eq!(paths, &[path.display().to_string()]);
    let diff = diff.clone().expect("a diff");
    assert!(diff.contains(&format!("+{}", WRITTEN.trim_end())), "{diff}");
    assert!(!path.exists());
    answer(&mut live, &request.id, ApprovalDecision::Approve).await;
    live.finish_turn(before).await.expect_completed();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), WRITTEN);
    live.close().await;
}

/// A one-line `Edit` of a 2,000-line file is asked with a one-line hunk (three lines of
/// context each side), not the whole file removed and added; approved, the line changes.
#[tokio::test]
async fn claude_edit_of_a_long_file_is_asked_with_a_one_line_diff() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    let path = s.cwd().join("long.txt");
    let lines: String = (1..=2000).map(|i| format!("line {i}\n")).collect();
    std::fs::write(&path, &lines).unwrap();
    let mut live = s.open_new().await;
    let prompt = format!(
        "EDIT_FILE `{}` `line 1000\n` `line one thousand\n`",
        path.display()
    );
    let (request, before) = asked(&mut live, &prompt).await;
    let ApprovalSubject::FileChange { diff, .. } = &request.subject else {
        panic!("not a file change: {request:?}")
    };
    let diff = diff.clone().expect("a diff");
    let body: Vec<&str> = diff.lines().skip(2).collect();
    let starting = |c: char| body.iter().filter(|l| l.starts_with(c)).count();
    assert_eq!(
        (starting('-'), starting('+'), starting(' ')),
        (1, 1, 6),
        "{diff}"
    );
    assert!(body[0].starts_with("@@ -997,7 +997,7 @@"), "{diff}");
    answer(&mut live, &request.id, ApprovalDecision::Approve).await;
    live.finish_turn(before).await.expect_completed();
    let edited = std::fs::read_to_string(&path).unwrap();
    assert_eq!(edited, lines.replace("line 1000\n", "line one thousand\n"));
    live.close().await;
}

/// `bypassPermissions`: nothing is asked and the command runs. (Claude refuses the mode as
/// root unless `IS_SANDBOX=1`; a test HOME is a sandbox.)
#[tokio::test]
async fn claude_bypass_permissions_never_asks() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    let mut spec = s.spec(SessionTarget::New { cwd: s.cwd() });
    spec.permissions = PermissionMode {
        mode: Some("bypassPermissions".into()),
        sandbox: None,
    };
    spec.env.push(("IS_SANDBOX".into(), "1".into()));
    let mut live = Live::open::<Claude>(spec).await.unwrap();
    let log = live.turn(ASK_TOUCH).await;
    assert_eq!(asked_in(&log), 0, "{:?}", log.events);
    assert!(s.cwd().join("approved.txt").is_file());
    live.close().await;
}

/// A mode the CLI does not take is refused before any process starts.
#[tokio::test]
async fn claude_unknown_mode_is_invalid_input() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    for mode in [
        PermissionMode {
            mode: Some("yolo".into()),
            sandbox: None,
        },
        PermissionMode {
            mode: None,
            sandbox: Some("read-only".into()),
        },
    ] {
        let mut spec = s.spec(SessionTarget::New { cwd: s.cwd() });
        spec.permissions = mode.clone();
        let err = Live::open::<Claude>(spec).await.err();
        assert!(
            matches!(err, Some(HarnessError::InvalidInput(_))),
            "{mode:?}: {err:?}"
        );
    }
    assert!(s.session_files().is_empty());
}

/// The CLI dies while a request waits: the runtime reports the crash and the request is gone
/// with it (an answer is `InvalidInput`); nothing was run.
#[cfg(unix)]
#[tokio::test]
async fn claude_a_crash_while_asking_drops_the_request() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let (request, _) = asked(&mut live, ASK_TOUCH).await;
    let pid = live.pid().expect("a running CLI");
    // SAFETY: SIGKILL to the CLI this test started.
    unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
    let events = live.until_exited().await;
    assert!(
        matches!(events.last(), Some(RuntimeEvent::Exited { error: Some(_) })),
        "{events:?}"
    );
    let late = live.answer(&request.id, ApprovalDecision::Approve).await;
    assert!(
        matches!(late, Err(HarnessError::InvalidInput(_))),
        "{late:?}"
    );
    assert!(!s.cwd().join("approved.txt").exists());
    live.close_quietly().await;
}

/// A question (`AskUserQuestion`) is asked as one, not as an approval: approving it is
/// refused, and the chosen answer is what the model's next request carries as the result.
#[tokio::test]
async fn claude_question_is_answered_with_the_users_choice() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let (request, before) = asked(&mut live, "ASK_USER `Which colour shall it be?`").await;
    let ApprovalSubject::Question { questions } = &request.subject else {
        panic!("not a question: {:?}", request.subject)
    };
    assert_eq!(questions.len(), 1);
    assert_eq!(questions[0].prompt, "Which colour shall it be?");
    assert_eq!(questions[0].options, ASK_OPTIONS);
    assert!(!request.can_approve_for_session());
    let approve = live.answer(&request.id, ApprovalDecision::Approve).await;
    assert!(
        matches!(approve, Err(HarnessError::InvalidInput(_))),
        "{approve:?}"
    );
    let wrong = live.answer_question(&request.id, Some(vec![])).await;
    assert!(
        matches!(wrong, Err(HarnessError::InvalidInput(_))),
        "{wrong:?}"
    );
    within(
        Claude::TIMEOUT,
        "answer the question",
        live.answer_question(&request.id, Some(vec!["Blue".into()])),
    )
    .await
    .expect("answer");
    let log = live.finish_turn(before).await;
    log.expect_completed();
    let results = tool_results(&log);
    assert!(
        matches!(results.as_slice(), [(text, false)] if text.contains("Blue")),
        "{results:?}"
    );
    let dialogue = s.last_dialogue();
    let tool = dialogue.iter().rev().find(|m| m.role == Role::Tool);
    assert!(
        tool.is_some_and(|m| m.text.contains("Blue") && !m.text.contains("Red\"")),
        "the model received the answer: {dialogue:?}"
    );
    live.close().await;
}

/// Dismissing a question tells the model nobody answered; the turn goes on.
#[tokio::test]
async fn claude_dismissed_question_tells_the_model() {
    let Some(s) = Setup::<Claude>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let (request, before) = asked(&mut live, "ASK_USER `Which colour?`").await;
    within(
        Claude::TIMEOUT,
        "dismiss the question",
        live.answer_question(&request.id, None),
    )
    .await
    .expect("dismiss");
    let log = live.finish_turn(before).await;
    log.expect_completed();
    let results = tool_results(&log);
    assert!(
        matches!(results.as_slice(), [(text, true)] if text.contains("dismissed")),
        "{results:?}"
    );
    live.close().await;
}
