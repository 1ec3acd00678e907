//! `forkhost`: the Host from a terminal. A thin shell: parse, call one Host method, print.

mod agents;
mod approve;
mod check;
mod cost;
mod files;
mod grants;
mod hosts;
mod install;
mod moved_files;
mod output;
mod race;
mod remote;
mod remote_call;
mod rewind;
mod search;
mod serve;
mod spare_worktree;
mod ssh_output;
mod stream;
mod terminal;
mod trust;
mod turn;
mod usage;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use forkhost_core::data_dir::{default_data_dir, DATA_DIR_ENV};
use forkhost_core::ExportFormat;
use forkhost_core::{
    ForkFiles, HarnessKind, Host, HostError, HostOptions, NewThreadSpec, PermissionMode,
};

use approve::Approve;
use output::{usage_error, Output, Printed};
use trust::TrustAnswer;
pub(crate) use turn::{fork_at, turn_ref};

/// Fork coding-agent conversations (Claude Code, Codex, Pi) at any message.
///
/// Threads are Forkhost's handles on native harness sessions; a fork derives a new native
/// session from exactly a turn boundary and leaves the source untouched.
#[derive(Debug, Parser)]
#[command(name = "forkhost", version)]
struct Cli {
    /// Data folder holding the mapping store (default: the OS app-data folder).
    #[arg(long, global = true, env = DATA_DIR_ENV, value_name = "DIR")]
    data_dir: Option<PathBuf>,

    /// Print one JSON document on stdout (errors as {"error":{"code","message"}}); streamed
    /// replies go to stderr.
    #[arg(long, global = true)]
    json: bool,

    /// Run the command on this remote host (`forkhost hosts`); `local` is this machine.
    #[arg(long, global = true, value_name = "NAME")]
    host: Option<String>,

    #[command(subcommand)]
    command: Command,

