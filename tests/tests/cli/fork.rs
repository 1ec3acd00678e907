//! The fork flow through the `forkhost` CLI, for each harness, against the real CLI and the
//! fake model: a thread with 3 turns; `fork --after 1`, `--before 2`, `--latest`; a `send` in
//! each fork; the model's log shows exactly the inherited history, then the new prompt; the
//! source's native file never changes; `show` gives the lineage.

use std::path::PathBuf;

use forkhost_tests::cli::Cli;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use serde_json::Value;

fn id(thread: &Value) -> String {
    thread["thread"]["id"].as_str().unwrap().to_owned()
}

fn conversation(model: &FakeModel) -> Vec<Msg> {
    model
        .last_model_request()
        .expect("a model request")
        .conversation()
}

/// What the model received on the last turn (not a side request: OpenCode's session titles).
fn turn_conversation(model: &FakeModel) -> Vec<Msg> {
    model
        .last_turn_request()
        .expect("a turn's model request")
        .conversation()
}

fn reply(turn: usize, text: &str) -> Msg {
    Msg::assistant(format!("reply (turn {turn}) to: {text}"))
}

fn fork_flow(harness: Harness) {
    let conversation = turn_conversation;
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(env) = HarnessEnv::for_fake(harness, &model).unwrap() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let cli = Cli {
        env: &env,
        data: data.path(),
    };
    let cwd = env.work_dir().to_str().unwrap().to_owned();

    let created = cli.ok(&[
        "new",
        "--harness",
        harness.name(),
        "--cwd",
        &cwd,
        "--title",
        "source",
        "first prompt",
    ]);
    let source = id(&created);
    cli.ok(&["send", &source, "second prompt"]);
    let shown = cli.ok(&["send", &source, "third prompt"]);
    let turns = shown["thread"]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 3, "{shown}");
    for (i, turn) in turns.iter().enumerate() {
        assert_eq!(turn["number"], i as i64 + 1);
        let texts: Vec<_> = turn["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["role"].as_str().unwrap().to_owned(),
                    m["text"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        let prompt = ["first prompt", "second prompt", "third prompt"][i];
        assert!(
            texts.contains(&("user".into(), prompt.into())),
            "turn {}: {texts:?}",
            i + 1
        );
        assert!(
            texts.contains(&(
                "assistant".into(),
                format!("reply (turn {}) to: {prompt}", i + 1)
            )),
            "turn {}: {texts:?}",
            i + 1
        );
    }
    let native_path = PathBuf::from(shown["thread"]["native"]["path"].as_str().unwrap());
    // The source as stored: its file, byte for byte, where its harness keeps one (OpenCode
    // keeps rows of one database, which its forks and their snapshots share), and its turns as
    // read back.
    let stored = |cli: &Cli| {
        (
            std::fs::read(&native_path).ok(),
            messages_of(&cli.ok(&["show", &source])),
        )
    };
    let before = stored(&cli);
    assert_eq!(
        before.0.is_some(),
        harness != Harness::Opencode,
        "{}",
        native_path.display()
    );

    let history = [
        Msg::user("first prompt"),
        reply(1, "first prompt"),
        Msg::user("second prompt"),
        reply(2, "second prompt"),
        Msg::user("third prompt"),
        reply(3, "third prompt"),
    ];

    // After turn 1.
    let after1 = cli.ok(&["fork", &source, "--after", "1"]);
    assert!(after1["prefill"].is_null());
    assert_eq!(after1["thread"]["turns"].as_array().unwrap().len(), 1);
    assert_eq!(after1["thread"]["fork"]["source_thread"], source.as_str());
    assert_eq!(after1["thread"]["fork"]["boundary"], "after");
    assert_eq!(after1["thread"]["fork"]["source_turn"], turns[0]["id"]);
    cli.ok(&["send", &id(&after1), "fork after one"]);
    let mut want = history[..2].to_vec();
    want.push(Msg::user("fork after one"));
    assert_eq!(conversation(&model), want);

    // Before turn 2: turn 2's prompt comes back for editing.
    let before2 = cli.ok(&["fork", &source, "--before", "2"]);
    assert_eq!(before2["prefill"], "second prompt");
    assert_eq!(before2["thread"]["turns"].as_array().unwrap().len(), 1);
    // A fork of a fork that has not had its first prompt yet (Claude's are pending until then).
    let of_pending = cli.ok(&["fork", &id(&before2), "--latest"]);
    assert_eq!(
        of_pending["thread"]["fork"]["source_thread"],
        id(&before2).as_str()
    );
    cli.ok(&["send", &id(&of_pending), "child of a fresh fork"]);
    let mut want = history[..2].to_vec();
    want.push(Msg::user("child of a fresh fork"));
    assert_eq!(conversation(&model), want);
    cli.ok(&["send", &id(&before2), "edited second"]);
    let mut want = history[..2].to_vec();
    want.push(Msg::user("edited second"));
    assert_eq!(conversation(&model), want);

    // Latest.
    let latest = cli.ok(&["fork", &source, "--latest"]);
    assert_eq!(latest["thread"]["turns"].as_array().unwrap().len(), 3);
    assert_eq!(latest["thread"]["fork"]["boundary"], "latest");
    cli.ok(&["send", &id(&latest), "after everything"]);
    let mut want = history.to_vec();
    want.push(Msg::user("after everything"));
    assert_eq!(conversation(&model), want);

    // A fork of a fork.
    let grand = cli.ok(&["fork", &id(&after1), "--latest"]);
    cli.ok(&["send", &id(&grand), "grandchild"]);
    let mut want = history[..2].to_vec();
    want.extend([
        Msg::user("fork after one"),
        reply(2, "fork after one"),
        Msg::user("grandchild"),
    ]);
    assert_eq!(conversation(&model), want);

    // The source never changed, and `show`/`threads` give the lineage.
    assert_eq!(stored(&cli), before, "the source's native session changed");
    let shown = cli.ok(&["show", &source]);
    let forks_at_1 = shown["thread"]["turns"][0]["forks"]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(forks_at_1, 1, "{shown}");
    let threads = cli.ok(&["threads"]);
    let all = threads["threads"].as_array().unwrap();
    assert_eq!(all.len(), 6);
    assert!(all.iter().all(|t| t.get("turns").is_none()));
    let grand_row = all.iter().find(|t| t["id"] == id(&grand).as_str()).unwrap();
    assert_eq!(grand_row["fork"]["source_thread"], id(&after1).as_str());

    // Bad input: typed errors, no panic, nothing half-made.
    assert_eq!(
        cli.err_code(&["fork", &source, "--after", "0"]),
        "invalid_input"
    );
    assert_eq!(
        cli.err_code(&["fork", &source, "--after", "4"]),
        "turn_not_found"
    );
    assert_eq!(
        cli.err_code(&["fork", &source, "--before", "no-such-turn"]),
        "turn_not_found"
    );
    assert_eq!(
        cli.err_code(&["fork", "no-such-thread", "--latest"]),
        "thread_not_found"
    );
    assert_eq!(
        cli.err_code(&["fork", &source, "--after", "1", "--before", "2"]),
        "invalid_input"
    );
    assert_eq!(cli.err_code(&["fork", &source]), "invalid_input");
    assert_eq!(cli.err_code(&["send", &source, "   "]), "invalid_input");
    assert_eq!(
        cli.err_code(&["show", "💥'; DROP TABLE threads; --"]),
        "thread_not_found"
    );
    assert_eq!(
        cli.err_code(&["new", "--harness", "nope", "--cwd", &cwd]),
        "invalid_input"
    );
    assert_eq!(
        cli.err_code(&[
            "new",
            "--harness",
            harness.name(),
            "--cwd",
            "/no/such/folder"
        ]),
        "invalid_input"
    );
    assert_eq!(
        cli.err_code(&["import", harness.name(), "no-such-session"]),
        "session_not_found"
    );
    assert_eq!(cli.ok(&["threads"])["threads"].as_array().unwrap().len(), 6);
}

#[test]
fn claude_forks_through_the_cli() {
    fork_flow(Harness::Claude);
}

#[test]
fn codex_forks_through_the_cli() {
    fork_flow(Harness::Codex);
}

#[test]
fn pi_forks_through_the_cli() {
    fork_flow(Harness::Pi);
}

/// OpenCode over ACP forks at every message as the others do: each turn's snapshot (a copy of
/// the session as the turn left it) is where a fork after it starts.
#[test]
fn opencode_forks_through_the_cli() {
    fork_flow(Harness::Opencode);
}

/// Each turn's messages as `show` gives them: role and text.
fn messages_of(shown: &Value) -> Vec<Vec<(String, String)>> {
    shown["thread"]["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| {
            turn["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    (
                        m["role"].as_str().unwrap_or_default().to_owned(),
                        m["text"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect()
        })
        .collect()
}

/// `forkhost fork --into`: continues a Pi thread in Claude Code; a harness it does not know,
/// and a turn that does not exist, are refused in words.
#[test]
fn a_thread_continues_in_another_harness_through_the_cli() {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(env) = HarnessEnv::for_fake_all(&[Harness::Pi, Harness::Claude], &model).unwrap()
    else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let cli = Cli {
        env: &env,
        data: data.path(),
    };
    let cwd = env.work_dir().to_str().unwrap().to_owned();
    let created = cli.ok(&["new", "--harness", "pi", "--cwd", &cwd, "first prompt"]);
    let source = id(&created);
    cli.ok(&["send", &source, "second prompt"]);

    let forked = cli.ok(&["fork", &source, "--after", "1", "--into", "claude"]);
    let thread = &forked["thread"];
    assert_eq!(thread["harness"], "claude", "{forked}");
    assert_eq!(thread["fork"]["source_thread"], source.as_str());
    assert_eq!(thread["turns"].as_array().unwrap().len(), 1);
    let note = forked["carry_note"].as_str().unwrap_or_default();
    assert!(note.starts_with("Continued from Pi: 1 turn"), "{forked}");
    let fork = id(&forked);
    cli.ok(&["send", &fork, "on claude now"]);
    let users: Vec<String> = conversation(&model)
        .into_iter()
        .filter(|m| m.role == forkhost_tests::fake_model::Role::User)
        .map(|m| m.text)
        .collect();
    assert_eq!(users, ["first prompt", "on claude now"]);

    let (ok, _, stderr) = {
        let mut cmd = std::process::Command::new(forkhost_tests::cli::forkhost_bin());
        env.apply_std(&mut cmd);
        cmd.args(["--data-dir", data.path().to_str().unwrap()])
            .args(["fork", &source, "--after", "1", "--into", "gemini"]);
        let out = forkhost_tests::cli::run_with_timeout(cmd, std::time::Duration::from_secs(60));
        (
            out.status.success(),
            (),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert!(!ok);
    assert!(stderr.contains("gemini"), "{stderr}");
    assert_eq!(
        cli.err_code(&["fork", &source, "--after", "9", "--into", "claude"]),
        "turn_not_found"
    );
}

/// An OpenCode thread continues in Claude Code from its second turn: Claude's model receives
/// OpenCode's first turn (prompt and reply) and the new prompt; a conversation cannot continue
/// *into* OpenCode (an ACP agent keeps its sessions its own way), which is refused in words
/// with nothing made.
#[test]
fn an_opencode_thread_continues_in_claude_code() {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(env) =
        HarnessEnv::for_fake_all(&[Harness::Opencode, Harness::Claude], &model).unwrap()
    else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let cli = Cli {
        env: &env,
        data: data.path(),
    };
    let cwd = env.work_dir().to_str().unwrap().to_owned();
    let created = cli.ok(&[
        "new",
        "--harness",
        "opencode",
        "--cwd",
        &cwd,
        "first prompt",
    ]);
    let source = id(&created);
    cli.ok(&["send", &source, "second prompt"]);

    let forked = cli.ok(&["fork", &source, "--before", "2", "--into", "claude"]);
    assert_eq!(forked["thread"]["harness"], "claude", "{forked}");
    assert_eq!(forked["prefill"], "second prompt");
    let note = forked["carry_note"].as_str().unwrap_or_default();
    assert!(
        note.starts_with("Continued from OpenCode: 1 turn"),
        "{forked}"
    );
    cli.ok(&["send", &id(&forked), "on claude now"]);
    assert_eq!(
        turn_conversation(&model),
        [
            Msg::user("first prompt"),
            reply(1, "first prompt"),
            Msg::user("on claude now")
        ]
    );

    // Into OpenCode: refused, and no thread is left half made.
    let claude = id(&forked);
    let before = cli.ok(&["threads"])["threads"].as_array().unwrap().len();
    assert_eq!(
        cli.err_code(&["fork", &claude, "--after", "1", "--into", "opencode"]),
        "unsupported"
    );
    assert_eq!(
        cli.ok(&["threads"])["threads"].as_array().unwrap().len(),
        before
    );
}
