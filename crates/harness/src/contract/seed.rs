//! A conversation carried into another harness: the neutral form one harness's turns take on
//! their way into a native session of another ("Continue in another agent"). Built from a
//! source's [`Turn`](crate::Turn)s by [`crate::carry`]; written by the target's
//! [`Harness::seed`](super::Harness::seed) in its own format, with nothing sent to a model.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::binary::HarnessBinary;
use super::session::{Forked, NativeSession};
use crate::{HarnessError, HarnessKind, HarnessResult};

/// The turns to carry, in order, and what of them could not come as they were. Serialized, it
/// carries a branch to another machine (docs/architecture.md "Remote hosts").
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Seed {
    /// The name of the harness the turns come from ("Claude Code"), for the notes tools are
    /// carried as.
    pub from: String,
    pub turns: Vec<SeedTurn>,
}

/// One turn: the user's prompt and the reply, step by step.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SeedTurn {
    pub prompt: String,
    pub reply: Vec<SeedStep>,
}

/// One step of a reply.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum SeedStep {
    /// Text the assistant wrote (also a tool call carried as a note, see [`SeedTool::note`]).
    Text(String),
    /// A shell command and what it printed: every harness has a shell tool, so the target
    /// records it as its own tool call and result.
    Shell(ShellCall),
    /// A file read, written or edited: Claude Code and Pi record it as their own `Read`/`read`,
    /// `Write`/`write` or `Edit`/`edit` call ([`crate::carry`] turns it into text for a target
    /// without such tools).
    File(FileCall),
}

/// A file tool call of the source and its result.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FileCall {
    /// The path as the source's call named it (absolute, or relative to its folder).
    pub path: String,
    pub op: FileOp,
    pub output: String,
    pub is_error: bool,
}

/// What a [`FileCall`] did.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum FileOp {
    /// Read the file, or `limit` lines of it from line `offset` (1-based) where given.
    Read {
        offset: Option<u64>,
        limit: Option<u64>,
    },
    /// Wrote the whole file.
    Write { content: String },
    /// Replaced each `old` text with its `new` one (matched against the file as it was).
    Edit { edits: Vec<TextEdit> },
}

/// One replacement of an edit.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TextEdit {
    pub old: String,
    pub new: String,
}

impl FileCall {
    /// The call as faithful text, for a target that has no such tool (see [`SeedTool::note`]).
    pub fn note(&self, from: &str) -> String {
        let input = match &self.op {
            FileOp::Read { offset, limit } => {
                serde_json::json!({ "path": self.path, "offset": offset, "limit": limit })
            }
            FileOp::Write { content } => {
                serde_json::json!({ "path": self.path, "content": content })
            }
            FileOp::Edit { edits } => serde_json::json!({
                "path": self.path,
                "edits": edits
                    .iter()
                    .map(|e| serde_json::json!({ "old": e.old, "new": e.new }))
                    .collect::<Vec<_>>(),
            }),
        };
        SeedTool {
            name: self.verb().to_owned(),
            input,
            output: Some(self.output.clone()),
            is_error: self.is_error,
        }
        .note(from)
    }

    /// `read`, `write` or `edit`.
    pub fn verb(&self) -> &'static str {
        match self.op {
            FileOp::Read { .. } => "read",
            FileOp::Write { .. } => "write",
            FileOp::Edit { .. } => "edit",
        }
    }
}

/// A shell command run in the source and its output.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ShellCall {
    pub command: String,
    pub output: String,
    pub is_error: bool,
}

/// A tool call of the source with no equivalent in every target: carried as faithful text.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SeedTool {
    pub name: String,
    pub input: Value,
    pub output: Option<String>,
    pub is_error: bool,
}

/// How much of one tool's output a note keeps: a long output keeps its head and tail.
pub const MAX_NOTE_OUTPUT: usize = 16 * 1024;

impl SeedTool {
    /// The call as text the target's model reads as what happened.
    pub fn note(&self, from: &str) -> String {
        let who = match from {
            "" => String::new(),
            name => format!(" in {name}"),
        };
        let input = match &self.input {
            Value::Null => String::new(),
            Value::String(s) => s.clone(),
            other => serde_json::to_string(other).unwrap_or_default(),
        };
        let result = match &self.output {
            None => "no result was recorded".to_owned(),
            Some(out) => {
                let word = if self.is_error { "failed" } else { "returned" };
                format!("{word}:\n{}", bounded(out, MAX_NOTE_OUTPUT))
            }
        };
        format!(
            "[tool call{who}: {}] {input}\n[tool result] {result}",
            self.name
        )
    }
}