    /// Set by `remote-exec`: this command came over SSH, so its turn runs in this machine's
    /// daemon (`serve`), where it goes on if the connection drops.
    #[arg(skip)]
    via_daemon: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Show the harnesses found on this machine, their versions and what they can fork.
    Doctor,
    /// Start a new thread, optionally with its first prompt.
    New {
        /// claude, codex, pi or opencode.
        #[arg(long)]
        harness: HarnessKind,
        /// The folder the harness works in.
        #[arg(long)]
        cwd: PathBuf,
        #[arg(long)]
        title: Option<String>,
        /// How much the harness may do without asking, in its own words (Claude: default,
        /// acceptEdits, plan, bypassPermissions, …; Codex: untrusted, on-request, never).
        #[arg(long, value_name = "MODE")]
        mode: Option<String>,
        /// Codex's sandbox: read-only, workspace-write, danger-full-access.
        #[arg(long, value_name = "S")]
        sandbox: Option<String>,
        /// Who answers the first turn's approval requests (see `send`).
        #[arg(long, value_enum)]
        approve: Option<Approve>,
        /// Whether to trust the folder's project agent config (.claude, .mcp.json, .codex,
        /// .pi, .agents, here or in a folder above); recorded over any earlier answer.
        /// Without it an undecided folder is asked about on a terminal.
        #[arg(long, value_enum)]
        trust: Option<TrustAnswer>,
        /// A first prompt to send (runs one turn to its end).
        prompt: Option<String>,
    },
    /// Send a prompt to a thread and run one turn to its end (Ctrl-C interrupts it).
    Send {
        thread: String,
        prompt: String,
        /// Who answers the turn's approval requests: ask on the terminal (the default there),
        /// all (approve every one), none (decline every one; the default without a terminal
        /// or with --json).
        #[arg(long, value_enum)]
        approve: Option<Approve>,
    },
    /// Set a thread's permission mode: a running harness takes it at once (Claude even
    /// mid-turn, Codex from its next turn), else it applies from the next start. MODE and
    /// --sandbox replace both words: a word left out goes back to the harness's default
    /// (Codex: config.toml's). A sandbox word alone (read-only, …) sets Codex's sandbox.
    Mode {
        thread: String,
        mode: String,
        /// Codex's sandbox: read-only, workspace-write, danger-full-access.
        #[arg(long, value_name = "S")]
        sandbox: Option<String>,
    },
    /// List the rules "always this session" added to a thread, or revoke one (--revoke ID).
    Grants {
        thread: String,
        /// The id of the grant to revoke (as listed).
        #[arg(long, value_name = "ID")]
        revoke: Option<String>,
    },
    /// Fork a thread: a new native session from exactly a turn boundary.
    #[command(group(clap::ArgGroup::new("boundary").required(true).args(["after", "before", "latest"])))]
    Fork {
        thread: String,
        /// Keep turns up to and including TURN (a host turn id or a 1-based number).
        #[arg(long, value_name = "TURN")]
        after: Option<String>,
        /// Keep turns before TURN; TURN's prompt is returned as `prefill` for editing.
        #[arg(long, value_name = "TURN")]
        before: Option<String>,
        /// Keep every completed turn.
        #[arg(long)]
        latest: bool,
        /// Fork into a new git worktree holding the files as of that message (the default
        /// when the thread has file checkpoints).
        #[arg(long, conflicts_with = "same_folder")]
        worktree: bool,
        /// Fork in the source's folder, as its files are now.
        #[arg(long)]
        same_folder: bool,
        /// Continue the conversation in another harness (claude, codex or pi): a new native
        /// session of it holding the turns up to the cut. The source's own harness is a
        /// native fork.
        #[arg(long, value_name = "HARNESS")]
        into: Option<HarnessKind>,
        #[command(flatten)]
        to_host: remote::ToHost,
    },
    /// What a branch cost: its own turns since its fork point and what it inherited, or with
    /// --tree every branch of its tree and their sum (each turn counted once).
    Cost(cost::CostArgs),
    /// Race N lanes: N forks of one turn, each in its own worktree, one prompt sent to all at
    /// once; a status line per lane as it changes, then a table.
    Race(race::RaceArgs),
    /// The Agent Client Protocol agents (Gemini CLI, OpenCode, …) and what each can do.
    Agents(agents::AgentsArgs),
    /// Keep one lane of a race: its changes into the source's folder (uncommitted); the other
    /// lanes archived, their worktrees removed (asked first unless --yes).
    Keep {
        lane: String,
        #[arg(long)]
        yes: bool,
    },
    /// A thread's folder kind and its file checkpoints (one per turn start and end).
    Checkpoints { thread: String },
    /// What changed: a fork's files since its fork point, or THREAD's files against OTHER's.
    Diff {
        thread: String,
        other: Option<String>,
    },
    /// Show, set or remove (--clear) the check command run in each race lane's folder when its
    /// turn ends (e.g. `npm test`); --approve approves exactly the text saved. It runs as you,
    /// outside the agents' sandboxes and approvals, and runs what the lanes wrote (scripts,
    /// package.json, Makefile): a lane's agent can change what it does.
    #[command(name = "check-command")]
    Check(check::CheckCommandArgs),
    /// Show, set or remove (--clear) the command run once in each new fork worktree of the
    /// repository holding FOLDER (e.g. `npm ci`). It runs as you, outside the agents'
    /// sandboxes, on the fork's files, which hold what the agent wrote up to the fork point.
    #[command(name = "setup-command")]
    Setup {
        folder: PathBuf,
        command: Option<String>,
        #[arg(long, conflicts_with = "command")]
        clear: bool,
    },
    /// Bring a fork's file changes (since its fork point) to another thread's folder, as
    /// uncommitted changes.
    Apply {
        fork: String,
        #[arg(long, value_name = "THREAD")]
        to: String,
    },
    /// Show a thread: lineage, turns with their anchors, and the messages.
    Show { thread: String },
    /// List all threads with their lineage.
    Threads,
    /// Adopt a native session (an id or a file path) as a thread.
    Import {
        harness: HarnessKind,
        session: String,
        /// Whether to trust the session folder's project agent config; recorded over any
        /// earlier answer.
        #[arg(long, value_enum)]
        trust: Option<TrustAnswer>,
    },
    /// List the native sessions on this machine that can be imported.
    Sessions,
    /// Rename a thread.
    Rename {
        thread: String,
        title: String,
        /// Only if the thread is still at this revision (else `conflict`).
        #[arg(long, value_name = "N")]
        if_revision: Option<i64>,
    },
    /// Print a thread's branch, from the root of its lineage to TURN (all its turns without
    /// --to), as Markdown (prompts and replies in order, tool calls folded) or JSON.
    Export {
        thread: String,
        /// The last turn (a 1-based number or a host turn id).
        #[arg(long, value_name = "TURN")]
        to: Option<String>,
        #[arg(long, value_enum, default_value = "md")]
        format: ExportAs,
    },
    /// Search every thread, branch and harness, and the sessions not adopted yet: hits in
    /// prompts, replies and tool input/output, grouped by thread.
    Search(search::SearchArgs),
    /// Rewind a thread in place to the end of a turn (--to TURN): the conversation and its
    /// folder's files (--conversation or --files for one), its old line kept as a branch;
    /// --undo swaps back.
    Rewind(rewind::RewindArgs),
    /// Open a thread's session in its harness's own TUI, in this terminal; the thread takes
    /// no other turn until the TUI ends (what it wrote is then read into the thread).
    Terminal { thread: String },
    /// Archive a thread (its native session is kept); --undo brings it back.
    Archive {
        thread: String,
        #[arg(long)]
        undo: bool,
    },
    // Folder trust (trust.rs).
    /// List the folders whose project agent config you decided on; `trust FOLDER yes|no`
    /// records an answer (over any earlier one); `trust --revoke FOLDER` forgets it.
    Trust(trust::TrustArgs),
    /// The remote hosts this machine knows by name: list, add, remove.
    Hosts(hosts::HostsArgs),
    /// Serve this machine's threads on its data folder's socket: what a remote host runs so
    /// that its turns go on when the connection drops (started on demand; ends when idle).
    Serve(serve::ServeArgs),
    /// Follow a thread's turn in this machine's daemon to its end: what streamed so far, then
    /// the rest (after a dropped connection: `forkhost --host NAME attach THREAD`).
    Attach(serve::AttachArgs),
    /// On a machine a branch moves to: a thread from the branch (JSON) on stdin.
    #[command(hide = true)]
    AdoptBranch(remote::AdoptArgs),
    /// On a machine a branch moves from: the branch at a turn, as JSON.
    #[command(hide = true)]
    ExportBranch(remote::ExportArgs),
    /// On a machine a branch moves to: where its files (JSON on stdin) would land.
    #[command(hide = true)]
    FilesTarget(moved_files::FilesTargetArgs),
    /// On a machine a branch moves from: the bundle of its files, as bytes on stdout.
    #[command(hide = true)]
    BundleFiles(moved_files::BundleArgs),
    /// On a remote host: check the client's version, then run ARGS (`--host`'s other end).
    #[command(hide = true)]
    RemoteExec {
        #[arg(long)]
        client_version: String,
        #[arg(last = true)]
        args: Vec<String>,
    },
    /// Fill the repository's spare worktree at COMMIT (started by a worktree fork; spare.rs).
    #[command(hide = true)]
    SpareFill { repository: PathBuf, at: String },
}

