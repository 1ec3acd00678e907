//! The reader of a session stored as a tree, whatever the harness: index the file's records
//! (their ids, parents and kinds, no text), follow the chain to the leaf, cut it into turns,
//! and materialize a turn's messages on demand. What differs per harness (how a line is
//! scanned, which record opens or ends a turn, where the leaf is, how a record reads as
//! messages) is its [`TreeFormat`].

use std::fmt::Debug;
use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use serde_json::Value;

use super::chain::{recut, Chain, TurnSpan};
use crate::history::{Appended, History, HistoryError, SessionReader, Turn, TurnAnchor};
use crate::jsonl::follow::{self, Growth};
use crate::jsonl::{self, Span};
use crate::messages::TurnMessages;
use crate::HarnessKind;

/// What one harness's tree file looks like to [`TreeReader`].
pub trait TreeFormat: Default + Debug + Send + Sync + 'static {
    /// What the index keeps of a record's content: enough to cut turns and anchor them.
    type Kind: Copy + Eq + Debug + Send + Sync;
    /// A line that is not a node of the tree (Claude's `last-prompt`, Pi's header).
    type Note: Send;
    const HARNESS: HarnessKind;
    /// Whether the leaf is always the last node read (Pi): then a read that added no node
    /// changes no turn.
    const LEAF_IS_LAST: bool = false;

    /// The index pass over one line (type, ids, the shape of the content; never the text).
    fn scan_line(line: &[u8], span: Span) -> Option<Line<Self::Kind, Self::Note>>;
    /// Keep what a note says.
    fn note(&mut self, note: Self::Note);
    /// The leaf after a read, given `last`: the last node read that is not on a side chain.
    fn leaf(&self, _nodes: &Nodes<Self::Kind>, last: Option<u32>) -> Option<u32> {
        last
    }
    fn opens_turn(kind: Self::Kind) -> bool;
    /// Whether a node of this kind is where a fork after its turn can cut.
    fn is_checkpoint(kind: Self::Kind) -> bool;
    /// Whether the turn is over if this is its last telling node (`None`: not telling).
    fn ends_turn(kind: Self::Kind) -> Option<bool>;
    /// The text pass over one node: turn it into messages.
    fn add_messages(msgs: &mut TurnMessages, node: &Node<Self::Kind>, line: &Value);
    /// The session's id; `path` is the file read.
    fn session_id<'a>(&'a self, path: &'a Path) -> Option<&'a str>;
    /// What the file records as the session it was forked from.
    fn forked_from(&self) -> Option<&str> {
        None
    }
}

/// One scanned line.
pub enum Line<K, N> {
    Node(Scanned<K>),
    Note(N),
}

/// A node as the index pass found it, its parent not yet resolved.
pub struct Scanned<K> {
    pub span: Span,
    pub id: Box<str>,
    pub parent: Option<Box<str>>,
    pub kind: K,
    /// On a side chain (a Claude subagent's records): never the leaf.
    pub side: bool,
}

/// No parent (a root, or a parent that is not in the file).
const ROOT: u32 = u32::MAX;

#[derive(Debug)]
pub struct Node<K> {
    pub span: Span,
    pub id: Box<str>,
    /// The parent's index, resolved when the node is read: nodes follow their parent in the
    /// file, and resolving in file order gives the same tree however the file was read.
    parent: u32,
    pub kind: K,
}

/// Every node read so far, in file order, and where each id is.
#[derive(Debug)]
pub struct Nodes<K> {
    nodes: Vec<Node<K>>,
    by_id: FxHashMap<Box<str>, u32>,
}

impl<K> Nodes<K> {
    pub fn get(&self, n: u32) -> &Node<K> {
        &self.nodes[n as usize]
    }

    pub fn find(&self, id: &str) -> Option<u32> {
        self.by_id.get(id).copied()
    }

    fn add(&mut self, s: Scanned<K>) {
        let n = self.nodes.len() as u32;
        let parent = s.parent.and_then(|p| self.find(&p));
        self.by_id.insert(s.id.clone(), n);
        self.nodes.push(Node {
            span: s.span,
            id: s.id,
            parent: parent.unwrap_or(ROOT),
            kind: s.kind,
        });
    }

    fn parent(&self, n: u32) -> Option<u32> {
        Some(self.get(n).parent).filter(|&p| p != ROOT)
    }
}

/// A tree session file, indexed and followed as it grows.
#[derive(Debug)]
pub struct TreeReader<F: TreeFormat> {
    path: PathBuf,
    read_to: u64,
    format: F,
    nodes: Nodes<F::Kind>,
    /// The last node read that is not on a side chain.
    last: Option<u32>,
    chain: Chain,
    turns: Vec<TurnSpan>,
    anchors: Vec<TurnAnchor>,
}

impl<F: TreeFormat> TreeReader<F> {
    pub fn open(path: impl AsRef<Path>) -> Result<Self, HistoryError> {
        let mut reader = TreeReader {
            path: path.as_ref().to_owned(),
            read_to: 0,
            format: F::default(),
            nodes: Nodes {
                nodes: Vec::new(),
                by_id: FxHashMap::default(),
            },
            last: None,
            chain: Chain::default(),
            turns: Vec::new(),
            anchors: Vec::new(),
        };
        reader.read_appended()?;
        Ok(reader)
    }

