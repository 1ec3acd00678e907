//! A repository's check and setup commands in process: saved per repository (its main
//! checkout, whichever worktree asks; the folder itself outside git), approved only as exactly
//! the text shown in the repository it was shown for, run with their output's tail kept and a
//! time limit; the setup command run in a new fork's worktree, and not run in a repository it
//! was not saved for.

use std::path::Path;
use std::time::Duration;

use super::check::{TAIL_BYTES, TAIL_LINES};
use super::test_repo::{after, checkpointed, fork_of};
use super::ForkFiles;
use crate::base::events::HostEvent;
use crate::test_host::{claude_thread, committed_repo, git, ClaudeProgram, TestHost};

async fn plain() -> TestHost {
    claude_thread(1, ClaudeProgram::None).await
}

/// Another repository at the same path: the old one's history gone, a new first commit.
fn replace_repository(dir: &Path) {
    std::fs::remove_dir_all(dir.join(".git")).unwrap();
    git(dir, &["init", "-q", "-b", "main"]);
    std::fs::write(dir.join("other.txt"), "another project\n").unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "another start"]);
}

#[tokio::test]
async fn a_check_command_is_the_repositorys_and_is_approved_only_as_the_exact_text() {
    let t = plain().await;
    let repo = t.folder().to_path_buf();
    committed_repo(&repo);
    let sub = repo.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let linked = t.work().join("linked");
    git(
        &repo,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "other",
            linked.to_str().unwrap(),
        ],
    );
    let host = &t.host;

    let none = host.check_command(&repo).await.unwrap();
    assert_eq!((none.command, none.approved), (None, false));
    let saved = host
        .set_check_command(&repo, Some("npm test"))
        .await
        .unwrap();
    assert_eq!(saved.command.as_deref(), Some("npm test"));
    assert!(!saved.approved, "saving is not approving");
    for folder in [&sub, &linked] {
        let seen = host.check_command(folder).await.unwrap();
        assert_eq!(
            seen.command.as_deref(),
            Some("npm test"),
            "{}",
            folder.display()
        );
    }

    host.approve_check(&sub, "  npm test ").await.unwrap();
    assert!(host.check_command(&linked).await.unwrap().approved);
    assert!(host.check_approved(&repo, "npm test").await.unwrap());
    assert!(!host
        .check_approved(&repo, "npm test && rm -rf /")
        .await
        .unwrap());

    let changed = host
        .set_check_command(&repo, Some("npm run lint"))
        .await
        .unwrap();
    assert!(!changed.approved, "a changed command is shown again");
    let back = host
        .set_check_command(&repo, Some("npm test"))
        .await
        .unwrap();
    assert!(back.approved, "an approved text stays approved");

    let removed = host.set_check_command(&repo, None).await.unwrap();
    assert_eq!((removed.command, removed.approved), (None, false));
}

#[tokio::test]
async fn a_check_command_that_is_not_one_line_or_a_folder_that_is_not_there_is_refused() {
    let t = plain().await;
    let folder = t.folder();
    let long = "x".repeat(4097);
    for bad in ["", "   ", "a\0b", long.as_str()] {
        let refused = t
            .host
            .set_check_command(folder, Some(bad))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), "invalid_input", "{bad:?}: {refused}");
        let refused = t.host.approve_check(folder, bad).await.unwrap_err();
        assert_eq!(refused.code(), "invalid_input", "{bad:?}: {refused}");
    }
    assert_eq!(t.host.check_command(folder).await.unwrap().command, None);
    let at_most = "x".repeat(4096);
    t.host
        .set_check_command(folder, Some(&at_most))
        .await
        .unwrap();
    let missing = folder.join("missing");
    for refused in [
        t.host.check_command(&missing).await.unwrap_err(),
        t.host
            .set_check_command(&missing, Some("true"))
            .await
            .unwrap_err(),
        t.host.approve_check(&missing, "true").await.unwrap_err(),
        t.host.check_approved(&missing, "true").await.unwrap_err(),
    ] {
        assert_eq!(refused.code(), "invalid_input", "{refused}");
        assert!(refused.to_string().contains("not a folder"), "{refused}");
    }
}

#[tokio::test]
async fn outside_git_the_folder_itself_holds_its_check_command() {
    let t = plain().await;
    let sub = t.folder().join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    t.host
        .set_check_command(t.folder(), Some("make check"))
        .await
        .unwrap();
    t.host
        .approve_check(t.folder(), "make check")
        .await
        .unwrap();
    assert!(t.host.check_command(t.folder()).await.unwrap().approved);
    assert_eq!(t.host.check_command(&sub).await.unwrap().command, None);
    assert!(!t.host.check_approved(&sub, "make check").await.unwrap());
}

