//! Codex's side of folder trust (docs/harness-behaviour.md "Folder trust: what each harness
//! can hold back"). Codex loads a project's `.codex/config.toml` layers whenever *its own*
//! `config.toml` trusts the project (a user who once accepted Codex's trust screen), and no
//! `-c` override changes that: verified with 0.171.0, `-c projects."<root>".trust_level=
//! "untrusted"` and `-c mcp_servers={}` both still start a project MCP server. What does hold
//! is a session override per server, `-c mcp_servers.<name>.enabled=false`, above the project
//! layer. So for a folder the user does not trust Forkhost disables every MCP server the
//! project layers define, by name, and refuses in words to start Codex at all when those
//! layers set anything else it cannot hold back (hooks, sandbox or approval defaults, model
//! providers, exec-policy rules): starting it silently trusted is never an option.

use std::path::{Path, PathBuf};

use crate::contract::read_config;
use crate::{HarnessError, HarnessResult};

/// Project config keys Codex may apply without running anything of the project's: they pick
/// a model or shape the display. Every other key (sandbox and approval defaults, `notify`,
/// `hooks`, `model_providers`, `shell_environment_policy`, profiles, features, …) refuses.
const HARMLESS: &[&str] = &[
    "model",
    "model_reasoning_effort",
    "model_reasoning_summary",
    "model_verbosity",
    "personality",
    "hide_agent_reasoning",
    "show_raw_agent_reasoning",
    "file_opener",
    "tui",
];

/// The `codex app-server` arguments for `trusted` in `cwd`: none when trusted or nothing to
/// trust; for an untrusted folder, each project MCP server disabled, or `InvalidInput` saying
/// what Codex would still load.
pub(crate) fn trust_args(trusted: Option<bool>, cwd: &Path) -> HarnessResult<Vec<String>> {
    if trusted != Some(false) {
        return Ok(Vec::new());
    }
    let mut servers = Vec::new();
    let mut kept = Vec::new();
    for dir in project_dirs(cwd) {
        let rules = dir.join("rules");
        if rules.exists() {
            kept.push(format!("exec-policy rules in {}", rules.display()));
        }
        // Hooks run commands at session start and around tools; no `-c` holds them back.
        let hooks = dir.join("hooks.json");
        if std::fs::symlink_metadata(&hooks).is_ok() {
            kept.push(format!("hooks in {}", hooks.display()));
        }
        let config = dir.join("config.toml");
        if !config.exists() {
            continue;
        }
        let shown = config.display();
        let table = read(&config).map_err(|why| {
            HarnessError::InvalidInput(format!(
                "codex cannot be started without the project config {shown} ({why}); trust the \
                 folder, or fix or remove that file"
            ))
        })?;
        for (key, value) in &table {
            match key.as_str() {
                "mcp_servers" => {
                    for (name, server) in value.as_table().into_iter().flatten() {
                        servers.push(Server {
                            name: server_name(name, &config)?,
                            transport: transport(server),
                        });
                    }
                }
                key if HARMLESS.contains(&key) => {}
                key => kept.push(format!("{key} in {shown}")),
            }
        }
    }
    if !kept.is_empty() {
        return Err(HarnessError::InvalidInput(format!(
            "codex cannot hold back this project's config ({}): Codex applies it whenever its \
             own config trusts the folder. Trust the folder, or remove those settings",
            kept.join(", ")
        )));
    }
    Ok(disabled(&servers))
}

/// The arguments for a Codex process that runs no turn in `cwd` (a cold native fork, the seed
/// of a conversation continued in Codex), a folder whose trust decision is `trusted`: every
/// project MCP server disabled whatever the trust (the process needs none), and in a folder
/// the user does not trust the runtime's refusal ([`trust_args`]) where the project layer holds
/// what Codex cannot be held back from (review M-2).
pub(crate) fn no_turn_args(trusted: Option<bool>, cwd: &Path) -> HarnessResult<Vec<String>> {
    trust_args(trusted, cwd)?;
    Ok(no_project_servers(cwd))
}

