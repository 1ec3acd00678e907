//! `forkhost race` and `forkhost keep` with the real Pi CLI against the fake model: bad input
//! (0 and 50 lanes, an unknown harness name, more harnesses than lanes) is refused in words; a
//! 3-lane race from turn 2 prints a status line per lane and ends with a table; `keep` without
//! a terminal refuses to discard the other lanes' work unless `--yes`, then brings the lane's
//! file back into the source's folder and removes the other worktrees.

use std::path::Path;
use std::process::Command;

use forkhost_tests::cli::{forkhost_bin, run_with_timeout, with_cli, Cli};
use forkhost_tests::harness_env::Harness;

const LANE_PROMPT: &str = "RUN_COMMAND `touch \"lane-$(basename \"$PWD\").txt\"`";

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .args(["-c", "user.name=Test", "-c", "user.email=test@localhost"])
        .args(args)
        .status()
        .unwrap()
        .success();
    assert!(ok, "git {args:?}");
}

/// `forkhost ARGS` as a person runs it (no --json, no terminal): (success, stdout, stderr).
fn plain(cli: &Cli, args: &[&str]) -> (bool, String, String) {
    let mut cmd = Command::new(forkhost_bin());
    cli.env.apply_std(&mut cmd);
    cmd.arg("--data-dir").arg(cli.data).args(args);
    let out = run_with_timeout(cmd, std::time::Duration::from_secs(240));
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn race_prints_a_table_and_keep_asks_first() {
    with_cli(Harness::Pi, |cli| {
        let repo = cli.env.work_dir().to_path_buf();
        git(&repo, &["init", "-q", "-b", "main"]);
        std::fs::write(repo.join("a.txt"), "a\n").unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "start"]);
        let cwd = repo.to_str().unwrap();
        let created = cli.ok(&["new", "--harness", "pi", "--cwd", cwd, "first prompt"]);
        let source = created["thread"]["id"].as_str().unwrap().to_owned();
        cli.ok(&["send", &source, "second prompt"]);
        // A turn's usage ends stderr: Pi counts the tokens and prices an unpriced model at
        // nothing, so no cost.
        let (_, log) = cli.ok_logged(&["send", &source, "third prompt"]);
        let last = log.trim_end().lines().last().unwrap_or_default();
        assert!(
            last.starts_with("forkhost: this turn used ") && last.ends_with(" out"),
            "{log}"
        );

        // Bad input, in words.
        for n in ["0", "50"] {
            let err = cli.err(&["race", &source, "--after", "2", "-n", n, "go"]);
            assert_eq!(err["code"], "invalid_input", "{err}");
            assert!(
                err["message"].as_str().unwrap().contains("2 to 8 lanes"),
                "{err}"
            );
        }
        let err = cli.err(&[
            "race",
            &source,
            "--after",
            "2",
            "-n",
            "2",
            "--harness",
            "pi,nope",
            "go",
        ]);
        assert_eq!(err["code"], "invalid_input", "{err}");
        assert!(err["message"].as_str().unwrap().contains("nope"), "{err}");
        let err = cli.err(&[
            "race",
            &source,
            "--after",
            "2",
            "-n",
            "3",
            "--harness",
            "pi,pi",
            "go",
        ]);
        assert_eq!(err["code"], "invalid_input", "{err}");

        // Three lanes, all at once; the table.
        let (ok, table, status) = plain(
            cli,
            &[
                "race",
                &source,
                "--after",
                "2",
                "-n",
                "3",
                "--max-parallel",
                "3",
                "--harness",
                "pi",
                LANE_PROMPT,
            ],
        );
        assert!(ok, "{table}\n{status}");
        eprintln!("--- status lines\n{status}--- table\n{table}");
        let lines: Vec<&str> = table.lines().collect();
        assert!(
            lines[0].starts_with("lane  harness  model  state"),
            "{table}"
        );
        assert!(
            lines[0].contains("files changed") && lines[0].contains("check"),
            "{table}"
        );
        assert!(
            lines[0].contains("  tokens  ") && lines[0].contains("  cost  "),
            "{table}"
        );
        let column = |name: &str| lines[0].find(&format!("  {name}  ")).unwrap() + 2;
        let (tokens_at, cost_at) = (column("tokens"), column("cost"));
        for (i, row) in lines[1..4].iter().enumerate() {
            assert!(row.starts_with(&format!("{}  ", i + 1)), "{row}");
            assert!(row.contains(" pi ") && row.contains(" done "), "{row}");
            assert!(row.contains("1 file +0 −0"), "{row}");
            // Every lane's tokens; its spend since the fork point: Pi reports no price for
            // the fake model and no table has it, so "unknown price", never "$0".
            let tokens = &row[tokens_at..cost_at];
            assert!(
                tokens.contains(" in / ") && tokens.trim_end().ends_with(" out"),
                "{row}"
            );
            assert!(row[cost_at..].starts_with("unknown price  "), "{row}");
        }
        for lane in 1..=3 {
            assert!(
                status.contains(&format!("lane {lane} · pi · running")),
                "{status}"
            );
            assert!(
                status.contains(&format!("lane {lane} · pi · done")),
                "{status}"
            );
        }
        let kept = lines[1].split_whitespace().last().unwrap().to_owned();
        let others: Vec<String> = lines[2..4]
            .iter()
            .map(|r| r.split_whitespace().last().unwrap().to_owned())
            .collect();

        // Keep: without a terminal and without --yes, nothing is discarded.
        let err = cli.err(&["keep", &kept]);
        assert_eq!(err["code"], "invalid_input", "{err}");
        assert!(err["message"].as_str().unwrap().contains("--yes"), "{err}");
        let kept_json = cli.ok(&["keep", &kept, "--yes"]);
        let files = kept_json["kept"]["brought_back"]["files"]
            .as_array()
            .unwrap();
        assert_eq!(files.len(), 1, "{kept_json}");
        let name = files[0]["path"].as_str().unwrap();
        assert!(
            name.starts_with("lane-") && repo.join(name).exists(),
            "{kept_json}"
        );
        for other in &others {
            let shown = cli.ok(&["show", other]);
            assert_eq!(shown["thread"]["state"], "archived", "{shown}");
        }
    });
}

