//! The client against a stand-in server (a shell script): correlation, timeouts, replies to
//! the server's questions, the stderr tail and the exit report.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use super::{lock, CallError, Event, Protocol, Routed, RpcChild};
use crate::process::HarnessCommand;
use crate::HarnessKind;

/// `{"id":n,"r":…}` answers request n; `{"ask":…}` wants a reply; anything else is a message.
struct Test;

impl Protocol for Test {
    type Response = Value;
    type Message = Value;
    const NAME: &'static str = "test server";

    fn request_line(&self, id: u64, method: &str, params: Value) -> String {
        format!(
            "{}\n",
            json!({ "id": id, "method": method, "params": params })
        )
    }

    fn route(&self, line: &[u8]) -> Routed<Value, Value> {
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            return Routed::Skip;
        };
        if let Some(ask) = v.get("ask") {
            return Routed::Reply(format!("{}\n", json!({ "answer": ask })));
        }
        match v.get("id").and_then(Value::as_u64) {
            Some(id) => Routed::Response {
                id: Some(id),
                response: v["r"].clone(),
            },
            None => Routed::Message(v),
        }
    }
}

/// Answers the second request only (the first times out), asks a question and echoes the
/// answer to stderr, then exits with 7.
const SCRIPT: &str = r#"#!/bin/sh
read first
read second
echo 'garbage'
echo '{"note":1}'
echo '{"id":2,"r":"two"}'
echo '{"ask":"why"}'
read answer
echo "$answer" >&2
exit 7
"#;

fn start(dir: &Path, events: Arc<Mutex<Vec<Event<Value>>>>) -> RpcChild<Test> {
    let path = dir.join("server");
    forkhost_test_script::write_executable(&path, SCRIPT).unwrap();
    let spawned = HarnessCommand::new(&path).spawn().unwrap();
    RpcChild::start(
        |m| crate::HarnessError::failed(HarnessKind::Pi, m, ""),
        spawned,
        Test,
        move |e| lock(&events).push(e),
    )
    .unwrap()
}

#[tokio::test]
async fn correlates_times_out_replies_and_reports_the_exit() {
    let dir = tempfile::tempdir().unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let child = start(dir.path(), events.clone());
    let client = child.client().clone();
    let short = Duration::from_millis(300);
    let limit = Duration::from_secs(10);
    let first = client.request("one", json!({}), short).await;
    assert_eq!(first, Err(CallError::Timeout));
    let second = client.request("two", json!({}), limit).await;
    assert_eq!(second, Ok(json!("two")));
    let report = client.wait_exit(limit).await.expect("an exit report");
    assert!(!report.expected);
    assert_eq!(report.status, "exited with code 7");
    assert!(
        report.stderr_tail.contains(r#"{"answer":"why"}"#),
        "{report:?}"
    );
    // After the exit a request fails at once.
    let late = client.request("three", json!({}), limit).await;
    assert_eq!(late, Err(CallError::Gone));
    let events = std::mem::take(&mut *lock(&events));
    assert!(matches!(&events[0], Event::Message(v) if v == &json!({"note": 1})));
    assert!(matches!(events.last(), Some(Event::Exited(_))));
    assert_eq!(events.len(), 2);
    child.close(Duration::from_secs(1)).await;
}

#[tokio::test]
async fn close_is_an_expected_exit() {
    let dir = tempfile::tempdir().unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let child = start(dir.path(), events.clone());
    child.close(Duration::from_secs(5)).await;
    let report = child.client().wait_exit(Duration::from_secs(1)).await;
    let report = report.expect("an exit report");
    assert!(report.expected);
    assert!(child.client().has_exited());
}
