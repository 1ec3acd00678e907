//! `--host NAME`: a command run on a remote host (docs/architecture.md "Remote hosts"). The
//! remote's own `forkhost` runs it, against the remote's store, harnesses and files, through
//! the user's OpenSSH: the same command, the same words and `--json` document, the same exit
//! status, a reply streamed as it comes and an approval asked on this terminal. On the remote
//! the hidden `remote-exec` checks that both sides run one version before anything runs.
//!
//! `fork … --to-host NAME` moves a branch between machines: the source's side gives the
//! branch (`export-branch` there), the target's side makes it a thread (`adopt-branch`), and
//! this process carries it between them — local to remote, remote to local, remote to remote.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{ExitCode, Stdio};

use clap::Parser;
use forkhost_core::{
    BranchFiles, BranchSeed, FilesTarget, ForkAt, HarnessKind, Host, HostError, RemoteHostView,
    LOCAL_HOST,
};
use serde_json::Value;

use crate::output::{usage_error, usage_error_words, Output, Printed};
use crate::remote_call::{
    call, call_into_file, call_then_file, missing_forkhost, no_forkhost, ssh_failure, Ran,
};
use crate::trust::TrustAnswer;
use crate::{data_dir_of, fork_at, Cli, Command};

/// `fork`'s options for continuing a branch on another machine.
#[derive(Debug, Clone, clap::Args)]
pub struct ToHost {
    /// Continue the branch on this host (`forkhost hosts`; `local` is this machine) as a new
    /// thread there, in the same harness or --into's.
    #[arg(long, value_name = "NAME", requires = "remote_cwd")]
    pub to_host: Option<String>,
    /// The folder on that host the branch continues in.
    #[arg(long = "cwd", id = "remote_cwd", value_name = "DIR")]
    pub cwd: Option<String>,
    /// Whether that folder's project agent config may run there (asked once per folder).
    #[arg(long, value_enum, requires = "to_host")]
    pub trust: Option<TrustAnswer>,
    /// Move only the conversation: the thread there works in --cwd's files as they are, not
    /// the files as of that message (which otherwise come along, as a git bundle of what the
    /// target's clone lacks, into a new worktree of it or a new repository in an empty --cwd).
    #[arg(long, requires = "to_host")]
    pub no_files: bool,
}

#[derive(Debug, clap::Args)]
pub struct AdoptArgs {
    #[arg(long)]
    cwd: PathBuf,
    #[arg(long, value_enum)]
    trust: Option<TrustAnswer>,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    thread: String,
    #[arg(long)]
    after: Option<String>,
    #[arg(long)]
    before: Option<String>,
    #[arg(long)]
    latest: bool,
    #[arg(long)]
    into: Option<HarnessKind>,
}

/// One end of a branch's move.
pub enum Side {
    Local(Host),
    Remote(RemoteHostView),
}

/// `remote-exec`: refuses a client of another version (it would read this build's words and
/// output wrongly), else the command line it carries.
pub fn remote_exec(cli: Cli) -> Result<Cli, ExitCode> {
    let Command::RemoteExec {
        client_version,
        args,
    } = cli.command
    else {
        return Ok(cli);
    };
    if client_version != forkhost_core::VERSION {
        let json = cli.json || args.iter().any(|a| a == "--json");
        return Err(Output::new(json).fail(&forkhost_core::version_mismatch(&client_version)));
    }
    let words = std::iter::once("forkhost".to_owned()).chain(args);
    match Cli::try_parse_from(words) {
        Ok(cli) if cli.host.is_none() => Ok(Cli {
            via_daemon: true,
            ..cli
        }),
        Ok(_) => Err(usage_error_words("a remote command names no further host")),
        Err(err) => Err(usage_error(err)),
    }
}

