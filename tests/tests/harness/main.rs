#[cfg(unix)]
mod acp;
#[cfg(unix)]
mod acp_gemini;
#[cfg(unix)]
mod acp_kit;
#[cfg(unix)]
mod acp_opencode;
mod claude;
mod codex;
#[path = "common/mod.rs"]
mod harness_common;
mod pi;
mod smoke;
