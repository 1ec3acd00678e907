//! Remote hosts through the CLI (docs/architecture.md "Remote hosts"), over a real OpenSSH
//! server on loopback whose sessions run as a second local user: `forkhost --host box …` runs
//! the remote's own forkhost against the remote's store, harness and files. A thread made,
//! sent and forked at reply 2 on the remote: the remote model receives exactly turns 1–2 and
//! the new prompt, the source's native file never changes, and nothing lands on this side.
//! Host keys are never accepted silently: unknown and changed keys are refused in words with
//! their fingerprints; an unknown host name, a closed port, a remote without forkhost and a
//! bad destination are typed errors.

use std::path::{Path, PathBuf};
use std::process::Command;

use forkhost_tests::cli::{forkhost_bin, run_with_timeout};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use forkhost_tests::sshd::{Sshd, HOST_ALIAS};
use serde_json::Value;

/// This machine's side: its own data folder and HOME (or a harness environment of its own),
/// and the server's client config.
pub(crate) struct Local<'a> {
    data: tempfile::TempDir,
    home: tempfile::TempDir,
    pub(crate) ssh: String,
    env: Option<&'a HarnessEnv>,
    /// The test network this side runs in (its commands inside the namespace).
    net: Option<&'a forkhost_tests::netns::NetLink>,
}

