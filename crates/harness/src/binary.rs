//! Finding a harness binary and learning what it can do.
//!
//! `FORKHOST_{CLAUDE,CODEX,PI}_BIN` wins, else the first match in the search folders
//! ([`crate::search_path`]: `PATH` as the user's shell has it, `PATHEXT` on Windows). The version decides
//! the capabilities: a version that lacks what a fork needs answers `Unsupported`, never a
//! wrong fork.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::search_path::{self, Entry, Origin, SearchPath};
use crate::{HarnessError, HarnessKind, HarnessResult};

/// How long `--version` may take before the binary counts as broken.
const VERSION_TIMEOUT: Duration = Duration::from_secs(20);

/// A located, version-checked harness binary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HarnessBinary {
    pub kind: HarnessKind,
    pub path: PathBuf,
    /// `major.minor.patch` as the binary printed it.
    pub version: String,
}

/// What a harness binary can do, for the UI's Fork buttons and `forkhost doctor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Capabilities {
    /// Fork boundaries it supports: a subset of `after`, `before`, `latest`.
    pub boundaries: Vec<&'static str>,
    /// Where it can cut: at `turn` boundaries (all three harnesses today) or any `message`.
    pub granularity: &'static str,
    /// Whether the native session exists as soon as the fork is made (false: on first prompt).
    pub eager_fork: bool,
    /// Why a capability is missing, when one is.
    pub note: Option<String>,
}

/// How a binary was found, for `doctor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FoundBy {
    /// `FORKHOST_*_BIN` (the app sets it from the path saved in Settings).
    Override,
    /// This process's `PATH`.
    Path,
    /// The login shell's `PATH` (a GUI launch).
    LoginShell,
    /// A usual install folder no `PATH` named (`~/.local/bin`, Homebrew, nvm…).
    Fallback,
}

impl FoundBy {
    pub fn as_str(self) -> &'static str {
        match self {
            FoundBy::Override => "override",
            FoundBy::Path => "path",
            FoundBy::LoginShell => "login_shell",
            FoundBy::Fallback => "fallback",
        }
    }
}

impl From<Origin> for FoundBy {
    fn from(origin: Origin) -> Self {
        match origin {
            Origin::Path => FoundBy::Path,
            Origin::LoginShell => FoundBy::LoginShell,
            Origin::Fallback => FoundBy::Fallback,
        }
    }
}

/// A binary's path and how it was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Located {
    pub path: PathBuf,
    pub found_by: FoundBy,
}

/// The binary's path: the override variable if set, else a search like the user's shell's.
pub fn locate(kind: HarnessKind) -> HarnessResult<PathBuf> {
    locate_detailed(kind).map(|l| l.path)
}

/// [`locate`], saying how the binary was found.
pub fn locate_detailed(kind: HarnessKind) -> HarnessResult<Located> {
    locate_in(
        kind,
        std::env::var_os(kind.bin_env()),
        search_path::global(),
        search_path::pathext().as_deref(),
        cfg!(windows),
        search_path::fs_entry,
    )
}

/// [`locate_detailed`] over given inputs, so Windows lookups are tested anywhere.
pub fn locate_in(
    kind: HarnessKind,
    override_path: Option<OsString>,
    search: &SearchPath,
    pathext: Option<&str>,
    windows: bool,
    entry: impl Fn(&Path) -> Entry,
) -> HarnessResult<Located> {
    let not_found = |detail: String| HarnessError::HarnessNotFound {
        harness: kind,
        detail,
    };
    if let Some(value) = override_path.filter(|v| !v.is_empty()) {
        let text = value.to_string_lossy().trim().to_owned();
        return match check_given(&text, search, pathext, windows, &entry) {
            Ok(path) => Ok(Located {
                path,
                found_by: FoundBy::Override,
            }),
            // The app hands the path saved in Settings over as this variable.
            Err(why) => Err(not_found(format!(
                "{} (the path saved in Settings, or set in the environment) is {text}, but {why}",
                kind.bin_env()
            ))),
        };
    }
    let name = kind.as_str();
    let dirs: Vec<PathBuf> = search.dirs().map(Path::to_path_buf).collect();
    let lookup = search_path::find_program(name, &dirs, pathext, windows, &entry);
    match lookup.found {
        Some(path) => {
            let found_by = lookup
                .found_in
                .as_deref()
                .and_then(|dir| search.origin_of(dir))
                .map_or(FoundBy::Path, FoundBy::from);
            Ok(Located { path, found_by })
        }
        None => {
            let mut detail = format!(
                "`{name}` is not on PATH ({} folders searched) and {} is not set",
                dirs.len(),
                kind.bin_env()
            );
            for rejected in &lookup.rejected {
                detail.push_str("; ");
                detail.push_str(&rejected.describe(name));
            }
            Err(not_found(detail))
        }
    }
}

