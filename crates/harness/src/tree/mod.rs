//! Sessions stored as a tree of records (Claude transcripts, Pi session files): the chain from
//! the root to the leaf ([`chain`]) and the reader both harnesses share ([`reader`]); each
//! harness supplies only its [`TreeFormat`].

mod chain;
mod reader;

pub use reader::{Line, Node, Nodes, Scanned, TreeFormat, TreeReader};
