//! OpenCode, the real CLI (`opencode acp`, pinned by scripts/install-harnesses.sh), as an ACP
//! agent against the fake model (`crates/harness/src/acp/`): a session's turns stream, each
//! completed turn leaves a snapshot, and a fork at any turn is a copy of that turn's snapshot —
//! checked by what the model receives on the fork's next turn, with the source neither
//! prompted nor changed as OpenCode plays it back. Its permission requests are answered once,
//! always and declined on the approval card's terms; Stop and a mode change reach it.

use std::path::Path;

use forkhost_harness::acp::opencode_db;
use forkhost_harness::acp::{AcpTarget, AgentSessions};
use forkhost_harness::contract::{
    ApprovalDecision, ApprovalSubject, PermissionMode, RuntimeEvent, TurnOutcome,
};
use forkhost_harness::history::{Role, Turn};
use forkhost_tests::acp::opencode::{Bash, OpencodeEnv};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, RequestRecord};

use crate::acp_kit::{self, new_in, resume, turn, Opened, TURN_LIMIT};

fn open(env: &OpencodeEnv, target: AcpTarget) -> impl std::future::Future<Output = Opened> + '_ {
    acp_kit::open("opencode", &env.bin, &env.vars, target)
}

/// The model requests made for `session` (OpenCode names its session in a header), without
/// its title requests (they offer no tools).
fn requests_of(fake: &FakeModel, session: &str) -> Vec<RequestRecord> {
    fake.model_requests()
        .into_iter()
        .filter(|r| r.header("x-session-id") == Some(session) && !r.tools.is_empty())
        .collect()
}

/// What the model received on `session`'s last turn: the user prompts, in order.
fn prompts_received(fake: &FakeModel, session: &str) -> Vec<String> {
    let last = requests_of(fake, session)
        .pop()
        .unwrap_or_else(|| panic!("the model got no request for {session}"));
    last.conversation()
        .into_iter()
        .filter(|m| m.role == forkhost_tests::fake_model::history::Role::User)
        .map(|m| m.text)
        .collect()
}

/// A session's prompts as OpenCode plays it back (`session/load`).
async fn replayed(sessions: &AgentSessions<'_>, id: &str, dir: &Path) -> Vec<(String, String)> {
    let turns = sessions
        .history(id, dir)
        .await
        .expect("OpenCode plays it back");
    turns
        .iter()
        .map(|t| {
            let said = |role| {
                t.messages
                    .iter()
                    .filter(|m| m.role == role)
                    .map(|m| m.text.as_str())
                    .collect::<String>()
            };
            (said(Role::User), said(Role::Assistant))
        })
        .collect()
}

/// What a thread shows of a session: each turn's anchor, and each message's role, text and
/// native id, with its tool call's id, title, failure and (when it did not fail) output.
type Shape = Vec<(
    String,
    Vec<(
        Role,
        String,
        Option<String>,
        Option<(Option<String>, String, bool, Option<String>)>,
    )>,
)>;

fn shape(turns: &[Turn]) -> Shape {
    turns
        .iter()
        .map(|t| {
            let messages = t
                .messages
                .iter()
                .map(|m| {
                    let tool = m.tool.as_ref().map(|c| {
                        let output = (!c.is_error).then(|| c.output.clone()).flatten();
                        (c.id.clone(), c.name.clone(), c.is_error, output)
                    });
                    (m.role, m.text.clone(), m.native_ref.clone(), tool)
                })
                .collect();
            (t.native_turn_ref.clone(), messages)
        })
        .collect()
}

