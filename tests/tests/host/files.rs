//! Forks that carry their files, with the real CLIs against the fake model in a temporary git
//! repository: three turns each write `notes.txt` = "turn N" and a new file `tN.txt`; every
//! turn's start and end is checkpointed without touching the user's index, HEAD or stash; a
//! fork after turn 1 (and before turn 2) gets a worktree with exactly turn 1's files, its
//! `.worktreeinclude` copies a gitignored `.env`, and its next prompt writes only there; its
//! changes can be listed and brought back; its worktree is never removed with work in it
//! unless that loss is accepted; a worktree deleted outside Forkhost is a clear state.

use crate::host_kit;

use std::path::{Path, PathBuf};

use forkhost_core::{
    ForkAt, ForkFiles, HarnessKind, Host, HostOptions, NewThreadSpec, PermissionMode, TurnRef,
};
use forkhost_tests::fake_model::Role;
use forkhost_tests::harness_env::Harness;

use host_kit::{git, setup, turn};

/// The user's side of the repository that no checkpoint may change.
#[derive(Debug, PartialEq)]
struct UserState {
    head: String,
    branch: String,
    index: Vec<u8>,
    stash: String,
}

fn user_state(repo: &Path) -> UserState {
    UserState {
        head: git(repo, &["rev-parse", "HEAD"]),
        branch: git(repo, &["symbolic-ref", "HEAD"]),
        index: std::fs::read(repo.join(".git/index")).unwrap(),
        stash: git(repo, &["stash", "list"]),
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Makes `repo` a git repository with one commit (of `a.txt`).
fn committed_repo(repo: &Path) {
    git(repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "start"]);
}

fn writes(n: &str) -> String {
    format!("RUN_COMMAND `printf '{n}' > notes.txt && touch {n}.txt`")
}

async fn forks_carry_their_files(harness: Harness) {
    let Some(s) = setup(harness).await else {
        return;
    };
    let (model, env) = (&s.model, &s.env);
    let repo = env.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("README.md"), "hello\n").unwrap();
    std::fs::write(repo.join(".gitignore"), ".env\nnode_modules/\n").unwrap();
    std::fs::write(repo.join(".worktreeinclude"), ".env\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    std::fs::write(repo.join(".env"), "SECRET=1\n").unwrap();
    std::fs::create_dir_all(repo.join("node_modules/pkg")).unwrap();
    std::fs::write(repo.join("node_modules/pkg/index.js"), "x").unwrap();
    // The user has a staged change and a stash of their own.
    std::fs::write(repo.join("README.md"), "hello, staged\n").unwrap();
    git(&repo, &["add", "README.md"]);
    let before = user_state(&repo);

    let data = tempfile::tempdir().unwrap();
    let mut harness_env = env.vars().to_vec();
    let (kind, permissions) = match harness {
        Harness::Claude => {
            // bypassPermissions as root needs IS_SANDBOX; a test HOME is a sandbox.
            harness_env.push(("IS_SANDBOX".into(), "1".into()));
            (HarnessKind::Claude, Some(("bypassPermissions", None)))
        }
        Harness::Codex => (
            HarnessKind::Codex,
            Some(("never", Some("danger-full-access"))),
        ),
        Harness::Pi => (HarnessKind::Pi, None),
        Harness::Opencode => (HarnessKind::Opencode, None),
    };
    let options = HostOptions {
        harness_env,
        ..Default::default()
    };
    let host = Host::open_with(data.path(), options).await.unwrap().0;
    let source = host
        .create(NewThreadSpec {
            harness: kind,
            cwd: repo.clone(),
            title: Some("files".into()),
            permissions: PermissionMode {
                mode: permissions.map(|(m, _)| m.to_owned()),
                sandbox: permissions.and_then(|(_, s)| s.map(str::to_owned)),
            },
        })
        .await
        .unwrap()
        .thread
        .id;
    for n in ["t1", "t2", "t3"] {
        turn(&host, &source, &writes(n)).await;
    }
    assert_eq!(read(&repo.join("notes.txt")), "t3");
    let files = host.files(&source).await.unwrap();
    assert!(files.in_git && files.folder_kind == "folder");
    let edges: Vec<(i64, &str)> = files
        .checkpoints
        .iter()
        .map(|c| (c.turn, c.edge.as_str()))
        .collect();
    assert_eq!(
        edges,
        [
            (1, "start"),
            (1, "end"),
            (2, "start"),
            (2, "end"),
            (3, "start"),
            (3, "end")
        ]
    );
    assert_eq!(
        user_state(&repo),
        before,
        "a checkpoint touched the user's repository"
    );

    // After turn 1, in a worktree: turn 1's files, the .env copied, no node_modules.
    let after1 = host
        .fork_with(
            &source,
            ForkAt::After(TurnRef::Number(1)),
            ForkFiles::Worktree,
        )
        .await
        .unwrap();
    assert_eq!(after1.files_note, None);
    let fork = after1.thread.thread.id.clone();
    // The fork returns before its worktree is filled; its files are there once this returns.
    host.files_ready(&fork).await.unwrap();
    let fork_dir = PathBuf::from(&after1.thread.thread.cwd);
    assert_ne!(fork_dir, repo);
    assert_eq!(read(&fork_dir.join("notes.txt")), "t1");
    assert!(fork_dir.join("t1.txt").exists() && !fork_dir.join("t2.txt").exists());
    assert_eq!(read(&fork_dir.join(".env")), "SECRET=1\n");
    assert!(
        !fork_dir.join("node_modules").exists(),
        "ignored folders are never copied"
    );
    let fork_files = host.files(&fork).await.unwrap();
    assert_eq!(fork_files.folder_kind, "worktree");
    assert!(fork_files
        .branch
        .as_deref()
        .unwrap()
        .starts_with("forkhost/"));
    // Before turn 2: the same files as after turn 1.
    let before2 = host
        .fork_with(
            &source,
            ForkAt::Before(TurnRef::Number(2)),
            ForkFiles::Worktree,
        )
        .await
        .unwrap();
    let target = before2.thread.thread.id.clone();
    host.files_ready(&target).await.unwrap();
    let target_dir = PathBuf::from(&before2.thread.thread.cwd);
    assert_eq!(read(&target_dir.join("notes.txt")), "t1");
    assert!(!target_dir.join("t2.txt").exists());

    // The fork's next turn: the model sees turn 1 only, and the files change only there.
    turn(&host, &fork, &writes("forked")).await;
    let dialogue = model.last_model_request().unwrap().dialogue();
    let prompts: Vec<&str> = dialogue
        .iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.text.as_str())
        .collect();
    assert!(
        prompts.iter().any(|p| p.contains("touch t1.txt")),
        "{prompts:?}"
    );
    assert!(!prompts.iter().any(|p| p.contains("t2")), "{prompts:?}");
    assert_eq!(read(&fork_dir.join("notes.txt")), "forked");
    assert!(fork_dir.join("forked.txt").exists());
    assert_eq!(
        read(&repo.join("notes.txt")),
        "t3",
        "the source folder changed"
    );
    assert!(!repo.join("forked.txt").exists());
    assert_eq!(user_state(&repo), before);

    // Two forks writing at once never see each other's files.
    tokio::join!(
        turn(&host, &fork, "RUN_COMMAND `touch only-in-fork.txt`"),
        turn(&host, &target, "RUN_COMMAND `touch only-in-target.txt`"),
    );
    assert!(fork_dir.join("only-in-fork.txt").exists());
    assert!(target_dir.join("only-in-target.txt").exists());
    assert!(!fork_dir.join("only-in-target.txt").exists());
    assert!(!target_dir.join("only-in-fork.txt").exists());
    assert!(!repo.join("only-in-fork.txt").exists() && !repo.join("only-in-target.txt").exists());

    // Its changes since the fork point, and bringing them back.
    let changes = host.changes(&fork, None).await.unwrap();
    let listed: Vec<(&str, &str)> = changes
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.status.as_str()))
        .collect();
    assert!(listed.contains(&("notes.txt", "modified")), "{listed:?}");
    assert!(listed.contains(&("forked.txt", "added")), "{listed:?}");
    let notes = changes
        .files
        .iter()
        .find(|f| f.path == "notes.txt")
        .unwrap();
    assert!(
        notes
            .diff
            .starts_with("diff --git a/notes.txt b/notes.txt\n"),
        "{}",
        notes.diff
    );
    assert!(
        notes.diff.contains("+forked") && !notes.diff.contains("forked.txt"),
        "{}",
        notes.diff
    );
    let refused = host.bring_back(&fork, &source).await.unwrap_err();
    assert_eq!(
        refused.code(),
        "conflict",
        "the source's notes.txt differs: {refused}"
    );
    assert_eq!(
        read(&repo.join("notes.txt")),
        "t3",
        "a refused apply changed nothing"
    );
    let applied = host.bring_back(&fork, &target).await.unwrap();
    assert!(!applied.files.is_empty());
    assert_eq!(read(&target_dir.join("notes.txt")), "forked");
    assert!(target_dir.join("forked.txt").exists());

    // A worktree with work in it is not removed unless that loss is accepted.
    let loss = host.worktree_loss(&fork).await.unwrap();
    assert!(loss.exists && !loss.files.is_empty(), "{loss:?}");
    let kept = host.remove_worktree(&fork, None).await.unwrap_err();
    assert_eq!(kept.code(), "conflict");
    assert!(fork_dir.exists());
    host.remove_worktree(&fork, Some(loss)).await.unwrap();
    assert!(!fork_dir.exists());
    assert!(!host.files(&fork).await.unwrap().folder_exists);

    // Deleted outside Forkhost: a clear state, not errors.
    std::fs::remove_dir_all(&target_dir).unwrap();
    assert!(!host.files(&target).await.unwrap().folder_exists);
    let gone = host.start_turn(&target, "hello").await.unwrap_err();
    assert!(gone.to_string().contains("is gone"), "{gone}");
    host.remove_worktree(&target, None).await.unwrap();
    assert_eq!(user_state(&repo), before);
}

