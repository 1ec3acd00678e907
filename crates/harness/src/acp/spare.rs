//! A warm spare of an ACP agent: its process started and initialized ahead of a fork, in a
//! private empty folder, with no project's config loaded. A fork copies its snapshot inside it
//! (`session/fork`) and the process then is the fork's runtime, as a Pi or Codex spare is.
//!
//! What it saves is the agent's start (OpenCode: 2–6 s to `initialize`). What it cannot save is
//! the agent setting up the fork's folder on its first request there (OpenCode 1.18.33: ~1.3 s
//! unloaded, measured by hand; `session/list` with that folder does not set it up, and
//! `session/new` would leave a session the user never made): a fork in a spare costs that plus
//! the copy itself (~0.1 s).
//!
//! The spare cannot load a folder's own config when it forks there (an agent reads it at
//! start), so it serves only folders that have none ([`has_project_config`]); any other fork
//! starts the agent cold in its folder, trust decided.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use async_trait::async_trait;

use super::agent::AgentProcess;
use super::fork::snapshot_at;
use super::opencode_reader;
use super::{AcpRuntime, AgentCommand};
use crate::contract::{
    spare_folder, EventSender, ForkRequest, Forked, HarnessBinary, LiveRuntime, PermissionMode,
    WarmSpare,
};
use crate::{HarnessKind, HarnessResult};

/// How long a closing spare gets before its process group is ended.
const CLOSE_GRACE: Duration = Duration::from_secs(3);

/// The files and folders in a work folder (or one above it, below the home folder) that make
/// OpenCode load a project's config or instructions: its own, and Claude Code's, which it also
/// reads.
const PROJECT_FILES: &[&str] = &[
    "opencode.json",
    "opencode.jsonc",
    ".opencode",
    ".claude",
    "CLAUDE.md",
];

pub(crate) struct AcpSpare {
    process: AgentProcess,
}

impl AcpSpare {
    /// Starts `agent` at `binary` with `env` (and no project config) in a private empty folder,
    /// and says `initialize`.
    pub(crate) async fn start(
        agent: &AgentCommand,
        binary: &HarnessBinary,
        env: &[(String, String)],
    ) -> HarnessResult<AcpSpare> {
        let started = Instant::now();
        // OpenCode's first start in a home creates its database; a second process starting
        // beside it (the thread's runtime, as the app opens a new thread) could race it to
        // create the tables. No spare until the database is there.
        if super::opencode_db::database(env).is_none_or(|db| !db.is_file()) {
            return Err(crate::HarnessError::Unsupported(
                "no warm OpenCode spare before OpenCode's first start here".into(),
            ));
        }
        let cwd = spare_folder(HarnessKind::Opencode)?;
        let mut env = env.to_vec();
        env.push(("OPENCODE_DISABLE_PROJECT_CONFIG".into(), "1".into()));
        let process = AgentProcess::start(agent, &binary.path, &cwd, &env).await?;
        tracing::info!(
            agent = %agent.name,
            pid = process.pid(),
            ms = started.elapsed().as_millis() as u64,
            "acp spare ready"
        );
        Ok(AcpSpare { process })
    }
}

#[async_trait]
impl WarmSpare for AcpSpare {
    async fn fork_into_runtime(
        self: Box<Self>,
        request: ForkRequest<'_>,
        permissions: PermissionMode,
        events: EventSender,
    ) -> HarnessResult<(Forked, Box<dyn LiveRuntime>)> {
        let started = Instant::now();
        let process = self.process;
        let cwd = request.fork_cwd().to_owned();
        let made = async {
            let id = match snapshot_at(&request, &process.product)? {
                Some(snapshot) => process.fork_session(snapshot, &cwd).await?,
                None => process.new_session(&cwd).await?,
            };
            let session = opencode_reader::native(id, request.env, &cwd)?;
            Ok::<_, crate::HarnessError>(session)
        }
        .await;
        let session = match made {
            Ok(session) => session,
            Err(err) => {
                process.close(CLOSE_GRACE).await;
                return Err(err);
            }
        };
        let mut runtime = AcpRuntime::adopt(process, session.session_id.clone(), cwd, events);
        if permissions.mode.is_some() {
            if let Err(err) = runtime.set_mode(&permissions).await {
                // The fork stands (a session the cold path would make too); its runtime
                // does not, and the next open starts one in the mode asked.
                let _ = runtime.close().await;
                return Err(err);
            }
        }
        tracing::info!(
            source = %request.source.session_id,
            fork = %session.session_id,
            ms = started.elapsed().as_millis() as u64,
            "acp fork in a warm spare"
        );
        Ok((
            Forked {
                session,
                pending: None,
            },
            Box::new(runtime),
        ))
    }

    fn can_fork(&self, request: &ForkRequest<'_>) -> bool {
        let home = crate::contract::env_value(request.env, "HOME").map(PathBuf::from);
        !has_project_config(request.fork_cwd(), home.as_deref())
    }

    fn alive(&self) -> bool {
        !self.process.has_exited()
    }

    fn pid(&self) -> Option<u32> {
        self.process.pid()
    }

    async fn close(self: Box<Self>) {
        self.process.close(CLOSE_GRACE).await;
    }
}

/// Whether `cwd` or a folder above it (the home folder and above aside: that is the user's own)
/// holds config OpenCode loads from a project.
fn has_project_config(cwd: &Path, home: Option<&Path>) -> bool {
    cwd.ancestors()
        .take_while(|dir| home.is_none_or(|home| !home.starts_with(dir)))
        .any(|dir| PROJECT_FILES.iter().any(|f| dir.join(f).exists()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_config_is_found_above_the_folder_and_below_home() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let inner = home.join("repo/pkg");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        assert!(!has_project_config(&inner, Some(&home)));
        std::fs::write(home.join("repo/opencode.json"), "{}").unwrap();
        assert!(has_project_config(&inner, Some(&home)));
        assert!(has_project_config(&inner, None));
    }
}
