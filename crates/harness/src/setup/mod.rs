//! What a newcomer needs to get a harness working: how to install it on this OS (in words and
//! commands to copy), and whether the installed CLI is signed in. The words are shared by the
//! desktop app's first-run view and `forkhost doctor`, so both say the same thing.
//!
//! The sign-in check asks the CLI itself (Claude's `auth status`, Codex's `login status`, Pi's
//! `--list-models`, OpenCode's `auth list`); it never sends a prompt, runs off the caller's thread and is bounded by
//! [`SIGN_IN_TIMEOUT`]. Each harness's facts and its reading of the answer live in its own file.

mod claude;
mod codex;
mod opencode;
mod pi;

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::process::HarnessCommand;
use crate::{HarnessBinary, HarnessKind};

/// How long a sign-in check may take before its answer counts as unknown.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(15);

/// An operating system, as the install commands differ by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Os {
    Macos,
    Linux,
    Windows,
}

impl Os {
    /// The OS this program was built for.
    pub fn current() -> Os {
        if cfg!(target_os = "macos") {
            Os::Macos
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        }
    }
}

/// One way to install a harness: a command to paste into a terminal, and what it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstallCommand {
    /// "npm", "Native installer", "Homebrew".
    pub label: &'static str,
    pub command: &'static str,
    /// What it needs first, in words ("Needs Node.js 22.19 or newer").
    pub needs: Option<&'static str>,
}

/// How to get one harness working, for one OS.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InstallHelp {
    /// The commands that install it here, the recommended one first.
    pub commands: Vec<InstallCommand>,
    /// The CLI's own install page (opened in the browser).
    pub page: &'static str,
    /// The command that signs it in, to run in a terminal.
    pub sign_in_command: &'static str,
    /// How to sign in, in words.
    pub sign_in_how: &'static str,
}

/// Looks up a variable of the environment the harness runs in.
pub type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// A harness's facts for a newcomer (one `const` per harness module).
pub(crate) struct SetupFacts {
    /// `(for which OSes, command)`, the recommended first.
    pub commands: &'static [(&'static [Os], InstallCommand)],
    pub page: &'static str,
    pub sign_in_command: &'static str,
    /// How to sign in, as the end of a sentence ("run `codex login` in a terminal").
    pub sign_in_how: &'static str,
    /// The arguments of the sign-in check (the CLI's own status command); none: the check
    /// reads files only, and starts nothing (`classify` gets an empty output).
    pub sign_in_args: &'static [&'static str],
    /// Variables the check runs with (no network beyond what the status command needs).
    pub sign_in_env: &'static [(&'static str, &'static str)],
    /// Reads the check's answer; `env` looks up the variables the harness runs with.
    pub classify: fn(&CheckOutput, env: EnvLookup) -> SignIn,
}

/// What the sign-in check printed.
#[derive(Debug, Clone, Default)]
pub struct CheckOutput {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

/// Whether a found harness can talk to its model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SignIn {
    SignedIn,
    /// The CLI itself says it is not signed in (and has no API key).
    SignedOut,
    /// It could not tell, or the harness is set up some other way (a custom provider): the
    /// first turn will say.
    Unknown,
}

impl SignIn {
    pub fn as_str(self) -> &'static str {
        match self {
            SignIn::SignedIn => "signed_in",
            SignIn::SignedOut => "signed_out",
            SignIn::Unknown => "unknown",
        }
    }
}

fn facts(kind: HarnessKind) -> &'static SetupFacts {
    match kind {
        HarnessKind::Claude => &claude::FACTS,
        HarnessKind::Codex => &codex::FACTS,
        HarnessKind::Pi => &pi::FACTS,
        HarnessKind::Opencode => &opencode::FACTS,
    }
}

/// How to install and sign in `kind` on `os`.
pub fn install_help(kind: HarnessKind, os: Os) -> InstallHelp {
    let f = facts(kind);
    InstallHelp {
        commands: f
            .commands
            .iter()
            .filter(|(oses, _)| oses.contains(&os))
            .map(|(_, c)| c.clone())
            .collect(),
        page: f.page,
        sign_in_command: f.sign_in_command,
        sign_in_how: f.sign_in_how,
    }
}

/// The next step for a harness that is not installed, in the words the app and `doctor` share.
pub fn install_step(kind: HarnessKind, os: Os) -> String {
    let help = install_help(kind, os);
    let name = kind.harness().product_name();
    let commands: Vec<String> = help
        .commands
        .iter()
        .map(|c| format!("`{}`", c.command))
        .collect();
    match commands.as_slice() {
        [] => format!("{name} is not installed: see {}.", help.page),
        [one] => format!(
            "{name} is not installed: install it with {one} in a terminal (or see {}).",
            help.page
        ),
        [first, rest @ ..] => format!(
            "{name} is not installed: install it with {first} in a terminal (or {}; see {}).",
            rest.join(" or "),
            help.page
        ),
    }
}

/// The next step for a harness that is installed but not signed in.
pub fn sign_in_step(kind: HarnessKind) -> String {
    format!(
        "{} is installed but not signed in: {}.",
        kind.harness().product_name(),
        facts(kind).sign_in_how
    )
}

/// Asks the harness at `bin` whether it is signed in. Never sends a prompt; `Unknown` when it
/// does not answer within [`SIGN_IN_TIMEOUT`] or answers something unexpected.
pub async fn check_sign_in(bin: &HarnessBinary) -> SignIn {
    check_sign_in_with(bin, &|name| std::env::var(name).ok()).await
}

