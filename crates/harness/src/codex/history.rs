//! Reading Codex rollout files (`rollout-<ts>-<thread id>[_<revision id>].jsonl`; harness
//! notes §3).
//!
//! Each line is an envelope `{"timestamp","ordinal"?,"type","payload"}`. Three generations
//! are read:
//! - **paginated** (current default): turns open with `event_msg`/`task_started{turn_id}` and
//!   close with `task_complete` or `turn_aborted`; text comes from `event_msg`/`item_completed`
//!   items (`UserMessage`, `AgentMessage`). A fork or revert file does not copy its parent's
//!   lines: its `session_meta.history_base{thread_id, end_byte_offset}` names a byte prefix of
//!   another rollout, which the reader reads first (recursively; see [`CodexReader::open_with`]).
//! - **legacy** (`history_mode: "legacy"`, and older CLIs): the same envelope, text in
//!   `event_msg`/`user_message` and `agent_message`; forks copy the parent's lines. When there
//!   is no `task_started`, a user message opens a turn, as app-server does.
//! - the oldest files, without envelopes: a bare `{"id","timestamp","instructions"}` first line,
//!   then bare response items; a user message that is not injected context opens a turn.
//!
//! Tool calls come from the response items (`function_call`, `custom_tool_call`,
//! `local_shell_call`, `web_search_call`) joined with their `*_output` by `call_id`; `error`
//! events become messages with `error` set; `thread_rolled_back{num_turns}` drops turns.
//!
//! Anchors:
//! - **native turn ref**: the turn id (`task_started.turn_id`), what `thread/fork` takes as
//!   `lastTurnId`/`beforeTurnId`. A turn without an id (older files) gets a synthetic ref
//!   `@<byte offset of its first line>` that no Codex API accepts.
//! - **native checkpoint ref**: the turn id again (Codex forks at turn granularity); `None`
//!   for a synthetic ref.
//! - **complete**: `task_complete` or `turn_aborted` was written, or a later turn exists; turns
//!   without explicit boundaries (older files) count as complete.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;
use serde_json::Value;

use crate::history::{
    Appended, History, HistoryError, Message, Role, SessionReader, ToolCall, Turn, TurnAnchor,
};
use crate::jsonl::{self, Span};
use crate::messages::{content_text, str_of, TurnMessages};
use crate::scan::{Cursor, RawStr};
use crate::HarnessKind;

/// How deep `history_base` links are followed before giving up (a loop, most likely).
const MAX_BASES: usize = 64;

/// The start of user messages that Codex injects as context rather than the user typing them.
const INJECTED: [&str; 6] = [
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions",
    "<turn_aborted>",
    "<user_shell_command>",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Legacy `user_message` event.
    UserEvent,
    /// `item_completed` / `UserMessage`.
    UserItem,
    AgentEvent,
    AgentItem,
    /// A response item of a tool call or its output.
    Tool,
    Error,
    Compacted,
    /// Oldest format: a bare user or assistant response item.
    BareUser,
    BareAssistant,
}

impl Kind {
    fn is_user(self) -> bool {
        matches!(self, Kind::UserEvent | Kind::UserItem | Kind::BareUser)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Base {
    thread_id: Box<str>,
    end: u64,
}

#[derive(Debug, Default, Clone)]
struct Meta {
    id: Option<Box<str>>,
    forked_from: Option<Box<str>>,
    base: Option<Base>,
}

enum Line {
    Meta(Meta),
    TurnStarted(Option<Box<str>>),
    TurnEnded {
        id: Option<Box<str>>,
    },
    Item {
        kind: Kind,
        turn_id: Option<Box<str>>,
    },
    RolledBack(usize),
}

struct Scanned {
    span: Span,
    line: Line,
}

#[derive(Debug, Clone, Copy)]
struct Record {
    segment: u32,
    span: Span,
    kind: Kind,
}

#[derive(Debug)]
struct TurnState {
    id: Option<Box<str>>,
    /// Where the turn's first line starts, for a synthetic ref.
    at: u64,
    explicit: bool,
    ended: bool,
    records: Vec<u32>,
}

/// A file the history is read from: base prefixes first, the thread's own file last.
#[derive(Debug, Clone)]
struct Segment {
    path: PathBuf,
    /// Read up to here (a `history_base.end_byte_offset`); `None`: the live file.
    end: Option<u64>,
}

/// Finds the rollout of a thread or revision id named by a `history_base`.
#[derive(Clone)]
struct Resolver(Arc<ResolveFn>);

type ResolveFn = dyn Fn(&str) -> Option<PathBuf> + Send + Sync;

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Resolver")
    }
}