/// `--host NAME ARGS`: ARGS run there, or a branch moved from there (`fork --to-host`).
pub async fn on_host(cli: Cli, name: &str) -> Result<ExitCode, HostError> {
    if matches!(cli.command, Command::Hosts(_)) {
        return Err(HostError::InvalidInput(
            "the hosts list is this machine's: run `hosts` without --host".into(),
        ));
    }
    let data_dir = data_dir_of(cli.data_dir)?;
    if let Command::Fork {
        thread,
        after,
        before,
        latest,
        into,
        to_host: to @ ToHost {
            to_host: Some(_), ..
        },
        ..
    } = cli.command
    {
        // The branch moves between two machines: this one carries it.
        let at = fork_at(after, before, latest)?;
        let (local, _) = Host::open(&data_dir).await?;
        let moved = async {
            let source = Side::Remote(local.remote_host(name).await?);
            continue_branch(&local, source, &thread, at, into, to).await
        }
        .await;
        local.shutdown().await;
        return Ok(Output::new(cli.json).success(&moved?));
    }
    // A turn sent there runs in that machine's daemon: a connection lost meanwhile leaves it
    // running, and the words say how to follow it again.
    let following = match &cli.command {
        Command::Send { thread, .. } => Some(thread.clone()),
        _ => None,
    };
    run(data_dir, name, cli.json)
        .await
        .map_err(|err| match (err, following) {
            (HostError::HostUnreachable(why), Some(thread)) => HostError::HostUnreachable(format!(
                "{}. If the turn had started, it runs on there: `forkhost --host {name} \
                     attach {thread}` follows it again",
                why.trim_end_matches('.')
            )),
            (err, _) => err,
        })
}

/// How much of ssh's stderr is kept to explain its failure.
const STDERR_TAIL: usize = 8 * 1024;

/// Runs this process's command line on the host `name`; its exit status, or why it could not.
/// A remote with no forkhost gets this one first (`install.rs`), once.
async fn run(data_dir: PathBuf, name: &str, json: bool) -> Result<ExitCode, HostError> {
    let (host, _) = Host::open(&data_dir).await?;
    let remote = host.remote_host(name).await;
    host.shutdown().await;
    let mut remote = remote?;
    let args = forwarded(std::env::args().skip(1));
    let tty = std::io::stdin().is_terminal() && !json;
    for first in [true, false] {
        let command = remote.command(&args, tty)?;
        let on = remote.clone();
        let ran = tokio::task::spawn_blocking(move || relay(&on, command.command()))
            .await
            .map_err(|e| HostError::Internal(e.to_string()))??;
        match ran {
            Ran::Done(status) => return Ok(status),
            Ran::NoForkhost if first && remote.remote_program.is_none() => {
                let (host, _) = Host::open(&data_dir).await?;
                let installed = crate::install::install(&host, &remote).await;
                host.shutdown().await;
                remote = installed?;
            }
            Ran::NoForkhost => break,
        }
    }
    Err(no_forkhost(&remote))
}

/// The command line without what names this machine's side: `--host` and `--data-dir` (the
/// remote uses its own data folder).
fn forwarded(args: impl Iterator<Item = String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut skip_value = false;
    for arg in args {
        if std::mem::take(&mut skip_value) {
            continue;
        }
        match arg.as_str() {
            "--host" | "--data-dir" => skip_value = true,
            a if a.starts_with("--host=") || a.starts_with("--data-dir=") => {}
            _ => out.push(arg),
        }
    }
    out
}

/// Runs ssh with this terminal's stdin and stdout; its stderr is passed on as it comes and
/// its tail kept, to say why ssh itself failed.
fn relay(
    remote: &RemoteHostView,
    mut command: std::process::Command,
) -> Result<Ran<ExitCode>, HostError> {
    let mut child = command
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|err| {
            HostError::HostUnreachable(format!(
                "ssh could not start ({err}); install OpenSSH's client or set FORKHOST_SSH_COMMAND"
            ))
        })?;
    let mut stderr = child.stderr.take().expect("piped");
    let mut tail = Vec::new();
    let mut buffer = [0u8; 4096];
    let mut shown = std::io::stderr();
    loop {
        match stderr.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let _ = shown.write_all(&buffer[..n]);
                tail.extend_from_slice(&buffer[..n]);
                if tail.len() > STDERR_TAIL {
                    tail.drain(..tail.len() - STDERR_TAIL);
                }
            }
        }
    }
    let status = child
        .wait()
        .map_err(|e| HostError::Internal(e.to_string()))?;
    let said = String::from_utf8_lossy(&tail);
    if let Some(err) = ssh_failure(remote, status.code(), &said) {
        return Err(err);
    }
    if missing_forkhost(status.code(), &said) {
        return Ok(Ran::NoForkhost);
    }
    match status.code() {
        Some(code) => Ok(Ran::Done(ExitCode::from(u8::try_from(code).unwrap_or(1)))),
        None => Err(HostError::HostUnreachable(format!(
            "the connection to {} ended without a status",
            remote.name
        ))),
    }
}

