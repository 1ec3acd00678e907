//! The `forkhost` CLI that ships beside the app, run for a remote host: once per call with
//! `--json` ([`run_cli`]), or kept running as a host's link ([`super::link`]).

use std::path::{Path, PathBuf};
use std::time::Duration;

use forkhost_core::HostError;
use serde_json::Value;

/// How long one remote command may take: a branch with a large repository's files moves as
/// a bundle of what the target lacks, which can be a first clone's worth.
const CALL_LIMIT: Duration = Duration::from_secs(30 * 60);

/// `value` read back into the Host's type it was written from.
pub(crate) fn read<T: serde::de::DeserializeOwned>(
    value: &Value,
    host: &str,
) -> Result<T, HostError> {
    serde_json::from_value(value.clone())
        .map_err(|e| HostError::Internal(format!("{host}'s answer could not be read: {e}")))
}

/// The `forkhost` CLI that ships beside this app (the same folder in the .deb, the AppImage,
/// `Forkhost.app/Contents/MacOS` and the Windows install).
fn bundled_cli() -> Result<PathBuf, HostError> {
    let exe = std::env::current_exe()
        .map_err(|e| HostError::Internal(format!("this program's path: {e}")))?;
    let name = if cfg!(windows) {
        "forkhost.exe"
    } else {
        "forkhost"
    };
    let cli = exe.parent().map(|dir| dir.join(name));
    match cli {
        Some(cli) if cli.is_file() => Ok(cli),
        _ => Err(HostError::Unsupported(
            "this copy of Forkhost has no command-line tool beside it, which remote hosts need"
                .into(),
        )),
    }
}

/// The bundled CLI with `--json` against the app's data folder and `args`, ended with the app.
pub(crate) fn cli_command(
    data_dir: &Path,
    args: &[impl AsRef<str>],
) -> Result<tokio::process::Command, HostError> {
    let mut command = tokio::process::Command::new(bundled_cli()?);
    command
        .arg("--json")
        .arg("--data-dir")
        .arg(data_dir)
        .args(args.iter().map(AsRef::as_ref))
        .kill_on_drop(true);
    #[cfg(windows)]
    {
        // No console window flashes up for it.
        const CREATE_NO_WINDOW: u32 = 0x0800_0000;
        command.creation_flags(CREATE_NO_WINDOW);
    }
    Ok(command)
}

/// The terminal tab of `host`'s thread `id`: the bundled CLI's `--host HOST terminal ID`, which
/// runs the harness's TUI there over `ssh -t` (installing forkhost there first if it must).
pub(crate) fn terminal_spec(
    data_dir: &Path,
    host: &str,
    id: &str,
) -> Result<crate::terminal::TerminalSpec, HostError> {
    Ok(crate::terminal::TerminalSpec {
        program: bundled_cli()?.display().to_string(),
        args: vec![
            "--data-dir".into(),
            data_dir.display().to_string(),
            "--host".into(),
            host.into(),
            "terminal".into(),
            id.into(),
        ],
        cwd: None,
        env: Vec::new(),
    })
}

/// Runs the bundled CLI with `--json` against the app's data folder: its JSON document, or
/// the error it reported (its code and words) or why it could not run.
pub(crate) async fn run_cli(data_dir: &Path, args: &[impl AsRef<str>]) -> Result<Value, HostError> {
    let mut command = cli_command(data_dir, args)?;
    command.stdin(std::process::Stdio::null());
    let out = tokio::time::timeout(CALL_LIMIT, command.output())
        .await
        .map_err(|_| {
            HostError::HostUnreachable(format!(
                "the remote command did not finish within {} minutes",
                CALL_LIMIT.as_secs() / 60
            ))
        })?
        .map_err(|e| HostError::Internal(format!("the command-line tool could not run: {e}")))?;
    let value: Value = serde_json::from_slice(&out.stdout).map_err(|_| {
        let said = String::from_utf8_lossy(&out.stderr);
        HostError::HostUnreachable(format!(
            "the command-line tool answered nothing readable: {}",
            said.lines().last().unwrap_or("")
        ))
    })?;
    match HostError::in_document(&value) {
        Some(err) => Err(err),
        None => Ok(value),
    }
}
