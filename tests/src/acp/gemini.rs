//! Gemini CLI (`gemini --acp`) set up against the fake model: a temporary HOME whose
//! `~/.gemini/settings.json` chooses API-key sign-in, a fixed model (so no router asks the
//! model to score each prompt first) and no telemetry or update checks; the Gemini API's base
//! address is the fake model's (`GOOGLE_GEMINI_BASE_URL`), and the work folder is trusted in
//! `~/.gemini/trustedFolders.json` (Gemini CLI refuses an untrusted folder).

use std::path::{Path, PathBuf};

use serde_json::json;

use crate::fake_model::FakeModel;
use crate::harness_env::{home_vars, FAKE_API_KEY, FAKE_MODEL_ID};
use crate::need::{need, Group};

/// The variable naming Gemini CLI's binary (`scripts/install-harnesses.sh`).
pub const BIN_VAR: &str = "FORKHOST_GEMINI_BIN";

/// A temporary HOME and work folder for Gemini CLI; deleted on drop.
pub struct GeminiEnv {
    _root: tempfile::TempDir,
    pub bin: PathBuf,
    pub home: PathBuf,
    pub work_dir: PathBuf,
    pub vars: Vec<(String, String)>,
}

impl GeminiEnv {
    /// Gemini CLI against `fake`, or `None` (the test skips, and says so) when
    /// `FORKHOST_GEMINI_BIN` is unset; a failure instead under `FORKHOST_REQUIRE_HARNESSES=1`.
    pub fn for_fake(fake: &FakeModel) -> anyhow::Result<Option<GeminiEnv>> {
        let Some(bin) = need(Group::Harness, BIN_VAR) else {
            return Ok(None);
        };
        let root = tempfile::Builder::new()
            .prefix("forkhost-gemini-")
            .tempdir()?;
        let root_path = root.path().canonicalize()?;
        let home = root_path.join("home");
        let work_dir = root_path.join("work");
        std::fs::create_dir_all(&work_dir)?;
        write_gemini_settings(&home, &work_dir)?;
        let mut vars = home_vars(&home);
        vars.extend([
            (
                "GOOGLE_GEMINI_BASE_URL".into(),
                fake.base_url().trim_end_matches('/').to_owned(),
            ),
            ("GEMINI_API_KEY".into(), FAKE_API_KEY.into()),
        ]);
        Ok(Some(GeminiEnv {
            _root: root,
            bin,
            home,
            work_dir,
            vars,
        }))
    }

    /// The chat files Gemini CLI keeps for this HOME (`~/.gemini/tmp/<project>/chats/`).
    pub fn chat_files(&self) -> Vec<PathBuf> {
        let mut files = Vec::new();
        let Ok(projects) = std::fs::read_dir(self.home.join(".gemini/tmp")) else {
            return files;
        };
        for project in projects.flatten() {
            if let Ok(chats) = std::fs::read_dir(project.path().join("chats")) {
                files.extend(chats.flatten().map(|e| e.path()));
            }
        }
        files.sort();
        files
    }
}

/// `~/.gemini/settings.json` and `trustedFolders.json` for a HOME at `home`.
pub fn write_gemini_settings(home: &Path, work_dir: &Path) -> anyhow::Result<()> {
    let dir = home.join(".gemini");
    std::fs::create_dir_all(&dir)?;
    let settings = json!({
        "security": { "auth": { "selectedType": "gemini-api-key" } },
        "model": { "name": FAKE_MODEL_ID },
        "privacy": { "usageStatisticsEnabled": false },
        "telemetry": { "enabled": false },
        "general": { "disableAutoUpdate": true, "disableUpdateNag": true }
    });
    std::fs::write(
        dir.join("settings.json"),
        serde_json::to_string_pretty(&settings)?,
    )?;
    let trusted = json!({ work_dir.to_string_lossy(): "TRUST_FOLDER" });
    std::fs::write(
        dir.join("trustedFolders.json"),
        serde_json::to_string_pretty(&trusted)?,
    )?;
    Ok(())
}
