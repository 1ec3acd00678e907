//! The scenario of a fork whose session runs in another folder (issue 12's fork into a git
//! worktree): `ForkRequest::cwd`. See "Forking into another folder" in
//! docs/harness-behaviour.md for what each CLI does.

use std::path::{Path, PathBuf};

use forkhost_harness::{Cut, ForkRequest, HarnessError, NativeSession, Runtime, SessionTarget};
use forkhost_tests::fake_model::Msg;

use super::kit::{anchors, exchange, history_of, reply, Fingerprint, Live};
use super::scenarios::{close_if_open, settle};
use super::{HarnessCase, Setup};

/// The folder as the CLIs resolve it (symlinks followed).
fn real(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir).unwrap()
}

/// A prompt whose turn runs `pwd` through the harness's shell tool: its reply quotes the
/// folder the harness runs its tools in.
const PWD: &str = "where are we? RUN_COMMAND `pwd`";

/// The folder `pwd` printed in a reply to [`PWD`], checked to be `dir`.
fn assert_ran_in(text: &str, dir: &Path, what: &str) {
    let want = real(dir).to_string_lossy().into_owned();
    assert!(
        text.contains(&format!("{want}\n")) || text.trim_end_matches(')').ends_with(&want),
        "{what}: the shell ran in {want}? {text}"
    );
}

