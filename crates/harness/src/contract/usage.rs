//! What a turn cost, in the Host's words: the tokens the model read and wrote over the turn's
//! model calls, and the money where the harness reports it. Each adapter reads its harness's
//! own report ("Turn usage" in docs/harness-behaviour.md); nothing here guesses a figure.

use serde::{Deserialize, Serialize};

/// A turn's usage, summed over its model calls.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TurnUsage {
    /// Every input token the model read, those read from and written to the cache included.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub input_tokens: u64,
    /// Every output token, reasoning included.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub output_tokens: u64,
    /// The part of `input_tokens` read from the provider's cache (`None`: not reported).
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub cached_input_tokens: Option<u64>,
    /// The part of `input_tokens` written to the provider's cache (`None`: not reported).
    /// Providers bill a cache write apart from plain input, so it is kept apart.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub cache_write_tokens: Option<u64>,
    /// The part of `output_tokens` the model spent reasoning (`None`: not reported).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub reasoning_tokens: Option<u64>,
    /// In US dollars, as the harness priced it (`None`: it reports no price; never a zero
    /// made up for one).
    pub cost_usd: Option<f64>,
}

impl TurnUsage {
    /// `self` and `other` together (a turn of several model calls). A part either of them
    /// does not know is unknown in the sum: a total never passes a partial figure off as whole.
    pub fn plus(self, other: TurnUsage) -> TurnUsage {
        TurnUsage {
            input_tokens: self.input_tokens + other.input_tokens,
            output_tokens: self.output_tokens + other.output_tokens,
            cached_input_tokens: both(self.cached_input_tokens, other.cached_input_tokens),
            cache_write_tokens: both(self.cache_write_tokens, other.cache_write_tokens),
            reasoning_tokens: both(self.reasoning_tokens, other.reasoning_tokens),
            cost_usd: both(self.cost_usd, other.cost_usd),
        }
    }

    /// Adds `other` to a running sum that may not have started.
    pub fn add_to(sum: &mut Option<TurnUsage>, other: TurnUsage) {
        *sum = Some(match sum.take() {
            Some(so_far) => so_far.plus(other),
            None => other,
        });
    }
}

fn both<T: std::ops::Add<Output = T>>(a: Option<T>, b: Option<T>) -> Option<T> {
    Some(a? + b?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sum_knows_a_part_only_when_every_call_reported_it() {
        let a = TurnUsage {
            input_tokens: 10,
            output_tokens: 2,
            cached_input_tokens: Some(4),
            cache_write_tokens: Some(3),
            reasoning_tokens: Some(1),
            cost_usd: Some(0.5),
        };
        let b = TurnUsage {
            input_tokens: 5,
            output_tokens: 1,
            cached_input_tokens: None,
            cache_write_tokens: Some(2),
            reasoning_tokens: None,
            cost_usd: Some(0.25),
        };
        let mut sum = None;
        TurnUsage::add_to(&mut sum, a);
        TurnUsage::add_to(&mut sum, b);
        assert_eq!(
            sum,
            Some(TurnUsage {
                input_tokens: 15,
                output_tokens: 3,
                cached_input_tokens: None,
                cache_write_tokens: Some(5),
                reasoning_tokens: None,
                cost_usd: Some(0.75),
            })
        );
    }

    #[test]
    fn a_usage_stored_before_the_cache_write_and_reasoning_parts_still_reads() {
        let old = r#"{"input_tokens":7,"output_tokens":2,"cached_input_tokens":1,"cost_usd":null}"#;
        let usage: TurnUsage = serde_json::from_str(old).unwrap();
        assert_eq!((usage.input_tokens, usage.output_tokens), (7, 2));
        assert_eq!(
            (usage.cache_write_tokens, usage.reasoning_tokens),
            (None, None)
        );
    }
}
