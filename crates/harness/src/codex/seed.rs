//! A conversation from another harness, as a Codex thread (see "Continue in another agent:
//! what each target needs" in docs/harness-behaviour.md).
//!
//! In a short-lived `codex app-server` of its own: `thread/start` in the fork's folder, then one
//! `thread/inject_items` per carried turn (a user message, the reply's assistant messages, a
//! shell call as a `function_call` of `shell` and its `function_call_output`), then the server
//! is closed. Codex records the items in the thread's rollout as model-visible history (one
//! `auto-compact-<n>` context per call) without turn events, and sends them to the model on the
//! next turn; Forkhost's rollout reader shows each call's items as one turn ("injected
//! history" in `history/`). Nothing is sent to a model. The new rollout is read back and must
//! hold exactly the carried turns; otherwise the thread is deleted again.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::app_server::{AppServer, Launch};
use super::protocol::{self, params, thread_of, to_harness_error, ThreadIdParams, REQUEST_TIMEOUT};
use super::runtime::{capabilities, rollout_path};
use super::CodexReader;
use crate::contract::{Forked, Seed, SeedRequest, SeedStep, SeedTurn, NO_REPLY_TEXT};
use crate::history::SessionReader;
use crate::{HarnessError, HarnessKind, HarnessResult};

/// How long the seeding server may take to leave after its stdin closed.
const CLOSE_GRACE: Duration = Duration::from_secs(3);

/// Writes `request.seed` as a new Codex thread in `request.cwd`, a folder whose trust
/// decision is `trusted`.
pub async fn seed(request: SeedRequest<'_>, trusted: Option<bool>) -> HarnessResult<Forked> {
    request.check_binary(HarnessKind::Codex, "a Codex thread")?;
    if let Some(note) = capabilities(&request.binary.version).note {
        return Err(HarnessError::Unsupported(note));
    }
    request.check_cwd()?;
    let started = Instant::now();
    let launch = Launch {
        binary: request.binary,
        cwd: Some(request.cwd),
        env: request.env,
        // This process runs no turn: it needs no MCP server; in a folder the user does not
        // trust it is refused where the runtime would be (review M-2).
        args: super::trust::no_turn_args(trusted, request.cwd)?,
    };
    let server = AppServer::spawn(launch, |_| {})?;
    let outcome = async {
        let codex_home = protocol::initialize(&server, false).await?;
        let start = json!({ "cwd": request.cwd.to_string_lossy() });
        let result = server
            .request("thread/start", start, REQUEST_TIMEOUT)
            .await
            .map_err(|f| to_harness_error(f, &server.stderr_tail()))?;
        let thread = thread_of(&result)?;
        let injected = inject(&server, &thread.id, request.seed).await;
        Ok::<_, HarnessError>((thread, codex_home, injected))
    }
    .await;
    let (thread, codex_home, injected) = match outcome {
        Ok(parts) => parts,
        Err(err) => {
            server.close(CLOSE_GRACE).await;
            return Err(err);
        }
    };
    let path = rollout_path(&thread, codex_home.as_deref());
    let checked = match injected {
        Ok(()) => verify(path.as_deref(), request.seed.len()).await,
        Err(err) => Err(err),
    };
    if checked.is_err() {
        discard(&server, &thread.id, path.as_deref()).await;
    }
    server.close(CLOSE_GRACE).await;
    let path = match checked {
        Ok(path) => path,
        Err(err) => {
            if let Some(path) = path.as_deref().filter(|p| p.is_file()) {
                let _ = std::fs::remove_file(path);
            }
            return Err(err);
        }
    };
    tracing::info!(
        thread = %thread.id,
        turns = request.seed.len(),
        ms = started.elapsed().as_millis() as u64,
        "codex thread seeded"
    );
    Ok(request.written(HarnessKind::Codex, thread.id, path))
}

/// One `thread/inject_items` per turn, so each becomes a turn of its own in the rollout.
async fn inject(server: &AppServer, thread_id: &str, seed: &Seed) -> HarnessResult<()> {
    for turn in &seed.turns {
        let request = json!({ "threadId": thread_id, "items": items(turn, &seed.from) });
        server
            .request("thread/inject_items", request, REQUEST_TIMEOUT)
            .await
            .map_err(|f| to_harness_error(f, &server.stderr_tail()))?;
    }
    Ok(())
}