/// Moves the branch of `thread` at `at` from `source` to the host `to.to_host` (`local`: this
/// machine), as a new thread there in `to.cwd`. `local` names hosts.
pub async fn continue_branch(
    local: &Host,
    source: Side,
    thread: &str,
    at: ForkAt,
    into: Option<HarnessKind>,
    to: ToHost,
) -> Result<Printed, HostError> {
    let (Some(target), Some(cwd)) = (to.to_host, to.cwd) else {
        return Err(HostError::InvalidInput("--to-host needs --cwd".into()));
    };
    let mut branch: BranchSeed = match &source {
        Side::Local(host) => host.branch_seed(thread, at, into).await?,
        Side::Remote(remote) => {
            let mut args = vec![
                "--json".to_owned(),
                "export-branch".to_owned(),
                thread.to_owned(),
            ];
            args.extend(at.cli_words());
            if let Some(into) = into {
                args.extend(["--into".to_owned(), into.to_string()]);
            }
            let value = call(local, remote, &args, &[]).await?;
            serde_json::from_value(value)
                .map_err(|e| HostError::Internal(format!("the branch {}: {e}", remote.name)))?
        }
    };
    // The lineage across machines: the target records where the branch came from, named as
    // this machine names that one (a host's name, or this machine's own host name).
    if let Some(origin) = &mut branch.origin {
        origin.host = Some(match &source {
            Side::Local(_) => this_machine(),
            Side::Remote(remote) => remote.name.clone(),
        });
    }
    let same_machine = matches!(source, Side::Local(_)) && target == LOCAL_HOST;
    if same_machine {
        return Err(HostError::InvalidInput(
            "the branch is on this machine already: fork it here (--into for another harness)"
                .into(),
        ));
    }
    if to.no_files && branch.files.is_some() {
        branch.files = None;
        branch.files_note = Some("--no-files: only the conversation moved".into());
    }
    let carried = match &branch.files {
        Some(files) => Some(carry_files(local, &source, thread, files, &target, &cwd).await?),
        None => None,
    };
    let bundle = carried.as_ref().map(|c| c.bundle.to_path_buf());
    let trust = to.trust.map(TrustAnswer::trusted);
    let files_note = branch.files_note.clone();
    let detail = match target.as_str() {
        LOCAL_HOST => {
            let adopted = local
                .adopt_branch(branch, Path::new(&cwd), trust, bundle.as_deref())
                .await?;
            serde_json::to_value(&adopted).map_err(|e| HostError::Internal(e.to_string()))?
        }
        name => {
            let remote = local.remote_host(name).await?;
            let mut args = vec![
                "--json".to_owned(),
                "adopt-branch".to_owned(),
                "--cwd".to_owned(),
                cwd.clone(),
            ];
            if let Some(answer) = to.trust {
                args.extend(["--trust".to_owned(), answer_word(answer).to_owned()]);
            }
            let mut input =
                serde_json::to_vec(&branch).map_err(|e| HostError::Internal(e.to_string()))?;
            match &bundle {
                Some(bundle) => {
                    input.push(b'\n');
                    call_then_file(local, &remote, &args, &input, bundle).await?["thread"].take()
                }
                None => call(local, &remote, &args, &input).await?["thread"].take(),
            }
        }
    };
    let folder = detail["cwd"].as_str().unwrap_or("?");
    let mut text = format!(
        "continued on {target}: {} {}",
        detail["id"].as_str().unwrap_or("?"),
        detail["title"].as_str().unwrap_or("")
    );
    let files = match &carried {
        Some(c) => {
            text.push_str(&format!(
                "\nfiles as of that message in {folder} ({} bytes sent{})",
                c.bytes,
                if c.new_repository {
                    ", a new repository"
                } else {
                    ""
                }
            ));
            serde_json::json!({
                "commit": c.commit,
                "folder": folder,
                "bundle_bytes": c.bytes,
                "prerequisites": c.prerequisites,
                "new_repository": c.new_repository,
            })
        }
        None => {
            if let Some(note) = &files_note {
                text.push_str(&format!("\nfiles: {note}"));
            }
            Value::Null
        }
    };
    Ok(Printed::new(
        serde_json::json!({
            "host": target,
            "thread": detail,
            "files": files,
            "files_note": files_note,
        }),
        text,
    ))
}