/// A Codex rollout (and the prefixes it inherits), indexed and followed as it grows.
#[derive(Debug)]
pub struct CodexReader {
    resolve: Resolver,
    segments: Vec<Segment>,
    meta: Meta,
    /// Whether the live file's `session_meta` has been read (it may not be written yet).
    meta_read: bool,
    /// The `session_meta` arrived late and names a base: the reader must start over.
    reload: bool,
    missing_base: Option<String>,
    read_to: u64,
    records: Vec<Record>,
    turns: Vec<TurnState>,
    by_id: FxHashMap<Box<str>, usize>,
    /// The turn still open for lines without a turn id.
    current: Option<usize>,
    anchors: Vec<TurnAnchor>,
}

impl CodexReader {
    /// Open a rollout, resolving `history_base` links with [`find_rollout`] in the `sessions`
    /// folder that holds `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, HistoryError> {
        let path = path.as_ref();
        let sessions = path
            .ancestors()
            .find(|a| a.file_name().is_some_and(|n| n == "sessions"))
            .or_else(|| path.parent())
            .map(Path::to_owned);
        Self::open_with(path, move |id| find_rollout(sessions.as_deref()?, id))
    }

    /// Open a rollout; `resolve(id)` finds the file of a thread or revision id named by a
    /// `history_base`. An unresolved base leaves the inherited turns out and is reported by
    /// [`missing_base`](Self::missing_base).
    pub fn open_with(
        path: impl AsRef<Path>,
        resolve: impl Fn(&str) -> Option<PathBuf> + Send + Sync + 'static,
    ) -> Result<Self, HistoryError> {
        Self::load(path.as_ref(), Resolver(Arc::new(resolve)))
    }

    fn load(path: &Path, resolve: Resolver) -> Result<Self, HistoryError> {
        let path = path.to_owned();
        let first = first_meta(&path)?;
        let meta_read = first.is_some();
        let meta = first.unwrap_or_default();
        let mut segments = vec![Segment {
            path: path.clone(),
            end: None,
        }];
        let mut missing_base = None;
        let mut base = meta.base.clone();
        while let Some(b) = base.take() {
            if segments.len() > MAX_BASES {
                missing_base = Some(b.thread_id.to_string());
                break;
            }
            let Some(base_path) = (resolve.0)(&b.thread_id) else {
                missing_base = Some(b.thread_id.to_string());
                break;
            };
            base = match first_meta(&base_path) {
                Ok(m) => m.and_then(|m| m.base),
                Err(_) => {
                    missing_base = Some(b.thread_id.to_string());
                    break;
                }
            };
            segments.insert(
                0,
                Segment {
                    path: base_path,
                    end: Some(b.end),
                },
            );
        }
        let mut reader = CodexReader {
            resolve,
            segments,
            meta,
            meta_read,
            reload: false,
            missing_base,
            read_to: 0,
            records: Vec::new(),
            turns: Vec::new(),
            by_id: FxHashMap::default(),
            current: None,
            anchors: Vec::new(),
        };
        for s in 0..reader.segments.len() - 1 {
            reader.read_base(s)?;
        }
        reader.read_appended()?;
        Ok(reader)
    }

    /// The thread id (`session_meta.id`).
    pub fn thread_id(&self) -> Option<&str> {
        self.meta.id.as_deref()
    }

    /// The thread this one was forked from (`session_meta.forked_from_id`).
    pub fn forked_from(&self) -> Option<&str> {
        self.meta.forked_from.as_deref()
    }

    /// The thread or revision id of an inherited prefix that could not be found.
    pub fn missing_base(&self) -> Option<&str> {
        self.missing_base.as_deref()
    }

    fn live(&self) -> &Path {
        &self.segments[self.segments.len() - 1].path
    }

    fn read_base(&mut self, s: usize) -> Result<(), HistoryError> {
        let seg = &self.segments[s];
        let file = File::open(&seg.path).map_err(|e| HistoryError::io(&seg.path, e))?;
        let len = file
            .metadata()
            .map_err(|e| HistoryError::io(&seg.path, e))?
            .len();
        let end = seg.end.unwrap_or(len).min(len);
        let scanned =
            jsonl::scan(&file, 0..end, scan_line).map_err(|e| HistoryError::io(&seg.path, e))?;
        self.apply(s as u32, scanned.items);
        Ok(())
    }

    fn apply(&mut self, segment: u32, lines: Vec<Scanned>) -> usize {
        let before = self.turns.len();
        let mut first = before;
        for Scanned { span, line } in lines {
            match line {
                Line::Meta(meta) => {
                    let live = segment as usize == self.segments.len() - 1;
                    if live && span.start == 0 && !self.meta_read {
                        self.meta_read = true;
                        self.reload = meta.base.is_some();
                        self.meta = meta;
                    }
                }
                Line::TurnStarted(id) => {
                    // Older CLIs wrote the user message first and an id-less `task_started`
                    // after it: that start belongs to the turn the message opened.
                    let adopt = self.current.filter(|&c| {
                        let t = &self.turns[c];
                        !t.explicit
                            && t.records
                                .iter()
                                .all(|&r| self.records[r as usize].kind.is_user())
                    });
                    if let Some(c) = adopt {
                        self.turns[c].explicit = true;
                        if let Some(id) = id {
                            self.by_id.insert(id.clone(), c);
                            self.turns[c].id = Some(id);
                        }
                        first = first.min(c);
                    } else {
                        first = first.min(self.open_turn(id, span.start, true));
                    }
                }
                Line::TurnEnded { id } => {
                    let t = match id.as_deref().and_then(|id| self.by_id.get(id)) {
                        Some(&t) => Some(t),
                        None => self.current,
                    };
                    if let Some(t) = t {
                        self.turns[t].ended = true;
                        first = first.min(t);
                        if self.current == Some(t) {
                            self.current = None;
                        }
                    }
                }
                Line::RolledBack(n) => {
                    self.current = None;
                    let keep = self.turns.len().saturating_sub(n);
                    for t in self.turns.drain(keep..) {
                        if let Some(id) = t.id {
                            self.by_id.remove(&id);
                        }
                    }
                    first = first.min(keep);
                }
                Line::Item { kind, turn_id } => {
                    let routed = turn_id
                        .as_deref()
                        .and_then(|id| self.by_id.get(id))
                        .copied();
                    let current = self.current;
                    let t = match routed {
                        Some(t) => t,
                        // A user message outside an explicit turn opens a turn of its own.
                        None if kind.is_user() => match current {
                            Some(c) if self.turns[c].explicit => c,
                            _ => self.open_turn(None, span.start, false),
                        },
                        // Stray lines between turns belong to the turn before them.
                        None => match current.or(self.turns.len().checked_sub(1)) {
                            Some(c) => c,
                            None => self.open_turn(None, span.start, false),
                        },
                    };
                    let n = self.records.len() as u32;
                    self.records.push(Record {
                        segment,
                        span,
                        kind,
                    });
                    self.turns[t].records.push(n);
                    first = first.min(t);
                }
            }
        }
        // A new turn settles the one before it.
        if self.turns.len() > before {
            first = first.min(before.saturating_sub(1));
        }
        first = first.min(self.turns.len());
        self.anchors.truncate(first);
        for i in first..self.turns.len() {
            let anchor = self.anchor(i);
            self.anchors.push(anchor);
        }
        first
    }

    fn open_turn(&mut self, id: Option<Box<str>>, at: u64, explicit: bool) -> usize {
        let t = self.turns.len();
        if let Some(id) = &id {
            self.by_id.insert(id.clone(), t);
        }
        self.turns.push(TurnState {
            id,
            at,
            explicit,
            ended: false,
            records: Vec::new(),
        });
        self.current = Some(t);
        t
    }

    fn anchor(&self, i: usize) -> TurnAnchor {
        let t = &self.turns[i];
        TurnAnchor {
            native_turn_ref: t
                .id
                .as_deref()
                .map_or_else(|| format!("@{}", t.at), str::to_owned),
            native_checkpoint_ref: t.id.as_deref().map(str::to_owned),
            complete: t.ended || !t.explicit || i + 1 < self.turns.len(),
        }
    }

    fn materialize(&self, turns: std::ops::Range<usize>) -> Result<Vec<Turn>, HistoryError> {
        let mut files: Vec<Option<File>> = self.segments.iter().map(|_| None).collect();
        let mut out = Vec::with_capacity(turns.len());
        for i in turns {
            let state = &self.turns[i];
            // Prefer the items of the current format when a turn has both kinds of text.
            let items = state.records.iter().any(|&r| {
                matches!(
                    self.records[r as usize].kind,
                    Kind::UserItem | Kind::AgentItem
                )
            });
            let mut msgs = TurnMessages::default();
            // Records of one segment are read together, in order.
            let mut k = 0;
            while k < state.records.len() {
                let segment = self.records[state.records[k] as usize].segment;
                let mut j = k;
                while j < state.records.len()
                    && self.records[state.records[j] as usize].segment == segment
                {
                    j += 1;
                }
                let group: Vec<Record> = state.records[k..j]
                    .iter()
                    .map(|&r| self.records[r as usize])
                    .collect();
                let path = &self.segments[segment as usize].path;
                let file = match &mut files[segment as usize] {
                    Some(f) => f,
                    slot => slot.insert(File::open(path).map_err(|e| HistoryError::io(path, e))?),
                };
                let spans: Vec<Span> = group.iter().map(|r| r.span).collect();
                jsonl::read_spans(file, &spans, &mut |n, bytes| {
                    if let Some(v) = jsonl::parse_line(bytes) {
                        add_record(&mut msgs, group[n].kind, &v, items);
                    }
                })
                .map_err(|e| HistoryError::io(path, e))?;
                k = j;
            }
            let a = &self.anchors[i];
            out.push(Turn {
                native_turn_ref: a.native_turn_ref.clone(),
                native_checkpoint_ref: a.native_checkpoint_ref.clone(),
                messages: msgs.messages,
                complete: a.complete,
            });
        }
        Ok(out)
    }
}

