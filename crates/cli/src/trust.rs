//! `--trust`: the CLI's side of folder trust (docs/architecture.md "Folder trust"). A folder
//! with project agent config needs the user's decision once; the CLI takes it from `--trust`,
//! or asks on a terminal, else the Host refuses in words.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use forkhost_core::{Host, HostResult, TrustView};

use crate::output::Printed;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TrustAnswer {
    /// Load the project's agent config (its hooks, MCP servers and extensions may run).
    Yes,
    /// Start harnesses there without the project's agent config.
    No,
}

impl TrustAnswer {
    pub fn trusted(self) -> bool {
        self == TrustAnswer::Yes
    }
}

/// Makes sure `folder` has a decision when it needs one. An explicit `given` is always
/// recorded, over any earlier decision (`--trust no` on a trusted folder must hold its config
/// back); without it, an undecided folder is asked about on a terminal; without either the
/// Host's refusal says what to do.
pub async fn decide(
    host: &Host,
    folder: &Path,
    given: Option<TrustAnswer>,
    json: bool,
) -> HostResult<()> {
    if let Some(answer) = given {
        // A folder that is not there is named by the Host when it is used.
        if folder.is_dir() {
            host.set_folder_trust(folder, answer.trusted()).await?;
        }
        return Ok(());
    }
    let Ok(view) = host.folder_trust(folder).await else {
        return Ok(()); // the Host names the bad folder when it is used
    };
    if !view.undecided()
        || json
        || !std::io::stdin().is_terminal()
        || !std::io::stderr().is_terminal()
    {
        return Ok(());
    }
    let shown = view.digest.clone();
    let trusted = match tokio::task::spawn_blocking(move || ask(&view)).await {
        Ok(Some(trusted)) => trusted,
        _ => return Ok(()),
    };
    // The answer covers the config the question showed (review L-4).
    match shown {
        Some(shown) => host.set_folder_trust_shown(folder, trusted, &shown).await?,
        None => host.set_folder_trust(folder, trusted).await?,
    };
    Ok(())
}

/// `trust`'s arguments.
#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    folder: Option<std::path::PathBuf>,
    #[arg(value_enum, requires = "folder")]
    answer: Option<TrustAnswer>,
    #[arg(long, requires = "folder", conflicts_with = "answer")]
    revoke: bool,
}

/// `forkhost trust`: the decisions; with a folder and an answer, records it; with `revoke`,
/// forgets the folder's decision.
pub async fn command(host: &Host, args: TrustArgs) -> HostResult<Printed> {
    let TrustArgs {
        folder,
        answer,
        revoke,
    } = args;
    match (folder.as_deref(), answer, revoke) {
        (Some(folder), _, true) => {
            host.revoke_folder_trust(&folder.display().to_string())
                .await?;
            Ok(Printed::new(
                serde_json::json!({ "revoked": folder }),
                format!(
                    "{}: forgotten; a new thread there asks again",
                    folder.display()
                ),
            ))
        }
        (Some(folder), Some(answer), false) => {
            let view = host.set_folder_trust(folder, answer.trusted()).await?;
            let text = view_line(&view);
            Ok(Printed::new(serde_json::json!({ "trust": view }), text))
        }
        (Some(folder), None, false) => {
            let view = host.folder_trust(folder).await?;
            let text = view_line(&view);
            Ok(Printed::new(serde_json::json!({ "trust": view }), text))
        }
        (None, _, _) => {
            let decisions = host.trusted_folders().await?;
            let text = match decisions.is_empty() {
                true => "no folder-trust decisions".to_owned(),
                false => decisions
                    .iter()
                    .map(|d| format!("{:<9} {}", answer_word(d.trusted), d.folder))
                    .collect::<Vec<_>>()
                    .join("\n"),
            };
            Ok(Printed::new(
                serde_json::json!({ "folders": decisions }),
                text,
            ))
        }
    }
}

fn answer_word(trusted: bool) -> &'static str {
    match trusted {
        true => "trusted",
        false => "untrusted",
    }
}

fn view_line(view: &TrustView) -> String {
    let decided = match (view.trusted, view.changed.is_empty()) {
        (None, _) => "undecided".to_owned(),
        (Some(true), false) => format!("trusted, but changed since: {}", view.changed.join(", ")),
        (Some(trusted), _) => answer_word(trusted).to_owned(),
    };
    let config = match view.config.is_empty() {
        true => "no project agent config".to_owned(),
        false => view.config.join(", "),
    };
    format!("{}: {decided} ({config})", view.root)
}

/// `None` when the user gave no answer (end of input).
fn ask(view: &TrustView) -> Option<bool> {
    let stdin = std::io::stdin();
    loop {
        let changed = match view.changed.is_empty() {
            true => String::new(),
            false => format!(
                "\n  New or changed since you trusted it: {}.",
                view.changed.join(", ")
            ),
        };
        eprint!(
            "\nforkhost: {} has project agent config ({}).{changed}\n  Its hooks, MCP servers \
             and extensions run commands when a harness starts there.\n  No: Claude and Pi \
             start without it (Claude keeps the project's deny and ask rules); Codex starts \
             with the project's MCP servers off, or is refused if the project sets more.\n  \
             trust it? [y]es / [n]o ",
            view.root,
            view.config.join(", ")
        );
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        match line.trim().to_lowercase().as_str() {
            "y" | "yes" => return Some(true),
            "n" | "no" => return Some(false),
            _ => {}
        }
    }
}