pub async fn fork_into_another_folder_runs_and_resumes_there<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let prompts = ["alpha question", "beta question"];
    let (source, source_anchors) = s.session_with(&prompts).await;
    let source_path = source.path.clone().unwrap();
    let print = Fingerprint::of(&source_path);
    assert_eq!(source_anchors.len(), 2);
    let dir = s.env.root().join("worktree");
    std::fs::create_dir_all(&dir).unwrap();
    assert_ne!(real(&dir), real(&source.cwd));

    // Fork after turn 1 into the other folder.
    let forked = s
        .fork_into(&source, &source_anchors, Cut::After(0), &dir)
        .await
        .unwrap_or_else(|e| panic!("fork into {}: {e:?}", dir.display()));
    print.assert_unchanged("the fork into another folder");
    assert_ne!(forked.session.session_id, source.session_id);
    assert_eq!(
        forked.session.cwd, dir,
        "the fork's session runs in the new folder"
    );
    if let Some(pending) = &forked.pending {
        assert_eq!(pending.session, forked.session);
    } else {
        let kept = anchors(&history_of(&forked.session));
        assert_eq!(kept, source_anchors[..1], "the fork holds turn 1");
    }

    // Its first turn: exactly turn 1 and the new prompt reach the model.
    let mut live = s.open_fork(&forked).await;
    let prompt = "prompt in the worktree";
    let log = live.turn(prompt).await;
    assert_eq!(log.text, reply(2, prompt));
    assert_eq!(
        s.last_dialogue(),
        [exchange(&prompts[..1]), vec![Msg::user(prompt)]].concat(),
        "what the model saw in the fork"
    );
    print.assert_unchanged("a turn in the fork");
    let fork = live.session();
    assert_eq!(fork.session_id, forked.session.session_id);
    assert_eq!(real(&fork.cwd), real(&dir), "{fork:?}");

    // The harness runs in the new folder, and tells the model so.
    let log = live.turn(PWD).await;
    assert_ran_in(&log.text, &dir, "the fork's runtime");
    assert_model_told(&s, &dir, "the fork's runtime");
    let live = settle::<H>(live).await;
    let fork_path = fork.path.clone().expect("the fork has a file");
    assert!(fork_path.is_file(), "{}", fork_path.display());
    let recorded = H::KIND
        .harness()
        .recorded_cwd(&fork_path)
        .expect("the fork records its cwd");
    assert_eq!(real(Path::new(&recorded)), real(&dir), "the recorded cwd");
    if H::SESSION_FOLDER_PER_CWD {
        assert_ne!(
            fork_path.parent(),
            source_path.parent(),
            "the fork lives in the new folder's session folder: {}",
            fork_path.display()
        );
    }
    println!(
        "{} fork into another folder: {} (records cwd {recorded}, forked from {:?})",
        H::HARNESS.name(),
        fork_path.display(),
        history_of(&fork).forked_from
    );
    assert_eq!(history_of(&fork).turns.len(), 3);
    if H::KIND == forkhost_harness::HarnessKind::Pi {
        // Pi's header names the session forked from: the source, not the staged cut (gone).
        let parent = history_of(&fork)
            .forked_from
            .expect("a Pi fork names its parent");
        assert_eq!(
            real(Path::new(&parent)),
            real(&source_path),
            "parentSession"
        );
    }
    close_if_open(live).await;
    print.assert_unchanged("closing the fork");

    // Closed and resumed by its coordinates from the new folder: one more turn, still there.
    let resume = NativeSession {
        cwd: dir.clone(),
        ..fork.clone()
    };
    let mut live = s.open(SessionTarget::Resume(resume)).await;
    let again = format!("resumed: {PWD}");
    let log = live.turn(&again).await;
    assert!(log.text.starts_with(&reply(4, &again)), "{}", log.text);
    assert_ran_in(&log.text, &dir, "the resumed fork");
    assert_model_told(&s, &dir, "the resumed fork");
    // What the model saw (user and assistant text; the `pwd` turns add tool messages):
    // turn 1, the fork's turns, the new prompt.
    let seen = s.fake.last_model_request().unwrap().conversation();
    assert_eq!(seen.len(), 7, "{seen:?}");
    assert_eq!(seen[..2], exchange(&prompts[..1])[..], "{seen:?}");
    assert_eq!(seen[2..4], exchange_at(2, prompt)[..], "{seen:?}");
    assert_eq!(seen[4], Msg::user(PWD), "{seen:?}");
    assert_eq!(seen[6], Msg::user(&again), "{seen:?}");
    let resumed = live.session();
    assert_eq!(resumed.session_id, fork.session_id);
    let live = settle::<H>(live).await;
    assert_eq!(history_of(&resumed).turns.len(), 4);
    close_if_open(live).await;

    // Before turn 1, into a third folder: nothing inherited, and it runs there.
    let empty = s.env.root().join("worktree-before-1");
    std::fs::create_dir_all(&empty).unwrap();
    let forked = s
        .fork_into(&source, &source_anchors, Cut::Before(0), &empty)
        .await
        .unwrap_or_else(|e| panic!("fork before turn 1 into {}: {e:?}", empty.display()));
    assert_eq!(forked.session.cwd, empty);
    let mut live = s.open_fork(&forked).await;
    let log = live.turn(PWD).await;
    assert!(log.text.starts_with(&reply(1, PWD)), "{}", log.text);
    assert_ran_in(&log.text, &empty, "the fork before turn 1");
    let seen = s.fake.last_model_request().unwrap().conversation();
    assert_eq!(seen, [Msg::user(PWD)], "nothing inherited");
    live.close().await;

    // Issue 12's case: a linked git worktree of the repository the source runs in.
    if let Some(worktree) = git_worktree(&source.cwd, &s.env.root().join("linked-worktree")) {
        let forked = s
            .fork_into(&source, &source_anchors, Cut::After(0), &worktree)
            .await
            .unwrap_or_else(|e| panic!("fork into {}: {e:?}", worktree.display()));
        assert_eq!(forked.session.cwd, worktree);
        let mut live = s.open_fork(&forked).await;
        let log = live.turn(PWD).await;
        assert!(log.text.starts_with(&reply(2, PWD)), "{}", log.text);
        assert_ran_in(&log.text, &worktree, "the fork in a git worktree");
        let seen = s.fake.last_model_request().unwrap().conversation();
        assert_eq!(
            seen,
            [exchange(&prompts[..1]), vec![Msg::user(PWD)]].concat()
        );
        let fork = live.session();
        let live = settle::<H>(live).await;
        let recorded = H::KIND.harness().recorded_cwd(fork.path.as_ref().unwrap());
        assert_eq!(recorded.map(|r| real(Path::new(&r))), Some(real(&worktree)));
        close_if_open(live).await;
        print.assert_unchanged("the fork into a git worktree");
    }

    // A warm spare (where the harness keeps one, and where it can take a fork into another
    // folder) forks into a folder as the cold path does, then runs the fork there.
    let env = s.vars();
    if let Some(spare) = Runtime::spare(&s.binary, &env).await {
        let spare = spare.unwrap_or_else(|e| panic!("spare: {e:?}"));
        let warm_dir = s.env.root().join("worktree-warm");
        std::fs::create_dir_all(&warm_dir).unwrap();
        let request = ForkRequest {
            binary: &s.binary,
            source: &source,
            anchors: &source_anchors,
            cut: Cut::After(0),
            env: &env,
            cwd: Some(&warm_dir),
        };
        if spare.can_fork(&request) {
            let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
            let (forked, runtime) = s
                .within(
                    "warm fork into a folder",
                    spare.fork_into_runtime(request, Default::default(), tx),
                )
                .await
                .unwrap_or_else(|e| panic!("warm fork into {}: {e:?}", warm_dir.display()));
            print.assert_unchanged("the warm fork into a folder");
            assert_eq!(forked.session.cwd, warm_dir);
            let mut live = Live::adopted::<H>(Runtime::from_live(runtime), rx).await;
            let log = live.turn(PWD).await;
            assert!(log.text.starts_with(&reply(2, PWD)), "{}", log.text);
            assert_ran_in(&log.text, &warm_dir, "the warm fork");
            assert_model_told(&s, &warm_dir, "the warm fork");
            let seen = s.fake.last_model_request().unwrap().conversation();
            assert_eq!(
                seen,
                [exchange(&prompts[..1]), vec![Msg::user(PWD)]].concat()
            );
            live.close().await;
        } else {
            println!(
                "{}: its spare leaves a fork into a folder to the cold path",
                H::HARNESS.name()
            );
            spare.close().await;
        }
    }

    // A folder that does not exist is refused before anything is made.
    let files = s.session_files();
    let missing = s.env.root().join("no-such-folder");
    let err = s
        .fork_into(&source, &source_anchors, Cut::After(0), &missing)
        .await
        .err();
    assert!(
        matches!(err, Some(HarnessError::InvalidInput(_))),
        "{err:?}"
    );
    assert_eq!(s.session_files(), files, "the refused fork left no file");
    print.assert_unchanged("everything");
}

