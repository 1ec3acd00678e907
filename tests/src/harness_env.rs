//! A temporary HOME for one harness CLI, pointed at a [`FakeModel`], and a one-shot runner.
//!
//! ```no_run
//! # async fn demo() -> anyhow::Result<()> {
//! use std::time::Duration;
//! use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
//! use forkhost_tests::harness_env::{Harness, HarnessEnv};
//! let fake = FakeModel::start(FakeModelOptions::default()).await?;
//! let Some(env) = HarnessEnv::for_fake(Harness::Claude, &fake)? else {
//!     return Ok(()); // FORKHOST_CLAUDE_BIN not set: skipped (a failure when required)
//! };
//! let first = env.run_prompt("hello", None, Duration::from_secs(60)).await?;
//! let second = env
//!     .run_prompt("again", first.session_id.as_deref(), Duration::from_secs(60))
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! What each harness gets (`docs/harness-behaviour.md` says what each CLI did with it):
//!
//! * every harness: `HOME` and `XDG_{CONFIG,CACHE,DATA,STATE}_HOME` inside the temp dir, and no
//!   inherited `ANTHROPIC_*`, `CLAUDE*`, `CODEX_*`, `OPENAI_*`, `PI_*` variables;
//! * **Claude**: `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY=dummy`,
//!   `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`, `DISABLE_TELEMETRY=1`,
//!   `DISABLE_ERROR_REPORTING=1`, `DISABLE_AUTOUPDATER=1`, and a pre-seeded `~/.claude.json`
//!   (onboarding done, the work dir trusted, the API key approved);
//! * **Codex**: `CODEX_HOME=~/.codex` holding a `config.toml` whose `fake` model provider is
//!   the fake server (`wire_api = "responses"`), approval `never`, no sandbox, the work dir
//!   trusted; the provider's key comes from `FORKHOST_FAKE_API_KEY=dummy`;
//! * **Pi**: `PI_CODING_AGENT_DIR=~/.pi/agent` holding `models.json` (provider `fake`,
//!   `openai-completions`) and `settings.json` (it is the default), `PI_OFFLINE=1`,
//!   `PI_TELEMETRY=0`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use serde_json::{json, Value};

use crate::fake_model::FakeModel;
use crate::need::{need, Group};

/// The API key every harness sends to the fake model.
pub const FAKE_API_KEY: &str = "dummy";
/// The model id the harnesses are configured with (Claude keeps its own default model name).
pub const FAKE_MODEL_ID: &str = "fake-model";
/// Pi's second model in the fake provider (see [`FAKE_MODEL_ID`]).
pub const FAKE_MODEL_B_ID: &str = "fake-model-b";
/// The provider name in Codex's and Pi's config.
pub const FAKE_PROVIDER: &str = "fake";

/// Inherited variables with these prefixes are removed from a harness's environment.
const SCRUBBED_PREFIXES: [&str; 6] = [
    "ANTHROPIC_",
    "CLAUDE",
    "CODEX_",
    "OPENAI_",
    "PI_",
    "FORKHOST_FAKE",
];

/// One of the harness CLIs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Harness {
    Claude,
    Codex,
    Pi,
    /// OpenCode over ACP; not in [`Harness::ALL`], whose suites drive the three native
    /// harnesses' own CLIs.
    Opencode,
}

impl Harness {
    pub const ALL: [Harness; 3] = [Harness::Claude, Harness::Codex, Harness::Pi];

    pub fn name(self) -> &'static str {
        match self {
            Harness::Claude => "claude",
            Harness::Codex => "codex",
            Harness::Pi => "pi",
            Harness::Opencode => "opencode",
        }
    }

    /// The variable naming the CLI's binary, as `scripts/install-harnesses.sh` prints it.
    pub fn bin_var(self) -> &'static str {
        match self {
            Harness::Claude => "FORKHOST_CLAUDE_BIN",
            Harness::Codex => "FORKHOST_CODEX_BIN",
            Harness::Pi => "FORKHOST_PI_BIN",
            Harness::Opencode => "FORKHOST_OPENCODE_BIN",
        }
    }

    /// The CLI binary from [`Harness::bin_var`], if set and non-empty.
    pub fn bin(self) -> Option<PathBuf> {
        std::env::var_os(self.bin_var())
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    }
}

/// A temporary HOME (and work dir) set up for one harness; deleted on drop.
pub struct HarnessEnv {
    pub harness: Harness,
    root: tempfile::TempDir,
    home: PathBuf,
    work_dir: PathBuf,
    vars: Vec<(String, String)>,
    bin: Option<PathBuf>,
}

