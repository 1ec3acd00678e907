//! A real OpenSSH server on loopback for the remote-host tests (docs/architecture.md "Remote
//! hosts"): Debian's `sshd` (`FORKHOST_SSHD`, set by `scripts/test.sh` after
//! `scripts/setup.sh --tests` installed it) on 127.0.0.1 and a free port, logging in the second
//! local user `forkhost-remote` (which the setup script made) into one test's harness
//! environment: its HOME and work folder become that user's, the harness CLIs and the built
//! `forkhost` are mirrored (hard links) where that user can run them, and every session runs
//! with the environment of the test (the fake model's address among it). The client side gets
//! its own key, `ssh_config` and `known_hosts`, handed to forkhost through
//! `FORKHOST_SSH_COMMAND`; nothing of the machine's own `~/.ssh` or `/etc/ssh` is read.

use std::io::Write;
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness_env::HarnessEnv;
use crate::need::{need, Group};

/// The variable naming the `sshd` binary.
pub const SSHD_VAR: &str = "FORKHOST_SSHD";
/// The second local user the remote side logs in as.
pub const REMOTE_USER: &str = "forkhost-remote";
/// The host name the client's `ssh_config` gives the server.
pub const HOST_ALIAS: &str = "box";

/// One running server and its client side.
pub struct Sshd {
    dir: tempfile::TempDir,
    child: Child,
    pub port: u16,
    /// The client's `ssh_config`.
    pub config: PathBuf,
    /// The client's `known_hosts` (empty until [`Sshd::trust_host_key`]).
    pub known_hosts: PathBuf,
    host_public_key: String,
    /// Where it listens (127.0.0.1, or a test network's address).
    address: std::net::Ipv4Addr,
    /// A small disk its sessions see ([`Sshd::start_with_small_disk`]).
    disk: Option<SmallDisk>,
    /// The remote side's tree: a daemon started there (`forkhost serve`) ends with the server.
    remote_root: PathBuf,
}

fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("{cmd:?} did not start: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// A tmpfs of `kilobytes` at `folder`, in the server's own mount namespace.
struct SmallDisk {
    folder: PathBuf,
    kilobytes: u32,
}

const LOOPBACK: std::net::Ipv4Addr = std::net::Ipv4Addr::LOCALHOST;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A path the remote user can reach: every folder above it traversable.
fn open_up(path: &Path) {
    let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755));
}

/// Hard-links `from` (a file or folder) into `to`, as `cp -al` does: instant, and readable by
/// the remote user wherever the original's own modes allow it.
fn link_tree(from: &Path, to: &Path) -> Result<(), String> {
    if to.exists() {
        return Ok(());
    }
    std::fs::create_dir_all(to.parent().unwrap()).map_err(|e| e.to_string())?;
    run(Command::new("cp").arg("-al").arg(from).arg(to)).map(|_| ())
}

/// The harness packages' folder a path lies in (`…/harnesses/pkgs/<package>`), if it does.
fn package_of(path: &Path) -> Option<PathBuf> {
    let text = path.to_str()?;
    let at = text.find("/pkgs/")? + "/pkgs/".len();
    let end = text[at..].find('/').map_or(text.len(), |i| at + i);
    Some(PathBuf::from(&text[..end]))
}

