//! Reading a Claude Code transcript (`<session id>.jsonl`; "Claude Code transcripts: records
//! and chains" in `docs/harness-behaviour.md`).
//!
//! The file holds a tree: every chain record (`user`, `assistant`, `attachment`, `system`) has
//! a `uuid` and points at its predecessor through `parentUuid`; records without a uuid
//! (`queue-operation`, `last-prompt`, `mode`, …) are metadata. The conversation is the chain
//! from the root to the leaf:
//!
//! - **leaf**: whichever comes later in the file, the last `last-prompt` line (its `leafUuid`,
//!   if that record is in the file) or the last non-sidechain chain record (a `user` or
//!   `assistant` record, or what the TUI chains after them, like `system`/`turn_duration`).
//!   The second keeps a turn that is still being written visible; the first follows a rewind
//!   that appended no record.
//! - **walk**: `parentUuid` up to the root; a record whose `parentUuid` is null but that names
//!   a `logicalParentUuid` (a compaction boundary) continues through it, so turns from before
//!   a compaction stay visible. A parent that is not in the file ends the chain.
//! - **turns**: a `user` record whose content is a string or holds text/image blocks opens a
//!   turn. Records that carry `tool_result` blocks continue the turn (even with text beside
//!   them), and so do meta records (`isMeta`, `isCompactSummary`) and interruption markers
//!   ("[Request interrupted by user…]"). Records before the first prompt belong to the first
//!   turn.
//!
//! Anchors:
//! - **native turn ref**: the `uuid` of the user record that opens the turn.
//! - **native checkpoint ref**: the `uuid` of the turn's last `assistant` record, the record
//!   `--resume-session-at` cuts after (`None` while no reply exists).
//! - **complete**: a later turn exists, or the turn's last message-like record ends it: an
//!   assistant record whose `stop_reason` is not `tool_use` (with no `stop_reason`, one without
//!   a `tool_use` block), a synthetic API error, an interruption, or a `turn_duration` record.
//!
//! Messages: assistant records with the same `message.id` (one record per content block) merge
//! into one message; each `tool_use` block becomes a tool message that the matching
//! `tool_result` completes; thinking blocks are left out; a synthetic API error record
//! (`isApiErrorMessage`) becomes an assistant message with `error` set.
//!
//! Usage: each assistant record's `message.usage`, one model call per `message.id` however
//! many records repeat it, the last record's figure kept (earlier ones may hold the stream's
//! start); a synthetic record is no model call. No record carries a price.
//!
//! Record uuids are shared by a session and all its forks: key them by (session id, uuid).

use std::path::Path;

use serde_json::Value;

use super::usage;
use crate::history::{Message, Role};
use crate::jsonl::Span;
use crate::messages::{content_text, str_of, tool_call_block, TurnMessages};
use crate::scan::{Cursor, RawStr};
use crate::tree::{Line, Node, Nodes, Scanned, TreeFormat, TreeReader};
use crate::HarnessKind;

const INTERRUPTED: &str = "[Request interrupted by user";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A user prompt: opens a turn.
    Prompt,
    /// A user record carrying tool results.
    ToolResult,
    /// A user record that is not a prompt: `isMeta`, a compaction summary, an empty content.
    MetaUser,
    Interrupt,
    /// An assistant record that ends its reply.
    Reply,
    /// An assistant record after which a tool result is due.
    ReplyToolUse,
    ApiError,
    /// `system` / `turn_duration`: the TUI's end-of-turn marker.
    TurnEnd,
    /// Attachments, other system records, unknown types: on the chain, not messages.
    Aside,
}

impl Kind {
    fn is_assistant(self) -> bool {
        matches!(self, Kind::Reply | Kind::ReplyToolUse | Kind::ApiError)
    }

    /// Whether the turn is over if this is its last telling record (`None`: not telling).
    fn ends_turn(self) -> Option<bool> {
        match self {
            Kind::Reply | Kind::ApiError | Kind::Interrupt | Kind::TurnEnd => Some(true),
            Kind::Prompt | Kind::ToolResult | Kind::ReplyToolUse => Some(false),
            Kind::MetaUser | Kind::Aside => None,
        }
    }
}

/// A Claude Code transcript, indexed and followed as it grows.
pub type ClaudeReader = TreeReader<Transcript>;

/// What is Claude's own in reading a transcript: its record kinds and the `last-prompt` line.
#[derive(Debug, Default)]
pub struct Transcript {
    /// The last `last-prompt` line: its `leafUuid` and where the line starts.
    last_prompt: Option<(Box<str>, u64)>,
}