/// The outcome of one [`HarnessEnv::run_prompt`].
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// The exit code (`None` if killed by a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    /// The session id the CLI reported (Claude `session_id`, Codex `thread_id`, Pi session id).
    pub session_id: Option<String>,
    /// The final assistant text the CLI reported.
    pub reply: Option<String>,
}

impl RunOutput {
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

impl std::fmt::Display for RunOutput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?} after {:?}, session {:?}, reply {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.elapsed, self.session_id, self.reply, self.stdout, self.stderr
        )
    }
}

impl HarnessEnv {
    /// Sets up `harness` against `fake`, or `None` (the test skips, and says so) when its
    /// `FORKHOST_*_BIN` is not set. Under `FORKHOST_REQUIRE_HARNESSES=1` a missing binary
    /// panics instead (see [`crate::need`]).
    pub fn for_fake(harness: Harness, fake: &FakeModel) -> anyhow::Result<Option<HarnessEnv>> {
        if need(Group::Harness, harness.bin_var()).is_none() {
            return Ok(None);
        }
        Ok(Some(HarnessEnv::new(harness, &fake.base_url())?))
    }

    /// Sets up `harness` against the fake model at `base_url` (`http://127.0.0.1:PORT`, no
    /// `/v1`). The binary comes from the harness's `FORKHOST_*_BIN` (may be unset).
    pub fn new(harness: Harness, base_url: &str) -> anyhow::Result<HarnessEnv> {
        HarnessEnv::shared(&[harness], base_url)
    }

    /// One temporary HOME and work dir set up for every harness of `harnesses` against the
    /// fake model (for a Host that runs them side by side); `None` when one of their binaries
    /// is missing and the suite allows skipping. `harness` is the first of them.
    pub fn for_fake_all(
        harnesses: &[Harness],
        fake: &FakeModel,
    ) -> anyhow::Result<Option<HarnessEnv>> {
        for harness in harnesses {
            if need(Group::Harness, harness.bin_var()).is_none() {
                return Ok(None);
            }
        }
        Ok(Some(HarnessEnv::shared(harnesses, &fake.base_url())?))
    }

