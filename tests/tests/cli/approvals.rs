//! Approvals and permission modes through the `forkhost` CLI, with the real harness CLIs and
//! the fake model: `send --approve all` lets a scripted command write its file, the default
//! without a terminal (`none`) declines it and says so, `--json` lists each request with its
//! decision; `--mode`/`--sandbox` round-trip through `show --json`, `forkhost mode` changes
//! them, unknown words are refused, and a fork keeps its source's mode.

use forkhost_tests::cli::{with_cli, Cli};
use forkhost_tests::harness_env::Harness;
use serde_json::Value;

fn id(json: &Value) -> String {
    json["thread"]["id"].as_str().unwrap().to_owned()
}

/// A new thread of `harness` with `extra` arguments (mode, sandbox), no prompt.
fn new_thread(cli: &Cli, harness: Harness, extra: &[&str]) -> String {
    let cwd = cli.env.work_dir().to_str().unwrap().to_owned();
    let mut args = vec!["new", "--harness", harness.name(), "--cwd", &cwd];
    args.extend_from_slice(extra);
    id(&cli.ok(&args))
}

/// The one request a turn raised, and its decision.
fn only_approval(sent: &Value) -> (&Value, &str) {
    let approvals = sent["approvals"].as_array().expect("approvals listed");
    assert_eq!(approvals.len(), 1, "{sent}");
    (
        &approvals[0]["request"],
        approvals[0]["decision"].as_str().unwrap(),
    )
}

/// `--approve all` runs the scripted command; the default without a terminal declines it.
fn approve_all_and_none(harness: Harness, mode: &[&str]) {
    with_cli(harness, |cli| {
        let thread = new_thread(cli, harness, mode);

        let sent = cli.ok(&[
            "send",
            &thread,
            "--approve",
            "all",
            "RUN_COMMAND `touch approved.txt`",
        ]);
        let (request, decision) = only_approval(&sent);
        assert_eq!(decision, "approve", "{sent}");
        assert_eq!(request["subject"]["kind"], "command", "{sent}");
        assert!(
            request["subject"]["command"]
                .as_str()
                .unwrap()
                .contains("touch approved.txt"),
            "{sent}"
        );
        assert!(cli.env.work_dir().join("approved.txt").exists(), "approved");

        let (sent, stderr) = cli.ok_logged(&["send", &thread, "RUN_COMMAND `touch declined.txt`"]);
        let (_, decision) = only_approval(&sent);
        assert_eq!(decision, "decline", "{sent}");
        assert!(stderr.contains("declined"), "says so: {stderr}");
        assert!(
            !cli.env.work_dir().join("declined.txt").exists(),
            "declined"
        );
    });
}

#[test]
fn claude_cli_approve_all_writes_none_declines() {
    approve_all_and_none(Harness::Claude, &[]);
}

#[test]
fn codex_cli_approve_all_writes_none_declines() {
    approve_all_and_none(
        Harness::Codex,
        &["--mode", "untrusted", "--sandbox", "danger-full-access"],
    );
}

#[test]
fn claude_cli_mode_round_trips_and_forks_keep_it() {
    with_cli(Harness::Claude, |cli| {
        let cwd = cli.env.work_dir().to_str().unwrap().to_owned();
        let error = cli.err(&[
            "new",
            "--harness",
            "claude",
            "--cwd",
            &cwd,
            "--mode",
            "yolo",
        ]);
        assert_eq!(error["code"], "invalid_input");
        assert!(
            error["message"].as_str().unwrap().contains("acceptEdits"),
            "names the accepted words: {error}"
        );

        let created = cli.ok(&[
            "new",
            "--harness",
            "claude",
            "--cwd",
            &cwd,
            "--mode",
            "acceptEdits",
            "first prompt",
        ]);
        let source = id(&created);
        let shown = cli.ok(&["show", &source]);
        assert_eq!(shown["thread"]["permissions"]["mode"], "acceptEdits");
        assert_eq!(shown["thread"]["permissions"]["sandbox"], Value::Null);

        let forked = cli.ok(&["fork", &source, "--latest"]);
        let fork = id(&forked);
        let shown = cli.ok(&["show", &fork]);
        assert_eq!(shown["thread"]["permissions"]["mode"], "acceptEdits");

        let changed = cli.ok(&["mode", &source, "plan"]);
        assert_eq!(changed["thread"]["permissions"]["mode"], "plan");
        let shown = cli.ok(&["show", &source]);
        assert_eq!(shown["thread"]["permissions"]["mode"], "plan");
        assert_eq!(
            cli.err(&["mode", &source, "read-only"])["code"],
            "invalid_input"
        );
        // The fork keeps its own copy.
        let shown = cli.ok(&["show", &fork]);
        assert_eq!(shown["thread"]["permissions"]["mode"], "acceptEdits");
    });
}

