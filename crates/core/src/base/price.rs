//! Money for a turn whose harness reports none (Claude Code's transcript, Codex): its tokens
//! priced by its model with the `genai-prices` table (pydantic's maintained price database,
//! bundled in the crate at its release). A model the table lacks has no price — never 0.

use forkhost_harness::{HarnessKind, TurnUsage};
use genai_prices::{PriceRequest, Usage, UsageKey};

/// The price table and its version, shown beside every figure priced with it.
pub const PRICE_TABLE: &str = "genai-prices 0.2.1 (bundled data)";

/// Who priced a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum PricedBy {
    /// The harness reported the turn's cost itself (Pi; Claude's live result).
    Harness,
    /// The price table ([`PRICE_TABLE`]) priced its tokens by model.
    Table,
    /// Neither: the model is not in the table, or the turn reported no tokens.
    Unknown,
}

/// The provider whose prices a harness's model names mean, when the harness has one.
fn provider_of(kind: HarnessKind) -> Option<&'static str> {
    match kind {
        HarnessKind::Claude => Some("anthropic"),
        HarnessKind::Codex => Some("openai"),
        // Pi talks to any provider; its own cost is used where it has one.
        _ => None,
    }
}

/// A turn's cost in US dollars and who priced it.
pub fn price(
    kind: HarnessKind,
    model: Option<&str>,
    usage: Option<&TurnUsage>,
) -> (Option<f64>, PricedBy) {
    let Some(usage) = usage else {
        return (None, PricedBy::Unknown);
    };
    if let Some(cost) = usage.cost_usd {
        return (Some(cost), PricedBy::Harness);
    }
    let Some(model) = model else {
        return (None, PricedBy::Unknown);
    };
    let mut counted = vec![
        (UsageKey::INPUT_TOKENS, usage.input_tokens as f64),
        (UsageKey::OUTPUT_TOKENS, usage.output_tokens as f64),
    ];
    if let Some(cached) = usage.cached_input_tokens {
        counted.push((UsageKey::CACHE_READ_TOKENS, cached as f64));
    }
    if let Some(written) = usage.cache_write_tokens {
        counted.push((UsageKey::CACHE_WRITE_TOKENS, written as f64));
    }
    let tokens = Usage::from_iter(counted);
    let mut request = PriceRequest::new(model, &tokens);
    if let Some(provider) = provider_of(kind) {
        request = request.with_provider_id(provider);
    }
    match genai_prices::calculate(&request) {
        Ok(priced) if priced.total_price.is_finite() => (Some(priced.total_price), PricedBy::Table),
        _ => (None, PricedBy::Unknown),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(input: u64, output: u64) -> TurnUsage {
        TurnUsage {
            input_tokens: input,
            output_tokens: output,
            ..TurnUsage::default()
        }
    }

    #[test]
    fn a_known_model_is_priced_by_the_table_and_an_unknown_one_is_unknown_never_zero() {
        let (cost, by) = price(
            HarnessKind::Claude,
            Some("claude-opus-4-5"),
            Some(&tokens(1_000_000, 0)),
        );
        assert_eq!(by, PricedBy::Table);
        assert!((cost.unwrap() - 5.0).abs() < 1e-6, "{cost:?}");
        let (cost, by) = price(HarnessKind::Codex, Some("fake-model"), Some(&tokens(10, 1)));
        assert_eq!((cost, by), (None, PricedBy::Unknown));
        let reported = TurnUsage {
            cost_usd: Some(0.25),
            ..tokens(10, 1)
        };
        assert_eq!(
            price(HarnessKind::Pi, Some("x"), Some(&reported)),
            (Some(0.25), PricedBy::Harness)
        );
        assert_eq!(
            price(HarnessKind::Pi, Some("x"), None),
            (None, PricedBy::Unknown)
        );
    }
}