    fn shared(harnesses: &[Harness], base_url: &str) -> anyhow::Result<HarnessEnv> {
        let harness = harnesses[0];
        let base_url = base_url.trim_end_matches('/').to_string();
        let root = tempfile::Builder::new()
            .prefix(&format!("forkhost-{}-", harness.name()))
            .tempdir()?;
        let root_path = root.path().canonicalize()?;
        let home = root_path.join("home");
        let work_dir = root_path.join("work");
        std::fs::create_dir_all(&home)?;
        std::fs::create_dir_all(&work_dir)?;
        let s = |p: &Path| p.to_string_lossy().into_owned();
        let mut vars = home_vars(&home);
        for &harness in harnesses {
            match harness {
                Harness::Claude => {
                    vars.extend(
                        [
                            ("ANTHROPIC_BASE_URL", base_url.as_str()),
                            ("ANTHROPIC_API_KEY", FAKE_API_KEY),
                            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
                            ("DISABLE_TELEMETRY", "1"),
                            ("DISABLE_ERROR_REPORTING", "1"),
                            ("DISABLE_AUTOUPDATER", "1"),
                        ]
                        .map(|(k, v)| (k.to_string(), v.to_string())),
                    );
                    // The pre-seeded config skips Claude's onboarding, trust and API-key dialogs.
                    let key_tail: String = {
                        let chars: Vec<char> = FAKE_API_KEY.chars().collect();
                        chars[chars.len().saturating_sub(20)..].iter().collect()
                    };
                    let mut projects = serde_json::Map::new();
                    projects.insert(
                    s(&work_dir),
                    json!({ "hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true }),
                );
                    let config = json!({
                        "hasCompletedOnboarding": true,
                        "projects": projects,
                        "customApiKeyResponses": { "approved": [key_tail], "rejected": [] }
                    });
                    std::fs::write(
                        home.join(".claude.json"),
                        serde_json::to_string_pretty(&config)?,
                    )?;
                }
                Harness::Codex => {
                    let codex_home = home.join(".codex");
                    std::fs::create_dir_all(&codex_home)?;
                    let config = format!(
                        r#"model = "{FAKE_MODEL_ID}"
model_provider = "{FAKE_PROVIDER}"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.{FAKE_PROVIDER}]
name = "Forkhost fake model"
base_url = "{base_url}/v1"
wire_api = "responses"
env_key = "FORKHOST_FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[projects."{work}"]
trust_level = "trusted"
"#,
                        work = s(&work_dir)
                    );
                    std::fs::write(codex_home.join("config.toml"), config)?;
                    vars.push(("CODEX_HOME".into(), s(&codex_home)));
                    vars.push(("FORKHOST_FAKE_API_KEY".into(), FAKE_API_KEY.into()));
                }
                Harness::Pi => {
                    let agent_dir = home.join(".pi/agent");
                    std::fs::create_dir_all(&agent_dir)?;
                    let models = json!({ "providers": { FAKE_PROVIDER: {
                        "baseUrl": format!("{base_url}/v1"),
                        "api": "openai-completions",
                        "apiKey": FAKE_API_KEY,
                        "compat": { "supportsDeveloperRole": false, "supportsReasoningEffort": false },
                        // A second model, so a test can tell choices apart (the fake model
                        // records each request's `model`).
                        "models": [{ "id": FAKE_MODEL_ID, "name": "Forkhost fake model",
                                     "contextWindow": 32000, "maxTokens": 1024 },
                                   { "id": FAKE_MODEL_B_ID, "name": "Forkhost fake model B",
                                     "contextWindow": 32000, "maxTokens": 1024 }]
                    }}});
                    std::fs::write(
                        agent_dir.join("models.json"),
                        serde_json::to_string_pretty(&models)?,
                    )?;
                    let settings = json!({
                        "defaultProvider": FAKE_PROVIDER,
                        "defaultModel": FAKE_MODEL_ID,
                        "defaultThinkingLevel": "off"
                    });
                    std::fs::write(
                        agent_dir.join("settings.json"),
                        serde_json::to_string_pretty(&settings)?,
                    )?;
                    vars.extend(
                        [
                            ("PI_CODING_AGENT_DIR", s(&agent_dir)),
                            ("PI_OFFLINE", "1".into()),
                            ("PI_TELEMETRY", "0".into()),
                        ]
                        .map(|(k, v)| (k.to_string(), v)),
                    );
                }
                Harness::Opencode => {
                    write_opencode_config(&home, &base_url, false)?;
                    vars.extend(quiet_opencode_vars());
                }
            }
        }
        Ok(HarnessEnv {
            harness,
            root,
            home,
            work_dir,
            vars,
            bin: harness.bin(),
        })
    }

    /// The temporary HOME.
    pub fn home(&self) -> &Path {
        &self.home
    }

    /// A fresh, empty directory to run the CLI in (trusted in the harness's config).
    pub fn work_dir(&self) -> &Path {
        &self.work_dir
    }

    /// The temp dir holding `home/` and `work/`.
    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The variables to set (HOME, the harness's own, …).
    pub fn vars(&self) -> &[(String, String)] {
        &self.vars
    }

    /// The inherited variables to remove.
    pub fn scrubbed_vars(&self) -> Vec<String> {
        std::env::vars_os()
            .filter_map(|(k, _)| k.into_string().ok())
            .filter(|k| SCRUBBED_PREFIXES.iter().any(|p| k.starts_with(p)))
            .filter(|k| !self.vars.iter().any(|(v, _)| v == k))
            .collect()
    }

    /// The CLI binary, if its `FORKHOST_*_BIN` was set.
    pub fn bin(&self) -> Option<&Path> {
        self.bin.as_deref()
    }

    /// Applies the environment and the work dir to a `std::process::Command`.
    pub fn apply_std(&self, cmd: &mut std::process::Command) {
        for k in self.scrubbed_vars() {
            cmd.env_remove(k);
        }
        cmd.envs(self.vars.iter().map(|(k, v)| (k, v)));
        cmd.current_dir(&self.work_dir);
    }

    /// Applies the environment and the work dir to a `tokio::process::Command`.
    pub fn apply(&self, cmd: &mut tokio::process::Command) {
        for k in self.scrubbed_vars() {
            cmd.env_remove(k);
        }
        cmd.envs(self.vars.iter().map(|(k, v)| (k, v)));
        cmd.current_dir(&self.work_dir);
    }

    /// A command for the CLI with the environment applied.
    pub fn command(&self) -> anyhow::Result<tokio::process::Command> {
        let bin = self
            .bin
            .as_ref()
            .with_context(|| format!("{} is not set", self.harness.bin_var()))?;
        let mut cmd = tokio::process::Command::new(bin);
        self.apply(&mut cmd);
        Ok(cmd)
    }

    /// The arguments of a one-shot prompt, resuming session `resume` if given.
    pub fn prompt_args(&self, prompt: &str, resume: Option<&str>) -> anyhow::Result<Vec<String>> {
        let mut args: Vec<String> = Vec::new();
        match self.harness {
            Harness::Claude => {
                args.extend(
                    ["-p", "--output-format", "json", "--allowedTools", "Bash"].map(Into::into),
                );
                if let Some(sid) = resume {
                    args.extend(["--resume".into(), sid.into()]);
                }
                args.extend(["--".into(), prompt.into()]);
            }
            Harness::Codex => {
                args.push("exec".into());
                if resume.is_some() {
                    args.push("resume".into());
                }
                args.extend(["--json", "--skip-git-repo-check"].map(Into::into));
                if let Some(sid) = resume {
                    args.push(sid.into());
                }
                args.push(prompt.into());
            }
            Harness::Pi => {
                args.extend(
                    [
                        "--mode",
                        "json",
                        "-p",
                        "--provider",
                        FAKE_PROVIDER,
                        "--model",
                        FAKE_MODEL_ID,
                    ]
                    .map(Into::into),
                );
                if let Some(sid) = resume {
                    let path = self.pi_session_file(sid).with_context(|| {
                        format!("no pi session file for {sid} under {}", self.home.display())
                    })?;
                    args.extend(["--session".into(), path.to_string_lossy().into_owned()]);
                }
                args.extend(["--".into(), prompt.into()]);
            }
            Harness::Opencode => bail!("OpenCode is driven over ACP, not by one-shot prompts"),
        }
        Ok(args)
    }

    /// Runs one prompt (`claude -p`, `codex exec`, `pi --mode json -p`), resuming session
    /// `resume` if given. The CLI (and its process group) is killed after `timeout`.
    pub async fn run_prompt(
        &self,
        prompt: &str,
        resume: Option<&str>,
        timeout: Duration,
    ) -> anyhow::Result<RunOutput> {
        let args = self.prompt_args(prompt, resume)?;
        let mut cmd = self.command()?;
        cmd.args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // Its own process group on Unix, so a timeout kills the tool processes it started too.
        #[cfg(unix)]
        cmd.process_group(0);
        let start = Instant::now();
        let child = cmd
            .spawn()
            .with_context(|| format!("spawning {} {args:?}", self.harness.name()))?;
        let pid = child.id();
        let out = match tokio::time::timeout(timeout, child.wait_with_output()).await {
            Ok(out) => out?,
            Err(_) => {
                if let Some(pid) = pid {
                    kill_group(pid);
                }
                bail!(
                    "{} {args:?} timed out after {timeout:?} (killed)",
                    self.harness.name()
                );
            }
        };
        // Leftover children of the CLI (tool processes) go too.
        if let Some(pid) = pid {
            kill_group(pid);
        }
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let (session_id, reply) = match self.harness {
            Harness::Claude => parse_claude(&stdout),
            Harness::Codex => parse_codex(&stdout),
            Harness::Pi => parse_pi(&stdout),
            Harness::Opencode => (None, None),
        };
        Ok(RunOutput {
            code: out.status.code(),
            stdout,
            stderr,
            elapsed: start.elapsed(),
            session_id,
            reply,
        })
    }

    /// Pi's session file for session id `id` (files are `<ts>_<id>.jsonl` under the agent dir).
    pub fn pi_session_file(&self, id: &str) -> Option<PathBuf> {
        fn walk(dir: &Path, suffix: &str, depth: usize) -> Option<PathBuf> {
            for entry in std::fs::read_dir(dir).ok()?.flatten() {
                let path = entry.path();
                if path.is_dir() && depth > 0 {
                    if let Some(found) = walk(&path, suffix, depth - 1) {
                        return Some(found);
                    }
                } else if path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.ends_with(suffix))
                {
                    return Some(path);
                }
            }
            None
        }
        walk(&self.home.join(".pi"), &format!("_{id}.jsonl"), 5)
    }
}

/// Kills the process group `pid` leads (Unix). Elsewhere there is no group: `kill_on_drop` ends
/// the CLI itself.
fn kill_group(pid: u32) {
    if !cfg!(unix) {
        return;
    }
    let _ = std::process::Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// `claude -p --output-format json`: one `result` object.
fn parse_claude(stdout: &str) -> (Option<String>, Option<String>) {
    let v = stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
        .unwrap_or(Value::Null);
    (
        v.get("session_id").and_then(Value::as_str).map(Into::into),
        v.get("result").and_then(Value::as_str).map(Into::into),
    )
}

/// `codex exec --json`: `thread.started{thread_id}`, `item.completed{item:{type:agent_message,text}}`.
fn parse_codex(stdout: &str) -> (Option<String>, Option<String>) {
    let mut sid = None;
    let mut reply = None;
    for v in stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
    {
        match v.get("type").and_then(Value::as_str) {
            Some("thread.started") => {
                sid = v.get("thread_id").and_then(Value::as_str).map(Into::into)
            }
            Some("item.completed") => {
                let item = &v["item"];
                if item.get("type").and_then(Value::as_str) == Some("agent_message") {
                    reply = item.get("text").and_then(Value::as_str).map(Into::into);
                }
            }
            _ => {}
        }
    }
    (sid, reply)
}

/// `pi --mode json`: a `session` header line, then events; the reply is the text of the last
/// assistant `message_end`.
fn parse_pi(stdout: &str) -> (Option<String>, Option<String>) {
    let mut sid = None;
    let mut reply = None;
    for v in stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l.trim()).ok())
    {
        match v.get("type").and_then(Value::as_str) {
            Some("session") => sid = v.get("id").and_then(Value::as_str).map(Into::into),
            Some("message_end") => {
                let m = &v["message"];
                if m.get("role").and_then(Value::as_str) == Some("assistant") {
                    let text: Vec<&str> = m
                        .get("content")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter(|c| c.get("type").and_then(Value::as_str) == Some("text"))
                        .filter_map(|c| c.get("text").and_then(Value::as_str))
                        .collect();
                    if !text.is_empty() {
                        reply = Some(text.join(""));
                    }
                }
            }
            _ => {}
        }
    }
    (sid, reply)
}

