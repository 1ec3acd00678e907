//! A remote host behind a network that drops, not a client that dies: this side runs in a
//! network namespace joined to the server's by a veth pair (`forkhost_tests::netns`), and the
//! link is taken down mid-reply. Nothing tells either end: no reset, no closed socket, as when
//! a laptop's lid closes or its Wi-Fi goes. (The other remote tests kill this side, whose
//! kernel then closes its connections at once; that path never waits on a dead link.)

use std::time::{Duration, Instant};

use forkhost_tests::cli::forkhost_bin;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use forkhost_tests::netns::NetLink;
use forkhost_tests::sshd::{Sshd, HOST_ALIAS};

use crate::remote::{attached_whole, id, new_on_box, read_until, Local};

/// How long the slow reply streams: longer than ssh takes to give up on a dead link
/// (ServerAliveInterval 5 s × 3), so the turn is still running when this side learns the link
/// is gone.
const REPLY_TAKES: Duration = Duration::from_secs(30);

/// The link drops mid-reply. This side's `send` ends on its own in words naming the host and
/// how to follow the turn again (before the keepalive it waited on the dead connection for
/// many minutes); the turn runs on there to its end; with the link back, `attach` shows the
/// whole reply, and the model was asked once.
#[test]
fn pi_a_remote_turn_runs_on_when_the_network_drops_and_this_side_is_told_in_words() {
    let model = FakeModel::start_blocking(FakeModelOptions {
        slow_duration: REPLY_TAKES,
        ..FakeModelOptions::default()
    })
    .unwrap();
    let Some(remote) = HarnessEnv::for_fake(Harness::Pi, &model).unwrap() else {
        return;
    };
    if std::env::var_os("FORKHOST_SSHD").is_none() {
        // Skipped (and counted), or a failure where the suite requires it.
        let _ = forkhost_tests::need::need(forkhost_tests::need::Group::Remote, "FORKHOST_SSHD");
        return;
    }
    let net = NetLink::make();
    let sshd =
        Sshd::start_on(&remote, &forkhost_bin(), net.outer_address).expect("FORKHOST_SSHD is set");
    sshd.trust_host_key();
    let local = Local::new(&sshd).inside(&net);
    local.ok(&["hosts", "add", "box", HOST_ALIAS]);
    let thread = id(&new_on_box(&local, "pi", remote.work_dir()));

    const PROMPT: &str = "SLOW second prompt";
    let mut sending = local.spawn(&["--host", "box", "send", &thread, PROMPT]);
    let mut stdout = sending.stdout.take().unwrap();
    read_until(&mut stdout, "reply (turn 2)");
    let cut_at = Instant::now();
    net.cut();

    // This side learns the link is gone by itself (the bound only stops a hang).
    let status = loop {
        if let Some(status) = sending.try_wait().unwrap() {
            break status;
        }
        if cut_at.elapsed() > Duration::from_secs(90) {
            let _ = sending.kill();
            panic!("send still waits on the dead link 90 s after it dropped");
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let noticed = cut_at.elapsed();
    let mut said = String::new();
    std::io::Read::read_to_string(&mut sending.stderr.take().unwrap(), &mut said).unwrap();
    println!("send ended {noticed:?} after the link dropped ({status}): {said}");
    assert!(!status.success(), "{said}");
    assert!(said.contains("box"), "the host is named: {said}");
    assert!(
        said.contains(&format!("forkhost --host box attach {thread}")),
        "it says how to follow the turn again: {said}"
    );

    // The turn runs on there; once it has surely ended, the link comes back.
    let ends = REPLY_TAKES.saturating_sub(cut_at.elapsed()) + Duration::from_secs(3);
    std::thread::sleep(ends);
    net.restore();
    attached_whole(&local, &model, &thread, PROMPT);
}