/// `export --format`.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ExportAs {
    Md,
    Json,
}

fn main() -> ExitCode {
    let mut cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    if let Command::RemoteExec { .. } = cli.command {
        cli = match remote::remote_exec(cli) {
            Ok(cli) => cli,
            Err(status) => return status,
        };
    }
    // `--host NAME serve --attach` runs there (the app's link to a remote thread).
    let here = cli
        .host
        .as_deref()
        .is_none_or(|h| h == forkhost_core::LOCAL_HOST);
    if let (true, Command::Serve(args)) = (here, &cli.command) {
        return serve::main(cli.data_dir, cli.json, args.clone());
    }
    forkhost_core::logging::init_stderr("warn");
    let out = Output::new(cli.json);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => return out.fail(&HostError::Internal(err.to_string())),
    };
    if let Some(name) = cli.host.clone().filter(|h| h != forkhost_core::LOCAL_HOST) {
        let status = runtime.block_on(remote::on_host(cli, &name));
        runtime.shutdown_background();
        return status.unwrap_or_else(|err| out.fail(&err));
    }
    let result = runtime.block_on(run(cli));
    // A terminal prompt left unanswered (Ctrl-C while asking) blocks a reader thread; the
    // command is over, so don't wait for it.
    runtime.shutdown_background();
    match result {
        Ok(value) => out.success(&value),
        Err(err) => out.fail(&err),
    }
}

