//! How Forkhost runs `ssh` (docs/architecture.md "Remote hosts"): the system's OpenSSH client
//! (or `FORKHOST_SSH_COMMAND`, as git's `GIT_SSH_COMMAND`), with the host's own options, in
//! batch mode (no password prompt hidden behind the app) and with strict host key checking
//! (a key is never accepted silently), running one forkhost command on the remote. What ssh
//! says when it fails becomes a typed error in words ([`failure`]).

use std::ffi::OsString;

use crate::base::error::{HostError, HostResult};

/// Replaces `ssh` (and may add options), split as a POSIX shell would split it.
pub const SSH_COMMAND_ENV: &str = "FORKHOST_SSH_COMMAND";

/// ssh's exit status for its own failures (the remote command's status passes through).
pub const SSH_FAILED: i32 = 255;

/// One ssh invocation, ready to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteCommand {
    pub program: OsString,
    pub args: Vec<OsString>,
}

impl RemoteCommand {
    pub fn command(&self) -> std::process::Command {
        let mut command = std::process::Command::new(&self.program);
        command.args(&self.args);
        command
    }
}

/// The ssh program and the arguments it starts with.
pub(crate) fn ssh_program() -> HostResult<Vec<String>> {
    match std::env::var(SSH_COMMAND_ENV) {
        Ok(text) if !text.trim().is_empty() => match shlex::split(&text) {
            Some(words) if !words.is_empty() => Ok(words),
            _ => Err(HostError::InvalidInput(format!(
                "{SSH_COMMAND_ENV} is not a command a shell could read: {text:?}"
            ))),
        },
        _ => Ok(vec!["ssh".to_owned()]),
    }
}

/// The invocation that runs `remote_argv` on `destination`: batch mode, strict host keys,
/// the host's options, and the remote words quoted for the remote's shell (ssh joins them
/// with spaces and the remote login shell reads the line). `tty`: a terminal for a command
/// that asks the user (an approval prompt).
pub(crate) fn invocation(
    destination: &str,
    options: &[String],
    remote_argv: &[String],
    tty: bool,
) -> HostResult<RemoteCommand> {
    checked_destination(destination)?;
    let mut words = ssh_program()?;
    let program = words.remove(0);
    let mut args: Vec<OsString> = words.into_iter().map(OsString::from).collect();
    for option in [
        "-o",
        "BatchMode=yes",
        "-o",
        "StrictHostKeyChecking=yes",
        "-o",
        "ConnectTimeout=15",
    ] {
        args.push(option.into());
    }
    args.push(if tty { "-t" } else { "-T" }.into());
    args.extend(keepalive(options).into_iter().map(OsString::from));
    args.extend(multiplexing(options).into_iter().map(OsString::from));
    args.extend(options.iter().map(OsString::from));
    // `--` ends ssh's options: the destination is never read as one.
    args.push("--".into());
    args.push(destination.into());
    let line = remote_argv
        .iter()
        .map(|word| {
            shlex::try_quote(word)
                .map(|q| q.into_owned())
                .map_err(|_| HostError::InvalidInput(format!("{word:?} cannot be sent to a shell")))
        })
        .collect::<HostResult<Vec<_>>>()?
        .join(" ");
    args.push(line.into());
    Ok(RemoteCommand {
        program: program.into(),
        args,
    })
}

/// How often ssh asks a silent server whether it is still there, and how many unanswered asks
/// end the connection. A network that drops (a laptop that sleeps, Wi-Fi that goes) sends no
/// reset: without this ssh waits on a dead TCP connection for many minutes, and the app's
/// link to the host hangs with it. With it the connection ends in ~15 s, in words ("Timeout,
/// server not responding"), and the turn goes on there for `attach` to pick up
/// (`tests/tests/cli/remote_network.rs`).
const KEEPALIVE: [&str; 4] = ["-o", "ServerAliveInterval=5", "-o", "ServerAliveCountMax=3"];

/// [`KEEPALIVE`], unless the host's own options choose their own `ServerAlive…` settings.
fn keepalive(options: &[String]) -> Vec<String> {
    let theirs = options
        .iter()
        .any(|o| o.to_ascii_lowercase().contains("serveralive"));
    match theirs {
        true => Vec::new(),
        false => KEEPALIVE.iter().map(|&o| o.to_owned()).collect(),
    }
}