#[tokio::test]
async fn an_approval_holds_only_in_the_repository_it_was_given_in() {
    let t = plain().await;
    let repo = t.folder();
    committed_repo(repo);
    t.host
        .set_check_command(repo, Some("cargo test"))
        .await
        .unwrap();
    t.host.approve_check(repo, "cargo test").await.unwrap();
    assert!(t.host.check_approved(repo, "cargo test").await.unwrap());
    replace_repository(repo);
    assert!(!t.host.check_approved(repo, "cargo test").await.unwrap());
    let view = t.host.check_command(repo).await.unwrap();
    assert_eq!(view.command.as_deref(), Some("cargo test"));
    assert!(!view.approved);
}

#[tokio::test]
async fn a_check_passes_fails_or_is_stopped_with_its_outputs_tail() {
    let t = plain().await;
    let folder = t.folder();
    let limit = Duration::from_secs(30);
    let passed = t
        .host
        .run_check("pwd; echo out; echo err >&2", folder, limit)
        .await;
    assert!(passed.passed, "{passed:?}");
    assert_eq!(passed.exit_code, Some(0));
    assert!(!passed.timed_out && passed.message.is_none(), "{passed:?}");
    assert_eq!(passed.command, "pwd; echo out; echo err >&2");
    let lines: Vec<&str> = passed.tail.lines().collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(
        lines.contains(&folder.to_str().unwrap()),
        "it runs in the folder: {lines:?}"
    );
    assert!(
        lines.contains(&"out") && lines.contains(&"err"),
        "{lines:?}"
    );

    let failed = t.host.run_check("echo broken; exit 3", folder, limit).await;
    assert!(!failed.passed && !failed.timed_out, "{failed:?}");
    assert_eq!(failed.exit_code, Some(3));
    assert_eq!(failed.tail, "broken\n");
    let why = failed.message.expect("why it failed");
    assert!(why.contains('3'), "{why}");

    let started = std::time::Instant::now();
    let stopped = t
        .host
        .run_check("echo begun; sleep 30", folder, Duration::from_millis(500))
        .await;
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "stopped at its limit"
    );
    assert!(stopped.timed_out && !stopped.passed, "{stopped:?}");
    assert_eq!(stopped.exit_code, None);
    assert!(stopped.elapsed_ms >= 500, "{stopped:?}");
    let why = stopped.message.expect("why it failed");
    assert!(why.contains("did not end within"), "{why}");

    let missing = t
        .host
        .run_check("true", &folder.join("missing"), limit)
        .await;
    assert!(!missing.passed, "{missing:?}");
    let why = missing.message.expect("why it failed");
    assert!(why.contains("could not start the check command"), "{why}");
}

#[tokio::test]
async fn a_checks_tail_keeps_its_last_lines_and_bytes() {
    let t = plain().await;
    let limit = Duration::from_secs(30);
    let many = t.host.run_check("seq 1 100", t.folder(), limit).await;
    let lines: Vec<&str> = many.tail.lines().collect();
    assert_eq!(lines.len(), TAIL_LINES);
    assert_eq!(lines.first(), Some(&"61"));
    assert_eq!(lines.last(), Some(&"100"));

    // 40 lines of 200 bytes: more than TAIL_BYTES, cut at the front.
    let wide = t
        .host
        .run_check(
            "for i in $(seq 1 40); do printf '%0199d\\n' $i; done",
            t.folder(),
            limit,
        )
        .await;
    assert_eq!(wide.tail.len(), TAIL_BYTES, "{}", wide.tail.len());
    assert!(wide.tail.ends_with(&format!("{:0199}\n", 40)));
    // Lines of 100 two-byte characters: the cut falls inside one, and the tail starts after it.
    let two_bytes = format!(
        "for i in $(seq 1 40); do printf '{}\\n'; done",
        "é".repeat(100)
    );
    let accented = t.host.run_check(&two_bytes, t.folder(), limit).await;
    assert!(accented.passed, "{accented:?}");
    assert_eq!(accented.tail.len(), TAIL_BYTES - 1);
    assert!(accented.tail.starts_with('é') && accented.tail.ends_with("é\n"));
}

