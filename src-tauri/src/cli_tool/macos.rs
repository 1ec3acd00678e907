//! macOS: `/usr/local/bin` needs an administrator when it is missing or not writable; the
//! link is then made through `osascript … with administrator privileges` (the system prompt).

pub(super) fn sh_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// `osascript` arguments that run `command` through `/bin/sh` as an administrator; the
/// command is put in an AppleScript string literal (backslashes and quotes escaped).
pub fn osascript_args(command: &str) -> Vec<String> {
    let literal = command.replace('\\', "\\\\").replace('"', "\\\"");
    vec![
        "-e".into(),
        format!("do shell script \"{literal}\" with administrator privileges"),
    ]
}