impl<'a> Local<'a> {
    pub(crate) fn new(sshd: &Sshd) -> Local<'a> {
        Local {
            data: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
            ssh: sshd.ssh_command(),
            env: None,
            net: None,
        }
    }

    /// This side's HOME (when it runs no harness of its own).
    pub(crate) fn home(&self) -> &Path {
        self.home.path()
    }

    /// This side inside the test network `net`: it reaches the server over its link only.
    pub(crate) fn inside(self, net: &'a forkhost_tests::netns::NetLink) -> Local<'a> {
        Local {
            net: Some(net),
            ..self
        }
    }

    /// `forkhost`, here: inside the test network when this side is in one.
    fn forkhost(&self) -> Command {
        match self.net {
            Some(net) => net.command(forkhost_bin()),
            None => Command::new(forkhost_bin()),
        }
    }

    /// This side running its own harness in `env`.
    pub(crate) fn with_env(sshd: &Sshd, env: &'a HarnessEnv) -> Local<'a> {
        Local {
            env: Some(env),
            ..Local::new(sshd)
        }
    }

    /// `forkhost --json ARGS` here: (success, JSON, stderr).
    pub(crate) fn run(&self, args: &[&str]) -> (bool, Value, String) {
        let mut cmd = self.forkhost();
        match self.env {
            Some(env) => env.apply_std(&mut cmd),
            None => {
                cmd.env("HOME", self.home.path())
                    .env("XDG_CACHE_HOME", self.home.path().join(".cache"))
                    .env_remove("FORKHOST_PI_BIN")
                    .env_remove("FORKHOST_CLAUDE_BIN")
                    .env_remove("FORKHOST_CODEX_BIN")
                    .current_dir(self.home.path());
            }
        }
        cmd.env("FORKHOST_SSH_COMMAND", &self.ssh)
            .arg("--json")
            .arg("--data-dir")
            .arg(self.data.path())
            .args(args);
        let out = run_with_timeout(cmd, std::time::Duration::from_secs(180));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let json = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
            panic!("forkhost {args:?} printed no JSON ({e}):\n{stdout}\n--- stderr\n{stderr}")
        });
        (out.status.success(), json, stderr)
    }

    /// `forkhost ARGS` here (text output), started in a process group of its own with its
    /// stdout piped: killing the group ends this side and its ssh, as a closed laptop would.
    pub(crate) fn spawn(&self, args: &[&str]) -> std::process::Child {
        use std::os::unix::process::CommandExt;
        let mut cmd = self.forkhost();
        cmd.env("HOME", self.home.path())
            .env_remove("FORKHOST_PI_BIN")
            .env_remove("FORKHOST_CLAUDE_BIN")
            .env_remove("FORKHOST_CODEX_BIN")
            .current_dir(self.home.path())
            .env("FORKHOST_SSH_COMMAND", &self.ssh)
            // A connection of its own: a shared one lives on in ssh's master process, which
            // killing this side would not cut.
            .env("FORKHOST_SSH_MULTIPLEX", "0")
            .arg("--data-dir")
            .arg(self.data.path())
            .args(args)
            // Held open and never written: a prompt on the remote waits as at a terminal.
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .process_group(0);
        cmd.spawn().unwrap()
    }

    /// `forkhost ARGS` here in a pseudo-terminal of its own (`script`), as the app's terminal
    /// tab runs it: keys go to its stdin, the screen comes out of its stdout.
    fn spawn_in_terminal(&self, args: &[&str]) -> std::process::Child {
        use std::os::unix::process::CommandExt;
        let quote = |a: &str| format!("'{}'", a.replace('\'', r"'\''"));
        // The size `Screen` renders at, as a terminal tab sets it.
        let mut line = vec![
            format!("stty rows {} cols {};", Screen::ROWS, Screen::COLS),
            quote(&forkhost_bin().display().to_string()),
            "--data-dir".to_owned(),
            quote(&self.data.path().display().to_string()),
        ];
        line.extend(args.iter().map(|a| quote(a)));
        let mut cmd = Command::new("script");
        cmd.env("HOME", self.home.path())
            .env_remove("FORKHOST_PI_BIN")
            .env_remove("FORKHOST_CLAUDE_BIN")
            .env_remove("FORKHOST_CODEX_BIN")
            .env("TERM", "xterm-256color")
            .current_dir(self.home.path())
            .env("FORKHOST_SSH_COMMAND", &self.ssh)
            .env("FORKHOST_SSH_MULTIPLEX", "0")
            .args(["-qfec", &line.join(" "), "/dev/null"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .process_group(0);
        cmd.spawn().unwrap()
    }

    pub(crate) fn ok(&self, args: &[&str]) -> Value {
        let (ok, json, stderr) = self.run(args);
        assert!(ok, "forkhost {args:?} failed: {json}\n{stderr}");
        json
    }

    pub(crate) fn error(&self, args: &[&str]) -> (String, String) {
        let (ok, json, stderr) = self.run(args);
        assert!(!ok, "forkhost {args:?} should fail: {json}\n{stderr}");
        (
            json["error"]["code"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            json["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        )
    }
}

pub(crate) fn id(thread: &Value) -> String {
    thread["thread"]["id"].as_str().unwrap().to_owned()
}

/// One test's two sides: the fake model, the remote's harness environment behind a real sshd
/// (its key trusted), and this side with the server added as the host `box`. Dropped in that
/// order: the server ends the remote's daemons before the remote's tree goes.
struct Sides {
    local: Local<'static>,
    /// Held for its life (dropping it ends the server).
    _sshd: Sshd,
    remote: HarnessEnv,
    model: FakeModel,
}

impl Sides {
    /// `None` when the harness or sshd is missing and the suite allows skipping.
    fn start(harness: Harness, options: FakeModelOptions) -> Option<Sides> {
        Sides::start_with(harness, options, |remote| {
            Sshd::start(remote, &forkhost_bin())
        })
    }

    /// As [`Sides::start`], the server started by `sshd`.
    fn start_with(
        harness: Harness,
        options: FakeModelOptions,
        sshd: impl FnOnce(&HarnessEnv) -> Option<Sshd>,
    ) -> Option<Sides> {
        let model = FakeModel::start_blocking(options).unwrap();
        let remote = HarnessEnv::for_fake(harness, &model).unwrap()?;
        let sshd = sshd(&remote)?;
        sshd.trust_host_key();
        let local = Local::new(&sshd);
        local.ok(&["hosts", "add", "box", HOST_ALIAS]);
        Some(Sides {
            local,
            _sshd: sshd,
            remote,
            model,
        })
    }

    /// A new `harness` thread on the remote, its first turn "first prompt" done: its id.
    fn new_thread(&self, harness: &str) -> String {
        id(&new_on_box(&self.local, harness, self.remote.work_dir()))
    }
}

/// A new `harness` thread on the host `box`, in `cwd` there, its first turn "first prompt"
/// done: its detail.
pub(crate) fn new_on_box(local: &Local<'_>, harness: &str, cwd: &Path) -> Value {
    let cwd = cwd.display().to_string();
    local.ok(&[
        "--host",
        "box",
        "new",
        "--harness",
        harness,
        "--cwd",
        &cwd,
        "first prompt",
    ])
}

/// `attach` to `thread` after its connection was lost mid-turn 2: the turn ended there whole
/// (complete, its reply the whole reply to `prompt`) and was asked of the model once. What
/// attach printed on stderr.
pub(crate) fn attached_whole(
    local: &Local<'_>,
    model: &FakeModel,
    thread: &str,
    prompt: &str,
) -> String {
    let whole = format!("reply (turn 2) to: {prompt}");
    let (ok, attached, stderr) = local.run(&["--host", "box", "attach", thread]);
    assert!(ok, "attach failed: {attached}\n{stderr}");
    let turns = attached["thread"]["turns"].as_array().unwrap();
    assert_eq!(turns.len(), 2, "{attached}");
    assert!(turns[1]["complete"].as_bool().unwrap(), "{attached}");
    assert_eq!(
        assistant_texts(&attached, 1),
        [whole.as_str()],
        "the whole reply, ended there: {attached}"
    );
    let asked = model
        .model_requests()
        .iter()
        .filter(|r| r.last_user_text() == Some(prompt))
        .count();
    assert_eq!(asked, 1, "the turn ran once");
    stderr
}

/// The assistant's texts in turn `index` (from 0) of a thread's detail.
pub(crate) fn assistant_texts(detail: &Value, index: usize) -> Vec<String> {
    detail["thread"]["turns"][index]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant")
        .map(|m| m["text"].as_str().unwrap().to_owned())
        .collect()
}

/// A fake model whose `SLOW` replies take 6 s.
fn slow_model() -> FakeModelOptions {
    FakeModelOptions {
        slow_duration: std::time::Duration::from_secs(6),
        ..FakeModelOptions::default()
    }
}

fn reply(turn: usize, text: &str) -> Msg {
    Msg::assistant(format!("reply (turn {turn}) to: {text}"))
}

/// Every file under `dir`.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

fn remote_fork_flow(harness: Harness) {
    let Some(sides) = Sides::start(harness, FakeModelOptions::default()) else {
        return;
    };
    let Sides {
        local,
        remote,
        model,
        ..
    } = &sides;
    assert_eq!(local.ok(&["hosts"])["hosts"][0]["destination"], HOST_ALIAS);
    assert_eq!(local.ok(&["hosts"])["hosts"].as_array().unwrap().len(), 1);

    let cwd = remote.work_dir().display().to_string();
    let created = local.ok(&[
        "--host",
        "box",
        "new",
        "--harness",
        harness.name(),
        "--cwd",
        &cwd,
        "first prompt",
    ]);
    let source = id(&created);
    local.ok(&["--host", "box", "send", &source, "second prompt"]);
    let shown = local.ok(&["--host", "box", "send", &source, "third prompt"]);
    assert_eq!(shown["thread"]["turns"].as_array().unwrap().len(), 3);
    let native = PathBuf::from(shown["thread"]["native"]["path"].as_str().unwrap());
    assert!(
        native.starts_with(remote.home()),
        "the session is the remote user's: {}",
        native.display()
    );
    let before = std::fs::read(&native).unwrap();

    let fork = local.ok(&["--host", "box", "fork", &source, "--after", "2"]);
    assert_eq!(fork["thread"]["fork"]["source_thread"], source.as_str());
    local.ok(&["--host", "box", "send", &id(&fork), "fork after two"]);
    let received = model
        .last_model_request()
        .expect("a request")
        .conversation();
    assert_eq!(
        received,
        vec![
            Msg::user("first prompt"),
            reply(1, "first prompt"),
            Msg::user("second prompt"),
            reply(2, "second prompt"),
            Msg::user("fork after two"),
        ],
        "the remote model receives exactly turns 1-2 and the new prompt"
    );
    assert_eq!(
        std::fs::read(&native).unwrap(),
        before,
        "the source is unchanged"
    );

    // The remote's threads are listed through it; this machine's store holds none of them.
    let listed = local.ok(&["--host", "box", "threads"]);
    assert_eq!(listed["threads"].as_array().unwrap().len(), 2);
    assert!(local.ok(&["threads"])["threads"]
        .as_array()
        .unwrap()
        .is_empty());
    let here = files_under(local.home.path());
    assert!(
        !here.iter().any(|f| {
            let f = f.to_string_lossy();
            f.contains(".pi") || f.contains(".claude") || f.contains(".codex")
        }),
        "no session was written on this side: {here:?}"
    );
    // The remote's files belong to the remote user.
    let owner = std::process::Command::new("stat")
        .args(["-c", "%U"])
        .arg(&native)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&owner.stdout).trim(),
        "forkhost-remote"
    );
}

#[test]
fn claude_a_remote_thread_forked_at_reply_two_sends_the_remote_model_turns_one_and_two() {
    remote_fork_flow(Harness::Claude);
}

#[test]
fn codex_a_remote_thread_forked_at_reply_two_sends_the_remote_model_turns_one_and_two() {
    remote_fork_flow(Harness::Codex);
}

#[test]
fn pi_a_remote_thread_forked_at_reply_two_sends_the_remote_model_turns_one_and_two() {
    remote_fork_flow(Harness::Pi);
}

/// A branch moves to the remote at reply 2 and, two turns later, back: each side's model
/// receives exactly the branch's turns and then the new prompt; the source never changes.
/// Ends `child`'s whole process group (this side's forkhost and its ssh), as a closed laptop
/// or a dropped network would end the connection.
fn cut(child: &mut std::process::Child) {
    let group = i32::try_from(child.id()).unwrap();
    // SAFETY: a plain kill(2) of the process group this test started.
    unsafe { libc::kill(-group, libc::SIGKILL) };
    let _ = child.wait();
}

/// Reads `from` until what it printed contains `needle`; what it printed.
pub(crate) fn read_until(from: &mut impl std::io::Read, needle: &str) -> String {
    let mut seen = Vec::new();
    let mut buffer = [0u8; 256];
    while !String::from_utf8_lossy(&seen).contains(needle) {
        let n = from.read(&mut buffer).unwrap();
        assert!(
            n > 0,
            "ended before {needle:?}: {:?}",
            String::from_utf8_lossy(&seen)
        );
        seen.extend_from_slice(&buffer[..n]);
    }
    String::from_utf8_lossy(&seen).into_owned()
}

/// An approval waiting when the connection is cut is asked again on `attach`, answered there,
/// and the turn completes with the tool run once; an attach after that asks nothing.
#[test]
fn claude_an_approval_waiting_when_the_connection_drops_is_asked_again_on_attach() {
    let Some(sides) = Sides::start(Harness::Claude, FakeModelOptions::default()) else {
        return;
    };
    let Sides { local, remote, .. } = &sides;
    let thread = sides.new_thread("claude");

    let mut sending = local.spawn(&[
        "--host",
        "box",
        "send",
        &thread,
        "RUN_COMMAND `echo ran-once >> tool.log`",
        "--approve",
        "ask",
    ]);
    let mut stderr = sending.stderr.take().unwrap();
    let asked = read_until(&mut stderr, "allow?");
    assert!(
        asked.contains("ran-once"),
        "the card shows the command: {asked}"
    );
    cut(&mut sending);
    assert!(
        !remote.work_dir().join("tool.log").exists(),
        "nothing ran before it was allowed"
    );

    let (ok, attached, err) = local.run(&["--host", "box", "attach", &thread, "--approve", "all"]);
    assert!(ok, "attach failed: {attached}\n{err}");
    let approvals = attached["approvals"].as_array().unwrap();
    assert_eq!(
        approvals.len(),
        1,
        "the waiting request was asked again: {attached}"
    );
    assert_eq!(approvals[0]["decision"], "approve", "{attached}");
    assert_eq!(
        std::fs::read_to_string(remote.work_dir().join("tool.log")).unwrap(),
        "ran-once\n",
        "the approved command ran once, in the remote user's folder"
    );
    assert_eq!(attached["thread"]["turns"].as_array().unwrap().len(), 2);

    // Answered: attaching again asks nothing and shows the finished turn.
    let again = local.ok(&["--host", "box", "attach", &thread, "--approve", "none"]);
    assert!(again["approvals"].as_array().unwrap().is_empty(), "{again}");
    // A thread the remote does not know is said so.
    let (code, _) = local.error(&["--host", "box", "attach", "no-such-thread"]);
    assert_eq!(code, "thread_not_found");
}

/// A terminal's screen as it streams in, read on a thread of its own into a terminal emulator
/// (`vt100`) of the pseudo-terminal's size: a TUI moves its cursor and redraws only what
/// changed, so only the rendered screen says what a person sees (the raw bytes of "turn 2" can
/// be "urn 2" after a cursor move past a "t" drawn before).
struct Screen {
    seen: std::sync::Arc<std::sync::Mutex<vt100::Parser>>,
}

impl Screen {
    /// The size `spawn_in_terminal` gives its terminal.
    const ROWS: u16 = 40;
    const COLS: u16 = 100;

    fn read(mut from: impl std::io::Read + Send + 'static) -> Screen {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(vt100::Parser::new(
            Self::ROWS,
            Self::COLS,
            1000,
        )));
        let into = seen.clone();
        std::thread::spawn(move || {
            let mut buffer = [0u8; 4096];
            while let Ok(n @ 1..) = from.read(&mut buffer) {
                into.lock().unwrap().process(&buffer[..n]);
            }
        });
        Screen { seen }
    }

    /// What the screen shows now, spaces left out (a TUI pads and wraps as its width says).
    fn text(&self) -> String {
        let contents = self.seen.lock().unwrap().screen().contents();
        contents.chars().filter(|c| !c.is_whitespace()).collect()
    }

    /// Waits for `words` on the screen (spaces aside).
    fn wait_for(&self, words: &str, limit: std::time::Duration) {
        let needle: String = words.chars().filter(|c| !c.is_whitespace()).collect();
        let deadline = std::time::Instant::now() + limit;
        while !self.text().contains(&needle) {
            assert!(
                std::time::Instant::now() < deadline,
                "{words:?} never showed on the terminal:\n{}",
                self.seen.lock().unwrap().screen().contents()
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    }
}

/// The terminal tab of a remote thread, as the app runs it (`forkhost --host box terminal ID`
/// in a pseudo-terminal): Claude Code's own TUI runs there on the thread's session (it shows
/// turn 1 and takes a turn whose prompt reaches the remote model after turn 1); meanwhile the
/// thread takes no turn from anywhere else (`busy`); when the TUI ends the thread is free, and
/// its next turn sends the model both turns, the TUI's included.
#[test]
fn claude_a_remote_threads_own_tui_runs_there_and_holds_the_thread_until_it_ends() {
    use std::io::Write;
    let Some(sides) = Sides::start(Harness::Claude, FakeModelOptions::default()) else {
        return;
    };
    let Sides { local, model, .. } = &sides;
    let thread = sides.new_thread("claude");
    let mut tui = local.spawn_in_terminal(&["--host", "box", "terminal", &thread]);
    let screen = Screen::read(tui.stdout.take().unwrap());
    let mut keys = tui.stdin.take().unwrap();
    let minute = std::time::Duration::from_secs(60);
    screen.wait_for("reply (turn 1) to: first prompt", minute);

    // Held there: a turn from elsewhere is refused while the TUI has the session.
    let (code, words) = local.error(&["--host", "box", "send", &thread, "from elsewhere"]);
    assert_eq!(code, "busy", "{words}");
    assert!(words.contains("terminal"), "{words}");

    keys.write_all(b"from the tui").unwrap();
    keys.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    keys.write_all(b"\r").unwrap();
    keys.flush().unwrap();
    screen.wait_for("reply (turn 2) to: from the tui", minute);
    assert_eq!(
        model.last_model_request().unwrap().conversation(),
        [
            Msg::user("first prompt"),
            reply(1, "first prompt"),
            Msg::user("from the tui"),
        ],
        "the TUI resumed the thread's session there"
    );

    // Ctrl-C twice ends Claude Code's TUI, and the command with it.
    let deadline = std::time::Instant::now() + minute;
    let ended = loop {
        if let Some(status) = tui.try_wait().unwrap() {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the TUI did not end:\n{}",
            screen.text()
        );
        let _ = keys.write_all(b"\x03");
        let _ = keys.flush();
        std::thread::sleep(std::time::Duration::from_millis(400));
    };
    assert!(ended.success(), "forkhost terminal ended with {ended}");

    // Free again: the next turn comes from here, after both turns.
    local.ok(&["--host", "box", "send", &thread, "after the tui"]);
    assert_eq!(
        model.last_model_request().unwrap().conversation(),
        [
            Msg::user("first prompt"),
            reply(1, "first prompt"),
            Msg::user("from the tui"),
            reply(2, "from the tui"),
            Msg::user("after the tui"),
        ]
    );
    // Where there is no terminal, it says so in words.
    let (code, words) = local.error(&["--host", "box", "terminal", &thread]);
    assert_eq!(code, "invalid_input", "{words}");
    assert!(words.contains("terminal"), "{words}");
}

/// Every file under `dir` named `name`.
fn found_named(dir: &Path, name: &str) -> Vec<PathBuf> {
    files_under(dir)
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == name))
        .collect()
}

