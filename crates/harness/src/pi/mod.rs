//! Pi: `~/.pi/agent/sessions/--<cwd>--/<timestamp>_<session id>.jsonl`.

pub mod history;

pub use history::PiReader;

pub mod runtime;

pub use runtime::{capabilities, fork, PiRuntime};
