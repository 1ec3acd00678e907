//! How the CLI prints: one JSON document with `--json`, readable text otherwise.

use std::process::ExitCode;

use forkhost_core::{FoundBy, HarnessReport, HostError, SignIn, VersionSupport};

/// A command's result in both forms.
pub struct Printed {
    json: serde_json::Value,
    text: String,
    /// The command wrote its output itself (bytes, not a document): nothing more is printed.
    written: bool,
}

impl Printed {
    pub fn new(json: serde_json::Value, text: String) -> Self {
        Printed {
            json,
            text,
            written: false,
        }
    }

    /// For a command that wrote its own output on stdout.
    pub fn written() -> Self {
        Printed {
            json: serde_json::Value::Null,
            text: String::new(),
            written: true,
        }
    }
}

pub struct Output {
    json: bool,
}

impl Output {
    pub fn new(json: bool) -> Self {
        Output { json }
    }

    pub fn success(&self, printed: &Printed) -> ExitCode {
        if printed.written {
            return ExitCode::SUCCESS;
        }
        if self.json {
            println!("{}", printed.json);
        } else if !printed.text.is_empty() {
            println!("{}", printed.text);
        }
        ExitCode::SUCCESS
    }

    pub fn fail(&self, err: &HostError) -> ExitCode {
        if self.json {
            let doc =
                serde_json::json!({"error": {"code": err.code(), "message": err.to_string()}});
            println!("{doc}");
        } else {
            eprintln!("forkhost: {err} [{}]", err.code());
        }
        ExitCode::FAILURE
    }
}

/// A turn's result: the thread, and under `approvals` each request with its decision.
pub fn sent_printed(sent: crate::stream::Sent) -> Printed {
    let mut text = thread_text(&sent.detail);
    for a in &sent.approvals {
        text.push_str(&format!(
            "\napproval {}: {}",
            a.decision,
            crate::approve::describe(&a.request.subject)
        ));
    }
    Printed::new(
        serde_json::json!({ "thread": sent.detail, "approvals": sent.approvals }),
        text,
    )
}

pub fn thread_printed(detail: &forkhost_core::ThreadDetail) -> Printed {
    Printed::new(serde_json::json!({ "thread": detail }), thread_text(detail))
}

/// `doctor`: per harness its version and forks, where it was found and how, or why it is not
/// usable; then what else it needs on this OS.
pub fn doctor_text(harnesses: &[HarnessReport]) -> String {
    let mut out = Vec::new();
    for h in harnesses {
        match (&h.version, &h.capabilities, &h.error) {
            (Some(v), Some(c), _) => {
                // Only the exceptions are worth a word; a verified version says nothing.
                let support = match h.support {
                    Some(s) if s != VersionSupport::Verified => format!("  [{}]", s.describe()),
                    _ => String::new(),
                };
                let sign_in = if h.sign_in == Some(SignIn::SignedOut) {
                    "  [not signed in]"
                } else {
                    ""
                };
                out.push(format!(
                    "{:<7} {v:<10} forks: {}{support}{sign_in}",
                    h.name.as_str(),
                    c.boundaries.join(", ")
                ));
                if let Some(path) = &h.path {
                    out.push(format!("        {path}{}", found_by_text(h.found_by)));
                }
            }
            (_, _, Some(e)) => out.push(format!("{:<7} not usable: {e}", h.name.as_str())),
            _ => out.push(format!("{:<7} unknown", h.name.as_str())),
        }
        out.extend(h.notes.iter().map(|n| format!("        note: {n}")));
    }
    out.extend(next_steps(harnesses));
    out.join("\n")
}

/// The closing lines of `doctor`: for each missing or signed-out harness what to do, in the
/// words the app's first-run view uses.
fn next_steps(harnesses: &[HarnessReport]) -> Vec<String> {
    let steps: Vec<&str> = harnesses
        .iter()
        .filter_map(|h| h.next_step.as_deref())
        .collect();
    if steps.is_empty() {
        return Vec::new();
    }
    let mut out = vec![String::new(), "Next steps:".to_owned()];
    out.extend(steps.iter().map(|s| format!("  - {s}")));
    out
}

