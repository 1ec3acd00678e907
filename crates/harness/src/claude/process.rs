//! Starting the CLI, through the shared process layer ([`crate::process`]): its own process
//! tree (the CLI's tool commands are its children and must not outlive it), stderr tail.

use std::path::Path;

use crate::process::{start_error, HarnessCommand, Spawned};
use crate::{HarnessKind, HarnessResult};

/// Starts `binary args…` in `cwd` with `env` added, all three pipes captured.
pub(crate) fn spawn(
    binary: &Path,
    args: &[String],
    cwd: &Path,
    env: &[(String, String)],
) -> HarnessResult<Spawned> {
    let mut cmd = HarnessCommand::new(binary);
    cmd.args(args).cwd(cwd).envs(env);
    cmd.spawn()
        .map_err(|err| start_error(HarnessKind::Claude, binary, err))
}
