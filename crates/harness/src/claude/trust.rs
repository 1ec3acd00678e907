//! Claude Code's side of folder trust (docs/harness-behaviour.md "Folder trust: what each
//! harness can hold back"): for a folder whose project config the user does not trust, only
//! the user's own settings (`--setting-sources user`: no project hooks, permission rules or
//! plugins) and no project MCP servers (`--strict-mcp-config`: no `.mcp.json` of any folder
//! above). The project's *protective* rules, its `permissions.deny` and `permissions.ask`, are
//! handed back through `--settings`, since declining trust must not lift a restriction the
//! project set (review M2): a deny or ask rule can only take a tool away, never run one.

use std::path::Path;

use serde_json::{json, Value};

use crate::contract::read_config;

/// The project settings files Claude reads, relative to a project folder.
const SETTINGS: &[&str] = &[".claude/settings.json", ".claude/settings.local.json"];

/// The flags for `trusted` (`OpenSpec.trusted`) in `cwd`. Trusted, or nothing to trust: the
/// CLI's defaults, which load the project's config.
pub(crate) fn trust_args(trusted: Option<bool>, cwd: &Path) -> Vec<String> {
    if trusted != Some(false) {
        return Vec::new();
    }
    let mut args: Vec<String> = ["--setting-sources", "user", "--strict-mcp-config"]
        .map(str::to_owned)
        .to_vec();
    if let Some(kept) = protective_settings(cwd) {
        args.extend(["--settings".to_owned(), kept.to_string()]);
    }
    args
}

/// The `permissions.deny` and `permissions.ask` rules of the project settings in `cwd` and each
/// folder above it up to its repository root (a superset of the files Claude reads: a rule
/// kept needlessly only restricts). `None` when there are none. A file that cannot be read or
/// parsed adds nothing: Claude would not have applied it either.
fn protective_settings(cwd: &Path) -> Option<Value> {
    let mut deny: Vec<Value> = Vec::new();
    let mut ask: Vec<Value> = Vec::new();
    let home = dirs::home_dir();
    for dir in cwd.ancestors() {
        // The home folder's `.claude/settings.json` is the user's own, loaded anyway.
        if home.as_deref() != Some(dir) {
            for file in SETTINGS {
                let Some(settings) = read_json(&dir.join(file)) else {
                    continue;
                };
                let permissions = &settings["permissions"];
                extend_rules(&mut deny, &permissions["deny"]);
                extend_rules(&mut ask, &permissions["ask"]);
            }
        }
        if dir.join(".git").exists() {
            break;
        }
    }
    if deny.is_empty() && ask.is_empty() {
        return None;
    }
    let mut permissions = serde_json::Map::new();
    if !deny.is_empty() {
        permissions.insert("deny".into(), Value::Array(deny));
    }
    if !ask.is_empty() {
        permissions.insert("ask".into(), Value::Array(ask));
    }
    Some(json!({ "permissions": permissions }))
}

/// A settings file as JSON; a folder (or a device) of that name is none, and is never read.
fn read_json(path: &Path) -> Option<Value> {
    if !path.is_file() {
        return None;
    }
    serde_json::from_str(&read_config(path).ok()?).ok()
}

/// Adds the string rules of `rules` (an array) to `into`, once each.
fn extend_rules(into: &mut Vec<Value>, rules: &Value) {
    for rule in rules.as_array().into_iter().flatten() {
        if rule.is_string() && !into.contains(rule) {
            into.push(rule.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::test_kit::write_file;

    #[test]
    fn trusted_or_plain_folders_get_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        assert!(trust_args(Some(true), dir.path()).is_empty());
        assert!(trust_args(None, dir.path()).is_empty());
        assert_eq!(
            trust_args(Some(false), dir.path()),
            ["--setting-sources", "user", "--strict-mcp-config"]
        );
    }

    #[test]
    fn untrusted_keeps_the_projects_deny_and_ask_rules_only() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        write_file(
            &repo.join(".claude/settings.json"),
            r#"{"permissions":{"deny":["Write","Bash(rm:*)"],"allow":["Bash"]},
                "hooks":{"PreToolUse":[]}}"#,
        );
        write_file(
            &repo.join("app/.claude/settings.local.json"),
            r#"{"permissions":{"ask":["WebFetch"],"deny":["Write"]}}"#,
        );
        // Above the repository root: not the project's.
        write_file(
            &dir.path().join(".claude/settings.json"),
            r#"{"permissions":{"deny":["Read"]}}"#,
        );
        write_file(&repo.join("broken/.claude/settings.json"), "{not json");
        let args = trust_args(Some(false), &repo.join("app"));
        assert_eq!(
            args[..4],
            [
                "--setting-sources",
                "user",
                "--strict-mcp-config",
                "--settings"
            ]
        );
        let kept: Value = serde_json::from_str(&args[4]).unwrap();
        assert_eq!(
            kept,
            json!({"permissions": {"deny": ["Write", "Bash(rm:*)"], "ask": ["WebFetch"]}})
        );
        assert_eq!(trust_args(Some(false), &repo.join("broken")).len(), 5);
    }
}