impl SessionReader for CodexReader {
    fn kind(&self) -> HarnessKind {
        HarnessKind::Codex
    }

    fn path(&self) -> &Path {
        self.live()
    }

    fn read_to(&self) -> u64 {
        self.read_to
    }

    fn anchors(&self) -> &[TurnAnchor] {
        &self.anchors
    }

    fn leaf(&self) -> Option<&str> {
        Some(&self.anchors.last()?.native_turn_ref)
    }

    fn read_appended(&mut self) -> Result<Appended, HistoryError> {
        let path = self.live().to_owned();
        let io = |e| HistoryError::io(&path, e);
        let file = File::open(&path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let restart = |reader: &mut Self| {
            *reader = CodexReader::load(&path, reader.resolve.clone())?;
            Ok(Appended {
                bytes: reader.read_to,
                first_changed_turn: 0,
                reset: true,
            })
        };
        if len < self.read_to || !jsonl::continues(&file, self.read_to).map_err(io)? {
            return restart(self);
        }
        let start = self.read_to;
        let scanned = jsonl::scan(&file, start..len, scan_line).map_err(io)?;
        self.read_to = scanned.end;
        let segment = (self.segments.len() - 1) as u32;
        let first = self.apply(segment, scanned.items);
        if self.reload {
            // The first line came only now, and it names an inherited prefix to read first.
            return restart(self);
        }
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
            harness: HarnessKind::Codex,
            session_id: self.thread_id().map(str::to_owned),
            forked_from: self.forked_from().map(str::to_owned),
            turns: self.materialize(0..self.turns.len())?,
            leaf: self.leaf().map(str::to_owned),
            read_to: self.read_to,
        })
    }
}

