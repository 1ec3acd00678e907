//! A thread's view through a real Host: what the row alone does not say.

/// Issue 39: a Codex thread with no sandbox chosen names the one it runs in, never null.
#[tokio::test]
async fn a_codex_thread_without_a_sandbox_names_the_default_it_runs_in() {
    let codex_home = tempfile::tempdir().unwrap();
    let home = codex_home.path().display().to_string();
    let t =
        crate::test_host::claude_thread_in(1, crate::test_host::ClaudeProgram::None, "w", |o| {
            o.harness_env.push(("CODEX_HOME".into(), home))
        })
        .await;
    let mut row = t.host.store().thread(&t.thread).await.unwrap();
    row.harness = "codex".into();
    let view = t.host.view_of(&row).unwrap();
    assert_eq!(view.permissions.sandbox.as_deref(), Some("read-only"));
    assert!(view.permissions.sandbox_default);
    std::fs::write(
        codex_home.path().join("config.toml"),
        "sandbox_mode = \"workspace-write\"\n",
    )
    .unwrap();
    let view = t.host.view_of(&row).unwrap();
    assert_eq!(view.permissions.sandbox.as_deref(), Some("workspace-write"));
    // Chosen, it is the choice; a Claude thread has no sandbox to name.
    row.permission_sandbox = Some("danger-full-access".into());
    let view = t.host.view_of(&row).unwrap();
    assert_eq!(
        (
            view.permissions.sandbox.as_deref(),
            view.permissions.sandbox_default
        ),
        (Some("danger-full-access"), false)
    );
    row.harness = "claude".into();
    row.permission_sandbox = None;
    assert_eq!(t.host.view_of(&row).unwrap().permissions.sandbox, None);
}
