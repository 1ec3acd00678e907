//! A Pi turn's usage ("Turn usage" in docs/harness-behaviour.md): every assistant
//! `message_end` (and the assistant `message` entry of the session file) carries its model call's `usage {input, output, cacheRead, cacheWrite, cost}`
//! (`input` leaves out the cache's tokens, added back here); a turn (one prompt's run) sums
//! them. Pi prices a call from the model's configured prices, so a model without prices
//! reports a cost of 0 that nobody charged: only a cost above zero, or one the provider itself
//! reported (`totalFromProvider`), is taken as known.

use serde_json::Value;

use crate::contract::TurnUsage;

/// One assistant message's usage.
pub(super) fn message_usage(message: &Value) -> Option<TurnUsage> {
    let usage = message.get("usage")?;
    let count = |key: &str| usage.get(key).and_then(Value::as_u64);
    let cache_read = count("cacheRead");
    let cost = usage.get("cost");
    let from_provider = cost
        .and_then(|c| c.get("totalFromProvider"))
        .and_then(Value::as_bool)
        == Some(true);
    let cost_usd = cost
        .and_then(|c| c.get("total"))
        .and_then(Value::as_f64)
        .filter(|t| t.is_finite() && (*t > 0.0 || from_provider));
    Some(TurnUsage {
        input_tokens: count("input")? + cache_read.unwrap_or(0) + count("cacheWrite").unwrap_or(0),
        output_tokens: count("output")?,
        cached_input_tokens: cache_read,
        cache_write_tokens: count("cacheWrite"),
        // Pi: "a subset of `output`", set only by providers that report it.
        reasoning_tokens: count("reasoning"),
        cost_usd,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_zero_pi_priced_itself_is_unknown_and_the_cache_counts() {
        let unpriced = json!({"usage": {"input": 1390, "output": 20, "cacheRead": 10,
            "cacheWrite": 0, "cost": {"total": 0, "totalFromProvider": false}}});
        let usage = message_usage(&unpriced).unwrap();
        assert_eq!((usage.input_tokens, usage.output_tokens), (1400, 20));
        assert_eq!(
            (usage.cached_input_tokens, usage.cost_usd),
            (Some(10), None)
        );
        assert_eq!(
            (usage.cache_write_tokens, usage.reasoning_tokens),
            (Some(0), None)
        );
        let priced = json!({"usage": {"input": 1, "output": 2, "cost": {"total": 0.002}}});
        assert_eq!(message_usage(&priced).unwrap().cost_usd, Some(0.002));
        let free = json!({"usage": {"input": 1, "output": 2,
            "cost": {"total": 0, "totalFromProvider": true}}});
        assert_eq!(message_usage(&free).unwrap().cost_usd, Some(0.0));
        assert_eq!(message_usage(&json!({"role": "assistant"})), None);
    }
}