/// Find the rollout of a thread (`rollout-<ts>-<id>.jsonl`) or of a revision
/// (`rollout-<ts>-<thread>_<id>.jsonl`) under a `sessions` folder.
pub fn find_rollout(sessions: &Path, id: &str) -> Option<PathBuf> {
    let names = [format!("-{id}.jsonl"), format!("_{id}.jsonl")];
    let mut dirs = vec![sessions.to_owned()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                dirs.push(path);
            } else if entry
                .file_name()
                .to_str()
                .is_some_and(|n| n.starts_with("rollout-") && names.iter().any(|s| n.ends_with(s)))
            {
                return Some(path);
            }
        }
    }
    None
}

/// The first line's `session_meta`, read alone (it names the inherited prefix). `None` if the
/// file does not start with one.
fn first_meta(path: &Path) -> Result<Option<Meta>, HistoryError> {
    let file = File::open(path).map_err(|e| HistoryError::io(path, e))?;
    let mut buf = Vec::new();
    let mut at = 0u64;
    loop {
        let old = buf.len();
        jsonl::append_at(&file, &mut buf, at, 64 << 10).map_err(|e| HistoryError::io(path, e))?;
        if let Some(nl) = memchr::memchr(b'\n', &buf) {
            buf.truncate(nl);
            break;
        }
        if buf.len() == old {
            break;
        }
        at = buf.len() as u64;
    }
    Ok(match scan_line(&buf, Span { start: 0, end: 0 }) {
        Some(Scanned {
            line: Line::Meta(meta),
            ..
        }) => Some(meta),
        _ => None,
    })
}

