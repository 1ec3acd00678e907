//! Codex's warm spare: a `codex app-server` spawned and initialized ahead of the next fork.
//! The fork's `thread/fork` runs in it, and since the server that forks a thread is its
//! writer, the spare then *is* the fork's runtime (a shared warm server that only forked, with
//! the fork resumed elsewhere, had two writers). The server's messages are buffered from its
//! start, so nothing the fork's thread says is lost before the runtime takes over.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::mpsc;

use super::app_server::{AppServer, Incoming, Launch};
use super::native_fork::{checked, fork_in, ForkAt};
use super::protocol;
use super::runtime::CodexRuntime;
use crate::contract::{
    spare_folder, EventSender, ForkRequest, Forked, HarnessBinary, LiveRuntime, PermissionMode,
    WarmSpare,
};
use crate::{HarnessKind, HarnessResult};

const CLOSE_GRACE: Duration = Duration::from_secs(3);

pub(crate) struct CodexSpare {
    server: AppServer,
    incoming: mpsc::UnboundedReceiver<Incoming>,
    codex_home: Option<PathBuf>,
}

impl CodexSpare {
    /// Spawns the server and completes its handshake (experimental API on: a fork before a
    /// turn needs it).
    pub(crate) async fn start(
        binary: &HarnessBinary,
        env: &[(String, String)],
    ) -> HarnessResult<CodexSpare> {
        let started = Instant::now();
        let (tx, incoming) = mpsc::unbounded_channel();
        let cwd = spare_folder(HarnessKind::Codex)?;
        let launch = Launch {
            binary,
            cwd: Some(&cwd),
            env,
            // Started in a private empty folder, never the app's own working folder (which
            // may be a project Codex trusts; review L-9); the Host forks into a spare only
            // where the folder has no project config to trust (core fork.rs `native_fork`).
            args: Vec::new(),
        };
        let server = AppServer::spawn(launch, move |message| {
            let _ = tx.send(message);
        })?;
        let codex_home = match protocol::initialize(&server, true).await {
            Ok(home) => home,
            Err(err) => {
                server.close(CLOSE_GRACE).await;
                return Err(err);
            }
        };
        tracing::info!(
            pid = server.pid(),
            ms = started.elapsed().as_millis() as u64,
            "codex spare ready"
        );
        Ok(CodexSpare {
            server,
            incoming,
            codex_home,
        })
    }
}

#[async_trait]
impl WarmSpare for CodexSpare {
    async fn fork_into_runtime(
        self: Box<Self>,
        request: ForkRequest<'_>,
        permissions: PermissionMode,
        events: EventSender,
    ) -> HarnessResult<(Forked, Box<dyn LiveRuntime>)> {
        let started = Instant::now();
        let CodexSpare {
            server,
            incoming,
            codex_home,
        } = *self;
        let prepared = checked(&request);
        let forked = match prepared {
            Ok((plan, cwd)) => {
                let at = ForkAt {
                    codex_home: codex_home.as_deref(),
                    cwd: cwd.as_deref(),
                    permissions: Some(&permissions),
                };
                fork_in(&server, request.source, &plan, at).await
            }
            Err(err) => Err(err),
        };
        let forked = match forked {
            Ok(forked) => forked,
            Err(err) => {
                server.close(CLOSE_GRACE).await;
                return Err(err);
            }
        };
        tracing::info!(
            source = %request.source.session_id,
            fork = %forked.session.session_id,
            ms = started.elapsed().as_millis() as u64,
            "codex fork in a warm spare"
        );
        let runtime = CodexRuntime::adopt(server, incoming, forked.session.clone(), events);
        Ok((forked, Box::new(runtime)))
    }

    fn alive(&self) -> bool {
        !self.server.has_exited()
    }

    fn pid(&self) -> Option<u32> {
        self.server.pid()
    }

    async fn close(self: Box<Self>) {
        self.server.close(CLOSE_GRACE).await;
    }
}