#[test]
fn codex_cli_sandbox_word_alone_sets_the_sandbox() {
    with_cli(Harness::Codex, |cli| {
        let thread = new_thread(
            cli,
            Harness::Codex,
            &["--mode", "on-request", "--sandbox", "read-only"],
        );
        let shown = cli.ok(&["show", &thread]);
        assert_eq!(shown["thread"]["permissions"]["mode"], "on-request");
        assert_eq!(shown["thread"]["permissions"]["sandbox"], "read-only");
        let changed = cli.ok(&["mode", &thread, "workspace-write"]);
        assert_eq!(changed["thread"]["permissions"]["mode"], Value::Null);
        assert_eq!(
            changed["thread"]["permissions"]["sandbox"],
            "workspace-write"
        );
        let changed = cli.ok(&["mode", &thread, "never", "--sandbox", "danger-full-access"]);
        assert_eq!(changed["thread"]["permissions"]["mode"], "never");
        assert_eq!(
            changed["thread"]["permissions"]["sandbox"],
            "danger-full-access"
        );
    });
}

#[test]
fn pi_cli_refuses_a_mode_it_does_not_have() {
    with_cli(Harness::Pi, |cli| {
        let cwd = cli.env.work_dir().to_str().unwrap().to_owned();
        let error = cli.err(&["new", "--harness", "pi", "--cwd", &cwd, "--mode", "default"]);
        assert_eq!(error["code"], "invalid_input");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("runs its tools without asking"),
            "{error}"
        );
    });
}

/// Runs `forkhost --data-dir D ARGS` in a pseudo-terminal (`script`), typing `answer` at its
/// prompt; returns what the terminal showed.
#[cfg(target_os = "linux")]
fn in_terminal(cli: &Cli, args: &[&str], answer: &str) -> String {
    use forkhost_tests::cli::forkhost_bin;
    use std::io::Write;
    use std::process::{Command, Stdio};
    use std::time::Duration;
    let quote = |a: &str| format!("'{}'", a.replace('\'', r"'\''"));
    let mut line = vec![
        quote(forkhost_bin().to_str().unwrap()),
        "--data-dir".into(),
        quote(cli.data.to_str().unwrap()),
    ];
    line.extend(args.iter().map(|a| quote(a)));
    let mut cmd = Command::new("script");
    cli.env.apply_std(&mut cmd);
    cmd.args(["-qec", &line.join(" "), "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    // Typed ahead: the terminal holds it until the prompt reads it. Kept open until the end,
    // so `script` never sees its input end early.
    let mut keys = child.stdin.take().unwrap();
    keys.write_all(answer.as_bytes()).unwrap();
    keys.flush().unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            panic!("forkhost in a terminal hung");
        }
    };
    drop(keys);
    let shown = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "forkhost {args:?} failed:\n{shown}");
    shown
}

/// On a terminal `send` asks by default, showing the command: `y` runs it, `n` does not.
#[cfg(target_os = "linux")]
#[test]
fn claude_cli_asks_on_a_terminal() {
    with_cli(Harness::Claude, |cli| {
        let thread = new_thread(cli, Harness::Claude, &[]);
        let shown = in_terminal(
            cli,
            &["send", &thread, "RUN_COMMAND `touch typed-yes.txt`"],
            "y\n",
        );
        assert!(
            shown.contains("[y]es / [a]lways / [n]o / [s]top"),
            "{shown}"
        );
        assert!(
            shown.contains("touch typed-yes.txt"),
            "shows the command: {shown}"
        );
        assert!(cli.env.work_dir().join("typed-yes.txt").exists(), "{shown}");

        let shown = in_terminal(
            cli,
            &["send", &thread, "RUN_COMMAND `touch typed-no.txt`"],
            "n\n",
        );
        assert!(shown.contains("approval decline"), "{shown}");
        assert!(!cli.env.work_dir().join("typed-no.txt").exists(), "{shown}");
    });
}

/// On a terminal a question is asked with numbered options; the typed number is the answer
/// the model receives.
#[cfg(target_os = "linux")]
#[test]
fn claude_cli_asks_a_question_on_a_terminal() {
    with_cli(Harness::Claude, |cli| {
        let thread = new_thread(cli, Harness::Claude, &[]);
        let shown = in_terminal(cli, &["send", &thread, "ASK_USER `Which colour?`"], "2\n");
        assert!(shown.contains("the agent asks: Which colour?"), "{shown}");
        assert!(
            shown.contains("1. Red") && shown.contains("2. Blue"),
            "{shown}"
        );
        let result = shown
            .split("(tool result:")
            .nth(1)
            .unwrap_or_else(|| panic!("no tool result: {shown}"));
        assert!(result.contains("Blue"), "the model got the answer: {shown}");
        assert!(!result.contains("Red"), "{shown}");
    });
}

