//! Pi's warm spare: a `pi --mode rpc --no-session` process started ahead of the next fork
//! (see "Pi: warm spares" in docs/harness-behaviour.md).
//!
//! `--no-session` keeps the spare's own session in memory: a spare that is never used writes
//! no file. A fork switches it to the source (RPC `switch_session`: Pi rebuilds its
//! cwd-bound services for the cwd the source's header records, as a cold start with
//! `--session <source>` would), then runs the cold path's cut in it ([`steps::run`]: the same
//! `fork {entryId}` / `clone` and the same `get_entries` check), and the process, now on the
//! fork's file, becomes the fork's runtime ([`PiRuntime::adopt`]). Before turn 1 the fork is
//! Pi's `new_session` in the source's folder (a fresh session whose file appears with its
//! first prompt, pending like the cold path's).
//!
//! The spare is started like a runtime (no trust flag, extensions loaded), since it becomes
//! one. It therefore cannot take a fork whose runtime the Host would start differently: into
//! another folder (the cold path needs `--fork` in a process started there), or in a folder
//! with project config (`.pi/`), where the Host passes `--approve`/`--no-approve` as the user
//! decided ([`WarmSpare::can_fork`] is false; the cold path runs). The source is only read:
//! the same checks as the cold path run before Pi opens it. On any failure the spare's
//! process is closed and the fork's file, if Pi wrote one, removed.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Instant;

use async_trait::async_trait;
use serde_json::{json, Value};
use tokio::sync::mpsc;

use super::fork::steps::{self, check_source, check_written, prepare, remove_stray, state, Plan};
use super::process::{RpcClient, RpcProcess};
use super::runtime::PiRuntime;
use super::session_files::{self, same_file};
use super::timeouts::{CLOSE_GRACE, REQUEST_TIMEOUT, STARTUP_TIMEOUT, STDERR_WAIT};
use super::version::require_supported;
use crate::contract::{
    spare_folder, EventSender, ForkRequest, Forked, HarnessBinary, LiveRuntime, NativeSession,
    PendingFork, PermissionMode, WarmSpare,
};
use crate::{HarnessError, HarnessKind, HarnessResult};

pub(crate) struct PiSpare {
    process: RpcProcess,
    events: mpsc::UnboundedReceiver<Value>,
}

/// A spare's arguments: no session file, and none of any project's `.pi/` (the spare serves
/// only forks in folders without project config).
fn spare_args() -> Vec<OsString> {
    ["--mode", "rpc", "--no-session", "--no-approve"]
        .map(OsString::from)
        .to_vec()
}

impl PiSpare {
    /// Spawns `pi --mode rpc --no-session --no-approve` in a private empty folder (review L-9:
    /// not the shared temp folder, where anyone can make a `.pi` above it), waits for its first
    /// `get_state` (which names no session file) and warms it up with an in-memory
    /// `new_session`.
    pub(crate) async fn start(
        binary: &HarnessBinary,
        env: &[(String, String)],
    ) -> HarnessResult<PiSpare> {
        require_supported(binary)?;
        let started = Instant::now();
        let args = spare_args();
        let cwd = spare_folder(HarnessKind::Pi)?;
        let (process, events) = RpcProcess::spawn(binary, &args, &cwd, env, false).await?;
        let client = process.client();
        let warmed = async {
            ready(&client, STARTUP_TIMEOUT).await?;
            // Pi builds a session's runtime lazily the first time it replaces one: a first
            // `switch_session` took 0.2–0.7 s, a later one 30–150 ms. An in-memory
            // `new_session` (the spare has no file) pays that now.
            command(&client, "new_session", json!({})).await?;
            ready(&client, REQUEST_TIMEOUT).await
        };
        if let Err(err) = warmed.await {
            process.shutdown(CLOSE_GRACE).await;
            return Err(err);
        }
        tracing::info!(
            pid = process.pid(),
            ms = started.elapsed().as_millis() as u64,
            "pi spare ready"
        );
        Ok(PiSpare { process, events })
    }
}

