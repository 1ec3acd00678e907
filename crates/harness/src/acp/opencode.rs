//! OpenCode as a [`Harness`]: `opencode acp`, its sessions rows of one database
//! (`$XDG_DATA_HOME/opencode/opencode.db`, read by [`super::opencode_reader`]), a turn an ACP
//! `session/prompt` ([`AcpRuntime`]) and a fork at any turn a copy of that turn's snapshot
//! ([`AgentSessions::fork_at`]; the snapshot chain in [`super::runtime`]).

use std::path::{Path, PathBuf};

use async_trait::async_trait;

use super::opencode_reader::{self, OpencodeReader};
use super::{opencode_db, AcpRuntime, AcpTarget, AgentCommand, AgentSessions};
use crate::contract::{
    forks_at_turns, no_fork, version_triple, Capabilities, EventSender, ForkRequest, Forked,
    Harness, HarnessBinary, HarnessFacts, LiveRuntime, NativeSession, OpenSpec, PermissionChoices,
    RuntimeEvent, SessionLayout, SessionTarget, VersionPins, WarmSpare,
};
use crate::history::{HistoryError, SessionReader};
use crate::{HarnessError, HarnessKind, HarnessResult};

/// OpenCode (`opencode acp`).
pub struct Opencode;

/// The version its ACP fork, load and database were verified on.
const MIN_VERSION: (u64, u64, u64) = (1, 18, 33);

const FACTS: HarnessFacts = HarnessFacts {
    kind: HarnessKind::Opencode,
    product_name: "OpenCode",
    bin_env: "FORKHOST_OPENCODE_BIN",
    pins: VersionPins {
        oldest_supported: MIN_VERSION,
        newest_verified: (1, 18, 33),
        env_name: "OPENCODE",
    },
    // No session files: every session is rows of one database.
    sessions: SessionLayout {
        depth: 0,
        file_prefix: Some("\0"),
    },
};

/// The variables that keep an untrusted folder's own OpenCode config (`opencode.json`,
/// `.opencode/`: plugins, agents, commands, MCP servers) and the Claude Code files it would
/// also read from there, unloaded: the runtime's equivalent of Pi's `--no-approve`.
const UNTRUSTED_ENV: &[(&str, &str)] = &[
    ("OPENCODE_DISABLE_PROJECT_CONFIG", "1"),
    ("OPENCODE_DISABLE_CLAUDE_CODE", "1"),
    ("OPENCODE_DISABLE_EXTERNAL_SKILLS", "1"),
];

impl Opencode {
    /// The shipped agent entry this harness runs.
    pub(super) fn agent() -> AgentCommand {
        super::shipped()
            .into_iter()
            .find(|a| a.name == "opencode")
            .expect("OpenCode is a shipped agent")
    }

    /// `env` with the untrusted folder's variables when `trusted` says no.
    fn env_for(env: &[(String, String)], trusted: Option<bool>) -> Vec<(String, String)> {
        let mut env = env.to_vec();
        if trusted == Some(false) {
            env.extend(
                UNTRUSTED_ENV
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
            );
        }
        env
    }
}

