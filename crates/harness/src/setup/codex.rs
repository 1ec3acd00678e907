//! Codex: npm, or Homebrew on macOS; `codex login status` exits 1 with "Not logged in" on
//! stderr when there is no login (checked on 0.171.0 with an empty CODEX_HOME) and 0 with "API
//! key configured" or "Logged in using ChatGPT". A config that picks another model provider
//! needs no login, though the status still says "Not logged in": it is not judged.

use std::path::PathBuf;

use super::{CheckOutput, EnvLookup, InstallCommand, Os, SetupFacts, SignIn};

pub(super) const FACTS: SetupFacts = SetupFacts {
    commands: &[
        (
            &[Os::Macos, Os::Linux, Os::Windows],
            InstallCommand {
                label: "npm",
                command: "npm install -g @openai/codex",
                needs: Some("Needs Node.js"),
            },
        ),
        (
            &[Os::Macos],
            InstallCommand {
                label: "Homebrew",
                command: "brew install --cask codex",
                needs: None,
            },
        ),
    ],
    page: "https://github.com/openai/codex",
    sign_in_command: "codex login",
    sign_in_how: "run `codex login` in a terminal",
    sign_in_args: &["login", "status"],
    sign_in_env: &[],
    classify,
};

fn classify(out: &CheckOutput, env: EnvLookup) -> SignIn {
    let text = format!("{}\n{}", out.stdout, out.stderr).to_lowercase();
    match out.code {
        Some(0) => SignIn::SignedIn,
        Some(_) if text.contains("not logged in") => {
            if custom_provider_configured(env) || key_in_environment(env) {
                SignIn::Unknown
            } else {
                SignIn::SignedOut
            }
        }
        _ => SignIn::Unknown,
    }
}

/// A key the user exported for Codex: it may be used without `codex login`.
fn key_in_environment(env: EnvLookup) -> bool {
    ["OPENAI_API_KEY", "CODEX_API_KEY"]
        .iter()
        .any(|v| env(v).is_some_and(|s| !s.is_empty()))
}

/// Whether `config.toml` picks a model provider other than OpenAI's (a local model, a proxy):
/// then its own key or none is used, not the login.
fn custom_provider_configured(env: EnvLookup) -> bool {
    let Some(home) = env("CODEX_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".codex")))
        .or_else(|| crate::home::home_dir().map(|h| h.join(".codex")))
    else {
        return false;
    };
    std::fs::read_to_string(home.join("config.toml"))
        .map(|text| top_level_provider(&text).is_some_and(|p| p != "openai"))
        .unwrap_or(false)
}

/// `model_provider = "…"` before the first table of a TOML file.
fn top_level_provider(toml: &str) -> Option<String> {
    for line in toml.lines().map(str::trim) {
        if line.starts_with('[') {
            return None;
        }
        let Some(rest) = line.strip_prefix("model_provider") else {
            continue;
        };
        let value = rest.trim_start().strip_prefix('=')?.trim();
        return Some(value.trim_matches(|c| c == '"' || c == '\'').to_owned());
    }
    None
}

/// A turn's error (lowercased) that says there is no login or key.
pub(super) fn says_signed_out(lower: &str) -> bool {
    [
        "not logged in",
        "401 unauthorized",
        "missing bearer",
        "incorrect api key",
        "codex login",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provider_picked_at_the_top_of_config_toml_is_found() {
        assert_eq!(
            top_level_provider(
                "model = \"m\"\nmodel_provider = \"fake\"\n[model_providers.fake]\n"
            ),
            Some("fake".into())
        );
        assert_eq!(
            top_level_provider("[profiles.x]\nmodel_provider = \"fake\"\n"),
            None
        );
        assert_eq!(top_level_provider("model = \"gpt\"\n"), None);
    }

    #[test]
    fn exit_zero_is_signed_in_and_other_failures_unknown() {
        let ok = CheckOutput {
            code: Some(0),
            stdout: String::new(),
            stderr: "API key configured - ***".into(),
        };
        let none = |_: &str| None;
        assert_eq!(classify(&ok, &none), SignIn::SignedIn);
        let crashed = CheckOutput {
            code: Some(1),
            stdout: String::new(),
            stderr: "Error loading configuration".into(),
        };
        assert_eq!(classify(&crashed, &none), SignIn::Unknown);
    }
}
