//! Pi: `~/.pi/agent/sessions/--<cwd>--/<timestamp>_<session id>.jsonl`.

pub mod history;

pub use history::PiReader;

pub mod runtime;

mod fork;
mod process;
mod protocol;
mod session_files;

pub use runtime::{capabilities, fork, PiRuntime};