#[async_trait]
impl Harness for Opencode {
    fn facts(&self) -> &'static HarnessFacts {
        &FACTS
    }

    fn names_itself(&self, version_line: &str) -> bool {
        version_line
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
            .any(|w| w == "opencode" || w == "opencode-ai")
    }

    /// `opencode --version` prints only "1.18.33"; its help lists `opencode acp`.
    fn help_names_itself(&self) -> Option<fn(&str) -> bool> {
        Some(|help| help.contains("opencode acp"))
    }

    fn capabilities(&self, version: &str) -> Capabilities {
        match version_triple(version) {
            Some(v) if v >= MIN_VERSION => Capabilities {
                snapshots: true,
                ..forks_at_turns(true)
            },
            _ => no_fork(
                true,
                format!(
                    "OpenCode {version} is older than {}.{}.{}, the first whose session/fork \
                     Forkhost verified",
                    MIN_VERSION.0, MIN_VERSION.1, MIN_VERSION.2
                ),
            ),
        }
    }

    /// Its agents as ACP session modes: `build` runs tools, `plan` only reads.
    fn permission_choices(&self) -> PermissionChoices {
        PermissionChoices {
            modes: &["build", "plan"],
            sandboxes: &[],
        }
    }

    fn sessions_root(&self, env: &[(String, String)]) -> Option<PathBuf> {
        opencode_db::database(env)
    }

    fn session_id_of(&self, path: &Path) -> Option<String> {
        opencode_reader::split(path).map(|(_, id)| id.to_owned())
    }

    fn recorded_cwd(&self, path: &Path) -> Option<String> {
        let (db, id) = opencode_reader::split(path)?;
        opencode_db::directory(db, id)
    }

    /// Its sessions are listed by the agent (`session/list`), not found as files.
    fn session_files(&self, _root: &Path) -> Vec<PathBuf> {
        Vec::new()
    }

    fn find_session(&self, root: &Path, id: &str) -> Option<PathBuf> {
        let path = opencode_reader::session_path(root, id);
        opencode_reader::present(&path).then_some(path)
    }

    fn open_reader(&self, path: &Path) -> Result<Box<dyn SessionReader>, HistoryError> {
        Ok(Box::new(OpencodeReader::open(path)?))
    }

    /// Every write to the database goes to its write-ahead log first (OpenCode runs SQLite in
    /// WAL mode), whichever session it is for: a followed thread re-reads its rows (a few
    /// milliseconds) on each.
    fn watched_file(&self, path: &Path) -> PathBuf {
        match opencode_reader::split(path) {
            Some((db, _)) => {
                let mut wal = db.as_os_str().to_owned();
                wal.push("-wal");
                PathBuf::from(wal)
            }
            None => path.to_owned(),
        }
    }

    fn session_is_a_file(&self) -> bool {
        false
    }

    fn session_present(&self, path: &Path) -> bool {
        opencode_reader::present(path)
    }

    fn keeps_snapshots(&self) -> bool {
        true
    }

    async fn open(
        &self,
        spec: OpenSpec,
        events: EventSender,
    ) -> HarnessResult<Box<dyn LiveRuntime>> {
        if !self.permission_choices().accepts(&spec.permissions) {
            return Err(HarnessError::InvalidInput(format!(
                "OpenCode has no mode {:?} (it has build and plan)",
                spec.permissions.mode.as_deref().unwrap_or_default()
            )));
        }
        let env = Self::env_for(&spec.env, spec.trusted);
        let (target, resumed) = match spec.target {
            SessionTarget::New { cwd } => (AcpTarget::New { cwd }, None),
            SessionTarget::Resume(session) => (
                AcpTarget::Resume {
                    session_id: session.session_id.clone(),
                    cwd: session.cwd.clone(),
                },
                Some(session),
            ),
            SessionTarget::PendingFork(_) => {
                return Err(HarnessError::Unsupported(
                    "OpenCode makes its forks at once, never with the first prompt".into(),
                ))
            }
        };
        let cwd = match &target {
            AcpTarget::New { cwd } | AcpTarget::Resume { cwd, .. } => cwd.clone(),
        };
        let mut runtime = AcpRuntime::open(
            &Self::agent(),
            &spec.binary.path,
            target,
            &env,
            events.clone(),
        )
        .await?;
        if resumed.is_none() {
            let session =
                opencode_reader::native(runtime.session_id().to_owned(), &spec.env, &cwd)?;
            let _ = events.send(RuntimeEvent::Session { session });
        }
        if spec.permissions.mode.is_some() {
            runtime.set_mode(&spec.permissions).await?;
        }
        Ok(Box::new(runtime))
    }

    /// A copy of the snapshot of the turn the fork keeps last (none before the first turn:
    /// a new session), in a process of its own; the source is neither prompted nor changed.
    async fn fork(&self, request: ForkRequest<'_>) -> HarnessResult<Forked> {
        self.fork_trusting(request, None).await
    }

    /// `opencode acp`, initialized, in a private empty folder and without any project's
    /// config: a fork copies its snapshot there (~0.2 s) instead of starting OpenCode (2–4 s),
    /// and the process is then the fork's runtime ([`super::spare`]).
    async fn spare(
        &self,
        binary: &HarnessBinary,
        env: &[(String, String)],
    ) -> Option<HarnessResult<Box<dyn WarmSpare>>> {
        let started = super::spare::AcpSpare::start(&Self::agent(), binary, env).await;
        Some(started.map(|spare| Box::new(spare) as Box<dyn WarmSpare>))
    }

    async fn fork_trusting(
        &self,
        request: ForkRequest<'_>,
        trusted: Option<bool>,
    ) -> HarnessResult<Forked> {
        let snapshot = super::fork::snapshot_at(&request, "OpenCode")?;
        let agent = Self::agent();
        let env = Self::env_for(request.env, trusted);
        let sessions = AgentSessions {
            agent: &agent,
            program: &request.binary.path,
            env: &env,
        };
        let cwd = request.fork_cwd();
        let id = sessions.fork_at(snapshot, cwd).await?;
        Ok(Forked {
            session: opencode_reader::native(id, request.env, cwd)?,
            pending: None,
        })
    }

    /// OpenCode's TUI on the session. Its TUI has no switch to hold a folder's own config
    /// back, so an untrusted folder's session does not open there.
    fn terminal_args(
        &self,
        session: &NativeSession,
        trusted: Option<bool>,
    ) -> HarnessResult<Vec<String>> {
        self.check_session_id(&session.session_id)?;
        if trusted == Some(false) {
            return Err(HarnessError::Unsupported(
                "OpenCode's terminal would load this folder's own config, which you did not \
                 trust; trust the folder to open it here"
                    .into(),
            ));
        }
        Ok(vec!["--session".to_owned(), session.session_id.clone()])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_opens_the_session_by_id_and_only_in_a_trusted_folder() {
        let session = |id: &str| NativeSession {
            kind: HarnessKind::Opencode,
            session_id: id.to_owned(),
            path: None,
            cwd: PathBuf::from("/w"),
        };
        assert_eq!(
            Opencode.terminal_args(&session("ses_1"), None).unwrap(),
            ["--session", "ses_1"]
        );
        assert!(matches!(
            Opencode.terminal_args(&session("ses_1"), Some(false)),
            Err(HarnessError::Unsupported(_))
        ));
        assert!(matches!(
            Opencode.terminal_args(&session("--pure"), None),
            Err(HarnessError::InvalidInput(_))
        ));
    }

    #[test]
    fn an_untrusted_folder_runs_without_its_own_config() {
        let env = Opencode::env_for(&[("HOME".into(), "/h".into())], Some(false));
        assert!(env.contains(&("OPENCODE_DISABLE_PROJECT_CONFIG".into(), "1".into())));
        assert_eq!(Opencode::env_for(&[], Some(true)), Vec::new());
    }

    #[test]
    fn a_followed_session_watches_the_databases_log() {
        let path = opencode_reader::session_path(Path::new("/h/opencode/opencode.db"), "ses_1");
        assert_eq!(
            Opencode.watched_file(&path),
            Path::new("/h/opencode/opencode.db-wal")
        );
    }

    #[test]
    fn it_forks_at_turns_from_its_verified_version() {
        assert!(Opencode.capabilities("1.18.33").forks_at("before"));
        assert!(Opencode.capabilities("1.18.33").snapshots);
        assert!(Opencode.capabilities("1.17.0").note.is_some());
        assert!(Opencode.names_itself("opencode-ai 1.18.33"));
    }
}
