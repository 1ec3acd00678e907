//! An OpenCode session made outside Forkhost, adopted by its id (`forkhost import opencode ID`,
//! found in OpenCode's own database): its turns read back; it has no per-turn snapshots (only
//! Forkhost keeps those), so Fork after its earlier turn says so in words and names the way
//! out, with nothing made; Fork before its first turn still works (a new session), and so does
//! Fork after a turn taken through Forkhost — checked by what the model receives.

use std::time::Duration;

use forkhost_harness::acp::{shipped, AcpRuntime, AcpTarget};
use forkhost_harness::contract::{RuntimeEvent, TurnOutcome};
use forkhost_tests::cli::Cli;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use serde_json::Value;

fn id(thread: &Value) -> String {
    thread["thread"]["id"].as_str().unwrap().to_owned()
}

fn reply(turn: usize, text: &str) -> Msg {
    Msg::assistant(format!("reply (turn {turn}) to: {text}"))
}

/// What the model received on the last turn (not OpenCode's title requests).
fn turn_conversation(model: &FakeModel) -> Vec<Msg> {
    model
        .last_turn_request()
        .expect("a turn's model request")
        .conversation()
}

/// A one-turn session made by OpenCode itself, as a user's own OpenCode would: its id.
fn session_made_elsewhere(env: &HarnessEnv, prompt: &str) -> String {
    let agent = shipped()
        .into_iter()
        .find(|a| a.name == "opencode")
        .unwrap();
    let bin = env.bin().unwrap().to_owned();
    let vars = env.vars().to_vec();
    let cwd = env.work_dir().to_owned();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        let (tx, mut events) = tokio::sync::mpsc::unbounded_channel();
        let mut session = AcpRuntime::open(&agent, &bin, AcpTarget::New { cwd }, &vars, tx)
            .await
            .expect("OpenCode opens a session");
        session.send(prompt).await.unwrap();
        let ended = tokio::time::timeout(Duration::from_secs(120), async {
            loop {
                match events.recv().await {
                    Some(RuntimeEvent::TurnEnded { outcome, .. }) => return outcome,
                    Some(_) => {}
                    None => panic!("OpenCode ended mid-turn"),
                }
            }
        })
        .await
        .expect("the turn ended");
        assert_eq!(ended, TurnOutcome::Completed);
        let id = session.session_id().to_owned();
        session.close().await.unwrap();
        id
    })
}

#[test]
fn an_opencode_session_made_elsewhere_is_adopted_and_fork_says_where_it_cannot() {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(env) = HarnessEnv::for_fake(Harness::Opencode, &model).unwrap() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let cli = Cli {
        env: &env,
        data: data.path(),
    };
    let session = session_made_elsewhere(&env, "made elsewhere");

    let imported = cli.ok(&["import", "opencode", &session, "--trust", "yes"]);
    let thread = id(&imported);
    assert_eq!(imported["thread"]["harness"], "opencode", "{imported}");
    let turns = imported["thread"]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 1, "{imported}");
    let texts: Vec<&str> = turns[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["text"].as_str())
        .collect();
    assert!(texts.contains(&"made elsewhere"), "{texts:?}");
    assert!(
        texts.contains(&"reply (turn 1) to: made elsewhere"),
        "{texts:?}"
    );

    // No snapshot of turn 1 here: refused in words, nothing made.
    let refused = cli.err(&["fork", &thread, "--after", "1"]);
    assert_eq!(refused["code"], "unsupported", "{refused}");
    let words = refused["message"].as_str().unwrap();
    assert!(
        words.contains("no snapshot") && words.contains("continue in Claude Code, Codex or Pi"),
        "{words}"
    );
    assert_eq!(cli.ok(&["threads"])["threads"].as_array().unwrap().len(), 1);

    // Before its first turn: a new session, no snapshot needed.
    let fresh = cli.ok(&["fork", &thread, "--before", "1"]);
    assert_eq!(fresh["prefill"], "made elsewhere");
    cli.ok(&["send", &id(&fresh), "a new start"]);
    assert_eq!(turn_conversation(&model), [Msg::user("a new start")]);

    // A turn taken through Forkhost leaves its snapshot: Fork after it carries both turns.
    cli.ok(&["send", &thread, "through forkhost"]);
    let after2 = cli.ok(&["fork", &thread, "--after", "2"]);
    cli.ok(&["send", &id(&after2), "in the fork"]);
    assert_eq!(
        turn_conversation(&model),
        [
            Msg::user("made elsewhere"),
            reply(1, "made elsewhere"),
            Msg::user("through forkhost"),
            reply(2, "through forkhost"),
            Msg::user("in the fork"),
        ]
    );

    // Search reads OpenCode's threads through their reader: the turn and the fork's own.
    let found = cli.ok(&["search", "through forkhost"]);
    let threads: Vec<&str> = found["groups"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|g| g["thread_id"].as_str())
        .collect();
    assert_eq!(threads, [thread.as_str()], "{found}");
    let found = cli.ok(&["search", "in the fork"]);
    assert_eq!(
        found["groups"][0]["thread_id"],
        id(&after2).as_str(),
        "{found}"
    );

    // An id OpenCode does not have.
    assert_eq!(
        cli.err_code(&["import", "opencode", "ses_nosuchsession"]),
        "session_not_found"
    );
}
