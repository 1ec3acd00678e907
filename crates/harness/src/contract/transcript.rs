//! The turn loop Claude Code's and Pi's seed writers share: a carried turn written as a
//! transcript of messages. The user's prompt opens it; the reply's text gathers into one
//! assistant message until a tool call closes it (the call is that message's last block, as a
//! model's own call is), and the call's result follows; a reply that ends without text ends
//! with [`NO_REPLY_TEXT`], since a turn the harness resumes needs a reply. What differs, the
//! records themselves, is each writer's [`Transcript`]. Codex takes a turn as Responses API
//! items, with no messages to close, and writes its own (`codex/seed.rs`).

use serde_json::{json, Value};

use super::seed::{FileCall, Seed, SeedStep, SeedTurn, ShellCall, NO_REPLY_TEXT};

/// How a target writes each part of a turn.
pub(crate) trait Transcript {
    /// How its tool call ids start (`toolu_`, `call_`).
    const CALL_ID_PREFIX: &'static str;
    /// The stop reason of an assistant message that a tool call closes.
    const TOOL_USE: &'static str;
    /// The stop reason of a reply's last message.
    const END_TURN: &'static str;

    /// The user's message.
    fn user(&mut self, prompt: &str);

    /// One assistant message of `blocks`, stopped for `stop_reason`.
    fn assistant(&mut self, blocks: Vec<Value>, stop_reason: &str);

    /// The block that calls its own shell tool.
    fn shell_call(&self, id: &str, call: &ShellCall) -> Value;

    /// The result of the shell call `id`.
    fn shell_result(&mut self, id: &str, call: &ShellCall);

    /// The block that calls its own file tool; `None` where it has no tool that does what the
    /// call did, which then comes as text ([`FileCall::note`]).
    fn file_call(&self, id: &str, call: &FileCall) -> Option<Value>;

    /// The result of the file call `id`.
    fn file_result(&mut self, id: &str, call: &FileCall);
}

/// Writes every turn of `seed`, in order.
pub(crate) fn write_turns(transcript: &mut impl Transcript, seed: &Seed) {
    for turn in &seed.turns {
        write_turn(transcript, turn, &seed.from);
    }
}

fn write_turn<T: Transcript>(transcript: &mut T, turn: &SeedTurn, from: &str) {
    transcript.user(turn.prompt_text());
    let call_id = || format!("{}{}", T::CALL_ID_PREFIX, uuid::Uuid::new_v4().simple());
    let mut blocks: Vec<Value> = Vec::new();
    for step in &turn.reply {
        match step {
            SeedStep::Text(text) => blocks.push(text_block(text)),
            SeedStep::Shell(call) => {
                let id = call_id();
                blocks.push(transcript.shell_call(&id, call));
                transcript.assistant(std::mem::take(&mut blocks), T::TOOL_USE);
                transcript.shell_result(&id, call);
            }
            SeedStep::File(call) => {
                let id = call_id();
                match transcript.file_call(&id, call) {
                    Some(block) => {
                        blocks.push(block);
                        transcript.assistant(std::mem::take(&mut blocks), T::TOOL_USE);
                        transcript.file_result(&id, call);
                    }
                    None => blocks.push(text_block(&call.note(from))),
                }
            }
        }
    }
    if blocks.is_empty() {
        blocks.push(text_block(NO_REPLY_TEXT));
    }
    transcript.assistant(blocks, T::END_TURN);
}

/// A text block, the same in both formats.
fn text_block(text: &str) -> Value {
    json!({ "type": "text", "text": text })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::FileOp;

    /// Records each call as a line of text.
    #[derive(Default)]
    struct Lines(Vec<String>);

    impl Transcript for Lines {
        const CALL_ID_PREFIX: &'static str = "id_";
        const TOOL_USE: &'static str = "tool";
        const END_TURN: &'static str = "end";

        fn user(&mut self, prompt: &str) {
            self.0.push(format!("user {prompt}"));
        }
        fn assistant(&mut self, blocks: Vec<Value>, stop_reason: &str) {
            let texts: Vec<&str> = blocks.iter().filter_map(|b| b["text"].as_str()).collect();
            let calls = blocks.iter().filter(|b| b["call"].is_string()).count();
            let texts = texts.join("|");
            self.0
                .push(format!("assistant {texts} calls={calls} {stop_reason}"));
        }
        fn shell_call(&self, id: &str, call: &ShellCall) -> Value {
            assert!(id.starts_with("id_"), "{id}");
            json!({ "call": call.command })
        }
        fn shell_result(&mut self, _id: &str, call: &ShellCall) {
            self.0.push(format!("result {}", call.output));
        }
        fn file_call(&self, _id: &str, call: &FileCall) -> Option<Value> {
            matches!(call.op, FileOp::Read { .. }).then(|| json!({ "call": call.path }))
        }
        fn file_result(&mut self, _id: &str, call: &FileCall) {
            self.0.push(format!("result {}", call.output));
        }
    }

    #[test]
    fn a_tool_call_closes_the_message_and_a_reply_without_text_still_ends() {
        let shell = SeedStep::Shell(ShellCall {
            command: "ls".into(),
            output: "a".into(),
            is_error: false,
        });
        let file = |op: FileOp| {
            SeedStep::File(FileCall {
                path: "f".into(),
                op,
                output: "read".into(),
                is_error: false,
            })
        };
        let written = FileOp::Write {
            content: "x".into(),
        };
        let seed = Seed {
            from: "Codex".into(),
            turns: vec![
                SeedTurn {
                    prompt: "go".into(),
                    reply: vec![
                        SeedStep::Text("looking".into()),
                        shell,
                        file(FileOp::Read {
                            offset: None,
                            limit: None,
                        }),
                        file(written),
                        SeedStep::Text("done".into()),
                    ],
                },
                SeedTurn {
                    prompt: " ".into(),
                    reply: vec![],
                },
            ],
        };
        let mut lines = Lines::default();
        write_turns(&mut lines, &seed);
        let written_note = lines.0[5].clone();
        assert_eq!(
            lines.0,
            [
                "user go",
                "assistant looking calls=1 tool",
                "result a",
                "assistant  calls=1 tool",
                "result read",
                &written_note,
                "user [no prompt]",
                "assistant [no reply text] calls=0 end",
            ]
        );
        // A file call the target has no tool for comes as text, in the message that follows.
        assert!(
            written_note.starts_with("assistant [tool call in Codex: write]")
                && written_note.ends_with("|done calls=0 end"),
            "{written_note}"
        );
    }
}
