//! `forkhost check-command` and which check a race runs: a check runs only as the user saw it,
//! so the repository's saved command is asked about on a terminal (or refused without one)
//! until exactly its text was approved; `--check CMD` typed by the user approves that text.

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};

use forkhost_core::{Host, HostError, HostResult};

use crate::output::Printed;

/// What `forkhost check-command` was asked.
#[derive(Debug, clap::Args)]
pub struct CheckCommandArgs {
    folder: PathBuf,
    command: Option<String>,
    #[arg(long, conflicts_with = "command")]
    clear: bool,
    /// Approve the saved command's exact text (shown here) to run in races.
    #[arg(long, conflicts_with = "clear")]
    approve: bool,
}

/// `forkhost check-command`.
pub async fn check_command(host: &Host, args: CheckCommandArgs) -> HostResult<Printed> {
    let folder = &args.folder;
    let mut view = match (&args.command, args.clear) {
        (Some(command), _) => host.set_check_command(folder, Some(command)).await?,
        (None, true) => host.set_check_command(folder, None).await?,
        (None, false) => host.check_command(folder).await?,
    };
    if args.approve {
        let Some(command) = &view.command else {
            return Err(HostError::InvalidInput(
                "there is no check command to approve".into(),
            ));
        };
        host.approve_check(folder, command).await?;
        view = host.check_command(folder).await?;
    }
    let text = match &view.command {
        Some(command) if view.approved => format!("check command: {command} (approved)"),
        Some(command) => format!(
            "check command: {command} (not approved yet: asked before it first runs, or \
             --approve)"
        ),
        None => "no check command".to_owned(),
    };
    Ok(Printed::new(
        serde_json::json!({ "check_command": view }),
        text,
    ))
}

/// The check a race in `folder` runs.
pub async fn race_check(
    host: &Host,
    folder: &Path,
    typed: Option<String>,
    none: bool,
    json: bool,
) -> HostResult<Option<String>> {
    if none {
        return Ok(None);
    }
    if let Some(command) = typed {
        // Typed on this command line: the user saw exactly this text.
        host.approve_check(folder, &command).await?;
        return Ok(Some(command.trim().to_owned()));
    }
    let view = host.check_command(folder).await?;
    let Some(command) = view.command else {
        return Ok(None);
    };
    if view.approved {
        return Ok(Some(command));
    }
    let can_ask = !json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !can_ask {
        return Err(HostError::InvalidInput(format!(
            "the repository's check command `{command}` has not been approved to run: pass \
             --check '{command}' to run it (approves exactly that text), or --no-check"
        )));
    }
    eprint!("Run the check command `{command}` in each lane's folder when its turn ends? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    let _ = std::io::stdin().lock().read_line(&mut answer);
    if !matches!(answer.trim(), "y" | "Y" | "yes") {
        return Err(HostError::InvalidInput(
            "no race: the check command was not approved (--no-check races without it)".into(),
        ));
    }
    host.approve_check(folder, &command).await?;
    Ok(Some(command))
}