/// The last model request names `dir` (Claude's and Pi's system prompt, Codex's
/// environment context say where the harness runs).
fn assert_model_told<H: HarnessCase>(s: &Setup<H>, dir: &Path, what: &str) {
    let body = s.fake.last_model_request().unwrap().body.to_string();
    let want = real(dir).to_string_lossy().into_owned();
    assert!(body.contains(&want), "{what}: the model is not told {want}");
}

/// Makes `repo` a git repository with one commit and adds a linked worktree at `at`; `None`
/// (the case is skipped, and says so) where git is not installed.
fn git_worktree(repo: &Path, at: &Path) -> Option<PathBuf> {
    let git = |dir: &Path, args: &[&str]| {
        let out = std::process::Command::new("git")
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .args(["-c", "user.name=Test", "-c", "user.email=test@localhost"])
            .args(args)
            .output();
        match out {
            Ok(out) if out.status.success() => Some(()),
            Ok(out) => panic!("git {args:?}: {}", String::from_utf8_lossy(&out.stderr)),
            Err(err) => {
                println!("skipped the git worktree case: {err}");
                None
            }
        }
    };
    git(repo, &["init", "-q"])?;
    git(repo, &["commit", "-q", "--allow-empty", "-m", "start"])?;
    git(
        repo,
        &["worktree", "add", "-q", "-b", "fork", &at.to_string_lossy()],
    )?;
    Some(at.to_owned())
}

/// The user/assistant exchange of one prompt that was turn `turn` (1-based).
fn exchange_at(turn: usize, prompt: &str) -> Vec<Msg> {
    vec![Msg::user(prompt), Msg::assistant(reply(turn, prompt))]
}
