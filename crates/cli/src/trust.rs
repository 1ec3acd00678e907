//! `--trust`: the CLI's side of folder trust (docs/architecture.md "Folder trust"). A folder
//! with project agent config needs the user's decision once; the CLI takes it from `--trust`,
//! or asks on a terminal, else the Host refuses in words.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use forkhost_core::{Host, HostResult, TrustView};

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

/// Makes sure `folder` has a decision when it needs one: `given`, else the answer to a
/// terminal prompt; without either the Host's refusal says what to do.
pub async fn decide(
    host: &Host,
    folder: &Path,
    given: Option<TrustAnswer>,
    json: bool,
) -> HostResult<()> {
    let Ok(view) = host.folder_trust(folder).await else {
        return Ok(()); // the Host names the bad folder when it is used
    };
    if !view.undecided() {
        return Ok(());
    }
    let trusted = match given {
        Some(answer) => answer.trusted(),
        None if !json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal() => {
            match tokio::task::spawn_blocking(move || ask(&view)).await {
                Ok(Some(trusted)) => trusted,
                _ => return Ok(()),
            }
        }
        None => return Ok(()),
    };
    host.set_folder_trust(folder, trusted).await?;
    Ok(())
}

/// `None` when the user gave no answer (end of input).
fn ask(view: &TrustView) -> Option<bool> {
    let stdin = std::io::stdin();
    loop {
        eprint!(
            "\nforkhost: {} has project agent config ({}).\n  Its hooks, MCP servers and \
             extensions run commands when a harness starts there.\n  trust it? [y]es / [n]o ",
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