/// `text` cut to about `max` bytes at character boundaries, its head and tail kept.
pub fn bounded(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let half = max / 2;
    let mut head = half;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - half;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!(
        "{}\n[… {} bytes left out …]\n{}",
        &text[..head],
        tail - head,
        &text[tail..]
    )
}

/// A record timestamp as the harnesses write them (`2026-12-04T21:03:11.123Z`), `at_ms` being
/// milliseconds since the Unix epoch.
pub fn timestamp(at_ms: i128) -> String {
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    time::OffsetDateTime::from_unix_timestamp_nanos(at_ms * 1_000_000)
        .ok()
        .and_then(|t| t.format(format).ok())
        .unwrap_or_else(|| "1970-01-01T00:00:00.000Z".into())
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i128 {
    time::OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000
}

impl Seed {
    /// What the fork's header tells the user about what came and how, e.g. "Continued from
    /// Claude Code: 3 turns, every text as it was, 1 shell command as Codex's own tool call,
    /// 2 other tool calls as text. Reasoning and approvals do not carry over."
    pub fn note(&self, target: &str) -> String {
        let steps = self.turns.iter().flat_map(|t| &t.reply);
        let shell = steps
            .clone()
            .filter(|s| matches!(s, SeedStep::Shell(_)))
            .count();
        let files = steps
            .clone()
            .filter(|s| matches!(s, SeedStep::File(_)))
            .count();
        let as_text = steps
            .filter(|s| matches!(s, SeedStep::Text(t) if t.starts_with("[tool call")))
            .count();
        let plural = |n: usize, one: &str, many: &str| match n {
            1 => format!("1 {one}"),
            n => format!("{n} {many}"),
        };
        let mut parts = vec![
            plural(self.turns.len(), "turn", "turns"),
            "every text as it was".to_owned(),
        ];
        if shell > 0 {
            parts.push(format!(
                "{} as {target}'s own",
                plural(shell, "shell command", "shell commands")
            ));
        }
        if files > 0 {
            parts.push(format!(
                "{} as {target}'s own",
                plural(
                    files,
                    "file read, write or edit",
                    "file reads, writes and edits"
                )
            ));
        }
        if as_text > 0 {
            parts.push(format!(
                "{} as text",
                plural(as_text, "other tool call", "other tool calls")
            ));
        }
        format!(
            "Continued from {}: {}. Reasoning and approvals do not carry over.",
            self.from,
            parts.join(", ")
        )
    }

    /// The number of turns it holds.
    pub fn len(&self) -> usize {
        self.turns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.turns.is_empty()
    }
}

/// Everything a target harness needs to write a seeded session.
#[derive(Debug, Clone, Copy)]
pub struct SeedRequest<'a> {
    pub binary: &'a HarnessBinary,
    pub seed: &'a Seed,
    /// The folder the new session runs in (an existing directory).
    pub cwd: &'a Path,
    /// Extra environment for any process it runs (the rest is inherited).
    pub env: &'a [(String, String)],
}

impl SeedRequest<'_> {
    /// The binary is the target's own: `kind`'s, which writes `what` ("a Pi session").
    pub(crate) fn check_binary(&self, kind: HarnessKind, what: &str) -> HarnessResult<()> {
        if self.binary.kind != kind {
            return Err(HarnessError::InvalidInput(format!(
                "a {} binary cannot write {what}",
                self.binary.kind
            )));
        }
        Ok(())
    }

    /// The folder exists, for a target that starts its harness there to write the session
    /// (Claude Code writes the file itself and resolves the folder as its runtime does).
    pub(crate) fn check_cwd(&self) -> HarnessResult<()> {
        if !self.cwd.is_dir() {
            return Err(HarnessError::InvalidInput(format!(
                "the working directory {} does not exist",
                self.cwd.display()
            )));
        }
        Ok(())
    }

    /// What a target that wrote the whole session at `path` returns: the new session, of
    /// `kind`, in the request's folder, nothing pending.
    pub(crate) fn written(&self, kind: HarnessKind, session_id: String, path: PathBuf) -> Forked {
        Forked {
            session: NativeSession {
                kind,
                session_id,
                path: Some(path),
                cwd: self.cwd.to_owned(),
            },
            pending: None,
        }
    }
}

