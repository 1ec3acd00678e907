//! The real-CLI scenarios every harness adapter must pass, written once.
//!
//! Zed's `common_e2e_tests!` is the model: a harness file (`harness/claude.rs`, …) implements
//! [`HarnessCase`] for a unit struct (how its binary is found, where its files live, what its
//! fork returns, and the few places where the harnesses truly differ) and invokes
//! [`harness_suite!`], which generates `mod <harness> { #[test] fn <scenario>() … }`. The
//! scenarios live in [`scenarios`], the kit they are built from in [`kit`]. Test names carry
//! the harness's name (`claude::forks_cut_at_turn_boundaries…`), which `scripts/test.sh`'s
//! newest-version rerun filters on and the tally (`forkhost_tests::need`) records.
//!
//! Each test binary compiles this whole module but calls only its harness's hooks, so a helper
//! one harness file uses is dead code in the others.
#![allow(dead_code)]

pub mod folders;
pub mod kit;
pub mod scenarios;
pub mod usage;

use std::path::PathBuf;
use std::time::Duration;

use forkhost_harness::{
    binary, Cut, Forked, HarnessBinary, HarnessError, HarnessKind, NativeSession, TurnAnchor,
};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use serde_json::Value;

pub use kit::{Live, Setup, TurnLog};

/// A fork the harness refuses with a typed error: of the source with these `anchors`, at `cut`.
pub struct Refusal {
    pub what: &'static str,
    pub anchors: Vec<TurnAnchor>,
    pub cut: Cut,
    pub is: fn(&HarnessError) -> bool,
}

impl Refusal {
    /// Refused as `TurnNotFound`.
    pub fn turn(what: &'static str, anchors: &[TurnAnchor], cut: Cut) -> Refusal {
        let anchors = anchors.to_vec();
        let is = turn_not_found;
        Refusal {
            what,
            anchors,
            cut,
            is,
        }
    }

    /// Refused as `CheckpointNotFound`.
    pub fn checkpoint(what: &'static str, anchors: Vec<TurnAnchor>, cut: Cut) -> Refusal {
        let is = checkpoint_not_found;
        Refusal {
            what,
            anchors,
            cut,
            is,
        }
    }
}

