//! Running one turn from the terminal: the reply prints as it streams (to stderr in `--json`
//! mode, so stdout stays one JSON document), and Ctrl-C interrupts the turn cleanly.

use std::io::Write;

use forkhost_core::view::ThreadDetail;
use forkhost_core::{Host, HostError, HostEvent, TurnOutcome};

pub async fn send(
    host: &Host,
    thread: &str,
    prompt: &str,
    json: bool,
) -> Result<ThreadDetail, HostError> {
    let mut events = host.subscribe();
    let done = host.start_turn(thread, prompt).await?;
    let mut done = std::pin::pin!(done);
    let mut interrupted = false;
    let outcome = loop {
        tokio::select! {
            outcome = &mut done => break outcome,
            event = events.recv() => {
                if let Ok(event) = event {
                    if event.thread_id() == thread {
                        echo(&event, json);
                    }
                }
            }
            _ = tokio::signal::ctrl_c(), if !interrupted => {
                interrupted = true;
                eprintln!("\nforkhost: interrupting the turn…");
                host.interrupt(thread).await?;
            }
        }
    };
    // Flush what streamed after the outcome was decided.
    while let Ok(event) = events.try_recv() {
        if event.thread_id() == thread {
            echo(&event, json);
        }
    }
    finish_line(json);
    match outcome {
        Ok(TurnOutcome::Failed { message }) => Err(HostError::HarnessFailed(message)),
        Ok(_) => host.show(thread).await,
        Err(_) => Err(HostError::HarnessFailed(
            "the harness stopped before the turn ended".into(),
        )),
    }
}

fn echo(event: &HostEvent, json: bool) {
    let text = match event {
        HostEvent::TextDelta { text, .. } => text.clone(),
        HostEvent::ToolCall { name, .. } => format!("\n[tool {name}]\n"),
        HostEvent::Error { message, .. } => format!("\n[error: {message}]\n"),
        _ => return,
    };
    if json {
        eprint!("{text}");
        let _ = std::io::stderr().flush();
    } else {
        print!("{text}");
        let _ = std::io::stdout().flush();
    }
}

fn finish_line(json: bool) {
    if json {
        eprintln!();
    } else {
        println!();
    }
}
