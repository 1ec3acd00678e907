//! Continue in another agent, with the real harness CLIs against the fake model: a 3-turn
//! source with a tool call is continued in another harness after and before its turn 2. The
//! proof is what the target's model receives: the source's history up to the cut (texts
//! equal, in order; the tool call and its result present), then the new prompt, and nothing
//! after the cut. Then the fork's second turn resumes, the source's file is byte-identical, a
//! native fork of the cross fork works, and a restart keeps it all.

use std::time::Duration;

use forkhost_core::{ForkAt, ForkFiles, HarnessKind, Host, HostOptions, NewThreadSpec, TurnRef};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, RequestRecord, Role};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

const TURN: Duration = Duration::from_secs(120);

const PROMPTS: [&str; 3] = [
    "alpha first question",
    "CALL_TOOL beta second question",
    "gamma third question",
];

struct Setup {
    model: FakeModel,
    env: HarnessEnv,
    data: tempfile::TempDir,
}

impl Setup {
    async fn new(source: Harness, target: Harness) -> Option<Setup> {
        let model = FakeModel::start(FakeModelOptions::default()).await.unwrap();
        let env = HarnessEnv::for_fake_all(&[source, target], &model).unwrap()?;
        Some(Setup {
            model,
            env,
            data: tempfile::tempdir().unwrap(),
        })
    }

    async fn host(&self) -> Host {
        let options = HostOptions {
            harness_env: self.env.vars().to_vec(),
            ..Default::default()
        };
        Host::open_with(self.data.path(), options).await.unwrap().0
    }
}

fn kind(h: Harness) -> HarnessKind {
    h.name().parse().unwrap()
}

async fn send(host: &Host, thread: &str, prompt: &str) -> forkhost_core::ThreadDetail {
    tokio::time::timeout(TURN, host.send(thread, prompt))
        .await
        .expect("turn hung")
        .unwrap()
}

/// The user texts of a model request, in order.
fn users(r: &RequestRecord) -> Vec<String> {
    r.conversation()
        .into_iter()
        .filter(|m| m.role == Role::User)
        .map(|m| m.text)
        .collect()
}

/// The assistant texts (tool calls left out) of a model request, in order.
fn replies(r: &RequestRecord) -> Vec<String> {
    r.conversation()
        .into_iter()
        .filter(|m| m.role == Role::Assistant)
        .map(|m| m.text)
        .collect()
}

/// The model request that carried `prompt` as its last user text.
fn request_for(model: &FakeModel, prompt: &str) -> RequestRecord {
    model
        .model_requests()
        .into_iter()
        .rev()
        .find(|r| r.last_user_text() == Some(prompt))
        .unwrap_or_else(|| panic!("no model request ended with {prompt:?}"))
}

fn user_texts(detail: &forkhost_core::ThreadDetail) -> Vec<String> {
    detail
        .turns
        .iter()
        .flat_map(|t| t.messages.iter().filter(|m| m.role == "user"))
        .map(|m| m.text.clone())
        .collect()
}