#[tokio::test]
async fn a_setup_command_is_the_repositorys_one_line() {
    let t = plain().await;
    let folder = t.folder();
    let refused = t.host.setup_command(folder).await.unwrap_err();
    assert_eq!(refused.code(), "unsupported", "{refused}");
    assert!(
        refused.to_string().contains("not in a git repository"),
        "{refused}"
    );
    let refused = t
        .host
        .set_setup_command(folder, Some("make deps"))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "unsupported", "{refused}");
    let missing = t
        .host
        .setup_command(&folder.join("missing"))
        .await
        .unwrap_err();
    assert_eq!(missing.code(), "invalid_input", "{missing}");

    committed_repo(folder);
    let sub = folder.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    assert_eq!(t.host.setup_command(folder).await.unwrap(), None);
    let saved = t
        .host
        .set_setup_command(&sub, Some("make deps"))
        .await
        .unwrap();
    assert_eq!(saved.as_deref(), Some("make deps"));
    assert_eq!(
        t.host.setup_command(folder).await.unwrap().as_deref(),
        Some("make deps")
    );
    let long = "x".repeat(4097);
    for bad in ["a\0b", long.as_str()] {
        let refused = t
            .host
            .set_setup_command(folder, Some(bad))
            .await
            .unwrap_err();
        assert_eq!(refused.code(), "invalid_input", "{bad:?}: {refused}");
    }
    assert_eq!(
        t.host.setup_command(folder).await.unwrap().as_deref(),
        Some("make deps"),
        "a refused one changes nothing"
    );
    let at_most = "x".repeat(4096);
    let saved = t
        .host
        .set_setup_command(folder, Some(&at_most))
        .await
        .unwrap();
    assert_eq!(saved, Some(at_most));
    assert_eq!(t.host.set_setup_command(folder, None).await.unwrap(), None);
    assert_eq!(t.host.setup_command(folder).await.unwrap(), None);
}

/// The setup events of `thread` until its end: the output sent, and how it ended.
async fn setup_end(
    events: &mut tokio::sync::broadcast::Receiver<HostEvent>,
    thread: &str,
) -> (String, bool, Option<String>) {
    let mut output = String::new();
    let waited = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            match events.recv().await.unwrap() {
                HostEvent::WorktreeSetup {
                    thread_id,
                    output: o,
                } if thread_id == thread => output.push_str(&o),
                HostEvent::WorktreeSetupEnded {
                    thread_id,
                    success,
                    message,
                } if thread_id == thread => return (success, message),
                _ => {}
            }
        }
    })
    .await
    .expect("the setup command never ended");
    (output, waited.0, waited.1)
}

#[tokio::test]
async fn a_new_worktree_fork_runs_the_setup_command_in_its_folder() {
    let t = checkpointed(1).await;
    t.host
        .set_setup_command(t.folder(), Some("echo set up > setup.txt; echo done"))
        .await
        .unwrap();
    let mut events = t.host.subscribe();
    let made = t
        .host
        .fork_with(&t.thread, after(1), ForkFiles::Worktree)
        .await
        .unwrap();
    let (fork, cwd) = fork_of(&made);
    let (output, success, message) = setup_end(&mut events, &fork).await;
    assert!(success, "{message:?}");
    assert_eq!(message, None);
    assert_eq!(output, "done\n");
    assert_eq!(
        std::fs::read_to_string(cwd.join("setup.txt")).unwrap(),
        "set up\n"
    );
    assert!(!t.folder().join("setup.txt").exists(), "not in the source");
}

#[tokio::test]
async fn a_failing_setup_command_says_so() {
    let t = plain().await;
    let repo = t.folder();
    committed_repo(repo);
    t.host
        .set_setup_command(repo, Some("echo trying; exit 4"))
        .await
        .unwrap();
    let mut events = t.host.subscribe();
    t.host.run_setup(&t.thread, repo, repo.to_path_buf()).await;
    let (output, success, message) = setup_end(&mut events, &t.thread).await;
    assert!(!success);
    assert_eq!(output, "trying\n");
    let why = message.expect("why");
    assert!(why.contains("setup command") && why.contains('4'), "{why}");
}

#[tokio::test]
async fn a_setup_command_is_not_run_in_a_repository_it_was_not_saved_for() {
    let t = plain().await;
    let repo = t.folder();
    committed_repo(repo);
    t.host
        .set_setup_command(repo, Some("touch ran.txt"))
        .await
        .unwrap();
    replace_repository(repo);
    let mut events = t.host.subscribe();
    t.host.run_setup(&t.thread, repo, repo.to_path_buf()).await;
    let (output, success, message) = setup_end(&mut events, &t.thread).await;
    assert!(!success && output.is_empty());
    let why = message.expect("why");
    assert!(
        why.contains("was not run") && why.contains("a different repository"),
        "{why}"
    );
    assert!(!repo.join("ran.txt").exists());

    // Saved where git could not tell which repository (no commit yet): not run either.
    let unborn = plain().await;
    let repo = unborn.folder();
    git(repo, &["init", "-q", "-b", "main"]);
    unborn
        .host
        .set_setup_command(repo, Some("touch ran.txt"))
        .await
        .unwrap();
    committed_repo_again(repo);
    let mut events = unborn.host.subscribe();
    unborn
        .host
        .run_setup(&unborn.thread, repo, repo.to_path_buf())
        .await;
    let (_, success, message) = setup_end(&mut events, &unborn.thread).await;
    assert!(!success);
    let why = message.expect("why");
    assert!(why.contains("did not record"), "{why}");
    assert!(!repo.join("ran.txt").exists());
}

