//! The status the UI shows: where the CLI is, where it goes, whether it is there, and warnings.

use std::path::{Path, PathBuf};

use super::env::{CliEnv, Os, System};
use super::error::CliToolError;
use super::files::same_file;
use super::target::{inspect, plan, Found};
use super::view::{CliConflict, CliInstallKind, CliToolStatus, CliWarning};
use super::windows::{same_windows_dir, windows_path_has};

pub(super) fn on_path(env: &CliEnv, dir: &Path) -> bool {
    env.path_dirs().iter().any(|d| {
        if env.os == Os::Windows {
            same_windows_dir(&d.to_string_lossy(), &dir.to_string_lossy())
        } else {
            d == dir || same_file(d, dir)
        }
    })
}

/// The first `forkhost` a terminal started from the app's environment would run.
pub(super) fn first_on_path(env: &CliEnv) -> Option<PathBuf> {
    env.path_dirs()
        .into_iter()
        .map(|d| d.join(env.os.cli_name()))
        .find(|p| p.is_file())
}

pub(super) fn warn(code: &str, message: impl Into<String>) -> CliWarning {
    CliWarning {
        code: code.to_owned(),
        message: message.into(),
    }
}

/// Where the CLI is, where it goes, and whether it is there.
pub fn status(env: &CliEnv, sys: &dyn System) -> CliToolStatus {
    let plan = plan(env);
    let bundled_version = plan.bundled.as_deref().and_then(|b| sys.version(b).ok());
    let mut st = CliToolStatus {
        kind: plan.kind,
        bundled: plan.bundled.as_ref().map(|p| p.display().to_string()),
        looked_at: plan.looked_at.display().to_string(),
        bundled_version: bundled_version.clone(),
        target: plan.target.as_ref().map(|p| p.display().to_string()),
        installed: false,
        installed_path: None,
        installed_version: None,
        outdated: false,
        conflict: None,
        can_install: false,
        can_uninstall: false,
        needs_admin: false,
        warnings: Vec::new(),
    };
    if plan.bundled.is_some() && plan.target.is_none() {
        st.warnings
            .push(warn("no_home", CliToolError::NoHome.to_string()));
        st.kind = CliInstallKind::None;
    }
    let Some(target) = plan.target.clone() else {
        return st;
    };
    let installed_path = match plan.kind {
        CliInstallKind::Packaged => {
            st.installed = target.is_file();
            target.clone()
        }
        CliInstallKind::UserPath => {
            let run = target.join(env.os.cli_name());
            match sys.read_user_path() {
                Ok(value) => {
                    st.installed = value
                        .as_deref()
                        .is_some_and(|v| windows_path_has(v, &target.to_string_lossy()));
                    st.can_install = !st.installed;
                    st.can_uninstall = st.installed;
                }
                Err(e) => st.warnings.push(warn(
                    "path_unreadable",
                    format!("Could not read your Path: {e}"),
                )),
            }
            if st.installed && !on_path(env, &target) {
                st.warnings.push(warn(
                    "restart_terminals",
                    "Terminals that were already open keep their old Path: open a new one to use forkhost.",
                ));
            }
            run
        }
        CliInstallKind::Symlink | CliInstallKind::Copy => {
            match inspect(env, sys, &plan, bundled_version.as_deref()) {
                Found::Missing => st.can_install = true,
                Found::Ours => {
                    st.installed = true;
                    st.can_uninstall = true;
                }
                Found::Stale => {
                    st.installed = true;
                    st.outdated = true;
                    st.can_install = true;
                    st.can_uninstall = true;
                }
                Found::Foreign(detail) => {
                    st.can_install = true;
                    st.conflict = Some(CliConflict {
                        path: target.display().to_string(),
                        detail,
                        replaceable: true,
                    });
                }
                Found::Folder => {
                    st.conflict = Some(CliConflict {
                        path: target.display().to_string(),
                        detail: "a folder".into(),
                        replaceable: false,
                    })
                }
            }
            let dir = target.parent().unwrap_or(Path::new("/"));
            if !on_path(env, dir) {
                let shown = env.tilde(dir);
                let mut msg = format!(
                    "{shown} is not on your PATH, so terminals won't find forkhost there. Add it to your shell's start-up file (for example export PATH=\"{}:$PATH\" in ~/.profile or ~/.bashrc) and open a new terminal.",
                    if shown.starts_with("~/") { shown.replacen('~', "$HOME", 1) } else { shown.clone() }
                );
                if env.os == Os::Linux {
                    msg.push_str(" Debian and Ubuntu add ~/.local/bin by themselves at your next login once it exists.");
                }
                st.warnings.push(warn("not_on_path", msg));
            }
            if env.os == Os::MacOs && (st.can_install || st.can_uninstall) {
                st.needs_admin = !dir_writable(dir);
            }
            target.clone()
        }
        CliInstallKind::None => return st,
    };
    if st.installed {
        match sys.version(&installed_path) {
            Ok(v) => st.installed_version = Some(v),
            Err(e) => st.warnings.push(warn(
                "version_failed",
                format!("{} --version did not work: {e}", installed_path.display()),
            )),
        }
        st.installed_path = Some(installed_path.display().to_string());
        // Another `forkhost` earlier on PATH wins in a terminal.
        if let Some(first) = first_on_path(env) {
            let ours = same_file(&first, &installed_path)
                || plan
                    .bundled
                    .as_deref()
                    .is_some_and(|b| same_file(&first, b));
            if !ours {
                st.warnings.push(warn(
                    "shadowed",
                    format!(
                        "Another forkhost comes first on your PATH ({}): terminals run that one.",
                        first.display()
                    ),
                ));
            }
        }
    }
    st
}

/// Whether a plain (non-admin) link can be made in `dir` (or in its nearest existing parent,
/// which `create_dir_all` would need to write).
pub(super) fn dir_writable(dir: &Path) -> bool {
    let mut d = dir;
    loop {
        if d.is_dir() {
            return std::fs::metadata(d).is_ok_and(|m| !m.permissions().readonly()) && {
                // `readonly` only looks at the write bits; probing is the honest check.
                let probe = d.join(format!(".forkhost-probe-{}", std::process::id()));
                let ok = std::fs::File::create(&probe).is_ok();
                let _ = std::fs::remove_file(&probe);
                ok
            };
        }
        match d.parent() {
            Some(p) => d = p,
            None => return false,
        }
    }
}
