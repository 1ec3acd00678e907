//! Pi: `~/.pi/agent/sessions/--<cwd>--/<timestamp>_<session id>.jsonl`.

pub mod history;

pub use history::PiReader;

pub mod runtime;

mod answers;
mod dialogs;
mod fork;
mod harness;
mod models;
mod process;
mod protocol;
mod seed;
mod session_files;
mod spare;
mod state;
mod timeouts;
mod tracker;
mod usage;
mod version;

pub use fork::fork;
pub use harness::{help_names_pi, Pi};
pub use runtime::{capabilities, PiRuntime};
