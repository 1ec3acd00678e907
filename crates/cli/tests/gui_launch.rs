//! A GUI launch (Finder, the Dock, a `.desktop` file) gets a bare `PATH` and no terminal; the
//! harnesses must still be found where the user's shell would find them, and an npm shim
//! (`#!/usr/bin/env node`) must start although its `node` is only on the login shell's `PATH`.
//! The app reads the login shell on such a launch by itself (`start_for_app`); the CLI only
//! with `FORKHOST_LOGIN_SHELL=1`, which these tests use to stand in for the app's Host.
#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Stdio};

fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    forkhost_test_script::write_executable(path, text).unwrap();
}

struct Machine {
    root: tempfile::TempDir,
}

impl Machine {
    /// A home with Claude Code's native install in `~/.local/bin`, and an nvm-like folder that
    /// only the login shell puts on PATH, holding `node` and npm's `pi` shim.
    fn new() -> Self {
        let root = tempfile::tempdir().unwrap();
        let home = root.path().join("home");
        executable(
            &home.join(".local/bin/claude"),
            "#!/bin/sh\necho '2.1.332 (Claude Code)'\n",
        );
        let login_only = root.path().join("login-only/bin");
        // Not JavaScript: if a `node` from /usr/bin ran the shim instead, no version comes out.
        executable(
            &login_only.join("pi"),
            "#!/usr/bin/env node\nthis is not javascript\n",
        );
        executable(
            &login_only.join("node"),
            "#!/bin/sh\n# the login shell's node: runs the shim it is given\necho 1.6.0\n",
        );
        // A login shell whose rc files print a banner and set the PATH the user's terminal has.
        executable(
            &root.path().join("fake-zsh"),
            &format!(
                "#!/bin/sh\necho 'Last login: today'\nPATH={}:/usr/bin:/bin\nexport PATH\nshift\nexec /bin/sh -c \"$1\"\n",
                login_only.display()
            ),
        );
        Machine { root }
    }

    fn doctor(&self, login_shell: Option<&str>) -> serde_json::Value {
        let home = self.root.path().join("home");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_forkhost"));
        cmd.env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &home)
            .env("SHELL", self.root.path().join("fake-zsh"))
            .env("FORKHOST_DATA_DIR", self.root.path().join("data"))
            .args(["doctor", "--json"])
            // No terminal anywhere, as from Finder.
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .stdout(Stdio::piped());
        if let Some(value) = login_shell {
            cmd.env("FORKHOST_LOGIN_SHELL", value);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "doctor failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    }
}

fn harness<'a>(doc: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    doc["harnesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"] == name)
        .unwrap()
}

#[test]
fn a_gui_launch_finds_harnesses_where_the_users_shell_would() {
    let machine = Machine::new();
    let doc = machine.doctor(Some("1"));
    let claude = harness(&doc, "claude");
    assert_eq!(claude["version"], "2.1.332", "{claude}");
    assert_eq!(claude["found_by"], "fallback", "{claude}");
    assert!(claude["path"]
        .as_str()
        .unwrap()
        .ends_with("home/.local/bin/claude"));
    let pi = harness(&doc, "pi");
    assert_eq!(
        pi["version"], "1.6.0",
        "the shim ran with the login shell's node: {pi}"
    );
    assert_eq!(pi["found_by"], "login_shell", "{pi}");
    let codex = harness(&doc, "codex");
    assert!(
        codex["error"].as_str().unwrap().contains("not on PATH"),
        "{codex}"
    );
}

#[test]
fn without_the_login_shell_only_the_install_folders_are_added() {
    let machine = Machine::new();
    // Off, and the CLI's default: the caller's PATH plus the usual install folders.
    for setting in [Some("0"), None] {
        let doc = machine.doctor(setting);
        assert_eq!(harness(&doc, "claude")["found_by"], "fallback");
        let pi = harness(&doc, "pi");
        assert!(pi["version"].is_null(), "{pi}");
        assert!(
            pi["error"].as_str().unwrap().contains("not on PATH"),
            "{pi}"
        );
    }
}
