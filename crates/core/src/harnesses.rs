//! The harness binaries this Host uses: probed once (path, version, capabilities) and cached.

use std::collections::HashMap;

use forkhost_harness::{
    binary, Capabilities, HarnessBinary, HarnessError, HarnessKind, VersionSupport,
};
use serde::Serialize;
use tokio::sync::Mutex;

use crate::error::HostResult;

/// One line of `forkhost doctor`.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct HarnessReport {
    pub name: String,
    pub path: Option<String>,
    pub version: Option<String>,
    #[ts(
        type = "{ boundaries: string[], granularity: string, eager_fork: boolean, note: string | null } | null"
    )]
    pub capabilities: Option<Capabilities>,
    /// Why the harness can't be used, when it can't.
    pub error: Option<String>,
    /// How its version relates to the versions the test suite ran (`forkhost_harness::verified`).
    #[ts(type = "\"verified\" | \"newer_than_tested\" | \"older_than_supported\" | null")]
    pub support: Option<VersionSupport>,
}

#[derive(Debug, Default)]
pub(crate) struct Harnesses {
    found: Mutex<HashMap<HarnessKind, HarnessBinary>>,
}

impl Harnesses {
    /// The binary for `kind`, probing it the first time. A failed probe is not cached, so
    /// installing the harness while Forkhost runs just works.
    pub async fn binary(&self, kind: HarnessKind) -> HostResult<HarnessBinary> {
        if let Some(found) = self.found.lock().await.get(&kind) {
            return Ok(found.clone());
        }
        let probed = binary::probe(kind).await?;
        tracing::info!(harness = %kind, version = %probed.version, "harness found");
        self.found.lock().await.insert(kind, probed.clone());
        Ok(probed)
    }

    pub async fn report(&self) -> Vec<HarnessReport> {
        let mut out = Vec::new();
        for kind in HarnessKind::ALL {
            out.push(match self.binary(kind).await {
                Ok(bin) => HarnessReport {
                    name: kind.to_string(),
                    path: Some(bin.path.display().to_string()),
                    version: Some(bin.version.clone()),
                    capabilities: Some(bin.capabilities()),
                    error: None,
                    support: Some(forkhost_harness::verified::support(kind, &bin.version)),
                },
                Err(err) => HarnessReport {
                    name: kind.to_string(),
                    path: None,
                    version: None,
                    capabilities: None,
                    error: Some(err.to_string()),
                    support: None,
                },
            });
        }
        out
    }
}

impl From<HarnessError> for crate::HostError {
    fn from(err: HarnessError) -> Self {
        use crate::HostError as H;
        match err {
            HarnessError::HarnessNotFound { .. } => H::HarnessNotFound(err.to_string()),
            HarnessError::SessionNotFound(s) => H::SessionNotFound(s),
            HarnessError::CheckpointNotFound(s) => H::CheckpointNotFound(s),
            HarnessError::TurnNotFound(s) => H::TurnNotFound(s),
            HarnessError::Unsupported(s) => H::Unsupported(s),
            HarnessError::Busy(s) => H::Busy(s),
            HarnessError::InvalidInput(s) => H::InvalidInput(s),
            HarnessError::HarnessFailed {
                harness,
                message,
                stderr_tail,
            } => {
                let tail = stderr_tail.trim();
                H::HarnessFailed(if tail.is_empty() {
                    format!("{harness}: {message}")
                } else {
                    format!("{harness}: {message}\n{tail}")
                })
            }
            HarnessError::History(h) => h.into(),
        }
    }
}

impl From<forkhost_harness::HistoryError> for crate::HostError {
    fn from(err: forkhost_harness::HistoryError) -> Self {
        use forkhost_harness::HistoryError as E;
        match err {
            E::SessionNotFound { path } => {
                crate::HostError::SessionNotFound(path.display().to_string())
            }
            E::TurnNotFound { index, len } => {
                crate::HostError::TurnNotFound(format!("turn {} of {len}", index + 1))
            }
            other => crate::HostError::Internal(other.to_string()),
        }
    }
}