/// A folder with project agent config is refused until the user decides (`--trust`), once:
/// the answer is remembered for the next thread there.
#[test]
fn pi_cli_asks_once_whether_to_trust_a_folder() {
    with_cli(Harness::Pi, |cli| {
        std::fs::create_dir_all(cli.env.work_dir().join(".pi/extensions")).unwrap();
        let cwd = cli.env.work_dir().to_str().unwrap().to_owned();
        let new = ["new", "--harness", "pi", "--cwd", &cwd];
        let error = cli.err(&new);
        assert_eq!(error["code"], "invalid_input");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(".pi") && message.contains("--trust"),
            "{error}"
        );
        let mut decided = new.to_vec();
        decided.extend(["--trust", "no"]);
        cli.ok(&decided);
        cli.ok(&new);
    });
}

/// H1 through the CLI, as the review reproduced it: "always" on one in-project write covers
/// that file only; `--approve none` wins over the grant; a write to `~/.bashrc` in a new
/// process and to `~/.ssh/authorized_keys` in a fork before turn 1 are declined and not
/// written; `forkhost grants` lists the grant and revokes it.
#[cfg(target_os = "linux")]
#[test]
fn claude_cli_always_covers_exactly_the_file_shown() {
    with_cli(Harness::Claude, |cli| {
        let thread = new_thread(cli, Harness::Claude, &[]);
        let inside = cli.env.work_dir().join("inside.txt");
        let write = |path: &std::path::Path| format!("WRITE_FILE `{}`", path.display());
        let shown = in_terminal(cli, &["send", &thread, &write(&inside)], "a\n");
        assert!(
            shown.contains("[a]lways adds, for this session:"),
            "{shown}"
        );
        assert!(inside.exists(), "{shown}");

        let listed = cli.ok(&["grants", &thread]);
        let grants = listed["grants"].as_array().unwrap();
        assert_eq!(grants.len(), 1, "{listed}");
        assert_eq!(grants[0]["scope"]["kind"], "file_change", "{listed}");
        assert_eq!(
            grants[0]["scope"]["paths"],
            serde_json::json!([inside.display().to_string()])
        );

        let bashrc = cli.env.home().join(".bashrc");
        let sent = cli.ok(&["send", &thread, &write(&bashrc), "--approve", "none"]);
        assert_eq!(only_approval(&sent).1, "decline", "{sent}");
        assert!(!bashrc.exists(), "~/.bashrc written after one 'always'");

        // `--approve none` asks nobody and uses no grant, even for the granted file.
        std::fs::remove_file(&inside).unwrap();
        let sent = cli.ok(&["send", &thread, &write(&inside), "--approve", "none"]);
        assert_eq!(only_approval(&sent).1, "decline", "{sent}");
        assert!(!inside.exists());

        let fork = id(&cli.ok(&["fork", &thread, "--before", "1", "--same-folder"]));
        let keys = cli.env.home().join(".ssh/authorized_keys");
        std::fs::create_dir_all(keys.parent().unwrap()).unwrap();
        let sent = cli.ok(&["send", &fork, &write(&keys), "--approve", "none"]);
        assert_eq!(only_approval(&sent).1, "decline", "{sent}");
        assert!(!keys.exists(), "authorized_keys written in a fork");
        assert_eq!(cli.ok(&["grants", &fork])["grants"], serde_json::json!([]));

        let grant_id = grants[0]["id"].as_str().unwrap();
        let revoked = cli.ok(&["grants", &thread, "--revoke", grant_id]);
        assert_eq!(revoked["grants"], serde_json::json!([]), "{revoked}");
        let again = cli.err(&["grants", &thread, "--revoke", grant_id]);
        assert_eq!(again["code"], "invalid_input", "{again}");
    });
}

/// M8: a command holding an escape sequence reaches the terminal escaped, never raw, so it
/// cannot rewrite the line that says what is approved.
#[test]
fn codex_cli_shows_escape_sequences_escaped() {
    with_cli(Harness::Codex, |cli| {
        let thread = new_thread(
            cli,
            Harness::Codex,
            &["--mode", "untrusted", "--sandbox", "danger-full-access"],
        );
        let (sent, stderr) = cli.ok_logged(&[
            "send",
            &thread,
            "RUN_COMMAND `touch pwned #\u{1b}[2K\u{1b}[1Gls`",
        ]);
        assert_eq!(only_approval(&sent).1, "decline", "{sent}");
        assert!(
            !stderr.contains('\u{1b}'),
            "a raw escape reached stderr: {stderr:?}"
        );
        assert!(stderr.contains("\\x1b[2K"), "{stderr}");
        assert!(!cli.env.work_dir().join("pwned").exists());
    });
}
