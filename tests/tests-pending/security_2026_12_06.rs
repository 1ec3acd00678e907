//! NOT WIRED IN (a note for whoever owns `tests/tests/`): the end-to-end checks of issue 39
//! ("Trust that holds through every door", review `security-2026-12-06.md`) still to write.
//! Wired already: `host::security` (M-1 Pi extension, M-2 hooks.json for a new thread and a
//! conversation continued into Codex, M-3 terminal flags) and `cli::security` (extra 1, extra 2,
//! M-4 at import, M-6 a repository's own filter driver).
//!
//! ```ignore
//! // M-1, the Claude part (unit: trust::scan::tests::files_added_or_edited_inside_config_folders_are_changes)
//! // a `.claude/commands` or `.claude/agents` file added to a trusted folder: asked again.
//!
//! // M-2, the cold fork (unit: codex::trust::tests::untrusted_refuses_a_project_hooks_json_everywhere)
//! // a Codex thread made while trusted, `.codex/hooks.json` added, trust set to no: a cold
//! // native Codex fork is refused; the marker never exists.
//!
//! // M-3 (unit: terminal::tests::the_terminal_honours_the_folder_trust_decision)
//! // App: a declined Codex folder with a marker MCP server; open the Terminal tab; the PTY's
//! // argv holds `-c mcp_servers.<n>.enabled=false` and the marker never appears.
//!
//! // M-5 (not fixed on `sec`): host_race.rs, Codex workspace-write: a lane writes
//! // `check.sh` touching $HOME/marker; the approved check `sh check.sh` must not leave it.
//!
//! // L-3 (unit: crates/store/tests/swap_lines.rs grants_move_with_the_line_and_back)
//! // host_rewind.rs: grant `touch x` with "a", rewind --to 1 --conversation: `grants(T)` is
//! // empty and the branch holds it; undo swaps them back.
//!
//! // L-4 (unit: trust::decisions::an_answer_covers_only_the_config_the_dialog_showed)
//! ```