/// `binary` made runnable by the remote user inside `mirror`: a package's binary through a
/// linked copy of its package, a wrapper script rewritten to the linked packages it names.
fn mirror_binary(binary: &Path, mirror: &Path) -> Result<PathBuf, String> {
    let real = std::fs::canonicalize(binary).map_err(|e| format!("{}: {e}", binary.display()))?;
    let text = std::fs::read(&real).map_err(|e| e.to_string())?;
    let pkgs = mirror.join("pkgs");
    if text.starts_with(b"#!") {
        let mut script = String::from_utf8_lossy(&text).into_owned();
        let named: Vec<PathBuf> = script
            .split('"')
            .filter_map(|word| package_of(Path::new(word)))
            .collect();
        for package in named {
            let name = package.file_name().unwrap();
            link_tree(&package, &pkgs.join(name))?;
            script = script.replace(package.to_str().unwrap(), pkgs.join(name).to_str().unwrap());
        }
        let out = mirror.join("bin").join(real.file_name().unwrap());
        std::fs::create_dir_all(out.parent().unwrap()).map_err(|e| e.to_string())?;
        forkhost_test_script::write_executable(&out, &script).map_err(|e| e.to_string())?;
        return Ok(out);
    }
    match package_of(&real) {
        Some(package) => {
            let name = package.file_name().unwrap();
            link_tree(&package, &pkgs.join(name))?;
            Ok(pkgs.join(name).join(real.strip_prefix(&package).unwrap()))
        }
        None => {
            let out = mirror.join("bin").join(real.file_name().unwrap());
            link_tree(&real, &out)?;
            Ok(out)
        }
    }
}

impl Sshd {
    /// Starts a server whose sessions run as [`REMOTE_USER`] in `env` (its HOME, work folder and
    /// variables, binaries mirrored), with `forkhost` (the built CLI) on their PATH. `None` when
    /// `FORKHOST_SSHD` is unset and the suite allows skipping; a missing user or a server that
    /// does not come up is a failure that says which step to run.
    pub fn start(env: &HarnessEnv, forkhost: &Path) -> Option<Sshd> {
        Sshd::start_as(env, Some(forkhost), None, &[], LOOPBACK)
    }

    /// [`Sshd::start`] with a small disk of `kilobytes` mounted at `folder` (a folder of the
    /// remote's tree, made if missing): a tmpfs in a mount namespace of the server's own, so
    /// only its sessions see it. [`Sshd::fill_disk`] fills it, [`Sshd::free_disk`] empties it
    /// again: the remote's disk full, as a user's box gets.
    pub fn start_with_small_disk(
        env: &HarnessEnv,
        forkhost: &Path,
        folder: &Path,
        kilobytes: u32,
    ) -> Option<Sshd> {
        let sshd = need(Group::Remote, SSHD_VAR)?;
        std::fs::create_dir_all(folder).expect("the small disk's folder");
        let disk = SmallDisk {
            folder: folder.to_owned(),
            kilobytes,
        };
        let started = Sshd::start_with(&sshd, env, Some(forkhost), None, &[], LOOPBACK, Some(disk));
        Some(started.unwrap_or_else(|e| panic!("{e}")))
    }

    /// Fills the small disk ([`Sshd::start_with_small_disk`]) to its last byte, from outside
    /// (through the server's view of the files, `/proc/PID/root`). How many bytes it took.
    pub fn fill_disk(&self) -> u64 {
        use std::io::Write;
        let filler = self.disk_path("filler");
        let mut file = std::fs::File::create(&filler).expect("the filler");
        let block = vec![0u8; 64 * 1024];
        let mut written = 0u64;
        loop {
            match file.write(&block) {
                Ok(0) => break,
                Ok(n) => written += n as u64,
                Err(e) if e.raw_os_error() == Some(28) => break, // ENOSPC
                Err(e) => panic!("filling the small disk: {e}"),
            }
        }
        let _ = file.sync_all();
        written
    }

    /// `path` (a file under the small disk, as the remote names it) as this process reaches it:
    /// through the server's view of the files.
    pub fn as_seen_there(&self, path: &Path) -> PathBuf {
        let inside = path.strip_prefix("/").unwrap_or(path);
        PathBuf::from(format!("/proc/{}/root", self.child.id())).join(inside)
    }

    /// Empties the small disk of the filler.
    pub fn free_disk(&self) {
        std::fs::remove_file(self.disk_path("filler")).expect("the filler goes");
    }

    /// `name` on the small disk, as this process reaches it.
    fn disk_path(&self, name: &str) -> PathBuf {
        let disk = self
            .disk
            .as_ref()
            .expect("a server started with a small disk");
        let inside = disk.folder.strip_prefix("/").unwrap_or(&disk.folder);
        PathBuf::from(format!("/proc/{}/root", self.child.id()))
            .join(inside)
            .join(name)
    }