/// One harness under test: its facts, and a hook where a scenario's check differs by harness.
///
/// Each constant says what is true of that harness's CLI; a hook's default is the common case.
#[allow(async_fn_in_trait)] // only ever used with a concrete type, never across threads
pub trait HarnessCase: Sized + 'static {
    const HARNESS: Harness;
    const KIND: HarnessKind = kind_of(Self::HARNESS);
    /// Per await on the CLI (a cold start on a loaded 2-core machine takes a few seconds).
    const TIMEOUT: Duration;
    /// Where the CLI keeps its session files, under the (temporary) HOME.
    const SESSIONS_DIR: &'static str;
    /// Whether only `.jsonl` files under [`Self::SESSIONS_DIR`] count as session files.
    const SESSION_FILES_ARE_JSONL: bool = true;
    /// Whether session files are kept in one folder per cwd (else by date).
    const SESSION_FOLDER_PER_CWD: bool = true;
    /// Whether a runtime's first event names its session (else its first turn does).
    const SESSION_AT_OPEN: bool;
    /// Whether the reader's plain turn holds the user and assistant messages and nothing else.
    const PLAIN_TURN_IS_DIALOGUE_ONLY: bool = false;
    /// Whether the source stays open (idle) while it is forked.
    const FORK_WHILE_SOURCE_OPEN: bool = false;
    /// Whether the transcript holds a finished turn while the runtime is still open (else the
    /// scenarios read it back only after closing).
    const SETTLED_BEFORE_CLOSE: bool = true;
    /// The cuts of the source of three turns: (name, cut, turns the fork keeps).
    const FORK_CASES: &'static [(&'static str, Cut, usize)] = &[
        ("after turn 1", Cut::After(0), 1),
        ("before turn 2", Cut::Before(1), 1),
        ("before turn 1", Cut::Before(0), 0),
        ("latest", Cut::After(2), 3),
    ];
    /// The cuts of the "after turn 1" fork once it has four turns.
    const FORK_OF_FORK_CASES: &'static [(&'static str, Cut, usize)] =
        &[("fork of a fork", Cut::After(1), 2)];
    /// Whether the native fork call runs the CLI (an eager fork) rather than only checking the
    /// source (a lazy fork, which the first prompt makes).
    const FORK_RUNS_THE_CLI: bool = true;
    /// The name of the shell tool in events.
    const SHELL_TOOL: &'static str;
    /// Whether the transcript names the shell tool as the events do.
    const READER_NAMES_THE_SHELL_TOOL: bool = true;
    /// Whether a tool turn's reply quotes the tool's output exactly (`… (tool result: tool-ok)`).
    const TOOL_REPLY_EXACT: bool = true;
    /// Whether the reader's tool output is exactly `tool-ok`.
    const TOOL_OUTPUT_EXACT: bool = false;
    /// Whether a tool turn reads back as exactly user, tool, assistant.
    const TOOL_TURN_IS_USER_TOOL_ASSISTANT: bool = false;
    /// A version below the oldest verified one, if the harness has verified versions to refuse.
    const OLD_VERSION: Option<&'static str> = None;
    /// Whether a turn the CLI dies in ends as failed just before `Exited` (else no `TurnEnded`).
    const KILLED_TURN_ENDS_FAILED: bool = true;
    /// What `Exited`'s error says when the CLI was killed.
    const KILLED_EXIT_SAYS: &'static str = "signal 9";
    /// What the next send's `HarnessFailed` message says then.
    const KILLED_SEND_SAYS: &'static str;
    /// Whether the harness prices a turn (a cost in its usage report).
    const PRICES_A_TURN: bool = false;
    /// Whether closing mid-turn reports that turn as interrupted.
    const CLOSE_MID_TURN_ENDS_THE_TURN: bool = false;
    /// Whether closing mid-turn leaves the turn closed in the transcript, and forkable.
    const CLOSE_MID_TURN_LEAVES_A_FORKABLE_TURN: bool = false;
    /// The cuts whose fork call is timed, and how many runs each.
    const TIMED_FORKS: &'static [(&'static str, Cut)];
    const TIMED_RUNS: usize = 5;

    /// The binary and its version.
    async fn binary(_env: &HarnessEnv) -> HarnessBinary {
        binary::probe(Self::KIND)
            .await
            .unwrap_or_else(|e| panic!("{} runs: {e:?}", Self::HARNESS.bin_var()))
    }

    /// A new session as its `Session` event named it, and the session files there were
    /// before its first prompt.
    fn check_new_session(_session: &NativeSession, _files_before_first_prompt: &[PathBuf]) {}

    /// What the fork call `name` returned, before anything runs in the fork; it keeps `kept`
    /// turns of `source`, whose anchors are `anchors`.
    fn check_forked(
        name: &str,
        forked: &Forked,
        source: &NativeSession,
        anchors: &[TurnAnchor],
        kept: usize,
    );

    /// A fork's first turn, in `live` opened on `forked`.
    fn check_fork_turn(_forked: &Forked, _live: &Live, _log: &TurnLog, _kept: usize) {}

    /// The shell tool's input for `echo tool-ok`.
    fn check_tool_input(input: &Value) {
        assert_eq!(input["command"], "echo tool-ok", "{input}");
    }

    /// The reply to "after the interrupt", the turn after an interrupted one.
    fn check_reply_after_interrupt(text: &str);

    /// The model's view after that turn (`slow` was the interrupted prompt).
    fn check_dialogue_after_interrupt(_dialogue: &[forkhost_tests::fake_model::Msg], _slow: &str) {}

    /// Sessions that do not exist, each refused by open (and by fork, where the flag says so).
    fn unknown_sessions(s: &Setup<Self>, source: &NativeSession) -> Vec<(NativeSession, bool)>;

    /// The prompts of the source the error scenario forks.
    fn error_source() -> &'static [&'static str];

    /// Forks of that source the harness refuses.
    fn refusals(anchors: &[TurnAnchor]) -> Vec<Refusal>;

    /// The harness's own error cases, on the same source.
    async fn more_errors(_s: &Setup<Self>, _source: &NativeSession, _anchors: &[TurnAnchor]) {}
}

/// The adapter's name for a harness of the test kit.
pub const fn kind_of(harness: Harness) -> HarnessKind {
    match harness {
        Harness::Claude => HarnessKind::Claude,
        Harness::Codex => HarnessKind::Codex,
        Harness::Pi => HarnessKind::Pi,
        Harness::Opencode => HarnessKind::Opencode,
    }
}

/// `HarnessError::SessionNotFound`, as a [`Refusal`] check.
pub fn session_not_found(e: &HarnessError) -> bool {
    matches!(e, HarnessError::SessionNotFound(_))
}

