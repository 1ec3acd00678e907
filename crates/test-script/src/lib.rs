//! Scripts the tests write and then run: a stand-in harness CLI, a wrapped `git`, a hook, a
//! fake `uname`. Every crate's tests write them through [`write_executable`], one way.

use std::path::Path;

/// Writes `text` to `path` and makes it executable, through a short-lived `sh` so that the
/// test process never holds the file open for writing. A script written by the test process
/// itself can fail to run with "text file busy" (ETXTBSY): a child that another test thread
/// forks meanwhile inherits the writable descriptor until its own exec — CI saw it.
#[cfg(unix)]
pub fn write_executable(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(Stdio::piped())
        .spawn()?;
    let written = child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(text.as_bytes());
    let status = child.wait()?;
    written?;
    if status.success() {
        Ok(())
    } else {
        Err(std::io::Error::other(format!(
            "writing {} failed ({status})",
            path.display()
        )))
    }
}

/// Elsewhere a file has no mode to set, and no fork hands a descriptor on.
#[cfg(not(unix))]
pub fn write_executable(path: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(path, text)
}

#[cfg(all(test, unix))]
mod tests {
    #[test]
    fn a_written_script_runs_and_says_what_it_was_given() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("say");
        super::write_executable(&path, "#!/bin/sh\necho \"said $1\"\n").unwrap();
        let out = std::process::Command::new(&path)
            .arg("hi")
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "said hi\n");
        assert!(super::write_executable(&dir.path().join("no/such/dir/x"), "").is_err());
    }
}
