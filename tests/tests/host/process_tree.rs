//! A harness's process tree never outlives the Host's process, however that ends, and quitting
//! stops stuck harnesses within the 3 s a quit may take.
//!
//! The Host runs in a child process: this test binary re-run with `FORKHOST_TREE_CHILD` set
//! (as in `host/fork_crash.rs`), so it can be SIGKILLed. Its harness is a fake `claude` that starts
//! a tool (`sleep 300 &`), ignores SIGTERM and the end of its stdin, and starts the turn it is
//! sent without ever finishing it: the stuck harness a quit must still end. Every process of
//! the tree carries a marker variable and the fake records its process group, so "nothing
//! left" is a scan of `/proc` for either.

#![cfg(target_os = "linux")]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use forkhost_core::{HarnessKind, Host, HostOptions, NewThreadSpec};

const CHILD: &str = "FORKHOST_TREE_CHILD";
const MARK: &str = "FORKHOST_TREE_MARK";
const PIDS: &str = "FORKHOST_TREE_PIDS";

/// The fake harness. `--version` like Claude Code's; otherwise: a tool in the background, the
/// `init` of the first prompt's turn, then nothing, deaf to SIGTERM (the tool inherits that).
const FAKE_CLAUDE: &str = r#"#!/bin/sh
if [ "$1" = "--version" ]; then echo "2.1.197 (Claude Code)"; exit 0; fi
trap '' TERM
sleep 300 &
echo "$$" >> "$FORKHOST_TREE_PIDS"
sid=""; prev=""
for a in "$@"; do
  if [ "$prev" = "--session-id" ]; then sid="$a"; fi
  prev="$a"
done
read -r prompt
printf '{"type":"system","subtype":"init","session_id":"%s"}\n' "$sid"
sleep 300
"#;

/// Child mode: open a Host, start a turn in `n` threads, say READY; then either hold (until
/// killed) or quit and say how long it took, then wait for stdin to close.
fn child_main() -> bool {
    let Ok(spec) = std::env::var(CHILD) else {
        return false;
    };
    let parts: Vec<&str> = spec.split('\n').collect();
    let [mode, data, cwd, config, n] = parts[..] else {
        panic!("bad child spec {spec:?}")
    };
    let n: usize = n.parse().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let options = HostOptions {
            harness_env: vec![("CLAUDE_CONFIG_DIR".into(), config.into())],
            ..Default::default()
        };
        let (host, _) = Host::open_with(data, options).await.unwrap();
        let mut turns = Vec::new();
        for _ in 0..n {
            let thread = host
                .create(NewThreadSpec {
                    harness: HarnessKind::Claude,
                    cwd: PathBuf::from(cwd),
                    title: None,
                    permissions: Default::default(),
                })
                .await
                .unwrap();
            turns.push(host.start_turn(&thread.thread.id, "hello").await.unwrap());
        }
        println!("READY");
        if mode == "hold" {
            std::future::pending::<()>().await;
        }
        let started = Instant::now();
        host.shutdown().await;
        println!("SHUTDOWN_MS {}", started.elapsed().as_millis());
        drop(turns);
    });
    let mut line = String::new();
    let _ = std::io::stdin().read_line(&mut line);
    true
}

struct Run {
    child: Child,
    lines: mpsc::Receiver<String>,
    pids_file: PathBuf,
    marker: String,
    _dirs: tempfile::TempDir,
}

fn start(test: &str, mode: &str, threads: usize) -> Run {
    let dirs = tempfile::tempdir().unwrap();
    let root = dirs.path();
    let fake = root.join("claude");
    forkhost_test_script::write_executable(&fake, FAKE_CLAUDE).unwrap();
    for dir in ["data", "cwd", "config"] {
        std::fs::create_dir(root.join(dir)).unwrap();
    }
    let pids_file = root.join("pids");
    let marker = format!("tree-{}", uuid::Uuid::new_v4());
    let spec = [
        mode.to_owned(),
        root.join("data").display().to_string(),
        root.join("cwd").display().to_string(),
        root.join("config").display().to_string(),
        threads.to_string(),
    ]
    .join("\n");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            forkhost_tests::test_name(module_path!(), test).as_str(),
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, spec)
        .env(MARK, &marker)
        .env(PIDS, &pids_file)
        .env("FORKHOST_CLAUDE_BIN", &fake)
        .env("FORKHOST_LOGIN_SHELL", "0")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    Run {
        child,
        lines,
        pids_file,
        marker,
        _dirs: dirs,
    }
}