/// `HarnessError::TurnNotFound`, as a [`Refusal`] check.
pub fn turn_not_found(e: &HarnessError) -> bool {
    matches!(e, HarnessError::TurnNotFound(_))
}

/// `HarnessError::CheckpointNotFound`, as a [`Refusal`] check.
pub fn checkpoint_not_found(e: &HarnessError) -> bool {
    matches!(e, HarnessError::CheckpointNotFound(_))
}

/// The shared scenarios as tests of one harness: `harness_suite!(claude: Claude, tokio::test)`
/// in `harness/claude.rs` gives `claude::new_session_three_turns_match_the_reader`, …; the
/// last argument is the test attribute (a runtime flavor, if the harness needs one).
macro_rules! harness_suite {
    ($name:ident: $case:ident, $test:meta) => {
        mod $name {
            use crate::harness_common::scenarios;

            /// A new session, three turns: events, the reader's turns and anchors, what the
            /// model saw, and a clean close.
            #[$test]
            async fn new_session_three_turns_match_the_reader() {
                scenarios::new_session_three_turns_match_the_reader::<super::$case>().await
            }

            /// Forks at every boundary, a turn in each, a fork of a fork: the model sees
            /// exactly the history up to the cut, and no source changes by a byte.
            #[$test]
            async fn forks_cut_at_turn_boundaries_and_leave_the_source_alone() {
                scenarios::forks_cut_at_turn_boundaries_and_leave_the_source_alone::<super::$case>()
                    .await
            }

            /// A tool round trip streams the call then its result, and reads back as a tool
            /// message of that turn.
            #[$test]
            async fn tool_call_turn_streams_and_reads_back() {
                scenarios::tool_call_turn_streams_and_reads_back::<super::$case>().await
            }

            /// Unknown sessions and checkpoints, bad cuts, a missing binary and an old version
            /// are typed errors, and none leaves a native file behind.
            #[$test]
            async fn errors_are_typed_and_leave_nothing_behind() {
                scenarios::errors_are_typed_and_leave_nothing_behind::<super::$case>().await
            }

            /// The CLI killed mid-turn: `Exited` carries the error, the next send answers
            /// `HarnessFailed`, nothing is left running. (Unix: it kills with SIGKILL.)
            #[cfg(unix)]
            #[$test]
            async fn a_killed_harness_is_reported() {
                scenarios::a_killed_harness_is_reported::<super::$case>().await
            }

            /// An interrupted turn ends as `Interrupted` (a send meanwhile is `Busy`), and
            /// the runtime takes the next prompt.
            #[$test]
            async fn interrupt_ends_the_turn_and_the_runtime_goes_on() {
                scenarios::interrupt_ends_the_turn_and_the_runtime_goes_on::<super::$case>().await
            }

            /// Closing mid-turn: a clean `Exited`, and no process left.
            #[$test]
            async fn close_mid_turn_is_clean() {
                scenarios::close_mid_turn_is_clean::<super::$case>().await
            }

            /// A fork into another folder (a worktree): its session runs and resumes
            /// there, with exactly the kept history, and the source is not written.
            #[$test]
            async fn fork_into_another_folder_runs_and_resumes_there() {
                crate::harness_common::folders::fork_into_another_folder_runs_and_resumes_there::<
                    super::$case,
                >()
                .await
            }

            /// A turn's usage is the tokens the model reported, summed over its calls.
            #[$test]
            async fn turn_usage_is_what_the_model_reported() {
                crate::harness_common::usage::turn_usage_is_what_the_model_reported::<super::$case>(
                )
                .await
            }

            /// The session file, read back, holds each turn's tokens as the model served
            /// them, each model call once.
            #[$test]
            async fn transcript_usage_is_what_the_model_served() {
                crate::harness_common::usage::transcript_usage_is_what_the_model_served::<
                    super::$case,
                >()
                .await
            }

            /// The native fork call's wall time. Printed, never asserted.
            #[$test]
            async fn fork_wall_time() {
                scenarios::fork_wall_time::<super::$case>().await
            }

            /// A fork in a warm spare (where the harness has them) makes exactly the cold
            /// fork's session, leaves the source alone, and the spare then runs the fork;
            /// warm fork times printed beside the cold ones.
            #[$test]
            async fn warm_spares_fork_like_the_cold_path() {
                scenarios::warm_spares_fork_like_the_cold_path::<super::$case>().await
            }
        }
    };
}
pub(crate) use harness_suite;
