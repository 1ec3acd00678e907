//! Gemini CLI, the real CLI (`gemini --acp`, pinned by scripts/install-harnesses.sh), as an
//! ACP agent against the fake model (which speaks the Gemini API Gemini CLI calls): a session's
//! turns stream through Forkhost's ACP runtime with each turn's usage, the model receives the
//! whole history on each turn, Gemini CLI keeps the session as a chat file of its own (JSON
//! lines under `~/.gemini/tmp/<project>/chats/`, what a fork at an earlier message will be
//! written as, since it offers no `session/fork`), plays it back through `session/load`, and a
//! new process resumes it exactly.

use forkhost_harness::acp::{gemini_chat, AcpTarget};
use forkhost_harness::contract::{TurnOutcome, TurnUsage};
use forkhost_tests::acp::gemini::GeminiEnv;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg, Protocol};

use crate::acp_kit::{self, Opened};

fn open(env: &GeminiEnv, target: AcpTarget) -> impl std::future::Future<Output = Opened> + '_ {
    acp_kit::open("gemini", &env.bin, &env.vars, target)
}

/// Sends `prompt` and reads the turn to its end: its text, outcome and usage (Gemini CLI asks
/// no approval here).
async fn turn(opened: &mut Opened, prompt: &str) -> (String, TurnOutcome, Option<TurnUsage>) {
    let turned = acp_kit::turn(opened, prompt, &[]).await;
    (turned.text, turned.outcome, turned.usage)
}

/// What the model received on the last turn: the user and model text, in order.
fn last_turn_received(fake: &FakeModel) -> Vec<Msg> {
    fake.model_requests()
        .into_iter()
        .rfind(|r| r.protocol == Protocol::GeminiStream)
        .expect("the model got a turn")
        .conversation()
}

fn reply(turn: usize, prompt: &str) -> String {
    format!("reply (turn {turn}) to: {prompt}")
}

fn history(prompts: &[&str]) -> Vec<Msg> {
    prompts
        .iter()
        .enumerate()
        .flat_map(|(i, p)| [Msg::user(*p), Msg::assistant(reply(i + 1, p))])
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gemini_turns_stream_keep_a_chat_file_play_back_and_resume() {
    let fake = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let Some(env) = GeminiEnv::for_fake(&fake).unwrap() else {
        return;
    };
    let dir = env.work_dir.clone();
    let mut source = open(&env, acp_kit::new_in(&dir)).await;
    let id = source.runtime.session_id().to_owned();
    assert!(
        !source.runtime.snapshots(),
        "Gemini CLI 0.61.0 offers no session/fork (so a fork is written as its chat file)"
    );
    for (i, prompt) in ["alpha", "bravo"].into_iter().enumerate() {
        let (text, outcome, usage) = turn(&mut source, prompt).await;
        assert_eq!(outcome, TurnOutcome::Completed, "{text:?}");
        assert_eq!(text, reply(i + 1, prompt), "the reply streamed");
        let usage = usage.expect("Gemini CLI reports each turn's usage");
        assert!(
            usage.input_tokens > 0 && usage.output_tokens > 0,
            "{usage:?}"
        );
    }
    let mut want = history(&["alpha"]);
    want.push(Msg::user("bravo"));
    assert_eq!(last_turn_received(&fake), want, "turn 2 carried turn 1");
    // A fixed model: no side question scored the prompts first.
    let side = fake
        .requests()
        .iter()
        .filter(|r| r.protocol == Protocol::GeminiGenerate)
        .count();
    eprintln!("gemini: side questions over two turns: {side}");
    source.runtime.close().await.unwrap();

    // Its own chat file, holding both prompts and both replies, named by the session.
    let files = env.chat_files();
    let chat = files
        .iter()
        .find(|f| {
            std::fs::read_to_string(f)
                .unwrap_or_default()
                .lines()
                .next()
                .is_some_and(|l| l.contains(&id))
        })
        .unwrap_or_else(|| panic!("no chat file names session {id}: {files:?}"));
    let text = std::fs::read_to_string(chat).unwrap();
    for said in ["alpha", "bravo", &reply(2, "bravo")] {
        assert!(text.contains(said), "{said:?} in {}", chat.display());
    }
    let before = std::fs::read(chat).unwrap();
    let source_chat = gemini_chat::read_chat(chat).unwrap();
    assert_eq!(source_chat.session_id(), Some(id.as_str()));
    assert_eq!(source_chat.prompts(), 2);

    // A fork after turn 1, written as a chat file of its own and loaded by a new process: the
    // model receives turn 1, then the fork's prompt; the source's file is as it was.
    let fork_id = uuid::Uuid::new_v4().to_string();
    let started = std::time::Instant::now();
    let written = gemini_chat::write_cut(chat, 1, &fork_id).unwrap();
    eprintln!(
        "gemini: a fork after turn 1 written as a chat file in {:.1} ms",
        started.elapsed().as_secs_f64() * 1000.0
    );
    let mut fork = open(&env, acp_kit::resume(&fork_id, &dir)).await;
    assert_eq!(fork.runtime.session_id(), fork_id);
    let (text, outcome, _) = turn(&mut fork, "charlie").await;
    assert_eq!(outcome, TurnOutcome::Completed, "{text:?}");
    assert_eq!(text, reply(2, "charlie"));
    let mut want = history(&["alpha"]);
    want.push(Msg::user("charlie"));
    assert_eq!(
        last_turn_received(&fake),
        want,
        "the fork's turn carried turn 1 only"
    );
    fork.runtime.close().await.unwrap();
    assert_eq!(
        std::fs::read(chat).unwrap(),
        before,
        "the source's chat file is unchanged"
    );
    // Gemini CLI recorded the fork's turn in the fork's file.
    let forked = gemini_chat::read_chat(&written).unwrap();
    assert_eq!(forked.prompts(), 2, "{forked:?}");
}
