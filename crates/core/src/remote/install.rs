//! Install on connect (docs/architecture.md "Remote hosts"): a remote without this version's
//! forkhost gets it from this machine, over the same ssh — no internet needed there. One round
//! trip asks what the remote is (`uname -sm`) and where its home is; when it runs this build's
//! OS and architecture, this very program is copied to `~/.cache/forkhost/bin/forkhost-VERSION`
//! there (written beside, then renamed: a cut copy is never run) and the host remembers the
//! path. A remote of another OS or architecture gets that system's CLI of this version, from
//! the release's archive (`forkhost-cli-VERSION-TARGET.tar.gz`, or that archive unpacked) in the
//! CLI archives folder ([`cli_archives_folder`]); without it, the words name the archive and
//! the folder.

use std::path::{Path, PathBuf};

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

/// Names the folder the other systems' CLIs are looked for in (over the cache's `cli` folder).
pub const CLI_ARCHIVES_ENV: &str = "FORKHOST_CLI_ARCHIVES";

/// Where a release's CLI archives for other systems are looked for: `FORKHOST_CLI_ARCHIVES`,
/// else the user's cache folder's `forkhost/cli` (`~/.cache/forkhost/cli` on Linux).
pub fn cli_archives_folder() -> Option<PathBuf> {
    match std::env::var_os(CLI_ARCHIVES_ENV).filter(|v| !v.is_empty()) {
        Some(folder) => Some(PathBuf::from(folder)),
        None => Some(dirs::cache_dir()?.join("forkhost").join("cli")),
    }
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

    /// The release target that runs there (`aarch64-unknown-linux-gnu`); `None` for a system
    /// forkhost is not built for.
    pub fn target(&self) -> Option<String> {
        match (self.os.as_str(), self.arch.as_str()) {
            ("linux", "x86_64" | "aarch64") => Some(format!("{}-unknown-linux-gnu", self.arch)),
            ("macos", "x86_64" | "aarch64") => Some(format!("{}-apple-darwin", self.arch)),
            _ => None,
        }
    }

    /// Where the program to copy there comes from: this very program when it runs there, else
    /// that system's CLI of this version in `archives` (the release's archive, or it unpacked);
    /// else the words naming the archive and the folder to put it in.
    pub fn program_source(&self, host: &str, archives: Option<&Path>) -> HostResult<ProgramSource> {
        let (os, arch) = (std::env::consts::OS, std::env::consts::ARCH);
        if self.os == os && self.arch == arch {
            return Ok(ProgramSource::ThisProgram);
        }
        let target = self.target();
        if let (Some(target), Some(folder)) = (&target, archives) {
            let name = format!("forkhost-cli-{VERSION}-{target}");
            let unpacked = folder.join(&name).join("forkhost");
            if unpacked.is_file() {
                return Ok(ProgramSource::Unpacked(unpacked));
            }
            let archive = folder.join(format!("{name}.tar.gz"));
            if archive.is_file() {
                return Ok(ProgramSource::Archive(archive));
            }
        }
        let folder = archives
            .map(|f| f.display().to_string())
            .unwrap_or_else(|| format!("${CLI_ARCHIVES_ENV}"));
        Err(HostError::Unsupported(match target {
            Some(target) => format!(
                "{host} runs {} on {}, this forkhost is built for {os} on {arch}: put the \
                 release's forkhost-cli-{VERSION}-{target}.tar.gz in {folder} and connect \
                 again (it is copied there for you), or install it there yourself and give its \
                 path: forkhost hosts add {host} DEST --forkhost PATH",
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

/// Where the program a remote gets comes from ([`RemoteSystem::program_source`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProgramSource {
    /// This very program (the remote runs this build's system).
    ThisProgram,
    /// A release archive, `forkhost-cli-VERSION-TARGET.tar.gz`, holding `forkhost`.
    Archive(PathBuf),
    /// That archive unpacked: `forkhost-cli-VERSION-TARGET/forkhost`.
    Unpacked(PathBuf),
}

impl ProgramSource {
    /// The program's bytes (an archive's `forkhost`, read with the system's `tar`).
    pub fn read(&self) -> HostResult<Vec<u8>> {
        let file = |path: &Path| {
            std::fs::read(path).map_err(|e| HostError::Internal(format!("{}: {e}", path.display())))
        };
        match self {
            ProgramSource::ThisProgram => {
                let exe = std::env::current_exe()
                    .map_err(|e| HostError::Internal(format!("this program's path: {e}")))?;
                file(&exe)
            }
            ProgramSource::Unpacked(path) => file(path),
            ProgramSource::Archive(archive) => {
                let out = std::process::Command::new("tar")
                    .arg("-xzOf")
                    .arg(archive)
                    .arg("forkhost")
                    .output()
                    .map_err(|e| HostError::Internal(format!("tar did not run: {e}")))?;
                if !out.status.success() || out.stdout.is_empty() {
                    return Err(HostError::InvalidInput(format!(
                        "{} holds no forkhost to copy ({})",
                        archive.display(),
                        String::from_utf8_lossy(&out.stderr).trim()
                    )));
                }
                Ok(out.stdout)
            }
        }
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
        let none = tempfile::tempdir().unwrap();
        let err = system.program_source("box", Some(none.path())).unwrap_err();
        assert_eq!(err.code(), "unsupported");
        assert!(
            err.to_string().contains(&format!(
                "forkhost-cli-{VERSION}-{other_arch}-unknown-linux-gnu.tar.gz in {}",
                none.path().display()
            )),
            "{err}"
        );
        // That system's CLI, unpacked or as the release's archive, is what it gets.
        let name = format!("forkhost-cli-{VERSION}-{other_arch}-unknown-linux-gnu");
        std::fs::write(none.path().join(format!("{name}.tar.gz")), b"").unwrap();
        assert_eq!(
            system.program_source("box", Some(none.path())).unwrap(),
            ProgramSource::Archive(none.path().join(format!("{name}.tar.gz")))
        );
        std::fs::create_dir(none.path().join(&name)).unwrap();
        std::fs::write(none.path().join(&name).join("forkhost"), b"#!").unwrap();
        let unpacked = system.program_source("box", Some(none.path())).unwrap();
        assert_eq!(
            unpacked,
            ProgramSource::Unpacked(none.path().join(&name).join("forkhost"))
        );
        assert_eq!(unpacked.read().unwrap(), b"#!");
        let this = RemoteSystem {
            os: std::env::consts::OS.into(),
            arch: std::env::consts::ARCH.into(),
            home: "/h".into(),
        };
        assert_eq!(
            this.program_source("box", None).unwrap(),
            ProgramSource::ThisProgram
        );
        let riscv = RemoteSystem {
            os: "linux".into(),
            arch: "riscv64".into(),
            home: "/h".into(),
        };
        assert!(riscv
            .program_source("box", None)
            .unwrap_err()
            .to_string()
            .contains("not built for"));
    }
}
