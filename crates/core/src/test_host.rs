//! For the core's own tests: a real Host on a real store in a temporary folder, with one
//! Claude thread imported from a transcript written into a temporary HOME (no harness program
//! runs), and a stand-in for a harness process to attach to it ([`StandIn`]), so the Host's
//! own decisions (what is answered, stored, stopped) are tested in process. The end-to-end
//! tests in `tests/` drive the real CLIs.

use std::sync::{Arc, Mutex};

use forkhost_harness::{HarnessKind, HarnessResult, LiveRuntime, PermissionMode, Runtime};

use crate::host::Host;
use crate::thread_handle::{AttachedRuntime, TurnState};

const SESSION: &str = "5a0e6a7c-1111-4222-8333-444455556666";

pub(crate) struct TestHost {
    _home: tempfile::TempDir,
    _data: tempfile::TempDir,
    pub host: Host,
    /// The imported thread's id.
    pub thread: String,
}

/// The Host and its one thread (one turn: "prompt 1", "reply 1").
pub(crate) async fn with_claude_thread() -> TestHost {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join(".claude/projects/-w");
    std::fs::create_dir_all(&project).unwrap();
    let common = |uuid: &str, parent: serde_json::Value| {
        serde_json::json!({
            "parentUuid": parent, "isSidechain": false, "uuid": uuid,
            "timestamp": "2026-12-05T04:00:01.000Z", "cwd": "/w",
            "sessionId": SESSION, "version": "2.1.332",
        })
    };
    let mut user = common("u1", serde_json::Value::Null);
    user["type"] = "user".into();
    user["message"] = serde_json::json!({"role": "user", "content": "prompt 1"});
    let mut reply = common("r1", "u1".into());
    reply["type"] = "assistant".into();
    reply["message"] = serde_json::json!({
        "id": "msg_1", "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": "reply 1"}], "stop_reason": "end_turn",
    });
    std::fs::write(
        project.join(format!("{SESSION}.jsonl")),
        format!("{user}\n{reply}\n"),
    )
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let options = crate::HostOptions {
        harness_env: vec![("HOME".into(), home.path().display().to_string())],
        ..Default::default()
    };
    let (host, _) = Host::open_with(data.path(), options).await.unwrap();
    let thread = host
        .import(HarnessKind::Claude, SESSION)
        .await
        .unwrap()
        .thread
        .id;
    TestHost {
        _home: home,
        _data: data,
        host,
        thread,
    }
}

/// What a [`StandIn`] was asked, for the test to read.
#[derive(Debug, Default)]
pub(crate) struct StandInLog {
    pub modes: Vec<PermissionMode>,
    pub closed: bool,
}

/// Stands in for a harness process: answers `set_mode` with what the test chose, and
/// records what it was asked.
pub(crate) struct StandIn {
    pub set_mode: fn() -> HarnessResult<bool>,
    pub log: Arc<Mutex<StandInLog>>,
}

#[async_trait::async_trait]
impl LiveRuntime for StandIn {
    async fn send(&mut self, _prompt: &str) -> HarnessResult<()> {
        Ok(())
    }

    async fn interrupt(&mut self) -> HarnessResult<()> {
        Ok(())
    }

    async fn set_mode(&mut self, mode: &PermissionMode) -> HarnessResult<bool> {
        self.log.lock().unwrap().modes.push(mode.clone());
        (self.set_mode)()
    }

    async fn close(self: Box<Self>) -> HarnessResult<()> {
        self.log.lock().unwrap().closed = true;
        Ok(())
    }

    fn pid(&self) -> Option<u32> {
        None
    }
}

impl TestHost {
    /// Attaches a [`StandIn`] as the thread's running process; returns its log and its turn
    /// state (begin a turn on it to make it streaming).
    pub async fn attach(
        &self,
        set_mode: fn() -> HarnessResult<bool>,
    ) -> (Arc<Mutex<StandInLog>>, Arc<TurnState>) {
        let log = Arc::new(Mutex::new(StandInLog::default()));
        let turn = Arc::new(TurnState::started());
        let runtime = Runtime::from_live(Box::new(StandIn {
            set_mode,
            log: log.clone(),
        }));
        let slot = self.host.slot(&self.thread);
        *slot.live.lock().await = Some(AttachedRuntime {
            runtime,
            pump: tokio::spawn(async {}),
            turn: turn.clone(),
        });
        (log, turn)
    }

    /// Whether a process is attached to the thread.
    pub async fn attached(&self) -> bool {
        self.host.slot(&self.thread).live.lock().await.is_some()
    }
}
