//! The app's own preferences (`<data dir>/settings.json`): where forks open, the theme, and
//! harness binary paths. Not domain state: the Host never reads this file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{AppErrorCode, CmdResult, CommandError, ErrorCode};

const SETTINGS_FILE: &str = "settings.json";

/// Where a fork opens when no modifier key is held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ForkOpens {
    #[default]
    Window,
    Tab,
}

/// What a fork's files are when the user does not choose (Settings' "When I fork").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ForkFilesSetting {
    /// A new worktree with the files as of the fork point, when the thread has checkpoints
    /// (else the same folder).
    #[default]
    Worktree,
    /// The source's own folder.
    SameFolder,
}

impl ForkFilesSetting {
    /// What the Host is asked for.
    pub fn fork_files(self) -> forkhost_core::ForkFiles {
        match self {
            ForkFilesSetting::Worktree => forkhost_core::ForkFiles::Auto,
            ForkFilesSetting::SameFolder => forkhost_core::ForkFiles::SameFolder,
        }
    }
}

/// Checkpoints of archived threads are removed after this many days by default.
pub const PRUNE_DAYS: u32 = 30;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Theme {
    /// Follow the OS.
    #[default]
    System,
    Light,
    Dark,
}

/// Binary paths chosen by the user; empty = auto-detect (`FORKHOST_*_BIN`, then `PATH`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
#[ts(export)]
pub struct HarnessPaths {
    pub claude: Option<String>,
    pub codex: Option<String>,
    pub pi: Option<String>,
    pub opencode: Option<String>,
}

/// The permission mode a new thread starts in, per harness, in the harness's own words; `None`
/// = the harness's own default. Pi has none (it runs its tools without asking).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
#[ts(export)]
pub struct DefaultModes {
    /// Claude's `--permission-mode`.
    pub claude: Option<String>,
    /// Codex's approval policy.
    pub codex_policy: Option<String>,
    /// Codex's sandbox.
    pub codex_sandbox: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(default)]
#[ts(export)]
pub struct Settings {
    pub fork_opens_in: ForkOpens,
    pub theme: Theme,
    pub harness_paths: HarnessPaths,
    /// Ask the update server for a newer release when the app starts.
    pub check_for_updates: bool,
    /// A version the user chose to skip: the start-up check does not offer it again (a check
    /// from the menu still does).
    pub skipped_update: Option<String>,
    /// The mode New thread preselects for each harness.
    pub default_modes: DefaultModes,
    /// A fork's files when the user does not choose.
    pub fork_files: ForkFilesSetting,
    /// The checkpoints of threads archived longer than this many days are removed when the app
    /// starts; 0: never.
    pub prune_checkpoints_days: u32,
    /// At most this many agents run a turn at once in a race (its other lanes wait, queued,
    /// and say so); 0: one per core of this machine.
    pub max_agents: u32,
    /// Warn when a thread's own turns (since its fork point) cost more than this many US
    /// cents; 0: never. Cents, so that the settings stay exact (and comparable).
    pub cost_warning_cents: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            fork_opens_in: ForkOpens::default(),
            theme: Theme::default(),
            harness_paths: HarnessPaths::default(),
            check_for_updates: true,
            skipped_update: None,
            default_modes: DefaultModes::default(),
            fork_files: ForkFilesSetting::default(),
            prune_checkpoints_days: PRUNE_DAYS,
            max_agents: 0,
            cost_warning_cents: 0,
        }
    }
}

impl Settings {
    /// Settings' "at most K agents at once", as a race's limit (`None`: the Host's default,
    /// one per core).
    pub fn agents_at_once(&self) -> Option<usize> {
        (self.max_agents > 0).then_some(self.max_agents as usize)
    }
}

impl HarnessPaths {
    /// `(harness, path)` for every path the user set, as `HostOptions::harness_paths` takes it.
    pub fn chosen(&self) -> Vec<(forkhost_core::HarnessKind, String)> {
        [
            (forkhost_core::HarnessKind::Claude, &self.claude),
            (forkhost_core::HarnessKind::Codex, &self.codex),
            (forkhost_core::HarnessKind::Pi, &self.pi),
            (forkhost_core::HarnessKind::Opencode, &self.opencode),
        ]
        .into_iter()
        .filter_map(|(kind, path)| {
            path.as_deref()
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .map(|p| (kind, p.to_owned()))
        })
        .collect()
    }
}

/// Checks a harness path the user typed in Settings before it is saved (the UI shows the result
/// and asks to confirm): it must exist, be startable by the same rules as a `PATH` search
/// (`PATHEXT` on Windows) and its `--version` must name the harness. Answers what `doctor` would
/// show for it; `harness_not_found` or `invalid_input` otherwise, with a sentence for the user.
#[tauri::command(rename_all = "snake_case")]
pub async fn check_harness_path(
    harness: String,
    path: String,
) -> CmdResult<forkhost_core::HarnessReport> {
    let kind: forkhost_core::HarnessKind = harness
        .parse()
        .map_err(|e| CommandError::new(ErrorCode::InvalidInput, format!("{e}")))?;
    Ok(forkhost_core::harnesses::check_path(kind, &path).await?)
}

