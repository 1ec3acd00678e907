//! What each branch cost, in the app (issue 43) over WebDriver with the real Claude Code CLI
//! against the fake model: a 2-turn source forked after reply 1, one turn in the fork. The
//! fork's header chip says its own spend and what it inherited, with the exact figures in its
//! tooltip equal to what the model served for the fork's own turn; a reply shows its turn's
//! figure (the fork's first turn marked inherited); the chip opens "Cost of this tree", whose
//! total is every request the model served — the inherited turn counted once. A screenshot
//! lands in test-artifacts/app_cost/. Run by `scripts/app-e2e.sh app_cost`.
#![cfg(unix)]

use crate::app_support;

use std::time::Duration;

use anyhow::{ensure, Context, Result};
use app_support::*;
use fantoccini::Client;
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

const WAIT: Duration = Duration::from_secs(30);

/// "N input tokens … M output tokens" out of a figure's tooltip.
fn tokens_in(title: &str) -> Result<(u64, u64)> {
    let number_before = |word: &str| -> Result<u64> {
        let at = title
            .find(word)
            .with_context(|| format!("no {word:?} in {title:?}"))?;
        let digits: String = title[..at]
            .trim_end()
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        Ok(digits.chars().rev().collect::<String>().parse()?)
    };
    Ok((
        number_before(" input tokens")?,
        number_before(" output tokens")?,
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn app_cost_of_a_branch_its_replies_and_its_tree() -> Result<()> {
    let Some(app) = app_binary()? else {
        return Ok(());
    };
    let model = FakeModel::start(FakeModelOptions::default()).await?;
    let Some(harness) = HarnessEnv::for_fake(Harness::Claude, &model)? else {
        return Ok(());
    };
    let env = AppEnv::new(&app, Some(&harness))?;
    let mut shots = Shots::new("app_cost")?;
    let client = env.launch().await?;
    let result = cost(&client, &model, &harness, &mut shots).await;
    if result.is_err() {
        shots.take(&client, "failure").await;
        shots.keep_app_log(&env);
    }
    client.close().await.ok();
    result
}

async fn cost(
    client: &Client,
    model: &FakeModel,
    harness: &HarnessEnv,
    shots: &mut Shots,
) -> Result<()> {
    model.clear_requests();
    new_thread(client, "claude", harness.work_dir(), "first prompt").await?;
    wait_turn_done(client, 1).await?;
    send_prompt(client, "second prompt").await?;
    wait_turn_done(client, 2).await?;
    let source = model.served_tokens();

    // Each reply carries its turn's figure; a priced Claude model shows money.
    let figure = wait_css(
        client,
        r#"article[data-role="assistant"][data-turn="2"] [data-turn-cost]"#,
        WAIT,
    )
    .await?
    .prop("textContent")
    .await?
    .unwrap_or_default();
    ensure!(
        figure.contains(" in / ") && figure.contains('$'),
        "reply 2's figure: {figure:?}"
    );

    let forks = fork_count(client).await?;
    click(
        client,
        r#"article[data-role="assistant"][data-turn="1"] button[data-action="fork"]"#,
    )
    .await?;
    fork_window(client, forks).await?;
    model.clear_requests();
    send_prompt(client, "own turn of the fork").await?;
    wait_turn_done(client, 2).await?;
    let own = model.served_tokens();
    ensure!(
        own.0 > 0 && own.1 > 0,
        "the model served {own:?} for the fork"
    );

    // The header: this branch's own turn, and the one it inherited.
    let chip = wait_css(client, "[data-branch-cost]", WAIT).await?;
    let text = chip.prop("textContent").await?.unwrap_or_default();
    ensure!(
        text.starts_with("this branch ") && text.contains(" · inherited $"),
        "the header's cost: {text:?}"
    );
    let title = chip.attr("title").await?.unwrap_or_default();
    let own_line = title.lines().next().unwrap_or_default();
    ensure!(
        own_line.contains("1 turn:"),
        "the chip's own figure: {title:?}"
    );
    ensure!(
        tokens_in(own_line)? == own,
        "the chip says {own_line:?}, the model served {own:?} for the fork's turn"
    );
    let inherited = js(
        client,
        r#"return document.querySelector('article[data-role="assistant"][data-turn="1"] [data-turn-cost]')?.dataset.inherited ?? null;"#,
    )
    .await?;
    ensure!(
        inherited == "true",
        "the fork's reply 1 is not marked inherited: {inherited}"
    );
    shots.take(client, "fork_header").await;

    // The tree: the source's two turns and the fork's one, each once.
    chip.click().await?;
    let total = wait_css(client, "[data-tree-cost-total] th[title]", WAIT).await?;
    let total_title = total.attr("title").await?.unwrap_or_default();
    let bill = (source.0 + own.0, source.1 + own.1);
    ensure!(
        tokens_in(&total_title)? == bill,
        "the tree's total {total_title:?}, the model served {bill:?}"
    );
    let branches = js(
        client,
        "return document.querySelectorAll('[data-tree-cost-thread]').length;",
    )
    .await?;
    ensure!(branches == 2, "the tree lists {branches} branches");
    shots.take(client, "tree_cost").await;
    Ok(())
}
