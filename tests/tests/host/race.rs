//! Races with the real Pi CLI against the fake model: three lanes from turn 2 of a three-turn
//! thread in a git repository each get exactly turns 1–2 and the prompt, their own worktree with
//! the files as of turn 2 and only their own change after, and run at once (their model
//! requests overlap); the source is unchanged; keeping one lane brings its file back
//! uncommitted, refuses a conflict and an unconfirmed loss, and removes the other worktrees.
//! Bad input: 0, 1 and 50 lanes, an empty prompt, a folder outside git, a lane whose harness
//! is missing (it fails in words, the others go on), lanes queued over "at most K at once".
//! Mixed lanes (Pi and Claude Code) each report the tokens their model call sent, and a cost
//! where the harness prices it.

use crate::host_kit;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use forkhost_core::{
    ErrorCode, ForkAt, HarnessKind, Host, HostOptions, LaneSpec, LaneState, RaceLane, RaceSpec,
    TurnRef,
};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Protocol, Reply, Role};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

use host_kit::{git, setup, turn};

fn writes(n: &str) -> String {
    format!("RUN_COMMAND `printf '{n}' > notes.txt && touch {n}.txt`")
}

/// Every lane writes a file named after its own folder; SLOW makes its reply take 2 s.
const LANE_PROMPT: &str = "SLOW RUN_COMMAND `touch \"lane-$(basename \"$PWD\").txt\"`";

/// Every file under `dir` (`.git` aside) with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir).unwrap().to_path_buf();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

fn spec(source: &str, at: ForkAt, lanes: Vec<LaneSpec>, prompt: &str) -> RaceSpec {
    RaceSpec {
        source: source.to_owned(),
        at,
        lanes,
        prompt: prompt.to_owned(),
        shared_folder: false,
        max_parallel: None,
        approve: None,
        check: None,
        check_timeout: None,
        budget_usd: None,
    }
}

fn lanes(n: usize) -> Vec<LaneSpec> {
    vec![LaneSpec::default(); n]
}

/// Collects every lane change.
fn recorder() -> (forkhost_core::OnLane, Arc<Mutex<Vec<RaceLane>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    (
        Arc::new(move |lane: &RaceLane| sink.lock().unwrap().push(lane.clone())),
        seen,
    )
}