/// A program the user named (a path, `~/…`, or a bare name looked up in `search`), checked
/// like a `PATH` search would; the error says why it cannot be started.
fn check_given(
    text: &str,
    search: &SearchPath,
    pathext: Option<&str>,
    windows: bool,
    entry: &impl Fn(&Path) -> Entry,
) -> Result<PathBuf, String> {
    if search_path::is_bare_name(text) {
        let dirs: Vec<PathBuf> = search.dirs().map(Path::to_path_buf).collect();
        let lookup = search_path::find_program(text, &dirs, pathext, windows, entry);
        return lookup.found.ok_or_else(|| {
            let mut why = format!("no `{text}` is on PATH");
            for rejected in &lookup.rejected {
                why.push_str("; ");
                why.push_str(&rejected.describe(text));
            }
            why
        });
    }
    let path = crate::home::expand_tilde(text);
    // The program's name for the hint ("use claude.cmd"), by the given OS's separators.
    let shown = path.to_string_lossy();
    let file = if windows {
        shown.rsplit(['/', '\\']).next().unwrap_or_default()
    } else {
        shown.rsplit('/').next().unwrap_or_default()
    };
    let stem = file.split('.').next().unwrap_or_default().to_owned();
    search_path::check_program_path(&path, pathext, windows, entry).map_err(|rejected| {
        match rejected {
            Some(rejected) => rejected.describe(&stem),
            None => format!("{} does not exist", path.display()),
        }
    })
}

/// Locates the binary and reads its version.
pub async fn probe(kind: HarnessKind) -> HarnessResult<HarnessBinary> {
    let path = locate(kind)?;
    probe_at(kind, path).await
}

/// Reads the version of the binary at `path`.
pub async fn probe_at(kind: HarnessKind, path: PathBuf) -> HarnessResult<HarnessBinary> {
    let not_found = |detail: String| HarnessError::HarnessNotFound {
        harness: kind,
        detail,
    };
    let output = run_for_text(&path, "--version").await.map_err(not_found)?;
    let version = parse_version(&output)
        .ok_or_else(|| not_found(format!("{} --version printed no version", path.display())))?;
    // Another harness's binary (a path set for the wrong one) would run with the wrong
    // protocol; a bare version (Pi, test stand-ins) is let through.
    if let Product::Other(other) = product_in(kind, &output) {
        return Err(not_found(format!(
            "{} is {other} (its --version printed \"{}\"), not {}",
            path.display(),
            output.trim(),
            product_name(kind)
        )));
    }
    Ok(HarnessBinary {
        kind,
        path,
        version,
    })
}

/// Runs `path arg` (`--version`, `--help`) and returns its stdout; the error is a sentence.
async fn run_for_text(path: &Path, arg: &str) -> Result<String, String> {
    // The harness's own process setup (tree, no console window, the search folders as PATH
    // so an npm shim's `#!/usr/bin/env node` finds node on a GUI launch).
    let mut cmd = crate::process::HarnessCommand::new(path);
    cmd.arg(arg);
    let output = cmd.output(VERSION_TIMEOUT).await.map_err(|err| match err {
        crate::process::OutputError::Timeout(_) => {
            format!("{} {arg} did not answer", path.display())
        }
        err => format!("{} {err}", path.display()),
    })?;
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// Whether a `--version` line names the harness: Claude Code prints "2.1.197 (Claude Code)",
/// Codex "codex-cli 0.171.0", Pi only "1.6.0".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Product {
    Matches,
    /// It names another product (the name given).
    Other(&'static str),
    /// Only a version.
    Unnamed,
}

pub fn product_in(kind: HarnessKind, version_text: &str) -> Product {
    let lower = version_text.to_lowercase();
    let claude = lower.contains("claude code");
    let codex = lower.contains("codex");
    let pi = lower
        .split(|c: char| !c.is_ascii_alphanumeric() && c != '-')
        .any(|w| w == "pi" || w == "pi-coding-agent");
    match kind {
        HarnessKind::Claude if claude => Product::Matches,
        HarnessKind::Codex if codex => Product::Matches,
        HarnessKind::Pi if pi && !claude && !codex => Product::Matches,
        _ if claude => Product::Other("Claude Code"),
        _ if codex => Product::Other("Codex"),
        _ if pi => Product::Other("Pi"),
        _ => Product::Unnamed,
    }
}

/// Pi's `--help` starts "pi - AI coding assistant…" and shows "Usage: pi [options]".
pub fn help_names_pi(help: &str) -> bool {
    help.lines().take(40).any(|line| {
        let line = line.trim();
        line.starts_with("pi - ") || line.starts_with("pi [options]") || line == "pi"
    })
}

/// The product name users know a harness by.
pub fn product_name(kind: HarnessKind) -> &'static str {
    match kind {
        HarnessKind::Claude => "Claude Code",
        HarnessKind::Codex => "Codex",
        HarnessKind::Pi => "Pi",
    }
}

