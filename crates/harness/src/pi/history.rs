//! Reading a Pi session file (JSONL, session format v3; harness notes §2).
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
//! Entry ids are copied by forks, so key them by (file, id).

use std::fs::File;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::history::{
    Appended, History, HistoryError, Message, Role, SessionReader, ToolCall, Turn, TurnAnchor,
};
use crate::jsonl::{self, Span};
use crate::messages::{content_text, str_of, TurnMessages};
use crate::scan::{Cursor, RawStr};
use crate::tree::{self, Chain, TurnSpan};
use crate::HarnessKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
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

/// No parent (the root, or a parent that is not in the file).
const ROOT: u32 = u32::MAX;

#[derive(Debug)]
struct Entry {
    span: Span,
    id: Box<str>,
    /// The parent's index, resolved in file order (entries follow their parent).
    parent: u32,
    kind: Kind,
}

struct ScannedEntry {
    span: Span,
    id: Box<str>,
    parent: Option<Box<str>>,
    kind: Kind,
}

enum Line {
    Header {
        id: Option<Box<str>>,
        parent_session: Option<Box<str>>,
    },
    Entry(ScannedEntry),
}

#[derive(Debug, Default)]
struct Header {
    id: Option<Box<str>>,
    parent_session: Option<Box<str>>,
}

/// A Pi session file, indexed and followed as it grows.
#[derive(Debug)]
pub struct PiReader {
    path: PathBuf,
    read_to: u64,
    header: Option<Header>,
    entries: Vec<Entry>,
    by_id: FxHashMap<Box<str>, u32>,
    chain: Chain,
    turns: Vec<TurnSpan>,
    anchors: Vec<TurnAnchor>,
}

impl PiReader {
    pub fn open(path: impl AsRef<Path>) -> Result<Self, HistoryError> {
        let mut reader = PiReader {
            path: path.as_ref().to_owned(),
            read_to: 0,
            header: None,
            entries: Vec::new(),
            by_id: FxHashMap::default(),
            chain: Chain::default(),
            turns: Vec::new(),
            anchors: Vec::new(),
        };
        reader.read_appended()?;
        Ok(reader)
    }

    /// The session id from the header.
    pub fn session_id(&self) -> Option<&str> {
        self.header.as_ref()?.id.as_deref()
    }

    /// The header's `parentSession`: the path of the session this one was forked or cloned
    /// from.
    pub fn parent_session(&self) -> Option<&str> {
        self.header.as_ref()?.parent_session.as_deref()
    }

    fn file(&self) -> Result<File, HistoryError> {
        File::open(&self.path).map_err(|e| HistoryError::io(&self.path, e))
    }

    fn apply(&mut self, lines: Vec<Line>) -> usize {
        let before = self.entries.len();
        self.entries.reserve(lines.len());
        self.by_id.reserve(lines.len());
        for line in lines {
            match line {
                Line::Header { id, parent_session } => {
                    self.header.get_or_insert(Header { id, parent_session });
                }
                Line::Entry(e) => {
                    let n = self.entries.len() as u32;
                    let parent = e.parent.and_then(|p| self.by_id.get(&p).copied());
                    self.by_id.insert(e.id.clone(), n);
                    self.entries.push(Entry {
                        span: e.span,
                        id: e.id,
                        parent: parent.unwrap_or(ROOT),
                        kind: e.kind,
                    });
                }
            }
        }
        if self.entries.len() == before && !self.turns.is_empty() {
            return self.turns.len();
        }
        let leaf = self.entries.len().checked_sub(1).map(|n| n as u32);
        self.chain.grow(self.entries.len());
        let entries = &self.entries;
        let changed = self.chain.set_leaf(leaf, |n| {
            Some(entries[n as usize].parent).filter(|&p| p != ROOT)
        });
        let first = tree::recut(&mut self.turns, self.chain.nodes(), changed, |n| {
            entries[n as usize].kind == Kind::User
        });
        self.anchors.truncate(first);
        for i in first..self.turns.len() {
            let anchor = self.anchor(i);
            self.anchors.push(anchor);
        }
        first
    }

    fn turn_entries(&self, i: usize) -> impl DoubleEndedIterator<Item = &Entry> {
        let t = self.turns[i];
        self.chain.nodes()[t.start..t.end]
            .iter()
            .map(|&n| &self.entries[n as usize])
    }

    fn anchor(&self, i: usize) -> TurnAnchor {
        let head = self.chain.nodes()[self.turns[i].head];
        let first = self.entries[head as usize].id.to_string();
        let last = self.turn_entries(i).next_back().map(|e| e.id.to_string());
        let complete = i + 1 < self.turns.len()
            || self
                .turn_entries(i)
                .rev()
                .find_map(|e| e.kind.ends_turn())
                .unwrap_or(false);
        TurnAnchor {
            native_turn_ref: first,
            native_checkpoint_ref: last,
            complete,
        }
    }

