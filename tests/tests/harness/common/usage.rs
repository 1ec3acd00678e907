//! The shared usage scenarios: a turn's `TurnEnded` carries the tokens the fake model's
//! answers reported, summed over the turn's model calls, and a cost only where the harness
//! prices a turn; the harness's own session file, read back, holds the same tokens per turn
//! ("Turn usage" in docs/harness-behaviour.md).

use forkhost_tests::fake_model::Usage;

use super::kit::{history_of, Setup};
use super::HarnessCase;

/// The two turns both scenarios run: a tool call (two model calls) and a plain reply. The
/// tool call follows a text block of the same message (`SAY_FIRST`, Anthropic only), which
/// Claude Code writes as two transcript records of one call.
const TURNS: [(&str, usize); 2] = [
    ("please SAY_FIRST and CALL_TOOL now", 2),
    ("and now a plain second turn", 1),
];

/// Two turns in one process: a tool call (two model calls) and a plain reply. Each turn's
/// usage is the sum of its own calls' (never the process's running total).
pub async fn turn_usage_is_what_the_model_reported<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let mut costs = Vec::new();
    for (prompt, calls) in TURNS {
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

/// What the session file says of each turn, read back with the harness's reader after the
/// runtime closed: the tokens the fake model served for that turn's requests, summed over
/// the calls (the tool turn's two calls each once, however many records repeat a call), and
/// the model those requests named.
pub async fn transcript_usage_is_what_the_model_served<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let mut served = Vec::new();
    for (prompt, calls) in TURNS {
        s.fake.clear_requests();
        live.turn(prompt).await.expect_completed();
        let requests = s.fake.model_requests();
        let sent: Vec<Usage> = requests.iter().filter_map(|r| r.usage).collect();
        assert_eq!(sent.len(), calls, "{prompt}: {sent:?}");
        let model = requests.last().and_then(|r| r.model.clone());
        served.push((prompt, sent, model));
    }
    let session = live.session();
    live.close().await;
    let history = history_of(&session);
    assert_eq!(history.turns.len(), TURNS.len(), "{history:#?}");
    for ((prompt, sent, model), turn) in served.iter().zip(&history.turns) {
        let input: u64 = sent.iter().map(|u| u.input_tokens).sum();
        let output: u64 = sent.iter().map(|u| u.output_tokens).sum();
        let usage = turn
            .usage
            .unwrap_or_else(|| panic!("{prompt}: the file records no usage: {turn:#?}"));
        eprintln!(
            "{prompt}: the model served {sent:?} as {model:?}; the file holds {usage:?} from {:?}",
            turn.model
        );
        assert_eq!(
            (usage.input_tokens, usage.output_tokens),
            (input, output),
            "{prompt}"
        );
        // The fake model reports no cache: each file says 0, not "unknown".
        assert_eq!(usage.cached_input_tokens, Some(0), "{prompt}");
        assert_eq!(turn.model, *model, "{prompt}");
        // Claude's transcript and Codex's rollout carry no price, and Pi's is the zero it
        // gives a model without prices (the fake one): unknown, never a made-up 0.
        assert_eq!(usage.cost_usd, None, "{prompt}: no price is made up");
    }
}