/// `python3` connecting to the Unix socket `socket` as `user` (runuser): whether it connected,
/// and what it said otherwise.
fn connects_as(user: &str, socket: &Path) -> (bool, String) {
    let out = Command::new("runuser")
        .args(["-u", user, "--", "python3", "-c"])
        .arg("import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])")
        .arg(socket)
        .output()
        .expect("runuser (util-linux) runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Another user's process on the remote cannot reach the remote user's daemon: its socket is
/// private to that user (in a 0700 data folder, itself 0600), so a process of another account
/// there is refused by the kernel before it can say anything; the remote user's own process
/// connects.
#[test]
fn pi_another_users_process_on_the_remote_cannot_reach_its_daemon() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let Some(sides) = Sides::start(Harness::Pi, FakeModelOptions::default()) else {
        return;
    };
    // A turn over ssh runs in the remote user's daemon: started now.
    sides.new_thread("pi");
    let sockets = found_named(sides.remote.root(), "serve.sock");
    let [socket] = sockets.as_slice() else {
        panic!("one daemon socket on the remote: {sockets:?}");
    };
    let folder = socket.parent().unwrap();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(folder), 0o700, "{}", folder.display());
    assert_eq!(mode(socket) & 0o077, 0, "{}", socket.display());
    let owner = std::fs::metadata(socket).unwrap().uid();
    assert_ne!(owner, 0, "the remote user's, not root's");

    let (theirs, said) = connects_as("nobody", socket);
    assert!(!theirs, "another user reached the daemon");
    assert!(said.contains("PermissionError"), "{said}");
    let (own, said) = connects_as(forkhost_tests::sshd::REMOTE_USER, socket);
    assert!(own, "the remote user's own process connects: {said}");
}

