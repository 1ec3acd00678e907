//! Install and uninstall: each does exactly one plan's change, asking for an administrator only
//! where one may help (macOS).

use std::path::Path;

use super::env::{CliEnv, Os, System};
use super::error::{io_err, CliToolError};
use super::files::{place_copy, stamp};
use super::macos::sh_quote;
use super::status::status;
use super::target::{inspect, plan, write_record, Found, Record};
use super::view::{CliInstallKind, CliToolStatus};
use super::windows::{windows_path_with, windows_path_without};

/// Puts the bundled CLI on PATH. `replace`: the user confirmed replacing a `forkhost` that is
/// not ours.
pub fn install(
    env: &CliEnv,
    sys: &dyn System,
    replace: bool,
) -> Result<CliToolStatus, CliToolError> {
    let plan = plan(env);
    let Some(bundled) = plan.bundled.clone() else {
        return Err(CliToolError::NoBundledCli {
            looked_at: plan.looked_at,
        });
    };
    let Some(target) = plan.target.clone() else {
        return Err(CliToolError::NoHome);
    };
    match plan.kind {
        CliInstallKind::Packaged | CliInstallKind::None => {}
        CliInstallKind::UserPath => {
            let dir = target.to_string_lossy().into_owned();
            let current = sys.read_user_path()?;
            if let Some(new) = windows_path_with(current.as_deref(), &dir) {
                sys.write_user_path(current.as_deref(), Some(&new))?;
                tracing::info!(dir = %dir, "cli tool: folder added to the user Path");
            }
        }
        CliInstallKind::Symlink | CliInstallKind::Copy => {
            let bundled_version = sys.version(&bundled).ok();
            match inspect(env, sys, &plan, bundled_version.as_deref()) {
                Found::Ours => {}
                Found::Folder => return Err(CliToolError::Folder { path: target }),
                Found::Foreign(detail) if !replace => {
                    return Err(CliToolError::Conflict {
                        path: target,
                        detail,
                    })
                }
                found => {
                    if let Found::Foreign(detail) = &found {
                        tracing::info!(path = %target.display(), %detail, "cli tool: replacing a foreign forkhost (confirmed)");
                    }
                    if plan.kind == CliInstallKind::Symlink {
                        place_link(env, sys, &bundled, &target)?;
                        write_record(
                            env,
                            Some(&Record {
                                path: target.clone(),
                                kind: plan.kind,
                                link: Some(bundled.clone()),
                                len: None,
                                modified_ms: None,
                            }),
                        );
                    } else {
                        place_copy(&bundled, &target)?;
                        let (len, modified_ms) = stamp(&target);
                        write_record(
                            env,
                            Some(&Record {
                                path: target.clone(),
                                kind: plan.kind,
                                link: None,
                                len,
                                modified_ms,
                            }),
                        );
                    }
                    tracing::info!(kind = ?plan.kind, path = %target.display(), "cli tool installed");
                }
            }
        }
    }
    Ok(status(env, sys))
}

/// Removes exactly what Install added.
pub fn uninstall(env: &CliEnv, sys: &dyn System) -> Result<CliToolStatus, CliToolError> {
    let plan = plan(env);
    let Some(target) = plan.target.clone() else {
        return match plan.bundled {
            None => Err(CliToolError::NoBundledCli {
                looked_at: plan.looked_at,
            }),
            Some(_) => Err(CliToolError::NoHome),
        };
    };
    match plan.kind {
        CliInstallKind::None => {}
        CliInstallKind::Packaged => return Err(CliToolError::Packaged { path: target }),
        CliInstallKind::UserPath => {
            let dir = target.to_string_lossy().into_owned();
            let current = sys.read_user_path()?;
            if let Some(new) = current
                .as_deref()
                .and_then(|v| windows_path_without(v, &dir))
            {
                let new = (!new
                    .trim_matches(|c: char| c == ';' || c.is_whitespace())
                    .is_empty())
                .then_some(new);
                sys.write_user_path(current.as_deref(), new.as_deref())?;
                tracing::info!(dir = %dir, "cli tool: folder removed from the user Path");
            }
        }
        CliInstallKind::Symlink | CliInstallKind::Copy => {
            let bundled_version = plan.bundled.as_deref().and_then(|b| sys.version(b).ok());
            match inspect(env, sys, &plan, bundled_version.as_deref()) {
                Found::Missing => {}
                Found::Ours | Found::Stale => {
                    remove(env, sys, &target)?;
                    tracing::info!(path = %target.display(), "cli tool uninstalled");
                }
                Found::Foreign(detail) => {
                    return Err(CliToolError::NotOurs {
                        path: target,
                        detail,
                    })
                }
                Found::Folder => {
                    return Err(CliToolError::NotOurs {
                        path: target,
                        detail: "a folder".into(),
                    })
                }
            }
            write_record(env, None);
        }
    }
    Ok(status(env, sys))
}

pub(super) fn place_link(
    env: &CliEnv,
    sys: &dyn System,
    bundled: &Path,
    target: &Path,
) -> Result<(), CliToolError> {
    match sys.link(bundled, target) {
        Ok(()) => Ok(()),
        // /usr/local/bin is root's on many Macs (or missing): the system password prompt.
        Err(e) if env.os == Os::MacOs && admin_may_help(&e) => {
            tracing::info!(error = %e, "cli tool: linking needs an administrator");
            let dir = target.parent().unwrap_or(Path::new("/"));
            sys.run_as_admin(&format!(
                "/bin/mkdir -p {} && /bin/ln -sfn {} {}",
                sh_quote(&dir.to_string_lossy()),
                sh_quote(&bundled.to_string_lossy()),
                sh_quote(&target.to_string_lossy()),
            ))
        }
        Err(e) => Err(io_err("create the link", target)(e)),
    }
}

pub(super) fn remove(env: &CliEnv, sys: &dyn System, target: &Path) -> Result<(), CliToolError> {
    match sys.remove(target) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) if env.os == Os::MacOs && admin_may_help(&e) => sys.run_as_admin(&format!(
            "/bin/rm -f {}",
            sh_quote(&target.to_string_lossy())
        )),
        Err(e) => Err(io_err("remove", target)(e)),
    }
}

pub(super) fn admin_may_help(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
    ) || e.raw_os_error() == Some(1) // EPERM
}
