//! Benchmark: a remote host's round trips beside this machine's (figures are printed beside
//! their anchors; nothing is asserted about time). Over the real sshd on loopback, a Pi thread
//! on each side: `threads`, `send` (a turn through the remote's daemon), `fork --after 1` and
//! `attach` after a finished turn, each the median of a few runs — then the remote ones again
//! through a relay that delays every packet 25 ms each way (50 ms of round trip, as a real
//! network has), so the round trips an operation takes show. The commands share one ssh
//! connection per host, as forkhost sets it up (`ControlMaster`; `remote/ssh.rs`): the first
//! one's handshake is in the first run's figure only.
//! Run with `cargo test -p forkhost-tests --test cli bench_remote -- --nocapture`.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use forkhost_tests::cli::forkhost_bin;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use forkhost_tests::sshd::{Sshd, HOST_ALIAS};

use super::remote::{id, Local};

fn runs() -> usize {
    if forkhost_tests::bench_quick() {
        3
    } else {
        7
    }
}

fn median_ms(mut samples: Vec<Duration>) -> f64 {
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1000.0
}

/// The median wall time of `runs()` calls of `f`.
fn timed(mut f: impl FnMut()) -> f64 {
    let samples = (0..runs())
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    median_ms(samples)
}

/// A TCP relay to `127.0.0.1:to` that holds every chunk `delay` before passing it on, each
/// way: a delay line, so that the link's latency grows and its throughput does not shrink.
fn delaying_relay(to: u16, delay: Duration) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let Ok(server) = TcpStream::connect(("127.0.0.1", to)) else {
                continue;
            };
            pipe(
                client.try_clone().unwrap(),
                server.try_clone().unwrap(),
                delay,
            );
            pipe(server, client, delay);
        }
    });
    port
}

fn pipe(mut from: TcpStream, mut to: TcpStream, delay: Duration) {
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    std::thread::spawn(move || {
        let mut buffer = [0u8; 16 * 1024];
        loop {
            match from.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx
                        .send((Instant::now() + delay, buffer[..n].to_vec()))
                        .is_err()
                    {
                        break;
                    }
                }
            }
        }
    });
    std::thread::spawn(move || {
        for (due, chunk) in rx {
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
            if to.write_all(&chunk).is_err() {
                break;
            }
        }
        let _ = to.shutdown(std::net::Shutdown::Write);
    });
}

struct Figures {
    threads: f64,
    send: f64,
    fork: f64,
    attach: f64,
}

/// The four operations on `host` (`None`: this machine), on a thread there.
fn measure(local: &Local, host: Option<&str>, cwd: &str) -> Figures {
    let on = |args: &[&str]| -> Vec<String> {
        let mut all: Vec<String> = host
            .map(|h| vec!["--host".to_owned(), h.to_owned()])
            .unwrap_or_default();
        all.extend(args.iter().map(|a| (*a).to_owned()));
        all
    };
    let call = |args: &[&str]| {
        let all = on(args);
        local.ok(&all.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let thread = id(&call(&[
        "new",
        "--harness",
        "pi",
        "--cwd",
        cwd,
        "first prompt",
    ]));
    let threads = timed(|| {
        call(&["threads"]);
    });
    let send = timed(|| {
        call(&["send", &thread, "another prompt"]);
    });
    let fork = timed(|| {
        call(&["fork", &thread, "--after", "1"]);
    });
    let attach = match host {
        Some(_) => timed(|| {
            call(&["attach", &thread]);
        }),
        None => f64::NAN,
    };
    Figures {
        threads,
        send,
        fork,
        attach,
    }
}

#[test]
fn bench_remote_round_trips() {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(remote) = HarnessEnv::for_fake(Harness::Pi, &model).unwrap() else {
        return;
    };
    let Some(here) = HarnessEnv::for_fake(Harness::Pi, &model).unwrap() else {
        return;
    };
    let Some(sshd) = Sshd::start(&remote, &forkhost_bin()) else {
        return;
    };
    sshd.trust_host_key();
    let mut local = Local::with_env(&sshd, &here);
    local.ok(&["hosts", "add", "box", HOST_ALIAS]);
    let remote_cwd = remote.work_dir().display().to_string();
    let local_cwd = here.work_dir().display().to_string();

    let at_home = measure(&local, None, &local_cwd);
    let on_loopback = measure(&local, Some("box"), &remote_cwd);
    local.ssh = sshd.ssh_command_via(delaying_relay(sshd.port, Duration::from_millis(25)));
    let at_50ms = measure(&local, Some("box"), &remote_cwd);

    println!(
        "=== a remote host over ssh (Pi, the real sshd on loopback; median of {} runs, one shared ssh connection) ===",
        runs()
    );
    println!("operation         this machine   remote (loopback)   remote (+50 ms round trip)");
    for (name, pick) in [
        ("threads", (|f: &Figures| f.threads) as fn(&Figures) -> f64),
        ("send (a turn)", |f| f.send),
        ("fork --after 1", |f| f.fork),
        ("attach (ended)", |f| f.attach),
    ] {
        let here = pick(&at_home);
        let here = if here.is_nan() {
            "-".to_owned()
        } else {
            format!("{here:.0} ms")
        };
        println!(
            "{name:<16} {here:>13}   {:>14.0} ms   {:>21.0} ms",
            pick(&on_loopback),
            pick(&at_50ms)
        );
    }
    println!(
        "goal: a remote fork within 1.2x the local figure + 50 ms (issue 41; the app's click → \
         fork window, which this CLI figure stands beside)"
    );
    println!(
        "round trips: the +50 ms column minus the loopback one, over 50 ms, is how many round \
         trips an operation took (ssh's own handshake included)"
    );
    for (name, loopback, far) in [
        ("threads", on_loopback.threads, at_50ms.threads),
        ("send", on_loopback.send, at_50ms.send),
        ("fork", on_loopback.fork, at_50ms.fork),
        ("attach", on_loopback.attach, at_50ms.attach),
    ] {
        println!("  {name:<8} {:.1} round trips", (far - loopback) / 50.0);
    }
}