/// A turn as Responses API items.
fn items(turn: &SeedTurn, from: &str) -> Vec<Value> {
    let prompt = turn.prompt_text();
    let mut out = vec![json!({
        "type": "message",
        "role": "user",
        "content": [{ "type": "input_text", "text": prompt }],
    })];
    let assistant = |text: &str| {
        json!({
            "type": "message",
            "role": "assistant",
            "content": [{ "type": "output_text", "text": text }],
        })
    };
    for step in &turn.reply {
        match step {
            SeedStep::Text(text) => out.push(assistant(text)),
            // The carry gives Codex file calls as text already (see `crate::carry`); one that
            // came anyway is written as that text.
            SeedStep::File(call) => out.push(assistant(&call.note(from))),
            SeedStep::Shell(call) => {
                let call_id = format!("call_{}", uuid::Uuid::new_v4().simple());
                let arguments = json!({ "command": ["bash", "-lc", call.command] }).to_string();
                out.push(json!({
                    "type": "function_call",
                    "name": "shell",
                    "arguments": arguments,
                    "call_id": call_id,
                }));
                out.push(json!({
                    "type": "function_call_output",
                    "call_id": call_id,
                    "output": call.output,
                }));
            }
        }
    }
    if !matches!(turn.reply.last(), Some(SeedStep::Text(_))) {
        out.push(assistant(NO_REPLY_TEXT));
    }
    out
}

/// How long the new rollout is re-read until it shows the carried turns (the server writes
/// it as it goes; the wait only covers a slow disk).
const VERIFY_FOR: Duration = Duration::from_secs(3);

/// The new rollout holds exactly `turns` turns, every one complete.
async fn verify(path: Option<&std::path::Path>, turns: usize) -> HarnessResult<std::path::PathBuf> {
    let failed = |what: String| HarnessError::failed(HarnessKind::Codex, what, "");
    let path = path.ok_or_else(|| failed("codex named no rollout for the new thread".into()))?;
    let deadline = Instant::now() + VERIFY_FOR;
    let mut pause = Duration::from_millis(2);
    loop {
        let held = match CodexReader::open(path) {
            Ok(reader) => {
                let anchors = reader.anchors();
                match anchors.len() == turns && anchors.iter().all(|a| a.complete) {
                    true => return Ok(path.to_owned()),
                    false => format!("{} turns", anchors.len()),
                }
            }
            Err(err) => err.to_string(),
        };
        if Instant::now() >= deadline {
            return Err(failed(format!(
                "the new thread holds {held}; {turns} were carried"
            )));
        }
        tokio::time::sleep(pause).await;
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

async fn discard(server: &AppServer, thread_id: &str, path: Option<&std::path::Path>) {
    let request = ThreadIdParams {
        thread_id: thread_id.to_owned(),
    };
    let deleted = server
        .request("thread/delete", params(&request), REQUEST_TIMEOUT)
        .await;
    tracing::warn!(thread = %thread_id, deleted = deleted.is_ok(), path = ?path, "seeded codex thread discarded");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::ShellCall;

    #[test]
    fn a_turn_becomes_responses_items_with_its_shell_call_paired() {
        let turn = SeedTurn {
            prompt: "go".into(),
            reply: vec![
                SeedStep::Text("looking".into()),
                SeedStep::Shell(ShellCall {
                    command: "ls".into(),
                    output: "a\n".into(),
                    is_error: false,
                }),
            ],
        };
        let items = items(&turn, "Claude Code");
        let types: Vec<&str> = items.iter().map(|i| i["type"].as_str().unwrap()).collect();
        assert_eq!(
            types,
            [
                "message",
                "message",
                "function_call",
                "function_call_output",
                "message"
            ]
        );
        assert_eq!(items[0]["role"], "user");
        assert_eq!(items[0]["content"][0]["text"], "go");
        assert_eq!(items[2]["call_id"], items[3]["call_id"]);
        let args: Value = serde_json::from_str(items[2]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(args["command"][2], "ls");
        assert_eq!(items[3]["output"], "a\n");
        // A reply ending in a tool call still ends with a reply.
        assert_eq!(items[4]["content"][0]["text"], NO_REPLY_TEXT);
        let text_last = SeedTurn {
            prompt: "".into(),
            reply: vec![SeedStep::Text("done".into())],
        };
        let items = super::items(&text_last, "Pi");
        assert_eq!(items.len(), 2);
        assert_eq!(items[0]["content"][0]["text"], "[no prompt]");
    }
}