#[test]
fn race_check_command_is_approved_first_and_fills_the_check_column() {
    with_cli(Harness::Pi, |cli| {
        let repo = cli.env.work_dir().to_path_buf();
        git(&repo, &["init", "-q", "-b", "main"]);
        std::fs::write(repo.join("a.txt"), "a\n").unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", "start"]);
        let cwd = repo.to_str().unwrap();
        let created = cli.ok(&["new", "--harness", "pi", "--cwd", cwd, "first prompt"]);
        let source = created["thread"]["id"].as_str().unwrap().to_owned();
        // The lane that claims the folder first writes won.txt.
        let claim = repo.join(".git").join("race-claim");
        let prompt = format!(
            "RUN_COMMAND `mkdir '{}' 2>/dev/null && echo won > won.txt; true`",
            claim.display()
        );
        let check = "test -f won.txt";

        let saved = cli.ok(&["check-command", cwd, check]);
        assert_eq!(saved["check_command"]["approved"], false, "{saved}");
        // Saved but never shown to be run: no terminal, so refused in words.
        let err = cli.err(&["race", &source, "--latest", "-n", "2", &prompt]);
        assert_eq!(err["code"], "invalid_input", "{err}");
        assert!(
            err["message"]
                .as_str()
                .unwrap()
                .contains("not been approved"),
            "{err}"
        );
        let approved = cli.ok(&["check-command", cwd, "--approve"]);
        assert_eq!(approved["check_command"]["approved"], true, "{approved}");

        let (ok, table, status) = plain(
            cli,
            &[
                "race",
                &source,
                "--latest",
                "-n",
                "3",
                "--max-parallel",
                "3",
                "--model",
                "fake/fake-model-b,fake-model,fake/fake-model",
                &prompt,
            ],
        );
        assert!(ok, "{table}\n{status}");
        eprintln!("--- status lines\n{status}--- table\n{table}");
        let rows: Vec<&str> = table.lines().skip(1).take(3).collect();
        let passed = rows.iter().filter(|r| r.contains(" passed ")).count();
        let failed = rows
            .iter()
            .filter(|r| r.contains(" failed (exit 1) "))
            .count();
        assert_eq!((passed, failed), (1, 2), "{table}");
        assert!(
            table.lines().next().unwrap().contains("  model  "),
            "{table}"
        );
        assert!(rows[0].contains(" fake/fake-model-b "), "{table}");
        assert!(rows[1].contains(" fake-model "), "{table}");
        assert!(
            status.contains("lane 1 · pi (fake/fake-model-b) · running"),
            "{status}"
        );
        let err = cli.err(&[
            "race", &source, "--latest", "-n", "3", "--model", "a,b", "go",
        ]);
        assert_eq!(err["code"], "invalid_input", "{err}");
        assert!(
            err["message"]
                .as_str()
                .unwrap()
                .contains("--model names 2 models"),
            "{err}"
        );
        assert!(status.contains("checking"), "{status}");

        // A check typed on the command line runs at once: it was seen.
        let raced = cli.ok(&[
            "race",
            &source,
            "--latest",
            "-n",
            "2",
            "--check",
            "echo typed",
            "--check-timeout",
            "60",
            "hello",
        ]);
        for lane in raced["race"]["lanes"].as_array().unwrap() {
            assert_eq!(lane["check"]["passed"], true, "{lane}");
            assert_eq!(lane["check"]["tail"], "typed\n", "{lane}");
            let usage = &lane["usage"];
            assert!(usage["input_tokens"].as_u64().unwrap() > 0, "{lane}");
            assert!(usage["output_tokens"].as_u64().unwrap() > 0, "{lane}");
            assert_eq!(usage["cached_input_tokens"], 0, "{lane}");
            assert!(usage["cost_usd"].is_null(), "{lane}");
        }
    });
}
