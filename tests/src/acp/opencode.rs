//! OpenCode (`opencode acp`) set up against the fake model: a temporary HOME whose
//! `opencode.json` names the fake model as an OpenAI-compatible provider (bundled in OpenCode:
//! nothing is downloaded for it), and a work folder. OpenCode installs a plugin package from
//! npm in the background at every start in a new HOME; the npm registry is pointed at a closed
//! loopback port so that it fails at once, offline, which OpenCode only logs.

use std::path::PathBuf;

use crate::fake_model::FakeModel;
use crate::harness_env::{home_vars, quiet_opencode_vars, write_opencode_config};
use crate::need::{need, Group};

/// The variable naming OpenCode's binary (`scripts/install-harnesses.sh`).
pub const BIN_VAR: &str = "FORKHOST_OPENCODE_BIN";

/// A temporary HOME and work folder for OpenCode; deleted on drop.
pub struct OpencodeEnv {
    _root: tempfile::TempDir,
    pub bin: PathBuf,
    pub home: PathBuf,
    pub work_dir: PathBuf,
    pub vars: Vec<(String, String)>,
}

/// How much OpenCode may do unasked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bash {
    /// Its default: shell commands run without asking.
    Runs,
    /// `"permission": {"bash": "ask"}`: each command waits for the client's answer.
    Asks,
}

impl OpencodeEnv {
    /// OpenCode against `fake`, or `None` (the test skips, and says so) when
    /// `FORKHOST_OPENCODE_BIN` is unset; a failure instead under `FORKHOST_REQUIRE_HARNESSES=1`.
    pub fn for_fake(fake: &FakeModel, bash: Bash) -> anyhow::Result<Option<OpencodeEnv>> {
        let Some(bin) = need(Group::Harness, BIN_VAR) else {
            return Ok(None);
        };
        let root = tempfile::Builder::new()
            .prefix("forkhost-opencode-")
            .tempdir()?;
        let root_path = root.path().canonicalize()?;
        let home = root_path.join("home");
        let work_dir = root_path.join("work");
        std::fs::create_dir_all(&work_dir)?;
        write_opencode_config(&home, &fake.base_url(), bash == Bash::Asks)?;
        let mut vars = home_vars(&home);
        vars.extend(quiet_opencode_vars());
        Ok(Some(OpencodeEnv {
            _root: root,
            bin,
            home,
            work_dir,
            vars,
        }))
    }
}
