//! For the core's own tests: a real Host on a real store in a temporary folder, with one
//! Claude thread imported from a transcript written into a temporary HOME (no harness program
//! runs), and a stand-in for a harness process to attach to it ([`StandIn`]), so the Host's
//! own decisions (what is answered, stored, stopped) are tested in process. The end-to-end
//! tests in `tests/` drive the real CLIs.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use forkhost_harness::{HarnessKind, HarnessResult, LiveRuntime, PermissionMode, Runtime};

use crate::base::thread_handle::{AttachedRuntime, TurnState};
use crate::host::Host;

const SESSION: &str = "5a0e6a7c-1111-4222-8333-444455556666";

pub(crate) struct TestHost {
    home: tempfile::TempDir,
    work: tempfile::TempDir,
    _data: tempfile::TempDir,
    pub host: Host,
    /// The imported thread's id.
    pub thread: String,
    transcript_path: std::path::PathBuf,
    folder: std::path::PathBuf,
    data_dir: std::path::PathBuf,
}

/// The Host and its one thread (one turn: "prompt 1", "reply 1").
pub(crate) async fn with_claude_thread() -> TestHost {
    claude_thread(1, ClaudeProgram::None).await
}

/// Which `claude` program the Host is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClaudeProgram {
    /// None chosen: whatever a lookup finds (tests that never reach a harness).
    None,
    /// A script that only answers `--version` (2.1.332): enough for what never runs Claude,
    /// such as a lazy fork, which Claude derives at the first prompt.
    VersionOnly,
    /// A path where no program is.
    Missing,
}

/// The Host and one Claude thread of `turns` turns ("prompt N", "reply N"), in folder `/w`.
pub(crate) async fn claude_thread(turns: usize, program: ClaudeProgram) -> TestHost {
    claude_thread_in(turns, program, "w", |_| {}).await
}

/// [`claude_thread`] in the folder `folder` (relative, below the temporary work folder) of a
/// Host whose options `options` changed (the harness's HOME and program are set before).
pub(crate) async fn claude_thread_in(
    turns: usize,
    program: ClaudeProgram,
    folder: &str,
    options: impl FnOnce(&mut crate::HostOptions),
) -> TestHost {
    imported_thread(Written::Claude, turns, program, folder, options).await
}

/// The Host and one Pi thread of `turns` turns ("prompt N", "reply N"), in folder `/w`, with
/// `program` as its `claude` (the harness a conversation may continue in). No Pi is there.
pub(crate) async fn pi_thread(turns: usize, program: ClaudeProgram) -> TestHost {
    imported_thread(Written::Pi, turns, program, "w", |_| {}).await
}

/// Which harness's session file an imported thread is read from (the ones written here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Written {
    Claude,
    Pi,
}