impl Run {
    /// What follows `word` in the first line that has it, within a minute (the test
    /// harness's own "test … " may start the line).
    fn expect(&self, word: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.contains(word) => {
                    return line[line.find(word).unwrap_or(0) + word.len()..]
                        .trim()
                        .to_owned()
                }
                Ok(_) => {}
                Err(err) => panic!("no {word:?} from the Host process: {err}"),
            }
        }
    }

    /// The fake harnesses' process groups (the watchdog leads each; the harness and its tool
    /// are members).
    fn groups(&self, threads: usize) -> Vec<i32> {
        let text = std::fs::read_to_string(&self.pids_file).unwrap();
        let pids: Vec<u32> = text.lines().map(|l| l.trim().parse().unwrap()).collect();
        assert_eq!(pids.len(), threads, "{text}");
        pids.iter()
            .map(|&pid| stat(pid).expect("the harness runs").1)
            .collect()
    }

    /// Live (not zombie) processes that carry the marker or belong to one of `groups`, but
    /// for the Host's process itself.
    fn tree_left(&self, groups: &[i32]) -> Vec<String> {
        let mut left = Vec::new();
        for pid in forkhost_tests::procs::pids() {
            if pid == self.child.id() {
                continue;
            }
            let Some((state, pgid, name)) = stat(pid) else {
                continue;
            };
            if state == 'Z' {
                continue;
            }
            let marked = std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == self.marker_var()));
            if marked || groups.contains(&pgid) {
                left.push(format!("{pid} {name} (group {pgid})"));
            }
        }
        left
    }

    fn marker_var(&self) -> Vec<u8> {
        format!("{MARK}={}", self.marker).into_bytes()
    }

    /// Polls until nothing of the tree is left; how long that took.
    fn wait_gone(&self, groups: &[i32], limit: Duration) -> Duration {
        let start = Instant::now();
        loop {
            let left = self.tree_left(groups);
            if left.is_empty() {
                return start.elapsed();
            }
            assert!(
                start.elapsed() < limit,
                "still running after {limit:?}: {left:?}"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Run {
    /// A failed test leaves no Host process behind.
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// (state, process group, name) from `/proc/<pid>/stat`.
fn stat(pid: u32) -> Option<(char, i32, String)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let name = text[open + 1..close].to_owned();
    let mut rest = text[close + 1..].split_whitespace();
    let state = rest.next()?.chars().next()?;
    let _ppid = rest.next()?;
    let pgid = rest.next()?.parse().ok()?;
    Some((state, pgid, name))
}

fn kill(child: &Child, signal: i32) {
    // SAFETY: signals the Host process this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
}

#[test]
fn the_tree_dies_with_a_sigkilled_host() {
    if child_main() {
        return;
    }
    let mut run = start("the_tree_dies_with_a_sigkilled_host", "hold", 1);
    run.expect("READY");
    let groups = run.groups(1);
    let before = run.tree_left(&groups);
    // The watchdog, the harness, its tool (and soon its foreground sleep).
    assert!(before.len() >= 3, "{before:?}");
    kill(&run.child, libc::SIGKILL);
    run.child.wait().unwrap();
    let took = run.wait_gone(&groups, Duration::from_secs(5));
    println!(
        "host SIGKILLed: its harness tree ({} processes) gone {took:?} later",
        before.len()
    );
}

#[test]
fn quitting_stops_three_stuck_harnesses_within_three_seconds() {
    if child_main() {
        return;
    }
    let mut run = start(
        "quitting_stops_three_stuck_harnesses_within_three_seconds",
        "quit",
        3,
    );
    run.expect("READY");
    let groups = run.groups(3);
    assert!(run.tree_left(&groups).len() >= 9);
    let ms: u64 = run.expect("SHUTDOWN_MS").parse().unwrap();
    // The Host process still runs: what is gone, the shutdown ended.
    let took = run.wait_gone(&groups, Duration::from_secs(2));
    println!("quit with 3 stuck harnesses: {ms} ms (+{took:?} until the last process was gone)");
    assert!(ms <= 3000, "shutdown took {ms} ms");
    drop(run.child.stdin.take());
    let status = run.child.wait().unwrap();
    assert!(status.success(), "{status}");
}
