//! Spare worktrees from the CLI (docs/architecture.md "Files of a thread"): after a worktree
//! fork the Host wants a spare checkout of the repository filled for the next fork. Filled in
//! this process it would be cut short when the command ends, so the CLI's Host only lists the
//! spares it wants (`HostOptions::hand_off_spares`), and each goes to a `forkhost spare-fill`
//! process of its own that outlives this one: the next `forkhost fork --worktree` in the
//! repository claims a filled spare and git writes only what differs.

use std::path::Path;
use std::process::{Command, Stdio};

use forkhost_core::{Host, HostError, SpareJob};

/// Starts one detached `forkhost spare-fill` per job; a failure to start one only costs the
/// next fork its speed, so it is logged, never an error of the command that forked.
pub fn hand_off(jobs: Vec<SpareJob>, data_dir: &Path) {
    if jobs.is_empty() {
        return;
    }
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(err) => {
            tracing::info!(error = %err, "no spare worktree: this program's path is unknown");
            return;
        }
    };
    for job in jobs {
        let mut fill = Command::new(&exe);
        fill.arg("--data-dir")
            .arg(data_dir)
            .arg("spare-fill")
            .arg(&job.repository)
            .arg(&job.at)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        detach(&mut fill);
        match fill.spawn() {
            // Not waited for: it runs on after this process ends.
            Ok(_child) => tracing::info!("spare worktree handed to a process of its own"),
            Err(err) => tracing::info!(error = %err, "could not start a spare worktree's fill"),
        }
    }
}

/// Out of the terminal's process group, so the Ctrl-C that ends the next command in the same
/// terminal does not end the fill too (Windows: no console, a group of its own).
fn detach(command: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        const DETACHED_PROCESS: u32 = 0x0000_0008;
        const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
        command.creation_flags(DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP);
    }
}

/// `forkhost spare-fill REPOSITORY COMMIT`: fills the repository's spare worktree at COMMIT
/// and returns when it is ready (nothing when it has one already).
pub async fn fill(host: &Host, repository: &Path, at: &str) -> Result<(), HostError> {
    host.fill_spare(&SpareJob {
        repository: repository.to_path_buf(),
        at: at.to_owned(),
    })
    .await
}
