//! A branch on its way to another machine (docs/architecture.md "Remote hosts"): the turns of
//! a thread up to a message, as the seed the receiving machine's forkhost writes as a native
//! session of its own harness — the continue-in-another-agent path, across machines. Text
//! travels here because the other machine has no copy of the source's session; nothing of it is
//! stored.

use forkhost_harness::{HarnessKind, Seed};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BranchSeed {
    /// The harness the branch continues in.
    pub harness: HarnessKind,
    /// What the new thread is called: its source and its cut ("Fix the parser · after turn 2").
    pub title: String,
    pub seed: Seed,
}