/// Turns off connection sharing (`FORKHOST_SSH_MULTIPLEX=0`).
pub const SSH_MULTIPLEX_ENV: &str = "FORKHOST_SSH_MULTIPLEX";

/// ssh's connection sharing: the first command to a host opens the connection and keeps it
/// for a minute after the last one, and each command meanwhile rides on it — about one round
/// trip instead of the seven of a fresh handshake (`tests/tests/cli/bench_remote.rs`). Not
/// where the host's own options choose their own `Control…` settings, where the user turned
/// it off, or on Windows (whose OpenSSH has none).
fn multiplexing(options: &[String]) -> Vec<String> {
    let theirs = options
        .iter()
        .any(|o| o.to_ascii_lowercase().contains("control"));
    let off = std::env::var(SSH_MULTIPLEX_ENV).is_ok_and(|v| v == "0");
    match (cfg!(unix), theirs || off, control_folder()) {
        (true, false, Some(folder)) => vec![
            "-o".into(),
            "ControlMaster=auto".into(),
            "-o".into(),
            // %C: a hash of the connection's ends, short enough for a socket's path.
            format!("ControlPath={}/%C", folder.display()),
            "-o".into(),
            "ControlPersist=60".into(),
        ],
        _ => Vec::new(),
    }
}

/// A private folder for the shared connections' sockets (the user's cache, 0700).
fn control_folder() -> Option<std::path::PathBuf> {
    let folder = dirs::cache_dir()?.join("forkhost").join("ssh");
    std::fs::create_dir_all(&folder).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&folder, std::fs::Permissions::from_mode(0o700)).ok()?;
    }
    // A socket's path holds about 100 bytes; %C adds 40.
    (folder.as_os_str().len() + 41 < 100).then_some(folder)
}

/// A destination ssh can only read as a destination: not empty, no option, no space or
/// control character.
pub(crate) fn checked_destination(destination: &str) -> HostResult<()> {
    let plain = !destination.is_empty()
        && !destination.starts_with('-')
        && !destination
            .chars()
            .any(|c| c.is_whitespace() || c.is_control());
    match plain {
        true => Ok(()),
        false => Err(HostError::InvalidInput(format!(
            "{destination:?} is not an ssh destination (a ~/.ssh/config host, user@host or \
             ssh://user@host:port)"
        ))),
    }
}

/// An extra ssh argument of the user's: no control characters (it is stored and shown).
pub(crate) fn checked_option(option: &str) -> HostResult<()> {
    match option.chars().any(char::is_control) {
        false => Ok(()),
        true => Err(HostError::InvalidInput(format!(
            "{option:?} is not an ssh option"
        ))),
    }
}

/// The remote forkhost program: one word, no option.
pub(crate) fn checked_program(program: &str) -> HostResult<()> {
    checked_destination(program)
        .map_err(|_| HostError::InvalidInput(format!("{program:?} is not a program path")))
}

