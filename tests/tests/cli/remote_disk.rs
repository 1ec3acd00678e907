//! A remote host whose disk is full: the folder Pi keeps its sessions in is a small tmpfs in the
//! server's own mount namespace (`Sshd::start_with_small_disk`), filled to its last byte. A turn
//! and a fork there fail in words; nothing is half made and nothing already there is lost; with
//! room again, both work and the model receives the whole history.

use std::path::PathBuf;

use forkhost_tests::cli::forkhost_bin;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Msg};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use forkhost_tests::sshd::{Sshd, HOST_ALIAS};

use crate::remote::{id, new_on_box, Local};

fn reply(turn: usize, text: &str) -> Msg {
    Msg::assistant(format!("reply (turn {turn}) to: {text}"))
}

#[test]
fn pi_on_a_full_remote_disk_a_turn_and_a_fork_fail_in_words_and_nothing_is_half_made() {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(remote) = HarnessEnv::for_fake(Harness::Pi, &model).unwrap() else {
        return;
    };
    let sessions = remote.home().join(".pi/agent/sessions");
    let Some(sshd) = Sshd::start_with_small_disk(&remote, &forkhost_bin(), &sessions, 2048) else {
        return;
    };
    sshd.trust_host_key();
    let local = Local::new(&sshd);
    local.ok(&["hosts", "add", "box", HOST_ALIAS]);
    let made = new_on_box(&local, "pi", remote.work_dir());
    let thread = id(&made);
    let native = PathBuf::from(made["thread"]["native"]["path"].as_str().unwrap());
    let source = sshd.as_seen_there(&native);
    let before = std::fs::read(&source).expect("the source's session, on the small disk");
    let files = || {
        std::fs::read_dir(source.parent().unwrap())
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
    };
    let filled = sshd.fill_disk();
    println!("the disk filled with {filled} bytes");

    // Longer than the page the session file's last line ends in: a write needs new room.
    let long = format!("second prompt {}", "words ".repeat(4000));
    let (ok, sent, stderr) = local.run(&["--host", "box", "send", &thread, &long]);
    println!("send on a full disk: {sent}\n{stderr}");
    assert!(!ok, "a turn that cannot be kept fails: {sent}");
    let said = sent["error"]["message"].as_str().unwrap_or_default();
    assert!(
        said.contains("disk") && said.contains("full") && said.contains("free some space"),
        "it says the disk is full and what to do: {sent}"
    );
    assert_eq!(
        std::fs::read(&source).unwrap(),
        before,
        "the half-written turn is taken off: the session is as it was"
    );
    let (ok, forked, stderr) = local.run(&["--host", "box", "fork", &thread, "--after", "1"]);
    println!("fork on a full disk: {forked}\n{stderr}");
    assert!(!ok, "a fork that cannot be written fails: {forked}");
    let said = forked["error"]["message"].as_str().unwrap_or_default();
    assert!(
        said.contains("full") && said.contains("nothing of the fork was made"),
        "it says the disk is full: {forked}"
    );
    let threads = local.ok(&["--host", "box", "threads"]);
    assert_eq!(
        threads["threads"].as_array().unwrap().len(),
        1,
        "no half-made fork: {threads}"
    );
    assert_eq!(
        files().len(),
        2,
        "the source and the filler, no fork's file: {:?}",
        files()
    );
    assert_eq!(
        std::fs::read(&source).unwrap(),
        before,
        "the source is unchanged"
    );

    sshd.free_disk();
    let sent = local.ok(&["--host", "box", "send", &thread, "third prompt"]);
    assert_eq!(
        sent["thread"]["turns"].as_array().unwrap().len(),
        2,
        "{sent}"
    );
    assert_eq!(
        model.last_turn_request().unwrap().conversation(),
        [
            Msg::user("first prompt"),
            reply(1, "first prompt"),
            Msg::user("third prompt"),
        ],
        "with room again the thread goes on from turn 1, nothing of the torn turn in it"
    );
    let fork = id(&local.ok(&["--host", "box", "fork", &thread, "--after", "1"]));
    local.ok(&["--host", "box", "send", &fork, "on the fork"]);
    assert_eq!(
        model.last_turn_request().unwrap().conversation(),
        [
            Msg::user("first prompt"),
            reply(1, "first prompt"),
            Msg::user("on the fork"),
        ],
        "the fork made once there was room holds turn 1"
    );
}
