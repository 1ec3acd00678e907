//! Claude Code: `~/.claude/projects/<encoded cwd>/<session id>.jsonl`.

pub mod history;

pub use history::ClaudeReader;

pub mod runtime;

mod driver;
mod git_bash;
mod harness;
mod paths;
mod process;
mod protocol;

pub use git_bash::git_bash_for_claude;
pub use harness::Claude;
pub use runtime::{capabilities, fork, ClaudeRuntime};
