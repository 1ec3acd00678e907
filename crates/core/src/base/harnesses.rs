//! The harness binaries this Host uses: probed once (path, version, capabilities) and cached.

use std::collections::HashMap;
use std::ffi::OsString;

use forkhost_harness::setup::{self, Os, SignIn};
use forkhost_harness::{
    binary, Capabilities, HarnessBinary, HarnessError, HarnessKind, VersionSupport,
};
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use crate::base::error::HostResult;

/// One line of `forkhost doctor`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct HarnessReport {
    pub name: HarnessKind,
    pub path: Option<String>,
    pub version: Option<String>,
    pub capabilities: Option<Capabilities>,
    /// Why the harness can't be used, when it can't.
    pub error: Option<String>,
    /// How the binary was found: `override` (`FORKHOST_*_BIN`, the path saved in Settings),
    /// `path`, `login_shell` (the login shell's PATH, on a GUI launch) or `fallback` (a usual
    /// install folder no PATH named).
    pub found_by: Option<binary::FoundBy>,
    /// What else the harness needs on this OS and whether it is there (Git Bash for Claude Code
    /// on Windows).
    pub notes: Vec<String>,
    /// How its version relates to the versions the test suite ran (`forkhost_harness::verified`).
    pub support: Option<VersionSupport>,
    /// The permission modes a thread of this harness may take, in its own words (Claude's
    /// `--permission-mode`, Codex's approval policy); empty where it has none (Pi runs its tools
    /// without asking). Known without the binary.
    pub permission_modes: Vec<String>,
    /// Its sandboxes (Codex); empty elsewhere.
    pub sandboxes: Vec<String>,
    /// Whether the CLI says it is signed in (its own status command; never a prompt); `null`
    /// when it was not found.
    pub sign_in: Option<SignIn>,
    /// What to do next, in words, when it is missing or signed out (the app and `doctor` say
    /// the same); `null` when it is ready.
    pub next_step: Option<String>,
    /// How to install and sign it in on this OS.
    pub install: InstallView,
}

/// How to install one harness on this OS (`forkhost_harness::setup`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct InstallView {
    /// The commands that install it, the recommended first.
    pub commands: Vec<InstallCommandView>,
    /// The CLI's own install page.
    pub page: String,
    /// The command that signs it in, to run in a terminal.
    pub sign_in_command: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct InstallCommandView {
    /// "npm", "Native installer", "Homebrew".
    pub label: String,
    pub command: String,
    /// What it needs first, in words.
    pub needs: Option<String>,
}

impl InstallView {
    fn of(kind: HarnessKind) -> Self {
        let help = setup::install_help(kind, Os::current());
        InstallView {
            commands: help
                .commands
                .into_iter()
                .map(|c| InstallCommandView {
                    label: c.label.to_owned(),
                    command: c.command.to_owned(),
                    needs: c.needs.map(str::to_owned),
                })
                .collect(),
            page: help.page.to_owned(),
            sign_in_command: help.sign_in_command.to_owned(),
        }
    }
}

/// `(modes, sandboxes)` of a harness, as owned words for the report.
fn choices(kind: HarnessKind) -> (Vec<String>, Vec<String>) {
    let c = kind.harness().permission_choices();
    let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect();
    (words(c.modes), words(c.sandboxes))
}

impl HarnessReport {
    /// The report of a binary that was found and answered `--version`.
    fn found(bin: &HarnessBinary, found_by: binary::FoundBy, notes: Vec<String>) -> Self {
        let (permission_modes, sandboxes) = choices(bin.kind);
        HarnessReport {
            permission_modes,
            sandboxes,
            name: bin.kind,
            path: Some(bin.path.display().to_string()),
            version: Some(bin.version.clone()),
            capabilities: Some(bin.capabilities()),
            error: None,
            support: Some(forkhost_harness::verified::support(bin.kind, &bin.version)),
            found_by: Some(found_by),
            notes,
            sign_in: None,
            next_step: None,
            install: InstallView::of(bin.kind),
        }
    }

    /// The report of a harness that could not be used, and why (`err`, for `doctor`'s details).
    fn missing(kind: HarnessKind, err: String) -> Self {
        let (permission_modes, sandboxes) = choices(kind);
        HarnessReport {
            permission_modes,
            sandboxes,
            name: kind,
            path: None,
            version: None,
            capabilities: None,
            error: Some(err),
            support: None,
            found_by: None,
            notes: binary::doctor_notes(kind),
            sign_in: None,
            next_step: Some(setup::install_step(kind, Os::current())),
            install: InstallView::of(kind),
        }
    }

    /// Adds what the CLI said about its sign-in, and the step that follows from it.
    fn with_sign_in(mut self, kind: HarnessKind, state: SignIn) -> Self {
        self.sign_in = Some(state);
        if state == SignIn::SignedOut {
            self.next_step = Some(setup::sign_in_step(kind));
        }
        self
    }
}