#[tokio::test]
async fn claude_forks_carry_their_files() {
    forks_carry_their_files(Harness::Claude).await;
}

#[tokio::test]
async fn codex_forks_carry_their_files() {
    forks_carry_their_files(Harness::Codex).await;
}

#[tokio::test]
async fn pi_forks_carry_their_files() {
    forks_carry_their_files(Harness::Pi).await;
}

/// Outside git a fork uses the same folder (its files view says it is not in git); asking
/// for a worktree there is `unsupported`, in words.
#[tokio::test]
async fn a_folder_outside_git_forks_in_place_and_says_why() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let env = &s.env;
    let data = tempfile::tempdir().unwrap();
    let options = HostOptions {
        harness_env: env.vars().to_vec(),
        ..Default::default()
    };
    let host = Host::open_with(data.path(), options).await.unwrap().0;
    let thread = host
        .create(NewThreadSpec {
            harness: HarnessKind::Pi,
            cwd: env.work_dir().to_owned(),
            title: None,
            permissions: Default::default(),
        })
        .await
        .unwrap()
        .thread
        .id;
    turn(&host, &thread, "hello").await;
    let files = host.files(&thread).await.unwrap();
    assert!(!files.in_git && files.checkpoints.is_empty());
    let refused = host
        .fork_with(&thread, ForkAt::Latest, ForkFiles::Worktree)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "unsupported");
    assert!(
        refused.to_string().contains("not in a git repository"),
        "{refused}"
    );
    let forked = host
        .fork_with(&thread, ForkAt::Latest, ForkFiles::Auto)
        .await
        .unwrap();
    assert_eq!(
        forked.thread.thread.cwd,
        env.work_dir().display().to_string()
    );
    assert_eq!(forked.files_note, None, "no note on every fork outside git");
    let files = host.files(&forked.thread.thread.id).await.unwrap();
    assert!(!files.in_git && files.folder_kind == "folder", "{files:?}");
}

