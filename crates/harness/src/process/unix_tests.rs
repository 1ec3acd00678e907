//! The tree with real processes: a script that leaves a background child behind, like a
//! harness whose tool is still running.

use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, BufReader};

use super::*;

/// Prints its pid and its background child's, then waits; ignores SIGTERM (so does the child,
/// which inherits the ignored signal).
const STUBBORN: &str = "trap '' TERM; sleep 300 & echo $$ $!; sleep 300";

fn sh(script: &str) -> HarnessCommand {
    let mut cmd = HarnessCommand::new(Path::new("/bin/sh"));
    cmd.arg("-c").arg(script);
    cmd
}

/// The two pids the script printed.
async fn pids(spawned: &mut Spawned) -> Vec<u32> {
    let stdout = spawned.child.stdout.take().unwrap();
    let mut line = String::new();
    BufReader::new(stdout).read_line(&mut line).await.unwrap();
    line.split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect()
}

/// Running, and not a zombie waiting for its reaper.
fn alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        // No /proc (macOS): whether the pid still answers.
        Err(_) if !Path::new("/proc/self").exists() => {
            // SAFETY: signal 0 only checks for existence.
            unsafe { libc::kill(pid as libc::pid_t, 0) == 0 }
        }
        Err(_) => false,
    }
}

async fn gone_within(pids: &[u32], limit: Duration) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if pids.iter().all(|&p| !alive(p)) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn kill_takes_the_background_child_too() {
    let mut spawned = sh(STUBBORN).spawn().unwrap();
    let pids = pids(&mut spawned).await;
    assert_eq!(pids.len(), 2);
    let group = spawned.tree.id().unwrap();
    assert_ne!(
        group, pids[0],
        "the watchdog leads the group, not the harness"
    );
    spawned.tree.terminate();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(pids.iter().all(|&p| alive(p)), "SIGTERM is ignored");
    assert!(alive(group), "the watchdog outlives a SIGTERM to its group");
    spawned.tree.kill();
    let status = spawned.child.wait().await.unwrap();
    assert_eq!(describe_exit(status), "killed by signal 9 (SIGKILL)");
    assert!(gone_within(&pids, Duration::from_secs(5)).await);
}

#[tokio::test]
async fn the_last_clone_dropped_ends_the_tree() {
    let mut spawned = sh(STUBBORN).spawn().unwrap();
    let pids = pids(&mut spawned).await;
    let Spawned { child, tree, .. } = spawned;
    let other = tree.clone();
    drop(tree);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(pids.iter().all(|&p| alive(p)), "a clone still holds it");
    drop(other);
    assert!(gone_within(&pids, Duration::from_secs(5)).await);
    drop(child);
}

#[tokio::test]
async fn stderr_and_exit_of_a_failing_process() {
    let mut spawned = sh("echo starting >&2; echo 'fatal: no config' >&2; exit 3")
        .spawn()
        .unwrap();
    let status = spawned.child.wait().await.unwrap();
    assert!(spawned.stderr.wait_closed(Duration::from_secs(5)).await);
    assert_eq!(describe_exit(status), "exited with code 3");
    assert_eq!(spawned.stderr.text(), "starting\nfatal: no config");
}

#[tokio::test]
async fn output_reads_a_version_and_stops_a_hung_command() {
    let out = sh("echo '2.1.197 (Claude Code)'; sleep 300 &")
        .output(Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(out.stdout, b"2.1.197 (Claude Code)\n");

    let marker = std::env::temp_dir().join(format!("fh-hung-{}", std::process::id()));
    let script = format!("echo $$ > {}; sleep 300", marker.display());
    let started = Instant::now();
    let err = sh(&script)
        .output(Duration::from_millis(500))
        .await
        .unwrap_err();
    assert!(matches!(err, OutputError::Timeout(_)), "{err}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let pid: u32 = std::fs::read_to_string(&marker)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let _ = std::fs::remove_file(&marker);
    assert!(gone_within(&[pid], Duration::from_secs(5)).await);
}

#[tokio::test]
async fn a_missing_program_is_harness_not_found() {
    let err = HarnessCommand::new(Path::new("/nonexistent/forkhost/claude"))
        .spawn()
        .map(|_| ())
        .unwrap_err();
    let err = start_error(HarnessKind::Claude, Path::new("/nonexistent"), err);
    assert!(
        matches!(err, HarnessError::HarnessNotFound { .. }),
        "{err:?}"
    );
}

/// The terminal's way: a process started elsewhere as its own group leader is adopted,
/// waited for without reaping, its leftovers killed, then released and reaped.
#[test]
fn an_adopted_leader_is_waited_for_and_its_leftovers_killed() {
    use std::io::BufRead;
    use std::os::unix::process::CommandExt;
    let mut child = std::process::Command::new("/bin/sh")
        .args(["-c", "sleep 300 & echo $!; exit 4"])
        .stdout(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let tree = Tree::adopt(child.id(), None).unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let leftover: u32 = line.trim().parse().unwrap();
    wait_exited(child.id()).unwrap();
    assert!(alive(leftover));
    tree.kill();
    tree.release();
    let status = child.wait().unwrap();
    assert_eq!(describe_exit(status), "exited with code 4");
    let start = Instant::now();
    while alive(leftover) && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!alive(leftover));
    // Released: a later kill or drop signals no one.
    tree.kill();
    drop(tree);
}
