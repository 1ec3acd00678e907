//! Claude Code: `~/.claude/projects/<encoded cwd>/<session id>.jsonl`.

pub mod history;

pub use history::ClaudeReader;

pub mod runtime;

mod approvals;
mod driver;
mod fork;
mod git_bash;
mod harness;
mod launch;
mod paths;
mod process;
mod protocol;
mod seed;
mod trust;
mod usage;
mod version;
mod write_diff;

pub use fork::fork;
pub use git_bash::git_bash_for_claude;
pub use harness::Claude;
pub use runtime::ClaudeRuntime;
pub use version::capabilities;