/// The checkpoints of a thread archived longer than the setting are pruned (only its own
/// `refs/forkhost/<thread>/` refs), unless a fork still uses their commits.
#[tokio::test]
async fn archived_threads_checkpoints_are_pruned_unless_a_fork_uses_them() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let env = &s.env;
    let repo = env.work_dir().to_path_buf();
    committed_repo(&repo);
    let data = tempfile::tempdir().unwrap();
    let options = HostOptions {
        harness_env: env.vars().to_vec(),
        ..Default::default()
    };
    let host = Host::open_with(data.path(), options).await.unwrap().0;
    let new = || NewThreadSpec {
        harness: HarnessKind::Pi,
        cwd: repo.clone(),
        title: None,
        permissions: Default::default(),
    };
    let lone = host.create(new()).await.unwrap().thread.id;
    let forked = host.create(new()).await.unwrap().thread.id;
    for thread in [&lone, &forked] {
        turn(&host, thread, &writes("one")).await;
    }
    host.fork_with(&forked, ForkAt::Latest, ForkFiles::Worktree)
        .await
        .unwrap();
    let refs = |thread: &str| {
        git(
            &repo,
            &["for-each-ref", &format!("refs/forkhost/{thread}/")],
        )
    };
    assert!(!refs(&lone).is_empty());
    for thread in [&lone, &forked] {
        host.archive(thread, true).await.unwrap();
    }
    assert_eq!(
        host.prune_checkpoints(30).await.unwrap(),
        0,
        "not old enough"
    );
    assert_eq!(host.prune_checkpoints(0).await.unwrap(), 1);
    assert!(refs(&lone).is_empty(), "the lone thread's refs are gone");
    assert!(host.files(&lone).await.unwrap().checkpoints.is_empty());
    assert!(!refs(&forked).is_empty(), "its fork still uses them");
    assert!(
        !git(&repo, &["branch", "--list", "main"]).is_empty(),
        "the user's branch stays"
    );
}

/// Every path in a commit's tree.
fn tree_of(repo: &Path, commit: &str) -> Vec<String> {
    git(repo, &["ls-tree", "-r", "--name-only", commit])
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A dotfiles repository in the home folder (review M5): a thread in `~/proj` gets no
/// checkpoint, its files view says why, and nothing of the home folder reaches git. Opted in
/// (`git config forkhost.checkpoints true`), its checkpoints hold nothing outside `proj/`.
#[tokio::test]
async fn a_dotfiles_repository_in_home_gets_no_checkpoint_of_the_home_folder() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let home = s.env.home().to_path_buf();
    git(&home, &["init", "-q", "-b", "main"]);
    std::fs::write(home.join("secret.txt"), "hunter2\n").unwrap();
    let proj = home.join("proj");
    std::fs::create_dir_all(&proj).unwrap();
    let host = s.host().await;
    // Pi's own config folder is in this HOME: a decision the user would be asked for.
    host.set_folder_trust(&proj, false).await.unwrap();
    let thread = host
        .create(NewThreadSpec {
            harness: HarnessKind::Pi,
            cwd: proj.clone(),
            title: None,
            permissions: Default::default(),
        })
        .await
        .unwrap()
        .thread
        .id;
    turn(&host, &thread, &writes("one")).await;
    assert!(proj.join("one.txt").exists(), "the turn ran in proj");
    let files = host.files(&thread).await.unwrap();
    assert!(files.checkpoints.is_empty(), "{files:?}");
    let note = files.checkpoints_note.expect("the files view says why");
    assert!(note.contains("home folder"), "{note}");
    assert_eq!(git(&home, &["for-each-ref", "refs/forkhost/"]), "");
    let refused = host
        .fork_with(&thread, ForkAt::Latest, ForkFiles::Worktree)
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "unsupported");
    assert!(refused.to_string().contains("home folder"), "{refused}");

    git(&home, &["config", "forkhost.checkpoints", "true"]);
    turn(&host, &thread, &writes("two")).await;
    let files = host.files(&thread).await.unwrap();
    assert_eq!(files.checkpoints_note, None);
    assert_eq!(files.checkpoints.len(), 2, "{files:?}");
    for checkpoint in &files.checkpoints {
        let paths = tree_of(&home, &checkpoint.commit);
        assert!(paths.contains(&"proj/one.txt".to_owned()), "{paths:?}");
        assert!(
            paths.iter().all(|p| p.starts_with("proj/")),
            "a checkpoint holds files outside the thread's folder: {paths:?}"
        );
    }
}

