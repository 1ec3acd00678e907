//! The real harness CLIs against the fake model, each in its own temporary HOME.
//!
//! Needs `FORKHOST_{CLAUDE,CODEX,PI}_BIN` (from `scripts/install-harnesses.sh --print-env`);
//! a harness whose variable is unset is skipped with a message.

use std::time::Duration;

use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg, Reply, Role};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

/// Per CLI call; a hung CLI is killed (with its process group) after this.
const TIMEOUT: Duration = Duration::from_secs(120);

async fn setup(harness: Harness) -> Option<(FakeModel, HarnessEnv)> {
    let fake = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let env = HarnessEnv::for_fake(harness, &fake).unwrap()?;
    Some((fake, env))
}

/// Turn 1, then turn 2 resuming the same session: the reply comes back, and the model sees
/// turn 1's prompt and reply, then the new prompt.
async fn two_turns_with_resume(harness: Harness) {
    let Some((fake, env)) = setup(harness).await else {
        return;
    };
    let name = harness.name();
    let p1 = format!("first prompt for {name}");
    let p2 = format!("second prompt for {name}");
    let r1_text = format!("reply (turn 1) to: {p1}");
    let r2_text = format!("reply (turn 2) to: {p2}");

    let r1 = env.run_prompt(&p1, None, TIMEOUT).await.unwrap();
    assert!(r1.success(), "{name} turn 1 failed: {r1}");
    assert_eq!(r1.reply.as_deref(), Some(r1_text.as_str()), "{r1}");
    let sid = r1
        .session_id
        .clone()
        .unwrap_or_else(|| panic!("no session id: {r1}"));
    let first = fake.last_model_request().expect("no model request");
    assert_eq!(first.turn, 1);
    assert_eq!(first.dialogue(), vec![Msg::user(&p1)]);
    let seen = fake.model_requests().len();

    let r2 = env.run_prompt(&p2, Some(&sid), TIMEOUT).await.unwrap();
    assert!(r2.success(), "{name} turn 2 failed: {r2}");
    assert_eq!(r2.reply.as_deref(), Some(r2_text.as_str()), "{r2}");
    assert_eq!(
        r2.session_id.as_deref(),
        Some(sid.as_str()),
        "resume kept the session"
    );

    let new_requests = &fake.model_requests()[seen..];
    assert_eq!(new_requests.len(), 1, "one model call for a plain turn");
    let second = &new_requests[0];
    assert_eq!(second.turn, 2);
    assert_eq!(
        second.dialogue(),
        vec![Msg::user(&p1), Msg::assistant(&r1_text), Msg::user(&p2)]
    );
    println!(
        "{name}: turn 1 {:?}, turn 2 (resume) {:?}; {} requests logged ({:?})",
        r1.elapsed,
        r2.elapsed,
        fake.requests().len(),
        fake.requests()
            .iter()
            .map(|r| r.protocol)
            .collect::<Vec<_>>()
    );
}

/// A prompt with the tool keyword: the model calls the shell tool, the CLI runs
/// `echo tool-ok`, sends the result back, and the turn ends with text.
async fn tool_call_turn(harness: Harness) {
    let Some((fake, env)) = setup(harness).await else {
        return;
    };
    let name = harness.name();
    let prompt = format!("please CALL_TOOL for {name}");
    let out = env.run_prompt(&prompt, None, TIMEOUT).await.unwrap();
    assert!(out.success(), "{name} tool turn failed: {out}");
    let reply = out.reply.clone().unwrap_or_default();
    assert!(
        reply.starts_with(&format!("reply (turn 1) to: {prompt} (tool result: ")),
        "{out}"
    );
    assert!(reply.contains("tool-ok"), "the tool ran: {out}");

    let calls = fake.model_requests();
    assert_eq!(calls.len(), 2, "tool call, then the final text");
    assert!(
        matches!(&calls[0].reply, Some(Reply::ToolCall { .. })),
        "{:?}",
        calls[0].reply
    );
    let last = &calls[1];
    assert_eq!(last.turn, 1);
    let dialogue = last.dialogue();
    assert_eq!(dialogue.len(), 3, "{dialogue:?}");
    assert_eq!(dialogue[0], Msg::user(&prompt));
    assert_eq!(dialogue[1].role, Role::Assistant);
    assert!(dialogue[1].text.starts_with("tool_call "), "{dialogue:?}");
    assert!(dialogue[1].text.contains("echo tool-ok"), "{dialogue:?}");
    assert_eq!(dialogue[2].role, Role::Tool);
    assert!(dialogue[2].text.contains("tool-ok"), "{dialogue:?}");
    println!("{name}: tool turn {:?}", out.elapsed);
}

