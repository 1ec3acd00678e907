//! `forkhost serve` (docs/architecture.md "The daemon"): this machine's Host served on its
//! data folder's socket, so a turn started over SSH runs on when the connection drops, and
//! `forkhost attach THREAD` follows it again. A remote host's `send` goes through it: the
//! first one starts the daemon, detached, and it ends on its own after a while with no client
//! and no turn. `serve --attach` relays stdin and stdout to the socket (a client's way in over
//! `ssh HOST forkhost serve --attach`).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use forkhost_core::{Connection, Host, HostError};

use crate::approve::Approve;
use crate::output::{self, Output, Printed};
use crate::{Cli, Command as CliCommand};

/// `serve`'s options.
#[derive(Debug, Clone, clap::Args)]
pub struct ServeArgs {
    /// Relay stdin and stdout to the daemon (started first when none runs).
    #[arg(long)]
    attach: bool,
    /// End after this many minutes with no client and no turn (0: never).
    #[arg(long, default_value_t = 30, value_name = "MINUTES")]
    idle_exit: u64,
}

/// `attach`'s options.
#[derive(Debug, clap::Args)]
pub struct AttachArgs {
    pub thread: String,
    /// Only the events after this number (default: from the latest turn's start).
    #[arg(long, value_name = "SEQ")]
    pub since: Option<u64>,
    /// How a request still waiting is answered: ask, all, none.
    #[arg(long, value_enum)]
    pub approve: Option<Approve>,
}

/// `serve`: the daemon logs to its data folder's `logs` (nobody reads its stderr); `--attach`
/// prints nothing of its own on stdout, which carries the daemon's words.
pub fn main(data_dir: Option<PathBuf>, json: bool, args: ServeArgs) -> ExitCode {
    let ServeArgs { attach, idle_exit } = args;
    let out = Output::new(json);
    let data_dir = match crate::data_dir_of(data_dir).and_then(|dir| {
        forkhost_core::data_dir::prepare(&dir)
            .map(|()| dir.clone())
            .map_err(|e| HostError::Internal(format!("cannot prepare {}: {e}", dir.display())))
    }) {
        Ok(dir) => dir,
        Err(err) => return out.fail(&err),
    };
    let _log = if attach {
        forkhost_core::logging::init_stderr("warn");
        None
    } else {
        forkhost_core::logging::init_app(&data_dir.join("logs")).ok()
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => return out.fail(&HostError::Internal(err.to_string())),
    };
    let result = runtime.block_on(async {
        if attach {
            relay(&data_dir).await
        } else {
            serve(&data_dir, idle_exit).await
        }
    });
    runtime.shutdown_background();
    match result {
        Ok(_) if attach => ExitCode::SUCCESS,
        Ok(printed) => out.success(&printed),
        Err(err) => out.fail(&err),
    }
}

/// `attach` where no daemon runs (one that runs answers alone, `main.rs`): the thread as
/// stored, since no turn of it runs on without a client.
pub async fn attach(host: &Host, thread: &str) -> Result<Printed, HostError> {
    eprintln!("forkhost: no daemon runs here, so no turn to follow");
    Ok(output::thread_printed(&host.show(thread).await?))
}

/// A command the daemon answers alone, without this process opening the store beside it: a
/// turn that came over SSH (`send` under `remote-exec`), and `attach` while a daemon runs.
/// `None`: the command needs this process's Host.
pub async fn daemon_only(cli: &Cli, data_dir: &Path) -> Option<Result<Printed, HostError>> {
    match &cli.command {
        CliCommand::Send {
            thread,
            prompt,
            approve,
        } if cli.via_daemon => Some(
            async {
                let daemon = connect(data_dir).await?;
                let policy = Approve::resolve(*approve, cli.json);
                let at = crate::stream::RunsAt::Daemon(&daemon);
                let sent = crate::stream::send(at, thread, prompt, cli.json, policy).await?;
                Ok::<_, HostError>(output::sent_printed(sent))
            }
            .await,
        ),
        CliCommand::Attach(args) => {
            let daemon = forkhost_core::Connection::connect(data_dir).await.ok()?;
            let policy = Approve::resolve(args.approve, cli.json);
            Some(
                crate::stream::attach(&daemon, &args.thread, args.since, cli.json, policy)
                    .await
                    .map(output::sent_printed),
            )
        }
        _ => None,
    }
}

