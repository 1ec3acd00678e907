//! The user's home folder, the one place `~/.claude`, `~/.codex`, `~/.pi` and `~` in typed paths
//! are derived from.
//!
//! Windows does not set `HOME`: its CLIs (Node's `os.homedir()`, Rust's `dirs`) use the profile
//! folder (`USERPROFILE`), so reading `HOME` alone breaks every harness path there. A `HOME`
//! given in a harness process's extra variables still wins: Forkhost's own tests and users who
//! run a harness in a separate home rely on it.

use std::path::{Path, PathBuf};

/// The home folder of this process's user: `$HOME` (else the passwd entry) on Unix, the
/// profile folder on Windows.
pub fn home_dir() -> Option<PathBuf> {
    dirs::home_dir().filter(|p| !p.as_os_str().is_empty())
}

/// The home folder a harness started with these extra variables sees.
pub fn home_for(env: &[(String, String)]) -> Option<PathBuf> {
    home_with(env, cfg!(windows), home_dir)
}

/// [`home_for`] as a pure function: `windows` chooses the variable the harness reads
/// (`USERPROFILE` besides `HOME`), `fallback` is the host's own home folder.
pub fn home_with(
    env: &[(String, String)],
    windows: bool,
    fallback: impl FnOnce() -> Option<PathBuf>,
) -> Option<PathBuf> {
    let extra = |key: &str| {
        env.iter()
            .rev()
            .find(|(k, _)| {
                if windows {
                    k.eq_ignore_ascii_case(key)
                } else {
                    k == key
                }
            })
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    extra("HOME")
        .or_else(|| windows.then(|| extra("USERPROFILE")).flatten())
        .or_else(fallback)
}

/// `~`, `~/rest` and `~\rest` → the home folder (and `rest`); anything else is returned as is,
/// as is `~` when the home folder is unknown.
pub fn expand_tilde(path: &str) -> PathBuf {
    expand_tilde_with(path, home_dir().as_deref())
}

/// [`expand_tilde`] with the home folder given.
pub fn expand_tilde_with(path: &str, home: Option<&Path>) -> PathBuf {
    let Some(home) = home else {
        return PathBuf::from(path);
    };
    if path == "~" {
        return home.to_path_buf();
    }
    match path.strip_prefix("~/").or_else(|| path.strip_prefix("~\\")) {
        // `~/` alone (or `~//x`) is still the home folder, never the root `/x`.
        Some(rest) => home.join(rest.trim_start_matches(['/', '\\'])),
        None => PathBuf::from(path),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn an_extra_home_wins_over_the_hosts() {
        let host = || Some(PathBuf::from("/host/home"));
        assert_eq!(
            home_with(&env(&[("HOME", "/a"), ("HOME", "/b")]), false, host),
            Some(PathBuf::from("/b"))
        );
        assert_eq!(
            home_with(&env(&[("HOME", "")]), false, host),
            Some(PathBuf::from("/host/home"))
        );
        // USERPROFILE means nothing to a Unix harness.
        assert_eq!(
            home_with(&env(&[("USERPROFILE", "/p")]), false, host),
            Some(PathBuf::from("/host/home"))
        );
        assert_eq!(home_with(&[], false, || None), None);
    }

    #[test]
    fn windows_uses_the_profile_folder() {
        let host = || Some(PathBuf::from(r"C:\Users\me"));
        assert_eq!(
            home_with(&[], true, host),
            Some(PathBuf::from(r"C:\Users\me"))
        );
        assert_eq!(
            home_with(&env(&[("UserProfile", r"D:\Users\test")]), true, host),
            Some(PathBuf::from(r"D:\Users\test"))
        );
        assert_eq!(
            home_with(
                &env(&[("USERPROFILE", r"D:\p"), ("HOME", r"E:\h")]),
                true,
                host
            ),
            Some(PathBuf::from(r"E:\h"))
        );
    }

    #[test]
    fn expands_a_leading_tilde_only() {
        let home = Path::new("/home/me");
        assert_eq!(expand_tilde_with("~", Some(home)), home);
        assert_eq!(expand_tilde_with("~/", Some(home)), home);
        assert_eq!(
            expand_tilde_with("~/p/q", Some(home)),
            PathBuf::from("/home/me/p/q")
        );
        assert_eq!(
            expand_tilde_with(r"~\proj", Some(home)),
            PathBuf::from("/home/me/proj")
        );
        assert_eq!(
            expand_tilde_with("~other/p", Some(home)),
            PathBuf::from("~other/p")
        );
        assert_eq!(
            expand_tilde_with("/a/~/b", Some(home)),
            PathBuf::from("/a/~/b")
        );
        assert_eq!(expand_tilde_with("~/p", None), PathBuf::from("~/p"));
    }

    #[test]
    fn the_process_home_is_known_here() {
        assert!(home_dir().is_some());
    }
}
