//! Pi: npm only (the maintained `@earendil-works` package needs Node.js 22.19 or newer). It
//! has no status command; `pi --list-models` prints "No models available. Use /login …" when
//! no provider has a key or login (checked on 1.6.0 with an empty agent folder: exit 0, the
//! words on stdout) and the models otherwise. `PI_OFFLINE=1` keeps it from fetching anything.

use super::{CheckOutput, EnvLookup, InstallCommand, Os, SetupFacts, SignIn};

pub(super) const FACTS: SetupFacts = SetupFacts {
    commands: &[(
        &[Os::Macos, Os::Linux, Os::Windows],
        InstallCommand {
            label: "npm",
            command: "npm install -g @earendil-works/pi-coding-agent",
            needs: Some("Needs Node.js 22.19 or newer"),
        },
    )],
    page: "https://www.npmjs.com/package/@earendil-works/pi-coding-agent",
    sign_in_command: "pi",
    sign_in_how: "run `pi` in a terminal and type `/login`",
    sign_in_args: &["--list-models"],
    sign_in_env: &[("PI_OFFLINE", "1"), ("PI_TELEMETRY", "0")],
    classify,
};

fn classify(out: &CheckOutput, _env: EnvLookup) -> SignIn {
    let stdout = out.stdout.trim_start();
    if stdout.starts_with("No models available") {
        SignIn::SignedOut
    } else if out.code == Some(0) && stdout.starts_with("provider") {
        SignIn::SignedIn
    } else {
        SignIn::Unknown
    }
}

/// A turn's error (lowercased) that says there is no key.
pub(super) fn says_signed_out(lower: &str) -> bool {
    ["no api key found", "no models available", "use /login"]
        .iter()
        .any(|w| lower.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify_(out: &CheckOutput) -> SignIn {
        classify(out, &|_| None)
    }

    #[test]
    fn the_model_list_tells_whether_a_provider_is_set_up() {
        let none = CheckOutput {
            code: Some(0),
            stdout: "No models available. Use /login to log into a provider".into(),
            stderr: String::new(),
        };
        assert_eq!(classify_(&none), SignIn::SignedOut);
        let some = CheckOutput {
            code: Some(0),
            stdout: "provider  model  context\nfake  fake-model  32K\n".into(),
            stderr: String::new(),
        };
        assert_eq!(classify_(&some), SignIn::SignedIn);
        assert_eq!(classify_(&CheckOutput::default()), SignIn::Unknown);
    }
}
