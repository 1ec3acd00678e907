//! Server-sent events.

use std::time::Duration;

use serde_json::Value;

/// One SSE event, sent after `delay`.
pub(crate) struct Event {
    pub event: Option<String>,
    pub data: String,
    pub delay: Duration,
}

impl Event {
    /// `event: <name>` + `data: <json>`.
    pub fn named(name: &str, data: &Value) -> Self {
        Event {
            event: Some(name.to_string()),
            data: data.to_string(),
            delay: Duration::ZERO,
        }
    }

    /// Only `data: <text>`.
    pub fn data(data: impl Into<String>) -> Self {
        Event {
            event: None,
            data: data.into(),
            delay: Duration::ZERO,
        }
    }

    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    pub fn encode(&self) -> String {
        match &self.event {
            Some(name) => format!("event: {name}\ndata: {}\n\n", self.data),
            None => format!("data: {}\n\n", self.data),
        }
    }
}
