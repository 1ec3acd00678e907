//! Remote hosts in the app (docs/architecture.md "Remote hosts"): the hosts the user named,
//! each host's threads, and a branch continued on another machine with its files. The app is
//! a client of a remote exactly as a terminal is: it runs the `forkhost` CLI that ships beside
//! it with `--json` and `--host`, over the user's own OpenSSH, so install on connect, host
//! keys, the shared connection and the daemon behave the same; what comes back is the Host's
//! own views (`ThreadView`, `ThreadDetail`), read back into those types, and a remote's error
//! keeps its code and words (`version_mismatch` offers `install_on_host`, `hosts install`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use forkhost_core::{ForkAt, HarnessKind, HostError, RemoteHostView, ThreadView};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tauri::State;

use crate::error::CmdResult;
use crate::state::AppState;

pub mod link;
pub mod thread;

/// How long one remote command may take: a branch with a large repository's files moves as
/// a bundle of what the target lacks, which can be a first clone's worth.
const CALL_LIMIT: Duration = Duration::from_secs(30 * 60);

/// What "Continue on another machine…" sends.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ContinueOnHost {
    pub thread_id: String,
    pub at: ForkAt,
    /// The host it continues on (`local` is this machine, for a remote thread).
    pub host: String,
    /// The folder there: a clone of the thread's repository (the files land in a new
    /// worktree of it) or an empty or new folder (a new repository is made there).
    pub cwd: String,
    /// The files as of that message come along (else only the conversation).
    pub files: bool,
    /// The user's answer for that folder's project agent config, when they gave one.
    pub trust: Option<bool>,
    /// Another harness it continues in; null: the same.
    pub into: Option<HarnessKind>,
}

/// Where a branch went.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ContinuedOnHost {
    pub host: String,
    pub thread: ThreadView,
    /// Where its files landed there; null when only the conversation moved.
    pub files_folder: Option<String>,
    /// Why the files did not come, in words.
    pub files_note: Option<String>,
}

/// The remote hosts the user added, by name.
#[tauri::command(rename_all = "snake_case")]
pub async fn remote_hosts(state: State<'_, AppState>) -> CmdResult<Vec<RemoteHostView>> {
    Ok(state.host.remote_hosts().await?)
}

/// The threads of the host `host`, as its own forkhost lists them.
#[tauri::command(rename_all = "snake_case")]
pub async fn host_threads(state: State<'_, AppState>, host: String) -> CmdResult<Vec<ThreadView>> {
    state.host.remote_host(&host).await?;
    let answer = run_cli(&state.data_dir, &["--host", &host, "threads"]).await?;
    Ok(read(&answer["threads"], &host)?)
}

/// Copies this app's forkhost to `host` (over what it had: a remote of another version), and
/// remembers where it went; the host as it is now.
#[tauri::command(rename_all = "snake_case")]
pub async fn install_on_host(
    state: State<'_, AppState>,
    host: String,
) -> CmdResult<RemoteHostView> {
    state.host.remote_host(&host).await?;
    run_cli(&state.data_dir, &["hosts", "install", &host]).await?;
    Ok(state.host.remote_host(&host).await?)
}

/// Continues a thread of this machine on another one, from one of its messages: a new
/// native session there, with the files as of that message unless `files` is false.
#[tauri::command(rename_all = "snake_case")]
pub async fn continue_on_host(
    state: State<'_, AppState>,
    args: ContinueOnHost,
) -> CmdResult<ContinuedOnHost> {
    if args.host != forkhost_core::LOCAL_HOST {
        state.host.remote_host(&args.host).await?;
    }
    let answer = run_cli(&state.data_dir, &fork_args(&args)).await?;
    Ok(ContinuedOnHost {
        host: args.host.clone(),
        thread: read(&answer["thread"], &args.host)?,
        files_folder: answer["files"]["folder"].as_str().map(str::to_owned),
        files_note: answer["files_note"].as_str().map(str::to_owned),
    })
}

/// `fork THREAD <at> --to-host H --cwd DIR …`, as the CLI takes it.
/// A remote thread (`HOST:ID`) moves from its host (`--host HOST fork ID …`).
fn fork_args(args: &ContinueOnHost) -> Vec<String> {
    let mut out = match thread::remote(&args.thread_id) {
        Some((host, id)) => vec![
            "--host".to_owned(),
            host.to_owned(),
            "fork".to_owned(),
            id.to_owned(),
        ],
        None => vec!["fork".to_owned(), args.thread_id.clone()],
    };
    out.extend(args.at.cli_words());
    out.extend([
        "--to-host".to_owned(),
        args.host.clone(),
        "--cwd".to_owned(),
        args.cwd.clone(),
    ]);
    if let Some(trusted) = args.trust {
        out.extend([
            "--trust".to_owned(),
            if trusted { "yes" } else { "no" }.to_owned(),
        ]);
    }
    if let Some(into) = args.into {
        out.extend(["--into".to_owned(), into.to_string()]);
    }
    if !args.files {
        out.push("--no-files".to_owned());
    }
    out
}

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
fn cli_command(
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

#[cfg(test)]
mod tests {
    use super::*;
    use forkhost_core::TurnRef;

    #[test]
    fn a_continue_is_the_clis_fork_to_host() {
        let args = ContinueOnHost {
            thread_id: "t1".into(),
            at: ForkAt::After(TurnRef::Number(2)),
            host: "box".into(),
            cwd: "/src/app".into(),
            files: false,
            trust: Some(true),
            into: Some(HarnessKind::Claude),
        };
        assert_eq!(
            fork_args(&args).join(" "),
            "fork t1 --after 2 --to-host box --cwd /src/app --trust yes --into claude --no-files"
        );
        let latest = ContinueOnHost {
            at: ForkAt::Latest,
            files: true,
            trust: None,
            into: None,
            ..args
        };
        assert_eq!(
            fork_args(&latest).join(" "),
            "fork t1 --latest --to-host box --cwd /src/app"
        );
        let from_remote = ContinueOnHost {
            thread_id: "gpu:t9".into(),
            host: "local".into(),
            ..latest
        };
        assert_eq!(
            fork_args(&from_remote).join(" "),
            "--host gpu fork t9 --latest --to-host local --cwd /src/app"
        );
    }
}