/// The remote's daemon killed mid-turn: the next send starts a new one, the thread is intact
/// (its finished turns, no turn left running, no stray thread), and it takes the new turn.
#[test]
fn pi_a_remote_daemon_that_died_mid_turn_is_started_again_with_the_thread_intact() {
    let Some(sides) = Sides::start(Harness::Pi, slow_model()) else {
        return;
    };
    let Sides { local, remote, .. } = &sides;
    let thread = sides.new_thread("pi");

    let mut sending = local.spawn(&["--host", "box", "send", &thread, "SLOW second prompt"]);
    let mut stdout = sending.stdout.take().unwrap();
    read_until(&mut stdout, "reply (turn 2)");
    let locks = files_under(remote.home())
        .into_iter()
        .filter(|f| f.file_name().is_some_and(|n| n == "serve.lock"))
        .collect::<Vec<_>>();
    assert_eq!(locks.len(), 1, "one daemon: {locks:?}");
    let pid = std::fs::read_to_string(&locks[0]).unwrap();
    let status = Command::new("kill")
        .args(["-KILL", pid.trim()])
        .status()
        .unwrap();
    assert!(status.success());
    let _ = sending.wait();

    let sent = local.ok(&["--host", "box", "send", &thread, "third prompt"]);
    let turns = sent["thread"]["turns"].as_array().unwrap();
    assert_eq!(
        turns.last().unwrap()["messages"][1]["text"],
        "reply (turn 3) to: third prompt",
        "{sent}"
    );
    assert_eq!(sent["thread"]["state"], "ready", "{sent}");
    let listed = local.ok(&["--host", "box", "threads"]);
    assert_eq!(listed["threads"].as_array().unwrap().len(), 1, "{listed}");
    let again = std::fs::read_to_string(&locks[0]).unwrap();
    assert_ne!(again.trim(), pid.trim(), "a new daemon serves the folder");
}