async fn imported_thread(
    written: Written,
    turns: usize,
    program: ClaudeProgram,
    folder: &str,
    options: impl FnOnce(&mut crate::HostOptions),
) -> TestHost {
    let home = tempfile::tempdir().unwrap();
    // The thread's folder exists (a fork checks it). Outside the temporary HOME, whose
    // `.claude` would count as a parent folder's config.
    let work = tempfile::tempdir().unwrap();
    let cwd = dunce::canonicalize(work.path()).unwrap().join(folder);
    std::fs::create_dir_all(&cwd).unwrap();
    let cwd_text = cwd.display().to_string();
    // Both harnesses name the session's folder after the working folder.
    let encoded: String = cwd_text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let (transcript_path, transcript) = match written {
        Written::Claude => (
            home.path()
                .join(".claude/projects")
                .join(encoded)
                .join(format!("{SESSION}.jsonl")),
            claude_transcript(turns, &cwd_text),
        ),
        Written::Pi => (
            home.path()
                .join(".pi/agent/sessions")
                .join(format!("-{encoded}--"))
                .join(format!("2026-12-05T04-00-00-000Z_{SESSION}.jsonl")),
            pi_transcript(turns, &cwd_text),
        ),
    };
    std::fs::create_dir_all(transcript_path.parent().unwrap()).unwrap();
    std::fs::write(&transcript_path, transcript).unwrap();
    let harness_paths = match program {
        ClaudeProgram::None => Vec::new(),
        ClaudeProgram::VersionOnly => {
            // Every call is logged beside it (`<script>.calls`), for tests of what was started.
            let script = home.path().join("bin/claude");
            std::fs::create_dir_all(script.parent().unwrap()).unwrap();
            forkhost_test_script::write_executable(
                &script,
                "#!/bin/sh\necho \"$*\" >> \"$0.calls\"\necho '2.1.332 (Claude Code)'\n",
            )
            .unwrap();
            vec![(HarnessKind::Claude, script.display().to_string())]
        }
        ClaudeProgram::Missing => vec![(
            HarnessKind::Claude,
            home.path().join("bin/no-claude-here").display().to_string(),
        )],
    };
    let mut harness_paths = harness_paths;
    if written == Written::Pi {
        // Never the machine's own Pi (`FORKHOST_PI_BIN` in the suite): none is here.
        let none = home.path().join("bin/no-pi-here").display().to_string();
        harness_paths.push((HarnessKind::Pi, none));
    }
    let data = tempfile::tempdir().unwrap();
    let mut chosen = crate::HostOptions {
        harness_env: vec![("HOME".into(), home.path().display().to_string())],
        harness_paths,
        ..Default::default()
    };
    options(&mut chosen);
    let (host, _) = Host::open_with(data.path(), chosen).await.unwrap();
    let (kind, session) = match written {
        Written::Claude => (HarnessKind::Claude, SESSION.to_owned()),
        // By its path: the test wrote the file, so no lookup by id is needed.
        Written::Pi => (HarnessKind::Pi, transcript_path.display().to_string()),
    };
    let thread = host.import(kind, &session).await.unwrap().thread.id;
    TestHost {
        home,
        work,
        data_dir: data.path().to_path_buf(),
        _data: data,
        host,
        thread,
        transcript_path,
        folder: cwd,
    }
}

/// A Claude Code transcript: one user and one assistant record per turn, chained by `uuid`.
fn claude_transcript(turns: usize, cwd: &str) -> String {
    let mut transcript = String::new();
    let mut parent = serde_json::Value::Null;
    for t in 1..=turns {
        let common = |uuid: &str, parent: serde_json::Value| {
            serde_json::json!({
                "parentUuid": parent, "isSidechain": false, "uuid": uuid,
                "timestamp": format!("2026-12-05T04:00:0{t}.000Z"), "cwd": cwd,
                "sessionId": SESSION, "version": "2.1.332",
            })
        };
        let (u, r) = (format!("u{t}"), format!("r{t}"));
        let mut user = common(&u, parent);
        user["type"] = "user".into();
        user["message"] = serde_json::json!({"role": "user", "content": format!("prompt {t}")});
        let mut reply = common(&r, u.clone().into());
        reply["type"] = "assistant".into();
        reply["message"] = serde_json::json!({
            "id": format!("msg_{t}"), "type": "message", "role": "assistant",
            "content": [{"type": "text", "text": format!("reply {t}")}], "stop_reason": "end_turn",
        });
        transcript.push_str(&format!("{user}\n{reply}\n"));
        parent = r.into();
    }
    transcript
}