/// [`check_sign_in`] reading the harness's variables through `env` (a test's temp HOME).
pub async fn check_sign_in_with(
    bin: &HarnessBinary,
    env: &(dyn Fn(&str) -> Option<String> + Sync),
) -> SignIn {
    let f = facts(bin.kind);
    if f.sign_in_args.is_empty() {
        return (f.classify)(&CheckOutput::default(), env);
    }
    let mut cmd = HarnessCommand::new(&bin.path);
    cmd.args(f.sign_in_args);
    let check_env: Vec<(String, String)> = f
        .sign_in_env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    cmd.envs(&check_env);
    match cmd.output(SIGN_IN_TIMEOUT).await {
        Ok(out) => {
            let answer = CheckOutput {
                code: out.code,
                stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
                stderr: out.stderr,
            };
            let state = (f.classify)(&answer, env);
            tracing::debug!(harness = %bin.kind, code = ?answer.code, state = state.as_str(), "sign-in checked");
            state
        }
        Err(err) => {
            tracing::info!(harness = %bin.kind, error = %err, "sign-in check gave no answer");
            SignIn::Unknown
        }
    }
}

/// When a turn's error text says the harness lacks a login or an API key: the sentence that
/// tells the user what to do.
pub fn sign_in_hint(kind: HarnessKind, error_text: &str) -> Option<String> {
    let lower = error_text.to_lowercase();
    let says = match kind {
        HarnessKind::Claude => claude::says_signed_out(&lower),
        HarnessKind::Codex => codex::says_signed_out(&lower),
        HarnessKind::Pi => pi::says_signed_out(&lower),
        HarnessKind::Opencode => opencode::says_signed_out(&lower),
    };
    says.then(|| {
        format!(
            "{} is not signed in or has no API key: {}, then try again.",
            kind.harness().product_name(),
            facts(kind).sign_in_how
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_harness_has_an_install_command_on_each_os() {
        for kind in HarnessKind::ALL {
            for os in [Os::Macos, Os::Linux, Os::Windows] {
                let help = install_help(kind, os);
                assert!(
                    help.commands.iter().any(|c| c.label == "npm"),
                    "{kind} {os:?}"
                );
                assert!(help.page.starts_with("https://"), "{kind}");
            }
        }
        let claude = install_help(HarnessKind::Claude, Os::Windows);
        assert_eq!(
            claude.commands[0].command,
            "irm https://claude.ai/install.ps1 | iex"
        );
        let codex_mac = install_help(HarnessKind::Codex, Os::Macos);
        assert!(codex_mac
            .commands
            .iter()
            .any(|c| c.command == "brew install --cask codex"));
        let codex_linux = install_help(HarnessKind::Codex, Os::Linux);
        assert!(!codex_linux.commands.iter().any(|c| c.label == "Homebrew"));
    }

    #[test]
    fn next_steps_name_no_environment_variable() {
        for kind in HarnessKind::ALL {
            for text in [install_step(kind, Os::Linux), sign_in_step(kind)] {
                assert!(!text.contains("FORKHOST_"), "{text}");
                assert!(!text.contains("PATH"), "{text}");
            }
        }
        assert_eq!(
            sign_in_step(HarnessKind::Codex),
            "Codex is installed but not signed in: run `codex login` in a terminal."
        );
        let step = install_step(HarnessKind::Codex, Os::Linux);
        assert!(
            step.starts_with(
                "Codex is not installed: install it with `npm install -g @openai/codex`"
            ),
            "{step}"
        );
    }

    #[test]
    fn turn_errors_that_lack_a_login_name_it() {
        let hint = sign_in_hint(
            HarnessKind::Pi,
            "No API key found for the selected model.\n\nUse /login to log into a provider",
        )
        .unwrap();
        assert!(hint.starts_with("Pi is not signed in"), "{hint}");
        assert!(sign_in_hint(HarnessKind::Claude, "Invalid API key · Please run /login").is_some());
        assert!(sign_in_hint(HarnessKind::Codex, "stream error: 401 Unauthorized").is_some());
        assert!(sign_in_hint(HarnessKind::Codex, "the model refused: content policy").is_none());
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_cli_that_says_not_logged_in_is_signed_out() {
        use crate::binary::HarnessBinary;
        let executable =
            |p: &std::path::Path, t: &str| forkhost_test_script::write_executable(p, t).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let codex = dir.path().join("codex");
        executable(
            &codex,
            "#!/bin/sh\n[ \"$1 $2\" = 'login status' ] || exit 2\necho 'Not logged in' >&2\nexit 1\n",
        );
        let bin = HarnessBinary {
            kind: HarnessKind::Codex,
            path: codex.clone(),
            version: "0.171.0".into(),
        };
        let home = dir.path().display().to_string();
        let env = move |name: &str| match name {
            "HOME" | "CODEX_HOME" => Some(home.clone()),
            _ => None,
        };
        assert_eq!(check_sign_in_with(&bin, &env).await, SignIn::SignedOut);
        // A config that picks its own provider needs no login: not judged.
        std::fs::write(
            dir.path().join("config.toml"),
            "model_provider = \"fake\"\n",
        )
        .unwrap();
        assert_eq!(check_sign_in_with(&bin, &env).await, SignIn::Unknown);
        executable(&codex, "#!/bin/sh\necho 'API key configured - ***' >&2\n");
        assert_eq!(check_sign_in_with(&bin, &env).await, SignIn::SignedIn);
        // A check that hangs or is missing is unknown, never signed out.
        std::fs::remove_file(&codex).unwrap();
        assert_eq!(check_sign_in_with(&bin, &env).await, SignIn::Unknown);
    }
}