async fn continue_in(source: Harness, target: Harness) {
    let Some(s) = Setup::new(source, target).await else {
        return;
    };
    let host = s.host().await;
    let created = host
        .create(NewThreadSpec {
            harness: kind(source),
            cwd: s.env.work_dir().to_owned(),
            title: Some("source".into()),
            permissions: Default::default(),
        })
        .await
        .unwrap();
    let src = created.thread.id;
    for p in PROMPTS {
        send(&host, &src, p).await;
    }
    // The source's turn 2 called the shell tool; its reply names the result.
    let source_turn_2 = request_for(&s.model, PROMPTS[1]);
    let path = host.show(&src).await.unwrap().thread.native.path.unwrap();
    // The source's own process is closed first: an idle Claude Code appends bookkeeping
    // (`last-prompt`) to its own file; what must not happen is anything of the fork's.
    host.close(&src).await.unwrap();
    let before = digest(&path);

    // After turn 2.
    let forked = host
        .fork_into(
            &src,
            ForkAt::After(TurnRef::Number(2)),
            ForkFiles::SameFolder,
            Some(kind(target)),
        )
        .await
        .unwrap();
    let fork = forked.thread.thread.id.clone();
    assert_eq!(forked.thread.thread.harness, kind(target));
    let lineage = forked.thread.thread.fork.clone().unwrap();
    assert_eq!(lineage.source_thread, src);
    assert_eq!(
        lineage.source_harness,
        Some(kind(source)),
        "it crossed harnesses"
    );
    assert_eq!(user_texts(&forked.thread), PROMPTS[..2]);
    let note = forked.carry_note.clone().unwrap_or_default();
    assert!(
        note.contains("2 turns") && note.contains("1 shell command as"),
        "the fork says what came over: {note:?}"
    );
    let tool_carried = forked.thread.turns[1].messages.iter().any(|m| {
        m.tool
            .as_ref()
            .is_some_and(|t| t.output.as_deref().is_some_and(|o| o.contains("tool-ok")))
    });
    assert!(
        tool_carried,
        "the fork shows the shell call and its result: {:?}",
        forked.thread.turns[1]
    );

    let next = "delta after the cut";
    let reply = send(&host, &fork, next).await;
    let received = request_for(&s.model, next);
    assert_eq!(
        users(&received),
        [PROMPTS[0], PROMPTS[1], next],
        "{received:#?}"
    );
    let source_replies: Vec<String> = replies(&request_for(&s.model, PROMPTS[2]));
    assert_eq!(
        replies(&received),
        source_replies[..2],
        "the target model reads the source's replies exactly"
    );
    // The tool call and its result reach the target's model (printed: the proof, in words).
    let dialogue = received.dialogue();
    eprintln!("{source:?} -> {target:?}: the target's model received {dialogue:#?}");
    let call = dialogue.iter().position(|m| {
        m.role == Role::Assistant
            && m.text.starts_with("tool_call ")
            && m.text.contains("echo tool-ok")
    });
    let result = dialogue
        .iter()
        .position(|m| m.role == Role::Tool && m.text.contains("tool-ok"));
    assert!(
        matches!((call, result), (Some(c), Some(r)) if c < r),
        "tool call then result in {dialogue:#?}"
    );
    assert!(
        !format!("{dialogue:?}").contains("gamma"),
        "nothing after the cut"
    );
    assert!(
        source_turn_2
            .dialogue()
            .iter()
            .any(|m| m.role == Role::Tool),
        "the source's own turn 2 had a tool result"
    );
    let last = reply.turns.last().unwrap();
    assert!(
        last.messages
            .iter()
            .any(|m| m.role == "assistant" && m.text == format!("reply (turn 3) to: {next}")),
        "{last:?}"
    );

    // Its second turn resumes it.
    let then = "epsilon next";
    send(&host, &fork, then).await;
    assert_eq!(
        users(&request_for(&s.model, then)),
        [PROMPTS[0], PROMPTS[1], next, then]
    );
    assert_eq!(digest(&path), before, "the source is untouched");

    // A native fork of the cross fork at its turn 1.
    let native = host
        .fork(&fork, ForkAt::After(TurnRef::Number(1)))
        .await
        .unwrap();
    let native_id = native.thread.thread.id;
    let third = "zeta on the native fork";
    send(&host, &native_id, third).await;
    assert_eq!(users(&request_for(&s.model, third)), [PROMPTS[0], third]);

    // Before turn 2: the prompt comes back, the kept turn is turn 1.
    let edited = host
        .fork_into(
            &src,
            ForkAt::Before(TurnRef::Number(2)),
            ForkFiles::SameFolder,
            Some(kind(target)),
        )
        .await
        .unwrap();
    assert_eq!(edited.prefill.as_deref(), Some(PROMPTS[1]));
    assert_eq!(user_texts(&edited.thread), PROMPTS[..1]);
    let edited_id = edited.thread.thread.id;
    let rewritten = "beta rewritten";
    send(&host, &edited_id, rewritten).await;
    let received = request_for(&s.model, rewritten);
    assert_eq!(users(&received), [PROMPTS[0], rewritten]);
    assert_eq!(replies(&received), source_replies[..1]);

    // A restart keeps it all.
    host.shutdown().await;
    drop(host);
    let host = s.host().await;
    let shown = host.show(&fork).await.unwrap();
    assert_eq!(shown.thread.harness, kind(target));
    assert_eq!(user_texts(&shown), [PROMPTS[0], PROMPTS[1], next, then]);
    let after = "eta after restart";
    send(&host, &fork, after).await;
    assert_eq!(users(&request_for(&s.model, after)).len(), 5);
    assert_eq!(digest(&path), before, "the source is untouched");
    let fork_native = host.show(&fork).await.unwrap().thread.native;
    host.shutdown().await;
    drop(host);

    // Another Forkhost (its own store) finds the fork among the harness's own sessions and
    // imports it as any session: the same turns, in order.
    let other_data = tempfile::tempdir().unwrap();
    let other = Host::open_with(
        other_data.path(),
        HostOptions {
            harness_env: s.env.vars().to_vec(),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .0;
    let found = other.discover().await.unwrap();
    let listed = found
        .iter()
        .find(|d| {
            d.harness == kind(target) && Some(&d.session_id) == fork_native.session_id.as_ref()
        })
        .unwrap_or_else(|| panic!("the fork's session is not among {found:#?}"));
    assert_eq!(listed.thread_id, None);
    let imported = other.import(kind(target), &listed.path).await.unwrap();
    assert_eq!(
        user_texts(&imported),
        [PROMPTS[0], PROMPTS[1], next, then, after]
    );
    other.shutdown().await;
}

macro_rules! direction {
    ($name:ident, $source:ident, $target:ident) => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn $name() {
            continue_in(Harness::$source, Harness::$target).await;
        }
    };
}

direction!(claude_continues_in_pi, Claude, Pi);
direction!(pi_continues_in_claude, Pi, Claude);
direction!(codex_continues_in_claude, Codex, Claude);
direction!(codex_continues_in_pi, Codex, Pi);
direction!(claude_continues_in_codex, Claude, Codex);
direction!(pi_continues_in_codex, Pi, Codex);

/// Bad input is refused in words before anything is made: a turn or thread that does not
/// exist, a target harness whose binary is missing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_that_does_not_exist_is_refused_and_nothing_is_left() {
    let Some(s) = Setup::new(Harness::Pi, Harness::Claude).await else {
        return;
    };
    let host = s.host().await;
    let created = host
        .create(NewThreadSpec {
            harness: HarnessKind::Pi,
            cwd: s.env.work_dir().to_owned(),
            title: None,
            permissions: Default::default(),
        })
        .await
        .unwrap();
    let src = created.thread.id;
    send(&host, &src, "only turn").await;
    let threads = host.threads().await.unwrap().len();
    let err = host
        .fork_into(
            &src,
            ForkAt::After(TurnRef::Number(5)),
            ForkFiles::SameFolder,
            Some(HarnessKind::Claude),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), "turn_not_found", "{err}");
    let err = host
        .fork_into(
            "no-such-thread",
            ForkAt::Latest,
            ForkFiles::SameFolder,
            Some(HarnessKind::Claude),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), "thread_not_found", "{err}");
    assert_eq!(host.threads().await.unwrap().len(), threads);
    host.shutdown().await;
    drop(host);

    // A target whose binary is not there: `harness_not_found`, in words, and no thread.
    let missing = s.data.path().join("no-such-claude");
    let host = Host::open_with(
        s.data.path(),
        HostOptions {
            harness_env: s.env.vars().to_vec(),
            harness_paths: vec![(HarnessKind::Claude, missing.display().to_string())],
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .0;
    let err = host
        .fork_into(
            &src,
            ForkAt::Latest,
            ForkFiles::SameFolder,
            Some(HarnessKind::Claude),
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), "harness_not_found", "{err}");
    assert!(
        err.to_string().contains("does not exist"),
        "in words: {err}"
    );
    assert_eq!(host.threads().await.unwrap().len(), threads);
    let projects = s.env.home().join(".claude/projects");
    let files = walk(&projects);
    assert!(files.is_empty(), "no Claude session was written: {files:?}");
    host.shutdown().await;
}

