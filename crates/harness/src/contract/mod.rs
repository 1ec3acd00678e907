//! The contract every harness implements, and the types it speaks in. A leaf: nothing here
//! names a harness module, so the harness modules depend on it and never the other way.

mod approval;
mod binary;
mod config;
mod events;
mod harness;
mod live;
mod reply;
mod seed;
mod session;
mod sessions;
mod spare;
#[cfg(test)]
pub(crate) mod test_kit;
mod transcript;
mod usage;

pub use approval::{
    ApprovalDecision, ApprovalRequest, ApprovalSubject, PermissionChoices, PermissionMode, Question,
};
pub use binary::{
    at_least, forks_at_turns, no_fork, parse_version, version_triple, Capabilities, HarnessBinary,
    Version, VersionPins,
};
pub(crate) use config::read_config;
pub use events::{EventSender, RuntimeEvent, TurnOutcome};
pub use harness::{check_uuid_session_id, Harness, HarnessFacts};
pub(crate) use live::live_runtime;
pub use live::LiveRuntime;
pub use reply::{Ack, Answer, Awaited, Reply};
pub(crate) use seed::NO_REPLY_TEXT;
pub use seed::{
    bounded, now_ms, timestamp, FileCall, FileOp, Seed, SeedRequest, SeedStep, SeedTool, SeedTurn,
    ShellCall, TextEdit, MAX_NOTE_OUTPUT,
};
pub use session::{Cut, ForkRequest, Forked, NativeSession, OpenSpec, PendingFork, SessionTarget};
pub use sessions::{env_value, first_recorded, SessionLayout};
pub(crate) use spare::spare_folder;
pub use spare::WarmSpare;
pub(crate) use transcript::{write_turns, Transcript};
pub use usage::TurnUsage;
