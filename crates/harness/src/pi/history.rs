//! Reading a Pi session file (JSONL; "Pi session files (format v3)" in
//! `docs/harness-behaviour.md`).
//!
//! The first line is the header (`{"type":"session","version":3,"id",…,"parentSession"?}`);
//! every later line is an entry with an `id` (8 hex characters, unique within the file only)
//! and a `parentId`, so the file is a tree. Pi resumes at the **last entry of the file**: the
//! reader takes it as the leaf and walks `parentId` to the root. Entries without an `id`
//! (older formats, which Pi migrates by rewriting the file) are skipped.
//!
//! - **turns**: a `message` entry with role `user` opens a turn; the entries before the first
//!   one (model and thinking-level changes, the system prompt) belong to the first turn.
//! - **native turn ref**: that user entry's `id` (the entry Pi's RPC `fork` takes).
//! - **native checkpoint ref**: the `id` of the turn's last entry on the branch.
//! - **complete**: a later turn exists, or the turn's last message is an assistant message
//!   whose `stopReason` is not `toolUse` (`stop`, `length`, `error`, `aborted`).
//!
//! Messages: assistant text and `toolCall` blocks (joined with the `toolResult` message of the
//! same `toolCallId`), `bashExecution` as a tool message, summaries (`branch_summary`,
//! `compaction`, `branchSummary`/`compactionSummary` messages) and custom messages as role
//! `Other`; an assistant `errorMessage` becomes the message's `error`. Thinking is left out.
//! Usage: each assistant message's `usage` (with Pi's price where it is a real one) and
//! `model`, one model call each; an all-zero `usage` (a call aborted before its usage came)
//! is no report.
//! Entry ids are copied by forks, so key them by (file, id).

use std::path::Path;

use serde_json::Value;

use super::usage;
use crate::history::{Message, Role, ToolCall};
use crate::jsonl::Span;
use crate::messages::{content_text, str_of, tool_call_block, TurnMessages};
use crate::scan::{Cursor, RawStr};
use crate::tree::{Line, Node, Scanned, TreeFormat, TreeReader};
use crate::HarnessKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    User,
    Reply,
    ReplyToolUse,
    ToolResult,
    /// Other message roles (bash executions, custom, summaries).
    OtherMessage,
    /// Non-message entries (model changes, labels, summaries, session info, …).
    Entry,
}

impl Kind {
    fn ends_turn(self) -> Option<bool> {
        match self {
            Kind::Reply => Some(true),
            Kind::User | Kind::ReplyToolUse | Kind::ToolResult => Some(false),
            Kind::OtherMessage | Kind::Entry => None,
        }
    }
}

/// A Pi session file, indexed and followed as it grows.
pub type PiReader = TreeReader<Session>;

/// What is Pi's own in reading a session file: its entry kinds and the header.
#[derive(Debug, Default)]
pub struct Session {
    header: Option<Header>,
}

/// The header line: `{"type":"session","version":3,"id",…,"parentSession"?}`.
#[derive(Debug, Default)]
pub struct Header {
    id: Option<Box<str>>,
    parent_session: Option<Box<str>>,
}

impl TreeFormat for Session {
    type Kind = Kind;
    type Note = Header;
    const HARNESS: HarnessKind = HarnessKind::Pi;
    // Pi resumes at the last entry of the file.
    const LEAF_IS_LAST: bool = true;

    fn scan_line(line: &[u8], span: Span) -> Option<Line<Kind, Header>> {
        scan_line(line, span)
    }

    fn note(&mut self, header: Header) {
        self.header.get_or_insert(header);
    }

    fn opens_turn(kind: Kind) -> bool {
        kind == Kind::User
    }

    /// Any entry: a fork keeps the turn up to its last entry on the branch.
    fn is_checkpoint(_: Kind) -> bool {
        true
    }

    fn ends_turn(kind: Kind) -> Option<bool> {
        kind.ends_turn()
    }

    fn add_messages(msgs: &mut TurnMessages, node: &Node<Kind>, line: &Value) {
        add_entry(msgs, node, line)
    }

    /// The header's id.
    fn session_id<'a>(&'a self, _: &'a Path) -> Option<&'a str> {
        self.header.as_ref()?.id.as_deref()
    }

    fn forked_from(&self) -> Option<&str> {
        self.parent_session()
    }
}

impl Session {
    fn parent_session(&self) -> Option<&str> {
        self.header.as_ref()?.parent_session.as_deref()
    }
}

impl PiReader {
    /// The header's `parentSession`: the path of the session this one was forked or cloned
    /// from.
    pub fn parent_session(&self) -> Option<&str> {
        self.format().parent_session()
    }
}