    fn materialize(&self, turns: std::ops::Range<usize>) -> Result<Vec<Turn>, HistoryError> {
        let Some(last) = turns.end.checked_sub(1) else {
            return Ok(Vec::new());
        };
        let (from, to) = (self.turns[turns.start].start, self.turns[last].end);
        let nodes = &self.chain.nodes()[from..to];
        let spans: Vec<Span> = nodes
            .iter()
            .map(|&n| self.entries[n as usize].span)
            .collect();
        let mut out = Vec::with_capacity(turns.len());
        let mut t = turns.start;
        let mut msgs = TurnMessages::default();
        let file = self.file()?;
        jsonl::read_spans(&file, &spans, &mut |k, bytes| {
            while from + k >= self.turns[t].end {
                out.push(self.finish(t, std::mem::take(&mut msgs)));
                t += 1;
            }
            let entry = &self.entries[nodes[k] as usize];
            if let Some(v) = jsonl::parse_line(bytes) {
                add_entry(&mut msgs, entry, &v);
            }
        })
        .map_err(|e| HistoryError::io(&self.path, e))?;
        while t < turns.end {
            out.push(self.finish(t, std::mem::take(&mut msgs)));
            t += 1;
        }
        Ok(out)
    }

    fn finish(&self, i: usize, msgs: TurnMessages) -> Turn {
        let a = &self.anchors[i];
        Turn {
            native_turn_ref: a.native_turn_ref.clone(),
            native_checkpoint_ref: a.native_checkpoint_ref.clone(),
            messages: msgs.messages,
            complete: a.complete,
        }
    }
}

impl SessionReader for PiReader {
    fn kind(&self) -> HarnessKind {
        HarnessKind::Pi
    }

    fn path(&self) -> &Path {
        &self.path
    }

    fn read_to(&self) -> u64 {
        self.read_to
    }

    fn anchors(&self) -> &[TurnAnchor] {
        &self.anchors
    }

    fn leaf(&self) -> Option<&str> {
        let &n = self.chain.nodes().last()?;
        Some(&self.entries[n as usize].id)
    }

    fn read_appended(&mut self) -> Result<Appended, HistoryError> {
        let file = self.file()?;
        let io = |e| HistoryError::io(&self.path, e);
        let len = file.metadata().map_err(io)?.len();
        // Pi rewrites the whole file when it migrates a session: start over.
        if len < self.read_to || !jsonl::continues(&file, self.read_to).map_err(io)? {
            let mut fresh = PiReader::open(&self.path)?;
            std::mem::swap(self, &mut fresh);
            return Ok(Appended {
                bytes: self.read_to,
                first_changed_turn: 0,
                reset: true,
            });
        }
        let start = self.read_to;
        let scanned = jsonl::scan(&file, start..len, scan_line).map_err(io)?;
        self.read_to = scanned.end;
        let first = self.apply(scanned.items);
        Ok(Appended {
            bytes: scanned.end - start,
            first_changed_turn: first,
            reset: false,
        })
    }

    fn turn(&self, index: usize) -> Result<Turn, HistoryError> {
        if index >= self.turns.len() {
            return Err(HistoryError::TurnNotFound {
                index,
                len: self.turns.len(),
            });
        }
        Ok(self.materialize(index..index + 1)?.remove(0))
    }

    fn history(&self) -> Result<History, HistoryError> {
        Ok(History {
            harness: HarnessKind::Pi,
            session_id: self.session_id().map(str::to_owned),
            forked_from: self.parent_session().map(str::to_owned),
            turns: self.materialize(0..self.turns.len())?,
            leaf: self.leaf().map(str::to_owned),
            read_to: self.read_to,
        })
    }
}

fn scan_line(line: &[u8], span: Span) -> Option<Line> {
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
        return Some(Line::Header {
            id: id.and_then(|i| i.boxed()),
            parent_session: parent_session.and_then(|p| p.boxed()),
        });
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
    Some(Line::Entry(ScannedEntry {
        span,
        id: id?.boxed()?,
        parent: parent.and_then(|p| p.boxed()),
        kind,
    }))
}

fn add_entry(msgs: &mut TurnMessages, entry: &Entry, v: &Value) {
    let id = Some(&*entry.id);
    let message = v.get("message").unwrap_or(&Value::Null);
    let content = message.get("content").unwrap_or(&Value::Null);
    match entry.kind {
        Kind::User => msgs.text(Role::User, content_text(content), id),
        Kind::Reply | Kind::ReplyToolUse => {
            let before = msgs.messages.len();
            if let Value::Array(blocks) = content {
                for block in blocks {
                    match str_of(block, "type") {
                        Some("text") => msgs.reply_text(
                            Some(&entry.id),
                            str_of(block, "text").unwrap_or(""),
                            id,
                        ),
                        Some("toolCall") => msgs.tool_call(
                            ToolCall {
                                id: str_of(block, "id").map(str::to_owned),
                                name: str_of(block, "name").unwrap_or_default().to_owned(),
                                input: block.get("arguments").cloned().unwrap_or(Value::Null),
                                output: None,
                                is_error: false,
                            },
                            id,
                        ),
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
