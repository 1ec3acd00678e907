//! Folder trust with the real CLIs against the fake model: a folder with project agent config
//! is refused until the user decides; trusted, the harness loads that config (a Claude project
//! hook runs, a Pi project extension asks); not trusted, it is started without it.

use crate::host_kit;

use std::path::Path;

use forkhost_core::{Host, TurnOutcome};
use forkhost_tests::harness_env::Harness;
use host_kit::{setup, turn_answering, Setup, PI_GATE};

/// A Claude project hook that leaves a mark when a prompt is submitted.
const CLAUDE_HOOK: &str = r#"{"hooks": {"UserPromptSubmit": [{"hooks": [
  {"type": "command", "command": "touch hook-ran.txt"}]}]}}"#;

/// One turn, dismissing what it asks; how many requests it showed, and the outcome.
async fn turn(host: &Host, thread: &str, prompt: &str) -> (usize, TurnOutcome) {
    turn_answering(
        host,
        thread,
        prompt,
        forkhost_core::ApprovalDecision::Decline,
    )
    .await
}

/// Creating a thread in `work` is refused, in words naming the config, until decided.
async fn refused_until_decided(host: &Host, s: &Setup, config: &str) {
    let refused = host.create(s.spec(Default::default())).await.unwrap_err();
    assert_eq!(refused.code(), "invalid_input");
    assert!(refused.to_string().contains(config), "{refused}");
    // The refusal carries the folder to ask about (the app asks from it, not from words).
    let carried = refused
        .undecided_trust()
        .expect("the refusal names its folder");
    assert_eq!(
        (carried.config.as_slice(), carried.trusted),
        ([config.to_owned()].as_slice(), None)
    );
    let view = host.folder_trust(s.env.work_dir()).await.unwrap();
    assert_eq!(view.trusted, None);
    assert_eq!(view.config, [config]);
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[tokio::test]
async fn claude_project_hooks_run_only_in_a_trusted_folder() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    let work = s.env.work_dir();
    write(&work.join(".claude/settings.json"), CLAUDE_HOOK);
    let host = s.host().await;
    refused_until_decided(&host, &s, ".claude").await;

    host.set_folder_trust(work, false).await.unwrap();
    let thread = s.thread(&host, Default::default()).await;
    assert_eq!(
        turn(&host, &thread, "hello").await.1,
        TurnOutcome::Completed
    );
    assert!(!work.join("hook-ran.txt").exists(), "an untrusted hook ran");

    host.set_folder_trust(work, true).await.unwrap();
    host.close(&thread).await.unwrap();
    assert_eq!(
        turn(&host, &thread, "again").await.1,
        TurnOutcome::Completed
    );
    assert!(
        work.join("hook-ran.txt").exists(),
        "the trusted hook did not run"
    );
}

#[tokio::test]
async fn pi_project_extensions_load_only_in_a_trusted_folder() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let work = s.env.work_dir();
    write(&work.join(".pi/extensions/gate.ts"), PI_GATE);
    let host = s.host().await;
    refused_until_decided(&host, &s, ".pi").await;

    host.set_folder_trust(work, false).await.unwrap();
    let thread = s.thread(&host, Default::default()).await;
    let untrusted = turn(&host, &thread, "RUN_COMMAND `touch ran.txt`").await;
    assert_eq!(
        untrusted,
        (0, TurnOutcome::Completed),
        "the untrusted gate loaded"
    );
    assert!(work.join("ran.txt").exists());

    host.set_folder_trust(work, true).await.unwrap();
    host.close(&thread).await.unwrap();
    std::fs::remove_file(work.join("ran.txt")).unwrap();
    let trusted = turn(&host, &thread, "RUN_COMMAND `touch ran.txt`").await;
    assert_eq!(
        trusted,
        (1, TurnOutcome::Completed),
        "the trusted gate did not ask"
    );
    assert!(!work.join("ran.txt").exists(), "dismissed: blocked");
}

/// An MCP server whose command only leaves `marker` (it is no real server: the harness gives
/// up on it, but by then the command ran, which is what trust must prevent).
fn marker_mcp_json(marker: &Path) -> String {
    serde_json::json!({"mcpServers": {"helper": {
        "command": "sh", "args": ["-c", format!("touch '{}'", marker.display())]}}})
    .to_string()
}

