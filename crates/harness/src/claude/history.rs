//! Reading a Claude Code transcript (`<session id>.jsonl`, harness notes §5–7).
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
//! Record uuids are shared by a session and all its forks: key them by (session id, uuid).

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

const INTERRUPTED: &str = "[Request interrupted by user";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
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

/// No parent (a root, or a parent that is not in the file).
const ROOT: u32 = u32::MAX;

#[derive(Debug)]
struct Record {
    span: Span,
    uuid: Box<str>,
    /// The parent's index, resolved when the record is read: records follow their parent in
    /// the file, and resolving in file order gives the same tree however the file was read.
    parent: u32,
    kind: Kind,
}

struct ScannedRecord {
    span: Span,
    uuid: Box<str>,
    parent: Option<Box<str>>,
    kind: Kind,
    sidechain: bool,
}

enum Line {
    Record(ScannedRecord),
    LastPrompt { leaf: Box<str>, at: u64 },
}

/// A Claude Code transcript, indexed and followed as it grows.
#[derive(Debug)]
pub struct ClaudeReader {
    path: PathBuf,
    read_to: u64,
    records: Vec<Record>,
    by_uuid: FxHashMap<Box<str>, u32>,
    last_record: Option<u32>,
    last_prompt: Option<(Box<str>, u64)>,
    chain: Chain,
    turns: Vec<TurnSpan>,
    anchors: Vec<TurnAnchor>,
}

impl ClaudeReader {
    pub fn open(path: impl AsRef<Path>) -> Result<Self, HistoryError> {
        let mut reader = ClaudeReader {
            path: path.as_ref().to_owned(),
            read_to: 0,
            records: Vec::new(),
            by_uuid: FxHashMap::default(),
            last_record: None,
            last_prompt: None,
            chain: Chain::default(),
            turns: Vec::new(),
            anchors: Vec::new(),
        };
        reader.read_appended()?;
        Ok(reader)
    }

    /// The session id: the file's name, which is what `--resume` takes.
    pub fn session_id(&self) -> Option<&str> {
        self.path.file_stem().and_then(|s| s.to_str())
    }

    fn file(&self) -> Result<File, HistoryError> {
        File::open(&self.path).map_err(|e| HistoryError::io(&self.path, e))
    }

    fn apply(&mut self, lines: Vec<Line>) -> usize {
        self.records.reserve(lines.len());
        self.by_uuid.reserve(lines.len());
        for line in lines {
            match line {
                Line::Record(r) => {
                    let n = self.records.len() as u32;
                    if !r.sidechain {
                        self.last_record = Some(n);
                    }
                    let parent = r.parent.and_then(|p| self.by_uuid.get(&p).copied());
                    self.by_uuid.insert(r.uuid.clone(), n);
                    self.records.push(Record {
                        span: r.span,
                        uuid: r.uuid,
                        parent: parent.unwrap_or(ROOT),
                        kind: r.kind,
                    });
                }
                Line::LastPrompt { leaf, at } => self.last_prompt = Some((leaf, at)),
            }
        }
        let last_record_at = self
            .last_record
            .map(|n| self.records[n as usize].span.start);
        let prompted_leaf = self.last_prompt.as_ref().and_then(|(uuid, at)| {
            let later = last_record_at.is_none_or(|r| *at > r);
            later.then(|| self.by_uuid.get(uuid).copied()).flatten()
        });
        let leaf = prompted_leaf.or(self.last_record);
        self.chain.grow(self.records.len());
        let records = &self.records;
        let changed = self.chain.set_leaf(leaf, |n| {
            Some(records[n as usize].parent).filter(|&p| p != ROOT)
        });
        let first = tree::recut(&mut self.turns, self.chain.nodes(), changed, |n| {
            records[n as usize].kind == Kind::Prompt
        });
        self.anchors.truncate(first);
        for i in first..self.turns.len() {
            let anchor = self.anchor(i);
            self.anchors.push(anchor);
        }
        first
    }

    fn turn_records(&self, i: usize) -> impl DoubleEndedIterator<Item = &Record> {
        let t = self.turns[i];
        self.chain.nodes()[t.start..t.end]
            .iter()
            .map(|&n| &self.records[n as usize])
    }

    fn anchor(&self, i: usize) -> TurnAnchor {
        let head = self.chain.nodes()[self.turns[i].head];
        let first = self.records[head as usize].uuid.to_string();
        let checkpoint = self
            .turn_records(i)
            .rev()
            .find(|r| r.kind.is_assistant())
            .map(|r| r.uuid.to_string());
        let complete = i + 1 < self.turns.len()
            || self
                .turn_records(i)
                .rev()
                .find_map(|r| r.kind.ends_turn())
                .unwrap_or(false);
        TurnAnchor {
            native_turn_ref: first,
            native_checkpoint_ref: checkpoint,
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
            .map(|&n| self.records[n as usize].span)
            .collect();
        let mut out: Vec<Turn> = Vec::with_capacity(turns.len());
        let mut t = turns.start;
        let mut msgs = TurnMessages::default();
        let file = self.file()?;
        jsonl::read_spans(&file, &spans, &mut |k, bytes| {
            let pos = from + k;
            while pos >= self.turns[t].end {
                out.push(self.finish(t, std::mem::take(&mut msgs)));
                t += 1;
            }
            let record = &self.records[nodes[k] as usize];
            if let Some(v) = jsonl::parse_line(bytes) {
                add_record(&mut msgs, record, &v);
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

impl SessionReader for ClaudeReader {
    fn kind(&self) -> HarnessKind {
        HarnessKind::Claude
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
        Some(&self.records[n as usize].uuid)
    }

    fn read_appended(&mut self) -> Result<Appended, HistoryError> {
        let file = self.file()?;
        let io = |e| HistoryError::io(&self.path, e);
        let len = file.metadata().map_err(io)?.len();
        if len < self.read_to || !jsonl::continues(&file, self.read_to).map_err(io)? {
            let mut fresh = ClaudeReader::open(&self.path)?;
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
            harness: HarnessKind::Claude,
            session_id: self.session_id().map(str::to_owned),
            forked_from: None,
            turns: self.materialize(0..self.turns.len())?,
            leaf: self.leaf().map(str::to_owned),
            read_to: self.read_to,
        })
    }
}

/// The index pass over one line: type, ids and the shape of the content, nothing else.
fn scan_line(line: &[u8], span: Span) -> Option<Line> {
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
        return Some(Line::LastPrompt {
            leaf: leaf?.boxed()?,
            at: span.start,
        });
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
    Some(Line::Record(ScannedRecord {
        span,
        uuid: uuid?.boxed()?,
        parent: parent.or(logical_parent).and_then(|p| p.boxed()),
        kind,
        sidechain,
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
fn add_record(msgs: &mut TurnMessages, record: &Record, v: &Value) {
    let uuid = Some(&*record.uuid);
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
            let Value::Array(blocks) = content else {
                msgs.reply_text(reply, &content_text(content), uuid);
                return;
            };
            for block in blocks {
                match str_of(block, "type") {
                    Some("text") => {
                        msgs.reply_text(reply, str_of(block, "text").unwrap_or(""), uuid)
                    }
                    Some("tool_use") => msgs.tool_call(
                        ToolCall {
                            id: str_of(block, "id").map(str::to_owned),
                            name: str_of(block, "name").unwrap_or_default().to_owned(),
                            input: block.get("input").cloned().unwrap_or(Value::Null),
                            output: None,
                            is_error: false,
                        },
                        uuid,
                    ),
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
