//! NOT WIRED IN (a note for whoever owns `tests/tests/`): the end-to-end checks of issue 39
//! ("Trust that holds through every door", review `security-2026-12-06.md`) that need the real
//! CLIs and the fake model. Each fix on branch `sec` already has a unit test beside its code
//! that fails without the fix (named below); these are the stronger, through-the-product forms
//! the issue asks for, judged by a marker file never written and by what the model receives.
//!
//! Also needed in `tests/tests/` once `sec` is merged (M-6 empties filter drivers that a
//! repository's own `.git/config` defines, for every Forkhost git call): the tests that use a
//! *local* filter driver to slow, hold or break git must set it in the test HOME's global config
//! instead (`git config --global filter.<x>.…` under the harness HOME / `GIT_CONFIG_GLOBAL`):
//! `host_files.rs` (~lines 488 `filter.slow.clean`, 904 `filter.held.smudge`, 1065
//! `filter.broken.*`) and `app_files.rs` (~line 413 `filter.held.smudge`). As written they
//! would now see no filter run (no hold, no failure). `crates/worktree/tests/{spare,worktree_fill}.rs`
//! were changed the same way on `sec`.
//!
//! Sketches, in the style of `host_trust.rs` (helpers named as there; adapt to the kit):
//!
//! ```ignore
//! // M-1 (unit: trust::scan::tests::files_added_or_edited_inside_config_folders_are_changes)
//! #[tokio::test]
//! async fn a_pi_extension_added_after_trust_is_asked_about_again() {
//!     let env = pi_env().await;                       // fake model, temp HOME
//!     let repo = env.git_repo("r");
//!     write(repo.join(".pi/settings.json"), "{}");
//!     let t = env.host.create_trusting(pi(), &repo, true, "hello").await.unwrap();
//!     write(repo.join(".pi/extensions/x.ts"),
//!           "import { writeFileSync } from 'node:fs'; export default function () \
//!            { writeFileSync(process.env.HOME + '/fh-ext-marker', ''); }");
//!     env.host.close(&t).await.unwrap();
//!     let err = env.host.send(&t, "hello").await;     // or: sent, and Pi ran --no-approve
//!     assert!(!env.home().join("fh-ext-marker").exists());
//!     assert!(env.host.folder_trust(&repo).await.unwrap().changed
//!         .contains(&".pi/extensions/x.ts".to_owned()));
//! }
//!
//! // M-2 (unit: codex::trust::tests::untrusted_refuses_a_project_hooks_json_everywhere)
//! // An untrusted, Codex-trusted folder with `.codex/hooks.json` (SessionStart: touch marker):
//! // `create` refused in words; from a Claude thread there, `fork --into codex` refused; a
//! // cold Codex fork refused; the marker never exists.
//!
//! // Extra 1 (unit: codex::trust::tests::a_disabled_server_keeps_its_transport_...)
//! // `forkhost new --harness codex --cwd DIR --trust no --approve none "hello"` in a folder
//! // Codex itself does NOT trust, whose `.codex/config.toml` defines `[mcp_servers.helper]
//! // command = "sh"`: the turn ends `completed`, and the helper never starts.
//!
//! // M-3/M-4 (units: terminal::tests::the_terminal_honours_the_folder_trust_decision,
//! // discovery::tests::an_id_that_is_not_the_harnesses_is_refused_at_import,
//! // {claude,codex}::harness::tests::the_terminal_refuses_an_id_that_is_not_a_uuid)
//! // App: a declined Codex folder with a marker MCP server; open the Terminal tab; the PTY's
//! // argv holds `-c mcp_servers.<n>.enabled=false` and the marker never appears.
//!
//! // M-5 (not fixed on `sec`): host_race.rs, Codex workspace-write: a lane writes
//! // `check.sh` touching $HOME/marker; the approved check `sh check.sh` must not leave it.
//!
//! // M-6 (crates/worktree/tests/repo_filters.rs covers checkpoint, restore, worktree fill)
//! // host_files.rs: `git config filter.x.clean 'sh -c "touch $HOME/fh-filter; cat"'`,
//! // `*.txt filter=x`, `forkhost new … --approve none "hello"`: no `$HOME/fh-filter`.
//!
//! // L-3 (unit: crates/store/tests/swap_lines.rs grants_move_with_the_line_and_back)
//! // host_rewind.rs: grant `touch x` with "a", rewind --to 1 --conversation: `grants(T)` is
//! // empty and the branch holds it; undo swaps them back.
//!
//! // L-4 (unit: trust::decisions::an_answer_covers_only_the_config_the_dialog_showed)
//! ```