/// A thread of `s`'s harness in `cwd` (not the work folder).
fn spec_in(s: &Setup, cwd: &Path) -> forkhost_core::NewThreadSpec {
    forkhost_core::NewThreadSpec {
        cwd: cwd.to_owned(),
        ..s.spec(Default::default())
    }
}

/// Creating a thread in `cwd` is refused naming `shown`; after "Don't trust" a turn there
/// leaves no marker; after "Trust" (the control: the marker does mark a started server) it
/// does.
async fn mcp_json_gated(s: &Setup, cwd: &Path, shown: &str, marker: &Path) {
    let host = s.host().await;
    let refused = host.create(spec_in(s, cwd)).await.unwrap_err();
    let view = refused.undecided_trust().expect("refused for trust");
    assert!(view.config.contains(&shown.to_owned()), "{view:?}");
    assert!(refused.to_string().contains(shown), "{refused}");

    host.set_folder_trust(cwd, false).await.unwrap();
    let thread = host.create(spec_in(s, cwd)).await.unwrap().thread.id;
    assert_eq!(
        turn(&host, &thread, "hello").await.1,
        TurnOutcome::Completed
    );
    assert!(!marker.exists(), "an untrusted {shown} server started");

    host.set_folder_trust(cwd, true).await.unwrap();
    host.close(&thread).await.unwrap();
    assert_eq!(
        turn(&host, &thread, "again").await.1,
        TurnOutcome::Completed
    );
    assert!(marker.exists(), "the trusted {shown} server did not start");
}

#[tokio::test]
async fn claude_a_parent_folders_mcp_json_is_gated() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    // work/.mcp.json above the git repository work/repo.
    let work = s.env.work_dir();
    let marker = work.join("parent-server-ran");
    write(&work.join(".mcp.json"), &marker_mcp_json(&marker));
    let repo = work.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    host_kit::git(&repo, &["init", "-q"]);
    mcp_json_gated(&s, &repo, "../.mcp.json", &marker).await;
}

#[tokio::test]
async fn claude_an_intermediate_folders_mcp_json_is_gated() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    // The repository is work; its pkg/.mcp.json sits between it and the folder pkg/app.
    let work = s.env.work_dir();
    host_kit::git(work, &["init", "-q"]);
    let marker = work.join("pkg-server-ran");
    write(&work.join("pkg/.mcp.json"), &marker_mcp_json(&marker));
    let app = work.join("pkg/app");
    std::fs::create_dir_all(&app).unwrap();
    mcp_json_gated(&s, &app, "pkg/.mcp.json", &marker).await;
}

#[tokio::test]
async fn codex_project_mcp_servers_do_not_start_untrusted() {
    let Some(s) = setup(Harness::Codex).await else {
        return;
    };
    // The work folder is trusted in Codex's own config.toml (harness_env), so Codex itself
    // would load its .codex/config.toml layer.
    let work = s.env.work_dir();
    let marker = work.join("codex-server-ran");
    write(
        &work.join(".codex/config.toml"),
        &format!(
            "[mcp_servers.helper]\ncommand = \"sh\"\nargs = [\"-c\", \"touch '{}'\"]\n",
            marker.display()
        ),
    );
    mcp_json_gated(&s, work, ".codex", &marker).await;
}

#[tokio::test]
async fn codex_refuses_to_start_untrusted_where_it_cannot_hold_the_project_back() {
    let Some(s) = setup(Harness::Codex).await else {
        return;
    };
    let work = s.env.work_dir();
    write(
        &work.join(".codex/config.toml"),
        "approval_policy = \"never\"\n",
    );
    let host = s.host().await;
    host.set_folder_trust(work, false).await.unwrap();
    let thread = s.thread(&host, Default::default()).await;
    let refused = host.start_turn(&thread, "hello").await.err();
    let refused = match refused {
        Some(err) => err.to_string(),
        None => panic!("codex started untrusted with a project approval_policy"),
    };
    assert!(refused.contains("approval_policy"), "{refused}");
}

