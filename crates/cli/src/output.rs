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
