//! A repository's check command (docs/architecture.md "Race"): run in each race lane's folder
//! when its turn ends (`npm test`, say), with a time limit; the lane shows pass or fail and the
//! output's tail. It runs only as the user approved it: an approval covers exactly the text
//! shown, in the repository it was shown for (its identity, as for the setup command), so a
//! changed command is shown again. Outside git the folder itself stands for the repository.
//!
//! Its processes end with it, as the setup command's do (`user_command.rs`): when the shell
//! ends, or the time is up, its process group is killed.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::repo::{main_root, repo_of};
use super::setup::identity_of;
use super::user_command::run_in;
use crate::error::{HostError, HostResult};
use crate::host::Host;

/// The most lines of a check's output a lane keeps (its tail).
pub const TAIL_LINES: usize = 40;
/// The most bytes of a check's output a lane keeps.
pub const TAIL_BYTES: usize = 4096;

/// The repository's check command, and whether the user approved exactly that text there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct CheckCommandView {
    pub command: Option<String>,
    pub approved: bool,
}

/// A check's end in one lane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct LaneCheck {
    pub command: String,
    pub passed: bool,
    /// The shell's exit code (`None`: killed, or not started).
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    #[ts(type = "number")]
    pub elapsed_ms: u64,
    /// The output's last lines (stdout and stderr as they came), at most [`TAIL_LINES`] lines
    /// and [`TAIL_BYTES`] bytes.
    pub tail: String,
    /// Why it failed, in words.
    pub message: Option<String>,
}

/// The last lines of an output, bounded.
#[derive(Default)]
struct Tail(VecDeque<String>);

impl Tail {
    fn push(&mut self, line: String) {
        self.0.push_back(line);
        while self.0.len() > TAIL_LINES {
            self.0.pop_front();
        }
    }

    fn text(&self) -> String {
        let all: String = self.0.iter().map(|l| format!("{l}\n")).collect();
        if all.len() <= TAIL_BYTES {
            return all;
        }
        let mut cut = all.len() - TAIL_BYTES;
        while !all.is_char_boundary(cut) {
            cut += 1;
        }
        all[cut..].to_owned()
    }
}

impl Host {
    /// The check command of the repository (or folder outside git) holding `folder`.
    pub async fn check_command(&self, folder: &Path) -> HostResult<CheckCommandView> {
        let root = check_root(folder).await?;
        let command = self.store().check_command(&root).await?;
        let approved = match &command {
            Some(c) => self.check_approved(folder, c).await?,
            None => false,
        };
        Ok(CheckCommandView { command, approved })
    }

    /// Sets (or with `None` or blank, removes) the check command. Saving does not approve it:
    /// it is shown before it first runs.
    pub async fn set_check_command(
        &self,
        folder: &Path,
        command: Option<&str>,
    ) -> HostResult<CheckCommandView> {
        if let Some(c) = command {
            valid(c)?;
        }
        let root = check_root(folder).await?;
        self.store().set_check_command(&root, command).await?;
        self.check_command(folder).await
    }

    /// The user saw exactly `command` and approved running it in the lanes of races there.
    pub async fn approve_check(&self, folder: &Path, command: &str) -> HostResult<()> {
        valid(command)?;
        let root = check_root(folder).await?;
        let identity = identity_of(folder).await;
        self.store()
            .approve_check(&root, command.trim(), identity.as_deref())
            .await?;
        Ok(())
    }

    /// Whether exactly `command` was approved there, in this same repository.
    pub async fn check_approved(&self, folder: &Path, command: &str) -> HostResult<bool> {
        let root = check_root(folder).await?;
        let Some(saved_for) = self.store().check_approval(&root, command.trim()).await? else {
            return Ok(false);
        };
        Ok(saved_for == identity_of(folder).await)
    }

    /// Runs `command` in `folder` to its end or `limit`, keeping the output's tail.
    pub(crate) async fn run_check(
        &self,
        command: &str,
        folder: &Path,
        limit: Duration,
    ) -> LaneCheck {
        let started = Instant::now();
        let tail = Arc::new(Mutex::new(Tail::default()));
        let keep = |line: String| {
            if let Ok(mut tail) = tail.lock() {
                tail.push(line);
            }
        };
        let ended = run_in(command, folder, "the check command", Some(limit), &keep).await;
        let tail = tail.lock().map(|t| t.text()).unwrap_or_default();
        let mut check = LaneCheck {
            command: command.to_owned(),
            passed: false,
            exit_code: None,
            timed_out: false,
            elapsed_ms: started.elapsed().as_millis() as u64,
            tail,
            message: None,
        };
        match ended {
            Ok(Some(status)) => {
                check.exit_code = status.code();
                check.passed = status.success();
                if !check.passed {
                    check.message = Some(format!("the check {status}"));
                }
            }
            Ok(None) => {
                check.timed_out = true;
                check.message = Some(format!(
                    "the check did not end within {} s and was stopped",
                    limit.as_secs()
                ));
            }
            Err(why) => check.message = Some(why),
        }
        tracing::info!(
            passed = check.passed,
            timed_out = check.timed_out,
            "race check ended"
        );
        check
    }
}

fn valid(command: &str) -> HostResult<()> {
    if command.contains('\0') || command.len() > 4096 || command.trim().is_empty() {
        return Err(HostError::InvalidInput(
            "a check command is one non-empty line of at most 4096 characters".into(),
        ));
    }
    Ok(())
}

/// The repository's main root, or the folder itself outside git.
async fn check_root(folder: &Path) -> HostResult<String> {
    if !folder.is_dir() {
        return Err(HostError::InvalidInput(format!(
            "{} is not a folder",
            folder.display()
        )));
    }
    let root: PathBuf = match repo_of(folder).await {
        Some(repo) => main_root(&repo),
        None => folder
            .canonicalize()
            .unwrap_or_else(|_| folder.to_path_buf()),
    };
    Ok(root.display().to_string())
}
