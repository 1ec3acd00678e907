//! Codex as a [`Harness`]: rollout files under `$CODEX_HOME/sessions/YYYY/MM/DD/`.

use std::path::{Path, PathBuf};

use async_trait::async_trait;

use super::runtime::{self, CodexRuntime, MIN_FORK_VERSION};
use super::CodexReader;
use crate::contract::{
    env_value, Capabilities, EventSender, ForkRequest, Forked, Harness, LiveRuntime, NativeSession,
    OpenSpec, SessionLayout, VersionPins,
};
use crate::history::{HistoryError, SessionReader};
use crate::{HarnessKind, HarnessResult};

/// Codex (`codex app-server`).
pub struct Codex;

#[async_trait]
impl Harness for Codex {
    fn kind(&self) -> HarnessKind {
        HarnessKind::Codex
    }

    fn product_name(&self) -> &'static str {
        "Codex"
    }

    fn bin_env(&self) -> &'static str {
        "FORKHOST_CODEX_BIN"
    }

    /// It prints "codex-cli 0.171.0".
    fn names_itself(&self, version_line: &str) -> bool {
        version_line.contains("codex")
    }

    fn pins(&self) -> VersionPins {
        VersionPins {
            oldest_supported: MIN_FORK_VERSION,
            newest_verified: (0, 171, 0),
            env_name: "CODEX",
        }
    }

    fn capabilities(&self, version: &str) -> Capabilities {
        runtime::capabilities(version)
    }

    /// `$CODEX_HOME/sessions`, else `<home>/.codex/sessions`.
    fn sessions_root(&self, env: &[(String, String)]) -> Option<PathBuf> {
        env_value(env, "CODEX_HOME")
            .map(PathBuf::from)
            .or_else(|| crate::home::home_for(env).map(|home| home.join(".codex")))
            .map(|dir| dir.join("sessions"))
    }

    /// `<root>/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl`.
    fn session_layout(&self) -> SessionLayout {
        SessionLayout {
            depth: 4,
            file_prefix: Some("rollout-"),
        }
    }

    /// The thread id (a uuid) ends the file's name.
    fn session_id_of(&self, path: &Path) -> Option<String> {
        let stem = path.file_stem()?.to_str()?;
        let id = stem.get(stem.len().checked_sub(36)?..)?;
        (!id.is_empty()).then(|| id.to_owned())
    }

    fn open_reader(&self, path: &Path) -> Result<Box<dyn SessionReader>, HistoryError> {
        Ok(Box::new(CodexReader::open(path)?))
    }

    async fn open(
        &self,
        spec: OpenSpec,
        events: EventSender,
    ) -> HarnessResult<Box<dyn LiveRuntime>> {
        Ok(Box::new(CodexRuntime::open(spec, events).await?))
    }

    async fn fork(&self, request: ForkRequest<'_>) -> HarnessResult<Forked> {
        runtime::fork(request).await
    }

    fn terminal_args(&self, session: &NativeSession) -> HarnessResult<Vec<String>> {
        Ok(vec!["resume".to_owned(), session.session_id.clone()])
    }
}

crate::contract::live_runtime!(CodexRuntime);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_come_from_file_names() {
        let codex = Path::new("/x/sessions/2026/11/29/rollout-2026-11-29T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl");
        assert_eq!(
            Codex.session_id_of(codex).unwrap(),
            "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000"
        );
    }
}