/// A Pi session (format v3): its header, then a user and an assistant `message` entry per turn,
/// chained by `id`/`parentId`.
fn pi_transcript(turns: usize, cwd: &str) -> String {
    let header = serde_json::json!({
        "type": "session", "version": 3, "id": SESSION,
        "timestamp": "2026-12-05T04:00:00.000Z", "cwd": cwd,
    });
    let mut transcript = format!("{header}\n");
    let mut parent = serde_json::Value::Null;
    for t in 1..=turns {
        let entry = |id: &str, parent: serde_json::Value, message: serde_json::Value| {
            serde_json::json!({
                "type": "message", "id": id, "parentId": parent,
                "timestamp": format!("2026-12-05T04:00:0{t}.000Z"), "message": message,
            })
        };
        let (u, r) = (format!("pu{t}"), format!("pr{t}"));
        let user = entry(
            &u,
            parent,
            serde_json::json!({"role": "user", "content": [{"type": "text", "text": format!("prompt {t}")}]}),
        );
        let reply = entry(
            &r,
            u.clone().into(),
            serde_json::json!({
                "role": "assistant", "content": [{"type": "text", "text": format!("reply {t}")}],
                "stopReason": "stop",
            }),
        );
        transcript.push_str(&format!("{user}\n{reply}\n"));
        parent = r.into();
    }
    transcript
}

impl TestHost {
    /// What the `claude` program was asked, one line per call (`ClaudeProgram::VersionOnly`).
    pub fn claude_calls(&self) -> Vec<String> {
        let log = self.home.path().join("bin/claude.calls");
        std::fs::read_to_string(log)
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// Replaces the thread's native transcript with `text`.
    pub fn write_transcript(&self, text: &str) {
        std::fs::write(&self.transcript_path, text).unwrap();
    }

    /// The thread's native transcript, as bytes.
    pub fn transcript(&self) -> Vec<u8> {
        std::fs::read(&self.transcript_path).unwrap()
    }

    /// Removes the thread's native transcript.
    pub fn delete_transcript(&self) {
        std::fs::remove_file(&self.transcript_path).unwrap();
    }

    /// The thread's folder (real path, no symlinks).
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The temporary folder holding the thread's folder (real path), for other repositories.
    pub fn work(&self) -> PathBuf {
        dunce::canonicalize(self.work.path()).unwrap()
    }

    /// How many `creating` rows the store holds (forks under way, or left by a failed one):
    /// read straight from its file, as no query of the store shows them.
    pub async fn creating_rows(&self) -> i64 {
        use sqlx::{ConnectOptions, Connection};
        let file = self.data_dir.join(crate::data_dir::STORE_FILE);
        let mut conn = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(file)
            .read_only(true)
            .connect()
            .await
            .unwrap();
        let count: (i64,) = sqlx::query_as("SELECT COUNT(*) FROM threads WHERE state = 'creating'")
            .fetch_one(&mut conn)
            .await
            .unwrap();
        conn.close().await.unwrap();
        count.0
    }

    /// The harnesses' HOME (temporary).
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// The Host's data folder (its store, its fork worktrees).
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }
}

/// Runs git in `dir` without the user's or the system's config (and with a HOME of its own),
/// failing the test when git does; its stdout, trimmed.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("HOME", dir)
        .env("XDG_CONFIG_HOME", dir)
        .args(["-c", "user.name=Test", "-c", "user.email=test@localhost"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// Makes `dir` a git repository on branch `main` with one commit holding `a.txt` ("a").
pub(crate) fn committed_repo(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("a.txt"), "a\n").unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "start"]);
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
        self.attach_to(&self.thread, set_mode).await
    }

    /// [`TestHost::attach`] to another thread of the Host (a fork).
    pub async fn attach_to(
        &self,
        thread: &str,
        set_mode: fn() -> HarnessResult<bool>,
    ) -> (Arc<Mutex<StandInLog>>, Arc<TurnState>) {
        let log = Arc::new(Mutex::new(StandInLog::default()));
        let turn = Arc::new(TurnState::started());
        let runtime = Runtime::from_live(Box::new(StandIn {
            set_mode,
            log: log.clone(),
        }));
        let slot = self.host.handle(thread);
        *slot.live.lock().await = Some(AttachedRuntime {
            runtime,
            pump: tokio::spawn(async {}),
            turn: turn.clone(),
        });
        (log, turn)
    }

    /// Whether a process is attached to the thread.
    pub async fn attached(&self) -> bool {
        self.host.handle(&self.thread).live.lock().await.is_some()
    }
}