/// The index pass over one line. The envelope's `type` precedes its `payload`, and a payload's
/// own `type` leads it, so most lines are settled after a few keys and their bodies are never
/// scanned.
fn scan_line(line: &[u8], span: Span) -> Option<Scanned> {
    let mut c = Cursor::new(line);
    if !c.begin_object() {
        return None;
    }
    let mut ty: Option<RawStr> = None;
    let mut bare = BareItem::default();
    let mut payload_at = None;
    while let Some(key) = c.next_key() {
        match key.0 {
            b"type" => ty = c.opt_string(),
            b"payload" => match ty {
                Some(t) => {
                    let line = scan_payload(&mut c, t)?;
                    return Some(Scanned { span, line });
                }
                None => {
                    payload_at = Some(c.pos());
                    c.skip();
                }
            },
            _ => {
                bare.field(key, &mut c);
            }
        }
    }
    if c.is_bad() {
        return None;
    }
    let line = match (ty, payload_at) {
        (Some(t), Some(at)) => scan_payload(&mut Cursor::at(line, at), t)?,
        (Some(t), None) => bare.line(t)?,
        // The oldest files open with a bare `{"id","timestamp","instructions"}`.
        (None, _) => Line::Meta(Meta {
            id: bare.id.and_then(|i| i.boxed()),
            ..Meta::default()
        }),
    };
    Some(Scanned { span, line })
}

fn scan_payload(c: &mut Cursor, ty: RawStr) -> Option<Line> {
    if ty.is("session_meta") {
        return Some(Line::Meta(scan_meta(c)));
    }
    if !c.begin_object() {
        return None;
    }
    if ty.is("event_msg") {
        scan_event(c)
    } else if ty.is("response_item") {
        while let Some(key) = c.next_key() {
            if key.is("type") {
                // Enveloped messages are not read for text: the events carry it.
                return c
                    .opt_string()
                    .filter(|&t| tool_item(t))
                    .map(|_| Line::Item {
                        kind: Kind::Tool,
                        turn_id: None,
                    });
            }
            c.skip();
        }
        None
    } else if ty.is("compacted") {
        Some(Line::Item {
            kind: Kind::Compacted,
            turn_id: None,
        })
    } else {
        None
    }
}

fn tool_item(ty: RawStr) -> bool {
    ty.is("function_call")
        || ty.is("function_call_output")
        || ty.is("custom_tool_call")
        || ty.is("custom_tool_call_output")
        || ty.is("local_shell_call")
        || ty.is("local_shell_call_output")
        || ty.is("web_search_call")
        || ty.is("tool_search_call")
        || ty.is("tool_search_output")
}

fn scan_meta(c: &mut Cursor) -> Meta {
    let mut meta = Meta::default();
    if !c.begin_object() {
        c.skip();
        return meta;
    }
    while let Some(key) = c.next_key() {
        match key.0 {
            b"id" => meta.id = c.opt_string().and_then(|s| s.boxed()),
            b"forked_from_id" => meta.forked_from = c.opt_string().and_then(|s| s.boxed()),
            b"history_base" => {
                if !c.begin_object() {
                    c.skip();
                    continue;
                }
                let (mut thread, mut end) = (None, None);
                while let Some(key) = c.next_key() {
                    match key.0 {
                        b"thread_id" => thread = c.opt_string().and_then(|s| s.boxed()),
                        b"end_byte_offset" => end = c.u64(),
                        _ => {
                            c.skip();
                        }
                    }
                }
                if let (Some(thread_id), Some(end)) = (thread, end) {
                    meta.base = Some(Base { thread_id, end });
                }
            }
            _ => {
                c.skip();
            }
        }
    }
    meta
}