/// A path the user typed for a harness (Settings), checked before it is saved: it must exist,
/// be startable by the rules of a `PATH` search, and its `--version` must name the harness.
/// `HarnessNotFound` when it cannot be started, `InvalidInput` when it is another program.
pub async fn check_path(kind: HarnessKind, text: &str) -> HarnessResult<HarnessBinary> {
    let text = text.trim();
    if text.is_empty() {
        return Err(HarnessError::InvalidInput("no path given".into()));
    }
    let search = search_path::global();
    let path = check_given(
        text,
        search,
        search_path::pathext().as_deref(),
        cfg!(windows),
        &search_path::fs_entry,
    )
    .map_err(|why| HarnessError::HarnessNotFound {
        harness: kind,
        detail: why,
    })?;
    let not_found = |detail: String| HarnessError::HarnessNotFound {
        harness: kind,
        detail,
    };
    // One run gives both the version and the product's name.
    let text = run_for_text(&path, "--version").await.map_err(not_found)?;
    let version = parse_version(&text)
        .ok_or_else(|| not_found(format!("{} --version printed no version", path.display())))?;
    let binary = HarnessBinary {
        kind,
        path,
        version,
    };
    let line = text.trim();
    let wanted = product_name(kind);
    match product_in(kind, line) {
        Product::Matches => Ok(binary),
        Product::Other(other) => Err(HarnessError::InvalidInput(format!(
            "{} is {other} (its --version printed \"{line}\"), not {wanted}",
            binary.path.display()
        ))),
        Product::Unnamed if kind == HarnessKind::Pi => {
            // Pi's --version is a bare number; its --help names it.
            let help = run_for_text(&binary.path, "--help")
                .await
                .unwrap_or_default();
            if help_names_pi(&help) {
                Ok(binary)
            } else {
                Err(HarnessError::InvalidInput(format!(
                    "{} printed version {} but its --help does not name Pi",
                    binary.path.display(),
                    binary.version
                )))
            }
        }
        Product::Unnamed => Err(HarnessError::InvalidInput(format!(
            "{} printed \"{line}\" for --version, which does not name {wanted}",
            binary.path.display()
        ))),
    }
}

