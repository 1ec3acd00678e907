//! Claude Code: installed natively or from npm; `claude auth status` prints JSON with
//! `loggedIn` and exits 1 when signed out (checked on 2.1.197 with an empty HOME: `{"loggedIn":
//! false, "authMethod": "none", "apiProvider": "firstParty"}`; with an API key in the
//! environment `loggedIn` is true and it exits 0).

use super::{CheckOutput, EnvLookup, InstallCommand, Os, SetupFacts, SignIn};

const UNIX: &[Os] = &[Os::Macos, Os::Linux];
const ALL: &[Os] = &[Os::Macos, Os::Linux, Os::Windows];

pub(super) const FACTS: SetupFacts = SetupFacts {
    commands: &[
        (
            UNIX,
            InstallCommand {
                label: "Native installer",
                command: "curl -fsSL https://claude.ai/install.sh | bash",
                needs: None,
            },
        ),
        (
            &[Os::Windows],
            InstallCommand {
                label: "Native installer (PowerShell)",
                command: "irm https://claude.ai/install.ps1 | iex",
                needs: None,
            },
        ),
        (
            ALL,
            InstallCommand {
                label: "npm",
                command: "npm install -g @anthropic-ai/claude-code",
                needs: Some("Needs Node.js 18 or newer"),
            },
        ),
    ],
    page: "https://docs.anthropic.com/en/docs/claude-code/setup",
    sign_in_command: "claude auth login",
    sign_in_how: "run `claude auth login` in a terminal",
    sign_in_args: &["auth", "status"],
    // Only the status; no telemetry or update traffic for a check.
    sign_in_env: &[("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")],
    classify,
};

fn classify(out: &CheckOutput, _env: EnvLookup) -> SignIn {
    let Ok(status) = serde_json::from_str::<serde_json::Value>(out.stdout.trim()) else {
        return SignIn::Unknown;
    };
    match status["loggedIn"].as_bool() {
        Some(true) => SignIn::SignedIn,
        // Bedrock, Vertex and the like sign in elsewhere: only Anthropic's own is judged.
        Some(false)
            if status["apiProvider"]
                .as_str()
                .is_none_or(|p| p == "firstParty") =>
        {
            SignIn::SignedOut
        }
        _ => SignIn::Unknown,
    }
}

/// A turn's error (lowercased) that says there is no login or a bad key.
pub(super) fn says_signed_out(lower: &str) -> bool {
    [
        "not logged in",
        "invalid api key",
        "please run /login",
        "oauth token has expired",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify_(out: &CheckOutput) -> SignIn {
        classify(out, &|_| None)
    }

    fn out(code: i32, stdout: &str) -> CheckOutput {
        CheckOutput {
            code: Some(code),
            stdout: stdout.into(),
            stderr: String::new(),
        }
    }

    #[test]
    fn auth_status_is_read_from_its_json() {
        let signed_out =
            r#"{"loggedIn": false, "authMethod": "none", "apiProvider": "firstParty"}"#;
        assert_eq!(classify_(&out(1, signed_out)), SignIn::SignedOut);
        let key = r#"{"loggedIn": true, "authMethod": "api_key", "apiProvider": "firstParty"}"#;
        assert_eq!(classify_(&out(0, key)), SignIn::SignedIn);
        let bedrock = r#"{"loggedIn": false, "apiProvider": "bedrock"}"#;
        assert_eq!(classify_(&out(1, bedrock)), SignIn::Unknown);
        assert_eq!(
            classify_(&out(1, "error: unknown command 'auth'")),
            SignIn::Unknown
        );
    }
}
