//! Claude Code: `~/.claude/projects/<encoded cwd>/<session id>.jsonl`.

pub mod history;

pub use history::ClaudeReader;

pub mod runtime;

mod driver;
mod paths;
mod process;
mod protocol;

pub use runtime::{capabilities, fork, ClaudeRuntime};
