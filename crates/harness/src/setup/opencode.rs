//! OpenCode: npm (`opencode-ai`, a native binary per OS inside), or Homebrew. Its stored
//! credentials are `$XDG_DATA_HOME/opencode/auth.json` (`~/.local/share/…`), one entry per
//! provider, which `opencode auth list` prints (checked on 1.18.33). The check reads that file
//! rather than starting OpenCode: every OpenCode command opens its database, and the first ones
//! in a new home racing each other to create it fail ("Failed query: CREATE TABLE", seen when
//! the check ran beside Settings ▸ Agents asking it). With no credential it may still answer
//! through a provider its `opencode.json` sets up, a key in the environment, or its own free
//! models, so that is "unknown", never "signed out".

use std::path::PathBuf;

use super::{CheckOutput, EnvLookup, InstallCommand, Os, SetupFacts, SignIn};

pub(super) const FACTS: SetupFacts = SetupFacts {
    commands: &[
        (
            &[Os::Macos, Os::Linux, Os::Windows],
            InstallCommand {
                label: "npm",
                command: "npm install -g opencode-ai",
                needs: Some("Needs Node.js"),
            },
        ),
        (
            &[Os::Macos, Os::Linux],
            InstallCommand {
                label: "Homebrew",
                command: "brew install sst/tap/opencode",
                needs: None,
            },
        ),
    ],
    page: "https://opencode.ai/docs",
    sign_in_command: "opencode auth login",
    sign_in_how: "run `opencode auth login` in a terminal",
    sign_in_args: &[],
    sign_in_env: &[],
    classify,
};

fn classify(_out: &CheckOutput, env: EnvLookup) -> SignIn {
    let stored = auth_file(env)
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|auth| auth.as_object().map(|providers| !providers.is_empty()));
    match stored {
        Some(true) => SignIn::SignedIn,
        _ => SignIn::Unknown,
    }
}

/// `auth.json` under OpenCode's data folder, as it resolves that folder on every OS.
fn auth_file(env: EnvLookup) -> Option<PathBuf> {
    let data = match env("XDG_DATA_HOME").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env("HOME").filter(|v| !v.is_empty())?).join(".local/share"),
    };
    Some(data.join("opencode").join("auth.json"))
}

/// A turn's error (lowercased) that says there is no key.
pub(super) fn says_signed_out(lower: &str) -> bool {
    [
        "api key is missing",
        "no api key",
        "authentication failed",
        "unauthorized",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stored_credential_signs_it_in_and_none_is_unknown() {
        let home = tempfile::tempdir().unwrap();
        let home_dir = home.path().to_string_lossy().into_owned();
        let env = move |k: &str| (k == "HOME").then(|| home_dir.clone());
        let check = || classify(&CheckOutput::default(), &env);
        assert_eq!(check(), SignIn::Unknown);
        let dir = home.path().join(".local/share/opencode");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("auth.json"), "{}").unwrap();
        assert_eq!(check(), SignIn::Unknown);
        std::fs::write(
            dir.join("auth.json"),
            r#"{"anthropic":{"type":"api","key":"k"}}"#,
        )
        .unwrap();
        assert_eq!(check(), SignIn::SignedIn);
    }
}