fn scan_event(c: &mut Cursor) -> Option<Line> {
    let mut ty: Option<RawStr> = None;
    let mut turn_id = None;
    let mut item_ty: Option<RawStr> = None;
    let mut num_turns = None;
    while let Some(key) = c.next_key() {
        match key.0 {
            b"type" => {
                ty = c.opt_string();
                let t = ty?;
                // Settled by the type alone: skip the (possibly long) rest.
                if t.is("user_message") {
                    return Some(item(Kind::UserEvent, None));
                }
                if t.is("agent_message") {
                    return Some(item(Kind::AgentEvent, None));
                }
                if t.is("error") {
                    return Some(item(Kind::Error, None));
                }
                let wanted = t.is("task_started")
                    || t.is("turn_started")
                    || t.is("task_complete")
                    || t.is("turn_complete")
                    || t.is("turn_aborted")
                    || t.is("item_completed")
                    || t.is("thread_rolled_back");
                if !wanted {
                    return None;
                }
            }
            b"turn_id" => turn_id = c.opt_string().and_then(|s| s.boxed()),
            // 0.171 also nests the id in `turn_attribution`; the top-level one wins.
            b"turn_attribution" if turn_id.is_none() && c.begin_object() => {
                while let Some(key) = c.next_key() {
                    if key.is("turn_id") {
                        turn_id = c.opt_string().and_then(|s| s.boxed());
                    } else {
                        c.skip();
                    }
                }
            }
            b"num_turns" => num_turns = c.u64(),
            b"item" => {
                if !c.begin_object() {
                    c.skip();
                    continue;
                }
                let mut found = false;
                while let Some(key) = c.next_key() {
                    if key.is("type") {
                        item_ty = c.opt_string();
                        found = true;
                        break;
                    }
                    c.skip();
                }
                if found {
                    if turn_id.is_some() {
                        // Nothing after the item's type matters.
                        break;
                    }
                    c.finish_object();
                }
            }
            _ => {
                c.skip();
            }
        }
    }
    let t = ty?;
    if t.is("task_started") || t.is("turn_started") {
        Some(Line::TurnStarted(turn_id))
    } else if t.is("task_complete") || t.is("turn_complete") || t.is("turn_aborted") {
        Some(Line::TurnEnded { id: turn_id })
    } else if t.is("thread_rolled_back") {
        Some(Line::RolledBack(num_turns.unwrap_or(0) as usize))
    } else {
        let it = item_ty?;
        if it.is("UserMessage") {
            Some(item(Kind::UserItem, turn_id))
        } else if it.is("AgentMessage") {
            Some(item(Kind::AgentItem, turn_id))
        } else {
            None
        }
    }
}

fn item(kind: Kind, turn_id: Option<Box<str>>) -> Line {
    Line::Item { kind, turn_id }
}

/// The fields of a bare (envelope-less) response item, gathered while walking the line.
#[derive(Default)]
struct BareItem<'a> {
    id: Option<RawStr<'a>>,
    role: Option<RawStr<'a>>,
    injected: bool,
}

impl<'a> BareItem<'a> {
    fn field(&mut self, key: RawStr<'a>, c: &mut Cursor<'a>) {
        match key.0 {
            b"id" => self.id = c.opt_string(),
            b"role" => self.role = c.opt_string(),
            // Only the first text block tells injected context from a typed prompt.
            b"content" if c.begin_array() => {
                if c.next_element() && c.begin_object() {
                    while let Some(key) = c.next_key() {
                        match (key.0, c.peek()) {
                            (b"text", Some(b'"')) => {
                                let text = c.string();
                                self.injected =
                                    text.is_some_and(|t| INJECTED.iter().any(|p| t.starts_with(p)));
                            }
                            _ => {
                                c.skip();
                            }
                        }
                    }
                }
                c.finish_array();
            }
            _ => {
                c.skip();
            }
        }
    }

