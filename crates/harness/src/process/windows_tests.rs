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

#[tokio::test]
async fn a_grandchild_started_at_once_is_in_the_job_and_dies_with_it() {
    use windows_sys::Win32::Foundation::{HANDLE, INVALID_HANDLE_VALUE, WAIT_OBJECT_0};
    use windows_sys::Win32::System::Diagnostics::ToolHelp::{
        CreateToolhelp32Snapshot, Process32FirstW, Process32NextW, PROCESSENTRY32W,
        TH32CS_SNAPPROCESS,
    };
    use windows_sys::Win32::System::Threading::{
        OpenProcess, WaitForSingleObject, PROCESS_QUERY_INFORMATION, PROCESS_SYNCHRONIZE,
    };

    /// The first process named `name` whose parent is `parent`, opened to be waited for and
    /// queried (Wine's IsProcessInJob wants the full query right, not the limited one).
    fn child_of(parent: u32, name: &str) -> Option<HANDLE> {
        // SAFETY: plain calls on a snapshot we close; entries carry their size.
        unsafe {
            let snapshot = CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0);
            assert_ne!(snapshot, INVALID_HANDLE_VALUE);
            let mut entry = PROCESSENTRY32W {
                dwSize: std::mem::size_of::<PROCESSENTRY32W>() as u32,
                ..Default::default()
            };
            let mut more = Process32FirstW(snapshot, &mut entry) != 0;
            let is = |e: &PROCESSENTRY32W| {
                let len = e.szExeFile.iter().position(|&c| c == 0).unwrap_or(260);
                e.th32ParentProcessID == parent
                    && String::from_utf16_lossy(&e.szExeFile[..len]).eq_ignore_ascii_case(name)
            };
            while more && !is(&entry) {
                more = Process32NextW(snapshot, &mut entry) != 0;
            }
            windows_sys::Win32::Foundation::CloseHandle(snapshot);
            let access = PROCESS_QUERY_INFORMATION | PROCESS_SYNCHRONIZE;
            more.then(|| OpenProcess(access, 0, entry.th32ProcessID))
                .filter(|h| !h.is_null())
        }
    }

    // The child's first act is to start a second `cmd`, which waits on the inherited stdin.
    let mut cmd = HarnessCommand::new(Path::new("cmd.exe"));
    cmd.args(["/c", "cmd /c set /p x="]);
    let Spawned {
        mut child, tree, ..
    } = cmd.spawn().unwrap();
    assert!(tree.0.in_job(child.raw_handle().unwrap() as HANDLE));

    let pid = child.id().unwrap();
    let mut grandchild = None;
    for _ in 0..100 {
        // By name: under Wine the child's first child is a conhost.exe.
        grandchild = child_of(pid, "cmd.exe");
        if grandchild.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let grandchild = grandchild.expect("the child started a grandchild");
    assert!(tree.0.in_job(grandchild), "the grandchild is in the job");

    tree.kill();
    tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .expect("the job's kill ended the child")
        .unwrap();
    // SAFETY: an open process handle with SYNCHRONIZE, closed after.
    unsafe {
        assert_eq!(
            WaitForSingleObject(grandchild, 10_000),
            WAIT_OBJECT_0,
            "the job's kill ended the grandchild"
        );
        windows_sys::Win32::Foundation::CloseHandle(grandchild);
    }
}