/// A first commit in a repository made without one.
fn committed_repo_again(dir: &Path) {
    std::fs::write(dir.join("a.txt"), "a\n").unwrap();
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "start"]);
}

#[tokio::test]
async fn without_a_setup_command_nothing_runs() {
    let t = plain().await;
    let repo = t.folder();
    committed_repo(repo);
    let mut events = t.host.subscribe();
    t.host.run_setup(&t.thread, repo, repo.to_path_buf()).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(events.try_recv().is_err(), "no setup event");
}

/// Review M-5: a lane's check is not run when the lane changed what it runs.
#[test]
fn a_check_whose_inputs_a_lane_changed_is_named() {
    let root = tempfile::tempdir().unwrap();
    let (source, lane) = (root.path().join("s/in"), root.path().join("l/in"));
    for dir in [&source, &lane] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("check.sh"), "echo ok\n").unwrap();
        std::fs::write(dir.join("package.json"), "{}").unwrap();
        std::fs::write(dir.join("src.rs"), "fn a() {}").unwrap();
    }
    // Above both folders, different scripts: never a word's business.
    std::fs::write(root.path().join("s/check.sh"), "a").unwrap();
    std::fs::write(root.path().join("l/check.sh"), "b").unwrap();
    let changed = |command: &str| super::check::inputs_changed(command, &source, &lane);
    assert!(changed("sh ./check.sh && npm test").is_empty());
    assert!(changed("sh ../check.sh").is_empty());
    assert!(changed("sh /check.sh").is_empty());
    // The lane's own code changing is what a check is for.
    std::fs::write(lane.join("src.rs"), "fn b() {}").unwrap();
    assert!(changed("sh check.sh").is_empty());
    std::fs::write(lane.join("check.sh"), "touch $HOME/marker\n").unwrap();
    assert_eq!(changed("sh check.sh"), ["check.sh"]);
    assert_eq!(changed("bash -c 'sh ./check.sh'"), ["check.sh"]);
    assert!(changed("npm test").is_empty());
    std::fs::write(
        lane.join("package.json"),
        r#"{"scripts":{"test":"touch x"}}"#,
    )
    .unwrap();
    std::fs::write(lane.join("Makefile"), "all:\n\ttouch x\n").unwrap();
    assert_eq!(changed("npm test"), ["Makefile", "package.json"]);
    // What the check only reads is the lane's output: `test -f won.txt` runs as approved.
    std::fs::write(lane.join("won.txt"), "won").unwrap();
    assert!(!changed("test -f won.txt").contains(&"won.txt".to_owned()));
    // An executable the lane wrote, whatever its name, is run by the check: named.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let tool = lane.join("tool");
        std::fs::write(&tool, "#!/bin/sh\ntouch x\n").unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        assert!(changed("./tool").contains(&"tool".to_owned()));
    }
}

/// Review M-5, through the Host: the lane's changed script is not run, an unchanged one is.
#[tokio::test]
async fn a_lanes_check_runs_only_as_approved() {
    let t = claude_thread(1, ClaudeProgram::None).await;
    let root = tempfile::tempdir().unwrap();
    let (source, lane) = (root.path().join("s"), root.path().join("l"));
    for dir in [&source, &lane] {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("check.sh"), "echo fine\n").unwrap();
    }
    let limit = Duration::from_secs(30);
    let ran = t
        .host
        .run_lane_check("sh check.sh", &source, &lane, limit)
        .await;
    assert!(ran.passed, "{ran:?}");
    let marker = root.path().join("marker");
    std::fs::write(
        lane.join("check.sh"),
        format!("touch '{}'\n", marker.display()),
    )
    .unwrap();
    let held = t
        .host
        .run_lane_check("sh check.sh", &source, &lane, limit)
        .await;
    assert!(!held.passed);
    assert!(
        held.message
            .as_deref()
            .unwrap()
            .starts_with("not run: the lane changed `check.sh`"),
        "{held:?}"
    );
    assert!(!marker.exists(), "the lane's script ran");
}