/// What a target's turn says where the source's had no prompt: every turn a target records
/// opens with one.
pub(crate) const NO_PROMPT: &str = "[no prompt]";

/// What a target's reply says where the source's ended without text (cut short, or only tool
/// calls): every turn a target records ends with one.
pub(crate) const NO_REPLY_TEXT: &str = "[no reply text]";

impl SeedTurn {
    /// The prompt as a target records it: [`NO_PROMPT`] for a blank one.
    pub(crate) fn prompt_text(&self) -> &str {
        match self.prompt.trim().is_empty() {
            true => NO_PROMPT,
            false => &self.prompt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_says_what_came_and_how() {
        let shell = SeedStep::Shell(ShellCall {
            command: "ls".into(),
            output: String::new(),
            is_error: false,
        });
        let seed = Seed {
            from: "Claude Code".into(),
            turns: vec![
                SeedTurn {
                    prompt: "a".into(),
                    reply: vec![
                        shell.clone(),
                        SeedStep::Text("[tool call in Claude Code: Edit] {}".into()),
                    ],
                },
                SeedTurn {
                    prompt: "b".into(),
                    reply: vec![shell, SeedStep::Text("done".into())],
                },
            ],
        };
        assert_eq!(
            seed.note("Codex"),
            "Continued from Claude Code: 2 turns, every text as it was, 2 shell commands as \
             Codex's own, 1 other tool call as text. Reasoning and approvals do not carry over."
        );
        let plain = Seed {
            from: "Pi".into(),
            turns: vec![SeedTurn {
                prompt: "a".into(),
                reply: vec![],
            }],
        };
        assert_eq!(
            plain.note("Codex"),
            "Continued from Pi: 1 turn, every text as it was. Reasoning and approvals do not carry over."
        );
    }

    #[test]
    fn the_note_counts_file_calls_carried_as_the_targets_own() {
        let read = SeedStep::File(FileCall {
            path: "a".into(),
            op: FileOp::Read {
                offset: None,
                limit: None,
            },
            output: String::new(),
            is_error: false,
        });
        let seed = |reply: Vec<SeedStep>| Seed {
            from: "Codex".into(),
            turns: vec![SeedTurn {
                prompt: "a".into(),
                reply,
            }],
        };
        assert_eq!(
            seed(vec![read.clone()]).note("Pi"),
            "Continued from Codex: 1 turn, every text as it was, 1 file read, write or edit as \
             Pi's own. Reasoning and approvals do not carry over."
        );
        assert!(seed(vec![read.clone(), read])
            .note("Claude Code")
            .contains("2 file reads, writes and edits as Claude Code's own"));
    }

    #[test]
    fn timestamps_are_iso_with_milliseconds() {
        assert_eq!(timestamp(1_795_982_200_487), "2026-11-29T19:56:40.487Z");
        assert_eq!(timestamp(0), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn bounded_keeps_short_text_and_cuts_long_text_at_char_boundaries() {
        assert_eq!(bounded("short", 10), "short");
        let long = "é".repeat(50); // 100 bytes
        let cut = bounded(&long, 21);
        assert!(cut.starts_with(&"é".repeat(5)));
        assert!(cut.ends_with(&"é".repeat(5)));
        assert!(cut.contains("bytes left out"));
        assert!(cut.len() < long.len());
    }

    #[test]
    fn a_note_names_the_tool_its_input_and_its_result() {
        let tool = SeedTool {
            name: "apply_patch".into(),
            input: serde_json::json!({"patch": "x"}),
            output: Some("done".into()),
            is_error: false,
        };
        assert_eq!(
            tool.note("Codex"),
            "[tool call in Codex: apply_patch] {\"patch\":\"x\"}\n[tool result] returned:\ndone"
        );
        let failed = SeedTool {
            output: Some("no".into()),
            is_error: true,
            ..tool.clone()
        };
        assert!(failed.note("").ends_with("failed:\nno"));
        let dangling = SeedTool {
            output: None,
            ..tool
        };
        assert!(dangling.note("").ends_with("no result was recorded"));
    }
}