    /// [`Sshd::start`] listening on `address` alone: a test network's end
    /// ([`crate::netns::NetLink`]), so that a client inside that network reaches it only over
    /// the link.
    pub fn start_on(
        env: &HarnessEnv,
        forkhost: &Path,
        address: std::net::Ipv4Addr,
    ) -> Option<Sshd> {
        Sshd::start_as(env, Some(forkhost), None, &[], address)
    }

    /// [`Sshd::start`] on a machine without the harnesses whose binary variables are named in
    /// `lacking` (`FORKHOST_CLAUDE_BIN`): set empty there, so its forkhost searches a PATH that
    /// has none of them.
    pub fn start_lacking(env: &HarnessEnv, forkhost: &Path, lacking: &[&str]) -> Option<Sshd> {
        Sshd::start_as(env, Some(forkhost), None, lacking, LOOPBACK)
    }

    /// A server whose sessions find no forkhost on their PATH (a remote to install it on), and
    /// look in `path_first` before anything else when given (a stand-in `uname`, say).
    pub fn start_without_forkhost(env: &HarnessEnv, path_first: Option<&Path>) -> Option<Sshd> {
        Sshd::start_as(env, None, path_first, &[], LOOPBACK)
    }

    fn start_as(
        env: &HarnessEnv,
        forkhost: Option<&Path>,
        path_first: Option<&Path>,
        lacking: &[&str],
        address: std::net::Ipv4Addr,
    ) -> Option<Sshd> {
        let sshd = need(Group::Remote, SSHD_VAR)?;
        let started = Sshd::start_with(&sshd, env, forkhost, path_first, lacking, address, None);
        Some(started.unwrap_or_else(|e| panic!("{e}")))
    }

