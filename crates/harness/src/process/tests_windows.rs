//! The job with real processes (under Wine on the lab machine, on Windows in CI).

use std::time::Duration;

use super::*;

/// `cmd` waiting for a line on its stdin, which nobody writes.
fn waiting_cmd() -> HarnessCommand {
    let mut cmd = HarnessCommand::new(Path::new("cmd.exe"));
    cmd.args(["/c", "set /p x="]);
    cmd
}

#[tokio::test]
async fn output_reads_a_version_through_the_job() {
    let mut cmd = HarnessCommand::new(Path::new("cmd.exe"));
    cmd.args(["/c", "echo 2.1.197 (Claude Code)"]);
    let out = cmd.output(Duration::from_secs(30)).await.unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("2.1.197 (Claude Code)"), "{text:?}");
}

#[tokio::test]
async fn kill_ends_the_job() {
    let mut spawned = waiting_cmd().spawn().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    spawned.tree.kill();
    let status = tokio::time::timeout(Duration::from_secs(10), spawned.child.wait())
        .await
        .expect("the job's kill ended the process")
        .unwrap();
    // TerminateJobObject's exit code, not kill_on_drop's.
    assert_eq!(describe_exit(status), "exited with code 1");
}

#[tokio::test]
async fn closing_the_last_handle_ends_the_job() {
    let Spawned {
        mut child, tree, ..
    } = waiting_cmd().spawn().unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(tree);
    tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("kill-on-close ended the process")
        .unwrap();
}
