//! A turn as typed on the command line (TURN: a 1-based number or a host turn id), and the
//! fork point a command names with `--after`, `--before` or `--latest`.

use forkhost_core::{ForkAt, HostError, TurnRef};

/// `--after T`, `--before T` or `--latest`, exactly one.
pub(crate) fn fork_at(
    after: Option<String>,
    before: Option<String>,
    latest: bool,
) -> Result<ForkAt, HostError> {
    match (after, before, latest) {
        (Some(t), None, false) => Ok(ForkAt::After(turn_ref(&t)?)),
        (None, Some(t), false) => Ok(ForkAt::Before(turn_ref(&t)?)),
        (None, None, true) => Ok(ForkAt::Latest),
        _ => Err(HostError::InvalidInput(
            "give exactly one of --after, --before, --latest".into(),
        )),
    }
}

/// TURN is a 1-based number or a host turn id; 0 and negatives are refused here.
pub(crate) fn turn_ref(text: &str) -> Result<TurnRef, HostError> {
    match TurnRef::parse(text) {
        TurnRef::Number(n) if n < 1 => Err(HostError::InvalidInput(format!(
            "turn numbers start at 1 (got {n})"
        ))),
        TurnRef::Id(id) if id.is_empty() => Err(HostError::InvalidInput("an empty turn".into())),
        r => Ok(r),
    }
}
