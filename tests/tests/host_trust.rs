//! Folder trust with the real CLIs against the fake model: a folder with project agent config
//! is refused until the user decides; trusted, the harness loads that config (a Claude project
//! hook runs, a Pi project extension asks); not trusted, it is started without it.

mod host_kit;

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
