use super::output::Utf8Stream;
use super::*;

#[test]
fn utf8_stream_keeps_split_characters_whole() {
    let mut s = Utf8Stream::default();
    let bytes = "héllo ✓".as_bytes();
    let (a, b) = bytes.split_at(2); // splits the é
    let mut out = s.push(a);
    out.push_str(&s.push(b));
    assert_eq!(out, "héllo ✓");
    assert_eq!(s.push(&[0xff, b'a']), "\u{FFFD}a");
}

/// A tab's life with real processes: the tab ends with its process, a close always closes.
#[cfg(unix)]
mod lifecycle {
    use std::sync::Mutex;

    use super::super::*;

    #[derive(Debug)]
    enum Seen {
        Output(String),
        Exit(Option<u32>),
    }

    struct Channel(Mutex<mpsc::Sender<Seen>>);

    impl Sink for Channel {
        fn output(&self, output: TerminalOutput) {
            let _ = self.0.lock().unwrap().send(Seen::Output(output.data));
        }
        fn exit(&self, exit: TerminalExit) {
            let _ = self.0.lock().unwrap().send(Seen::Exit(exit.code));
        }
    }

    /// Opens `script` in a terminal; returns the terminals, the tab's id, what it shows, and
    /// whether `on_exit` ran.
    fn open_sh(script: &str) -> (Terminals, String, mpsc::Receiver<Seen>, mpsc::Receiver<()>) {
        let terminals = Terminals::default();
        let (tx, rx) = mpsc::channel();
        let (exit_tx, exit_rx) = mpsc::channel();
        let spec = TerminalSpec {
            program: "sh".into(),
            args: vec!["-c".into(), script.into()],
            cwd: None,
            env: vec![],
        };
        let id = terminals
            .open_with(
                Arc::new(Channel(Mutex::new(tx))),
                "thread-1",
                spec,
                (80, 24),
                move || {
                    let _ = exit_tx.send(());
                },
            )
            .unwrap();
        (terminals, id, rx, exit_rx)
    }

    /// Everything shown until the exit: (text, exit code).
    fn until_exit(rx: &mpsc::Receiver<Seen>, limit: Duration) -> (String, Option<u32>) {
        let mut text = String::new();
        loop {
            match rx.recv_timeout(limit) {
                Ok(Seen::Output(data)) => text.push_str(&data),
                Ok(Seen::Exit(code)) => return (text, code),
                Err(err) => panic!("no exit within {limit:?} ({err}); shown: {text:?}"),
            }
        }
    }

    #[cfg(target_os = "linux")]
    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit(')')
                .next()
                .is_some_and(|rest| rest.trim_start().starts_with('Z'))
        })
    }

    /// A tool left running (deaf to the hang-up the kernel sends when the shell ends) still
    /// holds the terminal, so the output never ends by itself: the tab ends with the
    /// process, the tool is killed with its tree, the session is handed back.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_tab_ends_with_its_process_though_a_tool_holds_the_terminal() {
        let (terminals, id, rx, exited) =
            open_sh("trap '' HUP; sleep 300 & echo \"tool $!\"; exit 3");
        let (text, code) = until_exit(&rx, Duration::from_secs(10));
        assert_eq!(code, Some(3), "{text:?}");
        let tool: u32 = text
            .split_whitespace()
            .skip_while(|w| *w != "tool")
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("{text:?}"));
        // Its files close (the output ends) a moment before it is counted dead.
        let killed = std::time::Instant::now();
        while alive(tool) && killed.elapsed() < Duration::from_secs(2) {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert!(!alive(tool), "the tool {tool} outlived its terminal");
        assert_eq!(terminals.thread_of(&id), None);
        exited.recv_timeout(Duration::from_secs(1)).unwrap();
    }

    /// Quitting ends every tab within the quit grace, a TUI that ignores the hang-up too.
    #[test]
    fn quitting_ends_every_tab() {
        let (terminals, id, rx, _exited) = open_sh("trap '' HUP; echo ready; sleep 300");
        loop {
            match rx.recv_timeout(Duration::from_secs(10)).unwrap() {
                Seen::Output(data) if data.contains("ready") => break,
                Seen::Output(_) => {}
                Seen::Exit(code) => panic!("exited early: {code:?}"),
            }
        }
        let started = std::time::Instant::now();
        terminals.kill_all();
        assert!(started.elapsed() < QUIT_GRACE + Duration::from_millis(100));
        until_exit(&rx, Duration::from_secs(2));
        assert_eq!(terminals.thread_of(&id), None);
    }

    /// Closing a tab whose TUI ignores the hang-up: killed after the grace, handed back.
    #[test]
    fn closing_a_tab_kills_a_process_that_ignores_the_hang_up() {
        let (terminals, id, rx, _exited) = open_sh("trap '' HUP; echo ready; sleep 300");
        let started = std::time::Instant::now();
        loop {
            match rx.recv_timeout(Duration::from_secs(10)).unwrap() {
                Seen::Output(data) if data.contains("ready") => break,
                Seen::Output(_) => {}
                Seen::Exit(code) => panic!("exited early: {code:?}"),
            }
        }
        terminals.kill(&id).unwrap();
        let limit = HANG_UP_GRACE + KILL_GRACE + Duration::from_secs(1);
        until_exit(&rx, limit);
        assert_eq!(terminals.thread_of(&id), None);
        println!("terminal closed in {:?}", started.elapsed());
        // A second close of a gone tab is fine.
        terminals.kill(&id).unwrap();
    }
}

#[test]
fn pty_runs_a_program_and_streams_its_output() {
    // portable-pty end to end, without a window: the same calls `open` makes.
    let pair = native_pty_system()
        .openpty(PtySize {
            rows: 24,
            cols: 80,
            pixel_width: 0,
            pixel_height: 0,
        })
        .unwrap();
    let mut cmd = CommandBuilder::new("sh");
    cmd.args(["-c", "printf 'pty-ok %s' \"$FOO\""]);
    cmd.env("FOO", "bar");
    let mut child = pair.slave.spawn_command(cmd).unwrap();
    drop(pair.slave);
    let mut reader = pair.master.try_clone_reader().unwrap();
    let mut out = String::new();
    let mut buf = [0u8; 1024];
    let mut decoder = Utf8Stream::default();
    while let Ok(n) = reader.read(&mut buf) {
        if n == 0 {
            break;
        }
        out.push_str(&decoder.push(&buf[..n]));
        if out.contains("pty-ok bar") {
            break;
        }
    }
    assert!(out.contains("pty-ok bar"), "{out:?}");
    assert!(child.wait().unwrap().success());
}
