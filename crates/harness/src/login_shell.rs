//! The `PATH` the user's login shell sets up.
//!
//! An app started from Finder, the Dock or a Linux `.desktop` file inherits launchd's or the
//! session's `PATH` (`/usr/bin:/bin:/usr/sbin:/sbin` on macOS), not the one the user's rc files
//! build, so `claude` in `~/.local/bin`, Homebrew, the npm prefix or nvm is missing. Asking the
//! login shell once (`$SHELL -ilc`) is what the user's terminal would see.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Long enough for a heavy zsh setup (oh-my-zsh, nvm's script), short enough that a shell that
/// never returns (an rc file waiting for input) delays start-up only this much.
pub const TIMEOUT: Duration = Duration::from_millis(2500);

const START: &str = "__FORKHOST_PATH_START__";
const END: &str = "__FORKHOST_PATH_END__";

/// What the shell runs: the markers let the output be found among whatever the rc files print
/// (banners, `motd`, prompt escapes). `printenv` prints the exported, colon-joined `PATH` even
/// in fish, where `$PATH` is a list.
pub fn script() -> String {
    format!("printf '%s' {START}; printenv PATH; printf '%s' {END}")
}

/// The `PATH` between the last pair of markers in a shell's output, trimmed; `None` when the
/// markers are missing or the value is empty.
pub fn parse_output(stdout: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(stdout);
    // The last start marker: an rc file that echoes its commands (`set -x` goes to stderr, but
    // `setopt verbose`-like setups may print the script) must not shadow the real value.
    let (_, after) = text.rsplit_once(START)?;
    let (value, _) = after.split_once(END)?;
    let value = value.trim_matches(|c: char| c.is_whitespace() || c == '\0');
    (!value.is_empty() && !value.contains(['\n', '\r'])).then(|| value.to_owned())
}

/// The shell to ask: `$SHELL`, else the platform's default login shell.
pub fn user_shell() -> PathBuf {
    std::env::var_os("SHELL")
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let default = if cfg!(target_os = "macos") {
                "/bin/zsh"
            } else if Path::new("/bin/bash").exists() {
                "/bin/bash"
            } else {
                "/bin/sh"
            };
            PathBuf::from(default)
        })
}

/// Runs `shell -ilc <script>` with no terminal and returns the `PATH` it printed, or `None`
/// (logged) when the shell failed, printed no markers or took longer than `timeout`.
pub fn read_path(shell: &Path, timeout: Duration) -> Option<OsString> {
    let started = Instant::now();
    let mut command = Command::new(shell);
    command
        .arg("-ilc")
        .arg(script())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own group, so a timeout kills whatever the rc files started with it.
        command.process_group(0);
    }
    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(err) => {
            tracing::warn!(shell = %shell.display(), error = %err, "login shell did not start");
            return None;
        }
    };
    let output = Arc::new(Mutex::new(Vec::new()));
    if let Some(mut stdout) = child.stdout.take() {
        let output = Arc::clone(&output);
        // A background job started by an rc file may hold the pipe open after the shell has
        // exited, so the reader is never waited for: the markers say when the answer is in.
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = stdout.read(&mut buf) {
                if n == 0 {
                    break;
                }
                output
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .extend_from_slice(&buf[..n]);
            }
        });
    }
    let answered = || {
        let out = output.lock().unwrap_or_else(|e| e.into_inner());
        parse_output(&out)
    };
    let mut exited_at: Option<Instant> = None;
    let found = loop {
        if let Some(path) = answered() {
            break Some(path);
        }
        if exited_at.is_none() && matches!(child.try_wait(), Ok(Some(_))) {
            exited_at = Some(Instant::now());
        }
        // After the shell exits, give the reader a moment to hand over the last bytes.
        let drained = exited_at.is_some_and(|t| t.elapsed() > Duration::from_millis(100));
        if drained || started.elapsed() > timeout {
            break answered();
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    if matches!(child.try_wait(), Ok(None)) {
        if found.is_none() {
            kill_group(&mut child);
        } else {
            // The shell is finishing its logout files: reap it without waiting here.
            std::thread::spawn(move || {
                let _ = child.wait();
            });
        }
    }
    match &found {
        Some(path) => tracing::info!(
            shell = %shell.display(),
            entries = path.split(':').count(),
            ms = started.elapsed().as_millis() as u64,
            "read the login shell's PATH"
        ),
        None => tracing::warn!(
            shell = %shell.display(),
            ms = started.elapsed().as_millis() as u64,
            "the login shell printed no PATH; using the fallback folders"
        ),
    }
    found.map(OsString::from)
}

fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(child.id()) {
        // SAFETY: signals the group this function's own child leads (process_group(0) above).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_path_among_rc_file_noise() {
        let out = format!(
            "Welcome to fish!\n\x1b[1mLast login\x1b[0m {START}/opt/homebrew/bin:/usr/bin\n{END}bye\n"
        );
        assert_eq!(
            parse_output(out.as_bytes()).as_deref(),
            Some("/opt/homebrew/bin:/usr/bin")
        );
        // An rc file that printed the script itself: the last pair is the answer.
        let echoed = format!("{}\n{START}/a:/b\n{END}", script());
        assert_eq!(parse_output(echoed.as_bytes()).as_deref(), Some("/a:/b"));
        assert_eq!(parse_output(b"no markers at all"), None);
        assert_eq!(parse_output(format!("{START}\n{END}").as_bytes()), None);
        assert_eq!(parse_output(format!("{START}/a:/b").as_bytes()), None);
        assert_eq!(
            parse_output(format!("{START}/a\n/b{END}").as_bytes()),
            None,
            "two lines are not a PATH"
        );
    }

    #[cfg(unix)]
    fn fake_shell(dir: &Path, body: &str) -> PathBuf {
        let path = dir.join("fakesh");
        forkhost_test_script::write_executable(&path, &format!("#!/bin/sh\n{body}\n")).unwrap();
        path
    }

    #[cfg(unix)]
    #[test]
    fn reads_the_path_a_fake_login_shell_prints() {
        let dir = tempfile::tempdir().unwrap();
        // Behaves like a login shell whose rc files print a banner, then runs the script
        // with its own PATH.
        let shell = fake_shell(
            dir.path(),
            "echo 'motd: hello'\nPATH=/login/bin:/usr/bin:/bin\nexport PATH\nshift\nexec /bin/sh -c \"$1\"",
        );
        assert_eq!(
            read_path(&shell, TIMEOUT),
            Some(OsString::from("/login/bin:/usr/bin:/bin"))
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_shell_that_hangs_or_fails_gives_up() {
        let dir = tempfile::tempdir().unwrap();
        let hangs = fake_shell(dir.path(), "sleep 30");
        let started = Instant::now();
        assert_eq!(read_path(&hangs, Duration::from_millis(300)), None);
        assert!(started.elapsed() < Duration::from_secs(3));
        let fails = fake_shell(dir.path(), "echo oops; exit 1");
        assert_eq!(read_path(&fails, TIMEOUT), None);
        assert_eq!(read_path(&dir.path().join("missing"), TIMEOUT), None);
    }
}
