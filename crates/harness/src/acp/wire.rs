//! The Agent Client Protocol's framing for [`crate::rpc`]: JSON-RPC 2.0, one object a line
//! each way. Of what an agent asks its client, only `session/request_permission` goes to the
//! user; the file system and terminal methods are refused on the spot (Forkhost offers neither
//! in `initialize`, so an agent that keeps to the protocol never sends them), as is any method
//! this client does not know.

use serde_json::{json, Value};

use crate::rpc::{Protocol, Routed};

/// The protocol, as [`crate::rpc::RpcChild`] speaks it.
pub(crate) struct AcpWire;

/// What an agent says of its own accord.
#[derive(Debug)]
pub(crate) enum Inbound {
    /// `session/update`: one update of one session.
    Update { session_id: String, update: Value },
    /// `session/request_permission`: a tool call waits for the user; answered with `id`.
    Permission { id: Value, params: Value },
}

/// The `error` object of an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RpcError {
    pub code: i64,
    pub message: String,
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

/// JSON-RPC's "method not found".
const METHOD_NOT_FOUND: i64 = -32601;

impl Protocol for AcpWire {
    type Response = Result<Value, RpcError>;
    type Message = Inbound;
    const NAME: &'static str = "acp agent";

    fn request_line(&self, id: u64, method: &str, params: Value) -> String {
        format!(
            "{}\n",
            json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
        )
    }

    fn route(&self, line: &[u8]) -> Routed<Self::Response, Self::Message> {
        let Ok(Value::Object(mut message)) = serde_json::from_slice::<Value>(line) else {
            if !line.iter().all(u8::is_ascii_whitespace) {
                tracing::warn!(
                    bytes = line.len(),
                    "an ACP agent wrote a line that is not a JSON object; skipped"
                );
            }
            return Routed::Skip;
        };
        let method = message
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let params = message.remove("params").unwrap_or(Value::Null);
        match (message.remove("id"), method) {
            (Some(id), Some(method)) if method == "session/request_permission" => {
                Routed::Message(Inbound::Permission { id, params })
            }
            (Some(id), Some(method)) => {
                tracing::info!(
                    method,
                    "an ACP agent asked for what Forkhost does not offer"
                );
                Routed::Reply(error_line(
                    &id,
                    METHOD_NOT_FOUND,
                    &format!("Forkhost does not offer {method}"),
                ))
            }
            (Some(id), None) => {
                let response = match message.remove("error") {
                    Some(error) => Err(RpcError {
                        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                        message: error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("an error without a message")
                            .to_owned(),
                    }),
                    None => Ok(message.remove("result").unwrap_or(Value::Null)),
                };
                Routed::Response {
                    id: id.as_u64(),
                    response,
                }
            }
            (None, Some(method)) if method == "session/update" => {
                let session_id = params
                    .get("sessionId")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                let update = params.get("update").cloned().unwrap_or(Value::Null);
                Routed::Message(Inbound::Update { session_id, update })
            }
            // Other notifications (extensions, `_meta` methods): nothing Forkhost acts on.
            (None, _) => Routed::Skip,
        }
    }
}

/// A notification (no answer expected), e.g. `session/cancel`.
pub(crate) fn notification_line(method: &str, params: Value) -> String {
    format!(
        "{}\n",
        json!({ "jsonrpc": "2.0", "method": method, "params": params })
    )
}

/// The answer to the agent's request `id`.
pub(crate) fn result_line(id: &Value, result: Value) -> String {
    format!(
        "{}\n",
        json!({ "jsonrpc": "2.0", "id": id, "result": result })
    )
}

/// An error answer to the agent's request `id`.
pub(crate) fn error_line(id: &Value, code: i64, message: &str) -> String {
    format!(
        "{}\n",
        json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(line: &str) -> Routed<Result<Value, RpcError>, Inbound> {
        AcpWire.route(line.as_bytes())
    }

    #[test]
    fn answers_updates_and_permission_requests_are_told_apart() {
        let Routed::Response { id, response } =
            route(r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}"#)
        else {
            panic!("an answer")
        };
        assert_eq!(
            (id, response.unwrap()["stopReason"].as_str()),
            (Some(3), Some("end_turn"))
        );
        let Routed::Response { response, .. } =
            route(r#"{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid params"}}"#)
        else {
            panic!("an error answer")
        };
        assert_eq!(response.unwrap_err().code, -32602);
        let Routed::Message(Inbound::Update { session_id, update }) = route(
            r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk"}}}"#,
        ) else {
            panic!("an update")
        };
        assert_eq!(
            (session_id.as_str(), update["sessionUpdate"].as_str()),
            ("s1", Some("agent_message_chunk"))
        );
        assert!(matches!(
            route(r#"{"jsonrpc":"2.0","id":0,"method":"session/request_permission","params":{}}"#),
            Routed::Message(Inbound::Permission { .. })
        ));
    }

    #[test]
    fn what_forkhost_does_not_offer_is_refused_at_once_and_garbage_skipped() {
        let Routed::Reply(line) =
            route(r#"{"jsonrpc":"2.0","id":"7","method":"fs/write_text_file","params":{}}"#)
        else {
            panic!("refused on the spot")
        };
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(
            (reply["id"].as_str(), reply["error"]["code"].as_i64()),
            (Some("7"), Some(-32601))
        );
        assert!(matches!(route("no json"), Routed::Skip));
        assert!(matches!(
            route(r#"{"jsonrpc":"2.0","method":"_x/y"}"#),
            Routed::Skip
        ));
    }
}
