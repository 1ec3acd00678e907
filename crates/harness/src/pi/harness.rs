//! Pi as a [`Harness`]: `~/.pi/agent/sessions/--<cwd>--/<timestamp>_<session id>.jsonl`.

use std::path::{Path, PathBuf};

use async_trait::async_trait;

use super::runtime::{self, PiRuntime};
use super::version::MIN_VERSION;
use super::{session_files, PiReader};
use crate::contract::{
    first_recorded, Capabilities, EventSender, ForkRequest, Forked, Harness, HarnessBinary,
    HarnessFacts, LiveRuntime, NativeSession, OpenSpec, SeedRequest, SessionLayout, VersionPins,
    WarmSpare,
};
use crate::history::{HistoryError, SessionReader};
use crate::{HarnessError, HarnessKind, HarnessResult};

/// Pi (`pi --mode rpc`).
pub struct Pi;

const FACTS: HarnessFacts = HarnessFacts {
    kind: HarnessKind::Pi,
    product_name: "Pi",
    bin_env: "FORKHOST_PI_BIN",
    pins: VersionPins {
        oldest_supported: MIN_VERSION,
        newest_verified: (1, 6, 0),
        env_name: "PI_CODING_AGENT",
    },
    sessions: SessionLayout {
        // <root>/--<cwd>--/<timestamp>_<session id>.jsonl
        depth: 2,
        file_prefix: None,
    },
};

#[async_trait]
impl Harness for Pi {
    fn facts(&self) -> &'static HarnessFacts {
        &FACTS
    }

    /// Pi 1.6.0 prints only "1.6.0"; a line that says more names it as `pi` or its package.
    fn names_itself(&self, version_line: &str) -> bool {
        version_line
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
            .any(|w| w == "pi" || w == "pi-coding-agent")
    }

    fn help_names_itself(&self) -> Option<fn(&str) -> bool> {
        Some(help_names_pi)
    }

    fn capabilities(&self, version: &str) -> Capabilities {
        runtime::capabilities(version)
    }

    fn sessions_root(&self, env: &[(String, String)]) -> Option<PathBuf> {
        session_files::sessions_root(env)
    }

    fn session_id_of(&self, path: &Path) -> Option<String> {
        let stem = path.file_stem()?.to_str()?;
        let id = stem.rsplit_once('_').map(|(_, id)| id).unwrap_or(stem);
        (!id.is_empty()).then(|| id.to_owned())
    }

    /// The header carries it.
    fn recorded_cwd(&self, path: &Path) -> Option<String> {
        first_recorded(path, |v| v.get("cwd"))
    }

    fn open_reader(&self, path: &Path) -> Result<Box<dyn SessionReader>, HistoryError> {
        Ok(Box::new(PiReader::open(path)?))
    }

    async fn open(
        &self,
        spec: OpenSpec,
        events: EventSender,
    ) -> HarnessResult<Box<dyn LiveRuntime>> {
        Ok(Box::new(PiRuntime::open(spec, events).await?))
    }

    async fn fork(&self, request: ForkRequest<'_>) -> HarnessResult<Forked> {
        super::fork::fork(request).await
    }

    async fn seed(&self, request: SeedRequest<'_>) -> HarnessResult<Forked> {
        super::seed::seed(request).await
    }

    /// `pi --mode rpc --no-session`, ready: a fork switches it to the source and forks there,
    /// and it then is the fork's runtime (see [`super::spare`]).
    async fn spare(
        &self,
        binary: &HarnessBinary,
        env: &[(String, String)],
    ) -> Option<HarnessResult<Box<dyn WarmSpare>>> {
        let started = super::spare::PiSpare::start(binary, env).await;
        Some(started.map(|spare| Box::new(spare) as Box<dyn WarmSpare>))
    }

    /// Pi's TUI opens a session by its file.
    fn terminal_args(
        &self,
        session: &NativeSession,
        trusted: Option<bool>,
    ) -> HarnessResult<Vec<String>> {
        let path = session.path.as_ref().ok_or_else(|| {
            HarnessError::SessionNotFound(format!("pi session {} has no file", session.session_id))
        })?;
        // Absolute, so never read as an option (`--session -x` would be).
        if !path.is_absolute() {
            return Err(HarnessError::InvalidInput(format!(
                "pi session file is not an absolute path: {}",
                path.display()
            )));
        }
        let mut args = Vec::new();
        // Not trusted: none of the project's `.pi/` (the runtime's `--no-approve`).
        if trusted == Some(false) {
            args.push("--no-approve".to_owned());
        }
        args.extend(["--session".to_owned(), path.display().to_string()]);
        Ok(args)
    }
}

/// Pi's `--help` starts "pi - AI coding assistant…" and shows "`Usage: pi [options]`".
pub fn help_names_pi(help: &str) -> bool {
    help.lines().take(40).any(|line| {
        let line = line.trim();
        line.starts_with("pi - ") || line.starts_with("pi [options]") || line == "pi"
    })
}

crate::contract::live_runtime!(PiRuntime, models);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_opens_an_absolute_file_without_project_config_when_untrusted() {
        let session = |path: &str| NativeSession {
            kind: HarnessKind::Pi,
            session_id: "s".to_owned(),
            path: Some(PathBuf::from(path)),
            cwd: PathBuf::from("/w"),
        };
        assert_eq!(
            Pi.terminal_args(&session("/h/s.jsonl"), Some(false))
                .unwrap(),
            ["--no-approve", "--session", "/h/s.jsonl"]
        );
        assert_eq!(
            Pi.terminal_args(&session("/h/s.jsonl"), None).unwrap(),
            ["--session", "/h/s.jsonl"]
        );
        assert!(matches!(
            Pi.terminal_args(&session("--extension=x.ts"), None),
            Err(HarnessError::InvalidInput(_))
        ));
    }

    #[test]
    fn session_ids_come_from_file_names() {
        let pi = Path::new("/x/sessions/--tmp-a--/2026-11-29T10-00-00-000Z_abc123.jsonl");
        assert_eq!(Pi.session_id_of(pi).unwrap(), "abc123");
    }

    #[test]
    fn its_help_names_it() {
        assert!(help_names_pi("Warning: no models\npi - AI coding assistant with read, bash\n\nUsage:\n  pi [options]"));
        assert!(!help_names_pi("Usage: claude [options] [command] [prompt]"));
    }
}
