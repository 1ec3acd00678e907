//! What a client and `forkhost serve` say to each other: one JSON document per line, each
//! way. The calls are a few of the Host's own methods with their own argument types; the
//! events are [`HostEvent`]s numbered by the daemon ([`Entry`]). A client opens with
//! [`Call::Hello`] and a daemon of another protocol or version refuses in words
//! (`version_mismatch`) before anything else runs.

use serde::{Deserialize, Serialize};

use crate::base::error::{ErrorCode, HostError};
use crate::base::events::{HostEvent, TurnEnd};
use crate::base::fork_point::ForkAt;
use crate::base::fork_point::TurnRef;
use crate::base::grant_scope::GrantView;
use crate::base::harnesses::HarnessReport;
use crate::base::view::TrustView;
use crate::base::view::{ApprovalView, ThreadDetail, ThreadView};
use crate::cost::TreeCost;
use crate::files::CheckCommandView;
use crate::files::{ChangesView, FilesView, WorktreeLoss};
use crate::race::keep::{KeepPlan, KeptView};
use crate::race::{LaneSpec, RaceLane, RaceSpec, RaceView};
use crate::rewind::{RewindKind, RewindPlan, RewindView, RewoundView};
use crate::search::{SearchQuery, SearchResults};
use crate::thread::export::ExportFormat;
use crate::thread::terminal::TerminalCommand;
use forkhost_harness::{ApprovalDecision, HarnessKind, PermissionMode};

/// The wire's version: a daemon refuses a client of another one.
pub const PROTOCOL: u32 = 5;

/// A client's request, numbered by the client (`id`); the daemon answers each with a
/// [`ServerMessage::Reply`] of the same number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    pub id: u64,
    #[serde(flatten)]
    pub call: Call,
}

/// The calls a daemon answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "call", rename_all = "snake_case")]
pub enum Call {
    /// First on every connection: the client's forkhost version and wire protocol.
    Hello {
        version: String,
        protocol: u32,
    },
    /// The journal's entries of `thread` (every thread's when `None`) after `since`, then each
    /// new one as it comes. `since: None`: from the start of the thread's latest turn the
    /// journal holds (a client that comes back without a number sees the whole reply).
    Subscribe {
        thread: Option<String>,
        since: Option<u64>,
    },
    /// Starts a turn; its events follow on the subscription, its end as [`Item::TurnFinished`].
    StartTurn {
        thread: String,
        prompt: String,
        /// Whether the thread's session grants may answer its requests (`--approve none`: no).
        session_grants: bool,
    },
    Interrupt {
        thread: String,
    },
    AnswerApproval {
        thread: String,
        request: String,
        decision: ApprovalDecision,
    },
    AnswerQuestion {
        thread: String,
        request: String,
        answers: Option<Vec<String>>,
    },
    /// The requests of `thread` still waiting for an answer.
    PendingApprovals {
        thread: String,
    },
    Show {
        thread: String,
    },
    /// Changes the thread's permission mode (from its runtime's next start).
    SetMode {
        thread: String,
        permissions: PermissionMode,
    },
    /// The thread's session grants ("Always this session"), oldest first.
    SessionGrants {
        thread: String,
    },
    RevokeGrant {
        thread: String,
        grant: String,
    },
    Rename {
        thread: String,
        title: String,
    },
    Archive {
        thread: String,
        archived: bool,
    },
    /// The thread's branch up to `to` (its end when `None`), as `format` writes it.
    Export {
        thread: String,
        to: Option<TurnRef>,
        format: ExportFormat,
    },
    /// What rewinding the thread to `to` would write back, delete and lose.
    RewindPlan {
        thread: String,
        to: TurnRef,
        kind: RewindKind,
    },
    /// Rewinds the thread to `to`, the loss the user accepted as the plan showed it.
    Rewind {
        thread: String,
        to: TurnRef,
        kind: RewindKind,
        accepted_loss: Option<Vec<String>>,
    },
    UndoRewind {
        thread: String,
    },
    /// The thread's rewinds, newest first.
    Rewinds {
        thread: String,
    },
    /// What every branch of the thread's tree cost.
    TreeCost {
        thread: String,
    },
    /// A new thread of `harness` in `cwd`, a folder of the daemon's machine (`~/…` is its
    /// user's home); answered with its detail, as `Show`.
    Create {
        harness: HarnessKind,
        cwd: String,
        title: Option<String>,
        permissions: PermissionMode,
    },
    /// The thread's folder (worktree or folder, in git) and its checkpoints.
    Files {
        thread: String,
    },
    /// `other` `None`: a worktree fork's changes since its fork point; else the two threads'
    /// current files (both of this host).
    Changes {
        thread: String,
        other: Option<String>,
    },
    /// Bring back: the fork's changes since its fork point applied to the target's folder
    /// (both of this host); answered with what was applied, as `Changes`.
    BringBack {
        fork: String,
        target: String,
    },
    /// What removing the thread's worktree would lose now.
    WorktreeLoss {
        thread: String,
    },
    /// Removes the thread's worktree; `accepted` is the loss the user was shown (refused as
    /// `conflict` when there is more to lose now).
    RemoveWorktree {
        thread: String,
        accepted: Option<WorktreeLoss>,
    },
    /// A folder's trust on the daemon's machine (`~/…` its user's home): its root, the
    /// project agent config there, the decision — judged on that machine's files.
    FolderTrust {
        folder: String,
    },
    /// Records the decision for the folder's root; `shown` is the digest of the view the
    /// user decided on (config that changed since is `conflict`).
    SetFolderTrust {
        folder: String,
        trusted: bool,
        shown: Option<String>,
    },
    /// Searches the daemon's threads and the sessions on its machine.
    Search {
        query: SearchQuery,
    },
    /// Hands the thread's session to its harness's own TUI (`forkhost terminal`): its
    /// structured runtime stops and turns are refused until [`Call::ReleaseTerminal`] — or
    /// until this connection ends, so a TUI whose terminal went away (a dropped ssh) never
    /// holds the thread for ever. Answered with what to run.
    OpenTerminal {
        thread: String,
    },
    /// The TUI ended: the thread's runtime may run again, and what the TUI wrote is read.
    ReleaseTerminal {
        thread: String,
    },
    /// The harnesses on the daemon's machine, as its `doctor` finds them (versions, sign-in,
    /// what each can fork, how to install it there).
    Doctor,
    /// The models the thread's harness offers (a race lane's choice).
    Models {
        thread: String,
    },
    /// The check command of the thread's repository there, and whether exactly it was
    /// approved; with `command`, saved first (`SetCheckCommand`).
    CheckCommand {
        thread: String,
    },
    SetCheckCommand {
        thread: String,
        command: Option<String>,
    },
    /// Starts a race from `race.source` there; answered once it started (what the Host would
    /// refuse at once is the answer). Its lanes come as [`Item::RaceLane`] entries of the
    /// source thread, its end as [`Item::RaceEnded`], each carrying `run`, the client's name
    /// for it. A check command runs only as the user was shown it: it is approved there,
    /// exactly so, before the race starts.
    StartRace {
        run: String,
        race: Box<RaceCall>,
    },
    /// What keeping the race lane `lane` would bring back and discard.
    KeepPlan {
        lane: String,
    },
    /// Keeps `lane`, the loss the user was shown (`accepted`).
    Keep {
        lane: String,
        accepted: Box<KeepPlan>,
    },
}

