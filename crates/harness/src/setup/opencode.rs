//! OpenCode: npm (`opencode-ai`, a native binary per OS inside), or its install script and
//! Homebrew. `opencode auth list` prints the stored credentials ("└  1 credentials") and the
//! providers its environment variables sign in ("1 environment variable"), checked on 1.18.33;
//! with neither it may still answer through a provider its `opencode.json` sets up, or its own
//! free models, so that is "unknown", never "signed out".

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
    sign_in_args: &["auth", "list"],
    sign_in_env: &[
        ("NO_COLOR", "1"),
        ("OPENCODE_DISABLE_AUTOUPDATE", "1"),
        ("OPENCODE_DISABLE_MODELS_FETCH", "1"),
    ],
    classify,
};

fn classify(out: &CheckOutput, _env: EnvLookup) -> SignIn {
    let counted = |what: &str| {
        out.stdout.lines().any(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            words
                .windows(2)
                .any(|w| w[1].starts_with(what) && w[0].parse::<u32>().is_ok_and(|n| n > 0))
        })
    };
    match out.code == Some(0) && (counted("credential") || counted("environment")) {
        true => SignIn::SignedIn,
        false => SignIn::Unknown,
    }
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
    fn a_credential_or_a_variable_signs_it_in_and_none_is_unknown() {
        let out = |stdout: &str| CheckOutput {
            code: Some(0),
            stdout: stdout.into(),
            stderr: String::new(),
        };
        let none = "┌  Credentials ~/d/opencode/auth.json\n│\n└  0 credentials\n";
        assert_eq!(classify(&out(none), &|_| None), SignIn::Unknown);
        let env = format!("{none}\n┌  Environment\n│\n●  Anthropic ANTHROPIC_API_KEY\n│\n└  1 environment variable\n");
        assert_eq!(classify(&out(&env), &|_| None), SignIn::SignedIn);
        assert_eq!(
            classify(&out("└  2 credentials\n"), &|_| None),
            SignIn::SignedIn
        );
    }
}