#[derive(Debug, Default)]
pub(crate) struct Harnesses {
    found: Mutex<HashMap<HarnessKind, (HarnessBinary, binary::FoundBy)>>,
    /// Paths chosen for the app (saved in Settings, handed over at open; or chosen while it
    /// runs: the first-run view's Choose its file…, Settings): they win over `FORKHOST_*_BIN`.
    chosen: std::sync::Mutex<HashMap<HarnessKind, String>>,
}

impl Harnesses {
    /// Starts with `paths` chosen, unchecked: a wrong one is reported, naming it, when its
    /// harness is first looked up (as a wrong `FORKHOST_*_BIN` is).
    pub(crate) fn with_chosen(paths: Vec<(HarnessKind, String)>) -> Self {
        let chosen = paths
            .into_iter()
            .map(|(kind, path)| (kind, path.trim().to_owned()))
            .filter(|(_, path)| !path.is_empty())
            .collect();
        Harnesses {
            chosen: std::sync::Mutex::new(chosen),
            ..Harnesses::default()
        }
    }

    /// The binary for `kind`, probing it the first time. A failed probe is not cached, so
    /// installing the harness while Forkhost runs just works.
    pub async fn binary(&self, kind: HarnessKind) -> HostResult<HarnessBinary> {
        Ok(self.located(kind).await?.0)
    }

    async fn located(&self, kind: HarnessKind) -> HostResult<(HarnessBinary, binary::FoundBy)> {
        if let Some(found) = self.found.lock().await.get(&kind) {
            return Ok(found.clone());
        }
        let chosen = self.chosen_path(kind);
        // The first lookup may wait for the login shell (search_path::global).
        let located = tokio::task::spawn_blocking(move || match chosen {
            Some(path) => binary::locate_chosen(kind, &path),
            None => binary::locate_detailed(kind),
        })
        .await
        .map_err(|e| crate::base::error::HostError::Internal(e.to_string()))??;
        let probed = binary::probe_at(kind, located.path).await?;
        tracing::info!(
            harness = %kind,
            version = %probed.version,
            found_by = located.found_by.as_str(),
            "harness found"
        );
        let entry = (probed, located.found_by);
        self.found.lock().await.insert(kind, entry.clone());
        Ok(entry)
    }

    fn chosen_path(&self, kind: HarnessKind) -> Option<String> {
        self.chosen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&kind)
            .cloned()
    }

    /// Uses `path` for `kind` from now on (checked first: see [`check_path`]); threads already
    /// running keep their binary.
    pub async fn choose(&self, kind: HarnessKind, path: &str) -> HostResult<HarnessReport> {
        check_path(kind, path).await?;
        self.chosen
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(kind, path.trim().to_owned());
        self.found.lock().await.remove(&kind);
        Ok(self.report_one(kind).await)
    }

    /// Forgets what was found, so the next lookup sees a harness installed (or removed) since.
    pub async fn forget(&self) {
        self.found.lock().await.clear();
    }

    /// Every harness, found or not, each with its sign-in checked; the checks run side by side.
    pub async fn report(&self) -> Vec<HarnessReport> {
        let [a, b, c, d] = HarnessKind::ALL.map(|kind| self.report_one(kind));
        let (a, b, c, d) = tokio::join!(a, b, c, d);
        vec![a, b, c, d]
    }

    async fn report_one(&self, kind: HarnessKind) -> HarnessReport {
        match self.located(kind).await {
            Ok((bin, found_by)) => {
                let state = setup::check_sign_in(&bin).await;
                HarnessReport::found(&bin, found_by, binary::doctor_notes(kind))
                    .with_sign_in(kind, state)
            }
            Err(err) => HarnessReport::missing(kind, err.to_string()),
        }
    }
}

/// A harness path a user typed (Settings), checked before it is saved: the binary it names,
/// with its version, capabilities and how the name resolved. `harness_not_found` when nothing
/// startable is there, `invalid_input` when it is another program or no path was given.
pub async fn check_path(kind: HarnessKind, path: &str) -> HostResult<HarnessReport> {
    let bin = binary::check_path(kind, path).await?;
    let state = setup::check_sign_in(&bin).await;
    Ok(
        HarnessReport::found(&bin, binary::FoundBy::Override, binary::doctor_notes(kind))
            .with_sign_in(kind, state),
    )
}

/// A failed turn's message, followed, when its words say the harness lacks a login or an API
/// key, by what to do ("Codex is not signed in …: run `codex login` in a terminal").
pub(crate) fn explain_failure(kind: HarnessKind, message: String) -> String {
    match setup::sign_in_hint(kind, &message) {
        Some(hint) => format!("{hint}\n{message}"),
        None => message,
    }
}

/// The `PATH` every harness child and terminal tab should get: the folders harnesses are
/// looked up in (the login shell's on a GUI launch, then this process's, then the usual install
/// folders). See `forkhost_harness::search_path`.
pub fn child_path() -> OsString {
    forkhost_harness::search_path::child_path()
}

/// `~`, `~/…` and `~\…` → the user's home folder (`USERPROFILE` on Windows): a folder typed
/// by hand.
pub fn expand_tilde(path: &str) -> std::path::PathBuf {
    forkhost_harness::home::expand_tilde(path)
}

