//! The two traits every harness implements: [`Harness`], what Forkhost asks of a harness CLI
//! (modelled on Zed's `AgentServer`), and [`LiveRuntime`], one running process of it.

use std::path::{Path, PathBuf};

use async_trait::async_trait;

use super::approval::PermissionChoices;
use super::binary::HarnessBinary;
use super::binary::{Capabilities, VersionPins};
use super::events::EventSender;
use super::live::LiveRuntime;
use super::seed::SeedRequest;
use super::session::{ForkRequest, Forked, NativeSession, OpenSpec};
use super::sessions::SessionLayout;
use super::spare::WarmSpare;
use crate::error::HarnessResult;
use crate::history::{HistoryError, SessionReader};
use crate::kind::HarnessKind;

/// One harness CLI: who it is, which versions it supports, where its sessions live, and how to
/// run, fork and read them. One implementation per harness module; `HarnessKind::harness`
/// finds it.
#[async_trait]
pub trait Harness: Send + Sync {
    /// Its fixed facts (name, binary variable, version pins, session layout).
    fn facts(&self) -> &'static HarnessFacts;

    fn kind(&self) -> HarnessKind {
        self.facts().kind
    }

    // --- The binary and its version ---

    /// The name users know it by ("Claude Code").
    fn product_name(&self) -> &'static str {
        self.facts().product_name
    }
    /// The environment variable that names its binary, overriding the search.
    fn bin_env(&self) -> &'static str {
        self.facts().bin_env
    }
    /// Whether a (lowercased) `--version` line names this harness.
    fn names_itself(&self, version_line: &str) -> bool;
    /// For a harness whose `--version` prints a bare number: whether its `--help` names it.
    /// `None` when the version line must name the harness itself.
    fn help_names_itself(&self) -> Option<fn(&str) -> bool> {
        None
    }
    /// What else it needs on this OS, and whether that is there, for `doctor`.
    fn doctor_notes(&self) -> Vec<String> {
        Vec::new()
    }
    /// The versions the test suite ran.
    fn pins(&self) -> VersionPins {
        self.facts().pins
    }
    /// What this version of it can do.
    fn capabilities(&self, version: &str) -> Capabilities;
    /// The permission words it accepts (its modes and sandboxes); none by default, for a
    /// harness that runs its tools without asking.
    fn permission_choices(&self) -> PermissionChoices {
        PermissionChoices::NONE
    }

    // --- Its sessions on disk ---

    /// The folder it keeps its sessions in, as a process started with the extra variables
    /// `env` sees it (its own variables, else under the home folder).
    fn sessions_root(&self, env: &[(String, String)]) -> Option<PathBuf>;
    fn session_layout(&self) -> SessionLayout {
        self.facts().sessions
    }
    /// The session id its file's name carries.
    fn session_id_of(&self, path: &Path) -> Option<String>;
    /// The working directory a session file recorded (its first lines only).
    fn recorded_cwd(&self, path: &Path) -> Option<String>;
    /// The session files under `root` (its [`sessions_root`]).
    ///
    /// [`sessions_root`]: Harness::sessions_root
    fn session_files(&self, root: &Path) -> Vec<PathBuf> {
        self.session_layout().files_under(root)
    }
    /// Its session `id` under `root` (its [`sessions_root`]), if there.
    ///
    /// [`sessions_root`]: Harness::sessions_root
    fn find_session(&self, root: &Path, id: &str) -> Option<PathBuf> {
        self.session_files(root)
            .into_iter()
            .find(|p| self.session_id_of(p).as_deref() == Some(id))
    }
    /// The transcript reader for one of its session files.
    fn open_reader(&self, path: &Path) -> Result<Box<dyn SessionReader>, HistoryError>;
    /// Whether the session at `path` is there to read: its file exists. A harness that keeps
    /// its sessions elsewhere (OpenCode: rows of one database) says what "there" means.
    fn session_present(&self, path: &Path) -> bool {
        path.exists()
    }
    /// Whether its session at a path is a file of text a raw scan can read (search's
    /// prefilter); a session that is rows of a database (OpenCode) is read by its reader only.
    fn session_is_a_file(&self) -> bool {
        true
    }
    /// The file whose changes mean the session at `path` may have changed (what a followed
    /// thread watches): the session file itself, by default.
    fn watched_file(&self, path: &Path) -> PathBuf {
        path.to_owned()
    }
    /// Whether its turns' checkpoints are snapshots Forkhost keeps (the store's turn rows)
    /// rather than coordinates its session records: an ACP agent forks only a session's head,
    /// so its runtime copies the session after each turn (`TurnEnded.native_checkpoint_ref`)
    /// and a fork cuts at such a copy.
    fn keeps_snapshots(&self) -> bool {
        false
    }

    // --- Running it ---

    /// Starts a process on `spec.target`. Events (including a crash) go to `events`.
    async fn open(
        &self,
        spec: OpenSpec,
        events: EventSender,
    ) -> HarnessResult<Box<dyn LiveRuntime>>;
    /// Derives a new native session at a turn boundary. Never writes a native file of the
    /// source; runs in a process of its own, never through a live runtime.
    async fn fork(&self, request: ForkRequest<'_>) -> HarnessResult<Forked>;
    /// [`Harness::fork`] in a folder whose trust decision is `trusted` (as
    /// `OpenSpec.trusted`): a harness whose fork starts a process in the folder holds the
    /// project's config back there as its runtime does, or refuses in words as the runtime
    /// would. The default is [`Harness::fork`] (a fork that runs nothing of the project's).
    async fn fork_trusting(
        &self,
        request: ForkRequest<'_>,
        trusted: Option<bool>,
    ) -> HarnessResult<Forked> {
        let _ = trusted;
        self.fork(request).await
    }
    /// Writes a new native session holding a conversation carried from another harness
    /// ([`crate::carry`]), resumable like any of its sessions. Sends nothing to a model and
    /// touches no other session; on failure nothing of it is left behind.
    async fn seed(&self, request: SeedRequest<'_>) -> HarnessResult<Forked> {
        let _ = request;
        Err(crate::HarnessError::Unsupported(format!(
            "{} cannot take a conversation from another harness",
            self.product_name()
        )))
    }
    /// [`Harness::seed`] into a folder whose trust decision is `trusted`; as
    /// [`Harness::fork_trusting`].
    async fn seed_trusting(
        &self,
        request: SeedRequest<'_>,
        trusted: Option<bool>,
    ) -> HarnessResult<Forked> {
        let _ = trusted;
        self.seed(request).await
    }
    /// Starts a warm spare: an initialized process a later fork runs in, which then is the
    /// fork's runtime. `None` for a harness whose fork needs no process of its own (Claude's
    /// is lazy: its runtime starts at fork time instead).
    async fn spare(
        &self,
        binary: &HarnessBinary,
        env: &[(String, String)],
    ) -> Option<HarnessResult<Box<dyn WarmSpare>>> {
        let _ = (binary, env);
        None
    }
    /// The arguments that open `session` in its own TUI (the terminal tab), with the same
    /// folder-trust flags the structured runtime gets for `trusted` (`OpenSpec.trusted`), or
    /// the same refusal. The session's id (or path) is checked first
    /// ([`Harness::check_session_id`]): it may come from an imported file, and one starting
    /// with `-` would be read as an option.
    fn terminal_args(
        &self,
        session: &NativeSession,
        trusted: Option<bool>,
    ) -> HarnessResult<Vec<String>>;
    /// Refuses a native session id this harness never makes (`InvalidInput`): Claude's and
    /// Codex's are UUIDs. An id is put on command lines, so one that could be read as an option
    /// (`--settings=…`, `-c…`) must never get that far. The default takes any id that is not
    /// empty and does not start with `-`.
    fn check_session_id(&self, id: &str) -> HarnessResult<()> {
        match id.is_empty() || id.starts_with('-') {
            true => Err(crate::HarnessError::InvalidInput(format!(
                "not a {} session id: {id:?}",
                self.product_name()
            ))),
            false => Ok(()),
        }
    }
}

/// `Ok` for a UUID in its hyphenated form (`0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000`), the only
/// form Claude Code and Codex write; else `InvalidInput` naming `product`.
pub fn check_uuid_session_id(product: &str, id: &str) -> HarnessResult<()> {
    let hyphenated = id.len() == 36
        && id.char_indices().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => c == '-',
            _ => c.is_ascii_hexdigit(),
        });
    match hyphenated {
        true => Ok(()),
        false => Err(crate::HarnessError::InvalidInput(format!(
            "not a {product} session id: {id:?}"
        ))),
    }
}

/// What a harness is, as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HarnessFacts {
    pub kind: HarnessKind,
    /// The name users know it by ("Claude Code").
    pub product_name: &'static str,
    /// The environment variable that names its binary, overriding the search.
    pub bin_env: &'static str,
    pub pins: VersionPins,
    /// Where under its sessions root its session files sit.
    pub sessions: SessionLayout,
}