fn found_by_text(found_by: Option<FoundBy>) -> &'static str {
    match found_by {
        Some(FoundBy::Override) => " (from FORKHOST_*_BIN or the path saved in Settings)",
        Some(FoundBy::Path) => " (on PATH)",
        Some(FoundBy::LoginShell) => " (on the login shell's PATH)",
        Some(FoundBy::Fallback) => " (in a usual install folder, not on PATH)",
        None => "",
    }
}

/// One line per thread: id, harness, state, title, lineage.
pub fn thread_line(t: &forkhost_core::ThreadView) -> String {
    let lineage = t
        .fork
        .as_ref()
        .map(|f| format!("  ← {} {}", f.boundary, f.source_thread))
        .unwrap_or_default();
    // `as_str`: the padding applies to a `str`, not to every Display.
    format!(
        "{}  {:<6} {:<8} {}{lineage}",
        t.id,
        t.harness.as_str(),
        t.state.as_str(),
        one_line(&t.title)
    )
}

/// Text from a transcript or a title, safe on a terminal and on one line: escapes as
/// [`crate::approve::visible`] makes them (no escape sequence reaches the terminal: OSC 52
/// clipboard writes, title changes, screen rewrites; review L-5), and newlines as `\n`.
pub fn one_line(text: &str) -> String {
    crate::approve::visible(text)
        .replace('\n', "\\n")
        .replace('\t', " ")
}

/// A message's text for the terminal: escaped as [`crate::approve::visible`] makes it (its
/// newlines stay).
pub fn message_text(role: &str, text: &str) -> String {
    format!("\n  {role}: {}", crate::approve::visible(text))
}

/// A thread and its conversation, for reading in a terminal.
pub fn thread_text(d: &forkhost_core::ThreadDetail) -> String {
    let mut out = thread_line(&d.thread);
    let p = &d.thread.permissions;
    if p.mode.is_some() || p.sandbox.is_some() {
        let sandbox = p.sandbox.as_ref().map(|s| match p.sandbox_default {
            true => format!("{s} (config.toml's default)"),
            false => s.clone(),
        });
        let words: Vec<&str> = [p.mode.as_ref(), sandbox.as_ref()]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        out.push_str(&format!("\nmode: {}", words.join(" + ")));
    }
    if let Some(origin) = &d.moved_from {
        out.push_str(&format!(
            "\ncontinued from {} ({}) on {} after turn {}",
            one_line(&origin.title),
            origin.thread,
            origin.host.as_deref().unwrap_or("another machine"),
            origin.turns
        ));
    }
    for turn in &d.turns {
        out.push_str(&format!("\n— turn {} ({})", turn.number, turn.id));
        for m in &turn.messages {
            out.push_str(&message_text(&m.role, &m.text));
        }
    }
    out
}

