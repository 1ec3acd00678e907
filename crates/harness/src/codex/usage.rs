//! A Codex turn's usage ("Turn usage" in docs/harness-behaviour.md): the app-server sends
//! `thread/tokenUsage/updated {threadId, turnId, tokenUsage: {total, last}}` once per model
//! response, `last` being that response's tokens (`inputTokens` counts the cached ones too).
//! A turn's usage is the sum of its responses' `last`; Codex reports no price.

use serde_json::Value;

use crate::contract::TurnUsage;

/// The notification's method.
pub(super) const METHOD: &str = "thread/tokenUsage/updated";

/// One response's usage: its thread, its turn and its tokens.
pub(super) fn parse(params: &Value) -> Option<(String, String, TurnUsage)> {
    let text = |pointer: &str| params.pointer(pointer).and_then(Value::as_str);
    let last = params.pointer("/tokenUsage/last")?;
    let count = |key: &str| last.get(key).and_then(Value::as_u64);
    Some((
        text("/threadId")?.to_owned(),
        text("/turnId")?.to_owned(),
        TurnUsage {
            input_tokens: count("inputTokens")?,
            output_tokens: count("outputTokens")?,
            cached_input_tokens: count("cachedInputTokens"),
            cache_write_tokens: count("cacheWriteInputTokens"),
            reasoning_tokens: count("reasoningOutputTokens"),
            cost_usd: None,
        },
    ))
}

/// The running turn's sum, by turn id (a notification for another turn starts afresh).
#[derive(Debug, Default)]
pub(super) struct TurnMeter {
    turn: Option<(String, TurnUsage)>,
}

impl TurnMeter {
    pub(super) fn add(&mut self, turn_id: String, usage: TurnUsage) {
        match &mut self.turn {
            Some((id, sum)) if *id == turn_id => *sum = sum.plus(usage),
            _ => self.turn = Some((turn_id, usage)),
        }
    }

    /// The sum of `turn_id`'s responses, once its turn ended (`None`: none reported).
    pub(super) fn take(&mut self, turn_id: &str) -> Option<TurnUsage> {
        match self.turn.take() {
            Some((id, sum)) if id == turn_id => Some(sum),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn update(turn: &str, input: u64, output: u64) -> Value {
        json!({"threadId": "th", "turnId": turn, "tokenUsage": {
            "total": {"inputTokens": 999, "outputTokens": 999, "cachedInputTokens": 0},
            "last": {"inputTokens": input, "outputTokens": output, "cachedInputTokens": 2}}})
    }

    #[test]
    fn a_turn_sums_its_responses_last_usage_only() {
        let mut meter = TurnMeter::default();
        for params in [
            update("old", 1, 1),
            update("t1", 10, 3),
            update("t1", 20, 4),
        ] {
            let (thread, turn, usage) = parse(&params).unwrap();
            assert_eq!(thread, "th");
            meter.add(turn, usage);
        }
        let sum = meter.take("t1").unwrap();
        assert_eq!((sum.input_tokens, sum.output_tokens), (30, 7));
        assert_eq!((sum.cached_input_tokens, sum.cost_usd), (Some(4), None));
        assert_eq!(meter.take("t1"), None);
        assert!(parse(&json!({"threadId": "th", "turnId": "t"})).is_none());
    }
}