    fn line(&self, ty: RawStr) -> Option<Line> {
        if ty.is("message") {
            let role = self.role?;
            if role.is("user") && !self.injected {
                Some(item(Kind::BareUser, None))
            } else if role.is("assistant") {
                Some(item(Kind::BareAssistant, None))
            } else {
                None
            }
        } else if tool_item(ty) {
            Some(item(Kind::Tool, None))
        } else {
            None
        }
    }
}

/// Turn one record into messages (the text pass, on demand).
fn add_record(msgs: &mut TurnMessages, kind: Kind, v: &Value, prefer_items: bool) {
    let payload = v.get("payload").unwrap_or(v);
    match kind {
        Kind::UserEvent | Kind::AgentEvent if prefer_items => {}
        Kind::UserEvent => msgs.text(
            Role::User,
            str_of(payload, "message").unwrap_or_default().to_owned(),
            None,
        ),
        Kind::AgentEvent => msgs.push(Message::new(
            Role::Assistant,
            str_of(payload, "message").unwrap_or_default(),
        )),
        Kind::UserItem | Kind::AgentItem => {
            let item = payload.get("item").unwrap_or(&Value::Null);
            let text = content_text(item.get("content").unwrap_or(&Value::Null));
            let role = if kind == Kind::UserItem {
                Role::User
            } else {
                Role::Assistant
            };
            msgs.push(Message::new(role, text).with_ref(str_of(item, "id")));
        }
        Kind::BareUser => msgs.text(
            Role::User,
            content_text(payload.get("content").unwrap_or(&Value::Null)),
            str_of(payload, "id"),
        ),
        Kind::BareAssistant => msgs.push(
            Message::new(
                Role::Assistant,
                content_text(payload.get("content").unwrap_or(&Value::Null)),
            )
            .with_ref(str_of(payload, "id")),
        ),
        Kind::Tool => add_tool(msgs, payload),
        Kind::Error => msgs.push(Message::error(
            Role::Other,
            str_of(payload, "message").unwrap_or("error"),
        )),
        Kind::Compacted => {
            let text = str_of(payload, "message").unwrap_or_default().to_owned();
            msgs.text(Role::Other, text, None);
        }
    }
}

fn add_tool(msgs: &mut TurnMessages, item: &Value) {
    let call_id = str_of(item, "call_id").or_else(|| str_of(item, "id"));
    let call = |name: &str, input: Value| ToolCall {
        id: call_id.map(str::to_owned),
        name: name.to_owned(),
        input,
        output: None,
        is_error: false,
    };
    let item_ref = str_of(item, "id");
    match str_of(item, "type").unwrap_or_default() {
        "function_call" => {
            // Arguments are a JSON document in a string.
            let args = str_of(item, "arguments").unwrap_or_default();
            let input = serde_json::from_str(args).unwrap_or_else(|_| Value::String(args.into()));
            msgs.tool_call(
                call(str_of(item, "name").unwrap_or_default(), input),
                item_ref,
            );
        }
        "custom_tool_call" => {
            let input = item.get("input").cloned().unwrap_or(Value::Null);
            msgs.tool_call(
                call(str_of(item, "name").unwrap_or_default(), input),
                item_ref,
            );
        }
        "local_shell_call" => {
            let input = item.get("action").cloned().unwrap_or(Value::Null);
            msgs.tool_call(call("shell", input), item_ref);
        }
        "web_search_call" | "tool_search_call" => {
            let name = str_of(item, "type")
                .unwrap_or_default()
                .trim_end_matches("_call");
            let input = item.get("action").cloned().unwrap_or(Value::Null);
            let mut c = call(name, input);
            c.output = str_of(item, "status").map(str::to_owned);
            msgs.tool_call(c, item_ref);
        }
        _ => {
            let (output, is_error) = tool_output(item.get("output").unwrap_or(&Value::Null));
            msgs.tool_result(call_id, output, is_error, item_ref);
        }
    }
}

/// A tool output: a string, `{"content", "success"}`, or a list of content items.
fn tool_output(output: &Value) -> (String, bool) {
    match output {
        Value::Object(o) => {
            let text = content_text(o.get("content").unwrap_or(&Value::Null));
            let failed = o.get("success").and_then(Value::as_bool) == Some(false);
            (text, failed)
        }
        other => (content_text(other), false),
    }
}
