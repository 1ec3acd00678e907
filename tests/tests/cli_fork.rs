//! The fork flow through the `forkhost` CLI, for each harness, against the real CLI and the
//! fake model: a thread with 3 turns; `fork --after 1`, `--before 2`, `--latest`; a `send` in
//! each fork; the model's log shows exactly the inherited history, then the new prompt; the
//! source's native file never changes; `show` gives the lineage.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use serde_json::Value;

/// The `forkhost` binary next to this test's own build output.
fn forkhost_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let bin = dir.join(format!("forkhost{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "build the CLI first: cargo build -p forkhost-cli ({})",
        bin.display()
    );
    bin
}

struct Cli<'a> {
    env: &'a HarnessEnv,
    data: &'a Path,
}

impl Cli<'_> {
    /// Runs `forkhost --json ARGS`; returns (exit success, stdout JSON).
    fn run(&self, args: &[&str]) -> (bool, Value) {
        let mut cmd = Command::new(forkhost_bin());
        self.env.apply_std(&mut cmd);
        cmd.arg("--json")
            .arg("--data-dir")
            .arg(self.data)
            .args(args);
        let out = run_with_timeout(cmd, Duration::from_secs(120));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let json: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
            panic!(
                "forkhost {args:?} printed no JSON ({e}):\n{stdout}\n--- stderr\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.success(), json)
    }

    fn ok(&self, args: &[&str]) -> Value {
        let (ok, json) = self.run(args);
        assert!(ok, "forkhost {args:?} failed: {json}");
        json
    }

    fn err(&self, args: &[&str]) -> String {
        let (ok, json) = self.run(args);
        assert!(!ok, "forkhost {args:?} should fail: {json}");
        json["error"]["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

fn run_with_timeout(mut cmd: Command, limit: Duration) -> std::process::Output {
    let child = cmd
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            panic!("forkhost hung for {limit:?}");
        }
    }
}

fn id(thread: &Value) -> String {
    thread["thread"]["id"].as_str().unwrap().to_owned()
}

fn conversation(model: &FakeModel) -> Vec<Msg> {
    model
        .last_model_request()
        .expect("a model request")
        .conversation()
}

fn reply(turn: usize, text: &str) -> Msg {
    Msg::assistant(format!("reply (turn {turn}) to: {text}"))
}

fn fork_flow(harness: Harness) {
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
    let before = std::fs::read(&native_path).unwrap();

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
    assert_eq!(
        std::fs::read(&native_path).unwrap(),
        before,
        "the source's native file changed"
    );
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
    assert_eq!(cli.err(&["fork", &source, "--after", "0"]), "invalid_input");
    assert_eq!(
        cli.err(&["fork", &source, "--after", "4"]),
        "turn_not_found"
    );
    assert_eq!(
        cli.err(&["fork", &source, "--before", "no-such-turn"]),
        "turn_not_found"
    );
    assert_eq!(
        cli.err(&["fork", "no-such-thread", "--latest"]),
        "thread_not_found"
    );
    assert_eq!(
        cli.err(&["fork", &source, "--after", "1", "--before", "2"]),
        "invalid_input"
    );
    assert_eq!(cli.err(&["fork", &source]), "invalid_input");
    assert_eq!(cli.err(&["send", &source, "   "]), "invalid_input");
    assert_eq!(
        cli.err(&["show", "💥'; DROP TABLE threads; --"]),
        "thread_not_found"
    );
    assert_eq!(
        cli.err(&["new", "--harness", "nope", "--cwd", &cwd]),
        "invalid_input"
    );
    assert_eq!(
        cli.err(&[
            "new",
            "--harness",
            harness.name(),
            "--cwd",
            "/no/such/folder"
        ]),
        "invalid_input"
    );
    assert_eq!(
        cli.err(&["import", harness.name(), "no-such-session"]),
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
