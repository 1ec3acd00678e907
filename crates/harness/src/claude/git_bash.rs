//! Claude Code on Windows runs its tools through Git Bash: finding it, for `doctor`.

use std::path::{Path, PathBuf};

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
