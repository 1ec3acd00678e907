//! Normalizing a request's conversation into a flat list of `{role, text}` entries, the same way
//! for the three wire protocols, and deriving the turn number from it.
//!
//! # Rules
//!
//! * **system**: top-level `system` (Anthropic) / `instructions` (Responses), messages with role
//!   `system` or `developer`, `<system-reminder>…</system-reminder>` segments cut out of any user
//!   text, and user text pieces that are *entirely* one harness-injected tagged block (e.g.
//!   Codex's `<environment_context>…</environment_context>`, `<user_instructions>…`, or
//!   `# AGENTS.md instructions …`).
//! * **user**: what is left of a user message's text after the above, trimmed; empty pieces are
//!   dropped. Consecutive text pieces of one message are joined with `"\n"` into one entry.
//! * **assistant**: assistant text, and each tool call rendered as `tool_call <name> <args>`
//!   (its own entry; `<args>` is the arguments as compact JSON, or the raw input of a free-form
//!   tool). Reasoning/thinking blocks are dropped.
//! * **tool**: each tool result's output as plain text (text parts joined with `"\n"`).
//!
//! The **turn number** of a request is the number of `user` entries in its history, i.e. the
//! number of real user prompts, not counting tool results or harness-injected context. The
//! reply of turn N is `reply (turn N) to: <text of the last user entry>`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who said a history entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        })
    }
}

/// One normalized history entry.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Msg {
    pub role: Role,
    pub text: String,
}

impl Msg {
    pub fn new(role: Role, text: impl Into<String>) -> Self {
        Msg {
            role,
            text: text.into(),
        }
    }
    pub fn user(text: impl Into<String>) -> Self {
        Msg::new(Role::User, text)
    }
    pub fn assistant(text: impl Into<String>) -> Self {
        Msg::new(Role::Assistant, text)
    }
    pub fn tool(text: impl Into<String>) -> Self {
        Msg::new(Role::Tool, text)
    }
    pub fn system(text: impl Into<String>) -> Self {
        Msg::new(Role::System, text)
    }
}

/// Builds a history, merging consecutive pieces of one message that have the same role.
#[derive(Default)]
pub(crate) struct HistoryBuilder {
    pub out: Vec<Msg>,
    /// Whether the next piece may merge into the last entry (same message, same role, text).
    open: bool,
}

impl HistoryBuilder {
    /// Ends the current message: the next piece starts a new entry.
    pub fn end_message(&mut self) {
        self.open = false;
    }

    /// Adds a text piece that may merge with the previous piece of the same message.
    pub fn text(&mut self, role: Role, text: &str) {
        let text = text.trim();
        if text.is_empty() {
            return;
        }
        if self.open {
            if let Some(last) = self.out.last_mut() {
                if last.role == role {
                    last.text.push('\n');
                    last.text.push_str(text);
                    return;
                }
            }
        }
        self.out.push(Msg::new(role, text));
        self.open = true;
    }

    /// Adds an entry that never merges (tool calls and tool results).
    pub fn standalone(&mut self, role: Role, text: String) {
        self.out.push(Msg::new(role, text));
        self.open = false;
    }

    /// Adds user-side text: `<system-reminder>` segments and harness-injected tagged blocks
    /// become system entries, the rest is the user's.
    pub fn user_text(&mut self, text: &str) {
        let (reminders, rest) = split_system_reminders(text);
        for r in reminders {
            self.text(Role::System, &r);
        }
        if is_injected_context(&rest) {
            self.text(Role::System, &rest);
        } else {
            self.text(Role::User, &rest);
        }
    }

    pub fn tool_call(&mut self, name: &str, args: &str) {
        self.standalone(Role::Assistant, format!("tool_call {name} {args}"));
    }

    pub fn tool_result(&mut self, output: &str) {
        let (_, rest) = split_system_reminders(output);
        self.standalone(Role::Tool, rest.trim().to_string());
    }
}

/// Cuts every `<system-reminder>…</system-reminder>` segment out of `text`.
/// Returns the segments' inner texts and what remains.
pub fn split_system_reminders(text: &str) -> (Vec<String>, String) {
    const OPEN: &str = "<system-reminder>";
    const CLOSE: &str = "</system-reminder>";
    let mut reminders = Vec::new();
    let mut rest = String::new();
    let mut s = text;
    while let Some(start) = s.find(OPEN) {
        rest.push_str(&s[..start]);
        let after = &s[start + OPEN.len()..];
        match after.find(CLOSE) {
            Some(end) => {
                reminders.push(after[..end].trim().to_string());
                s = &after[end + CLOSE.len()..];
            }
            None => {
                reminders.push(after.trim().to_string());
                s = "";
            }
        }
    }
    rest.push_str(s);
    (reminders, rest.trim().to_string())
}

/// Whether a user text piece is context the harness injected rather than something the user
/// typed: the whole piece is one `<tag …>…</tag>` block, or an AGENTS.md instructions block.
pub fn is_injected_context(text: &str) -> bool {
    let t = text.trim();
    if t.starts_with("# AGENTS.md instructions") {
        return true;
    }
    let Some(inner) = t.strip_prefix('<') else {
        return false;
    };
    let name: String = inner
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return false;
    }
    let after = &inner[name.len()..];
    (after.starts_with('>') || after.starts_with(' ')) && t.ends_with(&format!("</{name}>"))
}

/// Plain text of a content value: a string, or an array of parts with `text` (or nested
/// `content`), or an object with `text`/`content`/`output`.
pub fn content_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .map(content_text)
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        Value::Object(o) => {
            for key in ["text", "content", "output"] {
                if let Some(x) = o.get(key) {
                    return content_text(x);
                }
            }
            String::new()
        }
        other => other.to_string(),
    }
}

/// Arguments as text: strings stay as they are, anything else is compact JSON.
pub fn args_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "{}".to_string(),
        other => other.to_string(),
    }
}

/// The turn number: how many real user prompts the history holds.
pub fn turn_number(history: &[Msg]) -> usize {
    history.iter().filter(|m| m.role == Role::User).count()
}

/// Index of the last user entry.
pub fn last_user_index(history: &[Msg]) -> Option<usize> {
    history.iter().rposition(|m| m.role == Role::User)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reminders_are_cut_out() {
        let (r, rest) =
            split_system_reminders("<system-reminder>\nctx\n</system-reminder>\nhello there");
        assert_eq!(r, vec!["ctx"]);
        assert_eq!(rest, "hello there");
    }

    #[test]
    fn injected_context() {
        assert!(is_injected_context(
            "<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"
        ));
        assert!(!is_injected_context("<b>bold</b> text"));
        assert!(!is_injected_context("hello <x></x>"));
        assert!(!is_injected_context("<3 you"));
    }
}
