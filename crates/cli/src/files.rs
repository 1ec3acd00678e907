//! The file side of threads from a terminal: `checkpoints`, `diff`, `apply`, and the files
//! part of `show`.

use std::io::IsTerminal;
use std::path::Path;

use forkhost_core::{
    ChangesView, FilesView, ForkAt, ForkFiles, HarnessKind, Host, HostEvent, HostResult,
};

use crate::output::Printed;

/// `forkhost fork`: the fork, and where its files come from; with a worktree and a setup
/// command, the command's output (on stderr) until it ends.
pub async fn fork(
    host: &Host,
    thread: &str,
    at: ForkAt,
    files: ForkFiles,
    into: Option<HarnessKind>,
) -> HostResult<Printed> {
    let mut events = host.subscribe();
    let forked = host.fork_into(thread, at, files, into).await?;
    let mut text = crate::output::thread_text(&forked.thread);
    if let Some(prefill) = &forked.prefill {
        text.push_str(&format!("\nprefill: {prefill}"));
    }
    if let Some(note) = &forked.files_note {
        text.push_str(&format!("\nfiles: {note}"));
    }
    if let Some(note) = &forked.carry_note {
        text.push_str(&format!("\ncarried: {note}"));
    }
    let fork_id = forked.thread.thread.id.clone();
    if forked.files_pending {
        // The fork is made; its worktree is being filled. Progress on a terminal, and back
        // once the files are there (a failure has removed the worktree and says why).
        let progress = show_fill_progress(host.subscribe(), fork_id.clone());
        let ready = host.files_ready(&fork_id).await;
        progress.abort();
        if std::io::stderr().is_terminal() {
            eprint!("\r\x1b[2K");
        }
        ready?;
    }
    let folder = Path::new(&forked.thread.thread.cwd);
    let in_worktree = host.files(&fork_id).await?.folder_kind == "worktree";
    let mut setup = serde_json::Value::Null;
    if in_worktree && host.setup_command(folder).await.ok().flatten().is_some() {
        let mut output = String::new();
        loop {
            match events.recv().await {
                Ok(HostEvent::WorktreeSetup {
                    thread_id,
                    output: chunk,
                }) if thread_id == fork_id => {
                    eprint!("{chunk}");
                    output.push_str(&chunk);
                }
                Ok(HostEvent::WorktreeSetupEnded {
                    thread_id,
                    success,
                    message,
                }) if thread_id == fork_id => {
                    text.push_str(&format!(
                        "\nsetup: {}",
                        message.clone().unwrap_or_else(|| "done".into())
                    ));
                    setup = serde_json::json!({ "success": success, "message": message, "output": output });
                    break;
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(_) => break,
            }
        }
    }
    Ok(Printed::new(
        serde_json::json!({
            "thread": forked.thread,
            "prefill": forked.prefill,
            "files_note": forked.files_note,
            "carry_note": forked.carry_note,
            "setup": setup,
        }),
        text,
    ))
}

/// "Preparing files 12,340 / 50,000" on stderr while a fork's worktree is filled, when stderr
/// is a terminal.
fn show_fill_progress(
    mut events: tokio::sync::broadcast::Receiver<HostEvent>,
    fork_id: String,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        if !std::io::stderr().is_terminal() {
            return;
        }
        eprint!("Preparing files…");
        loop {
            match events.recv().await {
                Ok(HostEvent::FilesProgress {
                    thread_id,
                    done,
                    total,
                }) if thread_id == fork_id && total > 0 => {
                    eprint!(
                        "\r\x1b[2KPreparing files {} / {}",
                        thousands(done),
                        thousands(total)
                    );
                }
                Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                Err(_) => break,
            }
        }
    })
}

/// 12340 → "12,340".
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `forkhost setup-command FOLDER [COMMAND] [--clear]`.
pub async fn setup_command(
    host: &Host,
    folder: &Path,
    command: Option<&str>,
    clear: bool,
) -> HostResult<Printed> {
    let current = match (command, clear) {
        (Some(command), _) => host.set_setup_command(folder, Some(command)).await?,
        (None, true) => host.set_setup_command(folder, None).await?,
        (None, false) => host.setup_command(folder).await?,
    };
    let text = match &current {
        Some(command) => format!("setup command: {command}"),
        None => "no setup command".to_owned(),
    };
    Ok(Printed::new(
        serde_json::json!({ "setup_command": current }),
        text,
    ))
}

/// `forkhost checkpoints THREAD`: the thread's folder kind and each turn's checkpoints.
pub async fn checkpoints(host: &Host, thread: &str) -> HostResult<Printed> {
    let files = host.files(thread).await?;
    let text = files_text(&files);
    Ok(Printed::new(serde_json::json!({ "files": files }), text))
}

/// `forkhost diff THREAD [OTHER]`: a fork's changes since its fork point, or two threads'
/// files against each other.
pub async fn diff(host: &Host, thread: &str, other: Option<&str>) -> HostResult<Printed> {
    let changes = host.changes(thread, other).await?;
    let text = changes_text(&changes, true);
    Ok(Printed::new(
        serde_json::json!({ "changes": changes }),
        text,
    ))
}

/// `forkhost apply FORK --to THREAD`: the fork's changes as uncommitted changes in THREAD's
/// folder.
pub async fn apply(host: &Host, fork: &str, to: &str) -> HostResult<Printed> {
    let applied = host.bring_back(fork, to).await?;
    let mut text = format!(
        "applied {} file(s) to thread {to} as uncommitted changes\n",
        applied.files.len()
    );
    text.push_str(&changes_text(&applied, false));
    Ok(Printed::new(
        serde_json::json!({ "applied": applied }),
        text,
    ))
}

pub fn files_text(files: &FilesView) -> String {
    let mut text = match (&files.folder_kind[..], &files.branch) {
        ("worktree", Some(branch)) => format!("folder: worktree on branch {branch}"),
        _ => "folder: the thread's own folder".to_owned(),
    };
    if !files.folder_exists {
        text.push_str("\nits folder is gone (deleted outside Forkhost)");
    } else if !files.in_git {
        text.push_str("\nnot in a git repository: no checkpoints");
    }
    if let Some(base) = &files.base_commit {
        text.push_str(&format!("\nstarted from {}", short(base)));
    }
    for c in &files.checkpoints {
        text.push_str(&format!(
            "\nturn {} {:<5} {}",
            c.turn,
            c.edge,
            short(&c.commit)
        ));
    }
    text
}

fn changes_text(changes: &ChangesView, with_diff: bool) -> String {
    let mut text = String::new();
    for f in &changes.files {
        let lines = match f.binary {
            true => "binary".to_owned(),
            false => format!("+{} -{}", f.added_lines, f.removed_lines),
        };
        text.push_str(&format!(
            "{:<9} {:<12} {}\n",
            f.status.as_str(),
            lines,
            f.path
        ));
    }
    if changes.files.is_empty() {
        text.push_str("no changes\n");
    }
    if with_diff && !changes.files.is_empty() {
        text.push('\n');
        for f in &changes.files {
            text.push_str(&f.diff);
        }
    }
    text
}

fn short(commit: &str) -> &str {
    &commit[..commit.len().min(10)]
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_are_grouped_by_thousands() {
        assert_eq!(super::thousands(0), "0");
        assert_eq!(super::thousands(999), "999");
        assert_eq!(super::thousands(12_340), "12,340");
        assert_eq!(super::thousands(1_050_000), "1,050,000");
    }
}