/// A race as a client asks for it (`RaceSpec` without what only this machine sets).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RaceCall {
    pub source: String,
    pub at: ForkAt,
    pub lanes: Vec<LaneSpec>,
    pub prompt: String,
    pub shared_folder: bool,
    pub max_parallel: Option<usize>,
    pub check: Option<String>,
    pub budget_usd: Option<f64>,
}

impl From<RaceSpec> for RaceCall {
    /// The race as another machine's daemon takes it (what only this machine sets stays here).
    fn from(spec: RaceSpec) -> RaceCall {
        RaceCall {
            source: spec.source,
            at: spec.at,
            lanes: spec.lanes,
            prompt: spec.prompt,
            shared_folder: spec.shared_folder,
            max_parallel: spec.max_parallel,
            check: spec.check,
            budget_usd: spec.budget_usd,
        }
    }
}

impl From<RaceCall> for RaceSpec {
    fn from(call: RaceCall) -> RaceSpec {
        RaceSpec {
            source: call.source,
            at: call.at,
            lanes: call.lanes,
            prompt: call.prompt,
            shared_folder: call.shared_folder,
            max_parallel: call.max_parallel,
            approve: None,
            check: call.check,
            check_timeout: None,
            budget_usd: call.budget_usd,
        }
    }
}