/// For the desktop app at start (after its last `set_var`): a launch without a terminal
/// (Finder, the Dock, a `.desktop` file) reads the login shell's PATH, on a thread of its own so
/// the first harness lookup does not wait for it. The CLI never calls this: it keeps the PATH
/// its caller gave it (`FORKHOST_LOGIN_SHELL=1` makes either read the login shell).
pub fn warm_up_search_path() {
    forkhost_harness::search_path::start_for_app();
}

impl From<HarnessError> for crate::base::error::HostError {
    fn from(err: HarnessError) -> Self {
        use crate::base::error::HostError as H;
        match err {
            HarnessError::HarnessNotFound { .. } | HarnessError::AgentNotFound { .. } => {
                H::HarnessNotFound(err.to_string())
            }
            HarnessError::AgentFailed {
                agent,
                message,
                stderr_tail,
            } => H::HarnessFailed(match stderr_tail.trim() {
                "" => format!("{agent}: {message}"),
                tail => format!("{agent}: {message}\n{tail}"),
            }),
            HarnessError::SessionNotFound(s) => H::SessionNotFound(s),
            HarnessError::CheckpointNotFound(s) => H::CheckpointNotFound(s),
            HarnessError::TurnNotFound(s) => H::TurnNotFound(s),
            HarnessError::Unsupported(s) => H::Unsupported(s),
            HarnessError::Busy(s) => H::Busy(s),
            HarnessError::InvalidInput(s) => H::InvalidInput(s),
            HarnessError::HarnessFailed {
                harness,
                message,
                stderr_tail,
            } => {
                let tail = stderr_tail.trim();
                let text = if tail.is_empty() {
                    format!("{harness}: {message}")
                } else {
                    format!("{harness}: {message}\n{tail}")
                };
                // A prompt refused for want of a login or key says so first, in words.
                H::HarnessFailed(match setup::sign_in_hint(harness, &text) {
                    Some(hint) => format!("{hint}\n{text}"),
                    None => text,
                })
            }
            HarnessError::History(h) => h.into(),
        }
    }
}

impl From<forkhost_harness::HistoryError> for crate::base::error::HostError {
    fn from(err: forkhost_harness::HistoryError) -> Self {
        use forkhost_harness::HistoryError as E;
        match err {
            E::SessionNotFound { path } => {
                crate::base::error::HostError::SessionNotFound(path.display().to_string())
            }
            E::TurnNotFound { index, len } => {
                crate::base::error::HostError::TurnNotFound(format!("turn {} of {len}", index + 1))
            }
            other => crate::base::error::HostError::Internal(other.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_path_handed_over_at_open_is_the_one_looked_up() {
        let dir = tempfile::tempdir().unwrap();
        let chosen = dir.path().join("no-such-claude").display().to_string();
        let harnesses = Harnesses::with_chosen(vec![
            (HarnessKind::Claude, format!(" {chosen} ")),
            (HarnessKind::Pi, "  ".into()),
        ]);
        // Whatever FORKHOST_CLAUDE_BIN or PATH hold: the chosen path wins, and is named.
        let err = harnesses.binary(HarnessKind::Claude).await.unwrap_err();
        assert_eq!(err.code(), "harness_not_found", "{err}");
        assert!(err.to_string().contains(&chosen), "{err}");
        assert_eq!(
            harnesses.chosen_path(HarnessKind::Pi),
            None,
            "a blank path is none"
        );
    }

    #[test]
    fn a_prompt_refused_for_want_of_a_key_says_how_to_sign_in() {
        let err: crate::base::error::HostError = HarnessError::HarnessFailed {
            harness: HarnessKind::Pi,
            message: "pi refused the prompt: No API key found for the selected model.".into(),
            stderr_tail: String::new(),
        }
        .into();
        let text = err.to_string();
        assert!(
            text.contains(
                "Pi is not signed in or has no API key: run `pi` in a terminal and type `/login`"
            ),
            "{text}"
        );
        let err: crate::base::error::HostError = HarnessError::HarnessFailed {
            harness: HarnessKind::Codex,
            message: "app-server exited".into(),
            stderr_tail: String::new(),
        }
        .into();
        assert!(!err.to_string().contains("signed in"), "{err}");
    }

    #[test]
    fn reports_carry_each_harness_s_permission_words() {
        let (modes, sandboxes) = choices(HarnessKind::Claude);
        assert!(modes.iter().any(|m| m == "acceptEdits"), "{modes:?}");
        assert!(sandboxes.is_empty());
        let (modes, sandboxes) = choices(HarnessKind::Codex);
        assert_eq!(modes, ["untrusted", "on-request", "never"]);
        assert_eq!(
            sandboxes,
            ["read-only", "workspace-write", "danger-full-access"]
        );
        let (modes, sandboxes) = choices(HarnessKind::Pi);
        assert!(modes.is_empty() && sandboxes.is_empty());
    }
}