/// What ssh's own failure (exit 255) means, from its last words on stderr: a key it does
/// not know or that changed (named, with its fingerprint when ssh printed one), else the host
/// unreachable in ssh's words. `fingerprint`: the key the host offers, when it was scanned.
pub(crate) fn failure(destination: &str, stderr: &str, fingerprint: Option<&str>) -> HostError {
    let said = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('@') && !l.starts_with("Warning: Permanently"))
        .collect::<Vec<_>>();
    if stderr.contains("REMOTE HOST IDENTIFICATION HAS CHANGED") {
        let offered = stderr
            .lines()
            .find_map(|l| l.split_whitespace().find(|w| w.starts_with("SHA256:")))
            .map(|w| w.trim_end_matches('.'))
            .or(fingerprint)
            .unwrap_or("unknown");
        return HostError::HostKeyChanged(format!(
            "{destination} offers a key ({offered}) that differs from the one your known_hosts \
             holds for it; Forkhost refuses it. If you know why it changed, remove the old key \
             (ssh-keygen -R HOST) and connect once with ssh to check the new one"
        ));
    }
    if stderr.contains("Host key verification failed")
        || stderr.contains("No ") && stderr.contains("host key is known")
    {
        let offered = fingerprint.unwrap_or("it could not be read");
        return HostError::HostKeyUnknown(format!(
            "{destination} offers a host key your known_hosts does not hold (fingerprint \
             {offered}); Forkhost never accepts one silently. Check the fingerprint with the \
             host's owner, then add it: connect once with `ssh {destination}` and answer yes, \
             or append `ssh-keyscan` of it to ~/.ssh/known_hosts"
        ));
    }
    let last = said.last().copied().unwrap_or(
        "ssh ended without saying why (the connection may have dropped, or its LogLevel \
             hides the reason: `ssh -v` to the host tells more)",
    );
    HostError::HostUnreachable(format!("{destination}: {last}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[OsString]) -> Vec<String> {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn the_destination_follows_the_options_and_the_remote_line_is_quoted() {
        let made = invocation(
            "box",
            &["-p".into(), "2222".into()],
            &[
                "forkhost".into(),
                "send".into(),
                "t 1".into(),
                "it's $HOME".into(),
            ],
            false,
        )
        .unwrap();
        let args = strings(&made.args);
        let at = args.iter().position(|a| a == "--").unwrap();
        assert_eq!(args[at + 1], "box");
        assert!(args[..at].contains(&"StrictHostKeyChecking=yes".to_owned()));
        assert!(args[..at].contains(&"BatchMode=yes".to_owned()));
        assert!(args[..at].contains(&"2222".to_owned()));
        if cfg!(unix) && std::env::var(SSH_MULTIPLEX_ENV).is_err() {
            assert!(
                args[..at].contains(&"ControlMaster=auto".to_owned()),
                "{args:?}"
            );
        }
        let line = &args[at + 2];
        assert_eq!(
            shlex::split(line).unwrap(),
            ["forkhost", "send", "t 1", "it's $HOME"],
            "the remote shell reads back exactly the words sent"
        );
        assert_eq!(args.len(), at + 3);
    }

    #[test]
    fn a_silent_server_is_asked_after_and_a_hosts_own_keepalive_is_kept() {
        let made = invocation("box", &[], &["forkhost".into()], false).unwrap();
        let args = strings(&made.args);
        let at = args.iter().position(|a| a == "--").unwrap();
        assert!(args[..at].contains(&"ServerAliveInterval=5".to_owned()));
        assert!(args[..at].contains(&"ServerAliveCountMax=3".to_owned()));
        let own = ["-o".to_owned(), "ServerAliveInterval=60".to_owned()];
        assert!(keepalive(&own).is_empty());
    }

    #[test]
    fn a_hosts_own_control_options_are_kept() {
        let own = ["-o".to_owned(), "ControlPath=~/.ssh/cm-%C".to_owned()];
        assert!(multiplexing(&own).is_empty());
    }

    #[test]
    fn a_destination_is_never_an_option() {
        for bad in ["", "-oProxyCommand=x", "a b", "a\nb"] {
            assert_eq!(
                checked_destination(bad).unwrap_err().code(),
                "invalid_input",
                "{bad:?}"
            );
        }
        for good in ["box", "me@box", "ssh://me@box:22"] {
            assert!(checked_destination(good).is_ok());
        }
    }

    #[test]
    fn ssh_failures_are_named() {
        let unknown = failure(
            "box",
            "No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\r\nHost key verification failed.\r\n",
            Some("SHA256:abc"),
        );
        assert_eq!(unknown.code(), "host_key_unknown");
        assert!(unknown.to_string().contains("SHA256:abc"), "{unknown}");
        let changed = failure(
            "box",
            "@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n@@@@@@@\nThe fingerprint for the ED25519 key sent by the remote host is\nSHA256:new.\nHost key verification failed.\n",
            None,
        );
        assert_eq!(changed.code(), "host_key_changed");
        assert!(changed.to_string().contains("SHA256:new"), "{changed}");
        let refused = failure(
            "box",
            "ssh: connect to host 127.0.0.1 port 1: Connection refused\r\n",
            None,
        );
        assert_eq!(refused.code(), "host_unreachable");
        assert!(refused.to_string().contains("Connection refused"));
    }
}
