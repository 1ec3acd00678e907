//! A Claude Code turn's usage, from the stream-json `result` message ("Turn usage" in
//! docs/harness-behaviour.md): `usage` is the turn's own, summed over its model calls
//! (`input_tokens` there leaves out the cache's tokens, which are added back here), while
//! `total_cost_usd` counts every turn of the process so far, so a turn's cost is the
//! difference from the previous `result` of the same process. A transcript's assistant records
//! carry one model call's `usage` in the same shape ([`tokens`]).

use serde_json::Value;

use crate::contract::TurnUsage;

/// The turn's tokens from a `result` message; its cost is left to [`CostMeter`].
pub(crate) fn result_usage(result: &Value) -> Option<TurnUsage> {
    tokens(result.get("usage")?)
}

/// The tokens of an Anthropic `usage` object (a `result`'s, or one model call's in a
/// transcript record). It reports no price.
pub(crate) fn tokens(usage: &Value) -> Option<TurnUsage> {
    let count = |key: &str| usage.get(key).and_then(Value::as_u64);
    let cache_read = count("cache_read_input_tokens");
    let cache_written = count("cache_creation_input_tokens");
    Some(TurnUsage {
        input_tokens: count("input_tokens")? + cache_read.unwrap_or(0) + cache_written.unwrap_or(0),
        output_tokens: count("output_tokens")?,
        cached_input_tokens: cache_read,
        cache_write_tokens: cache_written,
        // Anthropic reports no reasoning part: thinking is billed as output.
        reasoning_tokens: None,
        cost_usd: None,
    })
}

/// Turns the process's running `total_cost_usd` into each turn's cost.
#[derive(Debug, Default)]
pub(crate) struct CostMeter {
    seen: f64,
}

impl CostMeter {
    /// The cost of the turn whose `result` reported `total` (`None` when it reported none,
    /// or a total below the last one, which no turn can cost).
    pub(crate) fn turn_cost(&mut self, total: Option<f64>) -> Option<f64> {
        let total = total.filter(|t| t.is_finite() && *t >= self.seen)?;
        let cost = total - self.seen;
        self.seen = total;
        Some(cost)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tokens_count_the_cache_and_cost_is_the_process_total_s_step() {
        let result = json!({"type": "result", "usage": {"input_tokens": 100,
            "cache_read_input_tokens": 30, "cache_creation_input_tokens": 5, "output_tokens": 7}});
        let usage = result_usage(&result).unwrap();
        assert_eq!((usage.input_tokens, usage.output_tokens), (135, 7));
        assert_eq!(usage.cached_input_tokens, Some(30));
        assert_eq!(usage.cache_write_tokens, Some(5));
        let mut meter = CostMeter::default();
        assert_eq!(meter.turn_cost(Some(0.5)), Some(0.5));
        assert_eq!(meter.turn_cost(Some(0.75)), Some(0.25));
        assert_eq!(meter.turn_cost(None), None);
        assert_eq!(meter.turn_cost(Some(0.1)), None);
        assert!(result_usage(&json!({"type": "result"})).is_none());
    }
}