fn lane_file(cwd: &str) -> String {
    format!(
        "lane-{}.txt",
        Path::new(cwd).file_name().unwrap().to_str().unwrap()
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn race_three_lanes_from_turn_two_then_keep_one() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    let host = s.host().await;
    let source = s.thread(&host, Default::default()).await;
    for n in ["t1", "t2", "t3"] {
        turn(&host, &source, &writes(n)).await;
    }
    let before = snapshot(&repo);
    s.model.clear_requests();

    let (on_lane, seen) = recorder();
    let mut three = spec(
        &source,
        ForkAt::After(TurnRef::Number(2)),
        lanes(3),
        LANE_PROMPT,
    );
    // All three at once, whatever the machine's core count (the default limit).
    three.max_parallel = Some(3);
    let race = host.race(three, on_lane).await.unwrap();
    assert_eq!(race.lanes.len(), 3);
    assert!(!race.shared_folder);
    for lane in &race.lanes {
        assert_eq!(lane.state, LaneState::Done, "{lane:?}");
        assert_eq!(lane.harness, HarnessKind::Pi);
    }
    assert!(seen
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.state == LaneState::Running));

    // Each lane's model got exactly turns 1–2 and the prompt.
    let calls: Vec<_> = s
        .model
        .model_requests()
        .into_iter()
        .filter(|r| matches!(r.reply, Some(Reply::ToolCall { .. })))
        .filter(|r| r.last_user_text().is_some_and(|t| t.contains("lane-")))
        .collect();
    assert_eq!(calls.len(), 3, "one first request per lane");
    for call in &calls {
        let prompts: Vec<String> = call
            .dialogue()
            .iter()
            .filter(|m| m.role == Role::User)
            .map(|m| m.text.clone())
            .collect();
        assert_eq!(
            prompts,
            [writes("t1"), writes("t2"), LANE_PROMPT.to_owned()]
        );
    }
    // They ran at once: one after another, each 2 s reply would push the third lane's first
    // request at least 4 s after the first's.
    let at: Vec<u64> = calls.iter().map(|c| c.at_ms).collect();
    let spread = at.iter().max().unwrap() - at.iter().min().unwrap();
    assert!(spread < 2000, "lanes' requests did not overlap: {at:?}");

    // Each lane's worktree: turn 2's files and its own file only.
    let names: Vec<String> = race
        .lanes
        .iter()
        .map(|l| lane_file(l.cwd.as_deref().unwrap()))
        .collect();
    for (lane, name) in race.lanes.iter().zip(&names) {
        let dir = PathBuf::from(lane.cwd.as_deref().unwrap());
        assert_ne!(dir, repo);
        assert_eq!(
            std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
            "t2"
        );
        assert!(dir.join("t2.txt").exists() && !dir.join("t3.txt").exists());
        for other in &names {
            assert_eq!(
                dir.join(other).exists(),
                other == name,
                "{other} in {dir:?}"
            );
        }
        let files = lane.files.as_ref().unwrap();
        assert_eq!(files.len(), 1, "{files:?}");
        assert_eq!(&files[0].path, name);
    }
    assert_eq!(snapshot(&repo), before, "the source's folder changed");

    // Sent the same first prompt, the lanes are still told apart in the list (numbered).
    let listed = host.threads().await.unwrap();
    let mut titles: Vec<String> = race
        .lanes
        .iter()
        .map(|l| {
            let id = l.thread_id.as_deref().unwrap();
            listed.iter().find(|t| t.id == id).unwrap().title.clone()
        })
        .collect();
    assert!(
        titles[0].starts_with("SLOW RUN_COMMAND"),
        "named by its prompt: {titles:?}"
    );
    titles.sort();
    titles.dedup();
    assert_eq!(titles.len(), 3, "three lanes, three names: {titles:?}");

    // Keep lane 1: an unconfirmed loss and a conflict in the source are refused, unchanged.
    let kept = race.lanes[0].thread_id.clone().unwrap();
    let err = host.keep(&kept, None).await.unwrap_err();
    assert_eq!(err.error_code(), ErrorCode::Conflict, "{err}");
    assert!(err.to_string().contains("confirm"), "{err}");
    let plan = host.keep_plan(&kept).await.unwrap();
    assert_eq!(plan.others.len(), 2);
    assert_eq!(plan.source, source);
    std::fs::write(repo.join(&names[0]), "mine\n").unwrap();
    let err = host.keep(&kept, Some(&plan)).await.unwrap_err();
    assert_eq!(err.error_code(), ErrorCode::Conflict, "{err}");
    for lane in &race.lanes[1..] {
        assert!(Path::new(lane.cwd.as_deref().unwrap()).is_dir());
    }
    std::fs::remove_file(repo.join(&names[0])).unwrap();

    let done = host.keep(&kept, Some(&plan)).await.unwrap();
    assert_eq!(done.brought_back.files.len(), 1);
    assert!(repo.join(&names[0]).exists(), "the kept lane's file");
    let status = git(&repo, &["status", "--porcelain"]);
    assert!(status.contains(&format!("?? {}", names[0])), "{status}");
    for lane in &race.lanes[1..] {
        assert!(!Path::new(lane.cwd.as_deref().unwrap()).exists());
        let view = host.show(lane.thread_id.as_deref().unwrap()).await.unwrap();
        assert_eq!(view.thread.state.as_str(), "archived");
    }
    assert!(Path::new(race.lanes[0].cwd.as_deref().unwrap()).is_dir());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn race_refuses_bad_input_and_goes_on_without_a_missing_harness() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let host: Host = s
        .host_with(|o| {
            o.harness_paths = vec![(
                HarnessKind::Codex,
                "/nonexistent/forkhost-test/codex".into(),
            )]
        })
        .await;
    let source = s.thread(&host, Default::default()).await;
    turn(&host, &source, "hello").await;
    let (on_lane, seen) = recorder();
    let code = |e: forkhost_core::HostError| (e.error_code(), e.to_string());
    for n in [0, 1, 50] {
        let err = host
            .race(
                spec(&source, ForkAt::Latest, lanes(n), "go"),
                on_lane.clone(),
            )
            .await
            .unwrap_err();
        let (c, words) = code(err);
        assert_eq!(c, ErrorCode::InvalidInput);
        assert!(words.contains("2 to 8 lanes"), "{words}");
    }
    let err = host
        .race(
            spec(&source, ForkAt::Latest, lanes(2), "  "),
            on_lane.clone(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.error_code(), ErrorCode::InvalidInput);
    // The work folder is not in git: the lanes would share it.
    let err = host
        .race(
            spec(&source, ForkAt::Latest, lanes(2), "go"),
            on_lane.clone(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.error_code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("not in a git repository"), "{err}");
    let err = host
        .race(
            spec("no-such-thread", ForkAt::Latest, lanes(2), "go"),
            on_lane.clone(),
        )
        .await
        .unwrap_err();
    assert_eq!(err.error_code(), ErrorCode::ThreadNotFound);
    assert!(seen.lock().unwrap().is_empty(), "no lane was made");

    // Accepted to share the folder, at most one at once, lane 2 in a missing harness.
    let mut accepted = spec(
        &source,
        ForkAt::Latest,
        vec![
            LaneSpec::default(),
            LaneSpec {
                harness: Some(HarnessKind::Codex),
                model: None,
            },
            LaneSpec::default(),
        ],
        "go on",
    );
    accepted.shared_folder = true;
    accepted.max_parallel = Some(1);
    // Outside git the folder stands for the repository; a check past its limit is stopped.
    let folder = s.env.work_dir().to_path_buf();
    host.approve_check(&folder, "sleep 30").await.unwrap();
    accepted.check = Some("sleep 30".into());
    accepted.check_timeout = Some(std::time::Duration::from_secs(1));
    let race = host.race(accepted, on_lane).await.unwrap();
    for lane in [&race.lanes[0], &race.lanes[2]] {
        let check = lane.check.as_ref().unwrap();
        assert!(check.timed_out && !check.passed, "{check:?}");
        assert!(
            check.message.as_deref().unwrap().contains("within 1 s"),
            "{check:?}"
        );
    }
    assert!(
        race.lanes[1].check.is_none(),
        "no check in a lane never made"
    );
    assert!(race.shared_folder);
    let states: Vec<LaneState> = race.lanes.iter().map(|l| l.state).collect();
    assert_eq!(
        states,
        [LaneState::Done, LaneState::Failed, LaneState::Done],
        "{:?}",
        race.lanes
    );
    let failed = &race.lanes[1];
    assert_eq!(failed.harness, HarnessKind::Codex);
    assert!(
        failed
            .message
            .as_deref()
            .unwrap()
            .contains("harness not found"),
        "{failed:?}"
    );
    let seen = seen.lock().unwrap();
    assert!(
        seen.iter().any(|l| l.state == LaneState::Queued
            && l.message.as_deref().unwrap_or("").contains("queued")),
        "a lane over the limit says it is queued: {seen:?}"
    );
}

/// The lane that claims `claim` first writes won.txt; the others write nothing.
fn claim_prompt(claim: &Path) -> String {
    format!(
        "RUN_COMMAND `mkdir '{}' 2>/dev/null && echo won > won.txt; true`",
        claim.display()
    )
}

/// The check's output is 100 lines, then it tests for won.txt.
const CHECK: &str = "seq 1 100; test -f won.txt";

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn race_check_passes_in_one_lane_and_fails_in_the_others_only_once_approved() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    let host = s.host().await;
    let source = s.thread(&host, Default::default()).await;
    turn(&host, &source, "hello").await;
    let claim = repo.join(".git").join("race-claim");
    let (on_lane, seen) = recorder();
    let mut three = spec(&source, ForkAt::Latest, lanes(3), &claim_prompt(&claim));
    three.max_parallel = Some(3);
    three.check = Some(CHECK.into());

    // Saved, not approved: shown first, and a race with it is refused before any lane.
    let saved = host.set_check_command(&repo, Some(CHECK)).await.unwrap();
    assert_eq!(saved.command.as_deref(), Some(CHECK));
    assert!(!saved.approved);
    let err = host.race(three.clone(), on_lane.clone()).await.unwrap_err();
    assert_eq!(err.error_code(), ErrorCode::InvalidInput, "{err}");
    assert!(err.to_string().contains("not been approved"), "{err}");
    assert!(seen.lock().unwrap().is_empty());
    host.approve_check(&repo, CHECK).await.unwrap();
    assert!(host.check_command(&repo).await.unwrap().approved);
    // A changed text is a new command: not approved until shown again.
    let changed = host
        .set_check_command(&repo, Some("npm test"))
        .await
        .unwrap();
    assert!(!changed.approved, "{changed:?}");
    let err = host
        .set_check_command(&repo, Some("bad\0command"))
        .await
        .unwrap_err();
    assert_eq!(err.error_code(), ErrorCode::InvalidInput);

    let race = host.race(three, on_lane).await.unwrap();
    let mut passed = 0;
    for lane in &race.lanes {
        assert_eq!(lane.state, LaneState::Done, "{lane:?}");
        let check = lane.check.as_ref().expect("every lane checked");
        assert_eq!(check.command, CHECK);
        let won = Path::new(lane.cwd.as_deref().unwrap())
            .join("won.txt")
            .exists();
        assert_eq!(check.passed, won, "{check:?}");
        assert_eq!(check.exit_code, Some(if won { 0 } else { 1 }), "{check:?}");
        assert!(!check.timed_out);
        // The tail: the last 40 of 100 lines.
        let lines: Vec<&str> = check.tail.lines().collect();
        assert_eq!(lines.len(), 40, "{check:?}");
        assert_eq!((lines[0], lines[39]), ("61", "100"));
        passed += usize::from(won);
    }
    assert_eq!(
        passed, 1,
        "exactly one lane wrote won.txt: {:?}",
        race.lanes
    );
    assert!(seen
        .lock()
        .unwrap()
        .iter()
        .any(|l| l.state == LaneState::Checking));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn race_lanes_in_models_of_one_harness_and_an_unknown_model_fails_its_lane_only() {
    let Some(s) = setup(Harness::Pi).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    let host = s.host().await;
    let source = s.thread(&host, Default::default()).await;
    turn(&host, &source, "hello").await;
    // Offered as Pi reports them.
    let offered = host.models(&source).await.unwrap();
    assert_eq!(offered, ["fake/fake-model", "fake/fake-model-b"]);
    s.model.clear_requests();

    let model = |m: &str| LaneSpec {
        harness: None,
        model: Some(m.into()),
    };
    let prompt = "which model answers?";
    let mut three = spec(
        &source,
        ForkAt::Latest,
        vec![
            model("fake/fake-model-b"),
            model("fake-model"),
            model("nope"),
        ],
        prompt,
    );
    three.max_parallel = Some(3);
    let (on_lane, _) = recorder();
    let race = host.race(three, on_lane).await.unwrap();
    let states: Vec<LaneState> = race.lanes.iter().map(|l| l.state).collect();
    assert_eq!(
        states,
        [LaneState::Done, LaneState::Done, LaneState::Failed],
        "{:?}",
        race.lanes
    );
    assert_eq!(race.lanes[0].model.as_deref(), Some("fake/fake-model-b"));
    let why = race.lanes[2].message.as_deref().unwrap();
    assert!(
        why.contains("no model nope") && why.contains("fake/fake-model-b"),
        "{why}"
    );
    // The model requests of the two lanes that ran: one in each model.
    let mut models: Vec<String> = s
        .model
        .model_requests()
        .into_iter()
        .filter(|r| r.last_user_text().is_some_and(|t| t.contains(prompt)))
        .filter_map(|r| r.model)
        .collect();
    models.sort();
    assert_eq!(models, ["fake-model", "fake-model-b"]);
    // A lane keeps its model for its next turn (Pi recorded the choice in its session).
    let lane = race.lanes[0].thread_id.clone().unwrap();
    s.model.clear_requests();
    turn(&host, &lane, "and now?").await;
    let last = s.model.last_model_request().unwrap();
    assert_eq!(last.model.as_deref(), Some("fake-model-b"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn race_lanes_in_two_harnesses_each_get_turns_one_and_two_and_the_prompt() {
    let model = FakeModel::start(FakeModelOptions::default()).await.unwrap();
    let Some(env) = HarnessEnv::for_fake_all(&[Harness::Pi, Harness::Claude], &model).unwrap()
    else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let options = HostOptions {
        harness_env: env.vars().to_vec(),
        ..Default::default()
    };
    let host = Host::open_with(data.path(), options).await.unwrap().0;
    let repo = env.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    let source = host
        .create(forkhost_core::NewThreadSpec {
            harness: HarnessKind::Pi,
            cwd: repo.clone(),
            title: None,
            permissions: Default::default(),
        })
        .await
        .unwrap()
        .thread
        .id;
    let turns = ["alpha one", "beta two", "gamma three"];
    for t in turns {
        turn(&host, &source, t).await;
    }
    model.clear_requests();
    let prompt = "delta race prompt";
    let lane = |h: HarnessKind, m: Option<&str>| LaneSpec {
        harness: Some(h),
        model: m.map(str::to_owned),
    };
    let mut mixed = spec(
        &source,
        ForkAt::After(TurnRef::Number(2)),
        vec![
            lane(HarnessKind::Pi, None),
            lane(HarnessKind::Claude, None),
            lane(HarnessKind::Claude, Some("claude-haiku-4-5")),
        ],
        prompt,
    );
    mixed.max_parallel = Some(3);
    let (on_lane, _) = recorder();
    let race = host.race(mixed, on_lane).await.unwrap();
    let harnesses: Vec<(HarnessKind, LaneState)> =
        race.lanes.iter().map(|l| (l.harness, l.state)).collect();
    assert_eq!(
        harnesses,
        [
            (HarnessKind::Pi, LaneState::Done),
            (HarnessKind::Claude, LaneState::Done),
            (HarnessKind::Claude, LaneState::Done)
        ],
        "{:?}",
        race.lanes
    );
    let requests: Vec<_> = model
        .model_requests()
        .into_iter()
        .filter(|r| r.last_user_text() == Some(prompt))
        .collect();
    let by = |p: Protocol| requests.iter().filter(|r| r.protocol == p).count();
    assert_eq!(
        (by(Protocol::OpenAiChat), by(Protocol::AnthropicMessages)),
        (1, 2),
        "one request per lane, in its own harness's protocol"
    );
    for r in &requests {
        let users: Vec<String> = r
            .conversation()
            .into_iter()
            .filter(|m| m.role == Role::User)
            .map(|m| m.text)
            .collect();
        assert_eq!(users, [turns[0], turns[1], prompt], "{:?}", r.protocol);
    }
    // The Claude lane with a model asked for it; the other went with Claude's own.
    let claude_models: Vec<Option<String>> = requests
        .iter()
        .filter(|r| r.protocol == Protocol::AnthropicMessages)
        .map(|r| r.model.clone())
        .collect();
    assert!(
        claude_models.contains(&Some("claude-haiku-4-5".into())),
        "{claude_models:?}"
    );
    assert!(
        claude_models
            .iter()
            .any(|m| m.as_deref() != Some("claude-haiku-4-5")),
        "{claude_models:?}"
    );

    // Each lane's tokens are the ones its model call reported (one call each); Claude prices
    // its lanes (Haiku below Claude's default per token), Pi does not price the fake model.
    let sent = |haiku: Option<bool>| {
        let r = requests
            .iter()
            .find(|r| match haiku {
                None => r.protocol == Protocol::OpenAiChat,
                Some(h) => {
                    r.protocol == Protocol::AnthropicMessages
                        && (r.model.as_deref() == Some("claude-haiku-4-5")) == h
                }
            })
            .unwrap();
        r.usage.unwrap()
    };
    let mut per_token = Vec::new();
    for (lane, haiku) in race.lanes.iter().zip([None, Some(false), Some(true)]) {
        let usage = lane.usage.unwrap_or_else(|| panic!("no usage: {lane:?}"));
        let want = sent(haiku);
        assert_eq!(
            (usage.input_tokens, usage.output_tokens),
            (want.input_tokens, want.output_tokens),
            "lane {}",
            lane.lane
        );
        match haiku {
            None => assert_eq!(usage.cost_usd, None, "{usage:?}"),
            Some(_) => per_token.push(usage.cost_usd.unwrap() / usage.input_tokens as f64),
        }
    }
    assert!(per_token[1] < per_token[0], "{per_token:?}");
}

/// A race with a budget (issue 43): Claude's fake model is priced by the table, so the first
/// lane's turn alone passes a budget of a millionth of a dollar; the lanes queued behind it
/// (one turn at a time) are not started, say why in words, and their models are never asked.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn race_over_its_budget_starts_no_more_lanes_and_says_why() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    let repo = s.env.work_dir().to_path_buf();
    git(&repo, &["init", "-q", "-b", "main"]);
    std::fs::write(repo.join("a.txt"), "a\n").unwrap();
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "start"]);
    let host = s.host().await;
    let source = s.thread(&host, Default::default()).await;
    turn(&host, &source, "one").await;
    s.model.clear_requests();

    let (on_lane, _seen) = recorder();
    let mut race = spec(
        &source,
        ForkAt::After(TurnRef::Number(1)),
        lanes(3),
        "a lane's prompt",
    );
    race.max_parallel = Some(1);
    race.budget_usd = Some(0.000_001);
    let ended = host.race(race, on_lane).await.unwrap();
    // Which lane gets the one slot first is the scheduler's choice: one runs, two do not.
    let (done, stopped): (Vec<&RaceLane>, Vec<&RaceLane>) =
        ended.lanes.iter().partition(|l| l.state == LaneState::Done);
    assert_eq!(done.len(), 1, "{ended:#?}");
    assert!(
        stopped.iter().all(|l| l.state == LaneState::OverBudget),
        "{ended:#?}"
    );
    let first = done[0];
    let spent = first.spent.expect("the finished lane's spend");
    assert_eq!(spent.turns, 1, "{first:?}");
    assert!(spent.cost_usd > 0.000_001, "{spent:?}");
    for lane in &stopped {
        let words = lane.message.as_deref().unwrap_or_default();
        assert!(
            words.starts_with("not started: the race spent $")
                && words.ends_with("over its budget of $0.000001"),
            "{words:?}"
        );
    }
    assert!(
        s.model.model_requests().iter().any(|r| r
            .last_user_text()
            .is_some_and(|t| t.contains("a lane's prompt"))),
        "the first lane's model was never asked"
    );
    // The lanes not started hold the inherited turn only: no prompt of their own was sent.
    for lane in &stopped {
        let thread = lane.thread_id.as_deref().expect("the lane's fork was made");
        let shown = host.show(thread).await.unwrap();
        assert!(
            shown.turns.iter().all(|t| t.inherited),
            "lane {} ran a turn: {:?}",
            lane.lane,
            shown.turns.iter().map(|t| t.number).collect::<Vec<_>>()
        );
    }

    // A budget that is no amount is refused before any lane is made.
    let mut bad = spec(&source, ForkAt::After(TurnRef::Number(1)), lanes(2), "x");
    bad.budget_usd = Some(-1.0);
    let (on_lane, _) = recorder();
    let err = host.race(bad, on_lane).await.unwrap_err();
    assert_eq!(err.code(), "invalid_input", "{err}");
}