/// OpenCode's own database holds session `id` exactly as OpenCode plays it back, read without
/// starting OpenCode; both timed (figures, not assertions). The turns read from it.
async fn stored_equals_replay(env: &OpencodeEnv, id: &str, what: &str) -> Vec<Turn> {
    let sessions = AgentSessions {
        agent: &acp_kit::agent("opencode"),
        program: &env.bin,
        env: &env.vars,
    };
    let db = opencode_db::database(&env.vars).expect("its database's place");
    let started = std::time::Instant::now();
    let stored = opencode_db::read_session(&db, id).expect("the session is in its database");
    let read = started.elapsed();
    let started = std::time::Instant::now();
    let replayed = sessions
        .history(id, &env.work_dir)
        .await
        .expect("OpenCode plays it back");
    let loaded = started.elapsed();
    eprintln!(
        "opencode history ({what}, {} turns): its database {:.1} ms; session/load in a process \
         of its own {} ms",
        stored.len(),
        read.as_secs_f64() * 1000.0,
        loaded.as_millis()
    );
    assert_eq!(
        shape(&stored),
        shape(&replayed),
        "the database's turns are the replay's ({what})"
    );
    stored
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_forks_at_every_turn_from_its_snapshots() {
    let fake = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let Some(env) = OpencodeEnv::for_fake(&fake, Bash::Runs).unwrap() else {
        return;
    };
    let dir = env.work_dir.clone();
    let mut source = open(&env, new_in(&dir)).await;
    let source_id = source.runtime.session_id().to_owned();
    assert!(
        source.runtime.snapshots(),
        "OpenCode 1.18 offers session/fork"
    );
    let mut snapshots = Vec::new();
    for prompt in ["alpha", "bravo", "charlie"] {
        let turned = turn(&mut source, prompt, &[]).await;
        assert_eq!(turned.outcome, TurnOutcome::Completed, "{turned:?}");
        assert!(
            turned.text.ends_with(&format!("to: {prompt}")),
            "the reply streamed: {turned:?}"
        );
        let usage = turned.usage.expect("OpenCode reports each turn's usage");
        assert!(
            usage.input_tokens > 0 && usage.output_tokens > 0,
            "{usage:?}"
        );
        snapshots.push(
            turned
                .checkpoint
                .expect("each completed turn has a snapshot"),
        );
    }
    let mut distinct = snapshots.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), 3, "one snapshot a turn: {snapshots:?}");
    assert!(!snapshots.contains(&source_id));
    source.runtime.close().await.unwrap();
    // The snapshots' disk: OpenCode keeps every session in one SQLite database (with its WAL).
    let db = env.home.join(".local/share/opencode");
    let bytes: u64 = ["opencode.db", "opencode.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(db.join(f)).ok())
        .map(|m| m.len())
        .sum();
    eprintln!(
        "opencode store after 3 turns and 3 snapshots: {} KB",
        bytes / 1024
    );

    let sessions = AgentSessions {
        agent: &acp_kit::agent("opencode"),
        program: &env.bin,
        env: &env.vars,
    };
    let before = replayed(&sessions, &source_id, &dir).await;
    let prompts: Vec<_> = before.iter().map(|(user, _)| user.as_str()).collect();
    assert_eq!(prompts, ["alpha", "bravo", "charlie"]);
    let stored = stored_equals_replay(&env, &source_id, "three turns").await;
    // What the replay leaves out: each turn's tokens, summed over its model calls (the first
    // turn's extra title request is not the session's), and its model.
    for turn in &stored {
        let usage = turn.usage.as_ref().expect("each turn's tokens are stored");
        assert!(
            usage.input_tokens > 0 && usage.output_tokens > 0,
            "{usage:?}"
        );
        assert!(turn.complete && turn.model.is_some(), "{turn:?}");
    }
    assert!(
        before[1].1.contains("reply (turn 2) to: bravo"),
        "{before:?}"
    );
    let source_requests = requests_of(&fake, &source_id).len();

    // After turn 1, after turn 2, before turn 1, and after turn 1 again (the first fork's
    // prompt did not change the snapshot it was copied from).
    for (snapshot, prompt, expected) in [
        (Some(&snapshots[0]), "delta", vec!["alpha", "delta"]),
        (Some(&snapshots[1]), "echo", vec!["alpha", "bravo", "echo"]),
        (None, "foxtrot", vec!["foxtrot"]),
        (Some(&snapshots[0]), "golf", vec!["alpha", "golf"]),
    ] {
        let started = std::time::Instant::now();
        let fork = sessions
            .fork_at(snapshot.map(String::as_str), &dir)
            .await
            .expect("the fork is made");
        // Figures, not assertions: a cold fork starts OpenCode (~2–4 s here) for one
        // `session/fork` (~0.2 s); a Pi fork through the Host is ~0.1 s warm, ~1 s cold.
        eprintln!(
            "opencode fork {}: {} ms (own process: start, initialize, session/fork)",
            if snapshot.is_some() {
                "at a snapshot"
            } else {
                "before turn 1"
            },
            started.elapsed().as_millis()
        );
        assert!(fork != source_id && !snapshots.contains(&fork), "{fork}");
        let mut opened = open(&env, resume(&fork, &dir)).await;
        let turned = turn(&mut opened, prompt, &[]).await;
        assert_eq!(turned.outcome, TurnOutcome::Completed, "{turned:?}");
        opened.runtime.close().await.unwrap();
        assert_eq!(
            prompts_received(&fake, &fork),
            expected,
            "what the model received on the fork's first turn"
        );
    }

    assert_eq!(
        requests_of(&fake, &source_id).len(),
        source_requests,
        "no fork prompted the source"
    );
    assert_eq!(
        replayed(&sessions, &source_id, &dir).await,
        before,
        "the source as OpenCode plays it back is unchanged"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opencode_asks_before_a_command_and_takes_each_answer_stop_and_mode() {
    let fake = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let Some(env) = OpencodeEnv::for_fake(&fake, Bash::Asks).unwrap() else {
        return;
    };
    let dir = env.work_dir.clone();
    let mut opened = open(&env, new_in(&dir)).await;

    let once = turn(
        &mut opened,
        "RUN_COMMAND `touch once.txt` please",
        &[ApprovalDecision::Approve],
    )
    .await;
    let asked = &once.asked[0];
    assert_eq!(
        asked.subject,
        ApprovalSubject::Command {
            command: "touch once.txt".into(),
            cwd: None
        }
    );
    assert!(
        asked.session_rules.len() == 1 && asked.session_rules[0].contains("“Always allow”"),
        "the card words OpenCode's own always: {:?}",
        asked.session_rules
    );
    assert!(dir.join("once.txt").exists(), "approved once, it ran");

    turn(
        &mut opened,
        "RUN_COMMAND `touch always.txt` please",
        &[ApprovalDecision::ApproveForSession],
    )
    .await;
    assert!(dir.join("always.txt").exists());
    // OpenCode's "Always allow" covers `touch …` for this process, as it words it: not asked.
    let again = turn(&mut opened, "RUN_COMMAND `touch again.txt` please", &[]).await;
    assert!(again.asked.is_empty() && dir.join("again.txt").exists());

    let declined = turn(
        &mut opened,
        "RUN_COMMAND `rm once.txt` please",
        &[ApprovalDecision::Decline],
    )
    .await;
    assert_eq!(declined.tool_errors, [true], "{declined:?}");
    assert!(dir.join("once.txt").exists(), "declined, it did not run");

    // Stop: a slow reply is cut short and the turn ends as interrupted.
    opened.runtime.send("SLOW reply please").await.unwrap();
    loop {
        match tokio::time::timeout(TURN_LIMIT, opened.events.recv()).await {
            Ok(Some(RuntimeEvent::TextDelta { .. })) => break,
            Ok(Some(_)) => continue,
            other => panic!("no reply began: {other:?}"),
        }
    }
    opened.runtime.interrupt().await.unwrap();
    let interrupted = loop {
        match tokio::time::timeout(TURN_LIMIT, opened.events.recv()).await {
            Ok(Some(RuntimeEvent::TurnEnded { outcome, .. })) => break outcome,
            Ok(Some(_)) => continue,
            other => panic!("the turn did not end: {other:?}"),
        }
    };
    assert_eq!(interrupted, TurnOutcome::Interrupted);

    // A mode reaches the model: OpenCode's plan mode adds its reminder to the request.
    let plan = PermissionMode {
        mode: Some("plan".into()),
        sandbox: None,
    };
    assert!(opened.runtime.set_mode(&plan).await.unwrap());
    turn(&mut opened, "plan the next step", &[]).await;
    let session = opened.runtime.session_id().to_owned();
    let last = requests_of(&fake, &session).pop().unwrap();
    assert!(
        last.body.to_string().contains("Plan Mode"),
        "plan mode's reminder reached the model"
    );
    let unknown = PermissionMode {
        mode: Some("no-such-mode".into()),
        sandbox: None,
    };
    assert!(opened.runtime.set_mode(&unknown).await.is_err());
    opened.runtime.close().await.unwrap();
    // Approved, declined and interrupted calls read from its database as OpenCode replays them.
    let stored = stored_equals_replay(&env, &session, "commands, a decline, a stop").await;
    let calls: Vec<_> = stored
        .iter()
        .flat_map(|t| &t.messages)
        .filter_map(|m| m.tool.as_ref())
        .map(|c| c.is_error)
        .collect();
    assert_eq!(
        calls,
        [false, false, false, true],
        "three ran, one declined"
    );
}
