//! Claude Code as a [`Harness`]: `~/.claude/projects/<encoded cwd>/<session id>.jsonl`.

use std::path::{Path, PathBuf};

use async_trait::async_trait;

use super::version::{self, MIN_VERSION};
use super::{approvals, fork, seed};
use super::{git_bash, paths, ClaudeReader, ClaudeRuntime};
use crate::contract::{
    first_recorded, Capabilities, EventSender, ForkRequest, Forked, Harness, HarnessFacts,
    LiveRuntime, NativeSession, OpenSpec, PermissionChoices, SeedRequest, SessionLayout,
    VersionPins,
};
use crate::history::{HistoryError, SessionReader};
use crate::{HarnessKind, HarnessResult};

/// Claude Code.
pub struct Claude;

const FACTS: HarnessFacts = HarnessFacts {
    kind: HarnessKind::Claude,
    product_name: "Claude Code",
    bin_env: "FORKHOST_CLAUDE_BIN",
    pins: VersionPins {
        oldest_supported: MIN_VERSION,
        newest_verified: (2, 1, 332),
        env_name: "CLAUDE_CODE",
    },
    sessions: SessionLayout {
        // <root>/<encoded cwd>/<session id>.jsonl
        depth: 2,
        file_prefix: None,
    },
};

#[async_trait]
impl Harness for Claude {
    fn facts(&self) -> &'static HarnessFacts {
        &FACTS
    }

    /// It prints "2.1.197 (Claude Code)".
    fn names_itself(&self, version_line: &str) -> bool {
        version_line.contains("claude code")
    }

    fn doctor_notes(&self) -> Vec<String> {
        if !cfg!(windows) {
            return Vec::new();
        }
        let dirs: Vec<PathBuf> = crate::search_path::global()
            .dirs()
            .map(Path::to_path_buf)
            .collect();
        vec![
            match git_bash::git_bash_for_claude(&|k| std::env::var(k).ok(), &dirs, &|p| p.is_file())
            {
                Ok(bash) => format!(
                    "Git Bash (which Claude Code on Windows needs): {}",
                    bash.display()
                ),
                Err(why) => why,
            },
        ]
    }

    fn capabilities(&self, version: &str) -> Capabilities {
        version::capabilities(version)
    }

    /// Its `--permission-mode` words; it has no sandbox choice.
    fn permission_choices(&self) -> PermissionChoices {
        approvals::CHOICES
    }

    fn sessions_root(&self, env: &[(String, String)]) -> Option<PathBuf> {
        paths::config_dir(env).ok().map(|dir| dir.join("projects"))
    }

    fn session_id_of(&self, path: &Path) -> Option<String> {
        let stem = path.file_stem()?.to_str()?;
        (!stem.is_empty()).then(|| stem.to_owned())
    }

    /// Every record carries the `cwd` it ran in.
    fn recorded_cwd(&self, path: &Path) -> Option<String> {
        first_recorded(path, |v| v.get("cwd"))
    }

    fn open_reader(&self, path: &Path) -> Result<Box<dyn SessionReader>, HistoryError> {
        Ok(Box::new(ClaudeReader::open(path)?))
    }

    async fn open(
        &self,
        spec: OpenSpec,
        events: EventSender,
    ) -> HarnessResult<Box<dyn LiveRuntime>> {
        Ok(Box::new(ClaudeRuntime::open(spec, events).await?))
    }

    async fn fork(&self, request: ForkRequest<'_>) -> HarnessResult<Forked> {
        fork::fork(request).await
    }

    async fn seed(&self, request: SeedRequest<'_>) -> HarnessResult<Forked> {
        seed::seed(request).await
    }

    fn terminal_args(
        &self,
        session: &NativeSession,
        trusted: Option<bool>,
    ) -> HarnessResult<Vec<String>> {
        self.check_session_id(&session.session_id)?;
        // Claude keys its projects by the real folder, as the runtime does (`real_cwd`).
        let real = std::fs::canonicalize(&session.cwd).unwrap_or_else(|_| session.cwd.clone());
        let mut args = super::trust::trust_args(trusted, &real);
        args.extend(["--resume".to_owned(), session.session_id.clone()]);
        Ok(args)
    }

    fn check_session_id(&self, id: &str) -> HarnessResult<()> {
        crate::contract::check_uuid_session_id("Claude Code", id)
    }
}

crate::contract::live_runtime!(ClaudeRuntime, modes, models);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_refuses_an_id_that_is_not_a_uuid() {
        let session = |id: &str| NativeSession {
            kind: HarnessKind::Claude,
            session_id: id.to_owned(),
            path: None,
            cwd: PathBuf::from("/w"),
        };
        for id in [
            "--settings={}",
            "-cx=1",
            "",
            "0f8c3a64-1111-4222-8333-44445555666",
            "{0f8c3a64-1111-4222-8333-444455556666}",
        ] {
            assert!(
                matches!(
                    Claude.terminal_args(&session(id), None),
                    Err(crate::HarnessError::InvalidInput(_))
                ),
                "{id:?}"
            );
        }
        let ok = "0f8c3a64-1111-4222-8333-444455556666";
        assert_eq!(
            Claude.terminal_args(&session(ok), None).unwrap(),
            ["--resume", ok]
        );
    }

    #[test]
    fn the_terminal_of_an_untrusted_folder_gets_the_runtimes_trust_flags() {
        let ok = "0f8c3a64-1111-4222-8333-444455556666";
        let dir = tempfile::tempdir().unwrap();
        let session = NativeSession {
            kind: HarnessKind::Claude,
            session_id: ok.to_owned(),
            path: None,
            cwd: dir.path().to_path_buf(),
        };
        let args = Claude.terminal_args(&session, Some(false)).unwrap();
        assert_eq!(
            args,
            [
                "--setting-sources",
                "user",
                "--strict-mcp-config",
                "--resume",
                ok
            ]
        );
        assert_eq!(
            Claude.terminal_args(&session, Some(true)).unwrap(),
            ["--resume", ok]
        );
    }

    #[test]
    fn session_ids_come_from_file_names() {
        let claude = Path::new("/x/projects/-tmp-a/0f8c3a64-1111-4222-8333-444455556666.jsonl");
        assert_eq!(
            Claude.session_id_of(claude).unwrap(),
            "0f8c3a64-1111-4222-8333-444455556666"
        );
    }
}