/// Stop never waits on a checkpoint (review M5): while the start checkpoint's `git status`
/// hangs in a slow clean filter, `interrupt` returns, and the turn still runs afterwards.
#[cfg(unix)]
#[tokio::test]
async fn interrupt_returns_while_a_slow_git_status_runs() {
    let Some(global) = host_kit::in_a_child_with_global_git_config(
        module_path!(),
        "interrupt_returns_while_a_slow_git_status_runs",
    ) else {
        return;
    };
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    committed_repo(&repo);
    let host = s.host().await;
    let thread = host
        .create(s.spec(Default::default()))
        .await
        .unwrap()
        .thread
        .id;
    turn(&host, &thread, "hello").await;

    // From now on the first content read of a `*.txt` file (the checkpoint's `status`) takes
    // 6 s; a changed mtime with the same size makes git read `a.txt` again.
    let marks = tempfile::tempdir().unwrap();
    let (started, done) = (marks.path().join("started"), marks.path().join("done"));
    std::fs::write(repo.join(".git/info/attributes"), "*.txt filter=slow\n").unwrap();
    let filter = format!(
        "sh -c '[ -e {d} ] || {{ touch {s}; sleep 6; touch {d}; }}; cat'",
        s = started.display(),
        d = done.display()
    );
    // The user's global config: Forkhost runs no driver of the repository's own (M-6).
    host_kit::git_config_file(&global, "filter.slow.clean", &filter);
    let touched = std::process::Command::new("touch")
        .args(["-d", "2030-01-01 00:00"])
        .arg(repo.join("a.txt"))
        .status()
        .unwrap();
    assert!(touched.success());

    let sending = tokio::spawn({
        let (host, thread) = (host.clone(), thread.clone());
        async move { host.send(&thread, "second").await }
    });
    tokio::time::timeout(std::time::Duration::from_secs(60), async {
        while !started.exists() {
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the checkpoint's git status never reached the filter");
    host.interrupt(&thread).await.unwrap();
    assert!(
        !done.exists(),
        "interrupt waited for the checkpoint's git status to finish"
    );
    sending
        .await
        .unwrap()
        .expect("the turn runs after the checkpoint");
    assert!(done.exists());
}

/// A fork with its worktree (review M6, L7): an ignored `local.db` the agent made there is part
/// of the loss and blocks a silent removal; a same-folder fork of that fork is named, and a
/// confirmation that did not name it is refused; accepting the whole loss removes the folder.
#[tokio::test]
async fn a_worktrees_ignored_files_and_other_threads_are_part_of_its_loss() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join(".gitignore"), "*.db\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    let host = s.host().await;
    let source = host
        .create(s.spec(Default::default()))
        .await
        .unwrap()
        .thread
        .id;
    turn(&host, &source, &writes("one")).await;
    let a = host
        .fork_with(&source, ForkAt::Latest, ForkFiles::Worktree)
        .await
        .unwrap();
    let (a, a_dir) = (a.thread.thread.id, PathBuf::from(&a.thread.thread.cwd));
    turn(&host, &a, "RUN_COMMAND `printf rows > local.db`").await;
    assert!(a_dir.join("local.db").exists());

    let loss = host.worktree_loss(&a).await.unwrap();
    assert_eq!(loss.ignored, vec!["local.db"], "{loss:?}");
    assert!(
        loss.files.is_empty() && loss.other_threads.is_empty(),
        "{loss:?}"
    );
    let kept = host.remove_worktree(&a, None).await.unwrap_err();
    assert_eq!(kept.code(), "conflict");
    assert!(kept.to_string().contains("1 ignored file"), "{kept}");
    assert!(a_dir.join("local.db").exists(), "nothing deleted");

    let b = host
        .fork_with(&a, ForkAt::Latest, ForkFiles::SameFolder)
        .await
        .unwrap()
        .thread
        .thread
        .id;
    let seen_before_b = loss;
    let loss = host.worktree_loss(&a).await.unwrap();
    assert_eq!(
        loss.other_threads
            .iter()
            .map(|t| t.id.as_str())
            .collect::<Vec<_>>(),
        vec![b.as_str()]
    );
    let refused = host
        .remove_worktree(&a, Some(seen_before_b))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "conflict");
    assert!(refused.to_string().contains(&b), "{refused}");
    assert!(a_dir.exists());
    host.remove_worktree(&a, Some(loss)).await.unwrap();
    assert!(!a_dir.exists());
    assert!(!host.files(&b).await.unwrap().folder_exists);
}

/// `bring_back` into a thread of another repository is refused before anything is applied
/// (review L6).
#[tokio::test]
async fn bring_back_refuses_a_thread_of_another_repository() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    let other = tempfile::tempdir().unwrap();
    for dir in [repo.as_path(), other.path()] {
        git(dir, &["init", "-q", "-b", "main"]);
        std::fs::write(dir.join("notes.txt"), "start\n").unwrap();
        git(dir, &["add", "-A"]);
        git(dir, &["commit", "-q", "-m", "start"]);
    }
    let host = s.host().await;
    let source = host
        .create(s.spec(Default::default()))
        .await
        .unwrap()
        .thread
        .id;
    turn(&host, &source, &writes("one")).await;
    let fork = host
        .fork_with(&source, ForkAt::Latest, ForkFiles::Worktree)
        .await
        .unwrap()
        .thread
        .thread
        .id;
    turn(&host, &fork, &writes("forked")).await;
    let elsewhere = host
        .create(NewThreadSpec {
            harness: HarnessKind::Pi,
            cwd: other.path().to_owned(),
            title: None,
            permissions: Default::default(),
        })
        .await
        .unwrap()
        .thread
        .id;
    let refused = host.bring_back(&fork, &elsewhere).await.unwrap_err();
    assert_eq!(refused.code(), "invalid_input", "{refused}");
    assert!(
        refused.to_string().contains("different repositories"),
        "{refused}"
    );
    assert_eq!(read(&other.path().join("notes.txt")), "start\n");
    assert!(!other.path().join("forked.txt").exists());
}

/// Whether process `pid` still runs (a zombie waiting for its reaper does not).
#[cfg(unix)]
fn running(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z')),
        Err(_) => false,
    }
}

