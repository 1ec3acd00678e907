//! Issue 39's trust fixes (review `security-2026-12-06.md`) through the Host, with the real
//! CLIs against the fake model, judged by a marker file the project's code would write: config
//! added to a trusted folder after the decision is asked about again and not loaded meanwhile
//! (M-1); Codex refuses to start untrusted with a project `.codex/hooks.json`, for a new thread
//! and for a conversation continued into Codex (M-2); the terminal tab of a declined folder
//! gets the same flags as the runtime (M-3).

use crate::host_kit;

use std::path::Path;

use forkhost_core::{ApprovalDecision, ForkAt, ForkFiles, HarnessKind, TurnOutcome};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use host_kit::{setup, turn_answering, Setup};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

async fn completes(host: &forkhost_core::Host, thread: &str, prompt: &str) {
    let (_, outcome) = turn_answering(host, thread, prompt, ApprovalDecision::Decline).await;
    assert_eq!(outcome, TurnOutcome::Completed, "{prompt}");
}

/// Review M-1: a Pi extension added to a trusted folder after the decision changes its
/// fingerprint: the folder is asked about again (a new thread is refused, `changed` names the
/// file), and the thread that exists runs without it meanwhile (the marker the extension
/// writes when Pi loads it never appears). The control: trusted again, Pi loads it.
#[tokio::test]
async fn pi_an_extension_added_after_trust_is_asked_about_again() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let work = s.env.work_dir();
    write(&work.join(".pi/settings.json"), "{}");
    let host = s.host().await;
    host.set_folder_trust(work, true).await.unwrap();
    let thread = s.thread(&host, Default::default()).await;
    completes(&host, &thread, "hello").await;

    let marker = s.env.home().join("fh-ext-marker");
    write(
        &work.join(".pi/extensions/x.ts"),
        &format!(
            "import {{ writeFileSync }} from 'node:fs';\n\
             export default function () {{ writeFileSync({:?}, ''); }}\n",
            marker.display().to_string()
        ),
    );
    let view = host.folder_trust(work).await.unwrap();
    assert_eq!(view.trusted, Some(true));
    assert!(
        view.changed.contains(&".pi/extensions/x.ts".to_owned()),
        "{view:?}"
    );
    let refused = host.create(s.spec(Default::default())).await.unwrap_err();
    assert!(refused.undecided_trust().is_some(), "{refused}");

    host.close(&thread).await.unwrap();
    completes(&host, &thread, "again").await;
    assert!(
        !marker.exists(),
        "an extension added after the trust loaded"
    );

    host.set_folder_trust(work, true).await.unwrap();
    host.close(&thread).await.unwrap();
    completes(&host, &thread, "trusted again").await;
    assert!(marker.exists(), "the control: the trusted extension loads");
}

/// A Codex project `hooks.json` whose hooks touch `marker` at session start and on a prompt.
fn codex_hooks(marker: &Path) -> String {
    let hook = serde_json::json!([{"hooks": [
        {"type": "command", "command": format!("touch '{}'", marker.display())}]}]);
    serde_json::json!({"hooks": {"SessionStart": hook, "UserPromptSubmit": hook}}).to_string()
}

/// Review M-2: "Don't trust" on a folder Codex itself trusts (so it would load the project's
/// `.codex/hooks.json`) refuses to start Codex, in words naming the file: for a new thread's
/// turn, and for a Claude conversation there continued into Codex (its seed starts `codex
/// app-server` in the folder). The hook's marker is never written.
#[tokio::test]
async fn codex_project_hooks_json_never_runs_untrusted() {
    let model = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let Some(env) = HarnessEnv::for_fake_all(&[Harness::Codex, Harness::Claude], &model).unwrap()
    else {
        return;
    };
    let s = Setup {
        model,
        env,
        data: tempfile::tempdir().unwrap(),
    };
    let work = s.env.work_dir();
    let marker = s.env.root().join("codex-hook-ran");
    write(&work.join(".codex/hooks.json"), &codex_hooks(&marker));
    let host = s.host().await;
    host.set_folder_trust(work, false).await.unwrap();

    let thread = s.thread(&host, Default::default()).await;
    let refused = match host.start_turn(&thread, "hello").await {
        Ok(_) => panic!("codex started untrusted with a project hooks.json"),
        Err(err) => err.to_string(),
    };
    assert!(refused.contains("hooks.json"), "{refused}");
    assert!(!marker.exists(), "an untrusted hook ran");

    let claude = host
        .create(forkhost_core::NewThreadSpec {
            harness: HarnessKind::Claude,
            ..s.spec(Default::default())
        })
        .await
        .unwrap()
        .thread
        .id;
    completes(&host, &claude, "hello").await;
    let continued = host
        .fork_into(
            &claude,
            ForkAt::Latest,
            ForkFiles::SameFolder,
            Some(HarnessKind::Codex),
        )
        .await;
    let refused = match continued {
        Ok(_) => panic!("continued into codex untrusted with a project hooks.json"),
        Err(err) => err.to_string(),
    };
    assert!(refused.contains("hooks.json"), "{refused}");
    assert!(!marker.exists(), "an untrusted hook ran in the seed");
}

/// Review M-3: the terminal tab of a thread in a folder the user declined gets the runtime's
/// flags: the project's MCP server disabled (`-c mcp_servers.helper.enabled=false`) before
/// `resume`; the server did not start for the thread's turn either. Trusted, the flag is gone.
#[tokio::test]
async fn codex_terminal_of_a_declined_folder_disables_the_project_server() {
    let Some(s) = setup(Harness::Codex).await else {
        return;
    };
    let work = s.env.work_dir();
    let marker = s.env.root().join("codex-server-ran");
    write(
        &work.join(".codex/config.toml"),
        &format!(
            "[mcp_servers.helper]\ncommand = \"sh\"\nargs = [\"-c\", \"touch '{}'\"]\n",
            marker.display()
        ),
    );
    let host = s.host().await;
    host.set_folder_trust(work, false).await.unwrap();
    let thread = s.thread(&host, Default::default()).await;
    completes(&host, &thread, "hello").await;
    assert!(!marker.exists(), "the untrusted server started");

    let off = "mcp_servers.helper.enabled=false";
    let command = host.terminal_command(&thread).await.unwrap();
    let resume = command.args.iter().position(|a| a == "resume");
    let disabled = command.args.iter().position(|a| a == off);
    assert!(
        matches!((disabled, resume), (Some(d), Some(r)) if d < r),
        "{:?}",
        command.args
    );
    host.release_terminal(&thread).await.unwrap();

    host.set_folder_trust(work, true).await.unwrap();
    let command = host.terminal_command(&thread).await.unwrap();
    assert!(!command.args.iter().any(|a| a == off), "{:?}", command.args);
    host.release_terminal(&thread).await.unwrap();
}
