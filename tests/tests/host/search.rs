//! Search everything (docs/architecture.md "Search"), with the real harness CLIs against the
//! fake model: hits in a thread's prompts, replies and tool input and output of each harness's
//! own transcript; a fork's own turns found in the fork and the turns it inherited never (one
//! hit per message, in the thread that owns its turn); a JSON-escaped prompt (quotes, a line
//! break, non-ASCII) found by its plain text; a regex metacharacter literal unless asked; a
//! reply findable as soon as its turn ended; a session not adopted found with its path; the
//! harness and folder filters; bad queries refused in words.

use crate::host_kit;

use std::collections::HashSet;

use forkhost_core::{
    ApprovalDecision, ForkAt, ForkFiles, HarnessKind, HitPart, Host, SearchGroup, SearchQuery,
    SearchResults, TurnOutcome, TurnRef,
};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use host_kit::{turn_answering, Setup, TURN};

/// Turn 1's prompt: quotes, a line break and non-ASCII, which every harness writes escaped.
const ESCAPED: &str = "first zebra: say \"quoted\" \\ here\nnext line café ünï 🦀";
/// Turn 2's prompt: the fake model calls the shell tool, which prints `tool-out42`.
const TOOL: &str = "CALL_TOOL second question";
const TOOL_COMMAND: &str = "printf 'tool-%s' out42";

async fn setup(harness: Harness) -> Option<Setup> {
    let model = FakeModel::start(FakeModelOptions {
        tool_command: TOOL_COMMAND.into(),
        ..FakeModelOptions::default()
    })
    .await
    .unwrap();
    let env = HarnessEnv::for_fake(harness, &model).unwrap()?;
    Some(Setup {
        model,
        env,
        data: tempfile::tempdir().unwrap(),
    })
}

async fn run(host: &Host, thread: &str, prompt: &str) {
    let (_, outcome) = turn_answering(host, thread, prompt, ApprovalDecision::Approve).await;
    assert_eq!(outcome, TurnOutcome::Completed, "{prompt}");
}

async fn search(host: &Host, text: &str) -> SearchResults {
    search_with(host, query(text)).await
}

async fn search_with(host: &Host, query: SearchQuery) -> SearchResults {
    tokio::time::timeout(TURN, host.search(query))
        .await
        .expect("search hung")
        .unwrap()
}

fn query(text: &str) -> SearchQuery {
    SearchQuery {
        text: text.into(),
        ..SearchQuery::default()
    }
}

fn group<'a>(results: &'a SearchResults, thread: &str) -> &'a SearchGroup {
    results
        .groups
        .iter()
        .find(|g| g.thread_id.as_deref() == Some(thread))
        .unwrap_or_else(|| panic!("no hits in {thread}: {results:#?}"))
}

/// (turn number, part) of each hit of a group; every message at most once.
fn hits(group: &SearchGroup) -> Vec<(i64, HitPart)> {
    let mut seen = HashSet::new();
    for hit in &group.hits {
        assert!(
            seen.insert((hit.turn_number, hit.message_index)),
            "one hit per message: {group:#?}"
        );
        assert!(
            hit.snippet.get(hit.hit_start..hit.hit_end).is_some(),
            "the hit's range lies in its snippet: {hit:?}"
        );
    }
    group.hits.iter().map(|h| (h.turn_number, h.part)).collect()
}