pub(crate) fn data_dir_of(given: Option<PathBuf>) -> Result<PathBuf, HostError> {
    given
        .or_else(default_data_dir)
        .ok_or_else(|| HostError::InvalidInput("no data folder: pass --data-dir".into()))
}

async fn run(cli: Cli) -> Result<Printed, HostError> {
    let data_dir = data_dir_of(cli.data_dir.clone())?;
    // The app does the same at start; a folder made by the CLI first is private too.
    forkhost_core::data_dir::prepare(&data_dir)
        .map_err(|e| HostError::Internal(format!("cannot prepare {}: {e}", data_dir.display())))?;
    // One-shot: the spare worktrees a fork wants are filled by processes of their own.
    let options = HostOptions {
        hand_off_spares: true,
        ..HostOptions::default()
    };
    if let Some(done) = serve::daemon_only(&cli, &data_dir).await {
        return done;
    }
    if let Command::Terminal { thread } = &cli.command {
        return terminal::open(&data_dir, thread, cli.via_daemon).await;
    }
    let (host, report) = Host::open_with(&data_dir, options).await?;
    if let Some(recovery) = &report.recovered {
        eprintln!(
            "forkhost: the store was unusable ({}); it was moved to {} and {} threads were rebuilt from the native sessions",
            recovery.reason,
            recovery.moved_to.display(),
            report.rebuilt
        );
    }
    let result = match &cli.command {
        // Turns that came over SSH run in this machine's daemon.
        Command::New {
            prompt: Some(_), ..
        } if cli.via_daemon => match serve::connect(&data_dir).await {
            Ok(daemon) => execute(&host, cli.command, cli.json, Some(&daemon)).await,
            Err(err) => Err(err),
        },
        _ => execute(&host, cli.command, cli.json, None).await,
    };
    host.shutdown().await;
    spare_worktree::hand_off(host.spare_jobs(), &data_dir);
    result
}