/// The files come too: a Pi thread whose turns write files in a git repository, continued in
/// Claude Code after turn 1 in a worktree, has exactly turn 1's files there (the source's folder
/// keeps turn 2's), and Claude Code's model receives turn 1 and the new prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pi_continued_in_claude_opens_in_a_worktree_with_the_files_of_its_fork_point() {
    let Some(s) = Setup::new(Harness::Pi, Harness::Claude).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(&repo)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "start"]);
    let host = s.host().await;
    let src = host
        .create(NewThreadSpec {
            harness: HarnessKind::Pi,
            cwd: repo.clone(),
            title: Some("files".into()),
            permissions: Default::default(),
        })
        .await
        .unwrap()
        .thread
        .id;
    for n in ["t1", "t2"] {
        send(
            &host,
            &src,
            &format!("RUN_COMMAND `printf '{n}' > notes.txt && touch {n}.txt`"),
        )
        .await;
    }
    assert_eq!(
        std::fs::read_to_string(repo.join("notes.txt")).unwrap(),
        "t2"
    );

    let forked = host
        .fork_into(
            &src,
            ForkAt::After(TurnRef::Number(1)),
            ForkFiles::Worktree,
            Some(HarnessKind::Claude),
        )
        .await
        .unwrap();
    let fork = forked.thread.thread.id.clone();
    let cwd = std::path::PathBuf::from(&forked.thread.thread.cwd);
    assert_ne!(cwd, repo, "the fork has a folder of its own");
    assert!(cwd.starts_with(s.data.path()), "{}", cwd.display());
    host.files_ready(&fork).await.unwrap();
    assert_eq!(
        std::fs::read_to_string(cwd.join("notes.txt")).unwrap(),
        "t1"
    );
    assert!(cwd.join("t1.txt").exists() && cwd.join("a.txt").exists());
    assert!(
        !cwd.join("t2.txt").exists(),
        "nothing of turn 2 in the fork's files"
    );
    assert!(
        repo.join("t2.txt").exists(),
        "the source's folder keeps its files"
    );

    let next = "what is in notes.txt now";
    send(&host, &fork, next).await;
    let received = request_for(&s.model, next);
    assert_eq!(users(&received).len(), 2, "{received:#?}");
    assert!(users(&received)[0].contains("printf 't1'"));
    assert_eq!(users(&received)[1], next);
    // Claude Code keeps the fork's session under the worktree's project folder, where its own
    // `--resume` finds it.
    let native = host.show(&fork).await.unwrap().thread.native.path.unwrap();
    let project = std::path::Path::new(&native).parent().unwrap();
    let expected: String = cwd
        .canonicalize()
        .unwrap()
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    assert_eq!(project.file_name().unwrap().to_string_lossy(), expected);
    host.shutdown().await;
}

