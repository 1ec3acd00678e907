//! A branch as a document (docs/architecture.md "Export a branch"): the path from the root of
//! a thread's lineage to one of its turns — the turns it inherited and its own, read from its
//! native session as `show` reads them — as Markdown (prompts and replies in order, tool calls
//! folded in `<details>`) or JSON. Nothing is written anywhere; the shells print or copy it.

use serde::{Deserialize, Serialize};

use crate::base::error::{HostError, HostResult};
use crate::base::fork_point::TurnRef;
use crate::base::view::{MessageView, ThreadView, TurnView};
use crate::host::Host;

/// What an export is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ExportFormat {
    Markdown,
    Json,
}

/// The JSON form: the thread, where its branch stops, and its turns up to there.
#[derive(Debug, Clone, Serialize)]
struct BranchExport<'a> {
    thread: &'a ThreadView,
    /// The source when the thread is a fork (its title as shown, and its id).
    forked_from: Option<Source>,
    /// The last turn exported (1-based), of `total`.
    to: i64,
    total: i64,
    turns: &'a [TurnView],
}

#[derive(Debug, Clone, Serialize)]
struct Source {
    thread_id: String,
    title: String,
}

impl Host {
    /// A thread's branch from the root to turn `to` (a number or host turn id; all its turns
    /// when `None`) as Markdown or JSON. A turn the thread does not have is `turn_not_found`.
    pub async fn export(
        &self,
        thread_id: &str,
        to: Option<TurnRef>,
        format: ExportFormat,
    ) -> HostResult<String> {
        let detail = self.show(thread_id).await?;
        let total = detail.turns.len();
        let upto = match &to {
            None => total,
            Some(turn) => turn.resolve(&detail.turns, thread_id)? + 1,
        };
        let turns = &detail.turns[..upto];
        let forked_from = match &detail.thread.fork {
            Some(fork) => match self.store().thread(&fork.source_thread).await {
                Ok(row) => Some(Source {
                    thread_id: row.id.clone(),
                    title: self.view_of(&row).map(|v| v.title).unwrap_or(row.title),
                }),
                Err(_) => None,
            },
            None => None,
        };
        Ok(match format {
            ExportFormat::Json => serde_json::to_string_pretty(&BranchExport {
                thread: &detail.thread,
                forked_from,
                to: upto as i64,
                total: total as i64,
                turns,
            })
            .map_err(|e| HostError::Internal(e.to_string()))?,
            ExportFormat::Markdown => markdown(
                &detail.thread,
                forked_from.as_ref().map(|s| s.title.as_str()),
                turns,
                total,
            ),
        })
    }
}

/// The branch as Markdown.
fn markdown(thread: &ThreadView, source: Option<&str>, turns: &[TurnView], total: usize) -> String {
    let product = thread.harness.harness().product_name();
    let mut out = format!("# {}\n\n", one_line(&thread.title));
    let mut about = vec![product.to_owned()];
    if let (Some(fork), Some(source)) = (&thread.fork, source) {
        let how = match fork.source_harness {
            Some(h) if h != thread.harness => "continued from",
            _ => "forked from",
        };
        about.push(format!("{how} “{}”", one_line(source)));
    }
    about.push(match turns.len() {
        n if n == total => format!("{n} turns"),
        n => format!("turns 1–{n} of {total}"),
    });
    out.push_str(&format!("_{}_\n", about.join(" · ")));
    for turn in turns {
        out.push_str(&format!("\n## Turn {}\n", turn.number));
        let mut speaker: Option<&str> = None;
        for message in &turn.messages {
            if let Some(tool) = &message.tool {
                out.push_str(&tool_block(message, tool));
                continue;
            }
            let who = match message.role.as_str() {
                "user" => "You",
                _ => product,
            };
            if speaker != Some(who) {
                out.push_str(&format!("\n### {who}\n"));
                speaker = Some(who);
            }
            if !message.text.trim().is_empty() {
                out.push_str(&format!("\n{}\n", message.text.trim_end()));
            }
            if let Some(error) = &message.error {
                out.push_str(&format!("\n> **Error:** {}\n", one_line(error)));
            }
        }
    }
    out
}

/// A tool call folded: its name in the summary, its input and output as code.
fn tool_block(message: &MessageView, tool: &crate::base::view::ToolView) -> String {
    let failed = if tool.is_error { " (failed)" } else { "" };
    let mut out = format!(
        "\n<details>\n<summary>Tool: {}{failed}</summary>\n\n",
        escape_html(&one_line(&tool.name))
    );
    let input = match &tool.input {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s.clone()),
        other => serde_json::to_string_pretty(other).ok(),
    };
    if let Some(input) = input {
        out.push_str(&format!("Input:\n\n{}\n", fenced(&input, "json")));
    }
    if let Some(output) = &tool.output {
        out.push_str(&format!("Output:\n\n{}\n", fenced(output, "text")));
    }
    if let Some(error) = &message.error {
        out.push_str(&format!("Error: {}\n\n", one_line(error)));
    }
    out.push_str("</details>\n");
    out
}

/// `text` in a code fence longer than any backtick run inside it.
fn fenced(text: &str, lang: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat((longest + 1).max(3));
    format!("{fence}{lang}\n{}\n{fence}\n", text.trim_end_matches('\n'))
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_outlasts_the_backticks_inside() {
        assert_eq!(fenced("a", "text"), "```text\na\n```\n");
        assert_eq!(
            fenced("x ````` y\n", "json"),
            "``````json\nx ````` y\n``````\n"
        );
    }

    #[test]
    fn a_tool_call_is_folded_with_its_input_and_output() {
        let message = MessageView {
            role: "tool".into(),
            text: String::new(),
            tool: Some(crate::base::view::ToolView {
                name: "bash <x>".into(),
                input: serde_json::json!({"command": "ls"}),
                output: Some("a.txt".into()),
                is_error: false,
            }),
            error: None,
        };
        let block = tool_block(&message, message.tool.as_ref().unwrap());
        assert!(
            block.contains("<summary>Tool: bash &lt;x&gt;</summary>"),
            "{block}"
        );
        assert!(block.contains("\"command\": \"ls\""), "{block}");
        assert!(block.contains("```text\na.txt\n```"), "{block}");
        assert!(block.trim_end().ends_with("</details>"), "{block}");
    }
}
