//! Claude Code: `~/.claude/projects/<encoded cwd>/<session id>.jsonl`.

pub mod history;

pub use history::ClaudeReader;

pub mod runtime;

pub use runtime::{capabilities, fork, ClaudeRuntime};
