//! `forkhost`: the Host from a terminal. A thin shell: parse, call one Host method, print.

mod output;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use forkhost_core::data_dir::{default_data_dir, DATA_DIR_ENV};
use forkhost_core::view::ThreadView;
use forkhost_core::{Host, HostError};

use output::Output;

/// Fork coding-agent conversations (Claude Code, Codex, Pi) at any message.
#[derive(Debug, Parser)]
#[command(name = "forkhost", version)]
struct Cli {
    /// Data folder holding the mapping store (default: the OS app-data folder).
    #[arg(long, global = true, env = DATA_DIR_ENV, value_name = "DIR")]
    data_dir: Option<PathBuf>,

    /// Print one JSON document on stdout (errors as {"error":{"code","message"}}).
    #[arg(long, global = true)]
    json: bool,

    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List all threads with their lineage.
    Threads,
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    forkhost_core::logging::init_stderr("warn");
    let out = Output::new(cli.json);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => return out.fail(&HostError::Internal(err.to_string())),
    };
    match runtime.block_on(run(cli)) {
        Ok(value) => out.success(&value),
        Err(err) => out.fail(&err),
    }
}

/// Help and version print as usual; a usage error in `--json` mode is an `invalid_input` document.
fn usage_error(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let wants_json = std::env::args().any(|a| a == "--json");
    if !wants_json
        || matches!(
            err.kind(),
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
        )
    {
        err.exit();
    }
    let message = err.render().to_string();
    let first = message.lines().next().unwrap_or("invalid arguments");
    let first = first.trim_start_matches("error: ").to_owned();
    Output::new(true).fail(&HostError::InvalidInput(first))
}

async fn run(cli: Cli) -> Result<output::Printed, HostError> {
    let data_dir = cli
        .data_dir
        .or_else(default_data_dir)
        .ok_or_else(|| HostError::InvalidInput("no data folder: pass --data-dir".into()))?;
    let (host, report) = Host::open(&data_dir).await?;
    if let Some(recovery) = &report.recovered {
        eprintln!(
            "forkhost: the store was unusable ({}); it was moved to {} and a fresh one created",
            recovery.reason,
            recovery.moved_to.display()
        );
    }
    let printed = match cli.command {
        Command::Threads => {
            let threads: Vec<ThreadView> = host.threads().await?.iter().map(Into::into).collect();
            let text = threads
                .iter()
                .map(|t| format!("{}  {:<6}  {:<8}  {}", t.id, t.harness, t.state, t.title))
                .collect::<Vec<_>>()
                .join("\n");
            output::Printed::new(serde_json::json!({ "threads": threads }), text)
        }
    };
    host.close().await;
    Ok(printed)
}