/// The spare answers and holds no session file.
async fn ready(client: &RpcClient, timeout: std::time::Duration) -> HarnessResult<()> {
    let response = match client.request("get_state", json!({}), timeout).await {
        Ok(r) if r.success => r,
        Ok(r) => {
            let why = r.error.unwrap_or_default();
            return Err(client
                .failure(format!("pi spare: get_state failed: {why}"), STDERR_WAIT)
                .await);
        }
        Err(err) => {
            return Err(client
                .failure(format!("pi spare did not start: {err}"), STDERR_WAIT)
                .await)
        }
    };
    match response.data.get("sessionFile").and_then(Value::as_str) {
        None => Ok(()),
        Some(file) => Err(client
            .failure(
                format!("pi spare opened the session file {file} despite --no-session"),
                STDERR_WAIT,
            )
            .await),
    }
}

#[async_trait]
impl WarmSpare for PiSpare {
    async fn fork_into_runtime(
        self: Box<Self>,
        request: ForkRequest<'_>,
        permissions: PermissionMode,
        events: EventSender,
    ) -> HarnessResult<(Forked, Box<dyn LiveRuntime>)> {
        // Pi never asks for approvals: its runtime takes no permission mode (as `open`).
        let _ = permissions;
        let started = Instant::now();
        let PiSpare {
            process,
            events: rx,
        } = *self;
        let mut created = None;
        let mut source_file = None;
        let result = fork_in(&process, &request, &mut source_file, &mut created).await;
        let taken = match result {
            Ok(taken) => taken,
            Err(err) => {
                process.shutdown(CLOSE_GRACE).await;
                if let (Some(file), Some(source)) = (created, source_file) {
                    remove_stray(&file, &source);
                }
                return Err(err);
            }
        };
        tracing::info!(
            source = %request.source.session_id,
            fork = %taken.forked.session.session_id,
            ms = started.elapsed().as_millis() as u64,
            "pi fork in a warm spare"
        );
        let runtime = PiRuntime::adopt(process, rx, taken.runtime_session, taken.leaf, events);
        Ok((taken.forked, Box::new(runtime)))
    }

    fn can_fork(&self, request: &ForkRequest<'_>) -> bool {
        steps::into_other_folder(request).is_none()
            && !has_project_config(&request.source.cwd, home_of(request.env).as_deref())
    }

    fn alive(&self) -> bool {
        !self.process.has_exited()
    }

    fn pid(&self) -> Option<u32> {
        self.process.pid()
    }

    async fn close(self: Box<Self>) {
        self.process.shutdown(CLOSE_GRACE).await;
    }
}

/// A fork made in the spare.
struct Taken {
    forked: Forked,
    /// The session the runtime runs (for a pending fork, with the file Pi will write).
    runtime_session: NativeSession,
    /// The session's last entry (where the runtime's `get_entries` starts).
    leaf: Option<String>,
}

