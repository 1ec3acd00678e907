//! Where the CLI is and where it goes ([`Plan`]), and what is at that place now ([`Found`]):
//! ours, an older one of ours, someone else's, or a folder.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::env::{CliEnv, Os, System};
use super::files::{files_equal, same_file, stamp};
use super::view::CliInstallKind;

#[derive(Debug, Clone)]
pub(super) struct Plan {
    pub(super) kind: CliInstallKind,
    pub(super) bundled: Option<PathBuf>,
    pub(super) looked_at: PathBuf,
    /// Link/copy path, `Path` folder (Windows), or the packaged CLI.
    pub(super) target: Option<PathBuf>,
}

pub(super) fn plan(env: &CliEnv) -> Plan {
    let exe_dir = env.exe.parent().map(Path::to_path_buf).unwrap_or_default();
    let beside = exe_dir.join(env.os.cli_name());
    let appimage = env.os == Os::Linux && env.appimage.is_some();
    let bundled = if beside.is_file() {
        Some(beside.clone())
    } else if appimage {
        env.appdir
            .as_ref()
            .map(|d| d.join("usr/bin").join(env.os.cli_name()))
            .filter(|p| p.is_file())
    } else {
        None
    };
    let local_bin = env
        .home
        .as_ref()
        .map(|h| h.join(".local/bin").join(env.os.cli_name()));
    let (kind, target) = match env.os {
        _ if bundled.is_none() => (CliInstallKind::None, None),
        Os::Linux if appimage => (CliInstallKind::Copy, local_bin),
        Os::Linux if exe_dir == env.packaged_dir => (
            CliInstallKind::Packaged,
            Some(env.packaged_dir.join(env.os.cli_name())),
        ),
        Os::Linux => (CliInstallKind::Symlink, local_bin),
        Os::MacOs => (
            CliInstallKind::Symlink,
            Some(env.mac_bin_dir.join(env.os.cli_name())),
        ),
        Os::Windows => (CliInstallKind::UserPath, Some(exe_dir)),
    };
    Plan {
        kind,
        bundled,
        looked_at: beside,
        target,
    }
}

/// What the app remembers having installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Record {
    pub(super) path: PathBuf,
    pub(super) kind: CliInstallKind,
    /// The link's target, as written.
    #[serde(default)]
    pub(super) link: Option<PathBuf>,
    /// The copy's size and modification time (ms since the epoch) right after copying.
    #[serde(default)]
    pub(super) len: Option<u64>,
    #[serde(default)]
    pub(super) modified_ms: Option<u64>,
}

pub(super) fn read_record(env: &CliEnv) -> Option<Record> {
    let file = env.record.as_ref()?;
    let bytes = std::fs::read(file).ok()?;
    serde_json::from_slice(&bytes)
        .map_err(|e| tracing::warn!(error = %e, "cli-tool record unreadable; ignored"))
        .ok()
}

pub(super) fn write_record(env: &CliEnv, record: Option<&Record>) {
    let Some(file) = &env.record else { return };
    let result = match record {
        Some(r) => serde_json::to_vec_pretty(r)
            .map_err(std::io::Error::other)
            .and_then(|bytes| {
                if let Some(dir) = file.parent() {
                    std::fs::create_dir_all(dir)?;
                }
                std::fs::write(file, bytes)
            }),
        None => match std::fs::remove_file(file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            other => other,
        },
    };
    // Losing the record only means the next update of this install asks first.
    if let Err(e) = result {
        tracing::warn!(error = %e, "could not update the cli-tool record");
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Found {
    Missing,
    /// Exactly what Install makes.
    Ours,
    /// Ours, but not this app's CLI (an older copy, a link to a moved build): replaced
    /// without asking.
    Stale,
    /// Someone else's: replaced only when the user confirms.
    Foreign(String),
    /// A folder: never replaced.
    Folder,
}

/// A `forkhost` inside some Forkhost install: it has the app binary beside it.
pub(super) fn is_bundle_cli(path: &Path, os: Os) -> bool {
    path.file_name().is_some_and(|n| n == os.cli_name())
        && path
            .parent()
            .is_some_and(|d| d.join(os.app_name()).is_file())
}

pub(super) fn inspect(
    env: &CliEnv,
    sys: &dyn System,
    plan: &Plan,
    bundled_version: Option<&str>,
) -> Found {
    let (Some(target), Some(bundled)) = (&plan.target, &plan.bundled) else {
        return Found::Missing;
    };
    let meta = match std::fs::symlink_metadata(target) {
        Ok(m) => m,
        Err(_) => return Found::Missing,
    };
    let record = read_record(env).filter(|r| &r.path == target && r.kind == plan.kind);
    if meta.is_dir() {
        return Found::Folder;
    }
    if meta.file_type().is_symlink() {
        let link = std::fs::read_link(target).unwrap_or_default();
        let resolved = target
            .parent()
            .map(|d| d.join(&link))
            .unwrap_or(link.clone());
        if plan.kind == CliInstallKind::Symlink && same_file(&resolved, bundled) {
            return Found::Ours;
        }
        if record
            .as_ref()
            .is_some_and(|r| r.link.as_ref() == Some(&link))
        {
            return Found::Stale;
        }
        // Another Forkhost's CLI (a second copy of the app) of the same version is as good;
        // a different version is someone's choice and is only replaced when confirmed.
        if is_bundle_cli(&resolved, env.os) {
            let theirs = sys.version(&resolved).ok();
            if theirs.is_some() && theirs.as_deref() == bundled_version {
                return Found::Stale;
            }
            return Found::Foreign(match theirs {
                Some(v) => format!(
                    "a link to another Forkhost's command-line tool ({v}) at {}",
                    resolved.display()
                ),
                None => format!(
                    "a link to another Forkhost's command-line tool at {}",
                    resolved.display()
                ),
            });
        }
        if !resolved.exists() {
            return Found::Foreign(format!("a broken link to {}", link.display()));
        }
        return Found::Foreign(format!("a link to {}", link.display()));
    }
    if plan.kind == CliInstallKind::Copy {
        if files_equal(target, bundled) {
            return Found::Ours;
        }
        if let Some(r) = &record {
            if (r.len, r.modified_ms) == stamp(target) {
                return Found::Stale;
            }
        }
    }
    Found::Foreign("a file that is not this app's command-line tool".into())
}