/// A worktree's setup command (review L5): what it starts in the background (`sleep 60 &`)
/// ends when the app does, here the Host's runtime shutting down mid-command, as on quit.
#[cfg(unix)]
#[test]
fn a_setup_commands_processes_end_with_the_app() {
    let app = tokio::runtime::Runtime::new().unwrap();
    let marks = tempfile::tempdir().unwrap();
    let pid_file = marks.path().join("sleep.pid");
    let world = app.block_on(async {
        let s = setup(Harness::Pi).await?;
        let repo = s.env.work_dir().to_path_buf();
        committed_repo(&repo);
        let host = s.host().await;
        let command = format!("sleep 60 & echo $! > '{}'; wait", pid_file.display());
        host.set_setup_command(&repo, Some(&command)).await.unwrap();
        let thread = host
            .create(s.spec(Default::default()))
            .await
            .unwrap()
            .thread
            .id;
        turn(&host, &thread, &writes("one")).await;
        host.fork_with(&thread, ForkAt::Latest, ForkFiles::Worktree)
            .await
            .unwrap();
        tokio::time::timeout(std::time::Duration::from_secs(30), async {
            while std::fs::read_to_string(&pid_file).map_or(true, |p| p.trim().is_empty()) {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
        })
        .await
        .expect("the setup command never started");
        Some((s, host))
    });
    let Some((s, host)) = world else {
        return;
    };
    let pid = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .to_owned();
    assert!(running(&pid), "the setup command's sleep runs");
    drop(host);
    drop(app);
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while running(&pid) && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let survived = running(&pid);
    if survived {
        // Leave no sleeper behind for the next test, whatever this one says.
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid])
            .status();
    }
    assert!(
        !survived,
        "the setup command's background process outlived the app"
    );
    // The fake model's tasks died with their runtime; its folders go in a fresh one.
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(async move { drop(s) });
}

/// How the setup command of `fork` ended: (success, message).
async fn setup_end(
    events: &mut tokio::sync::broadcast::Receiver<forkhost_core::HostEvent>,
    fork: &str,
) -> (bool, Option<String>) {
    tokio::time::timeout(std::time::Duration::from_secs(60), async {
        loop {
            if let Ok(forkhost_core::HostEvent::WorktreeSetupEnded {
                thread_id,
                success,
                message,
            }) = events.recv().await
            {
                if thread_id == fork {
                    return (success, message);
                }
            }
        }
    })
    .await
    .expect("no word on the setup command")
}

/// A setup command runs only in the repository it was saved for (review L5): another
/// repository cloned later at the same path does not run it, and says so; saved again, it runs.
#[tokio::test]
async fn a_setup_command_saved_for_another_repository_is_not_run() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    let commit = |file: &str| {
        std::fs::write(repo.join(file), "x\n").unwrap();
        git(&repo, &["add", "-A"]);
        git(&repo, &["commit", "-q", "-m", file]);
    };
    git(&repo, &["init", "-q", "-b", "main"]);
    commit("first.txt");
    let host = s.host().await;
    host.set_setup_command(&repo, Some("touch setup-ran.txt"))
        .await
        .unwrap();
    // Another repository at the same path.
    std::fs::remove_dir_all(repo.join(".git")).unwrap();
    std::fs::remove_file(repo.join("first.txt")).unwrap();
    git(&repo, &["init", "-q", "-b", "main"]);
    commit("other.txt");
    let thread = host
        .create(s.spec(Default::default()))
        .await
        .unwrap()
        .thread
        .id;
    turn(&host, &thread, &writes("one")).await;

    let mut events = host.subscribe();
    let fork = host
        .fork_with(&thread, ForkAt::Latest, ForkFiles::Worktree)
        .await
        .unwrap()
        .thread;
    let (success, message) = setup_end(&mut events, &fork.thread.id).await;
    assert!(!success, "{message:?}");
    let message = message.unwrap_or_default();
    assert!(message.contains("was not run"), "{message}");
    assert!(
        message.contains("touch setup-ran.txt"),
        "names the command: {message}"
    );
    assert!(!Path::new(&fork.thread.cwd).join("setup-ran.txt").exists());

    // Saved again for this repository, it runs.
    host.set_setup_command(&repo, Some("touch setup-ran.txt"))
        .await
        .unwrap();
    let again = host
        .fork_with(&thread, ForkAt::Latest, ForkFiles::Worktree)
        .await
        .unwrap()
        .thread;
    let (success, message) = setup_end(&mut events, &again.thread.id).await;
    assert!(success, "{message:?}");
    assert!(Path::new(&again.thread.cwd).join("setup-ran.txt").exists());
}

/// The paths that differ between two commits of `repo`.
fn changed_between(repo: &Path, from: &str, to: &str) -> Vec<String> {
    let mut paths: Vec<String> = git(repo, &["diff", "--name-only", "--no-renames", from, to])
        .lines()
        .map(str::to_owned)
        .collect();
    paths.sort();
    paths
}

/// Issue 22, item 2, through the Host: a live thread's folder is watched, so a turn's
/// checkpoints read only what changed. A start with nothing changed since the last end *is*
/// that end (the same commit, no scan); an end after the agent changed three files holds
/// exactly those; more changes than the watcher keeps fall back to a full scan that is still
/// exact; and a change made while the app was closed (no watcher saw it) is caught by the next
/// start's full scan.
#[tokio::test]
async fn checkpoints_read_what_changed_and_catch_what_no_watcher_saw() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let env = &s.env;
    let repo = env.work_dir().to_path_buf();
    committed_repo(&repo);
    std::fs::write(repo.join("b.txt"), "b\n").unwrap();
    let host = s.host().await;
    let thread = s.thread(&host, Default::default()).await;
    let commit = |host: &Host, turn: i64, edge: &'static str| {
        let (host, thread) = (host.clone(), thread.clone());
        async move {
            let files = host.files(&thread).await.unwrap();
            files
                .checkpoints
                .iter()
                .find(|c| c.turn == turn && c.edge == edge)
                .unwrap_or_else(|| panic!("no checkpoint t{turn}-{edge}: {files:?}"))
                .commit
                .clone()
        }
    };

    turn(&host, &thread, &writes("t1")).await;
    turn(
        &host,
        &thread,
        "RUN_COMMAND `printf 'x' > a.txt && rm b.txt && touch three.txt`",
    )
    .await;
    let (end1, start2, end2) = (
        commit(&host, 1, "end").await,
        commit(&host, 2, "start").await,
        commit(&host, 2, "end").await,
    );
    assert_eq!(
        start2, end1,
        "nothing changed between the turns: the same checkpoint"
    );
    assert_eq!(
        changed_between(&repo, &start2, &end2),
        ["a.txt", "b.txt", "three.txt"],
        "exactly the three files the turn changed"
    );
    assert_eq!(git(&repo, &["show", &format!("{end2}:a.txt")]), "x");

    // Past what the watcher keeps (2,000 paths), the end checkpoint scans everything.
    turn(
        &host,
        &thread,
        "RUN_COMMAND `mkdir many && for i in $(seq 0 2100); do echo $i > many/f$i; done`",
    )
    .await;
    let end3 = commit(&host, 3, "end").await;
    let many = changed_between(&repo, &end2, &end3);
    assert_eq!(many.len(), 2101, "every new file, none missed");
    assert!(many.iter().all(|p| p.starts_with("many/f")));

    // The app closes; a file changes with no watcher running; the app opens again.
    host.shutdown().await;
    drop(host);
    std::fs::write(repo.join("a.txt"), "changed while closed\n").unwrap();
    let host = s.host().await;
    turn(&host, &thread, &writes("t4")).await;
    let start4 = commit(&host, 4, "start").await;
    assert_eq!(
        changed_between(&repo, &end3, &start4),
        ["a.txt"],
        "the next start's full scan catches it"
    );
    assert_eq!(
        git(&repo, &["show", &format!("{start4}:a.txt")]),
        "changed while closed\n"
    );
    host.shutdown().await;
}

