//! What each branch cost, through the CLI against the real harness CLIs and the fake model
//! (docs/architecture.md "Cost"): a 3-turn source, forks after 1 and after 2, a fork of a fork,
//! one own turn each. Every figure is held against what the fake model actually served: each
//! branch's own tokens are the requests of its own turns, and the tree's total is the sum of
//! every request served — no request counted twice (a fork's file repeats its source's turns),
//! none missed; summed by model, the same. Money: the harness's or the price table's, and a
//! model the table lacks is "unpriced", never $0. A torn last line in a transcript changes no
//! figure. Continued in another agent, the new branch's own turn is counted once, in it.

use forkhost_tests::cli::Cli;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use serde_json::Value;

fn id(thread: &Value) -> String {
    thread["thread"]["id"].as_str().unwrap().to_owned()
}

/// `send`, and what the model served for it.
fn send(cli: &Cli, model: &FakeModel, thread: &str, prompt: &str) -> (u64, u64) {
    model.clear_requests();
    cli.ok(&["send", thread, prompt]);
    model.served_tokens()
}

fn tokens(figure: &Value) -> (u64, u64) {
    (
        figure["input_tokens"].as_u64().unwrap(),
        figure["output_tokens"].as_u64().unwrap(),
    )
}

fn add(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
    (a.0 + b.0, a.1 + b.1)
}