/// A `last-prompt` line: the leaf a rewind left, and where the line starts.
pub struct LastPrompt {
    leaf: Box<str>,
    at: u64,
}

impl TreeFormat for Transcript {
    type Kind = Kind;
    type Note = LastPrompt;
    const HARNESS: HarnessKind = HarnessKind::Claude;

    fn scan_line(line: &[u8], span: Span) -> Option<Line<Kind, LastPrompt>> {
        scan_line(line, span)
    }

    fn note(&mut self, note: LastPrompt) {
        self.last_prompt = Some((note.leaf, note.at));
    }

    /// The later of the last `last-prompt` (if its record is in the file) and the last record.
    fn leaf(&self, nodes: &Nodes<Kind>, last: Option<u32>) -> Option<u32> {
        let last_at = last.map(|n| nodes.get(n).span.start);
        let prompted = self.last_prompt.as_ref().and_then(|(uuid, at)| {
            let later = last_at.is_none_or(|r| *at > r);
            later.then(|| nodes.find(uuid)).flatten()
        });
        prompted.or(last)
    }

    fn opens_turn(kind: Kind) -> bool {
        kind == Kind::Prompt
    }

    fn is_checkpoint(kind: Kind) -> bool {
        kind.is_assistant()
    }

    fn ends_turn(kind: Kind) -> Option<bool> {
        kind.ends_turn()
    }

    fn add_messages(msgs: &mut TurnMessages, node: &Node<Kind>, line: &Value) {
        add_record(msgs, node, line)
    }

    /// The file's name, which is what `--resume` takes.
    fn session_id<'a>(&'a self, path: &'a Path) -> Option<&'a str> {
        path.file_stem().and_then(|s| s.to_str())
    }
}

/// The index pass over one line: type, ids and the shape of the content, nothing else.
fn scan_line(line: &[u8], span: Span) -> Option<Line<Kind, LastPrompt>> {
    let mut c = Cursor::new(line);
    if !c.begin_object() {
        return None;
    }
    let mut ty: Option<RawStr> = None;
    let mut uuid = None;
    let mut parent = None;
    let mut logical_parent = None;
    let mut leaf = None;
    let mut subtype = None;
    let (mut sidechain, mut meta, mut api_error) = (false, false, false);
    let mut msg = MessageShape::default();
    while let Some(key) = c.next_key() {
        match key.0 {
            b"type" => ty = c.opt_string(),
            b"uuid" => uuid = c.opt_string(),
            b"parentUuid" => parent = c.opt_string(),
            b"logicalParentUuid" => logical_parent = c.opt_string(),
            b"leafUuid" => leaf = c.opt_string(),
            b"subtype" => subtype = c.opt_string(),
            b"isSidechain" => sidechain = c.bool() == Some(true),
            b"isMeta" | b"isCompactSummary" => meta |= c.bool() == Some(true),
            b"isApiErrorMessage" => api_error = c.bool() == Some(true),
            b"message" => msg.scan(&mut c),
            _ => {
                c.skip();
            }
        }
    }
    if c.is_bad() {
        return None;
    }
    let ty = ty?;
    if ty.is("last-prompt") {
        return Some(Line::Note(LastPrompt {
            leaf: leaf?.boxed()?,
            at: span.start,
        }));
    }
    let kind = if ty.is("user") {
        if meta {
            Kind::MetaUser
        } else if msg.tool_result {
            Kind::ToolResult
        } else if msg.prompt {
            if msg.interrupt {
                Kind::Interrupt
            } else {
                Kind::Prompt
            }
        } else {
            Kind::MetaUser
        }
    } else if ty.is("assistant") {
        if api_error || msg.synthetic {
            Kind::ApiError
        } else {
            match msg.stop_reason {
                Some(s) if s.is("tool_use") => Kind::ReplyToolUse,
                None if msg.tool_use => Kind::ReplyToolUse,
                _ => Kind::Reply,
            }
        }
    } else if ty.is("system") && subtype.is_some_and(|s| s.is("turn_duration")) {
        Kind::TurnEnd
    } else {
        Kind::Aside
    };
    Some(Line::Node(Scanned {
        span,
        id: uuid?.boxed()?,
        parent: parent.or(logical_parent).and_then(|p| p.boxed()),
        kind,
        side: sidechain,
    }))
}

/// What the index needs to know of `message`: the kind of content and how the reply stopped.
#[derive(Default)]
struct MessageShape<'a> {
    prompt: bool,
    interrupt: bool,
    tool_result: bool,
    tool_use: bool,
    synthetic: bool,
    stop_reason: Option<RawStr<'a>>,
}

