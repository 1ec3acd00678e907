//! A terminal's output on its way to the window that shows it: decoded as UTF-8 across chunk
//! boundaries, sent as `terminal-output` events, and its end as `terminal-exit`.

use std::io::Read;
use std::sync::mpsc;

use tauri::AppHandle;

use crate::event_list::{channel, emit_to};
use crate::event_payloads::{TerminalExit, TerminalOutput};

/// Where a terminal's output and end go: its window (a test's channel).
pub(super) trait Sink: Send + Sync + 'static {
    fn output(&self, output: TerminalOutput);
    fn exit(&self, exit: TerminalExit);
}

pub(super) struct Window {
    pub(super) app: AppHandle,
    pub(super) label: String,
}

impl Sink for Window {
    fn output(&self, output: TerminalOutput) {
        emit_to::<channel::TerminalOutput>(&self.app, &self.label, &output);
    }

    fn exit(&self, exit: TerminalExit) {
        emit_to::<channel::TerminalExit>(&self.app, &self.label, &exit);
    }
}

/// Streams the PTY's output to the window until it ends; dropping `done` says so.
pub(super) fn stream_output(
    mut reader: Box<dyn Read + Send>,
    sink: &dyn Sink,
    id: &str,
    done: mpsc::Sender<()>,
) {
    let mut buf = vec![0u8; 16 * 1024];
    let mut decoder = Utf8Stream::default();
    loop {
        match reader.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let data = decoder.push(&buf[..n]);
                if !data.is_empty() {
                    sink.output(TerminalOutput {
                        id: id.to_owned(),
                        data,
                    });
                }
            }
        }
    }
    drop(done);
}

/// Turns a byte stream into text without splitting a multi-byte character across chunks;
/// invalid bytes become U+FFFD.
#[derive(Default)]
pub(super) struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    pub(super) fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let mut out = String::new();
        loop {
            match std::str::from_utf8(&self.pending) {
                Ok(text) => {
                    out.push_str(text);
                    self.pending.clear();
                    return out;
                }
                Err(err) => {
                    let valid = err.valid_up_to();
                    out.push_str(std::str::from_utf8(&self.pending[..valid]).unwrap_or_default());
                    match err.error_len() {
                        // An incomplete character at the end: keep it for the next chunk.
                        None => {
                            self.pending.drain(..valid);
                            return out;
                        }
                        Some(bad) => {
                            out.push('\u{FFFD}');
                            self.pending.drain(..valid + bad);
                        }
                    }
                }
            }
        }
    }
}