/// This machine's name as its own host name says it (`local` where it has none).
fn this_machine() -> String {
    gethostname::gethostname()
        .into_string()
        .ok()
        .map(|name| name.trim().to_owned())
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| LOCAL_HOST.to_owned())
}

/// A branch's files on their way: the bundle (a temporary file here) and what it holds.
struct Carried {
    bundle: tempfile::TempPath,
    commit: String,
    bytes: u64,
    prerequisites: usize,
    new_repository: bool,
}

/// Asks the target (`target` in `cwd`) what its clone holds, then the source for a bundle of
/// `files` without it, into a temporary file here.
async fn carry_files(
    local: &Host,
    source: &Side,
    thread: &str,
    files: &BranchFiles,
    target: &str,
    cwd: &str,
) -> Result<Carried, HostError> {
    let landing: FilesTarget = match target {
        LOCAL_HOST => local.files_target(Path::new(cwd), files).await?,
        name => {
            let remote = local.remote_host(name).await?;
            let args = ["--json", "files-target", "--cwd", cwd].map(str::to_owned);
            let input =
                serde_json::to_vec(files).map_err(|e| HostError::Internal(e.to_string()))?;
            serde_json::from_value(call(local, &remote, &args, &input).await?)
                .map_err(|e| HostError::Internal(format!("{name}'s answer: {e}")))?
        }
    };
    let bundle = crate::moved_files::temp_file()?;
    match source {
        Side::Local(host) => {
            host.bundle_branch_files(thread, files, &landing.have, &bundle)
                .await?;
        }
        Side::Remote(remote) => {
            let ask = crate::moved_files::BundleAsk {
                files: files.clone(),
                have: landing.have.clone(),
            };
            let input = serde_json::to_vec(&ask).map_err(|e| HostError::Internal(e.to_string()))?;
            let args = ["--json", "bundle-files", thread].map(str::to_owned);
            call_into_file(local, remote, &args, &input, &bundle).await?;
        }
    }
    let bytes = std::fs::metadata(&bundle).map_or(0, |m| m.len());
    let prerequisites = forkhost_core::bundle_prerequisites(&bundle)
        .map_err(|e| HostError::InvalidInput(format!("the files came in no bundle: {e}")))?;
    Ok(Carried {
        bundle,
        commit: files.commit.clone(),
        bytes,
        prerequisites,
        new_repository: landing.new_repository,
    })
}

/// `adopt-branch`: the branch on stdin (and its files' bundle after it) as a thread here.
pub async fn adopt(host: &Host, args: AdoptArgs) -> Result<Printed, HostError> {
    let (branch, bundle) = crate::moved_files::read_branch_input()?;
    let detail = host
        .adopt_branch(
            branch,
            &args.cwd,
            args.trust.map(TrustAnswer::trusted),
            bundle.as_deref(),
        )
        .await?;
    Ok(Printed::new(
        serde_json::json!({ "thread": detail }),
        crate::output::thread_text(&detail),
    ))
}

/// `export-branch`: the branch of a thread at a turn, as JSON.
pub async fn export(host: &Host, args: ExportArgs) -> Result<Printed, HostError> {
    let at = fork_at(args.after, args.before, args.latest)?;
    let branch = host.branch_seed(&args.thread, at, args.into).await?;
    let text = format!("{} ({} turns)", branch.title, branch.seed.turns.len());
    let json = serde_json::to_value(&branch).map_err(|e| HostError::Internal(e.to_string()))?;
    Ok(Printed::new(json, text))
}

fn answer_word(answer: TrustAnswer) -> &'static str {
    match answer {
        TrustAnswer::Yes => "yes",
        TrustAnswer::No => "no",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_machines_options_stay_here() {
        let args = [
            "--host",
            "box",
            "--json",
            "send",
            "t",
            "--data-dir=/x",
            "hi",
            "--data-dir",
            "/y",
            "--host=b",
        ];
        assert_eq!(
            forwarded(args.iter().map(|a| a.to_string())),
            ["--json", "send", "t", "hi"]
        );
    }
}