impl<'a> MessageShape<'a> {
    fn scan(&mut self, c: &mut Cursor<'a>) {
        if !c.begin_object() {
            c.skip();
            return;
        }
        while let Some(key) = c.next_key() {
            match key.0 {
                b"content" => self.scan_content(c),
                b"stop_reason" => self.stop_reason = c.opt_string(),
                b"model" => self.synthetic = c.opt_string().is_some_and(|m| m.is("<synthetic>")),
                _ => {
                    c.skip();
                }
            }
        }
    }

    fn scan_content(&mut self, c: &mut Cursor<'a>) {
        if let Some(text) = c.string() {
            self.prompt = true;
            self.interrupt = text.starts_with(INTERRUPTED);
            return;
        }
        if !c.begin_array() {
            c.skip();
            return;
        }
        let (mut texts, mut interrupts) = (0, 0);
        while c.next_element() {
            if !c.begin_object() {
                if !c.skip() {
                    return;
                }
                continue;
            }
            let (mut ty, mut text) = (None, None);
            while let Some(key) = c.next_key() {
                match key.0 {
                    b"type" => ty = c.opt_string(),
                    b"text" => text = c.opt_string(),
                    _ => {
                        c.skip();
                    }
                }
            }
            match ty {
                Some(t) if t.is("text") => {
                    texts += 1;
                    interrupts += usize::from(text.is_some_and(|s| s.starts_with(INTERRUPTED)));
                }
                Some(t) if t.is("image") || t.is("document") => texts += 1,
                Some(t) if t.is("tool_result") => self.tool_result = true,
                Some(t) if t.is("tool_use") => self.tool_use = true,
                _ => {}
            }
        }
        self.prompt = texts > 0;
        self.interrupt = texts > 0 && interrupts == texts;
    }
}

/// Turn one record into messages (the text pass, on demand).
fn add_record(msgs: &mut TurnMessages, record: &Node<Kind>, v: &Value) {
    let uuid = Some(&*record.id);
    let message = v.get("message").unwrap_or(&Value::Null);
    let content = message.get("content").unwrap_or(&Value::Null);
    match record.kind {
        Kind::Prompt | Kind::ToolResult | Kind::MetaUser | Kind::Interrupt => {
            let role = match record.kind {
                Kind::Prompt | Kind::ToolResult => Role::User,
                _ => Role::Other,
            };
            let Value::Array(blocks) = content else {
                msgs.text(role, content_text(content), uuid);
                return;
            };
            let mut text = Vec::new();
            for block in blocks {
                match str_of(block, "type") {
                    Some("tool_result") => msgs.tool_result(
                        str_of(block, "tool_use_id"),
                        content_text(block.get("content").unwrap_or(&Value::Null)),
                        block.get("is_error").and_then(Value::as_bool) == Some(true),
                        uuid,
                    ),
                    _ => text.push(block.clone()),
                }
            }
            let text = content_text(&Value::Array(text));
            if !text.is_empty() {
                msgs.text(role, text, uuid);
            }
        }
        Kind::Reply | Kind::ReplyToolUse => {
            let reply = str_of(message, "id");
            // One record per content block, each with the whole message's `usage`: the call is
            // the message (its request where it has no id), counted once.
            if let Some(usage) = message.get("usage").and_then(usage::tokens) {
                let call = reply.or_else(|| str_of(v, "requestId"));
                msgs.call_usage(call, usage, str_of(message, "model"));
            }
            let Value::Array(blocks) = content else {
                msgs.reply_text(reply, &content_text(content), uuid);
                return;
            };
            for block in blocks {
                match str_of(block, "type") {
                    Some("text") => {
                        msgs.reply_text(reply, str_of(block, "text").unwrap_or(""), uuid)
                    }
                    Some("tool_use") => msgs.tool_call(tool_call_block(block, "input"), uuid),
                    _ => msgs.continue_reply(reply),
                }
            }
        }
        Kind::ApiError => {
            let text = content_text(content);
            let error = if text.is_empty() {
                str_of(v, "error").unwrap_or("API error").to_owned()
            } else {
                text
            };
            msgs.push(Message::error(Role::Assistant, error).with_ref(uuid));
        }
        Kind::TurnEnd | Kind::Aside => {
            if str_of(v, "type") == Some("system") {
                if let Some(text) = str_of(v, "content").filter(|t| !t.is_empty()) {
                    msgs.text(Role::Other, text.to_owned(), uuid);
                }
            }
        }
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;
