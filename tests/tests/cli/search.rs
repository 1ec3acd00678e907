//! `forkhost search` with the real Pi (the quickest harness) and the fake model: hits grouped
//! by thread in `--json`, a fork's inherited turns never its hits, the plain output with the
//! hit unmarked when stdout is no terminal, `--regex`, `--harness`, and bad queries
//! (empty, over 64 KB, a bad regular expression) refused as `invalid_input`.

use std::time::Duration;

use forkhost_tests::cli::{forkhost_bin, run_with_timeout, with_cli, Cli};
use forkhost_tests::harness_env::Harness;
use serde_json::Value;

fn id(thread: &Value) -> String {
    thread["thread"]["id"].as_str().unwrap().to_owned()
}

/// (thread id, [(turn number, part)]) of each group.
fn groups(results: &Value) -> Vec<(String, Vec<(i64, String)>)> {
    results["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let hits = g["hits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| {
                    (
                        h["turn_number"].as_i64().unwrap(),
                        h["part"].as_str().unwrap().to_owned(),
                    )
                })
                .collect();
            (g["thread_id"].as_str().unwrap_or("").to_owned(), hits)
        })
        .collect()
}

fn plain(cli: &Cli, args: &[&str]) -> (bool, String) {
    let mut cmd = std::process::Command::new(forkhost_bin());
    cli.env.apply_std(&mut cmd);
    cmd.arg("--data-dir").arg(cli.data).args(args);
    let out = run_with_timeout(cmd, Duration::from_secs(120));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn search_prints_hits_by_thread_pi() {
    with_cli(Harness::Pi, |cli| {
        let cwd = cli.env.work_dir().to_str().unwrap().to_owned();
        let created = cli.ok(&[
            "new",
            "--harness",
            "pi",
            "--cwd",
            &cwd,
            "first about the retry policy",
        ]);
        let source = id(&created);
        cli.ok(&["send", &source, "second about [brackets]"]);
        let fork = id(&cli.ok(&["fork", &source, "--after", "2"]));
        cli.ok(&["send", &fork, "third: the fork's retry budget"]);

        let found = cli.ok(&["search", "RETRY"]);
        let by_thread = groups(&found);
        let user_and_reply = |n: i64| vec![(n, "user_text".into()), (n, "reply".into())];
        assert_eq!(by_thread.len(), 2, "{found}");
        assert!(
            by_thread.contains(&(source.clone(), user_and_reply(1))),
            "{found}"
        );
        assert!(
            by_thread.contains(&(fork.clone(), user_and_reply(3))),
            "the fork's own turn only, not its inherited turn 1: {found}"
        );
        assert_eq!(found["hits"], 4);

        // Literal unless asked: "[brackets]" is text, "retry (policy|budget)" a pattern.
        let literal = groups(&cli.ok(&["search", "[brackets]"]));
        assert_eq!(literal, [(source.clone(), user_and_reply(2))]);
        assert!(groups(&cli.ok(&["search", "retry (policy|budget)"])).is_empty());
        let regex = cli.ok(&["search", "--regex", "retry (policy|budget)"]);
        assert_eq!(regex["hits"], 4, "{regex}");
        assert!(groups(&cli.ok(&["search", "--harness", "codex", "retry"])).is_empty());

        // Plain output: the title line, then the hits with their words; no terminal, no bold.
        let (ok, text) = plain(cli, &["search", "brackets"]);
        assert!(ok, "{text}");
        assert!(text.contains(&format!("thread {source}")), "{text}");
        assert!(
            text.contains("turn 2 · prompt: second about [brackets]"),
            "{text}"
        );
        assert!(
            !text.contains('\u{1b}'),
            "no escape codes off a terminal: {text:?}"
        );
        assert!(text.contains("2 hits in 1 thread"), "{text}");

        // Bad queries, in words. (A 10 MB query does not fit a command line; the Host test
        // refuses one.)
        let long = "x".repeat(100 * 1024);
        for args in [
            vec!["search", ""],
            vec!["search", " "],
            vec!["search", long.as_str()],
            vec!["search", "--regex", "(unclosed"],
        ] {
            let err = cli.err(&args);
            assert_eq!(err["code"], "invalid_input", "{args:?}: {err}");
            assert!(!err["message"].as_str().unwrap().is_empty());
        }
    });
}
