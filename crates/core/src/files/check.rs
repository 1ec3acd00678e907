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

use serde::{Deserialize, Serialize};

use super::repo::{main_root, repo_of};
use super::setup::identity_of;
use super::user_command::run_in;
use crate::base::error::{HostError, HostResult};
use crate::host::Host;

/// The most lines of a check's output a lane keeps (its tail).
pub const TAIL_LINES: usize = 40;
/// The most bytes of a check's output a lane keeps.
pub const TAIL_BYTES: usize = 4096;

/// The repository's check command, and whether the user approved exactly that text there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct CheckCommandView {
    pub command: Option<String>,
    pub approved: bool,
}

/// A check's end in one lane.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
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

    /// A race lane's check: [`Host::run_check`] in the lane's folder `lane`, unless the lane
    /// changed what the check runs, against the folder the user approved it in (`source`):
    /// the approval was for running *that* (review M-5: the check runs outside the lanes'
    /// sandboxes, so a `check.sh` or a `package.json` script a lane wrote is not run). The
    /// lane's check then says so, not run.
    pub(crate) async fn run_lane_check(
        &self,
        command: &str,
        source: &Path,
        lane: &Path,
        limit: Duration,
    ) -> LaneCheck {
        // A lane in the source's own folder compares its files with themselves: nothing.
        let (text, from, to) = (command.to_owned(), source.to_owned(), lane.to_owned());
        let changed = tokio::task::spawn_blocking(move || inputs_changed(&text, &from, &to))
            .await
            .unwrap_or_else(|_| vec!["(could not compare)".to_owned()]);
        if changed.is_empty() {
            return self.run_check(command, lane, limit).await;
        }
        tracing::info!(
            files = changed.len(),
            "race check not run: the lane changed its inputs"
        );
        LaneCheck {
            command: command.to_owned(),
            passed: false,
            exit_code: None,
            timed_out: false,
            elapsed_ms: 0,
            tail: String::new(),
            message: Some(format!(
                "not run: the lane changed `{}`, which the check runs, and it would run outside \
                 the agents' sandbox; read the change, then run the check yourself",
                changed.join("`, `")
            )),
        }
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

/// Files at a folder's top that say what a check command runs (scripts, tasks, build steps).
const RUN_FILES: &[&str] = &[
    "package.json",
    ".npmrc",
    "Makefile",
    "makefile",
    "GNUmakefile",
    "justfile",
    "Justfile",
    "Taskfile.yml",
    "Cargo.toml",
    "build.rs",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "tox.ini",
    "noxfile.py",
    "conftest.py",
    "pytest.ini",
    "Rakefile",
    "Gemfile",
    "build.gradle",
    "pom.xml",
];

/// Endings of files a command word runs as a script (a data file the check only reads, such
/// as `test -f won.txt`, is the lane's output and may differ).
const SCRIPTS: &[&str] = &[
    "sh", "bash", "zsh", "py", "js", "mjs", "cjs", "ts", "rb", "pl", "ps1", "bat", "cmd",
];

/// Whether the file `path` would run as a script or program: a script's ending, or executable.
fn runs(path: &Path) -> bool {
    let scripted = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| SCRIPTS.contains(&e));
    #[cfg(unix)]
    let executable = {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    #[cfg(not(unix))]
    let executable = false;
    scripted || executable
}

/// The files of `lane` that `command` runs and that differ from `source`'s (added, removed or
/// edited): the [`RUN_FILES`], and every word of the command that names a script or an
/// executable file (`check.sh`, `./scripts/test.sh`).
pub(crate) fn inputs_changed(command: &str, source: &Path, lane: &Path) -> Vec<String> {
    let mut inputs: Vec<String> = RUN_FILES.iter().map(|f| f.to_string()).collect();
    let words = command.split(|c: char| c.is_whitespace() || ";|&()<>'\"=`$".contains(c));
    for word in words {
        let word = word.trim_start_matches("./");
        let plain = !word.is_empty()
            && !word.starts_with('-')
            && !word.split('/').any(|part| part == ".." || part.is_empty());
        if plain && (runs(&lane.join(word)) || runs(&source.join(word))) {
            inputs.push(word.to_owned());
        }
    }
    inputs.sort();
    inputs.dedup();
    inputs
        .into_iter()
        .filter(|rel| std::fs::read(source.join(rel)).ok() != std::fs::read(lane.join(rel)).ok())
        .collect()
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
