//! What a Codex runtime and its event pump share about the server: the thread, whether a turn
//! runs, and whether the process died.

/// The runtime's view of the server, shared with the reader task's notification handler.
#[derive(Debug, Default, Clone)]
pub(super) struct State {
    /// Our thread; notifications of other threads (sub-agents) are ignored.
    pub thread_id: Option<String>,
    /// A turn was started and has not reported its end.
    pub running: bool,
    pub turn_id: Option<String>,
    /// The process died unasked: (what happened, its stderr tail).
    pub dead: Option<(String, String)>,
}