/// File calls come as the target's own: a Pi thread that read and edited a file, continued in
/// Claude Code, shows Claude Code's model its own `Read` and `Edit` calls with their results;
/// continued in Codex (which has no such tools to record), the same calls as text; and a
/// Claude Code thread's `Read`/`Edit` reach Pi's model as Pi's `read`/`edit`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_calls_come_into_claude_and_pi_as_their_own_and_into_codex_as_text() {
    let Some(s) = Setup::new(Harness::Pi, Harness::Claude).await else {
        return;
    };
    let Some(codex) = HarnessEnv::for_fake_all(&[Harness::Codex], &s.model).unwrap() else {
        return;
    };
    let mut vars = s.env.vars().to_vec();
    vars.extend(codex.vars().iter().cloned());
    let host = Host::open_with(
        s.data.path(),
        HostOptions {
            harness_env: vars,
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .0;
    let file = s.env.work_dir().join("notes.txt");
    std::fs::write(&file, "old words\n").unwrap();
    let edit = format!("EDIT_FILE `{}` `old words` `new words`", file.display());
    let new_thread = |harness, mode: Option<&str>| NewThreadSpec {
        harness,
        cwd: s.env.work_dir().to_owned(),
        title: None,
        permissions: forkhost_core::PermissionMode {
            mode: mode.map(str::to_owned),
            sandbox: None,
        },
    };
    let pi = host
        .create(new_thread(HarnessKind::Pi, None))
        .await
        .unwrap()
        .thread
        .id;
    send(&host, &pi, &edit).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "new words\n");
    let path = host.show(&pi).await.unwrap().thread.native.path.unwrap();
    host.close(&pi).await.unwrap();
    let before = digest(&path);

    // Into Claude Code: its own Read and Edit, with Pi's results.
    let forked = host
        .fork_into(
            &pi,
            ForkAt::Latest,
            ForkFiles::SameFolder,
            Some(HarnessKind::Claude),
        )
        .await
        .unwrap();
    let note = forked.carry_note.clone().unwrap_or_default();
    assert!(
        note.contains("2 file reads, writes and edits as Claude Code's own"),
        "{note}"
    );
    let prompt = "in claude now";
    send(&host, &forked.thread.thread.id, prompt).await;
    let dialogue = request_for(&s.model, prompt).dialogue();
    eprintln!("Pi -> Claude: the target's model received {dialogue:#?}");
    let call = |name: &str| {
        dialogue.iter().position(|m| {
            m.role == Role::Assistant && m.text.starts_with(&format!("tool_call {name} "))
        })
    };
    let (read, edited) = (call("Read"), call("Edit"));
    assert!(
        matches!((read, edited), (Some(r), Some(e)) if r < e),
        "Claude Code's own Read then Edit in {dialogue:#?}"
    );
    let edit_call = &dialogue[edited.unwrap()].text;
    assert!(
        edit_call.contains("\"old_string\":\"old words\"")
            && edit_call.contains("\"new_string\":\"new words\""),
        "{edit_call}"
    );
    assert!(
        dialogue[read.unwrap() + 1].role == Role::Tool
            && dialogue[read.unwrap() + 1].text.contains("old words"),
        "the read's result follows it: {dialogue:#?}"
    );

    // Into Codex: the same calls as text.
    let forked = host
        .fork_into(
            &pi,
            ForkAt::Latest,
            ForkFiles::SameFolder,
            Some(HarnessKind::Codex),
        )
        .await
        .unwrap();
    let prompt = "in codex now";
    send(&host, &forked.thread.thread.id, prompt).await;
    let dialogue = request_for(&s.model, prompt).dialogue();
    assert!(
        dialogue.iter().any(|m| m.role == Role::Assistant
            && m.text.contains("[tool call in Pi: edit]")
            && m.text.contains("new words")),
        "{dialogue:#?}"
    );
    assert!(
        !dialogue.iter().any(|m| m.role == Role::Tool),
        "Codex records no file call of its own: {dialogue:#?}"
    );
    assert_eq!(digest(&path), before, "the source is untouched");

    // A Claude Code thread's Read and Edit, into Pi.
    std::fs::write(&file, "old words\n").unwrap();
    let claude = host
        .create(new_thread(HarnessKind::Claude, Some("acceptEdits")))
        .await
        .unwrap()
        .thread
        .id;
    send(&host, &claude, &edit).await;
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "new words\n");
    let forked = host
        .fork_into(
            &claude,
            ForkAt::Latest,
            ForkFiles::SameFolder,
            Some(HarnessKind::Pi),
        )
        .await
        .unwrap();
    let prompt = "in pi now";
    send(&host, &forked.thread.thread.id, prompt).await;
    let dialogue = request_for(&s.model, prompt).dialogue();
    let pi_read = dialogue
        .iter()
        .position(|m| m.role == Role::Assistant && m.text.starts_with("tool_call read "));
    let pi_edit = dialogue.iter().position(|m| {
        m.role == Role::Assistant
            && m.text.starts_with("tool_call edit ")
            && m.text.contains("\"oldText\":\"old words\"")
    });
    assert!(
        matches!((pi_read, pi_edit), (Some(r), Some(e)) if r < e),
        "Pi's own read then edit in {dialogue:#?}"
    );
    host.shutdown().await;
}

/// A short stand-in for a file's bytes (so a failure prints a line, not the file).
fn digest(path: &str) -> (usize, u64) {
    use std::hash::{Hash, Hasher};
    let bytes = std::fs::read(path).unwrap();
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    (bytes.len(), hasher.finish())
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .flat_map(|e| match e.path().is_dir() {
            true => walk(&e.path()),
            false => vec![e.path()],
        })
        .collect()
}
