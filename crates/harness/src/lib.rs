//! Harness adapters: one module per harness CLI (Claude Code, Codex, Pi).

pub mod kind;

pub use kind::HarnessKind;