/// What a call returned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Returned {
    Hello {
        version: String,
        protocol: u32,
        /// Changes each time a daemon starts: a client's `since` from another boot means
        /// nothing here, and it subscribes from the start instead.
        boot: String,
        /// The daemon's newest entry number.
        last_seq: u64,
    },
    Done,
    Subscribed {
        /// The entries before the first one kept were dropped (the journal is bounded): the
        /// client re-reads the thread instead of trusting the replay to be whole.
        gap: bool,
        /// How many entries the replay holds: they come first, the live ones after them.
        replayed: usize,
    },
    Pending {
        requests: Vec<ApprovalView>,
    },
    Thread {
        detail: Box<ThreadDetail>,
    },
    /// A thread's row as it is now (after a change).
    View {
        thread: Box<ThreadView>,
    },
    Grants {
        grants: Vec<GrantView>,
    },
    Text {
        text: String,
    },
    RewindPlan {
        plan: Box<RewindPlan>,
    },
    Rewound {
        rewound: Box<RewoundView>,
    },
    Rewinds {
        rewinds: Vec<RewindView>,
    },
    TreeCost {
        cost: Box<TreeCost>,
    },
    Files {
        files: Box<FilesView>,
    },
    Changes {
        changes: Box<ChangesView>,
    },
    WorktreeLoss {
        loss: Box<WorktreeLoss>,
    },
    Trust {
        trust: Box<TrustView>,
    },
    Search {
        results: Box<SearchResults>,
    },
    Terminal {
        command: Box<TerminalCommand>,
    },
    Harnesses {
        harnesses: Vec<HarnessReport>,
    },
    Models {
        models: Vec<String>,
    },
    CheckCommand {
        check: Box<CheckCommandView>,
    },
    KeepPlan {
        plan: Box<KeepPlan>,
    },
    Kept {
        kept: Box<KeptView>,
    },
}

/// A failed call, as the Host said it: its code and words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WireError {
    pub code: ErrorCode,
    pub message: String,
}

impl From<&HostError> for WireError {
    fn from(err: &HostError) -> Self {
        WireError {
            code: err.error_code(),
            message: err.to_string(),
        }
    }
}

impl From<WireError> for HostError {
    fn from(err: WireError) -> Self {
        HostError::Reported {
            code: err.code,
            message: err.message,
        }
    }
}

/// One journal entry: a number that only grows, and what happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub seq: u64,
    #[serde(flatten)]
    pub item: Item,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum Item {
    Event {
        event: HostEvent,
    },
    /// A turn the daemon started has ended (after its last event): how, and the failure's
    /// words.
    TurnFinished {
        thread_id: String,
        end: TurnEnd,
        message: Option<String>,
    },
    /// A lane of the race `run` (started by [`Call::StartRace`] from `source`) changed.
    RaceLane {
        run: String,
        source: String,
        lane: Box<RaceLane>,
    },
    /// The race `run` ended: every lane's turn, or why it could not run.
    RaceEnded {
        run: String,
        source: String,
        race: Option<Box<RaceView>>,
        error: Option<String>,
    },
}

impl Item {
    /// The thread whose subscription carries it (a race's: its source's).
    pub fn thread_id(&self) -> &str {
        match self {
            Item::Event { event } => event.thread_id(),
            Item::TurnFinished { thread_id, .. } => thread_id,
            Item::RaceLane { source, .. } | Item::RaceEnded { source, .. } => source,
        }
    }

    /// Where a turn's entries begin.
    pub fn starts_turn(&self) -> bool {
        matches!(
            self,
            Item::Event {
                event: HostEvent::TurnStarted { .. }
            }
        )
    }
}

/// What the daemon sends: an answer to a call, or an entry of a subscription.
/// (Its tag is `kind`: an entry's own fields — a turn's `message` — sit beside it.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ServerMessage {
    Reply {
        id: u64,
        result: Result<Returned, WireError>,
    },
    Entry {
        #[serde(flatten)]
        entry: Entry,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_and_an_entry_read_back_as_written() {
        let request = Request {
            id: 7,
            call: Call::AnswerApproval {
                thread: "t".into(),
                request: "r".into(),
                decision: ApprovalDecision::ApproveForSession,
            },
        };
        let line = serde_json::to_string(&request).unwrap();
        assert_eq!(serde_json::from_str::<Request>(&line).unwrap(), request);

        let message = ServerMessage::Entry {
            entry: Entry {
                seq: 3,
                item: Item::Event {
                    event: HostEvent::TextDelta {
                        thread_id: "t".into(),
                        text: "hi".into(),
                    },
                },
            },
        };
        let line = serde_json::to_string(&message).unwrap();
        assert_eq!(
            serde_json::from_str::<ServerMessage>(&line).unwrap(),
            message
        );
        let finished = ServerMessage::Entry {
            entry: Entry {
                seq: 4,
                item: Item::TurnFinished {
                    thread_id: "t".into(),
                    end: TurnEnd::Failed,
                    message: Some("the words".into()),
                },
            },
        };
        let line = serde_json::to_string(&finished).unwrap();
        assert_eq!(
            serde_json::from_str::<ServerMessage>(&line).unwrap(),
            finished
        );

        let failed = ServerMessage::Reply {
            id: 1,
            result: Err(WireError::from(&HostError::Busy("a turn runs".into()))),
        };
        let line = serde_json::to_string(&failed).unwrap();
        assert_eq!(
            serde_json::from_str::<ServerMessage>(&line).unwrap(),
            failed
        );
    }
}
