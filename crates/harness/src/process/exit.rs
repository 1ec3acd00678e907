//! How a process ended, in the words every error message uses.

use std::process::ExitStatus;

/// "exited with code 3", "killed by signal 9 (SIGKILL)".
pub fn describe(status: ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        words(status.code(), status.signal(), status.core_dumped(), HEX)
    }
    #[cfg(not(unix))]
    {
        words(status.code(), None, false, HEX)
    }
}

const HEX: Hex = if cfg!(windows) {
    Hex::Negative
} else {
    Hex::Never
};

/// Whether a code is shown in hex: Windows' crash codes are NTSTATUS values
/// (`0xC0000005`), meaningless as negative decimals.
#[derive(Clone, Copy)]
pub(super) enum Hex {
    Never,
    Negative,
}

pub(super) fn words(code: Option<i32>, signal: Option<i32>, core: bool, hex: Hex) -> String {
    match (code, signal) {
        (Some(code), _) if code < 0 && matches!(hex, Hex::Negative) => {
            format!("exited with code {:#010X}", code as u32)
        }
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => {
            let mut text = format!("killed by signal {signal}");
            if let Some(name) = signal_name(signal) {
                text.push_str(&format!(" ({name})"));
            }
            if core {
                text.push_str(", core dumped");
            }
            text
        }
        (None, None) => "exited".to_owned(),
    }
}

/// Names of the signals whose numbers Linux and macOS share.
fn signal_name(signal: i32) -> Option<&'static str> {
    Some(match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        6 => "SIGABRT",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        15 => "SIGTERM",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_signals_in_plain_words() {
        assert_eq!(
            words(Some(3), None, false, Hex::Never),
            "exited with code 3"
        );
        assert_eq!(
            words(Some(0), None, false, Hex::Negative),
            "exited with code 0"
        );
        assert_eq!(
            words(None, Some(9), false, Hex::Never),
            "killed by signal 9 (SIGKILL)"
        );
        assert_eq!(
            words(None, Some(11), true, Hex::Never),
            "killed by signal 11 (SIGSEGV), core dumped"
        );
        assert_eq!(
            words(None, Some(64), false, Hex::Never),
            "killed by signal 64"
        );
        assert_eq!(words(None, None, false, Hex::Never), "exited");
    }

    #[test]
    fn windows_crash_codes_read_as_ntstatus() {
        // STATUS_ACCESS_VIOLATION as `ExitStatus::code` gives it on Windows.
        assert_eq!(
            words(Some(0xC000_0005_u32 as i32), None, false, Hex::Negative),
            "exited with code 0xC0000005"
        );
        assert_eq!(
            words(Some(1), None, false, Hex::Negative),
            "exited with code 1"
        );
    }

    #[cfg(unix)]
    #[test]
    fn describes_real_statuses() {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(describe(ExitStatus::from_raw(3 << 8)), "exited with code 3");
        assert_eq!(
            describe(ExitStatus::from_raw(9)),
            "killed by signal 9 (SIGKILL)"
        );
    }
}
