//! `forkhost agents`: every shipped ACP agent has a row — its capabilities, or why it could
//! not be asked — and `--probe NAME -- COMMAND` asks any other agent (the stand-in,
//! `tests/src/acp/`), its capabilities as it answered them.

use std::process::Command;
use std::time::Duration;

use forkhost_tests::cli::{forkhost_bin, run_with_timeout};
use serde_json::Value;

#[test]
fn agents_lists_the_shipped_ones_and_asks_a_named_command() {
    let dir = tempfile::tempdir().unwrap();
    let stand_in = forkhost_tests::acp::stand_in(dir.path());
    let mut cmd = Command::new(forkhost_bin());
    cmd.env("HOME", dir.path())
        .env("STAND_IN_MODE", "fork")
        .env("FORKHOST_GEMINI_BIN", dir.path().join("no-gemini-here"))
        .env("FORKHOST_OPENCODE_BIN", dir.path().join("no-opencode-here"))
        .arg("--json")
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .args(["agents", "--probe", "stand-in", "--"])
        .arg(&stand_in);
    let out = run_with_timeout(cmd, Duration::from_secs(120));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["agents"].as_array().unwrap();
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["agent"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["gemini", "opencode", "stand-in"], "{json}");
    for shipped in &rows[..2] {
        assert_eq!(shipped["error"]["code"], "harness_not_found", "{shipped}");
        assert!(shipped["probe"].is_null(), "{shipped}");
        assert!(
            shipped["error"]["message"]
                .as_str()
                .unwrap()
                .contains("npm install -g"),
            "says how to install it: {shipped}"
        );
    }
    let probe = &rows[2]["probe"];
    assert_eq!(
        (
            &probe["load"],
            &probe["fork"],
            &probe["list"],
            &probe["delete"]
        ),
        (
            &Value::Bool(true),
            &Value::Bool(true),
            &Value::Bool(true),
            &Value::Bool(false)
        ),
        "{json}"
    );
    assert_eq!(probe["agent_version"], "0.0.1", "{json}");

    // A command that is an option is refused before anything runs.
    let mut bad = Command::new(forkhost_bin());
    bad.env("HOME", dir.path())
        .arg("--json")
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .args(["agents", "--probe", "x", "--", "-oProxyCommand=touch"]);
    let out = run_with_timeout(bad, Duration::from_secs(60));
    assert!(!out.status.success());
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["error"]["code"], "invalid_input", "{json}");
}

/// `agents add` keeps an agent: every later `forkhost agents` asks it beside the shipped ones;
/// a shipped name or an option for a command is refused; `agents remove` forgets it.
#[test]
fn an_added_agent_is_kept_asked_and_forgotten() {
    let dir = tempfile::tempdir().unwrap();
    let stand_in = forkhost_tests::acp::stand_in(dir.path());
    let forkhost = |args: &[&str]| {
        let mut cmd = Command::new(forkhost_bin());
        cmd.env("HOME", dir.path())
            .env("STAND_IN_MODE", "plain")
            .env("FORKHOST_GEMINI_BIN", dir.path().join("no-gemini-here"))
            .env("FORKHOST_OPENCODE_BIN", dir.path().join("no-opencode-here"))
            .arg("--json")
            .arg("--data-dir")
            .arg(dir.path().join("data"))
            .args(args);
        let out = run_with_timeout(cmd, Duration::from_secs(120));
        let json: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&out.stderr)));
        (out.status.success(), json)
    };
    let program = stand_in.display().to_string();
    let (ok, json) = forkhost(&["agents", "add", "qwen", "--", &program, "--acp"]);
    assert!(ok, "{json}");
    assert_eq!(
        json["added"]["args"],
        serde_json::json!(["--acp"]),
        "{json}"
    );

    let (ok, json) = forkhost(&["agents"]);
    assert!(ok, "{json}");
    let rows = json["agents"].as_array().unwrap();
    let qwen = rows
        .iter()
        .find(|r| r["agent"]["name"] == "qwen")
        .unwrap_or_else(|| panic!("the added agent is asked: {json}"));
    assert_eq!(qwen["probe"]["agent_name"], "stand-in", "{json}");
    assert_eq!(
        qwen["probe"]["fork"], false,
        "as it answered (plain): {json}"
    );

    let (ok, json) = forkhost(&["agents", "add", "opencode", "--", &program]);
    assert!(!ok);
    assert_eq!(json["error"]["code"], "conflict", "{json}");
    let (ok, json) = forkhost(&["agents", "add", "evil", "--", "-oProxyCommand=touch"]);
    assert!(!ok);
    assert_eq!(json["error"]["code"], "invalid_input", "{json}");

    let (ok, json) = forkhost(&["agents", "remove", "qwen"]);
    assert!(ok, "{json}");
    let (_, json) = forkhost(&["agents"]);
    assert!(
        !json["agents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["agent"]["name"] == "qwen"),
        "{json}"
    );
    let (ok, json) = forkhost(&["agents", "remove", "qwen"]);
    assert!(!ok);
    assert_eq!(json["error"]["code"], "invalid_input", "{json}");
}
