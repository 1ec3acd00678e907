//! `forkhost rewind THREAD --to TURN [--files|--conversation] [--yes]` and `forkhost rewind
//! THREAD --undo` (docs/architecture.md "Rewind"): the plan is shown first, and a loss (changes
//! no checkpoint holds) is asked about on a terminal, refused without one unless --yes.

use std::io::{BufRead, IsTerminal, Write};

use forkhost_core::{Host, HostError, HostResult, RewindKind, RewindPlan, RewoundView, TurnRef};

use crate::approve::visible;
use crate::output::Printed;

/// What `forkhost rewind` was asked.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("rewind_what").required(true).args(["to", "undo"])))]
pub struct RewindArgs {
    thread: String,
    /// Go back to the end of TURN (a host turn id or a 1-based number).
    #[arg(long, value_name = "TURN")]
    to: Option<String>,
    /// The files only: the thread's folder as at the end of TURN; the conversation stays.
    #[arg(long, conflicts_with_all = ["conversation", "undo"])]
    files: bool,
    /// The conversation only: the files stay as they are.
    #[arg(long, conflicts_with = "undo")]
    conversation: bool,
    /// Overwrite changes no checkpoint holds without asking.
    #[arg(long)]
    yes: bool,
    /// Undo the thread's latest rewind: its old line back, and its files as before.
    #[arg(long)]
    undo: bool,
}

pub async fn rewind(host: &Host, args: RewindArgs, json: bool) -> HostResult<Printed> {
    if args.undo {
        let done = host.undo_rewind(&args.thread).await?;
        let text = done_text("undid the rewind of", &done);
        return Ok(Printed::new(serde_json::json!({ "rewound": done }), text));
    }
    let kind = match (args.files, args.conversation) {
        (true, _) => RewindKind::Files,
        (_, true) => RewindKind::Conversation,
        _ => RewindKind::ConversationAndFiles,
    };
    let Some(to) = args.to.as_deref() else {
        return Err(HostError::InvalidInput("say --to TURN or --undo".into()));
    };
    let to = TurnRef::parse(to);
    let plan = host.rewind_plan(&args.thread, &to, kind).await?;
    if !plan.loss.is_empty() && !args.yes {
        let can_ask = !json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
        let lost = plan.loss.join(", ");
        if !can_ask {
            return Err(HostError::InvalidInput(format!(
                "rewinding thread {} overwrites changes no checkpoint holds ({lost}); only \
                 `forkhost rewind {} --undo` would bring them back. Pass --yes to confirm",
                args.thread, args.thread
            )));
        }
        eprintln!("{}", plan_text(&plan));
        eprint!("Overwrite {lost} (only --undo brings them back)? [y/N] ");
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        let _ = std::io::stdin().lock().read_line(&mut answer);
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            return Err(HostError::InvalidInput(
                "nothing rewound: the thread and its files stay as they are".into(),
            ));
        }
    }
    let done = host
        .rewind(&args.thread, &to, kind, Some(&plan.loss))
        .await?;
    let text = done_text("rewound", &done);
    Ok(Printed::new(serde_json::json!({ "rewound": done }), text))
}

/// What the rewind will do, in lines. File names are the agent's choice: their control
/// characters are shown (`approve::visible`), so none can rewrite the list the user confirms.
fn plan_text(plan: &RewindPlan) -> String {
    let mut text = format!(
        "rewind {} to turn {} of {} ({})",
        plan.thread_id,
        plan.turn,
        plan.turns,
        plan.kind.as_str()
    );
    for f in &plan.changes {
        let lost = match plan.loss.contains(&f.path) {
            true => "  (no checkpoint holds its changes)",
            false => "",
        };
        text.push_str(&format!(
            "\n  {} {}{lost}",
            f.status.as_str(),
            visible(&f.path)
        ));
    }
    text
}

fn done_text(what: &str, done: &RewoundView) -> String {
    let r = &done.rewind;
    let mut text = format!(
        "{what} {} to turn {} ({}): it has {} turns now",
        r.thread_id,
        r.turn,
        r.kind.as_str(),
        done.thread.turns.len()
    );
    if let Some(branch) = &r.branch_id {
        text.push_str(&format!("\nthe other line is thread {branch}"));
    }
    for f in &done.files {
        text.push_str(&format!("\n  {} {}", f.status.as_str(), visible(&f.path)));
    }
    for path in &done.kept {
        text.push_str(&format!(
            "\n  kept {} (no checkpoint held it)",
            visible(path)
        ));
    }
    if what == "rewound" {
        text.push_str(&format!("\nundo: forkhost rewind {} --undo", r.thread_id));
    }
    text
}

#[cfg(test)]
mod tests {
    use forkhost_core::{FileStatus, RewindFileView};

    use super::*;

    #[test]
    fn a_file_name_cannot_rewrite_the_list_the_user_confirms() {
        let plan = RewindPlan {
            thread_id: "t".into(),
            kind: RewindKind::ConversationAndFiles,
            turn: 2,
            turns: 3,
            changes: vec![RewindFileView {
                path: "a\x1b[1A\x1b[2Kb.txt".into(),
                status: FileStatus::Deleted,
                added_lines: 0,
                removed_lines: 0,
                binary: false,
            }],
            loss: vec!["a\x1b[1A\x1b[2Kb.txt".into()],
        };
        let text = plan_text(&plan);
        assert!(!text.contains('\x1b'), "{text:?}");
        assert!(
            text.contains("a\\x1b[1A\\x1b[2Kb.txt  (no checkpoint holds its changes)"),
            "{text}"
        );
    }
}