fn cost_flow(harness: Harness) {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(env) = HarnessEnv::for_fake(harness, &model).unwrap() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let cli = Cli {
        env: &env,
        data: data.path(),
    };
    let cwd = env.work_dir().to_str().unwrap().to_owned();
    model.clear_requests();
    let source = id(&cli.ok(&["new", "--harness", harness.name(), "--cwd", &cwd, "one"]));
    let mut source_own = model.served_tokens();
    source_own = add(source_own, send(&cli, &model, &source, "two"));
    source_own = add(source_own, send(&cli, &model, &source, "three"));

    let f1 = id(&cli.ok(&["fork", &source, "--after", "1"]));
    let f1_own = send(&cli, &model, &f1, "own of the fork after one");
    let f2 = id(&cli.ok(&["fork", &source, "--after", "2"]));
    let f2_own = send(&cli, &model, &f2, "own of the fork after two");
    let ff = id(&cli.ok(&["fork", &f2, "--latest"]));
    let ff_own = send(&cli, &model, &ff, "own of the fork of a fork");
    for part in [source_own, f1_own, f2_own, ff_own] {
        assert!(part.0 > 0 && part.1 > 0, "the model served {part:?}");
    }

    // One branch: its own turn, and the two it inherited.
    let f2_cost = &cli.ok(&["cost", &f2])["cost"];
    assert_eq!(f2_cost["own"]["turns"], 1, "{f2_cost}");
    assert_eq!(f2_cost["inherited"]["turns"], 2, "{f2_cost}");
    assert_eq!(tokens(&f2_cost["own"]), f2_own, "{f2_cost}");
    let inherited = f2_cost["turns"].as_array().unwrap();
    assert_eq!(
        inherited.iter().filter(|t| t["inherited"] == true).count(),
        2
    );

    // The tree: each thread's own turns, and a total equal to everything the model served.
    let tree = &cli.ok(&["cost", &ff, "--tree"])["tree"];
    assert_eq!(tree["root"], source.as_str(), "{tree}");
    let own_of = |thread: &str| {
        let found = tree["threads"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["thread_id"] == thread)
            .unwrap_or_else(|| panic!("{thread} not in the tree: {tree}"));
        tokens(&found["own"])
    };
    assert_eq!(own_of(&source), source_own);
    assert_eq!(own_of(&f1), f1_own);
    assert_eq!(own_of(&f2), f2_own);
    assert_eq!(own_of(&ff), ff_own);
    let bill = [source_own, f1_own, f2_own, ff_own]
        .into_iter()
        .fold((0, 0), add);
    assert_eq!(
        tokens(&tree["total"]),
        bill,
        "the tree's total is what was served"
    );
    assert_eq!(tree["total"]["turns"], 6);

    // Money: priced where the harness or the table can, and never a made-up 0.
    let total = &tree["total"];
    let unpriced = total["unpriced_turns"].as_u64().unwrap();
    match harness {
        // Claude's fake model answers as a Claude model the table prices.
        Harness::Claude => {
            assert_eq!(unpriced, 0, "{total}");
            assert!(total["cost_usd"].as_f64().unwrap() > 0.0, "{total}");
        }
        // Codex's and Pi's fake models are in no table, and they report no price.
        _ => {
            assert_eq!(unpriced, 6, "{total}");
            assert_eq!(total["cost_usd"].as_f64().unwrap(), 0.0);
        }
    }
    // By model: the tree's own turns, whatever the models, sum to the bill.
    let models = cli.ok(&["cost", &ff, "--tree", "--by", "model"]);
    let by_model = models["by_model"].as_array().unwrap();
    assert!(!by_model.is_empty(), "{models}");
    let summed = by_model
        .iter()
        .map(|m| tokens(&m["figure"]))
        .fold((0, 0), add);
    assert_eq!(summed, bill, "by model: {models}");

    // A torn last line (a write cut off) changes nothing counted: the turns before it stand.
    let before = tokens(&cli.ok(&["cost", &source])["cost"]["own"]);
    let shown = cli.ok(&["show", &source]);
    let path = shown["thread"]["native"]["path"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    std::io::Write::write_all(
        &mut file,
        br#"{"type":"assistant","message":{"usage":{"input_tok"#,
    )
    .unwrap();
    drop(file);
    let after = &cli.ok(&["cost", &source])["cost"];
    assert_eq!(tokens(&after["own"]), before, "after a torn line: {after}");
    assert_eq!(after["own"]["turns"], 3, "{after}");

    // `show --json` carries each turn's usage.
    let shown = cli.ok(&["show", &source]);
    for turn in shown["thread"]["turns"].as_array().unwrap() {
        assert!(
            turn["usage"]["output_tokens"].as_u64().unwrap() > 0,
            "{turn}"
        );
    }
}

#[test]
fn claude_each_branch_costs_its_own_turns_and_the_tree_what_was_served() {
    cost_flow(Harness::Claude);
}

#[test]
fn codex_each_branch_costs_its_own_turns_and_the_tree_what_was_served() {
    cost_flow(Harness::Codex);
}

#[test]
fn pi_each_branch_costs_its_own_turns_and_the_tree_what_was_served() {
    cost_flow(Harness::Pi);
}

/// A conversation continued in another agent: its own turn is what the target's model served
/// for it, and the tree's total is every request served, once.
fn continued_flow(from: Harness, into: Harness) {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(env) = HarnessEnv::for_fake_all(&[from, into], &model).unwrap() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let cli = Cli {
        env: &env,
        data: data.path(),
    };
    let cwd = env.work_dir().to_str().unwrap().to_owned();
    model.clear_requests();
    let source = id(&cli.ok(&["new", "--harness", from.name(), "--cwd", &cwd, "one"]));
    let source_own = add(model.served_tokens(), send(&cli, &model, &source, "two"));
    model.clear_requests();
    let continued = id(&cli.ok(&["fork", &source, "--after", "2", "--into", into.name()]));
    // Continuing writes the target's session from the source's turns: no model request.
    assert_eq!(model.served_tokens(), (0, 0), "continuing asked the model");
    let own = send(&cli, &model, &continued, "own of the continued branch");
    assert!(own.0 > 0 && own.1 > 0, "the model served {own:?}");

    let cost = &cli.ok(&["cost", &continued])["cost"];
    assert_eq!(cost["own"]["turns"], 1, "{cost}");
    assert_eq!(tokens(&cost["own"]), own, "{cost}");
    let tree = &cli.ok(&["cost", &continued, "--tree"])["tree"];
    assert_eq!(tokens(&tree["total"]), add(source_own, own), "{tree}");
}

#[test]
fn claude_continued_in_codex_counts_each_request_once() {
    continued_flow(Harness::Claude, Harness::Codex);
}

#[test]
fn pi_continued_in_claude_counts_each_request_once() {
    continued_flow(Harness::Pi, Harness::Claude);
}