/// Why Claude Code on Windows may not start: it runs its tools through Git Bash, found through
/// `CLAUDE_CODE_GIT_BASH_PATH` or a Git for Windows install. `Ok(path)` names the `bash.exe`.
pub fn git_bash_for_claude(
    var: &dyn Fn(&str) -> Option<String>,
    path_dirs: &[PathBuf],
    is_file: &dyn Fn(&Path) -> bool,
) -> Result<PathBuf, String> {
    if let Some(given) = var("CLAUDE_CODE_GIT_BASH_PATH").filter(|v| !v.trim().is_empty()) {
        let given = PathBuf::from(given.trim());
        return if is_file(&given) {
            Ok(given)
        } else {
            Err(format!(
                "Claude Code on Windows needs Git Bash: CLAUDE_CODE_GIT_BASH_PATH is {}, which does not exist",
                given.display()
            ))
        };
    }
    let win =
        |dir: &str, rest: &str| PathBuf::from(format!("{}\\{rest}", dir.trim_end_matches('\\')));
    let mut candidates: Vec<PathBuf> = Vec::new();
    // git.exe on PATH sits in <Git>\cmd or <Git>\bin; bash.exe in <Git>\bin.
    for dir in path_dirs {
        let dir = dir.to_string_lossy();
        if is_file(&win(&dir, "git.exe")) {
            if let Some((root, _)) = dir.trim_end_matches('\\').rsplit_once('\\') {
                candidates.push(win(root, "bin\\bash.exe"));
            }
        }
    }
    for (var_name, rest) in [
        ("ProgramFiles", "Git\\bin\\bash.exe"),
        ("ProgramW6432", "Git\\bin\\bash.exe"),
        ("ProgramFiles(x86)", "Git\\bin\\bash.exe"),
        ("LOCALAPPDATA", "Programs\\Git\\bin\\bash.exe"),
    ] {
        if let Some(dir) = var(var_name).filter(|v| !v.is_empty()) {
            candidates.push(win(&dir, rest));
        }
    }
    candidates.push(PathBuf::from(r"C:\Program Files\Git\bin\bash.exe"));
    candidates.into_iter().find(|c| is_file(c)).ok_or_else(|| {
        "Claude Code on Windows needs Git Bash, and none was found: install Git for Windows \
             (git-scm.com) or set CLAUDE_CODE_GIT_BASH_PATH to its bash.exe"
            .to_owned()
    })
}

/// Remarks for `doctor` about what a harness needs besides its binary on this OS.
pub fn doctor_notes(kind: HarnessKind) -> Vec<String> {
    let mut notes = Vec::new();
    if cfg!(windows) && kind == HarnessKind::Claude {
        let dirs: Vec<PathBuf> = search_path::global()
            .dirs()
            .map(Path::to_path_buf)
            .collect();
        match git_bash_for_claude(&|k| std::env::var(k).ok(), &dirs, &|p| p.is_file()) {
            Ok(bash) => notes.push(format!(
                "Git Bash (which Claude Code on Windows needs): {}",
                bash.display()
            )),
            Err(why) => notes.push(why),
        }
    }
    notes
}

/// The first `N.N.N` in a `--version` line ("2.1.197 (Claude Code)", "codex-cli 0.171.0").
pub fn parse_version(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find(|w| w.split('.').count() >= 3 && w.split('.').take(3).all(|p| !p.is_empty()))
        .map(|w| w.split('.').take(3).collect::<Vec<_>>().join("."))
}

/// `(major, minor, patch)` of a version string, for comparisons.
pub fn version_triple(version: &str) -> Option<(u64, u64, u64)> {
    let mut parts = version.split('.').map(|p| p.parse::<u64>().ok());
    Some((parts.next()??, parts.next()??, parts.next()??))
}