/// How long a client waits for a daemon it started to listen.
const START_WAIT: Duration = Duration::from_secs(20);

/// `forkhost serve`: serves until idle for `idle_minutes` (0: never).
#[cfg(unix)]
pub async fn serve(data_dir: &Path, idle_minutes: u64) -> Result<Printed, HostError> {
    let served = forkhost_core::Served::claim(data_dir)?;
    let socket = served.socket.clone();
    let (host, _) = forkhost_core::Host::open(data_dir).await?;
    let options = forkhost_core::ServeOptions {
        idle_exit: (idle_minutes > 0).then(|| Duration::from_secs(idle_minutes * 60)),
    };
    forkhost_core::serve(host, served, options).await?;
    Ok(Printed::new(
        serde_json::json!({ "served": socket }),
        format!("served {} until idle", socket.display()),
    ))
}

#[cfg(not(unix))]
pub async fn serve(_: &Path, _: u64) -> Result<Printed, HostError> {
    Err(HostError::Unsupported(
        "forkhost serve runs on Linux and macOS; this machine can be its client".into(),
    ))
}

/// A connection to the daemon of `data_dir`, started first when none listens.
pub async fn connect(data_dir: &Path) -> Result<Connection, HostError> {
    if let Ok(connection) = Connection::connect(data_dir).await {
        return Ok(connection);
    }
    start(data_dir)?;
    let deadline = tokio::time::Instant::now() + START_WAIT;
    loop {
        match Connection::connect(data_dir).await {
            Ok(connection) => return Ok(connection),
            // Another client may have started one at the same moment: ours then exits, and
            // the socket is theirs.
            Err(err) if tokio::time::Instant::now() > deadline => {
                return Err(HostError::HostUnreachable(format!(
                    "the daemon did not start ({err}); its log is in {}",
                    data_dir.join("logs").display()
                )))
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// Starts `forkhost serve` for `data_dir` in a session of its own, so that neither a closed
/// terminal nor a dropped SSH connection ends it.
fn start(data_dir: &Path) -> Result<(), HostError> {
    let exe = std::env::current_exe()
        .map_err(|e| HostError::Internal(format!("this program's path: {e}")))?;
    let mut daemon = Command::new(exe);
    daemon
        .arg("--data-dir")
        .arg(data_dir)
        .arg("serve")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // SAFETY: setsid is async-signal-safe and touches no memory of this process.
        unsafe {
            daemon.pre_exec(|| {
                if libc::setsid() == -1 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
    }
    // Not waited for: it outlives this process.
    let child = daemon
        .spawn()
        .map_err(|e| HostError::Internal(format!("could not start the daemon: {e}")))?;
    tracing::info!(pid = child.id(), "daemon started");
    Ok(())
}

/// `forkhost serve --attach`: this process's stdin and stdout become a connection to the
/// daemon (started first when none listens), until either side ends.
#[cfg(unix)]
pub async fn relay(data_dir: &Path) -> Result<Printed, HostError> {
    // Started and greeted once, so that the relay's first bytes reach a listening daemon.
    drop(connect(data_dir).await?);
    let socket = forkhost_core::socket_path(data_dir)?;
    let stream = tokio::net::UnixStream::connect(&socket)
        .await
        .map_err(|e| HostError::HostUnreachable(format!("{}: {e}", socket.display())))?;
    let (mut from_daemon, mut to_daemon) = stream.into_split();
    let up = async {
        let _ = tokio::io::copy(&mut tokio::io::stdin(), &mut to_daemon).await;
        drop(to_daemon);
    };
    let down = async {
        let _ = tokio::io::copy(&mut from_daemon, &mut tokio::io::stdout()).await;
    };
    // Either side's end ends the relay: a client gone, or the daemon gone.
    tokio::select! {
        () = up => {}
        () = down => {}
    }
    Ok(Printed::new(serde_json::Value::Null, String::new()))
}

#[cfg(not(unix))]
pub async fn relay(data_dir: &Path) -> Result<Printed, HostError> {
    serve(data_dir, 0).await
}
