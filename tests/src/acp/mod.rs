//! ACP agents for the tests: the real ones set up against the fake model ([`opencode`]), and a
//! stand-in ([`stand_in`]): a small script speaking the protocol, for the faults real agents
//! cannot be made to show.

pub mod gemini;
pub mod opencode;

use std::path::PathBuf;

/// Writes the stand-in agent into `dir`; its path (run it with `STAND_IN_MODE` = `fork`,
/// `plain`, `crash`, `hang`, `garbage` or `v2`).
pub fn stand_in(dir: &std::path::Path) -> PathBuf {
    let path = dir.join("acp-stand-in");
    forkhost_test_script::write_executable(&path, include_str!("stand_in.py"))
        .expect("the stand-in is written");
    path
}