/// The connection cut mid-reply (this side and its ssh killed): the turn runs on in the
/// remote's daemon, and `attach` shows the whole reply and its end; the model was asked once.
#[test]
fn pi_a_remote_turn_runs_on_when_the_connection_drops_and_attach_shows_all_of_it() {
    let Some(sides) = Sides::start(Harness::Pi, slow_model()) else {
        return;
    };
    let Sides { local, .. } = &sides;
    let thread = sides.new_thread("pi");

    const PROMPT: &str = "SLOW second prompt";
    let mut sending = local.spawn(&["--host", "box", "send", &thread, PROMPT]);
    // Wait for the reply's first words on this side, then cut the connection.
    let mut stdout = sending.stdout.take().unwrap();
    let before_end = read_until(&mut stdout, "reply (turn 2)");
    cut(&mut sending);
    let whole = format!("reply (turn 2) to: {PROMPT}");
    assert!(
        !before_end.contains(&whole),
        "the connection was cut before the reply ended: {before_end:?}"
    );

    // Back: attach replays what streamed meanwhile and follows the turn to its end.
    let stderr = attached_whole(local, &sides.model, &thread, PROMPT);
    assert!(
        stderr.replace('\n', "").contains(&whole),
        "attach shows the whole reply, from its first word: {stderr:?}"
    );

    // Attached again after its end: the finished turn, not a wait.
    let (ok, again, stderr) = local.run(&["--host", "box", "attach", &thread]);
    assert!(ok, "{again}\n{stderr}");
    assert_eq!(again["thread"]["turns"].as_array().unwrap().len(), 2);
}

