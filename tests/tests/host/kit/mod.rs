//! The pieces every Host-level test (`host_*.rs`) builds on: a fake model and a temporary
//! harness home per test, a Host over its own data folder, a turn run to its end (answering
//! what it asks), a git runner that ignores the user's config, and the Pi extension that asks
//! before every command.
//!
//! Each test binary compiles this whole module but calls only part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use forkhost_core::{
    ApprovalDecision, HarnessKind, Host, HostEvent, HostOptions, NewThreadSpec, PermissionMode,
    SubjectView, TurnOutcome,
};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

/// How long one turn may take before the test fails.
pub const TURN: Duration = Duration::from_secs(120);

/// A Pi extension asking before every bash call (the shape of Pi's own
/// `examples/extensions/permission-gate.ts`); "Yes" lets it run, anything else blocks it.
pub const PI_GATE: &str = r#"export default function (pi) {
  pi.on("tool_call", async (event, ctx) => {
    if (event.toolName !== "bash") return undefined;
    const choice = await ctx.ui.select(`Run ${event.input.command}?`, ["Yes", "No"]);
    if (choice !== "Yes") return { block: true, reason: "Blocked by the user" };
    return undefined;
  });
}
"#;

/// One test's world: the fake model, the harness's temporary home, the Host's data folder.
pub struct Setup {
    pub model: FakeModel,
    pub env: HarnessEnv,
    pub data: tempfile::TempDir,
}

/// `None` (the test skips, and says so) when the harness's binary is not configured.
pub async fn setup(harness: Harness) -> Option<Setup> {
    let model = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let env = HarnessEnv::for_fake(harness, &model).unwrap()?;
    Some(Setup {
        model,
        env,
        data: tempfile::tempdir().unwrap(),
    })
}

impl Setup {
    pub async fn host(&self) -> Host {
        self.host_with(|_| {}).await
    }

    /// A Host with options changed by `change` (harness environment already set).
    pub async fn host_with(&self, change: impl FnOnce(&mut HostOptions)) -> Host {
        let mut options = HostOptions {
            harness_env: self.env.vars().to_vec(),
            ..Default::default()
        };
        change(&mut options);
        Host::open_with(self.data.path(), options).await.unwrap().0
    }

    pub fn kind(&self) -> HarnessKind {
        self.env.harness.name().parse().unwrap()
    }

    /// A new thread of this harness in the work folder.
    pub fn spec(&self, permissions: PermissionMode) -> NewThreadSpec {
        NewThreadSpec {
            harness: self.kind(),
            cwd: self.env.work_dir().to_owned(),
            title: None,
            permissions,
        }
    }

    pub async fn thread(&self, host: &Host, permissions: PermissionMode) -> String {
        host.create(self.spec(permissions)).await.unwrap().thread.id
    }
}

/// A permission mode in the harness's words.
pub fn mode(mode: Option<&str>, sandbox: Option<&str>) -> PermissionMode {
    PermissionMode {
        mode: mode.map(Into::into),
        sandbox: sandbox.map(Into::into),
    }
}

/// Runs one turn of `prompt` in `thread`, answering each approval with `decision` and
/// dismissing each question; returns how many requests were shown, and the outcome.
pub async fn turn_answering(
    host: &Host,
    thread: &str,
    prompt: &str,
    decision: ApprovalDecision,
) -> (usize, TurnOutcome) {
    let mut events = host.subscribe();
    let done = host.start_turn(thread, prompt).await.unwrap();
    let mut asked = 0;
    let ended = tokio::time::timeout(TURN, async {
        loop {
            match events.recv().await.unwrap() {
                HostEvent::ApprovalRequested { thread_id, request } if thread_id == thread => {
                    asked += 1;
                    match request.subject {
                        SubjectView::Question { .. } => {
                            host.answer_question(thread, &request.id, None).await
                        }
                        _ => host.answer_approval(thread, &request.id, decision).await,
                    }
                    .unwrap();
                }
                HostEvent::TurnEnded { thread_id, .. } if thread_id == thread => break,
                _ => {}
            }
        }
    })
    .await;
    ended.expect("turn hung");
    let outcome = tokio::time::timeout(TURN, done).await.expect("turn hung");
    (asked, outcome.unwrap())
}

/// Runs one turn that must complete without asking anything.
pub async fn turn(host: &Host, thread: &str, prompt: &str) {
    let ran = turn_answering(host, thread, prompt, ApprovalDecision::Decline).await;
    assert_eq!(ran, (0, TurnOutcome::Completed), "{prompt}");
}

/// A source thread of two turns ("first question", "second question"): its id, its native
/// file and that file's bytes (to check a fork left it untouched).
pub async fn two_turn_source(s: &Setup, host: &Host) -> (String, PathBuf, Vec<u8>) {
    let id = s.thread(host, Default::default()).await;
    turn(host, &id, "first question").await;
    turn(host, &id, "second question").await;
    let path = host.show(&id).await.unwrap().thread.native.path.unwrap();
    // No bytes for an agent whose sessions are database rows (OpenCode): its tests compare
    // the turns read back instead.
    let bytes = std::fs::read(&path).unwrap_or_default();
    (id, path.into(), bytes)
}

/// Runs git in `dir` without the user's or the system's config; its stdout. A repository of
/// another local user (a remote host's, in the remote tests) is read too.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["-c", "user.name=Test", "-c", "user.email=test@localhost"])
        .args(["-c", "safe.directory=*"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The variable that tells a test it runs in the child [`in_a_child_with_global_git_config`]
/// started, and names that child's global git config.
const GIT_CHILD: &str = "FORKHOST_TEST_GLOBAL_GITCONFIG";

/// For a test that needs a git filter driver to reach the Host's own git calls. Forkhost runs
/// no driver defined in a repository's own `.git/config` (review M-6), only the user's global
/// ones, and the global config is the process's (`GIT_CONFIG_GLOBAL`), which tests running
/// side by side in this binary share. So the test re-runs itself alone in a child process whose
/// `GIT_CONFIG_GLOBAL` is a file of its own: in the parent this waits for that child, asserts
/// it passed and returns `None`; in the child it returns the config file's path, where the test
/// writes its drivers (`git config --file PATH …`).
pub fn in_a_child_with_global_git_config(module_path: &str, test: &str) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(GIT_CHILD) {
        return Some(PathBuf::from(path));
    }
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("gitconfig");
    std::fs::write(&config, "").unwrap();
    let name = forkhost_tests::test_name(module_path, test);
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(GIT_CHILD, &config)
        .env("GIT_CONFIG_GLOBAL", &config)
        .output()
        .unwrap();
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}");
    assert!(out.status.success(), "{name} failed in its child:\n{text}");
    assert!(
        text.contains("1 passed"),
        "{name} did not run in its child:\n{text}"
    );
    None
}

/// Sets `key` to `value` in the git config file `file` (a test's global config).
pub fn git_config_file(file: &Path, key: &str, value: &str) {
    let out = Command::new("git")
        .args(["config", "--file"])
        .arg(file)
        .args([key, value])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git config --file {} {key}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}