/// The fork, in the spare's process: `source_file` is set once the source is known, `created`
/// as soon as Pi has switched to a new session file.
async fn fork_in(
    process: &RpcProcess,
    request: &ForkRequest<'_>,
    source_file: &mut Option<PathBuf>,
    created: &mut Option<PathBuf>,
) -> HarnessResult<Taken> {
    let prepared = prepare(request)?;
    if prepared.into.is_some() {
        return Err(HarnessError::Unsupported(
            "a warm pi spare cannot fork into another folder".into(),
        ));
    }
    let source = request.source;
    let path = prepared.path;
    *source_file = Some(path.clone());
    check_source(&path, source)?;
    let client = process.client();
    let switched = Instant::now();
    switch_to(&client, &path).await?;
    tracing::debug!(
        ms = switched.elapsed().as_millis() as u64,
        "pi spare switched to the source"
    );
    let session = |id: String, file: Option<PathBuf>| NativeSession {
        kind: HarnessKind::Pi,
        session_id: id,
        path: file,
        cwd: source.cwd.clone(),
    };
    match prepared.plan {
        Plan::Fresh => {
            command(&client, "new_session", json!({})).await?;
            let (file, id) = state(&client, REQUEST_TIMEOUT).await?;
            if same_file(&file, &path) {
                return Err(client
                    .failure("pi new_session stayed on the source", STDERR_WAIT)
                    .await);
            }
            // Written with the first prompt only; if Pi wrote it already, it is removed on
            // failure like a native fork's.
            *created = Some(file.clone());
            let forked = session(id.clone(), None);
            Ok(Taken {
                forked: Forked {
                    session: forked.clone(),
                    pending: Some(PendingFork {
                        source: None,
                        session: forked,
                        resume_at: None,
                    }),
                },
                runtime_session: session(id, Some(file)),
                leaf: None,
            })
        }
        Plan::Native { keep_to, at } => {
            let (file, id) = steps::run(&client, &path, &keep_to, &at, created).await?;
            check_written(&file)?;
            let leaf = session_files::last_entry_id(&file);
            let forked = session(id, Some(file));
            Ok(Taken {
                forked: Forked {
                    session: forked.clone(),
                    pending: None,
                },
                runtime_session: forked,
                leaf,
            })
        }
    }
}

/// `switch_session` to the source; `get_state` in [`steps::run`] confirms where Pi is.
async fn switch_to(client: &RpcClient, source: &Path) -> HarnessResult<()> {
    let fields = json!({ "sessionPath": source.as_os_str().to_string_lossy() });
    command(client, "switch_session", fields).await
}

/// A command that must succeed and not be cancelled (by an extension's `session_before_*`).
async fn command(client: &RpcClient, kind: &str, fields: Value) -> HarnessResult<()> {
    let response = steps::ask(client, kind, fields, REQUEST_TIMEOUT).await?;
    if !response.success {
        let why = response.error.unwrap_or_default();
        return Err(client
            .failure(format!("pi {kind} failed: {why}"), STDERR_WAIT)
            .await);
    }
    if response.data.get("cancelled").and_then(Value::as_bool) == Some(true) {
        return Err(client
            .failure(format!("pi {kind} was cancelled"), STDERR_WAIT)
            .await);
    }
    Ok(())
}

/// Project agent config (`.pi/`) in `cwd` or a folder above it (the user's own `~/.pi`, in
/// `home`, aside): the Host then starts Pi with its trust decision, which a spare cannot know.
fn has_project_config(cwd: &Path, home: Option<&Path>) -> bool {
    cwd.ancestors()
        .filter(|dir| home.is_none_or(|home| !same_file(dir, home)))
        .any(|dir| dir.join(".pi").exists())
}

/// The home folder Pi sees: `HOME` in the harness's environment, else this process's.
fn home_of(env: &[(String, String)]) -> Option<PathBuf> {
    env.iter()
        .rev()
        .find(|(k, _)| k == "HOME")
        .map(|(_, v)| PathBuf::from(v))
        .or_else(dirs::home_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spare_loads_no_projects_pi_folder() {
        assert!(spare_args().contains(&OsString::from("--no-approve")));
    }

    #[test]
    fn project_config_is_found_above_the_folder() {
        let root = std::env::temp_dir().join(format!("forkhost-pi-spare-{}", uuid::Uuid::new_v4()));
        let inner = root.join("a").join("b");
        std::fs::create_dir_all(&inner).unwrap();
        assert!(!has_project_config(&inner, None));
        std::fs::create_dir(root.join("a").join(".pi")).unwrap();
        assert!(has_project_config(&inner, None));
        // The home folder's `.pi` is the user's own settings.
        assert!(!has_project_config(&inner, Some(&root.join("a"))));
        std::fs::remove_dir_all(&root).unwrap();
    }
}
