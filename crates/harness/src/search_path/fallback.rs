//! The folders installers put binaries in (`~/.local/bin`, Homebrew, the npm prefix,
//! nvm/volta/asdf/mise, cargo, bun), searched although a GUI launch's `PATH` lacks them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::lookup::join;

/// Folders installers put binaries in that a GUI launch's `PATH` lacks, for `home` and the
/// variables `var` answers; only folders that exist (per `is_dir`) are kept.
pub fn fallback_dirs(
    home: Option<&Path>,
    var: &dyn Fn(&str) -> Option<OsString>,
    windows: bool,
    is_dir: &dyn Fn(&Path) -> bool,
) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let var_dir = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if windows {
        if let Some(home) = home {
            // Claude Code's native installer.
            out.push(join(home, ".local\\bin", true));
        }
        if let Some(appdata) = var_dir("APPDATA") {
            // npm's global prefix.
            out.push(join(&appdata, "npm", true));
        }
        if let Some(volta) = var_dir("VOLTA_HOME") {
            out.push(join(&volta, "bin", true));
        }
        out.retain(|d| is_dir(d));
        return out;
    }
    if let Some(home) = home {
        out.push(home.join(".local/bin"));
    }
    out.push("/opt/homebrew/bin".into());
    out.push("/usr/local/bin".into());
    if let Some(home) = home {
        if let Some(prefix) = npm_prefix(home, var) {
            out.push(prefix.join("bin"));
        }
        out.push(home.join(".npm-global/bin"));
    }
    if let Some(bin) = var_dir("NVM_BIN") {
        out.push(bin);
    } else if let Some(nvm) = var_dir("NVM_DIR").or_else(|| home.map(|h| h.join(".nvm"))) {
        if let Some(bin) = nvm_default_bin(&nvm) {
            out.push(bin);
        }
    }
    if let Some(volta) = var_dir("VOLTA_HOME").or_else(|| home.map(|h| h.join(".volta"))) {
        out.push(volta.join("bin"));
    }
    if let Some(asdf) = var_dir("ASDF_DATA_DIR").or_else(|| home.map(|h| h.join(".asdf"))) {
        out.push(asdf.join("shims"));
    }
    let data_home = var_dir("XDG_DATA_HOME").or_else(|| home.map(|h| h.join(".local/share")));
    if let Some(mise) = var_dir("MISE_DATA_DIR").or_else(|| data_home.map(|d| d.join("mise"))) {
        out.push(mise.join("shims"));
    }
    if let Some(home) = home {
        // The agents' own tools: rustup's cargo, bun.
        out.push(
            var_dir("CARGO_HOME")
                .unwrap_or_else(|| home.join(".cargo"))
                .join("bin"),
        );
        out.push(home.join(".bun/bin"));
    }
    out.retain(|d| is_dir(d));
    out
}

/// `$NPM_CONFIG_PREFIX`, else `prefix=` in `~/.npmrc`.
fn npm_prefix(home: &Path, var: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    if let Some(prefix) = var("NPM_CONFIG_PREFIX").or_else(|| var("npm_config_prefix")) {
        if !prefix.is_empty() {
            return Some(PathBuf::from(prefix));
        }
    }
    let npmrc = std::fs::read_to_string(home.join(".npmrc")).ok()?;
    let value = npmrc.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim() == "prefix").then(|| value.trim().trim_matches('"').to_owned())
    })?;
    Some(crate::home::expand_tilde_with(&value, Some(home))).filter(|p| p.is_absolute())
}

/// nvm's default Node: `alias/default` names a version or a prefix (`22`, `v22.1.0`, `node`,
/// `lts/*`); the newest installed version that matches it, else the newest installed.
fn nvm_default_bin(nvm: &Path) -> Option<PathBuf> {
    let versions = nvm.join("versions/node");
    let mut installed: Vec<(Vec<u64>, String)> = std::fs::read_dir(&versions)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let parts = name
                .strip_prefix('v')?
                .split('.')
                .map(|p| p.parse().ok())
                .collect::<Option<Vec<u64>>>()?;
            Some((parts, name))
        })
        .collect();
    installed.sort();
    let alias = std::fs::read_to_string(nvm.join("alias/default")).unwrap_or_default();
    let alias = alias.trim().trim_start_matches('v');
    let numeric = !alias.is_empty() && alias.split('.').all(|p| p.parse::<u64>().is_ok());
    let chosen = installed
        .iter()
        .rev()
        .find(|(_, name)| {
            let v = &name[1..];
            !numeric || v == alias || v.starts_with(&format!("{alias}."))
        })
        .or_else(|| installed.last())?;
    Some(versions.join(&chosen.1).join("bin"))
}