    /// The session id (Claude: the file's name, which `--resume` takes; Pi: the header's).
    pub fn session_id(&self) -> Option<&str> {
        self.format.session_id(&self.path)
    }

    pub(crate) fn format(&self) -> &F {
        &self.format
    }

    fn apply(&mut self, lines: Vec<Line<F::Kind, F::Note>>) -> usize {
        let before = self.nodes.nodes.len();
        self.nodes.nodes.reserve(lines.len());
        self.nodes.by_id.reserve(lines.len());
        for line in lines {
            match line {
                Line::Node(s) => {
                    if !s.side {
                        self.last = Some(self.nodes.nodes.len() as u32);
                    }
                    self.nodes.add(s);
                }
                Line::Note(note) => self.format.note(note),
            }
        }
        if F::LEAF_IS_LAST && self.nodes.nodes.len() == before && !self.turns.is_empty() {
            return self.turns.len();
        }
        let leaf = self.format.leaf(&self.nodes, self.last);
        self.chain.grow(self.nodes.nodes.len());
        let nodes = &self.nodes;
        let changed = self.chain.set_leaf(leaf, |n| nodes.parent(n));
        let first = recut(&mut self.turns, self.chain.nodes(), changed, |n| {
            F::opens_turn(nodes.get(n).kind)
        });
        self.anchors.truncate(first);
        for i in first..self.turns.len() {
            let anchor = self.anchor(i);
            self.anchors.push(anchor);
        }
        first
    }

    fn turn_nodes(&self, i: usize) -> impl DoubleEndedIterator<Item = &Node<F::Kind>> {
        let t = self.turns[i];
        self.chain.nodes()[t.start..t.end]
            .iter()
            .map(|&n| self.nodes.get(n))
    }

    fn anchor(&self, i: usize) -> TurnAnchor {
        let head = self.chain.nodes()[self.turns[i].head];
        let checkpoint = self
            .turn_nodes(i)
            .rev()
            .find(|n| F::is_checkpoint(n.kind))
            .map(|n| n.id.to_string());
        let complete = i + 1 < self.turns.len()
            || self
                .turn_nodes(i)
                .rev()
                .find_map(|n| F::ends_turn(n.kind))
                .unwrap_or(false);
        TurnAnchor {
            native_turn_ref: self.nodes.get(head).id.to_string(),
            native_checkpoint_ref: checkpoint,
            complete,
        }
    }

    fn materialize(&self, turns: Range<usize>) -> Result<Vec<Turn>, HistoryError> {
        let Some(last) = turns.end.checked_sub(1) else {
            return Ok(Vec::new());
        };
        let (from, to) = (self.turns[turns.start].start, self.turns[last].end);
        let chain = &self.chain.nodes()[from..to];
        let spans: Vec<Span> = chain.iter().map(|&n| self.nodes.get(n).span).collect();
        let mut out = Vec::with_capacity(turns.len());
        let mut t = turns.start;
        let mut msgs = TurnMessages::default();
        let file = File::open(&self.path).map_err(|e| HistoryError::io(&self.path, e))?;
        jsonl::read_spans(&file, &spans, &mut |k, bytes| {
            while from + k >= self.turns[t].end {
                out.push(std::mem::take(&mut msgs).into_turn(&self.anchors[t]));
                t += 1;
            }
            if let Some(v) = jsonl::parse_line(bytes) {
                F::add_messages(&mut msgs, self.nodes.get(chain[k]), &v);
            }
        })
        .map_err(|e| HistoryError::io(&self.path, e))?;
        while t < turns.end {
            out.push(std::mem::take(&mut msgs).into_turn(&self.anchors[t]));
            t += 1;
        }
        Ok(out)
    }
}

impl<F: TreeFormat> SessionReader for TreeReader<F> {
    fn kind(&self) -> HarnessKind {
        F::HARNESS
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
        Some(&self.nodes.get(n).id)
    }

    fn read_appended(&mut self) -> Result<Appended, HistoryError> {
        let (file, len) = match follow::check(&self.path, self.read_to)? {
            Growth::Kept { file, len } => (file, len),
            Growth::Rewritten => {
                *self = TreeReader::open(&self.path)?;
                return Ok(follow::restarted(self.read_to));
            }
        };
        let start = self.read_to;
        let scanned = jsonl::scan(&file, start..len, F::scan_line)
            .map_err(|e| HistoryError::io(&self.path, e))?;
        self.read_to = scanned.end;
        let first = self.apply(scanned.items);
        Ok(follow::appended(start..scanned.end, first))
    }

    fn turn(&self, index: usize) -> Result<Turn, HistoryError> {
        follow::one_turn(index, self.turns.len(), |r| self.materialize(r))
    }

    fn history(&self) -> Result<History, HistoryError> {
        Ok(History {
            harness: F::HARNESS,
            session_id: self.session_id().map(str::to_owned),
            forked_from: self.format.forked_from().map(str::to_owned),
            turns: self.materialize(0..self.turns.len())?,
            leaf: self.leaf().map(str::to_owned),
            read_to: self.read_to,
        })
    }
}
