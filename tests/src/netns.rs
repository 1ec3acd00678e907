//! A network the tests can drop: a network namespace joined to this one by a veth pair, as
//! a laptop is joined to its remote host by a network. A command run inside it
//! ([`NetLink::command`]) reaches this namespace's side only over the pair; [`NetLink::cut`]
//! takes the link down, so packets vanish without a reset — what a closed lid, a lost Wi-Fi
//! or a dead VPN does, unlike a killed client whose kernel closes its connections at once.
//! Made with `ip` (iproute2, `scripts/setup.sh --tests`), as root, the way the remote-host
//! tests' second user is.

use std::net::Ipv4Addr;
use std::process::Command;

/// A namespace and its link; both go when it drops.
pub struct NetLink {
    namespace: String,
    /// This namespace's end of the pair.
    outer: String,
    /// This namespace's address on the link (where a server for the inside listens).
    pub outer_address: Ipv4Addr,
}

impl NetLink {
    /// A new namespace and its link. Made for a remote-host test that runs (its sshd found),
    /// so a link that cannot be made (no `ip`, no privilege) is a failure in words.
    pub fn make() -> NetLink {
        // Short names (interfaces take 15 bytes), unique per process and link.
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let tag = format!("{:x}{n}", std::process::id() % 0xffff);
        let (namespace, outer, inner) =
            (format!("fh{tag}"), format!("fho{tag}"), format!("fhi{tag}"));
        // A /30 of 10.213.0.0/16 per link, from the same counter and the pid.
        let block = (std::process::id() % 200) as u8;
        let base = (n % 60) as u8 * 4;
        let outer_address = Ipv4Addr::new(10, 213, block, base + 1);
        let inner_address = Ipv4Addr::new(10, 213, block, base + 2);
        let link = NetLink {
            namespace,
            outer,
            outer_address,
        };
        let ns = link.namespace.as_str();
        let steps: Vec<Vec<String>> = vec![
            vec!["netns".into(), "add".into(), ns.into()],
            vec![
                "link".into(),
                "add".into(),
                link.outer.clone(),
                "type".into(),
                "veth".into(),
                "peer".into(),
                "name".into(),
                inner.clone(),
            ],
            vec![
                "link".into(),
                "set".into(),
                inner.clone(),
                "netns".into(),
                ns.into(),
            ],
            vec![
                "addr".into(),
                "add".into(),
                format!("{outer_address}/30"),
                "dev".into(),
                link.outer.clone(),
            ],
            vec!["link".into(), "set".into(), link.outer.clone(), "up".into()],
            vec![
                "-n".into(),
                ns.into(),
                "addr".into(),
                "add".into(),
                format!("{inner_address}/30"),
                "dev".into(),
                inner.clone(),
            ],
            vec![
                "-n".into(),
                ns.into(),
                "link".into(),
                "set".into(),
                inner,
                "up".into(),
            ],
            vec![
                "-n".into(),
                ns.into(),
                "link".into(),
                "set".into(),
                "lo".into(),
                "up".into(),
            ],
        ];
        for step in steps {
            if let Err(err) = ip(&step) {
                panic!(
                    "the test network could not be made (`ip {}`): {err}",
                    step.join(" ")
                );
            }
        }
        link
    }

    /// `program` run inside the namespace (`ip netns exec`, which then execs it: the pid and
    /// process group are the program's own).
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new("ip");
        cmd.args(["netns", "exec", &self.namespace]).arg(program);
        cmd
    }

    /// The link goes down: nothing crosses it, and nothing says so.
    pub fn cut(&self) {
        ip(&["link", "set", &self.outer, "down"]).expect("the link goes down");
    }

    /// The link comes back up.
    pub fn restore(&self) {
        ip(&["link", "set", &self.outer, "up"]).expect("the link comes back");
    }
}

impl Drop for NetLink {
    fn drop(&mut self) {
        // The namespace's end of the pair goes with it, and this end with its peer.
        let _ = ip(&["netns", "del", &self.namespace]);
        let _ = ip(&["link", "del", &self.outer]);
    }
}

fn ip<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip did not run: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(String::from_utf8_lossy(&out.stderr).trim().to_owned()),
    }
}