/// For a process that runs no turn (a cold native fork): every project MCP server of `cwd`
/// disabled, trusted or not, since the process needs none; a file that does not parse adds
/// nothing (Codex refuses it too).
pub(crate) fn no_project_servers(cwd: &Path) -> Vec<String> {
    let mut servers = Vec::new();
    for dir in project_dirs(cwd) {
        let config = dir.join("config.toml");
        let Ok(table) = read(&config) else { continue };
        let listed = table.get("mcp_servers").and_then(|v| v.as_table());
        for (name, server) in listed.into_iter().flatten() {
            if let Ok(name) = server_name(name, &config) {
                servers.push(Server {
                    name,
                    transport: transport(server),
                });
            }
        }
    }
    disabled(&servers)
}

/// A project MCP server to disable: its name, and the key and value that make its transport
/// (`command` for stdio, `url` for HTTP).
struct Server {
    name: String,
    transport: Option<(&'static str, toml::Value)>,
}

/// The transport key of a server's table, with its value.
fn transport(server: &toml::Value) -> Option<(&'static str, toml::Value)> {
    ["command", "url"]
        .into_iter()
        .find_map(|key| Some((key, server.get(key)?.clone())))
}

/// `-c mcp_servers.<name>.enabled=false` for each server, after the server's own transport key
/// and value (`-c mcp_servers.<name>.command="sh"`). Codex loads a project layer only when its
/// own config trusts the folder; when it does not, an override of `enabled` alone makes a
/// server entry with no transport, and Codex refuses to start at all ("invalid transport in
/// mcp_servers.<name>"). Repeating the project's own transport keeps the entry valid either
/// way, and it stays disabled: nothing of it runs.
fn disabled(servers: &[Server]) -> Vec<String> {
    let mut args: Vec<String> = Vec::new();
    for server in servers {
        let name = &server.name;
        let off = format!("mcp_servers.{name}.enabled=false");
        if args.contains(&off) {
            continue;
        }
        if let Some((key, value)) = &server.transport {
            args.extend(["-c".to_owned(), format!("mcp_servers.{name}.{key}={value}")]);
        }
        args.extend(["-c".to_owned(), off]);
    }
    args
}

/// A server name that a dotted `-c` path can carry (Codex's own rule for server names).
fn server_name(name: &str, config: &Path) -> HarnessResult<String> {
    let fits = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    match fits {
        true => Ok(name.to_owned()),
        false => Err(HarnessError::InvalidInput(format!(
            "codex cannot disable the project MCP server {name:?} of {}: its name cannot be \
             overridden; trust the folder, or rename or remove that server",
            config.display()
        ))),
    }
}

/// The `.codex` folders of `cwd` and every folder above it (a superset of the layers Codex
/// reads, between the project root and `cwd`), leaving out the user's own Codex home
/// (`$CODEX_HOME`, `~/.codex`).
fn project_dirs(cwd: &Path) -> Vec<PathBuf> {
    let own: Vec<PathBuf> = [
        std::env::var_os("CODEX_HOME").map(PathBuf::from),
        dirs::home_dir().map(|home| home.join(".codex")),
    ]
    .into_iter()
    .flatten()
    .collect();
    cwd.ancestors()
        .map(|dir| dir.join(".codex"))
        .filter(|dir| !own.contains(dir) && dir.is_dir())
        .collect()
}

/// A project config file as a table; one that cannot be read (too large among them) is
/// refused by the caller.
fn read(config: &Path) -> Result<toml::Table, String> {
    let text = read_config(config)?;
    text.parse::<toml::Table>()
        .map_err(|e| format!("it does not parse: {}", e.message()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::test_kit::write_file;

    #[test]
    fn untrusted_disables_every_project_server_and_trusted_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        write_file(
            &repo.join(".codex/config.toml"),
            "model = \"o3\"\n[mcp_servers.helper]\ncommand = \"sh\"\n",
        );
        write_file(
            &repo.join("app/.codex/config.toml"),
            "[mcp_servers.other]\ncommand = \"x\"\n[mcp_servers.helper]\ncommand = \"y\"\n",
        );
        let app = repo.join("app");
        assert!(trust_args(Some(true), &app).unwrap().is_empty());
        assert!(trust_args(None, &app).unwrap().is_empty());
        let args = trust_args(Some(false), &app).unwrap();
        assert_eq!(
            args,
            [
                "-c",
                "mcp_servers.helper.command=\"y\"",
                "-c",
                "mcp_servers.helper.enabled=false",
                "-c",
                "mcp_servers.other.command=\"x\"",
                "-c",
                "mcp_servers.other.enabled=false"
            ]
        );
        assert_eq!(no_project_servers(&app), args);
    }

    /// The first extra of issue 39: Codex not trusting the project itself (so not loading its
    /// layer) must still get a valid server entry from the override, with a transport.
    #[test]
    fn a_disabled_server_keeps_its_transport_so_the_entry_is_valid_without_the_layer() {
        let dir = tempfile::tempdir().unwrap();
        write_file(
            &dir.path().join(".codex/config.toml"),
            "[mcp_servers.web]\nurl = \"https://x.example/mcp\"\n[mcp_servers.odd]\nenabled = true\n",
        );
        let args = trust_args(Some(false), dir.path()).unwrap();
        assert_eq!(
            args,
            [
                "-c",
                "mcp_servers.odd.enabled=false",
                "-c",
                "mcp_servers.web.url=\"https://x.example/mcp\"",
                "-c",
                "mcp_servers.web.enabled=false"
            ]
        );
        // Every override parses as TOML, as Codex reads `-c` values.
        for pair in args.iter().filter(|a| *a != "-c") {
            let (_, value) = pair.split_once('=').unwrap();
            format!("v = {value}").parse::<toml::Table>().unwrap();
        }
    }

    /// Review M-2: a project `hooks.json` is refused in an untrusted folder, by the runtime and
    /// by the processes that run no turn (cold fork, seed); trusted, those only lose servers.
    #[test]
    fn untrusted_refuses_a_project_hooks_json_everywhere() {
        let dir = tempfile::tempdir().unwrap();
        write_file(&dir.path().join(".codex/hooks.json"), "{}");
        let refused = trust_args(Some(false), dir.path()).unwrap_err().to_string();
        assert!(refused.contains("hooks.json"), "{refused}");
        assert!(no_turn_args(Some(false), dir.path()).is_err());
        assert!(no_turn_args(Some(true), dir.path()).unwrap().is_empty());
        assert!(no_turn_args(None, dir.path()).unwrap().is_empty());
        write_file(
            &dir.path().join(".codex/config.toml"),
            "[mcp_servers.helper]\ncommand = \"sh\"\n",
        );
        assert!(no_turn_args(Some(true), dir.path())
            .unwrap()
            .contains(&"mcp_servers.helper.enabled=false".to_owned()));
    }

    #[test]
    fn untrusted_refuses_what_it_cannot_hold_back() {
        let dir = tempfile::tempdir().unwrap();
        write_file(
            &dir.path().join(".codex/config.toml"),
            "approval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n",
        );
        let refused = trust_args(Some(false), dir.path()).unwrap_err().to_string();
        assert!(refused.contains("approval_policy"), "{refused}");
        assert!(refused.contains("sandbox_mode"), "{refused}");
        write_file(
            &dir.path().join(".codex/config.toml"),
            "[mcp_servers.\"a.b\"]\n",
        );
        assert!(trust_args(Some(false), dir.path()).is_err());
        write_file(&dir.path().join(".codex/config.toml"), "not = [toml");
        assert!(trust_args(Some(false), dir.path()).is_err());
        assert!(no_project_servers(dir.path()).is_empty());
        std::fs::remove_file(dir.path().join(".codex/config.toml")).unwrap();
        write_file(
            &dir.path().join(".codex/rules/allow.rules"),
            "prefix_rule()",
        );
        assert!(trust_args(Some(false), dir.path()).is_err());
    }
}