#[tokio::test]
async fn claude_two_turns_with_resume() {
    two_turns_with_resume(Harness::Claude).await;
}

#[tokio::test]
async fn claude_tool_call_turn() {
    tool_call_turn(Harness::Claude).await;
}

#[tokio::test]
async fn codex_two_turns_with_resume() {
    two_turns_with_resume(Harness::Codex).await;
}

#[tokio::test]
async fn codex_tool_call_turn() {
    tool_call_turn(Harness::Codex).await;
}

#[tokio::test]
async fn pi_two_turns_with_resume() {
    two_turns_with_resume(Harness::Pi).await;
}

#[tokio::test]
async fn pi_tool_call_turn() {
    tool_call_turn(Harness::Pi).await;
}

/// The temp HOME holds what each harness needs, and nothing of the real HOME leaks in.
#[tokio::test]
async fn harness_env_layout() {
    let fake = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    for harness in Harness::ALL {
        let env = HarnessEnv::new(harness, &fake.base_url()).unwrap();
        let var = |k: &str| {
            env.vars()
                .iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(var("HOME").as_deref(), env.home().to_str());
        assert!(env
            .home()
            .starts_with(std::env::temp_dir().canonicalize().unwrap()));
        match harness {
            Harness::Claude => {
                assert_eq!(var("ANTHROPIC_BASE_URL"), Some(fake.base_url()));
                assert_eq!(var("ANTHROPIC_API_KEY").as_deref(), Some("dummy"));
                assert_eq!(
                    var("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC").as_deref(),
                    Some("1")
                );
                let cfg: serde_json::Value = serde_json::from_str(
                    &std::fs::read_to_string(env.home().join(".claude.json")).unwrap(),
                )
                .unwrap();
                assert_eq!(cfg["hasCompletedOnboarding"], true);
                let work = env.work_dir().to_str().unwrap();
                assert_eq!(cfg["projects"][work]["hasTrustDialogAccepted"], true);
            }
            Harness::Codex => {
                let codex_home = var("CODEX_HOME").unwrap();
                let cfg = std::fs::read_to_string(format!("{codex_home}/config.toml")).unwrap();
                assert!(cfg.contains(&format!("base_url = \"{}/v1\"", fake.base_url())));
                assert!(cfg.contains("wire_api = \"responses\""));
            }
            Harness::Pi => {
                let dir = var("PI_CODING_AGENT_DIR").unwrap();
                let models = std::fs::read_to_string(format!("{dir}/models.json")).unwrap();
                assert!(models.contains(&format!("{}/v1", fake.base_url())));
            }
            Harness::Opencode => {
                let config = env.home().join(".config/opencode/opencode.json");
                let config = std::fs::read_to_string(config).unwrap();
                assert!(config.contains(&format!("{}/v1", fake.base_url())));
            }
        }
        let mut cmd = std::process::Command::new("env");
        env.apply_std(&mut cmd);
        let out = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
        assert!(out.contains(&format!("HOME={}", env.home().display())));
        for line in out.lines() {
            let key = line.split('=').next().unwrap();
            if key.starts_with("ANTHROPIC_") || key.starts_with("CODEX_") || key.starts_with("PI_")
            {
                assert!(
                    var(key).is_some(),
                    "inherited {key} leaked into {harness:?}"
                );
            }
        }
    }
}
