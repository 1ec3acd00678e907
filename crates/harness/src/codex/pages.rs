//! The app-server's history pages (`thread/turns/list`, `thread/items/list` results) in the
//! same types as the rollout reader, so a client of the app-server can hand them to the Host
//! directly. Field names follow app-server protocol v2 (camelCase; items tagged by `type`).
//!
//! A page's turn has the same anchors as a rollout turn: its `id` is both the native turn ref
//! and the checkpoint ref, and it is complete unless its `status` is `inProgress`.

use serde_json::Value;

use crate::history::{HistoryError, Message, Role, ToolCall, Turn};
use crate::messages::{content_text, str_of};

/// One page of `thread/turns/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnsPage {
    pub turns: Vec<Turn>,
    pub next_cursor: Option<String>,
    pub backwards_cursor: Option<String>,
}

/// One page of `thread/items/list`.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemsPage {
    pub items: Vec<PageItem>,
    pub next_cursor: Option<String>,
    pub backwards_cursor: Option<String>,
}

/// An item of a page, as a message of its turn. Items that show nothing (reasoning) are left
/// out of the page.
#[derive(Debug, Clone, PartialEq)]
pub struct PageItem {
    pub turn_id: String,
    pub message: Message,
}

impl ItemsPage {
    /// Append these items to the turns they belong to; items of turns not in `turns` are
    /// dropped. Returns how many were placed.
    pub fn merge_into(self, turns: &mut [Turn]) -> usize {
        let mut placed = 0;
        for item in self.items {
            if let Some(t) = turns.iter_mut().find(|t| t.native_turn_ref == item.turn_id) {
                t.messages.push(item.message);
                placed += 1;
            }
        }
        placed
    }
}

fn cursors(result: &Value) -> (Option<String>, Option<String>) {
    let get = |k| str_of(result, k).map(str::to_owned);
    (get("nextCursor"), get("backwardsCursor"))
}

fn data(result: &Value) -> Result<&Vec<Value>, HistoryError> {
    result
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| HistoryError::InvalidPage("no `data` array".into()))
}

/// Parse a `thread/turns/list` result. Turns listed with `itemsView: notLoaded` come back
/// without messages; fill them from `thread/items/list`.
pub fn turns_page(result: &Value) -> Result<TurnsPage, HistoryError> {
    let turns = data(result)?
        .iter()
        .map(turn_from_page)
        .collect::<Result<_, _>>()?;
    let (next_cursor, backwards_cursor) = cursors(result);
    Ok(TurnsPage {
        turns,
        next_cursor,
        backwards_cursor,
    })
}

/// Parse one app-server `Turn` object (also found in `thread/read`, `thread/fork` results).
pub fn turn_from_page(turn: &Value) -> Result<Turn, HistoryError> {
    let id = str_of(turn, "id")
        .ok_or_else(|| HistoryError::InvalidPage("a turn without an `id`".into()))?
        .to_owned();
    let mut messages: Vec<Message> = turn
        .get("items")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(thread_item_message).collect())
        .unwrap_or_default();
    if let Some(error) = turn.get("error").and_then(|e| str_of(e, "message")) {
        messages.push(Message::error(Role::Other, error));
    }
    Ok(Turn {
        native_checkpoint_ref: Some(id.clone()),
        native_turn_ref: id,
        messages,
        complete: str_of(turn, "status") != Some("inProgress"),
    })
}

/// Parse a `thread/items/list` result.
pub fn items_page(result: &Value) -> Result<ItemsPage, HistoryError> {
    let mut items = Vec::new();
    for entry in data(result)? {
        let turn_id = str_of(entry, "turnId")
            .ok_or_else(|| HistoryError::InvalidPage("an item without a `turnId`".into()))?;
        if let Some(message) = entry.get("item").and_then(thread_item_message) {
            items.push(PageItem {
                turn_id: turn_id.to_owned(),
                message,
            });
        }
    }
    let (next_cursor, backwards_cursor) = cursors(result);
    Ok(ItemsPage {
        items,
        next_cursor,
        backwards_cursor,
    })
}

/// One app-server `ThreadItem` as a message; `None` for items that show nothing (reasoning)
/// or that this version does not know.
pub fn thread_item_message(item: &Value) -> Option<Message> {
    let id = str_of(item, "id");
    let tool = |name: &str, input: Value, output: Option<String>, is_error: bool| {
        Message::for_tool(ToolCall {
            id: id.map(str::to_owned),
            name: name.to_owned(),
            input,
            output,
            is_error,
        })
        .with_ref(id)
    };
    let field = |k: &str| item.get(k).cloned().unwrap_or(Value::Null);
    let message = match str_of(item, "type")? {
        "userMessage" => Message::new(Role::User, content_text(&field("content"))).with_ref(id),
        "agentMessage" => Message::new(Role::Assistant, str_of(item, "text")?).with_ref(id),
        "plan" => Message::new(Role::Other, str_of(item, "text")?).with_ref(id),
        "commandExecution" => {
            let failed = str_of(item, "status") == Some("failed")
                || item
                    .get("exitCode")
                    .and_then(Value::as_i64)
                    .is_some_and(|c| c != 0);
            tool(
                "shell",
                serde_json::json!({ "command": field("command"), "cwd": field("cwd") }),
                str_of(item, "aggregatedOutput").map(str::to_owned),
                failed,
            )
        }
        "fileChange" => tool(
            "apply_patch",
            field("changes"),
            None,
            str_of(item, "status") == Some("failed"),
        ),
        "mcpToolCall" => {
            let output = item
                .get("result")
                .filter(|r| !r.is_null())
                .map(|r| content_text(r.get("content").unwrap_or(&Value::Null)));
            let error = item
                .get("error")
                .and_then(|e| str_of(e, "message"))
                .map(str::to_owned);
            let failed = error.is_some();
            tool(
                str_of(item, "tool").unwrap_or_default(),
                field("arguments"),
                error.or(output),
                failed,
            )
        }
        "dynamicToolCall" => tool(
            str_of(item, "tool").unwrap_or_default(),
            field("arguments"),
            item.get("contentItems")
                .filter(|c| !c.is_null())
                .map(content_text),
            item.get("success").and_then(Value::as_bool) == Some(false),
        ),
        "webSearch" => tool(
            "web_search",
            serde_json::json!({ "query": field("query") }),
            None,
            false,
        ),
        "contextCompaction" => Message::new(Role::Other, "").with_ref(id),
        "hookPrompt" => {
            let text = item
                .get("fragments")
                .and_then(Value::as_array)
                .map(|f| {
                    f.iter()
                        .filter_map(|x| str_of(x, "text"))
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
            Message::new(Role::Other, text).with_ref(id)
        }
        "enteredReviewMode" | "exitedReviewMode" => {
            Message::new(Role::Other, str_of(item, "review").unwrap_or_default()).with_ref(id)
        }
        _ => return None,
    };
    Some(message)
}