/// A repository whose `slow.dat` is written by a smudge filter that waits for `release` to
/// exist: a fork's fill stays in progress until the test lets it go (deterministic, no timing).
fn repo_with_a_held_fill(repo: &Path, release: &Path, global: &Path) {
    committed_repo(repo);
    std::fs::write(repo.join(".gitattributes"), "*.dat filter=held\n").unwrap();
    let smudge = format!(
        "sh -c 'while [ ! -e \"{}\" ]; do sleep 0.02; done; cat'",
        release.display()
    );
    // The user's global config: Forkhost runs no driver of the repository's own (M-6).
    host_kit::git_config_file(global, "filter.held.smudge", &smudge);
    std::fs::write(repo.join("slow.dat"), "the held file\n").unwrap();
    for i in 0..200 {
        std::fs::write(repo.join(format!("f{i}.txt")), format!("{i}\n")).unwrap();
    }
    git(repo, &["add", "-A"]);
    git(repo, &["commit", "-q", "-m", "with a held file"]);
}

async fn wait_for_event(
    events: &mut tokio::sync::broadcast::Receiver<forkhost_core::HostEvent>,
    mut wanted: impl FnMut(&forkhost_core::HostEvent) -> bool,
) -> forkhost_core::HostEvent {
    tokio::time::timeout(std::time::Duration::from_secs(60), async {
        loop {
            if let Ok(event) = events.recv().await {
                if wanted(&event) {
                    return event;
                }
            }
        }
    })
    .await
    .expect("the event came")
}

/// How a test drops a prompt waiting for a fork's files.
enum DropBy {
    Stop,
    Close,
}