async fn searches_everything(harness: Harness) {
    let Some(s) = setup(harness).await else {
        return;
    };
    let host = s.host().await;
    let kind: HarnessKind = harness.name().parse().unwrap();
    let source = s.thread(&host, Default::default()).await;
    run(&host, &source, ESCAPED).await;
    run(&host, &source, TOOL).await;
    let detail = host.show(&source).await.unwrap();

    // A word of turn 1: its prompt and the reply that repeats it, each once.
    let found = search(&host, "ZEBRA").await;
    assert_eq!(found.groups.len(), 1, "{found:#?}");
    let zebra = group(&found, &source);
    assert_eq!(zebra.harness, kind);
    assert_eq!(
        hits(zebra),
        [(1, HitPart::UserText), (1, HitPart::Reply)],
        "{zebra:#?}"
    );
    let first = &zebra.hits[0];
    assert_eq!(first.turn_id.as_deref(), Some(detail.turns[0].id.as_str()));
    assert_eq!(
        &first.snippet[first.hit_start..first.hit_end],
        "zebra",
        "the hit as written, whatever the query's case"
    );
    let shown = &detail.turns[0].messages[zebra.hits[1].message_index];
    assert!(
        shown.role == "assistant" && shown.text.contains("zebra"),
        "message_index points at the reply the view shows: {shown:?}"
    );

    // The escaped prompt by its plain text (quotes, backslash, line break, non-ASCII).
    let plain = search(&host, "say \"quoted\" \\ here\nnext line café ünï 🦀").await;
    assert_eq!(
        hits(group(&plain, &source)).first(),
        Some(&(1, HitPart::UserText)),
        "{plain:#?}"
    );

    // The tool call of turn 2: its input (the command), its output (what it printed).
    let input = search(&host, "printf 'tool-").await;
    assert!(
        hits(group(&input, &source)).contains(&(2, HitPart::ToolInput)),
        "{input:#?}"
    );
    let output = search(&host, "tool-out42").await;
    let output_hits = hits(group(&output, &source));
    assert!(
        output_hits.contains(&(2, HitPart::ToolOutput)),
        "{output:#?}"
    );

    // A metacharacter query is literal unless asked.
    assert!(search(&host, "z.bra").await.groups.is_empty());
    let regex = search_with(
        &host,
        SearchQuery {
            regex: true,
            ..query("z.bra")
        },
    )
    .await;
    assert_eq!(hits(group(&regex, &source)).len(), 2, "{regex:#?}");

    // A fork after turn 1: its inherited turn is the source's hit, never the fork's; its own
    // turn is found as soon as it ended.
    let fork = host
        .fork_with(
            &source,
            ForkAt::After(TurnRef::Number(1)),
            ForkFiles::SameFolder,
        )
        .await
        .unwrap()
        .thread
        .thread
        .id;
    assert!(search(&host, "okapi").await.groups.is_empty());
    run(&host, &fork, "okapi in the fork").await;
    let own = search(&host, "OKAPI").await;
    assert_eq!(own.groups.len(), 1, "{own:#?}");
    assert_eq!(
        hits(group(&own, &fork)),
        [(2, HitPart::UserText), (2, HitPart::Reply)]
    );
    let inherited = search(&host, "zebra").await;
    assert_eq!(
        inherited.groups.len(),
        1,
        "the fork's inherited turn is not its hit: {inherited:#?}"
    );
    assert_eq!(hits(group(&inherited, &source)).len(), 2);

    // A session this Host never adopted: found with its file, no thread.
    s.env
        .run_prompt("walrus outside forkhost", None, TURN)
        .await
        .unwrap();
    let outside = search(&host, "walrus").await;
    let session = outside
        .groups
        .iter()
        .find(|g| g.thread_id.is_none())
        .unwrap_or_else(|| panic!("the unadopted session is found: {outside:#?}"));
    let native = session.session.as_ref().unwrap();
    assert_eq!(native.harness, kind);
    assert!(std::path::Path::new(&native.path).is_file());
    assert!(hits(session).contains(&(1, HitPart::UserText)));

    // Filters: another harness, another folder.
    let other = HarnessKind::ALL.into_iter().find(|k| *k != kind).unwrap();
    let none = search_with(
        &host,
        SearchQuery {
            harness: Some(other),
            ..query("zebra")
        },
    )
    .await;
    assert!(none.groups.is_empty(), "{none:#?}");
    let elsewhere = tempfile::tempdir().unwrap();
    let none = search_with(
        &host,
        SearchQuery {
            folder: Some(elsewhere.path().display().to_string()),
            ..query("zebra")
        },
    )
    .await;
    assert!(none.groups.is_empty(), "{none:#?}");
    let here = search_with(
        &host,
        SearchQuery {
            folder: Some(s.env.work_dir().display().to_string()),
            harness: Some(kind),
            ..query("zebra")
        },
    )
    .await;
    assert_eq!(here.groups.len(), 1, "{here:#?}");

    // A limit stops the search and says so.
    let limited = search_with(
        &host,
        SearchQuery {
            limit: Some(1),
            ..query("zebra")
        },
    )
    .await;
    assert_eq!((limited.hits, limited.truncated), (1, true), "{limited:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn search_claude() {
    searches_everything(Harness::Claude).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn search_codex() {
    searches_everything(Harness::Codex).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn search_pi() {
    searches_everything(Harness::Pi).await;
}

/// Bad queries are refused in words before anything is read: empty, blank, 10 MB, a regular
/// expression that does not compile or matches empty text.
#[tokio::test]
async fn bad_queries_are_invalid_input() {
    let data = tempfile::tempdir().unwrap();
    let host = Host::open(data.path()).await.unwrap().0;
    let huge = "x".repeat(10 << 20);
    for (q, regex) in [
        ("", false),
        ("  \n\t", false),
        (huge.as_str(), false),
        (huge.as_str(), true),
        ("(unclosed", true),
        ("a*", true),
    ] {
        let err = host
            .search(SearchQuery { regex, ..query(q) })
            .await
            .expect_err("refused");
        assert_eq!(err.code(), "invalid_input", "{err}");
        assert!(!err.to_string().is_empty());
    }
}
