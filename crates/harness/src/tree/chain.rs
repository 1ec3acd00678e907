//! The active branch of a session stored as a tree (Claude records, Pi entries): nodes point
//! at their parent, and the conversation is the chain from the root to one leaf.
//!
//! The chain is kept between reads. Moving the leaf walks up from the new leaf only until it
//! meets the old chain, so following an append costs the appended nodes, not the session.

/// Not on the chain.
const OFF: u32 = u32::MAX;

#[derive(Debug, Default)]
pub(crate) struct Chain {
    /// Node indices, root first.
    nodes: Vec<u32>,
    /// Each node's position in `nodes`, or `OFF`.
    pos: Vec<u32>,
    /// Per-node stamp of the walk that last visited it, to stop at cycles.
    seen: Vec<u32>,
    walk: u32,
}

impl Chain {
    pub fn nodes(&self) -> &[u32] {
        &self.nodes
    }

    /// Make room for nodes `0..count`.
    pub fn grow(&mut self, count: usize) {
        self.pos.resize(count, OFF);
        self.seen.resize(count, 0);
    }

    /// Point the chain at `leaf` (`None`: empty). `parent(n)` resolves a node's parent.
    /// Returns the first chain position whose node changed; positions before it are intact.
    pub fn set_leaf(&mut self, leaf: Option<u32>, parent: impl Fn(u32) -> Option<u32>) -> usize {
        let Some(leaf) = leaf else {
            self.truncate(0);
            return 0;
        };
        self.walk = self.walk.wrapping_add(1).max(1);
        let mut fresh = Vec::new();
        let mut join = 0usize;
        let mut node = Some(leaf);
        while let Some(n) = node {
            let i = n as usize;
            if i >= self.pos.len() || self.seen[i] == self.walk {
                break;
            }
            if self.pos[i] != OFF {
                join = self.pos[i] as usize + 1;
                break;
            }
            self.seen[i] = self.walk;
            fresh.push(n);
            node = parent(n);
        }
        if fresh.is_empty() && join == self.nodes.len() {
            return join;
        }
        self.truncate(join);
        for n in fresh.into_iter().rev() {
            self.pos[n as usize] = self.nodes.len() as u32;
            self.nodes.push(n);
        }
        join
    }

    fn truncate(&mut self, len: usize) {
        for &n in &self.nodes[len.min(self.nodes.len())..] {
            self.pos[n as usize] = OFF;
        }
        self.nodes.truncate(len);
    }
}

/// A turn as a range of chain positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TurnSpan {
    pub start: usize,
    /// The position of the node that opened the turn (`start` if none did).
    pub head: usize,
    pub end: usize,
    opened: bool,
}

/// Re-cut the turns after the chain changed from position `changed` on. Turns that start
/// before it stay, except the last of them, which may have grown; returns the index of the
/// first turn that was re-cut. `opens(node)` says whether a node opens a turn; nodes before
/// the first such node (a session's settings, say) belong to the first turn, and make no turn
/// while there is none.
pub(crate) fn recut(
    turns: &mut Vec<TurnSpan>,
    chain: &[u32],
    changed: usize,
    opens: impl Fn(u32) -> bool,
) -> usize {
    let before = turns.partition_point(|t| t.start < changed);
    let keep = before.saturating_sub(1);
    let from = turns.get(keep).map_or(0, |t| t.start);
    turns.truncate(keep);
    let mut cur: Option<TurnSpan> = None;
    for (p, &n) in chain.iter().enumerate().skip(from) {
        let opening = opens(n);
        match cur.as_mut() {
            Some(t) if !opening => t.end = p + 1,
            Some(t) if !t.opened => {
                t.opened = true;
                t.head = p;
                t.end = p + 1;
            }
            _ => {
                turns.extend(cur.take());
                cur = Some(TurnSpan {
                    start: p,
                    head: p,
                    end: p + 1,
                    opened: opening,
                });
            }
        }
    }
    // Nodes with no opening node after them are not a turn (yet).
    turns.extend(cur.filter(|t| t.opened));
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moving_the_leaf_keeps_the_shared_prefix() {
        // 0 <- 1 <- 2 <- 3, and 1 <- 4 (a branch).
        let parents = [None, Some(0), Some(1), Some(2), Some(1)];
        let mut c = Chain::default();
        c.grow(5);
        assert_eq!(c.set_leaf(Some(3), |n| parents[n as usize]), 0);
        assert_eq!(c.nodes(), [0, 1, 2, 3]);
        assert_eq!(c.set_leaf(Some(4), |n| parents[n as usize]), 2);
        assert_eq!(c.nodes(), [0, 1, 4]);
        assert_eq!(c.set_leaf(Some(1), |n| parents[n as usize]), 2);
        assert_eq!(c.nodes(), [0, 1]);
    }

    #[test]
    fn nodes_before_the_first_opening_join_the_first_turn() {
        let mut turns = Vec::new();
        let opens = |n: u32| n == 2 || n == 4;
        assert_eq!(recut(&mut turns, &[0, 1], 0, opens), 0);
        assert!(turns.is_empty());
        assert_eq!(recut(&mut turns, &[0, 1, 2, 3, 4, 5], 2, opens), 0);
        let cut: Vec<_> = turns.iter().map(|t| (t.start, t.head, t.end)).collect();
        assert_eq!(cut, [(0, 2, 4), (4, 4, 6)]);
        // Growing the chain re-cuts only the last turn.
        assert_eq!(recut(&mut turns, &[0, 1, 2, 3, 4, 5, 6, 2], 6, opens), 1);
        let cut: Vec<_> = turns.iter().map(|t| (t.start, t.head, t.end)).collect();
        assert_eq!(cut, [(0, 2, 4), (4, 4, 7), (7, 7, 8)]);
    }

    #[test]
    fn a_cycle_ends_the_walk() {
        let parents = [Some(1), Some(0)];
        let mut c = Chain::default();
        c.grow(2);
        c.set_leaf(Some(0), |n| parents[n as usize]);
        assert_eq!(c.nodes(), [1, 0]);
    }
}