fn file(data_dir: &Path) -> PathBuf {
    data_dir.join(SETTINGS_FILE)
}

/// The saved settings; defaults when there are none or the file is unreadable (logged).
pub fn load(data_dir: &Path) -> Settings {
    let path = file(data_dir);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|err| {
            tracing::warn!(error = %err, file = %path.display(), "settings unreadable; using defaults");
            Settings::default()
        }),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Settings::default(),
        Err(err) => {
            tracing::warn!(error = %err, file = %path.display(), "settings unreadable; using defaults");
            Settings::default()
        }
    }
}

/// Writes the settings atomically (temp file + rename), readable by the user alone: they hold
/// harness paths and folders, and the data folder's files are all 0600.
pub fn save(data_dir: &Path, settings: &Settings) -> CmdResult<()> {
    let text = serde_json::to_vec_pretty(settings)
        .map_err(|e| CommandError::new(AppErrorCode::Settings, e.to_string()))?;
    forkhost_core::data_dir::write_private(&file(data_dir), &text).map_err(|e| {
        CommandError::new(AppErrorCode::Settings, format!("cannot save settings: {e}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_defaults() {
        let dir = std::env::temp_dir().join(format!("forkhost-settings-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(load(&dir), Settings::default());
        let settings = Settings {
            fork_opens_in: ForkOpens::Tab,
            theme: Theme::Dark,
            harness_paths: HarnessPaths {
                claude: Some("/opt/claude".into()),
                codex: Some("  ".into()),
                pi: None,
                opencode: None,
            },
            check_for_updates: false,
            skipped_update: Some("0.2.0".into()),
            default_modes: DefaultModes {
                claude: Some("acceptEdits".into()),
                codex_policy: Some("untrusted".into()),
                codex_sandbox: None,
            },
            fork_files: ForkFilesSetting::SameFolder,
            prune_checkpoints_days: 7,
            max_agents: 3,
            cost_warning_cents: 250,
        };
        save(&dir, &settings).unwrap();
        assert_eq!(load(&dir), settings);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(SETTINGS_FILE))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "settings.json is the user's alone");
        }
        assert_eq!(
            settings.harness_paths.chosen(),
            vec![(forkhost_core::HarnessKind::Claude, "/opt/claude".to_owned())]
        );
        // A partial file fills in defaults.
        std::fs::write(dir.join(SETTINGS_FILE), r#"{"theme":"light"}"#).unwrap();
        assert_eq!(load(&dir).theme, Theme::Light);
        assert_eq!(load(&dir).fork_opens_in, ForkOpens::Window);
        // Files written before the updater existed check for updates.
        assert!(load(&dir).check_for_updates);
        assert_eq!(load(&dir).skipped_update, None);
        // ... and start new threads in each harness's own default mode.
        assert_eq!(load(&dir).default_modes, DefaultModes::default());
        // ... fork into a worktree (when there are checkpoints), and prune after 30 days.
        assert_eq!(load(&dir).fork_files, ForkFilesSetting::Worktree);
        assert_eq!(
            load(&dir).fork_files.fork_files(),
            forkhost_core::ForkFiles::Auto
        );
        assert_eq!(load(&dir).prune_checkpoints_days, 30);
        // ... and race with one agent per core.
        assert_eq!(load(&dir).max_agents, 0);
        assert_eq!(load(&dir).agents_at_once(), None);
        assert_eq!(settings.agents_at_once(), Some(3));
        assert_eq!(
            ForkFilesSetting::SameFolder.fork_files(),
            forkhost_core::ForkFiles::SameFolder
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_harness_path_is_checked_before_it_is_saved() {
        let dir = std::env::temp_dir().join(format!("forkhost-check-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let codex = dir.join("codex");
        forkhost_test_script::write_executable(&codex, "#!/bin/sh\necho codex-cli 0.171.0\n")
            .unwrap();
        let path = codex.display().to_string();
        let report = check_harness_path("codex".into(), path.clone())
            .await
            .unwrap();
        assert_eq!(report.version.as_deref(), Some("0.171.0"));
        assert_eq!(report.path.as_deref(), Some(path.as_str()));
        let err = check_harness_path("claude".into(), path.clone())
            .await
            .unwrap_err();
        assert_eq!(err.code.as_str(), "invalid_input", "{err}");
        assert!(
            err.message.contains("is Codex") && err.message.contains("not Claude Code"),
            "{err}"
        );
        let err = check_harness_path("pi".into(), dir.join("none").display().to_string())
            .await
            .unwrap_err();
        assert_eq!(err.code.as_str(), "harness_not_found", "{err}");
        assert!(err.message.contains("does not exist"), "{err}");
        let err = check_harness_path("gpt".into(), path).await.unwrap_err();
        assert_eq!(err.code.as_str(), "invalid_input", "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
