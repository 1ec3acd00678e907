//! `send --approve`: who answers the approval requests of the turn the CLI runs. `ask` prompts
//! on the terminal, `all` approves every request of that turn, `none` declines each and says
//! so. Without a terminal (or with `--json`) nobody can be asked, so the default is `none`:
//! nothing runs that the user did not allow.

use std::io::{BufRead, IsTerminal, Write};

use forkhost_core::{ApprovalDecision, ApprovalView, SubjectView};
use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Approve {
    /// Ask on the terminal for each request: [y]es / [a]lways / [n]o / [s]top.
    Ask,
    /// Approve every request of this turn.
    All,
    /// Decline every request (the default without a terminal or with --json).
    None,
}

impl Approve {
    /// The policy when none is given: ask only where someone can answer.
    pub fn resolve(given: Option<Approve>, json: bool) -> Approve {
        given.unwrap_or_else(|| {
            if !json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
                Approve::Ask
            } else {
                Approve::None
            }
        })
    }
}

/// A request of the turn and what it got, for `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct Answered {
    pub request: ApprovalView,
    /// The decision's name, or `withdrawn`/`gone` when the harness stopped waiting first.
    pub decision: String,
}

/// Decides one request by the policy; `ask` blocks on the terminal.
pub async fn decide(policy: Approve, request: &ApprovalView) -> ApprovalDecision {
    match policy {
        Approve::All => ApprovalDecision::Approve,
        Approve::None => {
            eprintln!(
                "\nforkhost: declined: {} (--approve none; pass --approve all or ask to allow)",
                describe(&request.subject)
            );
            ApprovalDecision::Decline
        }
        Approve::Ask => {
            let text = describe(&request.subject);
            let always = request.can_approve_for_session;
            tokio::task::spawn_blocking(move || prompt(&text, always))
                .await
                .unwrap_or(ApprovalDecision::Decline)
        }
    }
}

/// Asks on stderr and reads stdin until it gets an answer; end of input declines.
fn prompt(what: &str, always: bool) -> ApprovalDecision {
    let choices = if always {
        "[y]es / [a]lways / [n]o / [s]top"
    } else {
        "[y]es / [n]o / [s]top"
    };
    let stdin = std::io::stdin();
    loop {
        eprint!("\nforkhost: the agent wants to {what}\n  allow? {choices} ");
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => {
                eprintln!("\nforkhost: no answer; declined");
                return ApprovalDecision::Decline;
            }
            Ok(_) => {}
        }
        if let Some(decision) = parse_answer(&line, always) {
            return decision;
        }
    }
}

fn parse_answer(line: &str, always: bool) -> Option<ApprovalDecision> {
    match line.trim().to_lowercase().as_str() {
        "y" | "yes" => Some(ApprovalDecision::Approve),
        "a" | "always" if always => Some(ApprovalDecision::ApproveForSession),
        "n" | "no" => Some(ApprovalDecision::Decline),
        "s" | "stop" => Some(ApprovalDecision::DeclineAndStop),
        _ => None,
    }
}

/// What the request wants, in a line or a few: the command, the files (and diff), the tool.
pub fn describe(subject: &SubjectView) -> String {
    match subject {
        SubjectView::Command { command, cwd } => match cwd {
            Some(cwd) => format!("run `{command}` in {}", cwd.display()),
            None => format!("run `{command}`"),
        },
        SubjectView::FileChange { paths, diff } => {
            let mut text = format!("change {}", paths.join(", "));
            if let Some(diff) = diff.as_deref().filter(|d| !d.trim().is_empty()) {
                text.push('\n');
                text.push_str(diff.trim_end());
            }
            text
        }
        SubjectView::Tool { name, input } => format!("use {name} {input}"),
        SubjectView::Question { prompt, options } => {
            format!("ask: {prompt} ({})", options.join(" / "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_the_four_letters() {
        assert_eq!(parse_answer("y\n", true), Some(ApprovalDecision::Approve));
        assert_eq!(
            parse_answer(" A ", true),
            Some(ApprovalDecision::ApproveForSession)
        );
        assert_eq!(parse_answer("a", false), None, "no session grant offered");
        assert_eq!(parse_answer("no", true), Some(ApprovalDecision::Decline));
        assert_eq!(
            parse_answer("s", true),
            Some(ApprovalDecision::DeclineAndStop)
        );
        assert_eq!(parse_answer("", true), None);
    }

    #[test]
    fn json_never_asks() {
        assert_eq!(Approve::resolve(None, true), Approve::None);
        assert_eq!(Approve::resolve(Some(Approve::All), true), Approve::All);
    }

    #[test]
    fn requests_are_described_by_what_they_do() {
        let command = SubjectView::Command {
            command: "touch x".into(),
            cwd: Some("/w".into()),
        };
        assert_eq!(describe(&command), "run `touch x` in /w");
        let files = SubjectView::FileChange {
            paths: vec!["a.txt".into()],
            diff: Some("+hi\n".into()),
        };
        assert_eq!(describe(&files), "change a.txt\n+hi");
    }
}
