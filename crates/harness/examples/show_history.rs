//! Print what a history reader makes of a native session file, as JSON:
//! `cargo run -p forkhost-harness --example show_history -- claude|codex|pi FILE`.

use forkhost_harness::{open_reader, HarnessKind};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [kind, path] = &args[..] else {
        eprintln!("usage: show_history claude|codex|pi FILE");
        std::process::exit(2);
    };
    let kind: HarnessKind = kind.parse().unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    match open_reader(kind, path).and_then(|r| r.history()) {
        Ok(history) => println!("{}", serde_json::to_string_pretty(&history).unwrap()),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