    fn start_with(
        sshd: &Path,
        env: &HarnessEnv,
        forkhost: Option<&Path>,
        path_first: Option<&Path>,
        lacking: &[&str],
        address: std::net::Ipv4Addr,
        disk: Option<SmallDisk>,
    ) -> Result<Sshd, String> {
        run(Command::new("getent").args(["passwd", REMOTE_USER])).map_err(|_| {
            format!("no user {REMOTE_USER}: run scripts/setup.sh --tests (as root) to make it")
        })?;
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        open_up(dir.path());
        let server = dir.path().join("server");
        let client = dir.path().join("client");
        let mirror = dir.path().join("mirror");
        for d in [&server, &client, &mirror] {
            std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
        }
        open_up(&server);
        open_up(&mirror);
        let keygen = |path: &Path| {
            run(Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-C", "forkhost-test", "-f"])
                .arg(path))
        };
        keygen(&server.join("host_key"))?;
        keygen(&client.join("key"))?;
        let host_public_key =
            std::fs::read_to_string(server.join("host_key.pub")).map_err(|e| e.to_string())?;
        std::fs::copy(client.join("key.pub"), server.join("authorized_keys"))
            .map_err(|e| e.to_string())?;
        open_up(&server.join("authorized_keys"));

        // The remote side's environment: the test's variables, its binaries mirrored.
        let mut vars: Vec<(String, String)> = Vec::new();
        for (k, v) in env.vars() {
            if lacking.contains(&k.as_str()) {
                continue;
            }
            let value = match k.starts_with("FORKHOST_") && k.ends_with("_BIN") {
                true => mirror_binary(Path::new(v), &mirror)?.display().to_string(),
                false => v.clone(),
            };
            vars.push((k.clone(), value));
        }
        // The harness CLIs the test runs with (inherited, as a local run inherits them).
        for var in [
            "FORKHOST_CLAUDE_BIN",
            "FORKHOST_CODEX_BIN",
            "FORKHOST_PI_BIN",
        ] {
            let inherited = std::env::var(var).ok().filter(|v| !v.is_empty());
            let inherited = inherited.filter(|_| !lacking.contains(&var));
            if let Some(path) = inherited.filter(|_| !vars.iter().any(|(k, _)| k == var)) {
                let mirrored = mirror_binary(Path::new(&path), &mirror)?;
                vars.push((var.to_owned(), mirrored.display().to_string()));
            }
        }
        vars.extend(lacking.iter().map(|var| (var.to_string(), String::new())));
        let mut path = String::new();
        if let Some(first) = path_first {
            open_up(first);
            path.push_str(&format!("{}:", first.display()));
        }
        if let Some(forkhost) = forkhost {
            let forkhost = mirror_binary(forkhost, &mirror)?;
            path.push_str(&format!("{}:", forkhost.parent().unwrap().display()));
        }
        path.push_str("/usr/local/bin:/usr/bin:/bin");
        vars.push(("PATH".into(), path));
        // The test's tree becomes the remote user's: HOME and work folder are theirs.
        open_up(env.root());
        run(Command::new("chown")
            .arg("-R")
            .arg(format!("{REMOTE_USER}:"))
            .arg(env.root()))?;
        let mut session = String::from("#!/bin/sh\n# One test's remote session.\n");
        for (k, v) in &vars {
            session.push_str(&format!("export {k}={}\n", quote(v)));
        }
        session.push_str(&format!(
            "cd {}\n",
            quote(&env.work_dir().display().to_string())
        ));
        session.push_str("exec /bin/sh -c \"$SSH_ORIGINAL_COMMAND\"\n");
        let session_file = server.join("session.sh");
        forkhost_test_script::write_executable(&session_file, &session)
            .map_err(|e| e.to_string())?;

        let port = free_port();
        let config = format!(
            "Port {port}\nListenAddress {address}\nHostKey {host}\nPidFile {pid}\n\
             AuthorizedKeysFile {keys}\nAllowUsers {REMOTE_USER}\nPasswordAuthentication no\n\
             KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nPermitTTY yes\n\
             ForceCommand {session}\nSubsystem sftp internal-sftp\n",
            host = server.join("host_key").display(),
            pid = server.join("sshd.pid").display(),
            keys = server.join("authorized_keys").display(),
            session = session_file.display(),
        );
        std::fs::write(server.join("sshd_config"), config).map_err(|e| e.to_string())?;
        // sshd's privilege separation folder, which a package install makes at boot only.
        let _ = std::fs::create_dir_all("/run/sshd");
        let log = std::fs::File::create(server.join("sshd.log")).map_err(|e| e.to_string())?;
        let mut command = match &disk {
            None => Command::new(sshd),
            Some(disk) => {
                let id = |flag: &str| {
                    run(Command::new("id").args([flag, REMOTE_USER])).map(|s| s.trim().to_owned())
                };
                let mut cmd = Command::new("unshare");
                cmd.args(["-m", "--propagation", "private", "sh", "-c"])
                    .arg(
                        "mount -t tmpfs -o \"size=$2k,uid=$3,gid=$4,mode=0700\" tmpfs \"$1\" \
                         && shift 4 && exec \"$@\"",
                    )
                    .arg("sh")
                    .arg(&disk.folder)
                    .arg(disk.kilobytes.to_string())
                    .arg(id("-u")?)
                    .arg(id("-g")?)
                    .arg(sshd);
                cmd
            }
        };
        let child = command
            .arg("-D")
            .arg("-e")
            .arg("-f")
            .arg(server.join("sshd_config"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .map_err(|e| format!("{} did not start: {e}", sshd.display()))?;
        let known_hosts = client.join("known_hosts");
        std::fs::File::create(&known_hosts).map_err(|e| e.to_string())?;
        let client_config = client.join("ssh_config");
        std::fs::write(
            &client_config,
            format!(
                "Host {HOST_ALIAS}\n  HostName {address}\n  Port {port}\n  User {REMOTE_USER}\n\
                 Host *\n  IdentityFile {key}\n  IdentitiesOnly yes\n  UserKnownHostsFile {known}\n\
                 GlobalKnownHostsFile /dev/null\n  LogLevel ERROR\n  IdentityAgent none\n",
                key = client.join("key").display(),
                known = known_hosts.display(),
            ),
        )
        .map_err(|e| e.to_string())?;
        let mut me = Sshd {
            dir,
            child,
            port,
            config: client_config,
            known_hosts,
            host_public_key,
            address,
            disk,
            remote_root: env.root().to_path_buf(),
        };
        me.wait_listening()?;
        Ok(me)
    }

    fn wait_listening(&mut self) -> Result<(), String> {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(20) {
            if TcpStream::connect((self.address, self.port)).is_ok() {
                return Ok(());
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("sshd exited ({status}): {}", self.log()));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Err(format!("sshd did not listen in 20 s: {}", self.log()))
    }

    /// What sshd logged.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("server/sshd.log")).unwrap_or_default()
    }

    /// `FORKHOST_SSH_COMMAND` for this server's client side.
    pub fn ssh_command(&self) -> String {
        format!("ssh -F {}", self.config.display())
    }

    /// `FORKHOST_SSH_COMMAND` for reaching this server through a relay listening on `port`
    /// (the benchmarks' delaying relay): the same config and the same host key at that port.
    pub fn ssh_command_via(&self, port: u16) -> String {
        let config = std::fs::read_to_string(&self.config)
            .unwrap()
            .replace(&format!("Port {}\n", self.port), &format!("Port {port}\n"));
        let path = self.config.with_file_name(format!("ssh_config_via_{port}"));
        std::fs::write(&path, config).unwrap();
        self.trust_key_at(port);
        format!("ssh -F {}", path.display())
    }

    /// Adds the server's key to the client's known_hosts, as a user who checked it would.
    pub fn trust_host_key(&self) {
        self.trust_key_at(self.port);
    }

    fn trust_key_at(&self, port: u16) {
        let key = self
            .host_public_key
            .split_whitespace()
            .take(2)
            .collect::<Vec<_>>();
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&self.known_hosts)
            .unwrap();
        writeln!(file, "[{}]:{port} {} {}", self.address, key[0], key[1]).unwrap();
    }

    /// The server key's fingerprint (`SHA256:…`).
    pub fn fingerprint(&self) -> String {
        let listed = run(Command::new("ssh-keygen")
            .arg("-lf")
            .arg(self.dir.path().join("server/host_key.pub")))
        .unwrap();
        listed.split_whitespace().nth(1).unwrap().to_owned()
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        // The connections the server accepted run in processes of its own (a session each):
        // ended with it, so that no client's shared connection outlives the test.
        for pid in children_of(self.child.id()) {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The remote's daemons outlive their connections by design; not the test.
        for lock in files_named(&self.remote_root, "serve.lock") {
            // Only a daemon still holding its lock: a pid from one that ended may be reused.
            let held = std::fs::File::open(&lock)
                .is_ok_and(|f| matches!(f.try_lock(), Err(std::fs::TryLockError::WouldBlock)));
            let pid = std::fs::read_to_string(&lock).unwrap_or_default();
            if let (true, Ok(pid)) = (held, pid.trim().parse::<i32>()) {
                let _ = Command::new("kill").arg(pid.to_string()).status();
            }
        }
    }
}

/// The processes whose parent is `parent` (Linux's /proc).
fn children_of(parent: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // pid (comm) state ppid …: the fields after the last ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if ppid == Some(parent) {
            out.push(pid);
        }
    }
    out
}

/// Every file called `name` under `dir`.
fn files_named(dir: &Path, name: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == name) {
                out.push(path);
            }
        }
    }
    out
}

/// `text` in single quotes for sh.
fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_is_found_in_a_binarys_path() {
        assert_eq!(
            package_of(Path::new(
                "/c/harnesses/pkgs/pi-1.6.0-x/node_modules/a/cli.js"
            )),
            Some(PathBuf::from("/c/harnesses/pkgs/pi-1.6.0-x"))
        );
        assert_eq!(package_of(Path::new("/usr/bin/node")), None);
        assert_eq!(quote("it's"), "'it'\\''s'");
    }
}
