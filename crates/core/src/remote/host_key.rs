//! The fingerprint of the key a host offers, read without trusting it, for the words of a
//! refusal: `ssh -G` resolves the destination as the user's config does (its `HostName` and
//! `Port`, through the same `FORKHOST_SSH_COMMAND` and options), `ssh-keyscan` asks the host
//! for its keys, `ssh-keygen -lf -` prints their fingerprints. Nothing is written anywhere:
//! adding the key stays the user's act.

use std::io::Write;
use std::process::{Command, Stdio};

use super::ssh::ssh_program;

/// `SHA256:…` of the first key `destination` offers, or `None` when any step fails. Blocking
/// (three short processes).
pub(crate) fn offered_fingerprint(destination: &str, options: &[String]) -> Option<String> {
    let mut words = ssh_program().ok()?;
    let program = words.remove(0);
    let resolved = Command::new(&program)
        .args(&words)
        .args(options)
        .arg("-G")
        .arg("--")
        .arg(destination)
        .stdin(Stdio::null())
        .output()
        .ok()?;
    let config = String::from_utf8_lossy(&resolved.stdout);
    let value = |key: &str| {
        config.lines().find_map(|l| {
            let (k, v) = l.split_once(' ')?;
            (k == key).then(|| v.trim().to_owned())
        })
    };
    let (hostname, port) = (value("hostname")?, value("port")?);
    let keys = Command::new("ssh-keyscan")
        .args(["-T", "5", "-p", &port, "--", &hostname])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if keys.stdout.is_empty() {
        return None;
    }
    let mut keygen = Command::new("ssh-keygen")
        .args(["-l", "-f", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    keygen.stdin.take()?.write_all(&keys.stdout).ok()?;
    let printed = keygen.wait_with_output().ok()?;
    fingerprint_of(&String::from_utf8_lossy(&printed.stdout))
}

/// The first `SHA256:` word of `ssh-keygen -l`'s lines (`256 SHA256:… host (ED25519)`),
/// preferring an Ed25519 key, which OpenSSH negotiates first.
fn fingerprint_of(listing: &str) -> Option<String> {
    let word = |line: &str| {
        line.split_whitespace()
            .find(|w| w.starts_with("SHA256:"))
            .map(str::to_owned)
    };
    listing
        .lines()
        .find(|l| l.contains("(ED25519)"))
        .and_then(word)
        .or_else(|| listing.lines().find_map(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ed25519_fingerprint_is_preferred() {
        let listing =
            "3072 SHA256:rsa [127.0.0.1]:2222 (RSA)\n256 SHA256:ed [127.0.0.1]:2222 (ED25519)\n";
        assert_eq!(fingerprint_of(listing).as_deref(), Some("SHA256:ed"));
        assert_eq!(
            fingerprint_of("256 SHA256:ec host (ECDSA)\n").as_deref(),
            Some("SHA256:ec")
        );
        assert_eq!(fingerprint_of("nothing here\n"), None);
    }
}