/// `sessions`: one native session a line, with the thread that has it.
pub fn sessions_text(sessions: &[forkhost_core::DiscoveredSession]) -> String {
    sessions
        .iter()
        .map(|s| {
            format!(
                "{:<7} {}  {}{}",
                s.harness,
                one_line(&s.session_id),
                one_line(&s.path),
                s.thread_id
                    .as_ref()
                    .map(|t| format!("  (thread {t})"))
                    .unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Help and version print as usual; a usage error in `--json` mode is an `invalid_input` document.
pub fn usage_error(err: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    let wants_json = std::env::args().any(|a| a == "--json");
    if !wants_json
        || matches!(
            err.kind(),
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
        )
    {
        err.exit();
    }
    let message = err.render().to_string();
    let first = message.lines().next().unwrap_or("invalid arguments");
    usage_error_words(first.trim_start_matches("error: "))
}

pub fn usage_error_words(words: &str) -> ExitCode {
    Output::new(std::env::args().any(|a| a == "--json"))
        .fail(&HostError::InvalidInput(words.to_owned()))
}

/// `export`'s transcript in `format`: the JSON document or the Markdown.
pub fn export_printed(
    format: forkhost_core::ExportFormat,
    text: String,
) -> Result<Printed, HostError> {
    let json = match format {
        forkhost_core::ExportFormat::Json => {
            serde_json::from_str(&text).map_err(|e| HostError::Internal(e.to_string()))?
        }
        forkhost_core::ExportFormat::Markdown => serde_json::json!({ "markdown": text }),
    };
    // On a terminal the transcript's own escapes are shown, never sent (review L-5); into a
    // file or a pipe it goes as it is.
    let text = match std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        true => crate::approve::visible(&text),
        false => text,
    };
    Ok(Printed::new(json, text.trim_end().to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_text_and_titles_reach_the_terminal_escaped() {
        let shown = message_text("assistant", "a\x1b]52;c;Zm9v\x07\nb");
        assert!(
            !shown.contains('\x1b') && !shown.contains('\x07'),
            "{shown:?}"
        );
        assert_eq!(shown, "\n  assistant: a\\x1b]52;c;Zm9v\\x07\nb");
        let title = one_line("fix\nforkhost: the agent wants to run `ls`\x1b[2K");
        assert!(
            !title.contains('\n') && !title.contains('\x1b'),
            "{title:?}"
        );
    }

    fn report(name: &str) -> HarnessReport {
        HarnessReport {
            name: name.parse().unwrap(),
            path: None,
            version: None,
            capabilities: None,
            error: None,
            found_by: None,
            notes: Vec::new(),
            support: None,
            permission_modes: Vec::new(),
            sandboxes: Vec::new(),
            sign_in: None,
            next_step: None,
            install: forkhost_core::harnesses::InstallView {
                commands: Vec::new(),
                page: "https://example.org".into(),
                sign_in_command: "x".into(),
            },
        }
    }

    #[test]
    fn doctor_says_where_and_why() {
        let mut claude = report("claude");
        claude.path = Some(r"C:\Users\me\AppData\Roaming\npm\claude.cmd".into());
        claude.version = Some("2.1.400".into());
        claude.capabilities = Some(forkhost_harness::Capabilities {
            boundaries: vec!["after".into(), "before".into(), "latest".into()],
            granularity: "turn".into(),
            eager_fork: false,
            note: None,
            snapshots: false,
        });
        claude.found_by = Some(FoundBy::Fallback);
        claude.support = Some(VersionSupport::NewerThanTested);
        claude.notes = vec!["Claude Code on Windows needs Git Bash, and none was found".into()];
        let mut pi = report("pi");
        pi.error = Some(
            "pi: `pi` is not on PATH (3 folders searched) and FORKHOST_PI_BIN is not set; found `pi` at C:\\npm\\pi but it is a shell script".into(),
        );
        let text = doctor_text(&[claude, pi]);
        assert_eq!(
            text,
            [
                "claude  2.1.400    forks: after, before, latest  [newer than tested]",
                r"        C:\Users\me\AppData\Roaming\npm\claude.cmd (in a usual install folder, not on PATH)",
                "        note: Claude Code on Windows needs Git Bash, and none was found",
                r"pi      not usable: pi: `pi` is not on PATH (3 folders searched) and FORKHOST_PI_BIN is not set; found `pi` at C:\npm\pi but it is a shell script",
            ]
            .join("\n")
        );
    }

    #[test]
    fn doctor_ends_with_the_next_step_of_each_missing_or_signed_out_harness() {
        let mut codex = report("codex");
        codex.path = Some("/opt/codex".into());
        codex.version = Some("0.171.0".into());
        codex.capabilities = Some(forkhost_harness::Capabilities {
            boundaries: vec!["after".into()],
            granularity: "turn".into(),
            eager_fork: true,
            note: None,
            snapshots: false,
        });
        codex.sign_in = Some(SignIn::SignedOut);
        codex.next_step =
            Some("Codex is installed but not signed in: run `codex login` in a terminal.".into());
        let mut pi = report("pi");
        pi.error = Some("not found".into());
        pi.next_step = Some("Pi is not installed: install it with `npm install -g @earendil-works/pi-coding-agent` in a terminal (or see https://example.org).".into());
        let ready = report("claude");
        let text = doctor_text(&[ready.clone(), codex, pi]);
        let tail: Vec<&str> = text.lines().skip_while(|l| *l != "Next steps:").collect();
        assert_eq!(
            tail,
            [
                "Next steps:",
                "  - Codex is installed but not signed in: run `codex login` in a terminal.",
                "  - Pi is not installed: install it with `npm install -g @earendil-works/pi-coding-agent` in a terminal (or see https://example.org).",
            ]
        );
        assert!(text.contains("forks: after  [not signed in]"), "{text}");
        assert!(!doctor_text(&[ready]).contains("Next steps"));
    }
}
