//! The permission words a harness accepts: sorting a sandbox word given as a mode, and
//! refusing words the harness does not know (pure checks, used by `create` and `set_mode`).

use forkhost_harness::{HarnessKind, PermissionMode};

use crate::base::error::{HostError, HostResult};

/// Refuses words the harness does not accept, naming the ones it does.
pub(crate) fn checked_permissions(kind: HarnessKind, mode: &PermissionMode) -> HostResult<()> {
    let choices = kind.harness().permission_choices();
    if choices.accepts(mode) {
        return Ok(());
    }
    if choices.modes.is_empty() && choices.sandboxes.is_empty() {
        return Err(HostError::InvalidInput(format!(
            "{kind} runs its tools without asking: it has no permission modes"
        )));
    }
    let words = |list: &[&str]| {
        if list.is_empty() {
            "none".to_owned()
        } else {
            list.join(", ")
        }
    };
    Err(HostError::InvalidInput(format!(
        "{kind} does not accept that permission mode; modes: {}; sandboxes: {}",
        words(choices.modes),
        words(choices.sandboxes)
    )))
}

/// Lets a user name a sandbox where a mode is asked for (`forkhost mode T read-only` on a
/// Codex thread): a word only the harness's sandboxes know moves to `sandbox` when none is
/// given. Anything else is left for validation to accept or refuse.
pub(crate) fn sorted(kind: HarnessKind, mut permissions: PermissionMode) -> PermissionMode {
    let choices = kind.harness().permission_choices();
    let sandbox_word = permissions
        .mode
        .as_deref()
        .is_some_and(|m| choices.sandboxes.contains(&m) && !choices.modes.contains(&m));
    if sandbox_word && permissions.sandbox.is_none() {
        permissions.sandbox = permissions.mode.take();
    }
    permissions
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mode(mode: Option<&str>, sandbox: Option<&str>) -> PermissionMode {
        PermissionMode {
            mode: mode.map(Into::into),
            sandbox: sandbox.map(Into::into),
        }
    }

    #[test]
    fn a_sandbox_word_given_as_mode_is_a_sandbox() {
        let codex = HarnessKind::Codex;
        assert_eq!(
            sorted(codex, mode(Some("read-only"), None)),
            mode(None, Some("read-only"))
        );
        assert_eq!(
            sorted(codex, mode(Some("never"), Some("read-only"))),
            mode(Some("never"), Some("read-only"))
        );
        // A harness without sandboxes keeps its words where they are.
        assert_eq!(
            sorted(HarnessKind::Pi, mode(Some("read-only"), None)),
            mode(Some("read-only"), None)
        );
    }

    #[test]
    fn unknown_words_are_refused_with_the_accepted_ones() {
        let err = checked_permissions(HarnessKind::Codex, &mode(Some("yolo"), None)).unwrap_err();
        assert_eq!(err.code(), "invalid_input");
        assert!(
            err.to_string().contains("untrusted, on-request, never"),
            "{err}"
        );
        let err = checked_permissions(HarnessKind::Pi, &mode(Some("default"), None)).unwrap_err();
        assert!(err.to_string().contains("without asking"), "{err}");
        assert!(checked_permissions(HarnessKind::Pi, &PermissionMode::default()).is_ok());
    }
}
