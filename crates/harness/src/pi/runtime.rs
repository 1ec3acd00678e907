//! Pi's live process protocol and native fork. (Being built: every call answers Unsupported.)

use crate::runtime::{Cut, EventSender, Forked, NativeSession, OpenSpec};
use crate::{Capabilities, HarnessBinary, HarnessError, HarnessResult, TurnAnchor};

pub struct PiRuntime {
    _events: EventSender,
}

fn not_yet() -> HarnessError {
    HarnessError::Unsupported("the pi runtime is not built yet".into())
}

impl PiRuntime {
    pub async fn open(_spec: OpenSpec, _events: EventSender) -> HarnessResult<Self> {
        Err(not_yet())
    }
    pub async fn send(&mut self, _prompt: &str) -> HarnessResult<()> {
        Err(not_yet())
    }
    pub async fn interrupt(&mut self) -> HarnessResult<()> {
        Err(not_yet())
    }
    pub async fn close(self) -> HarnessResult<()> {
        Ok(())
    }
    pub fn session(&self) -> Option<NativeSession> {
        None
    }
}

pub async fn fork(
    _binary: &HarnessBinary,
    _source: &NativeSession,
    _anchors: &[TurnAnchor],
    _cut: Cut,
    _env: &[(String, String)],
) -> HarnessResult<Forked> {
    Err(not_yet())
}

pub fn capabilities(_version: &str) -> Capabilities {
    Capabilities {
        boundaries: vec![],
        granularity: "turn",
        eager_fork: false,
        note: Some("not built yet".into()),
    }
}
