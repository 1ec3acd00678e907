//! One client for the harnesses that speak a line protocol over a child's stdio (the Codex
//! app-server's JSON-RPC, Pi's `--mode rpc`): one JSON object per LF-terminated line each way
//! ("The line protocols: Codex app-server and Pi RPC" in `docs/harness-behaviour.md`).
//!
//! What both share lives here: spawning the child in its own process tree
//! ([`crate::process`]), numbering requests and correlating each response with the request
//! waiting for it, timeouts, answering what the server asks the client on the spot, keeping
//! the stderr tail, and reporting once how the process ended. What a line means is the
//! harness's [`Protocol`].
//!
//! A reader task owns the child and its stdout. It routes every line in arrival order,
//! skips a malformed one (never a panic), and when stdout closes (or the child exits and
//! stdout had a moment to drain) reaps the child, kills what is left of its tree, fails
//! every waiting request, and hands the [`ExitReport`] to the caller's handler.

mod child;
mod client;
mod reader;
#[cfg(all(test, unix))]
mod rpc_tests;

pub(crate) use child::RpcChild;
pub(crate) use client::RpcClient;

use serde_json::Value;

/// What a harness's line protocol says, for [`RpcChild`].
pub(crate) trait Protocol: Send + Sync + 'static {
    /// The answer to a request.
    type Response: Send + 'static;
    /// What the server says of its own accord (notifications, session events).
    type Message: Send + 'static;
    /// For logs and errors: "codex app-server", "pi".
    const NAME: &'static str;

    /// The line (LF-terminated) that sends request `id`.
    fn request_line(&self, id: u64, method: &str, params: Value) -> String;
    /// What one stdout line (without its line ending) is.
    fn route(&self, line: &[u8]) -> Routed<Self::Response, Self::Message>;
}

/// One stdout line, sorted.
pub(crate) enum Routed<R, M> {
    /// The answer to request `id` (`None`: an id this client never sent).
    Response {
        id: Option<u64>,
        response: R,
    },
    Message(M),
    /// The server asked the client something: write this line (LF-terminated) back at once.
    Reply(String),
    /// Nothing to act on (the protocol logged why, if it matters).
    Skip,
}

/// What the caller's handler hears, in arrival order; the exit comes once, last.
#[derive(Debug)]
pub(crate) enum Event<M> {
    Message(M),
    Exited(ExitReport),
}

#[derive(Debug, Clone)]
pub(crate) struct ExitReport {
    /// Whether the owner asked for it ([`RpcChild::close`]).
    pub expected: bool,
    /// "exited with code 0", "killed by signal 9 (SIGKILL)", ...
    pub status: String,
    pub stderr_tail: String,
}

/// Why a request got no answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CallError {
    /// The process is gone (or its reader stopped): no answer will come.
    Gone,
    Timeout,
    /// Writing the request failed (stdin closed or broken).
    Write(String),
}

/// A poisoned lock only means another task panicked mid-update; the data is still usable.
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
