//! Install on connect (docs/architecture.md "Remote hosts"): a remote without this version's
//! forkhost gets it from this machine, over the same ssh — no internet needed there. One round
//! trip asks what the remote is (`uname -sm`) and where its home is; when it runs this build's
//! OS and architecture, this very program is copied to `~/.cache/forkhost/bin/forkhost-VERSION`
//! there (written beside, then renamed: a cut copy is never run) and the host remembers the
//! path. Another OS or architecture is refused in words naming the release archive it needs.

use super::ssh::{self, RemoteCommand};
use super::{RemoteHostView, VERSION};
use crate::base::error::{HostError, HostResult};

/// What the remote is, as its shell said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSystem {
    /// `linux` or `macos` (Rust's names), or what `uname -s` said.
    pub os: String,
    /// `x86_64` or `aarch64` (Rust's names), or what `uname -m` said.
    pub arch: String,
    pub home: String,
}

/// The remote script that says what the remote is: `uname -sm`, then `$HOME`.
const PROBE: &str = "uname -sm; printf '%s\\n' \"$HOME\"";

/// The remote script that writes stdin to "$1" safely: beside it first, then renamed.
const WRITE: &str = "mkdir -p \"$(dirname \"$1\")\" && cat > \"$1.part\" && chmod 755 \"$1.part\" && mv \"$1.part\" \"$1\"";

impl RemoteHostView {
    /// The invocation that asks the remote what it is ([`RemoteSystem::read`]).
    pub fn probe_command(&self) -> HostResult<RemoteCommand> {
        ssh::invocation(
            &self.destination,
            &self.ssh_options,
            &["sh".into(), "-c".into(), PROBE.into()],
            false,
        )
    }

    /// The invocation that writes its stdin to `path` on the remote, as a program.
    pub fn upload_command(&self, path: &str) -> HostResult<RemoteCommand> {
        ssh::invocation(
            &self.destination,
            &self.ssh_options,
            &[
                "sh".into(),
                "-c".into(),
                WRITE.into(),
                "sh".into(),
                path.into(),
            ],
            false,
        )
    }
}

impl RemoteSystem {
    /// Reads what [`RemoteHostView::probe_command`] printed.
    pub fn read(printed: &str) -> HostResult<RemoteSystem> {
        let mut lines = printed.lines();
        let (uname, home) = (lines.next().unwrap_or(""), lines.next().unwrap_or(""));
        let mut words = uname.split_whitespace();
        let (Some(os), Some(arch), true) = (words.next(), words.next(), home.starts_with('/'))
        else {
            return Err(HostError::HostUnreachable(format!(
                "the remote did not say what it is (uname -sm and $HOME printed {printed:?})"
            )));
        };
        let os = match os {
            "Linux" => "linux",
            "Darwin" => "macos",
            other => other,
        };
        let arch = match arch {
            "arm64" => "aarch64",
            "amd64" => "x86_64",
            other => other,
        };
        Ok(RemoteSystem {
            os: os.to_owned(),
            arch: arch.to_owned(),
            home: home.to_owned(),
        })
    }

    /// Where this version is installed on that remote.
    pub fn install_path(&self) -> String {
        format!("{}/.cache/forkhost/bin/forkhost-{VERSION}", self.home)
    }

    /// Whether this program runs there; else the words naming what the remote needs.
    pub fn runs_this_build(&self, host: &str) -> HostResult<()> {
        let (os, arch) = (std::env::consts::OS, std::env::consts::ARCH);
        if self.os == os && self.arch == arch {
            return Ok(());
        }
        let archive = match (self.os.as_str(), self.arch.as_str()) {
            ("linux", "x86_64" | "aarch64") => Some(format!("{}-unknown-linux-gnu", self.arch)),
            ("macos", "x86_64" | "aarch64") => Some(format!("{}-apple-darwin", self.arch)),
            _ => None,
        };
        Err(HostError::Unsupported(match archive {
            Some(target) => format!(
                "{host} runs {} on {}, this forkhost is built for {os} on {arch}: install \
                 forkhost-cli-{VERSION}-{target} there (from the release), or give its path: \
                 forkhost hosts add {host} DEST --forkhost PATH",
                self.os, self.arch
            ),
            None => format!(
                "{host} runs {} on {}, which forkhost is not built for (Linux and macOS on \
                 x86_64 or aarch64)",
                self.os, self.arch
            ),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_says_what_it_is_and_where_this_version_goes() {
        let linux = RemoteSystem::read("Linux x86_64\n/home/me\n").unwrap();
        assert_eq!(
            (linux.os.as_str(), linux.arch.as_str()),
            ("linux", "x86_64")
        );
        assert_eq!(
            linux.install_path(),
            format!("/home/me/.cache/forkhost/bin/forkhost-{VERSION}")
        );
        let mac = RemoteSystem::read("Darwin arm64\n/Users/me\n").unwrap();
        assert_eq!((mac.os.as_str(), mac.arch.as_str()), ("macos", "aarch64"));
        assert!(RemoteSystem::read("").is_err());
        assert!(RemoteSystem::read("Linux x86_64\nrelative\n").is_err());
    }

    #[test]
    fn another_system_is_refused_naming_what_it_needs() {
        let other_arch = if std::env::consts::ARCH == "x86_64" {
            "aarch64"
        } else {
            "x86_64"
        };
        let system = RemoteSystem {
            os: "linux".into(),
            arch: other_arch.into(),
            home: "/h".into(),
        };
        let err = system.runs_this_build("box").unwrap_err();
        assert_eq!(err.code(), "unsupported");
        assert!(
            err.to_string().contains(&format!(
                "forkhost-cli-{VERSION}-{other_arch}-unknown-linux-gnu"
            )),
            "{err}"
        );
        let riscv = RemoteSystem {
            os: "linux".into(),
            arch: "riscv64".into(),
            home: "/h".into(),
        };
        assert!(riscv
            .runs_this_build("box")
            .unwrap_err()
            .to_string()
            .contains("not built for"));
    }
}
