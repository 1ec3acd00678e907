#[cfg(unix)]
mod acp;
mod claude;
mod codex;
#[path = "common/mod.rs"]
mod harness_common;
mod pi;
mod smoke;
