//! Running the `forkhost` binary in a test: its harness environment (temp HOME, fake model),
//! its own data folder, `--json`, no terminal, and a timeout that kills a hang.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::fake_model::{FakeModel, FakeModelOptions};
use crate::harness_env::{Harness, HarnessEnv};

/// How long one `forkhost` call may take before the test fails.
const LIMIT: Duration = Duration::from_secs(120);

/// The `forkhost` binary next to the running test's own build output.
pub fn forkhost_bin() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap();
    let bin = dir.join(format!("forkhost{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "build the CLI first: cargo build -p forkhost-cli ({})",
        bin.display()
    );
    bin
}

/// `forkhost` for one test: its harness environment and data folder.
pub struct Cli<'a> {
    pub env: &'a HarnessEnv,
    pub data: &'a Path,
}

/// Runs `body` with a `Cli` for `harness`: a fake model of its own, the harness's temporary
/// HOME and a fresh data folder. Without the harness CLI installed it returns at once, as every
/// real-harness test does (`FORKHOST_REQUIRE_HARNESSES=1` makes that a failure instead).
pub fn with_cli(harness: Harness, body: impl FnOnce(&Cli)) {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(env) = HarnessEnv::for_fake(harness, &model).unwrap() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    body(&Cli {
        env: &env,
        data: data.path(),
    });
}

impl Cli<'_> {
    /// Runs `forkhost --json ARGS` with no terminal; returns (success, stdout JSON, stderr).
    pub fn run(&self, args: &[&str]) -> (bool, Value, String) {
        let mut cmd = Command::new(forkhost_bin());
        self.env.apply_std(&mut cmd);
        cmd.arg("--json")
            .arg("--data-dir")
            .arg(self.data)
            .args(args);
        let out = run_with_timeout(cmd, LIMIT);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let json: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
            panic!("forkhost {args:?} printed no JSON ({e}):\n{stdout}\n--- stderr\n{stderr}")
        });
        (out.status.success(), json, stderr)
    }

    /// A call that must succeed: its JSON.
    pub fn ok(&self, args: &[&str]) -> Value {
        self.ok_logged(args).0
    }

    /// A call that must succeed: its JSON and what it said on stderr.
    pub fn ok_logged(&self, args: &[&str]) -> (Value, String) {
        let (ok, json, stderr) = self.run(args);
        assert!(ok, "forkhost {args:?} failed: {json}\n{stderr}");
        (json, stderr)
    }

    /// A call that must fail: its `error` object (`code`, `message`).
    pub fn err(&self, args: &[&str]) -> Value {
        let (ok, json, _) = self.run(args);
        assert!(!ok, "forkhost {args:?} should fail: {json}");
        json["error"].clone()
    }

    /// A call that must fail: its error code.
    pub fn err_code(&self, args: &[&str]) -> String {
        self.err(args)["code"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

/// Runs `cmd` (stdin closed, output captured); kills it and fails after `limit`.
pub fn run_with_timeout(mut cmd: Command, limit: Duration) -> Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(pid.to_string()).status();
            panic!("forkhost hung for {limit:?}");
        }
    }
}
