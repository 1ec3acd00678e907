//! `forkhost terminal THREAD`: the thread's native session in its harness's own TUI, in this
//! terminal. While the TUI runs the thread takes no turn from anywhere else (one writer per
//! session): where this machine's daemon runs — always for a command that came over SSH, which
//! is how the app's terminal tab reaches a remote thread (`ssh -t HOST forkhost terminal ID`) —
//! the daemon holds the thread for as long as this process's connection lasts, so a TUI whose
//! ssh dropped frees it with the connection. Without a daemon, this process's own Host holds it.

use std::io::IsTerminal;
use std::path::Path;
use std::process::Stdio;

use forkhost_core::{Host, HostError, TerminalCommand};

use crate::output::Printed;

/// Runs the TUI on `thread` and waits for it; its exit status in the JSON.
pub async fn open(data_dir: &Path, thread: &str, via_daemon: bool) -> Result<Printed, HostError> {
    if !std::io::stdin().is_terminal() {
        return Err(HostError::InvalidInput(
            "the harness's TUI needs a terminal: run `forkhost terminal` in one (over ssh: `ssh -t`)"
                .into(),
        ));
    }
    #[cfg(unix)]
    {
        let daemon = match via_daemon {
            true => Some(crate::serve::connect(data_dir).await?),
            false => forkhost_core::Connection::connect(data_dir).await.ok(),
        };
        if let Some(daemon) = daemon {
            return in_daemon(&daemon, thread).await;
        }
    }
    let _ = via_daemon;
    let (host, _) = Host::open(data_dir).await?;
    let ran = async {
        let command = host.terminal_command(thread).await?;
        let status = run(command).await;
        host.release_terminal(thread).await?;
        status
    }
    .await;
    host.shutdown().await;
    ran.map(|status| printed(thread, status))
}

/// The daemon holds the thread while this connection lasts; released when the TUI ends.
#[cfg(unix)]
async fn in_daemon(daemon: &forkhost_core::Connection, thread: &str) -> Result<Printed, HostError> {
    use forkhost_core::{Call, Returned};
    let command = match daemon
        .call(Call::OpenTerminal {
            thread: thread.to_owned(),
        })
        .await?
    {
        Returned::Terminal { command } => *command,
        other => {
            return Err(HostError::Internal(format!(
                "the daemon answered a terminal with {other:?}"
            )))
        }
    };
    let status = run(command).await;
    let released = daemon
        .call(Call::ReleaseTerminal {
            thread: thread.to_owned(),
        })
        .await;
    let status = status?;
    released?;
    Ok(printed(thread, status))
}

/// Runs the TUI with this terminal as its own and waits for it. Ctrl-C is the TUI's: this
/// process ignores it meanwhile (a TUI in raw mode reads it as a key; one that is not ends
/// by it, and then this process releases the thread).
async fn run(command: TerminalCommand) -> Result<Option<i32>, HostError> {
    let ignore_interrupts = tokio::spawn(async { while tokio::signal::ctrl_c().await.is_ok() {} });
    let TerminalCommand {
        program,
        args,
        cwd,
        env,
    } = command;
    let mut child = std::process::Command::new(&program);
    child
        .args(&args)
        .current_dir(&cwd)
        // The harness search folders, as the structured runtime gets them; the thread's own
        // variables still win.
        .env("PATH", forkhost_core::harnesses::child_path())
        .envs(env)
        .stdin(Stdio::inherit())
        .stdout(Stdio::inherit())
        .stderr(Stdio::inherit());
    tracing::info!(program = %program, "terminal started");
    let waited = tokio::task::spawn_blocking(move || child.status())
        .await
        .map_err(|e| HostError::Internal(e.to_string()))?;
    ignore_interrupts.abort();
    let status = waited.map_err(|e| {
        HostError::HarnessFailed(format!("{program} could not start in {cwd}: {e}"))
    })?;
    Ok(status.code())
}

fn printed(thread: &str, status: Option<i32>) -> Printed {
    Printed::new(
        serde_json::json!({ "thread": thread, "exit_code": status }),
        String::new(),
    )
}