/// The connection cut while a fork runs there (this side and its ssh killed at points through
/// the fork, from its first moment to its end): each fork either exists on the remote whole —
/// listed and shown on reconnect with exactly its turn, its own native session — or not at all.
/// Never a half-made thread, never a native session without its thread; the source's session
/// is byte for byte as it was.
#[test]
fn pi_a_fork_cut_off_midway_is_whole_on_reconnect_or_not_there_at_all() {
    let Some(sides) = Sides::start(Harness::Pi, FakeModelOptions::default()) else {
        return;
    };
    let Sides { local, remote, .. } = &sides;
    let thread = sides.new_thread("pi");
    let shown = local.ok(&["--host", "box", "send", &thread, "second prompt"]);
    let native = PathBuf::from(shown["thread"]["native"]["path"].as_str().unwrap());
    let before = std::fs::read(&native).unwrap();
    let sessions = || {
        files_under(remote.home())
            .into_iter()
            .filter(|f| {
                f.extension().is_some_and(|e| e == "jsonl")
                    && f.starts_with(native.parent().unwrap())
            })
            .count()
    };
    let listed = || {
        local.ok(&["--host", "box", "threads"])["threads"]
            .as_array()
            .unwrap()
            .clone()
    };

    for delay_ms in [50u64, 300, 700, 1200, 2500] {
        let mut forking = local.spawn(&["--host", "box", "fork", &thread, "--after", "1"]);
        std::thread::sleep(std::time::Duration::from_millis(delay_ms));
        cut(&mut forking);
        // Reconnect once the remote's side of the cut fork has settled: its `forkhost` (which
        // goes on without its client) ended, whole or undone. Counting files and threads
        // until they agree is not enough: it caught a fork between Pi writing its session
        // and its commit.
        let started = std::time::Instant::now();
        while forkhost_tests::procs::running_with_args(&["remote-exec", "fork", &thread]) {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "the remote fork cut at {delay_ms} ms never ended"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        let threads = listed();
        assert_eq!(
            sessions(),
            threads.len(),
            "after a cut at {delay_ms} ms: one native session per listed thread, none half made: {threads:?}"
        );
        for fork in threads.iter().filter(|t| t["id"] != thread.as_str()) {
            let id = fork["id"].as_str().unwrap();
            let detail = local.ok(&["--host", "box", "show", id]);
            assert_eq!(detail["thread"]["state"], "ready", "{detail}");
            assert_eq!(
                detail["thread"]["turns"].as_array().unwrap().len(),
                1,
                "a whole fork after reply 1: {detail}"
            );
            assert_eq!(
                detail["thread"]["fork"]["source_thread"],
                thread.as_str(),
                "{detail}"
            );
        }
    }
    assert_eq!(
        std::fs::read(&native).unwrap(),
        before,
        "the source is unchanged"
    );
    // The forks that exist take a turn: each is a native session of its own there.
    let threads = listed();
    if let Some(fork) = threads.iter().find(|t| t["id"] != thread.as_str()) {
        let id = fork["id"].as_str().unwrap();
        let sent = local.ok(&["--host", "box", "send", id, "after the cut"]);
        assert_eq!(
            sent["thread"]["turns"].as_array().unwrap().len(),
            2,
            "{sent}"
        );
        assert_eq!(
            sides.model.last_model_request().unwrap().conversation(),
            [
                Msg::user("first prompt"),
                reply(1, "first prompt"),
                Msg::user("after the cut"),
            ]
        );
    }
}

/// Three clients of one remote daemon at once: the one that sent the turn and two that attach
/// while it streams each see the whole reply, the turn runs once, and a second send to the
/// running thread is refused as `busy` rather than queued behind it or run beside it.
#[test]
fn pi_three_clients_of_one_remote_daemon_each_see_the_whole_turn_and_a_second_send_is_busy() {
    let Some(sides) = Sides::start(Harness::Pi, slow_model()) else {
        return;
    };
    let Sides { local, .. } = &sides;
    let thread = sides.new_thread("pi");

    const PROMPT: &str = "SLOW shared prompt";
    let mut sending = local.spawn(&["--host", "box", "send", &thread, PROMPT]);
    let mut stdout = sending.stdout.take().unwrap();
    read_until(&mut stdout, "reply (turn 2)");
    let whole = format!("reply (turn 2) to: {PROMPT}");
    let (busy, attached) = std::thread::scope(|s| {
        let attaches: Vec<_> = (0..2)
            .map(|_| s.spawn(|| local.run(&["--host", "box", "attach", &thread])))
            .collect();
        let busy = local.error(&["--host", "box", "send", &thread, "while it runs"]);
        let attached: Vec<_> = attaches.into_iter().map(|a| a.join().unwrap()).collect();
        (busy, attached)
    });
    assert_eq!(busy.0, "busy", "{}", busy.1);
    for (ok, json, stderr) in attached {
        assert!(ok, "{json}\n{stderr}");
        assert!(stderr.replace('\n', "").contains(&whole), "{stderr:?}");
        assert_eq!(
            json["thread"]["turns"].as_array().unwrap().len(),
            2,
            "{json}"
        );
    }
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
    let status = sending.wait().unwrap();
    assert!(status.success(), "the sender saw its turn end: {rest:?}");
    let asked = |prompt: &str| {
        sides
            .model
            .model_requests()
            .iter()
            .filter(|r| r.last_user_text() == Some(prompt))
            .count()
    };
    assert_eq!(asked(PROMPT), 1, "the turn ran once");
    assert_eq!(
        asked("while it runs"),
        0,
        "the busy send never reached the model"
    );
}

#[test]
fn pi_a_branch_continues_on_the_remote_at_reply_two_and_comes_back() {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(remote) = HarnessEnv::for_fake(Harness::Pi, &model).unwrap() else {
        return;
    };
    let here = HarnessEnv::for_fake(Harness::Pi, &model).unwrap().unwrap();
    let Some(sshd) = Sshd::start(&remote, &forkhost_bin()) else {
        return;
    };
    sshd.trust_host_key();
    let local = Local::with_env(&sshd, &here);
    local.ok(&["hosts", "add", "box", HOST_ALIAS]);
    let here_cwd = here.work_dir().display().to_string();
    let created = local.ok(&["new", "--harness", "pi", "--cwd", &here_cwd, "first prompt"]);
    let source = id(&created);
    local.ok(&["send", &source, "second prompt"]);
    let shown = local.ok(&["send", &source, "third prompt"]);
    let native = PathBuf::from(shown["thread"]["native"]["path"].as_str().unwrap());
    let before = std::fs::read(&native).unwrap();

    let remote_cwd = remote.work_dir().display().to_string();
    let moved = local.ok(&[
        "fork",
        &source,
        "--after",
        "2",
        "--to-host",
        "box",
        "--cwd",
        &remote_cwd,
    ]);
    assert_eq!(moved["host"], "box");
    let there = moved["thread"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        moved["thread"]["turns"].as_array().unwrap().len(),
        2,
        "{moved}"
    );
    local.ok(&["--host", "box", "send", &there, "on the remote"]);
    let mut want = vec![
        Msg::user("first prompt"),
        reply(1, "first prompt"),
        Msg::user("second prompt"),
        reply(2, "second prompt"),
        Msg::user("on the remote"),
    ];
    assert_eq!(
        model.last_model_request().unwrap().conversation(),
        want,
        "the remote model receives turns 1-2, then the new prompt"
    );
    let remote_native = local.ok(&["--host", "box", "show", &there])["thread"]["native"]["path"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        Path::new(&remote_native).starts_with(remote.home()),
        "{remote_native}"
    );

    // And back here after its third turn.
    let back = local.ok(&[
        "--host",
        "box",
        "fork",
        &there,
        "--after",
        "3",
        "--to-host",
        "local",
        "--cwd",
        &here_cwd,
    ]);
    assert_eq!(back["host"], "local");
    local.ok(&["send", back["thread"]["id"].as_str().unwrap(), "back home"]);
    want.push(reply(3, "on the remote"));
    want.push(Msg::user("back home"));
    assert_eq!(model.last_model_request().unwrap().conversation(), want);
    assert_eq!(
        std::fs::read(&native).unwrap(),
        before,
        "the source is unchanged"
    );

    // A target without the harness: refused in words, nothing made there.
    let (code, message) = local.error(&[
        "fork",
        &source,
        "--after",
        "2",
        "--to-host",
        "box",
        "--cwd",
        "/nonexistent",
    ]);
    assert_eq!(code, "invalid_input", "{message}");
    assert_eq!(
        local.ok(&["--host", "box", "threads"])["threads"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

/// A remote with no forkhost gets this one on the first command, over the same ssh: written
/// into the remote user's cache folder byte for byte, remembered by the host, and run from
/// there by the next commands without installing again.
#[test]
fn pi_a_remote_without_forkhost_gets_this_one_on_the_first_command() {
    let Some(sides) = Sides::start_with(Harness::Pi, FakeModelOptions::default(), |remote| {
        Sshd::start_without_forkhost(remote, None)
    }) else {
        return;
    };
    let Sides { local, remote, .. } = &sides;

    let (ok, listed, stderr) = local.run(&["--host", "box", "threads"]);
    assert!(ok, "{listed}\n{stderr}");
    assert!(listed["threads"].as_array().unwrap().is_empty(), "{listed}");
    assert!(
        stderr.contains("installing forkhost"),
        "it says so: {stderr}"
    );
    let hosts = local.ok(&["hosts"]);
    let program = PathBuf::from(hosts["hosts"][0]["remote_program"].as_str().unwrap());
    assert!(
        program.starts_with(remote.home().join(".cache/forkhost/bin")),
        "{}",
        program.display()
    );
    assert_eq!(
        std::fs::read(&program).unwrap(),
        std::fs::read(forkhost_bin()).unwrap(),
        "this very forkhost"
    );
    let owner = Command::new("stat")
        .args(["-c", "%U"])
        .arg(&program)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&owner.stdout).trim(),
        "forkhost-remote"
    );

    // Installed once: the next commands run it, a turn in the remote's daemon among them.
    let cwd = remote.work_dir().display().to_string();
    let (ok, created, stderr) = local.run(&[
        "--host",
        "box",
        "new",
        "--harness",
        "pi",
        "--cwd",
        &cwd,
        "first prompt",
    ]);
    assert!(ok, "{created}\n{stderr}");
    assert!(!stderr.contains("installing"), "{stderr}");
    assert_eq!(
        created["thread"]["turns"][0]["messages"][1]["text"],
        "reply (turn 1) to: first prompt"
    );
}

/// A remote of another architecture: without its CLI here, refused in words naming the release
/// archive it needs and the folder to put it in, nothing written there, the host as it was;
/// with the release's archive in that folder, the first command copies that archive's
/// `forkhost` there and runs it. (The remote is this machine behind a `uname` that says another
/// architecture, so the archive holds this build: what is proved is which file is chosen,
/// unpacked and copied, not that an aarch64 build runs.)
#[test]
fn a_remote_of_another_architecture_gets_the_release_archives_cli_or_is_refused_naming_it() {
    let other = if std::env::consts::ARCH == "x86_64" {
        "aarch64"
    } else {
        "x86_64"
    };
    // The remote's `uname` says another machine.
    let fake = tempfile::tempdir().unwrap();
    let uname = fake.path().join("uname");
    forkhost_test_script::write_executable(&uname, &format!("#!/bin/sh\necho 'Linux {other}'\n"))
        .unwrap();
    let Some(sides) = Sides::start_with(Harness::Pi, FakeModelOptions::default(), |remote| {
        Sshd::start_without_forkhost(remote, Some(fake.path()))
    }) else {
        return;
    };
    let Sides { local, remote, .. } = &sides;
    let (code, message) = local.error(&["--host", "box", "threads"]);
    assert_eq!(code, "unsupported", "{message}");
    assert!(
        message.contains(&format!(
            "forkhost-cli-{}-{other}-unknown-linux-gnu",
            forkhost_core::VERSION
        )),
        "{message}"
    );
    assert!(!remote.home().join(".cache/forkhost/bin").exists());
    assert!(local.ok(&["hosts"])["hosts"][0]["remote_program"].is_null());
    // This side's CLI archives folder: the user's cache.
    let folder = local.home().join(".cache/forkhost/cli");
    assert!(
        message.contains(&folder.display().to_string()),
        "the words name where to put it: {message}"
    );

    // The release's archive for that system, put where the words said.
    std::fs::create_dir_all(&folder).unwrap();
    let staging = tempfile::tempdir().unwrap();
    std::fs::copy(forkhost_bin(), staging.path().join("forkhost")).unwrap();
    let archive = folder.join(format!(
        "forkhost-cli-{}-{other}-unknown-linux-gnu.tar.gz",
        forkhost_core::VERSION
    ));
    let tarred = Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(staging.path())
        .arg("forkhost")
        .status()
        .unwrap();
    assert!(tarred.success());
    let threads = local.ok(&["--host", "box", "threads"]);
    assert_eq!(threads["threads"].as_array().unwrap().len(), 0, "{threads}");
    let installed = local.ok(&["hosts"])["hosts"][0]["remote_program"]
        .as_str()
        .expect("the host remembers the copy")
        .to_owned();
    assert!(
        installed.contains(".cache/forkhost/bin/forkhost-"),
        "{installed}"
    );
    assert_eq!(
        std::fs::read(&installed).unwrap(),
        std::fs::read(forkhost_bin()).unwrap(),
        "the archive's forkhost, copied whole"
    );
}

#[test]
fn host_keys_are_never_accepted_silently_and_bad_hosts_are_named() {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(remote) = HarnessEnv::for_fake(Harness::Pi, &model).unwrap() else {
        return;
    };
    let Some(sshd) = Sshd::start(&remote, &forkhost_bin()) else {
        return;
    };
    let local = Local::new(&sshd);
    local.ok(&["hosts", "add", "box", HOST_ALIAS]);

    // Unknown key: refused, its fingerprint named, nothing written to known_hosts.
    let (code, message) = local.error(&["--host", "box", "threads"]);
    assert_eq!(code, "host_key_unknown", "{message}");
    assert!(message.contains(&sshd.fingerprint()), "{message}");
    assert_eq!(std::fs::read_to_string(&sshd.known_hosts).unwrap(), "");

    // A changed key: known_hosts holds another key for the host.
    std::fs::write(
        &sshd.known_hosts,
        format!(
            "[127.0.0.1]:{} ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHS7DJyxNOgPchUaQ9Sa8iPv1lI2r+hU1sZmKnPXhpD4\n",
            sshd.port
        ),
    )
    .unwrap();
    let (code, message) = local.error(&["--host", "box", "threads"]);
    assert_eq!(code, "host_key_changed", "{message}");
    assert!(message.contains(&sshd.fingerprint()), "{message}");

    // With the key trusted it works.
    std::fs::write(&sshd.known_hosts, "").unwrap();
    sshd.trust_host_key();
    assert!(local.ok(&["--host", "box", "threads"])["threads"]
        .as_array()
        .unwrap()
        .is_empty());

    // A name never added; a port nobody listens on; a remote without forkhost; a destination
    // that would be an option.
    let (code, message) = local.error(&["--host", "nowhere", "threads"]);
    assert_eq!(code, "invalid_input", "{message}");
    assert!(message.contains("known: box"), "{message}");
    local.ok(&["hosts", "add", "closed", HOST_ALIAS, "--", "-p", "1"]);
    let (code, message) = local.error(&["--host", "closed", "threads"]);
    assert_eq!(code, "host_unreachable", "{message}");
    assert!(message.contains("refused"), "{message}");
    local.ok(&[
        "hosts",
        "add",
        "bare",
        HOST_ALIAS,
        "--forkhost",
        "/nonexistent/forkhost",
    ]);
    let (code, message) = local.error(&["--host", "bare", "threads"]);
    assert_eq!(code, "host_unreachable", "{message}");
    assert!(message.contains("no forkhost"), "{message}");
    let (code, _) = local.error(&["hosts", "add", "evil", "-oProxyCommand=touch /tmp/x"]);
    assert_eq!(code, "invalid_input");
    let (code, _) = local.error(&["--host", "box", "hosts"]);
    assert_eq!(code, "invalid_input");

    // The remote's end refuses a client of another version, in words, before anything runs.
    let (code, message) =
        local.error(&["remote-exec", "--client-version", "0.0.1", "--", "threads"]);
    assert_eq!(code, "version_mismatch", "{message}");
    assert!(message.contains("0.0.1"), "{message}");
}

/// `--host box serve --attach` is the remote daemon relayed over ssh (the app's link to a
/// remote thread): it greets with the remote's daemon and answers for a thread that exists only
/// there — not a daemon of this machine's data folder, which knows no such thread.
#[test]
fn pi_serve_attach_with_a_host_speaks_to_the_remotes_daemon() {
    use std::io::{BufRead, Write};
    let Some(sides) = Sides::start(Harness::Pi, FakeModelOptions::default()) else {
        return;
    };
    let Sides { local, .. } = &sides;
    let thread = sides.new_thread("pi");
    let mut relay = local.spawn(&["--json", "--host", "box", "serve", "--attach"]);
    let mut stdin = relay.stdin.take().unwrap();
    let mut lines = std::io::BufReader::new(relay.stdout.take().unwrap()).lines();
    let mut call = |line: Value| -> Value {
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
        let answer = lines.next().expect("an answer").unwrap();
        serde_json::from_str(&answer).unwrap()
    };
    let hello = call(serde_json::json!({
        "id": 1, "call": "hello",
        "version": env!("CARGO_PKG_VERSION"), "protocol": forkhost_core::PROTOCOL,
    }));
    assert_eq!(hello["result"]["Ok"]["kind"], "hello", "{hello}");
    let shown = call(serde_json::json!({"id": 2, "call": "show", "thread": thread}));
    assert_eq!(
        shown["result"]["Ok"]["detail"]["id"],
        thread.as_str(),
        "the remote's thread, read there: {shown}"
    );
    let renamed = call(serde_json::json!({
        "id": 3, "call": "rename", "thread": thread, "title": "named from this side",
    }));
    assert_eq!(
        renamed["result"]["Ok"]["thread"]["title"], "named from this side",
        "{renamed}"
    );
    drop(stdin);
    cut(&mut relay);
    let listed = local.ok(&["--host", "box", "threads"]);
    assert_eq!(
        listed["threads"][0]["title"], "named from this side",
        "{listed}"
    );
}
