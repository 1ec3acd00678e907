//! Telling branches apart and taking one away, through the `forkhost` CLI with the real Pi (the
//! quickest harness) and the fake model: forks named by their cut and numbered among equal
//! siblings, then by their own first prompt (read from the native session: every CLI call is a
//! new process, so nothing is remembered between them); a rename that sticks; `rename`'s bad
//! input; `export` of a branch as Markdown and JSON.

use std::collections::HashSet;
use std::time::Duration;

use forkhost_tests::cli::{forkhost_bin, run_with_timeout, with_cli, Cli};
use forkhost_tests::harness_env::Harness;
use serde_json::Value;

fn id(thread: &Value) -> String {
    thread["thread"]["id"].as_str().unwrap().to_owned()
}

fn title_in_list(cli: &Cli, thread: &str) -> String {
    let threads = cli.ok(&["threads"]);
    threads["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == thread)
        .unwrap_or_else(|| panic!("{thread} not listed: {threads}"))["title"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// A Pi thread with three turns; its id.
fn three_turns(cli: &Cli) -> String {
    let cwd = cli.env.work_dir().to_str().unwrap().to_owned();
    let created = cli.ok(&[
        "new",
        "--harness",
        "pi",
        "--cwd",
        &cwd,
        "--title",
        "source",
        "first prompt",
    ]);
    let source = id(&created);
    cli.ok(&["send", &source, "second prompt"]);
    cli.ok(&["send", &source, "third prompt"]);
    source
}

/// `forkhost ARGS` without `--json`: (success, stdout, stderr).
fn plain(cli: &Cli, args: &[&str]) -> (bool, String, String) {
    let mut cmd = std::process::Command::new(forkhost_bin());
    cli.env.apply_std(&mut cmd);
    cmd.arg("--data-dir").arg(cli.data).args(args);
    let out = run_with_timeout(cmd, Duration::from_secs(120));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn six_forks_get_six_titles_and_a_fork_is_named_by_its_first_prompt() {
    with_cli(Harness::Pi, |cli| {
        let source = three_turns(cli);
        let mut forks = Vec::new();
        for at in [
            ["--after", "2"],
            ["--after", "2"],
            ["--after", "2"],
            ["--before", "2"],
            ["--after", "1"],
            ["--latest", ""],
        ] {
            let args: Vec<&str> = ["fork", source.as_str()]
                .into_iter()
                .chain(at.into_iter().filter(|a| !a.is_empty()))
                .collect();
            let forked = cli.ok(&args);
            forks.push((
                id(&forked),
                forked["thread"]["title"].as_str().unwrap().to_owned(),
            ));
        }
        let titles: Vec<&str> = forks.iter().map(|(_, t)| t.as_str()).collect();
        assert_eq!(
            titles,
            [
                "after turn 2",
                "after turn 2 · 2",
                "after turn 2 · 3",
                "before turn 2",
                "after turn 1",
                "after turn 3"
            ]
        );
        let threads = cli.ok(&["threads"]);
        let numbers: Vec<i64> = forks
            .iter()
            .map(|(f, _)| {
                let t = threads["threads"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|t| t["id"] == f.as_str())
                    .unwrap();
                t["fork"]["source_turn_number"].as_i64().unwrap_or(-1)
            })
            .collect();
        assert_eq!(numbers, [2, 2, 2, 2, 1, 3], "{threads}");
        let listed: HashSet<String> = forks.iter().map(|(f, _)| title_in_list(cli, f)).collect();
        assert_eq!(listed.len(), 6, "{listed:?}");

        // The second "after turn 2" sends: from then on it is called by its prompt, in the
        // list, in `show` and in what `send` returns; its siblings keep their labels.
        let (second, _) = &forks[1];
        let sent = cli.ok(&[
            "send",
            second,
            "Try the retry policy\nwith exponential backoff",
        ]);
        assert_eq!(sent["thread"]["title"], "Try the retry policy", "{sent}");
        assert_eq!(title_in_list(cli, second), "Try the retry policy");
        assert_eq!(
            cli.ok(&["show", second])["thread"]["title"],
            "Try the retry policy"
        );
        assert_eq!(title_in_list(cli, &forks[0].0), "after turn 2");
        assert_eq!(title_in_list(cli, &forks[2].0), "after turn 2 · 3");
        // Its second prompt does not rename it.
        cli.ok(&["send", second, "and now something else"]);
        assert_eq!(title_in_list(cli, second), "Try the retry policy");

        // A long first prompt is shortened at a word; a fork before turn 2 is named by its
        // own first prompt, not by the turn it inherited.
        let (before, _) = &forks[3];
        let long =
            "Rewrite the parser so that it keeps every comment and every blank line where it was";
        cli.ok(&["send", before, long]);
        let title = title_in_list(cli, before);
        assert!(
            title.ends_with('…') && title.chars().count() <= 60,
            "{title}"
        );
        assert!(long.starts_with(title.trim_end_matches('…')), "{title}");

        // The source keeps the title it was given.
        assert_eq!(title_in_list(cli, &source), "source");
    });
}

#[test]
fn a_rename_sticks_and_no_first_prompt_overwrites_it() {
    with_cli(Harness::Pi, |cli| {
        let source = three_turns(cli);
        let fork = id(&cli.ok(&["fork", &source, "--after", "1"]));
        let renamed = cli.ok(&["rename", &fork, "my own name"]);
        assert_eq!(renamed["thread"]["title"], "my own name");
        // Each call is a new process: the rename is read back from the store.
        assert_eq!(title_in_list(cli, &fork), "my own name");
        let sent = cli.ok(&["send", &fork, "a first prompt that would name it"]);
        assert_eq!(sent["thread"]["title"], "my own name", "{sent}");
        assert_eq!(title_in_list(cli, &fork), "my own name");
        assert_eq!(cli.ok(&["show", &fork])["thread"]["title"], "my own name");

        // A fork already named by its prompt can be renamed too, and stays renamed.
        let other = id(&cli.ok(&["fork", &source, "--after", "2"]));
        cli.ok(&["send", &other, "named by this prompt"]);
        assert_eq!(title_in_list(cli, &other), "named by this prompt");
        cli.ok(&["rename", &other, "renamed after all"]);
        cli.ok(&["send", &other, "another prompt"]);
        assert_eq!(title_in_list(cli, &other), "renamed after all");
    });
}

#[test]
fn rename_refuses_bad_titles_and_unknown_threads_in_words() {
    with_cli(Harness::Pi, |cli| {
        let cwd = cli.env.work_dir().to_str().unwrap().to_owned();
        let thread = id(&cli.ok(&["new", "--harness", "pi", "--cwd", &cwd, "--title", "kept"]));
        let long = "x".repeat(201);
        for bad in [
            "",
            "   ",
            long.as_str(),
            "bell\u{7}here",
            "two\nlines",
            "tab\there",
        ] {
            let err = cli.err(&["rename", &thread, bad]);
            assert_eq!(err["code"], "invalid_input", "{bad:?}: {err}");
            assert!(err["message"].as_str().unwrap().contains("title"), "{err}");
        }
        assert_eq!(
            cli.err_code(&["rename", "no-such-thread", "a title"]),
            "thread_not_found"
        );
        assert_eq!(title_in_list(cli, &thread), "kept");
        // 200 characters is still a title.
        let most = "y".repeat(200);
        assert_eq!(
            cli.ok(&["rename", &thread, &most])["thread"]["title"],
            most.as_str()
        );
    });
}

#[test]
fn export_prints_a_branch_in_order_without_its_siblings() {
    with_cli(Harness::Pi, |cli| {
        let source = three_turns(cli);
        // A sibling branch with a turn of its own.
        let sibling = id(&cli.ok(&["fork", &source, "--after", "1"]));
        cli.ok(&["send", &sibling, "sibling prompt"]);

        let (ok, md, stderr) = plain(cli, &["export", &source, "--format", "md"]);
        assert!(ok, "{stderr}");
        assert!(md.starts_with("# source\n"), "{md}");
        let expected = [
            "## Turn 1",
            "first prompt",
            "reply (turn 1) to: first prompt",
            "## Turn 2",
            "second prompt",
            "reply (turn 2) to: second prompt",
            "## Turn 3",
            "third prompt",
            "reply (turn 3) to: third prompt",
        ];
        let mut from = 0;
        for part in expected {
            let at = md[from..]
                .find(part)
                .unwrap_or_else(|| panic!("{part:?} missing or out of order:\n{md}"));
            from += at + part.len();
        }
        assert!(!md.contains("sibling prompt"), "{md}");

        // --to 2 stops after turn 2.
        let (ok, md2, _) = plain(cli, &["export", &source, "--to", "2"]);
        assert!(ok);
        assert!(md2.contains("reply (turn 2) to: second prompt"), "{md2}");
        assert!(
            !md2.contains("third prompt") && !md2.contains("## Turn 3"),
            "{md2}"
        );
        assert!(md2.contains("turns 1–2 of 3"), "{md2}");

        // The sibling's branch is the path from the root: the turn it inherited, then its own.
        let (ok, fork_md, _) = plain(cli, &["export", &sibling]);
        assert!(ok);
        // (Its title is its own first prompt now: look below the heading.)
        assert!(fork_md.starts_with("# sibling prompt\n"), "{fork_md}");
        let body = &fork_md[fork_md.find("## Turn 1").expect("turn 1")..];
        let first = body.find("first prompt").expect("inherited turn");
        let own = body.find("sibling prompt").expect("own turn");
        assert!(first < own, "{fork_md}");
        assert!(!fork_md.contains("second prompt"), "{fork_md}");
        assert!(fork_md.contains("forked from “source”"), "{fork_md}");

        // JSON: the same turns as data.
        let json = cli.ok(&["export", &source, "--to", "2", "--format", "json"]);
        assert_eq!(json["to"], 2, "{json}");
        assert_eq!(json["total"], 3);
        assert_eq!(json["thread"]["id"], source.as_str());
        let turns = json["turns"].as_array().unwrap();
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[1]["messages"][0]["text"], "second prompt");

        // Typed errors.
        let err = cli.err(&["export", &source, "--to", "9"]);
        assert_eq!(err["code"], "turn_not_found", "{err}");
        assert!(
            err["message"].as_str().unwrap().contains("3 turns"),
            "{err}"
        );
        assert_eq!(
            cli.err_code(&["export", &source, "--to", "0"]),
            "invalid_input"
        );
        assert_eq!(
            cli.err_code(&["export", &source, "--to", "no-such-turn"]),
            "turn_not_found"
        );
        assert_eq!(
            cli.err_code(&["export", "no-such-thread"]),
            "thread_not_found"
        );
        assert_eq!(
            cli.err_code(&["export", &source, "--format", "pdf"]),
            "invalid_input"
        );
        let (ok, _, stderr) = plain(cli, &["export", &source, "--to", "9"]);
        assert!(!ok && stderr.contains("turn_not_found"), "{stderr}");
    });
}
