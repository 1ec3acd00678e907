//! The shared usage scenario: a turn's `TurnEnded` carries the tokens the fake model's
//! answers reported, summed over the turn's model calls, and a cost only where the harness
//! prices a turn ("Turn usage" in docs/harness-behaviour.md).

use forkhost_tests::fake_model::Usage;

use super::kit::Setup;
use super::HarnessCase;

/// Two turns in one process: a tool call (two model calls) and a plain reply. Each turn's
/// usage is the sum of its own calls' (never the process's running total).
pub async fn turn_usage_is_what_the_model_reported<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let mut costs = Vec::new();
    for (prompt, calls) in [
        ("please CALL_TOOL now", 2),
        ("and now a plain second turn", 1),
    ] {
        s.fake.clear_requests();
        let log = live.turn(prompt).await;
        let sent: Vec<Usage> = s
            .fake
            .model_requests()
            .iter()
            .filter_map(|r| r.usage)
            .collect();
        assert_eq!(sent.len(), calls, "{prompt}: {sent:?}");
        let input: u64 = sent.iter().map(|u| u.input_tokens).sum();
        let output: u64 = sent.iter().map(|u| u.output_tokens).sum();
        let usage = log
            .usage
            .unwrap_or_else(|| panic!("{prompt}: no usage in {:?}", log.events));
        eprintln!("{prompt}: the model sent {sent:?}; the harness reported {usage:?}");
        assert_eq!((usage.input_tokens, usage.output_tokens), (input, output));
        // The fake model reports no cached tokens: the harness says 0, not "unknown".
        assert_eq!(usage.cached_input_tokens, Some(0));
        if H::PRICES_A_TURN {
            let cost = usage.cost_usd.expect("a priced turn");
            assert!(cost > 0.0, "{usage:?}");
            costs.push(cost / input as f64);
        } else {
            assert_eq!(usage.cost_usd, None, "no price is made up");
        }
    }
    if let [first, second] = costs[..] {
        // The same model's price per token: the second turn's cost is its own, where the
        // process's running total would nearly double it.
        assert!(second < first * 1.5 && second > first / 1.5, "{costs:?}");
    }
    live.close().await;
}