/// Writes `~/.config/opencode/opencode.json` under `home`: the fake model at `base_url` (no
/// `/v1`) as its one provider and model, no updates, no sharing; each shell command asks first
/// when `bash_asks`.
pub fn write_opencode_config(home: &Path, base_url: &str, bash_asks: bool) -> anyhow::Result<()> {
    let config_dir = home.join(".config/opencode");
    std::fs::create_dir_all(&config_dir)?;
    let mut config = json!({
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": false,
        "share": "disabled",
        "model": format!("{FAKE_PROVIDER}/{FAKE_MODEL_ID}"),
        "provider": { FAKE_PROVIDER: {
            "npm": "@ai-sdk/openai-compatible",
            "name": "Forkhost fake model",
            "options": { "baseURL": format!("{base_url}/v1"), "apiKey": FAKE_API_KEY },
            "models": { FAKE_MODEL_ID: { "name": "Forkhost fake model",
                "limit": { "context": 128000, "output": 8192 } } }
        }}
    });
    if bash_asks {
        config["permission"] = json!({ "bash": "ask" });
    }
    std::fs::write(
        config_dir.join("opencode.json"),
        serde_json::to_string_pretty(&config)?,
    )?;
    Ok(())
}

/// The variables that keep OpenCode offline and quiet: no update, share or models fetch, and
/// its background plugin install failing at once, offline (a closed loopback
/// registry: OpenCode installs a plugin package at every start in a new HOME, and only logs
/// the failure).
/// The variables that put a harness's HOME (and its XDG folders) at `home`, without colour.
pub fn home_vars(home: &Path) -> Vec<(String, String)> {
    let s = |p: &Path| p.to_string_lossy().into_owned();
    vec![
        ("HOME".into(), s(home)),
        ("XDG_CONFIG_HOME".into(), s(&home.join(".config"))),
        ("XDG_CACHE_HOME".into(), s(&home.join(".cache"))),
        ("XDG_DATA_HOME".into(), s(&home.join(".local/share"))),
        ("XDG_STATE_HOME".into(), s(&home.join(".local/state"))),
        ("NO_COLOR".into(), "1".into()),
    ]
}

pub fn quiet_opencode_vars() -> Vec<(String, String)> {
    [
        ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
        ("OPENCODE_DISABLE_SHARE", "1"),
        ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
        ("npm_config_registry", "http://127.0.0.1:9/"),
    ]
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .to_vec()
}
