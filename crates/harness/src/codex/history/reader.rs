//! The Codex reader: the rollout and the prefixes it inherits, indexed into turns and
//! followed as the live file grows.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use super::scan::{first_meta, scan_line};
use super::text::add_record;
use super::{Kind, Line, Meta, Scanned};
use crate::history::{Appended, History, HistoryError, SessionReader, Turn, TurnAnchor};
use crate::jsonl::follow::{self, Growth};
use crate::jsonl::{self, Span};
use crate::messages::TurnMessages;
use crate::HarnessKind;

/// How deep `history_base` links are followed before giving up (a loop, most likely).
const MAX_BASES: usize = 64;

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
    /// The fingerprint of the last `token_count`'s running total.
    last_total: Option<u64>,
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
            last_total: None,
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
                            && t.records.iter().all(|&r| {
                                let kind = self.records[r as usize].kind;
                                kind.is_user() || kind.is_meta()
                            })
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
                    if let Some(t) = self.add_item(segment, span, kind, turn_id) {
                        first = first.min(t);
                    }
                }
                Line::TokenCount { total } => {
                    // A repeat of the last running total is no new response.
                    if self.last_total.replace(total) != Some(total) {
                        if let Some(t) = self.add_item(segment, span, Kind::TokenCount, None) {
                            first = first.min(t);
                        }
                    }
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

    /// Files a record under its turn; returns the turn, or `None` if the record is dropped.
    fn add_item(
        &mut self,
        segment: u32,
        span: Span,
        kind: Kind,
        turn_id: Option<Box<str>>,
    ) -> Option<usize> {
        let injected = matches!(kind, Kind::InjectedUser | Kind::InjectedAssistant);
        let in_turn = self.current.is_some_and(|c| self.turns[c].explicit);
        if injected && (!self.meta.paginated || in_turn) {
            return None;
        }
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
            // Stray lines between turns belong to the turn before them; bookkeeping before
            // any turn makes none.
            None => match current.or(self.turns.len().checked_sub(1)) {
                Some(c) => c,
                None if kind.is_meta() => return None,
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
        Some(t)
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
            out.push(msgs.into_turn(&self.anchors[i]));
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
        let restart = |reader: &mut Self| {
            *reader = CodexReader::load(&path, reader.resolve.clone())?;
            Ok(follow::restarted(reader.read_to))
        };
        let (file, len) = match follow::check(&path, self.read_to)? {
            Growth::Kept { file, len } => (file, len),
            Growth::Rewritten => return restart(self),
        };
        let start = self.read_to;
        let scanned =
            jsonl::scan(&file, start..len, scan_line).map_err(|e| HistoryError::io(&path, e))?;
        self.read_to = scanned.end;
        let segment = (self.segments.len() - 1) as u32;
        let first = self.apply(segment, scanned.items);
        if self.reload {
            // The first line came only now, and it names an inherited prefix to read first.
            return restart(self);
        }
        Ok(follow::appended(start..scanned.end, first))
    }

    fn turn(&self, index: usize) -> Result<Turn, HistoryError> {
        follow::one_turn(index, self.turns.len(), |r| self.materialize(r))
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