fn scan_line(line: &[u8], span: Span) -> Option<Line<Kind, Header>> {
    let mut c = Cursor::new(line);
    if !c.begin_object() {
        return None;
    }
    let mut ty: Option<RawStr> = None;
    let (mut id, mut parent, mut parent_session) = (None, None, None);
    let (mut role, mut stop): (Option<RawStr>, Option<RawStr>) = (None, None);
    while let Some(key) = c.next_key() {
        match key.0 {
            b"type" => ty = c.opt_string(),
            b"id" => id = c.opt_string(),
            b"parentId" => parent = c.opt_string(),
            b"parentSession" => parent_session = c.opt_string(),
            b"message" if c.begin_object() => {
                while let Some(key) = c.next_key() {
                    match key.0 {
                        b"role" => role = c.opt_string(),
                        b"stopReason" => stop = c.opt_string(),
                        _ => {
                            c.skip();
                        }
                    }
                }
            }
            _ => {
                c.skip();
            }
        }
    }
    if c.is_bad() {
        return None;
    }
    if ty.is_some_and(|t| t.is("session")) {
        return Some(Line::Note(Header {
            id: id.and_then(|i| i.boxed()),
            parent_session: parent_session.and_then(|p| p.boxed()),
        }));
    }
    let kind = match (ty, role) {
        (Some(t), Some(r)) if t.is("message") => {
            if r.is("user") {
                Kind::User
            } else if r.is("assistant") {
                if stop.is_some_and(|s| s.is("toolUse")) {
                    Kind::ReplyToolUse
                } else {
                    Kind::Reply
                }
            } else if r.is("toolResult") {
                Kind::ToolResult
            } else if r.is("system") {
                // Pi 1.6 persists the system prompt; it is no part of the conversation.
                Kind::Entry
            } else {
                Kind::OtherMessage
            }
        }
        _ => Kind::Entry,
    };
    Some(Line::Node(Scanned {
        span,
        id: id?.boxed()?,
        parent: parent.and_then(|p| p.boxed()),
        kind,
        side: false,
    }))
}

fn add_entry(msgs: &mut TurnMessages, entry: &Node<Kind>, v: &Value) {
    let id = Some(&*entry.id);
    let message = v.get("message").unwrap_or(&Value::Null);
    let content = message.get("content").unwrap_or(&Value::Null);
    match entry.kind {
        Kind::User => msgs.text(Role::User, content_text(content), id),
        Kind::Reply | Kind::ReplyToolUse => {
            // Each assistant message is one model call, written once. An aborted or failed
            // call Pi recorded before any usage came says 0 in and 0 out: not a figure.
            let usage =
                usage::message_usage(message).filter(|u| u.input_tokens > 0 || u.output_tokens > 0);
            if let Some(usage) = usage {
                msgs.call_usage(None, usage, str_of(message, "model"));
            }
            let before = msgs.messages.len();
            if let Value::Array(blocks) = content {
                for block in blocks {
                    match str_of(block, "type") {
                        Some("text") => msgs.reply_text(
                            Some(&entry.id),
                            str_of(block, "text").unwrap_or(""),
                            id,
                        ),
                        Some("toolCall") => msgs.tool_call(tool_call_block(block, "arguments"), id),
                        _ => msgs.continue_reply(Some(&entry.id)),
                    }
                }
            } else if !content.is_null() {
                msgs.reply_text(Some(&entry.id), &content_text(content), id);
            }
            if let Some(error) = str_of(message, "errorMessage").filter(|e| !e.is_empty()) {
                let reply = msgs.messages[before..]
                    .iter_mut()
                    .find(|m| m.role == Role::Assistant);
                match reply {
                    Some(m) => m.error = Some(error.to_owned()),
                    None => msgs.push(Message::error(Role::Assistant, error).with_ref(id)),
                }
            }
        }
        Kind::ToolResult => msgs.tool_result(
            str_of(message, "toolCallId"),
            content_text(content),
            message.get("isError").and_then(Value::as_bool) == Some(true),
            id,
        ),
        Kind::OtherMessage => match str_of(message, "role") {
            Some("bashExecution") => {
                let exit = message.get("exitCode").and_then(Value::as_i64);
                msgs.tool_call(
                    ToolCall {
                        id: None,
                        name: "bash".to_owned(),
                        input: serde_json::json!({ "command": message.get("command") }),
                        output: Some(str_of(message, "output").unwrap_or_default().to_owned()),
                        is_error: exit.is_some_and(|c| c != 0),
                    },
                    id,
                )
            }
            _ => {
                let text = str_of(message, "summary")
                    .map(str::to_owned)
                    .unwrap_or_else(|| content_text(content));
                msgs.text(Role::Other, text, id);
            }
        },
        Kind::Entry => match str_of(v, "type") {
            Some("branch_summary" | "compaction") => {
                let summary = str_of(v, "summary").unwrap_or_default().to_owned();
                msgs.text(Role::Other, summary, id);
            }
            Some("custom_message") => {
                let text = content_text(v.get("content").unwrap_or(&Value::Null));
                msgs.text(Role::Other, text, id);
            }
            _ => {}
        },
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