async fn execute(
    host: &Host,
    command: Command,
    json: bool,
    daemon: Option<&forkhost_core::Connection>,
) -> Result<Printed, HostError> {
    let at = daemon.map_or(stream::RunsAt::Here(host), stream::RunsAt::Daemon);
    Ok(match command {
        Command::Doctor => {
            let harnesses = host.doctor().await;
            let text = output::doctor_text(&harnesses);
            Printed::new(serde_json::json!({ "harnesses": harnesses }), text)
        }
        Command::New {
            harness,
            cwd,
            title,
            mode,
            sandbox,
            approve,
            trust,
            prompt,
        } => {
            trust::decide(host, &cwd, trust, json).await?;
            let created = host
                .create(NewThreadSpec {
                    harness,
                    cwd,
                    title,
                    permissions: PermissionMode { mode, sandbox },
                })
                .await?;
            match prompt {
                Some(prompt) => {
                    let policy = Approve::resolve(approve, json);
                    output::sent_printed(
                        stream::send(at, &created.thread.id, &prompt, json, policy).await?,
                    )
                }
                None => output::thread_printed(&created),
            }
        }
        Command::Send {
            thread,
            prompt,
            approve,
        } => {
            let policy = Approve::resolve(approve, json);
            output::sent_printed(stream::send(at, &thread, &prompt, json, policy).await?)
        }
        Command::Attach(args) => serve::attach(host, &args.thread).await?,
        Command::Mode {
            thread,
            mode,
            sandbox,
        } => {
            let view = host
                .set_mode(
                    &thread,
                    PermissionMode {
                        mode: Some(mode),
                        sandbox,
                    },
                )
                .await?;
            Printed::new(
                serde_json::json!({ "thread": view }),
                output::thread_line(&view),
            )
        }
        Command::Fork {
            thread,
            after,
            before,
            latest,
            worktree,
            same_folder,
            into,
            to_host,
        } => {
            let files = match (worktree, same_folder) {
                (true, _) => ForkFiles::Worktree,
                (_, true) => ForkFiles::SameFolder,
                _ => ForkFiles::Auto,
            };
            let at = fork_at(after, before, latest)?;
            match to_host.to_host.is_some() {
                true => {
                    let source = remote::Side::Local(host.clone());
                    remote::continue_branch(host, source, &thread, at, into, to_host).await?
                }
                false => files::fork(host, &thread, at, files, into).await?,
            }
        }
        Command::Race(args) => race::race(host, args, json).await?,
        Command::Agents(args) => agents::agents(host, args).await?,
        Command::Hosts(args) => hosts::hosts(host, args).await?,
        Command::Cost(args) => cost::cost(host, args).await?,
        Command::AdoptBranch(args) => remote::adopt(host, args).await?,
        Command::ExportBranch(args) => remote::export(host, args).await?,
        Command::FilesTarget(args) => moved_files::files_target(host, args).await?,
        Command::BundleFiles(args) => moved_files::bundle(host, args).await?,
        Command::Serve(_) | Command::Terminal { .. } => {
            return Err(HostError::Internal(
                "serve and terminal run before the Host opens".into(),
            ))
        }
        Command::RemoteExec { .. } => {
            return Err(HostError::InvalidInput(
                "remote-exec runs its arguments, not itself".into(),
            ))
        }
        Command::Search(args) => search::search(host, args).await?,
        Command::Rewind(args) => rewind::rewind(host, args, json).await?,
        Command::Check(args) => check::check_command(host, args).await?,
        Command::Keep { lane, yes } => race::keep(host, &lane, yes, json).await?,
        Command::Show { thread } => {
            let detail = host.show(&thread).await?;
            let files = host.files(&thread).await?;
            let text = format!(
                "{}\n{}",
                output::thread_text(&detail),
                files::files_text(&files)
            );
            Printed::new(
                serde_json::json!({ "thread": detail, "files": files }),
                text,
            )
        }
        Command::Grants { thread, revoke } => {
            grants::grants(host, &thread, revoke.as_deref()).await?
        }
        Command::Checkpoints { thread } => files::checkpoints(host, &thread).await?,
        Command::Diff { thread, other } => files::diff(host, &thread, other.as_deref()).await?,
        Command::Apply { fork, to } => files::apply(host, &fork, &to).await?,
        Command::Setup {
            folder,
            command,
            clear,
        } => files::setup_command(host, &folder, command.as_deref(), clear).await?,
        Command::Threads => {
            let threads = host.threads().await?;
            let text = threads
                .iter()
                .map(output::thread_line)
                .collect::<Vec<_>>()
                .join("\n");
            Printed::new(serde_json::json!({ "threads": threads }), text)
        }
        Command::Import {
            harness,
            session,
            trust,
        } => output::thread_printed(
            &host
                .import_trusting(harness, &session, trust.map(TrustAnswer::trusted))
                .await?,
        ),
        Command::Sessions => {
            let sessions = host.discover().await?;
            let text = output::sessions_text(&sessions);
            Printed::new(serde_json::json!({ "sessions": sessions }), text)
        }
        Command::Rename {
            thread,
            title,
            if_revision,
        } => {
            let view = host.rename_if(&thread, &title, if_revision).await?;
            Printed::new(
                serde_json::json!({ "thread": view }),
                output::thread_line(&view),
            )
        }
        Command::Trust(args) => trust::command(host, args).await?,
        Command::Export { thread, to, format } => {
            let to = to.as_deref().map(turn_ref).transpose()?;
            let format = match format {
                ExportAs::Md => ExportFormat::Markdown,
                ExportAs::Json => ExportFormat::Json,
            };
            output::export_printed(format, host.export(&thread, to, format).await?)?
        }
        Command::SpareFill { repository, at } => {
            spare_worktree::fill(host, &repository, &at).await?;
            Printed::new(serde_json::json!({}), String::new())
        }
        Command::Archive { thread, undo } => {
            let view = host.archive(&thread, !undo).await?;
            Printed::new(
                serde_json::json!({ "thread": view }),
                output::thread_line(&view),
            )
        }
    })
}