#[tokio::test]
async fn claude_untrusted_keeps_the_projects_deny_rules() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    let work = s.env.work_dir();
    write(
        &work.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["Write"]}}"#,
    );
    let host = s.host().await;
    host.set_folder_trust(work, false).await.unwrap();
    // acceptEdits would let the Write run without asking: only the deny rule stops it.
    let thread = s
        .thread(&host, host_kit::mode(Some("acceptEdits"), None))
        .await;
    let target = work.join("denied.txt");
    let prompt = format!("WRITE_FILE `{}`", target.display());
    assert_eq!(
        turn(&host, &thread, &prompt).await.1,
        TurnOutcome::Completed
    );
    assert!(!target.exists(), "the project's deny rule was dropped");
}

#[tokio::test]
async fn config_added_after_a_trust_asks_again() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    let work = s.env.work_dir();
    write(&work.join(".claude/settings.json"), "{}");
    let host = s.host().await;
    host.set_folder_trust(work, true).await.unwrap();
    let thread = s.thread(&host, Default::default()).await;

    let marker = work.join("new-server-ran");
    write(&work.join(".mcp.json"), &marker_mcp_json(&marker));
    let view = host.folder_trust(work).await.unwrap();
    assert_eq!(
        (view.trusted, view.changed.as_slice()),
        (Some(true), [".mcp.json".to_owned()].as_slice())
    );
    let refused = host.create(s.spec(Default::default())).await.unwrap_err();
    assert!(refused.undecided_trust().is_some(), "{refused}");
    // A thread that exists starts without the new config until the user decides again.
    assert_eq!(
        turn(&host, &thread, "hello").await.1,
        TurnOutcome::Completed
    );
    assert!(!marker.exists(), "config new since the trust was loaded");
}

#[tokio::test]
async fn a_worktree_fork_of_a_trusted_repository_is_trusted() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    let work = s.env.work_dir();
    host_kit::git(work, &["init", "-q", "-b", "main"]);
    write(&work.join(".claude/settings.json"), CLAUDE_HOOK);
    host_kit::git(work, &["add", "-A"]);
    host_kit::git(work, &["commit", "-q", "-m", "config"]);
    let host = s.host().await;
    host.set_folder_trust(work, true).await.unwrap();
    let thread = s.thread(&host, Default::default()).await;
    assert_eq!(
        turn(&host, &thread, "hello").await.1,
        TurnOutcome::Completed
    );
    let forked = host
        .fork_with(
            &thread,
            forkhost_core::ForkAt::Latest,
            forkhost_core::ForkFiles::Worktree,
        )
        .await
        .unwrap();
    host.files_ready(&forked.thread.thread.id).await.unwrap();
    let fork_dir = std::path::PathBuf::from(&forked.thread.thread.cwd);
    assert_ne!(fork_dir, work);
    let view = host.folder_trust(&fork_dir).await.unwrap();
    assert_eq!(
        (view.root.as_str(), view.trusted, view.for_harness()),
        (work.to_str().unwrap(), Some(true), Some(true))
    );
    // Its hook runs in the fork too.
    let _ = std::fs::remove_file(work.join("hook-ran.txt"));
    let in_fork = turn(&host, &forked.thread.thread.id, "in the fork").await;
    assert_eq!(in_fork.1, TurnOutcome::Completed);
    assert!(
        fork_dir.join("hook-ran.txt").exists(),
        "the fork ran untrusted"
    );
}

#[tokio::test]
async fn decisions_are_listed_and_revoked() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let work = s.env.work_dir();
    host_kit::git(work, &["init", "-q"]);
    write(&work.join(".pi/settings.json"), "{}");
    let sub = work.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let host = s.host().await;
    host.set_folder_trust(&sub, true).await.unwrap();
    let listed = host.trusted_folders().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (listed[0].folder.as_str(), listed[0].trusted),
        (work.to_str().unwrap(), true)
    );
    // Revoked from a folder below the root, as a user may name it.
    host.revoke_folder_trust(sub.to_str().unwrap())
        .await
        .unwrap();
    assert_eq!(host.folder_trust(work).await.unwrap().trusted, None);
    let again = host.revoke_folder_trust(work.to_str().unwrap()).await;
    assert_eq!(again.unwrap_err().code(), "invalid_input");
}
