//! Windows: the app's folder goes on the *user* `Path` (`HKCU\\Environment`, kept
//! `REG_EXPAND_SZ`), written by the system's PowerShell so this is plain std code that compiles
//! and is unit-tested everywhere (only the script text is built here; running it is Windows').

use std::path::PathBuf;
use std::process::{Command, Stdio};

use base64::Engine as _;

use super::error::CliToolError;
use super::version::hide_console;

/// A user variable set and removed again only to make Windows broadcast `WM_SETTINGCHANGE`.
const WINDOWS_REFRESH_VAR: &str = "FORKHOST_PATH_REFRESH";

/// The PowerShell exit code of the Path write when the value changed since it was read.
const WINDOWS_PATH_CHANGED: i32 = 3;

/// Path entries name the same folder: case-insensitive, trailing slashes and quotes ignored.
pub fn same_windows_dir(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        s.trim()
            .trim_matches('"')
            .trim_end_matches(['\\', '/'])
            .replace('/', "\\")
            .to_lowercase()
    };
    let (a, b) = (norm(a), norm(b));
    !a.is_empty() && a == b
}

pub fn windows_path_has(value: &str, dir: &str) -> bool {
    value.split(';').any(|e| same_windows_dir(e, dir))
}

/// The user Path with `dir` appended; `None` when it is there already.
pub fn windows_path_with(value: Option<&str>, dir: &str) -> Option<String> {
    let value = value.unwrap_or("");
    if windows_path_has(value, dir) {
        return None;
    }
    let kept = value.trim_end_matches([';', ' ']);
    Some(if kept.trim().is_empty() {
        dir.to_owned()
    } else {
        format!("{kept};{dir}")
    })
}

/// The user Path without `dir` (every other entry kept as it was written); `None` when `dir`
/// is not in it.
pub fn windows_path_without(value: &str, dir: &str) -> Option<String> {
    if !windows_path_has(value, dir) {
        return None;
    }
    Some(
        value
            .split(';')
            .filter(|e| !same_windows_dir(e, dir))
            .collect::<Vec<_>>()
            .join(";"),
    )
}

/// A PowerShell single-quoted string. PowerShell also ends such strings at the typographic
/// single quotes, so those are doubled too.
pub fn ps_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        if matches!(c, '\'' | '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}') {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

fn ps_value(v: Option<&str>) -> String {
    v.map(ps_quote).unwrap_or_else(|| "$null".into())
}

/// Prints the raw user Path (`%VARS%` unexpanded): `=<value>`, or `-` when there is none.
pub fn windows_read_path_script() -> String {
    [
        "$ErrorActionPreference = 'Stop'",
        "[Console]::OutputEncoding = New-Object System.Text.UTF8Encoding $false",
        "$key = [Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment', $false)",
        "$value = $null",
        "if ($key -ne $null) { $value = $key.GetValue('Path', $null, 'DoNotExpandEnvironmentNames'); $key.Close() }",
        "if ($value -eq $null) { [Console]::Out.Write('-') } else { [Console]::Out.Write('=' + $value) }",
    ]
    .join("\n")
}

/// The answer of [`windows_read_path_script`].
pub fn parse_read_path_output(out: &str) -> Option<Option<String>> {
    let out = out
        .trim_start_matches('\u{feff}')
        .trim_end_matches(['\r', '\n']);
    if out == "-" {
        return Some(None);
    }
    out.strip_prefix('=').map(|v| Some(v.to_owned()))
}

/// Sets the user Path to `value` (`None` deletes it) as `REG_EXPAND_SZ`, only if it still is
/// `expected` (exit 3 otherwise), then broadcasts `WM_SETTINGCHANGE` ("Environment").
pub fn windows_write_path_script(expected: Option<&str>, value: Option<&str>) -> String {
    let write = match value {
        Some(v) => format!(
            "$key.SetValue('Path', {}, [Microsoft.Win32.RegistryValueKind]::ExpandString)",
            ps_quote(v)
        ),
        None => "$key.DeleteValue('Path', $false)".into(),
    };
    [
        "$ErrorActionPreference = 'Stop'".to_owned(),
        "$key = [Microsoft.Win32.Registry]::CurrentUser.CreateSubKey('Environment')".to_owned(),
        "try {".to_owned(),
        "  $current = $key.GetValue('Path', $null, 'DoNotExpandEnvironmentNames')".to_owned(),
        format!("  $expected = {}", ps_value(expected)),
        format!("  if ($current -cne $expected) {{ exit {WINDOWS_PATH_CHANGED} }}"),
        format!("  {write}"),
        "} finally { $key.Close() }".to_owned(),
        // Raw registry writes tell nobody; .NET's SetEnvironmentVariable for the user scope
        // broadcasts WM_SETTINGCHANGE "Environment", so Explorer (and terminals started from
        // it) pick up the new Path. A dummy variable is set and removed for that.
        format!("[Environment]::SetEnvironmentVariable('{WINDOWS_REFRESH_VAR}', '1', 'User')"),
        format!("[Environment]::SetEnvironmentVariable('{WINDOWS_REFRESH_VAR}', $null, 'User')"),
    ]
    .join("\n")
}

/// PowerShell's `-EncodedCommand`: base64 of the script's UTF-16LE bytes (no quoting issues).
pub fn encode_powershell(script: &str) -> String {
    let bytes: Vec<u8> = script.encode_utf16().flat_map(u16::to_le_bytes).collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn powershell_exe() -> PathBuf {
    // The system's own PowerShell, not whatever a PATH entry calls `powershell.exe`.
    std::env::var_os("SystemRoot")
        .map(|root| PathBuf::from(root).join(r"System32\WindowsPowerShell\v1.0\powershell.exe"))
        .filter(|p| p.is_file())
        .unwrap_or_else(|| PathBuf::from("powershell.exe"))
}

pub(super) fn run_powershell(script: &str) -> Result<String, CliToolError> {
    let mut cmd = Command::new(powershell_exe());
    cmd.args([
        "-NoProfile",
        "-NonInteractive",
        "-ExecutionPolicy",
        "Bypass",
        "-EncodedCommand",
        &encode_powershell(script),
    ])
    .stdin(Stdio::null());
    hide_console(&mut cmd);
    let out = cmd
        .output()
        .map_err(|e| CliToolError::UserPath(format!("Could not run PowerShell: {e}")))?;
    if out.status.code() == Some(WINDOWS_PATH_CHANGED) {
        return Err(CliToolError::UserPath(
            "Your Path changed while Forkhost was updating it; nothing was written. Try again."
                .into(),
        ));
    }
    if !out.status.success() {
        return Err(CliToolError::UserPath(format!(
            "PowerShell could not update your Path: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
