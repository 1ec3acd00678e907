//! Remote hosts in the app (docs/architecture.md "Remote hosts"): the hosts the user named,
//! each host's threads, and a branch continued on another machine with its files. The app is
//! a client of a remote exactly as a terminal is: it runs the `forkhost` CLI that ships beside
//! it with `--json` and `--host`, over the user's own OpenSSH, so install on connect, host
//! keys, the shared connection and the daemon behave the same; what comes back is the Host's
//! own views (`ThreadView`, `ThreadDetail`), read back into those types, and a remote's error
//! keeps its code and words (`version_mismatch` offers `install_on_host`, `hosts install`).

use forkhost_core::{ForkAt, HarnessKind, RemoteHostView, ThreadView};
use serde::{Deserialize, Serialize};
use tauri::State;

use crate::error::CmdResult;
use crate::state::AppState;

pub(crate) mod cli;
pub mod files;
pub mod link;
pub mod thread;

use cli::{read, run_cli};

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

/// The harnesses on the host `host`, as its `doctor` finds them there (versions, sign-in, what
/// each can fork, how to install it on that machine): the Hosts list and New thread show them.
#[tauri::command(rename_all = "snake_case")]
pub async fn host_doctor(
    state: State<'_, AppState>,
    host: String,
) -> CmdResult<Vec<forkhost_core::HarnessReport>> {
    state.host.remote_host(&host).await?;
    match state
        .remote
        .call(&host, forkhost_core::Call::Doctor)
        .await?
    {
        forkhost_core::Returned::Harnesses { harnesses } => Ok(harnesses),
        other => Err(thread::out_of_turn(&other).into()),
    }
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
