//! How the CLI prints: one JSON document with `--json`, readable text otherwise.

use std::process::ExitCode;

use forkhost_core::HostError;

/// A command's result in both forms.
pub struct Printed {
    json: serde_json::Value,
    text: String,
}

impl Printed {
    pub fn new(json: serde_json::Value, text: String) -> Self {
        Printed { json, text }
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

/// One line per thread: id, harness, state, title, lineage.
pub fn thread_line(t: &forkhost_core::view::ThreadView) -> String {
    let lineage = t
        .fork
        .as_ref()
        .map(|f| format!("  ← {} {}", f.boundary, f.source_thread))
        .unwrap_or_default();
    format!(
        "{}  {:<6} {:<8} {}{lineage}",
        t.id, t.harness, t.state, t.title
    )
}

/// A thread and its conversation, for reading in a terminal.
pub fn thread_text(d: &forkhost_core::view::ThreadDetail) -> String {
    let mut out = thread_line(&d.thread);
    for turn in &d.turns {
        out.push_str(&format!("\n— turn {} ({})", turn.number, turn.id));
        for m in &turn.messages {
            out.push_str(&format!("\n  {}: {}", m.role, m.text));
        }
    }
    out
}
