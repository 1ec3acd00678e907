//! Codex as a [`Harness`]: rollout files under `$CODEX_HOME/sessions/YYYY/MM/DD/`.

use std::path::{Path, PathBuf};

use async_trait::async_trait;

use super::runtime::{self, CodexRuntime, MIN_FORK_VERSION};
use super::CodexReader;
use crate::contract::{
    env_value, first_recorded, Capabilities, EventSender, ForkRequest, Forked, Harness,
    HarnessBinary, HarnessFacts, LiveRuntime, NativeSession, OpenSpec, PermissionChoices,
    SeedRequest, SessionLayout, VersionPins, WarmSpare,
};
use crate::history::{HistoryError, SessionReader};
use crate::{HarnessKind, HarnessResult};

/// Codex (`codex app-server`).
pub struct Codex;

const FACTS: HarnessFacts = HarnessFacts {
    kind: HarnessKind::Codex,
    product_name: "Codex",
    bin_env: "FORKHOST_CODEX_BIN",
    pins: VersionPins {
        oldest_supported: MIN_FORK_VERSION,
        newest_verified: (0, 171, 0),
        env_name: "CODEX",
    },
    sessions: SessionLayout {
        // <root>/YYYY/MM/DD/rollout-<time>-<thread id>.jsonl
        depth: 4,
        file_prefix: Some("rollout-"),
    },
};

#[async_trait]
impl Harness for Codex {
    fn facts(&self) -> &'static HarnessFacts {
        &FACTS
    }

    /// It prints "codex-cli 0.171.0".
    fn names_itself(&self, version_line: &str) -> bool {
        version_line.contains("codex")
    }

    fn capabilities(&self, version: &str) -> Capabilities {
        runtime::capabilities(version)
    }

    /// Its approval policies and sandboxes (`thread/start` / `thread/resume`).
    fn permission_choices(&self) -> PermissionChoices {
        super::approvals::CHOICES
    }

    /// `$CODEX_HOME/sessions`, else `<home>/.codex/sessions`.
    fn sessions_root(&self, env: &[(String, String)]) -> Option<PathBuf> {
        env_value(env, "CODEX_HOME")
            .map(PathBuf::from)
            .or_else(|| crate::home::home_for(env).map(|home| home.join(".codex")))
            .map(|dir| dir.join("sessions"))
    }

    /// The thread id (a uuid) ends the file's name.
    fn session_id_of(&self, path: &Path) -> Option<String> {
        let stem = path.file_stem()?.to_str()?;
        let id = stem.get(stem.len().checked_sub(36)?..)?;
        (!id.is_empty()).then(|| id.to_owned())
    }

    /// The `session_meta` line carries it in its payload.
    fn recorded_cwd(&self, path: &Path) -> Option<String> {
        first_recorded(path, |v| v.get("payload")?.get("cwd"))
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
        super::native_fork::fork(request, None).await
    }

    async fn fork_trusting(
        &self,
        request: ForkRequest<'_>,
        trusted: Option<bool>,
    ) -> HarnessResult<Forked> {
        super::native_fork::fork(request, trusted).await
    }

    async fn seed(&self, request: SeedRequest<'_>) -> HarnessResult<Forked> {
        super::seed::seed(request, None).await
    }

    async fn seed_trusting(
        &self,
        request: SeedRequest<'_>,
        trusted: Option<bool>,
    ) -> HarnessResult<Forked> {
        super::seed::seed(request, trusted).await
    }

    async fn spare(
        &self,
        binary: &HarnessBinary,
        env: &[(String, String)],
    ) -> Option<HarnessResult<Box<dyn WarmSpare>>> {
        let started = super::spare::CodexSpare::start(binary, env).await;
        Some(started.map(|spare| Box::new(spare) as Box<dyn WarmSpare>))
    }

    fn terminal_args(
        &self,
        session: &NativeSession,
        trusted: Option<bool>,
    ) -> HarnessResult<Vec<String>> {
        self.check_session_id(&session.session_id)?;
        // `-c` is the root command's: before `resume`.
        let mut args = super::trust::trust_args(trusted, &session.cwd)?;
        args.extend(["resume".to_owned(), session.session_id.clone()]);
        Ok(args)
    }

    fn check_session_id(&self, id: &str) -> HarnessResult<()> {
        crate::contract::check_uuid_session_id("Codex", id)
    }
}

crate::contract::live_runtime!(CodexRuntime, modes, models);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_refuses_an_id_that_is_not_a_uuid() {
        let session = |id: &str| NativeSession {
            kind: HarnessKind::Codex,
            session_id: id.to_owned(),
            path: None,
            cwd: PathBuf::from("/w"),
        };
        for id in [
            "--dangerously-bypass-approvals-and-sandbox",
            "-cnotify=[\"touch\",\"x\"]",
            "-cx=1",
            "",
        ] {
            assert!(
                matches!(
                    Codex.terminal_args(&session(id), None),
                    Err(crate::HarnessError::InvalidInput(_))
                ),
                "{id:?}"
            );
        }
        let ok = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000";
        assert_eq!(
            Codex.terminal_args(&session(ok), None).unwrap(),
            ["resume", ok]
        );
    }

    #[test]
    fn the_terminal_of_an_untrusted_folder_is_held_back_as_the_runtime_is() {
        let ok = "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000";
        let dir = tempfile::tempdir().unwrap();
        let codex = dir.path().join(".codex");
        std::fs::create_dir_all(&codex).unwrap();
        std::fs::write(
            codex.join("config.toml"),
            "[mcp_servers.helper]\ncommand = \"sh\"\n",
        )
        .unwrap();
        let session = NativeSession {
            kind: HarnessKind::Codex,
            session_id: ok.to_owned(),
            path: None,
            cwd: dir.path().to_path_buf(),
        };
        let args = Codex.terminal_args(&session, Some(false)).unwrap();
        assert!(
            args.contains(&"mcp_servers.helper.enabled=false".to_owned()),
            "{args:?}"
        );
        assert_eq!(&args[args.len() - 2..], ["resume", ok]);
        std::fs::write(codex.join("config.toml"), "[hooks]\nx = 1\n").unwrap();
        assert!(matches!(
            Codex.terminal_args(&session, Some(false)),
            Err(crate::HarnessError::InvalidInput(_))
        ));
        assert_eq!(
            Codex.terminal_args(&session, Some(true)).unwrap(),
            ["resume", ok]
        );
    }

    #[test]
    fn session_ids_come_from_file_names() {
        let codex = Path::new("/x/sessions/2026/11/29/rollout-2026-11-29T10-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl");
        assert_eq!(
            Codex.session_id_of(codex).unwrap(),
            "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000"
        );
    }
}