/// Sends `prompt` to a fork whose files are held, drops it as `how` says once it waits, and
/// returns how that turn ended (bounded: a prompt not dropped fails the test).
async fn prompt_dropped_while_waiting(
    host: &Host,
    fork: &str,
    prompt: &'static str,
    how: DropBy,
) -> forkhost_core::TurnOutcome {
    let waiting = {
        let (host, fork) = (host.clone(), fork.to_owned());
        tokio::spawn(async move { host.start_turn(&fork, prompt).await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    match how {
        DropBy::Stop => host.interrupt(fork).await.unwrap(),
        DropBy::Close => host.close(fork).await.unwrap(),
    }
    tokio::time::timeout(std::time::Duration::from_secs(20), waiting)
        .await
        .expect("the waiting prompt was dropped")
        .unwrap()
        .unwrap()
        .await
        .unwrap()
}

/// Issue 22, item 1, through the Host: a worktree fork returns before its files are written;
/// a prompt sent meanwhile waits and reaches the model only once they are there (it sees the
/// held file); Stop drops a prompt still waiting; the header's progress is in `FilesView`.
#[tokio::test]
async fn a_worktree_fork_opens_before_its_files_and_its_first_send_waits_for_them() {
    use forkhost_core::HostEvent;
    let Some(global) = host_kit::in_a_child_with_global_git_config(
        module_path!(),
        "a_worktree_fork_opens_before_its_files_and_its_first_send_waits_for_them",
    ) else {
        return;
    };
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let (model, env) = (&s.model, &s.env);
    let repo = env.work_dir().to_path_buf();
    let gate = tempfile::tempdir().unwrap();
    let release = gate.path().join("release");
    repo_with_a_held_fill(&repo, &release, &global);
    let host = s.host().await;
    let source = s.thread(&host, Default::default()).await;
    turn(&host, &source, "first question").await;
    let source_bytes = std::fs::read(repo.join("slow.dat")).unwrap();

    let mut events = host.subscribe();
    let forked = host
        .fork_with(&source, ForkAt::Latest, ForkFiles::Worktree)
        .await
        .unwrap();
    assert!(forked.files_pending, "the fork returned before its files");
    let fork = forked.thread.thread.id.clone();
    let folder = PathBuf::from(&forked.thread.thread.cwd);
    let files = host.files(&fork).await.unwrap();
    assert!(files.preparing.is_some(), "{files:?}");
    assert!(!folder.join("slow.dat").exists());

    // Stop drops a prompt that is still waiting for the files; so does Close (its tab closing).
    let requests = model.model_requests().len();
    let stopped = prompt_dropped_while_waiting(&host, &fork, "never sent", DropBy::Stop).await;
    assert_eq!(stopped, forkhost_core::TurnOutcome::Interrupted);
    let closed =
        prompt_dropped_while_waiting(&host, &fork, "never sent either", DropBy::Close).await;
    assert_eq!(closed, forkhost_core::TurnOutcome::Interrupted);

    // A prompt sent now waits until the files are there.
    let sending = {
        let (host, fork) = (host.clone(), fork.clone());
        tokio::spawn(async move { host.send(&fork, "RUN_COMMAND `cat slow.dat`").await })
    };
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    assert_eq!(
        model.model_requests().len(),
        requests,
        "nothing sent before the files"
    );
    std::fs::write(&release, "").unwrap();
    let prepared = wait_for_event(
        &mut events,
        |e| matches!(e, HostEvent::FilesPrepared { thread_id, .. } if *thread_id == fork),
    )
    .await;
    assert!(
        matches!(&prepared, HostEvent::FilesPrepared { error: None, .. }),
        "{prepared:?}"
    );
    let sent = tokio::time::timeout(std::time::Duration::from_secs(60), sending)
        .await
        .expect("the send went out")
        .unwrap();
    sent.unwrap();
    assert_eq!(
        std::fs::read(folder.join("slow.dat")).unwrap(),
        source_bytes
    );
    let prompts: Vec<String> = model
        .last_model_request()
        .unwrap()
        .dialogue()
        .into_iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.text)
        .collect();
    assert_eq!(prompts, ["first question", "RUN_COMMAND `cat slow.dat`"]);
    assert!(
        model
            .last_model_request()
            .unwrap()
            .dialogue()
            .iter()
            .any(|m| m.text.contains("the held file")),
        "the command ran in the complete tree"
    );
    assert!(host.files(&fork).await.unwrap().preparing.is_none());
    host.shutdown().await;
}

/// A fill that fails (here a smudge filter that exits 1) removes the half-made worktree and
/// its branch, says why, and a Send is refused in those words; the source is untouched.
#[tokio::test]
async fn a_worktree_fill_that_fails_cleans_up_and_says_why() {
    use forkhost_core::HostEvent;
    let Some(global) = host_kit::in_a_child_with_global_git_config(
        module_path!(),
        "a_worktree_fill_that_fails_cleans_up_and_says_why",
    ) else {
        return;
    };
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let env = &s.env;
    let repo = env.work_dir().to_path_buf();
    committed_repo(&repo);
    std::fs::write(repo.join(".gitattributes"), "*.dat filter=broken\n").unwrap();
    // The user's global config: Forkhost runs no driver of the repository's own (M-6).
    host_kit::git_config_file(&global, "filter.broken.clean", "cat");
    host_kit::git_config_file(&global, "filter.broken.smudge", "false");
    host_kit::git_config_file(&global, "filter.broken.required", "true");
    std::fs::write(repo.join("x.dat"), "data\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(
        &repo,
        &["commit", "-q", "-m", "a file that cannot be checked out"],
    );
    let host = s.host().await;
    let source = s.thread(&host, Default::default()).await;
    turn(&host, &source, "first question").await;
    let before = user_state(&repo);
    let mut events = host.subscribe();
    let forked = host
        .fork_with(&source, ForkAt::Latest, ForkFiles::Worktree)
        .await
        .unwrap();
    let fork = forked.thread.thread.id.clone();
    let folder = PathBuf::from(&forked.thread.thread.cwd);
    let prepared = wait_for_event(
        &mut events,
        |e| matches!(e, HostEvent::FilesPrepared { thread_id, .. } if *thread_id == fork),
    )
    .await;
    let HostEvent::FilesPrepared {
        error: Some(why), ..
    } = prepared
    else {
        panic!("the fill did not fail: {prepared:?}");
    };
    assert!(
        why.contains("could not be written") && why.contains("broken"),
        "{why}"
    );
    assert!(!folder.exists(), "no half-made worktree left");
    assert!(
        git(&repo, &["branch", "--list", "forkhost/*"])
            .trim()
            .is_empty(),
        "nor its branch"
    );
    assert_eq!(
        git(&repo, &["worktree", "list", "--porcelain"])
            .matches("worktree ")
            .count(),
        1
    );
    let err = host.send(&fork, "hello").await.unwrap_err();
    assert_eq!(err.code(), "invalid_input");
    assert!(err.to_string().contains("could not be written"), "{err}");
    assert_eq!(
        user_state(&repo),
        before,
        "the source's repository is untouched"
    );
    host.shutdown().await;
}

/// A fill the app did not finish (it ended meanwhile: simulated by a worktree marked half made
/// and missing a file) is finished by the next run before its first Send goes out.
#[tokio::test]
async fn a_fill_cut_short_by_the_app_ending_is_finished_at_the_next_send() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    committed_repo(&repo);
    let host = s.host().await;
    let source = s.thread(&host, Default::default()).await;
    turn(&host, &source, "first question").await;
    let forked = host
        .fork_with(&source, ForkAt::Latest, ForkFiles::Worktree)
        .await
        .unwrap();
    let fork = forked.thread.thread.id.clone();
    host.files_ready(&fork).await.unwrap();
    host.shutdown().await;
    drop(host);

    let folder = PathBuf::from(&forked.thread.thread.cwd);
    let git_dir = PathBuf::from(git(&folder, &["rev-parse", "--absolute-git-dir"]).trim());
    std::fs::write(git_dir.join("forkhost-filling"), "").unwrap();
    std::fs::remove_file(folder.join("a.txt")).unwrap();

    let host = s.host().await;
    turn(&host, &fork, "RUN_COMMAND `cat a.txt`").await;
    assert_eq!(read(&folder.join("a.txt")), "a\n", "the fill was finished");
    assert!(!git_dir.join("forkhost-filling").exists());
    let last = s.model.last_model_request().unwrap();
    let dialogue = last.dialogue();
    assert!(
        dialogue.iter().any(|m| m.text.contains("cat a.txt"))
            && !dialogue.iter().any(|m| m.text.contains("No such file")),
        "the command ran in the complete tree: {dialogue:?}"
    );
    host.shutdown().await;
}

#[cfg(unix)]
/// The repository's spare worktree, once it is filled (it is made in the background).
async fn spare_of(host: &Host, repo: &Path) -> PathBuf {
    for _ in 0..600 {
        if let Some(spare) = host.spare_worktree(repo).await {
            return spare;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("no spare worktree was made for {}", repo.display());
}

#[cfg(unix)]
fn inode(path: &Path) -> u64 {
    std::os::unix::fs::MetadataExt::ino(&std::fs::metadata(path).unwrap())
}

/// Issue 22: after a worktree fork the repository gets a spare worktree, filled in the
/// background at that fork's base; the next worktree fork claims it, so only the files that
/// differ are written (an unchanged file keeps its inode), and it holds exactly the files of
/// its own fork point. A new spare is made after it.
#[cfg(unix)]
#[tokio::test]
async fn a_worktree_fork_claims_the_repositorys_spare_and_a_new_one_is_made() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    committed_repo(&repo);
    let host = s.host().await;
    let source = s.thread(&host, Default::default()).await;
    turn(&host, &source, &writes("t1")).await;
    turn(&host, &source, &writes("t2")).await;
    let fork_at = |n| {
        let (host, source) = (host.clone(), source.clone());
        async move {
            let at = ForkAt::After(TurnRef::Number(n));
            let forked = host.fork_with(&source, at, ForkFiles::Worktree).await;
            let forked = forked.unwrap().thread.thread;
            host.files_ready(&forked.id).await.unwrap();
            (forked.id, PathBuf::from(forked.cwd))
        }
    };

    let (first, first_folder) = fork_at(1).await;
    assert!(!host.fork_claimed_spare(&first), "no spare yet");
    let spare = spare_of(&host, &repo).await;
    assert_eq!(
        read(&spare.join("notes.txt")),
        "t1",
        "at the first fork's base"
    );
    assert!(!spare.join("t2.txt").exists());
    let kept = inode(&spare.join("a.txt"));

    let (second, folder) = fork_at(2).await;
    assert!(
        host.fork_claimed_spare(&second),
        "the second fork claimed it"
    );
    assert!(folder.parent() == spare.parent() && folder != spare);
    let base = format!("refs/forkhost/{source}/t2-end");
    let mut on_disk: Vec<String> = git(&folder, &["ls-files", "--cached", "--others"])
        .lines()
        .map(str::to_owned)
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, tree_of(&repo, &base), "exactly turn 2's files");
    assert_eq!(read(&folder.join("notes.txt")), "t2");
    assert!(folder.join("t1.txt").exists() && folder.join("t2.txt").exists());
    assert_eq!(git(&folder, &["status", "--porcelain", "--ignored"]), "");
    assert_eq!(
        inode(&folder.join("a.txt")),
        kept,
        "an unchanged file is not written"
    );
    let branch = git(&folder, &["symbolic-ref", "--short", "HEAD"]);
    assert!(branch.trim().starts_with("forkhost/"), "{branch}");
    assert!(first_folder.join("t1.txt").exists() && !first_folder.join("t2.txt").exists());

    // The fork works there like any other, and the repository has a spare again.
    turn(&host, &second, &writes("t3")).await;
    assert_eq!(read(&folder.join("notes.txt")), "t3");
    assert_eq!(read(&repo.join("notes.txt")), "t2");
    assert_eq!(spare_of(&host, &repo).await, spare);
    host.shutdown().await;
}

/// Issue 22, item 5's finding: a fork's worktree is watched from the moment its files are
/// written, so its first turn's start checkpoint reads nothing — with nothing changed it *is*
/// the commit the fork started from — and a file changed in the fork's folder before its
/// first Send is still in that checkpoint (the watch saw it), exactly.
#[tokio::test]
async fn a_worktree_forks_first_checkpoint_is_its_base_when_nothing_changed() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    committed_repo(&repo);
    let host = s.host().await;
    let thread = s.thread(&host, Default::default()).await;
    turn(&host, &thread, &writes("t1")).await;
    let fork_once = || async {
        let fork = host
            .fork_with(
                &thread,
                ForkAt::After(TurnRef::Number(1)),
                ForkFiles::Worktree,
            )
            .await
            .unwrap()
            .thread
            .thread;
        host.files_ready(&fork.id).await.unwrap();
        fork
    };
    let start_of = |id: String| {
        let host = host.clone();
        async move {
            let files = host.files(&id).await.unwrap();
            let start = files
                .checkpoints
                .iter()
                .find(|c| c.turn == 2 && c.edge == "start")
                .unwrap_or_else(|| panic!("no start checkpoint: {files:?}"))
                .commit
                .clone();
            (start, files.base_commit.unwrap())
        }
    };

    let quiet = fork_once().await;
    turn(&host, &quiet.id, "RUN_COMMAND `touch after.txt`").await;
    let (start, base) = start_of(quiet.id.clone()).await;
    assert_eq!(
        start, base,
        "nothing changed since the fill: the start is the base commit"
    );

    let touched = fork_once().await;
    let folder = PathBuf::from(&touched.cwd);
    std::fs::write(folder.join("a.txt"), "edited before the first send\n").unwrap();
    std::fs::write(folder.join("new.txt"), "new\n").unwrap();
    turn(&host, &touched.id, "RUN_COMMAND `touch after.txt`").await;
    let (start, base) = start_of(touched.id.clone()).await;
    assert_eq!(changed_between(&repo, &base, &start), ["a.txt", "new.txt"]);
    assert_eq!(
        git(&repo, &["show", &format!("{start}:a.txt")]),
        "edited before the first send\n"
    );
    assert_eq!(
        git(&repo, &["rev-parse", &format!("{start}^")]).trim(),
        base,
        "it continues from the base"
    );
    host.shutdown().await;
}