impl HarnessBinary {
    /// What this binary can do; see each harness module's `capabilities`.
    pub fn capabilities(&self) -> Capabilities {
        match self.kind {
            HarnessKind::Claude => crate::claude::capabilities(&self.version),
            HarnessKind::Codex => crate::codex::capabilities(&self.version),
            HarnessKind::Pi => crate::pi::capabilities(&self.version),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_versions_as_the_clis_print_them() {
        assert_eq!(
            parse_version("2.1.197 (Claude Code)\n").as_deref(),
            Some("2.1.197")
        );
        assert_eq!(
            parse_version("codex-cli 0.171.0").as_deref(),
            Some("0.171.0")
        );
        assert_eq!(parse_version("1.6.0").as_deref(), Some("1.6.0"));
        assert_eq!(parse_version("v 1.2 beta"), None);
        assert_eq!(version_triple("0.171.0"), Some((0, 171, 0)));
    }

    fn search(dirs: &[&Path]) -> SearchPath {
        SearchPath::new(
            [(dirs.iter().map(|d| d.to_path_buf()).collect(), Origin::Path)],
            cfg!(windows),
        )
    }

    fn locate_here(
        kind: HarnessKind,
        over: Option<&str>,
        dirs: &[&Path],
    ) -> HarnessResult<Located> {
        locate_in(
            kind,
            over.map(OsString::from),
            &search(dirs),
            None,
            cfg!(windows),
            search_path::fs_entry,
        )
    }

    #[test]
    fn a_missing_binary_is_harness_not_found() {
        let err = locate_here(HarnessKind::Pi, Some("/nonexistent/forkhost/pi"), &[]).unwrap_err();
        assert!(matches!(
            err,
            HarnessError::HarnessNotFound {
                harness: HarnessKind::Pi,
                ..
            }
        ));
        assert!(err.to_string().contains("does not exist"), "{err}");
        let dir = tempfile::tempdir().unwrap();
        let err = locate_here(HarnessKind::Codex, None, &[dir.path()]).unwrap_err();
        assert!(err.to_string().contains("not on PATH"), "{err}");
    }

    #[cfg(unix)]
    fn executable(path: &Path, text: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn finds_an_executable_on_path_and_skips_plain_files() {
        let plain = tempfile::tempdir().unwrap();
        std::fs::write(plain.path().join("claude"), "not executable").unwrap();
        let real = tempfile::tempdir().unwrap();
        let bin = real.path().join("claude");
        executable(&bin, "#!/bin/sh\necho 9.9.9\n");
        let found = locate_here(HarnessKind::Claude, None, &[plain.path(), real.path()]).unwrap();
        assert_eq!(
            found,
            Located {
                path: bin.clone(),
                found_by: FoundBy::Path
            }
        );
        let err = locate_here(HarnessKind::Claude, None, &[plain.path()]).unwrap_err();
        assert!(err.to_string().contains("not executable"), "{err}");
        // The override goes through the same check, and a bare name is searched for.
        let over = locate_here(
            HarnessKind::Claude,
            Some("claude"),
            &[plain.path(), real.path()],
        )
        .unwrap();
        assert_eq!(over.found_by, FoundBy::Override);
        assert_eq!(over.path, bin);
        let plain_file = plain.path().join("claude");
        let err = locate_here(HarnessKind::Claude, plain_file.to_str(), &[]).unwrap_err();
        assert!(
            err.to_string()
                .contains("FORKHOST_CLAUDE_BIN (the path saved in Settings"),
            "{err}"
        );
        assert!(err.to_string().contains("not executable"), "{err}");
    }

    #[test]
    fn windows_lookups_find_the_cmd_shim_and_refuse_the_sh_one() {
        let files = |p: &Path| match &*p.to_string_lossy() {
            r"C:\Users\me\AppData\Roaming\npm\claude" => Entry::File {
                executable: true,
                script: true,
            },
            r"C:\Users\me\AppData\Roaming\npm\claude.cmd" => Entry::File {
                executable: true,
                script: false,
            },
            r"C:\tools\codex" => Entry::File {
                executable: true,
                script: true,
            },
            _ => Entry::Missing,
        };
        let search = SearchPath::new(
            [
                (vec![PathBuf::from(r"C:\Windows\system32")], Origin::Path),
                (
                    vec![PathBuf::from(r"C:\Users\me\AppData\Roaming\npm")],
                    Origin::Fallback,
                ),
                (vec![PathBuf::from(r"C:\tools")], Origin::Fallback),
            ],
            true,
        );
        let found = locate_in(HarnessKind::Claude, None, &search, None, true, files).unwrap();
        assert_eq!(
            found,
            Located {
                path: PathBuf::from(r"C:\Users\me\AppData\Roaming\npm\claude.cmd"),
                found_by: FoundBy::Fallback
            }
        );
        let err = locate_in(HarnessKind::Codex, None, &search, None, true, files).unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains(r"found `codex` at C:\tools\codex but it is a shell script"),
            "{text}"
        );
        assert!(text.contains("codex.cmd"), "{text}");
        let err = locate_in(
            HarnessKind::Codex,
            Some(r"C:\tools\codex".into()),
            &search,
            None,
            true,
            files,
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("FORKHOST_CODEX_BIN (the path saved"),
            "{err}"
        );
        assert!(err.to_string().contains("use codex.cmd"), "{err}");
        let over = locate_in(
            HarnessKind::Claude,
            Some(r"C:\Users\me\AppData\Roaming\npm\claude".into()),
            &search,
            None,
            true,
            files,
        )
        .unwrap();
        assert_eq!(
            over.path,
            PathBuf::from(r"C:\Users\me\AppData\Roaming\npm\claude.cmd")
        );
    }

    #[test]
    fn version_lines_name_their_product() {
        assert_eq!(
            product_in(HarnessKind::Claude, "2.1.332 (Claude Code)"),
            Product::Matches
        );
        assert_eq!(
            product_in(HarnessKind::Codex, "codex-cli 0.171.0"),
            Product::Matches
        );
        assert_eq!(product_in(HarnessKind::Pi, "1.6.0"), Product::Unnamed);
        assert_eq!(
            product_in(HarnessKind::Claude, "codex-cli 0.171.0"),
            Product::Other("Codex")
        );
        assert_eq!(
            product_in(HarnessKind::Pi, "2.1.197 (Claude Code)"),
            Product::Other("Claude Code")
        );
        assert_eq!(product_in(HarnessKind::Claude, "1.6.0"), Product::Unnamed);
        assert_eq!(product_in(HarnessKind::Pi, "pi 1.7.0"), Product::Matches);
        assert!(help_names_pi("Warning: no models\npi - AI coding assistant with read, bash\n\nUsage:\n  pi [options]"));
        assert!(!help_names_pi("Usage: claude [options] [command] [prompt]"));
    }

    #[test]
    fn claude_on_windows_finds_git_bash() {
        let files = |p: &Path| {
            matches!(
                &*p.to_string_lossy(),
                r"D:\Git\cmd\git.exe"
                    | r"D:\Git\bin\bash.exe"
                    | r"C:\Program Files\Git\bin\bash.exe"
            )
        };
        let none = |_: &str| None;
        assert_eq!(
            git_bash_for_claude(&none, &[PathBuf::from(r"D:\Git\cmd\")], &files),
            Ok(PathBuf::from(r"D:\Git\bin\bash.exe"))
        );
        let pf = |k: &str| (k == "ProgramFiles").then(|| r"C:\Program Files".to_owned());
        assert_eq!(
            git_bash_for_claude(&pf, &[], &files),
            Ok(PathBuf::from(r"C:\Program Files\Git\bin\bash.exe"))
        );
        let given = |k: &str| (k == "CLAUDE_CODE_GIT_BASH_PATH").then(|| r"E:\bash.exe".to_owned());
        let err = git_bash_for_claude(&given, &[], &files).unwrap_err();
        assert!(err.contains("CLAUDE_CODE_GIT_BASH_PATH"), "{err}");
        let err = git_bash_for_claude(&none, &[], &|_| false).unwrap_err();
        assert!(err.contains("needs Git Bash"), "{err}");
    }

    #[cfg(unix)]
    #[tokio::test]
    async fn a_settings_path_must_name_the_right_product() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path().join("claude");
        executable(&claude, "#!/bin/sh\necho '2.1.332 (Claude Code)'\n");
        let bin = check_path(HarnessKind::Claude, claude.to_str().unwrap())
            .await
            .unwrap();
        assert_eq!(bin.version, "2.1.332");
        let err = check_path(HarnessKind::Codex, claude.to_str().unwrap())
            .await
            .unwrap_err();
        assert!(matches!(err, HarnessError::InvalidInput(_)), "{err}");
        assert!(err.to_string().contains("is Claude Code"), "{err}");
        // At start-up too (an override the user set for the wrong harness), not only in Settings.
        let err = probe_at(HarnessKind::Pi, claude.clone()).await.unwrap_err();
        assert!(matches!(err, HarnessError::HarnessNotFound { .. }), "{err}");
        assert!(err.to_string().contains("is Claude Code"), "{err}");
        let pi = dir.path().join("pi");
        executable(&pi, "#!/bin/sh\nif [ \"$1\" = --help ]; then echo 'pi - AI coding assistant'; else echo 1.6.0; fi\n");
        assert_eq!(
            check_path(HarnessKind::Pi, pi.to_str().unwrap())
                .await
                .unwrap()
                .version,
            "1.6.0"
        );
        let err = check_path(HarnessKind::Claude, pi.to_str().unwrap())
            .await
            .unwrap_err();
        assert!(
            err.to_string().contains("does not name Claude Code"),
            "{err}"
        );
        let err = check_path(HarnessKind::Pi, "/nonexistent/forkhost/pi")
            .await
            .unwrap_err();
        assert!(matches!(err, HarnessError::HarnessNotFound { .. }), "{err}");
        let err = check_path(HarnessKind::Pi, "  ").await.unwrap_err();
        assert!(matches!(err, HarnessError::InvalidInput(_)), "{err}");
    }
}
