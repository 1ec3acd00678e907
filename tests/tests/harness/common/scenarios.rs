//! The scenarios of [`super::harness_suite!`], each generic over the harness. Where harnesses
//! differ, a [`HarnessCase`] constant or hook says how; everything else is asserted of all.

use std::time::{Duration, Instant};

use forkhost_harness::runtime::Runtime;
use forkhost_harness::{
    Cut, ForkRequest, HarnessBinary, HarnessError, OpenSpec, Role, RuntimeEvent, SessionTarget,
    TurnOutcome,
};
use forkhost_tests::fake_model::Msg;

use super::kit::{
    anchors, exchange, exchange_from, history_of, median, refs, reply, texts, Fingerprint, Live,
    Setup, TurnLog,
};
use super::{HarnessCase, Refusal};

/// Closes `live` now if the harness settles its transcript only then (see
/// `HarnessCase::SETTLED_BEFORE_CLOSE`); the caller closes what is returned after reading it.
pub(super) async fn settle<H: HarnessCase>(live: Live) -> Option<Live> {
    if H::SETTLED_BEFORE_CLOSE {
        Some(live)
    } else {
        live.close().await;
        None
    }
}

pub(super) async fn close_if_open(live: Option<Live>) {
    if let Some(live) = live {
        live.close().await;
    }
}

pub async fn new_session_three_turns_match_the_reader<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let files_before_first_prompt = s.session_files();

    let prompts = ["first prompt", "second prompt", "third prompt"];
    let mut logs = Vec::new();
    for (i, p) in prompts.iter().enumerate() {
        let log = live.turn(p).await;
        assert_eq!(log.text, reply(i + 1, p), "deltas make the reply");
        assert_eq!(
            s.last_dialogue(),
            [exchange(&prompts[..i]), vec![Msg::user(*p)]].concat()
        );
        logs.push(log);
    }
    let session = live.session();
    assert_eq!(session.kind, H::KIND);
    assert_eq!(session.cwd, s.env.work_dir());
    H::check_new_session(&session, &files_before_first_prompt);
    let announced: Vec<&RuntimeEvent> = logs
        .iter()
        .flat_map(|l| &l.events)
        .filter(|e| matches!(e, RuntimeEvent::Session { .. }))
        .collect();
    if H::SESSION_AT_OPEN {
        assert!(
            announced.is_empty(),
            "announced at open only: {announced:?}"
        );
    } else {
        assert_eq!(
            announced,
            [&RuntimeEvent::Session {
                session: session.clone()
            }],
            "one Session event, with the first turn"
        );
    }

    let live = settle::<H>(live).await;
    let history = history_of(&session);
    assert_eq!(
        history.session_id.as_deref(),
        Some(session.session_id.as_str())
    );
    assert_eq!(history.turns.len(), 3);
    assert!(history.turns.iter().all(|t| t.complete));
    let want: Vec<Vec<(Role, String)>> = prompts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            vec![
                (Role::User, p.to_string()),
                (Role::Assistant, reply(i + 1, p)),
            ]
        })
        .collect();
    assert_eq!(texts(&history, true), want);
    if H::PLAIN_TURN_IS_DIALOGUE_ONLY {
        assert_eq!(texts(&history, false), want);
    }
    assert_eq!(
        refs(&history),
        logs.iter().map(TurnLog::anchor_refs).collect::<Vec<_>>(),
        "TurnEnded refs are the reader's anchors"
    );
    if let Some(live) = live {
        let rest = live.close().await;
        assert_eq!(rest, [RuntimeEvent::Exited { error: None }]);
    }
}

pub async fn forks_cut_at_turn_boundaries_and_leave_the_source_alone<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let harness = H::HARNESS.name();
    let prompts = ["alpha question", "beta question", "gamma question"];
    let mut source_live = s.open_new().await;
    let mut logs = Vec::new();
    for p in prompts {
        logs.push(source_live.turn(p).await);
    }
    let source = source_live.session();
    // Where the harness forks in a process of its own, the source stays open (idle) meanwhile.
    let source_live = if H::FORK_WHILE_SOURCE_OPEN {
        Some(source_live)
    } else {
        source_live.close().await;
        None
    };
    let source_path = source.path.clone().unwrap();
    let print = Fingerprint::of(&source_path);
    let source_history = history_of(&source);
    let source_anchors = anchors(&source_history);
    assert_eq!(source_anchors.len(), 3);
    assert_eq!(
        refs(&source_history),
        logs.iter().map(TurnLog::anchor_refs).collect::<Vec<_>>()
    );

    let mut first_prompt_times = Vec::new();
    let mut after_turn_1 = None;
    for &(name, cut, kept) in H::FORK_CASES {
        let forked = s
            .fork(&source, &source_anchors, cut)
            .await
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        print.assert_unchanged(name);
        assert_ne!(forked.session.session_id, source.session_id, "{name}");
        assert_eq!(forked.session.cwd, source.cwd, "{name}");
        H::check_forked(name, &forked, &source, &source_anchors, kept);

        let t0 = Instant::now();
        let mut live = s.open_fork(&forked).await;
        let prompt = format!("fork prompt {name}");
        let log = live.turn(&prompt).await;
        first_prompt_times.push(t0.elapsed());
        assert_eq!(log.text, reply(kept + 1, &prompt), "{name}");
        let want = [exchange(&prompts[..kept]), vec![Msg::user(&prompt)]].concat();
        assert_eq!(s.last_dialogue(), want, "{name}: what the model saw");
        print.assert_unchanged(&format!("a turn in the fork {name}"));
        assert_eq!(
            live.session().session_id,
            forked.session.session_id,
            "{name}: the fork runs under the id the fork call gave it"
        );
        H::check_fork_turn(&forked, &live, &log, kept);

        // The fork is an ordinary session now: a second turn in the same process.
        let second = format!("second fork prompt {name}");
        live.turn(&second).await;
        let want = [
            exchange(&prompts[..kept]),
            exchange_from(kept, &[&prompt]),
            vec![Msg::user(&second)],
        ]
        .concat();
        assert_eq!(s.last_dialogue(), want, "{name}: the fork's second turn");
        let fork = live.session();
        let live = settle::<H>(live).await;
        let history = history_of(&fork);
        assert_eq!(history.turns.len(), kept + 2, "{name}");
        assert_eq!(
            refs(&history)[..kept],
            refs(&source_history)[..kept],
            "{name}: inherited turns keep their refs"
        );
        assert_eq!(refs(&history)[kept], log.anchor_refs(), "{name}");
        close_if_open(live).await;
        print.assert_unchanged(&format!("closing the fork {name}"));
        if cut == Cut::After(0) {
            let lineage = vec![prompts[0].to_owned(), prompt, second];
            after_turn_1 = Some((fork, lineage));
        }
    }

    // Resume the "after turn 1" fork like any session, then fork it.
    let (fork1, mut lineage) = after_turn_1.expect("an \"after turn 1\" case");
    let mut live = s.open(SessionTarget::Resume(fork1.clone())).await;
    let resumed = "resumed fork prompt";
    live.turn(resumed).await;
    assert_eq!(
        s.last_dialogue(),
        [exchange(&lineage), vec![Msg::user(resumed)]].concat()
    );
    live.close().await;
    lineage.push(resumed.to_owned());
    let fork1_path = fork1.path.clone().unwrap();
    let fork1_print = Fingerprint::of(&fork1_path);
    let fork1_anchors = anchors(&history_of(&fork1));
    assert_eq!(fork1_anchors.len(), lineage.len());
    for &(name, cut, kept) in H::FORK_OF_FORK_CASES {
        let forked = s.fork(&fork1, &fork1_anchors, cut).await.unwrap();
        fork1_print.assert_unchanged(name);
        H::check_forked(name, &forked, &fork1, &fork1_anchors, kept);
        let mut live = s.open_fork(&forked).await;
        let prompt = format!("prompt in the {name}");
        live.turn(&prompt).await;
        assert_eq!(
            s.last_dialogue(),
            [exchange(&lineage[..kept]), vec![Msg::user(&prompt)]].concat(),
            "{name}"
        );
        live.close().await;
        fork1_print.assert_unchanged(&format!("a turn in the {name}"));
    }
    print.assert_unchanged("everything");
    close_if_open(source_live).await;
    println!(
        "{harness} first prompt of a fork (spawn, fork, turn): median {:?} ({:?})",
        median(first_prompt_times.clone()),
        first_prompt_times
    );
}

pub async fn tool_call_turn_streams_and_reads_back<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    let prompt = "please CALL_TOOL now";
    let log = live.turn(prompt).await;
    let calls: Vec<usize> = (0..log.events.len())
        .filter(|&i| matches!(log.events[i], RuntimeEvent::ToolCall { .. }))
        .collect();
    assert_eq!(calls.len(), 1, "one call, reported once: {:?}", log.events);
    let RuntimeEvent::ToolCall {
        id: call_id,
        name,
        input,
    } = &log.events[calls[0]]
    else {
        unreachable!()
    };
    assert_eq!(name, H::SHELL_TOOL);
    H::check_tool_input(input);
    let result = log
        .events
        .iter()
        .position(|e| matches!(e, RuntimeEvent::ToolResult { .. }))
        .unwrap_or_else(|| panic!("no ToolResult: {:?}", log.events));
    let RuntimeEvent::ToolResult {
        id: result_id,
        output,
        is_error,
    } = &log.events[result]
    else {
        unreachable!()
    };
    assert!(calls[0] < result);
    assert!(
        call_id.is_some() && call_id == result_id,
        "the result answers the call"
    );
    assert!(output.contains("tool-ok") && !is_error, "{output}");
    if H::TOOL_REPLY_EXACT {
        assert_eq!(
            log.text,
            format!("{} (tool result: tool-ok)", reply(1, prompt))
        );
    } else {
        assert!(log.text.starts_with(&reply(1, prompt)), "{}", log.text);
    }

    let session = live.session();
    let live = settle::<H>(live).await;
    let history = history_of(&session);
    assert_eq!(history.turns.len(), 1);
    let turn = &history.turns[0];
    assert!(turn.complete);
    assert_eq!(refs(&history), [log.anchor_refs()]);
    let roles: Vec<Role> = turn.messages.iter().map(|m| m.role).collect();
    if H::TOOL_TURN_IS_USER_TOOL_ASSISTANT {
        assert_eq!(
            roles,
            [Role::User, Role::Tool, Role::Assistant],
            "{:?}",
            turn.messages
        );
    }
    let (first, last) = (&turn.messages[0], turn.messages.last().unwrap());
    assert_eq!((first.role, first.text.as_str()), (Role::User, prompt));
    assert_eq!((last.role, &last.text), (Role::Assistant, &log.text));
    let tool = turn
        .messages
        .iter()
        .find(|m| m.role == Role::Tool)
        .and_then(|m| m.tool.clone())
        .expect("the reader has the tool call");
    if H::READER_NAMES_THE_SHELL_TOOL {
        assert_eq!(tool.name, H::SHELL_TOOL);
    }
    assert_eq!(
        &tool.id, call_id,
        "the reader and the events agree on the call id"
    );
    H::check_tool_input(&tool.input);
    if H::TOOL_OUTPUT_EXACT {
        assert_eq!(tool.output.as_deref(), Some("tool-ok"));
    } else {
        let output = tool.output.as_deref().unwrap_or_default();
        assert!(output.contains("tool-ok"), "{tool:?}");
    }
    assert!(!tool.is_error);
    close_if_open(live).await;
}

pub async fn errors_are_typed_and_leave_nothing_behind<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let (source, source_anchors) = s.session_with(H::error_source()).await;
    let print = Fingerprint::of(source.path.as_ref().unwrap());
    let files = s.session_files();

    // Unknown sessions: refused, never a silent new session.
    for (ghost, fork_too) in H::unknown_sessions(&s, &source) {
        let err = s.try_open(SessionTarget::Resume(ghost.clone())).await.err();
        assert!(
            matches!(err, Some(HarnessError::SessionNotFound(_))),
            "{ghost:?}: {err:?}"
        );
        if fork_too {
            let err = s.fork(&ghost, &source_anchors, Cut::After(0)).await.err();
            assert!(
                matches!(err, Some(HarnessError::SessionNotFound(_))),
                "{ghost:?}: {err:?}"
            );
        }
    }

    // Cuts out of range, checkpoints not in the source, a turn still running.
    for refusal in H::refusals(&source_anchors) {
        let Refusal {
            what,
            anchors,
            cut,
            is,
        } = refusal;
        let err = s.fork(&source, &anchors, cut).await.err();
        assert!(err.as_ref().is_some_and(is), "{what} ({cut:?}): {err:?}");
    }

    // A binary that is not there.
    let missing = HarnessBinary {
        path: s.env.root().join(format!("no-such-{}", H::HARNESS.name())),
        ..s.binary.clone()
    };
    let spec = OpenSpec {
        binary: missing.clone(),
        target: SessionTarget::New { cwd: s.cwd() },
        env: s.vars(),
        permissions: Default::default(),
        trusted: None,
        model: None,
    };
    let err = Live::open::<H>(spec).await.err();
    assert!(
        matches!(&err, Some(HarnessError::HarnessNotFound { harness, .. }) if *harness == H::KIND),
        "{err:?}"
    );
    if H::FORK_RUNS_THE_CLI {
        let err = s
            .fork_with(&missing, &source, &source_anchors, Cut::After(0), &s.vars())
            .await
            .err();
        assert!(
            matches!(err, Some(HarnessError::HarnessNotFound { .. })),
            "{err:?}"
        );
    }

    // A version without the verified fork path: no boundaries, and fork refuses.
    if let Some(version) = H::OLD_VERSION {
        let old = HarnessBinary {
            version: version.into(),
            ..s.binary.clone()
        };
        let caps = old.capabilities();
        assert!(
            caps.boundaries.is_empty() && caps.note.is_some(),
            "{caps:?}"
        );
        let err = s
            .fork_with(&old, &source, &source_anchors, Cut::After(0), &s.vars())
            .await
            .err();
        assert!(matches!(err, Some(HarnessError::Unsupported(_))), "{err:?}");
    }
    assert_eq!(
        s.binary.capabilities().boundaries,
        ["after", "before", "latest"]
    );

    H::more_errors(&s, &source, &source_anchors).await;
    assert_eq!(
        s.session_files(),
        files,
        "no failed attempt left a native file"
    );
    print.assert_unchanged("the refused forks");
}

#[cfg(unix)]
pub async fn a_killed_harness_is_reported<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    live.send("SLOW please, then die").await.unwrap();
    live.until_text().await;
    let pid = live.pid().expect("a pid");
    // SAFETY: kill only sends a signal to the CLI this test started.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) }, 0);
    let events = live.until_exited().await;
    let n = events.len();
    let RuntimeEvent::Exited { error: Some(error) } = &events[n - 1] else {
        panic!("no Exited with an error: {events:?}")
    };
    assert!(error.contains(H::KILLED_EXIT_SAYS), "{error}");
    if H::KILLED_TURN_ENDS_FAILED {
        assert!(
            n >= 2
                && matches!(
                    &events[n - 2],
                    RuntimeEvent::TurnEnded {
                        outcome: TurnOutcome::Failed { .. },
                        ..
                    }
                ),
            "the running turn ends as failed: {events:?}"
        );
    } else {
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, RuntimeEvent::TurnEnded { .. })),
            "the turn cannot end normally: {events:?}"
        );
    }
    let err = live.send("are you there?").await.err();
    let Some(HarnessError::HarnessFailed {
        harness,
        message,
        stderr_tail,
    }) = err
    else {
        panic!("expected HarnessFailed, got {err:?}");
    };
    assert_eq!(harness, H::KIND);
    assert!(message.contains(H::KILLED_SEND_SAYS), "{message}");
    assert!(stderr_tail.lines().count() <= 20);
    println!("stderr tail after the kill:\n{stderr_tail}");
    assert!(!super::kit::alive(pid), "reaped, no zombie");
    live.close_quietly().await;
}

pub async fn interrupt_ends_the_turn_and_the_runtime_goes_on<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let harness = H::HARNESS.name();
    let mut live = s.open_new().await;
    let slow = "SLOW story, I will interrupt";
    live.send(slow).await.unwrap();
    let err = live.send("too early").await.err();
    assert!(matches!(err, Some(HarnessError::Busy(_))), "{err:?}");
    let before = live.until_text().await;
    let err = live.send("too early").await.err();
    assert!(matches!(err, Some(HarnessError::Busy(_))), "{err:?}");
    let t0 = Instant::now();
    live.interrupt().await.unwrap();
    let stopped = live.finish_turn(before).await;
    println!(
        "{harness} interrupt: the turn ended {:?} after the request",
        t0.elapsed()
    );
    assert_eq!(stopped.outcome, TurnOutcome::Interrupted, "{stopped:?}");
    assert!(stopped.turn_ref.is_some() && stopped.checkpoint.is_some());
    assert!(
        !stopped.text.contains(&reply(1, slow)),
        "the reply was cut short"
    );

    let next = live.turn("after the interrupt").await;
    H::check_reply_after_interrupt(&next.text);
    H::check_dialogue_after_interrupt(&s.last_dialogue(), slow);

    let session = live.session();
    let live = settle::<H>(live).await;
    let history = history_of(&session);
    assert_eq!(history.turns.len(), 2);
    assert!(history.turns[0].complete, "an interrupted turn is closed");
    assert_eq!(refs(&history), [stopped.anchor_refs(), next.anchor_refs()]);
    close_if_open(live).await;
}

pub async fn close_mid_turn_is_clean<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let mut live = s.open_new().await;
    live.send("SLOW please, I will close").await.unwrap();
    live.until_text().await;
    let session = live.session();
    let t0 = Instant::now();
    let rest = live.close().await;
    println!("{} close mid-turn: {:?}", H::HARNESS.name(), t0.elapsed());
    if H::CLOSE_MID_TURN_ENDS_THE_TURN {
        assert!(
            rest.iter().any(|e| matches!(
                e,
                RuntimeEvent::TurnEnded {
                    outcome: TurnOutcome::Interrupted,
                    ..
                }
            )),
            "{rest:?}"
        );
    }
    if H::CLOSE_MID_TURN_LEAVES_A_FORKABLE_TURN {
        let history = history_of(&session);
        assert_eq!(history.turns.len(), 1);
        assert!(history.turns[0].complete, "the close interrupted the turn");
        s.fork(&session, &anchors(&history), Cut::After(0))
            .await
            .expect("the closed turn is forkable");
    }
}

pub async fn fork_wall_time<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let (source, source_anchors) = s.session_with(&["alpha", "beta", "gamma"]).await;
    for &(name, cut) in H::TIMED_FORKS {
        let mut times = Vec::new();
        for _ in 0..H::TIMED_RUNS {
            let t0 = Instant::now();
            let forked = s.fork(&source, &source_anchors, cut).await.unwrap();
            times.push(t0.elapsed());
            if forked.pending.is_none() {
                let path = forked.session.path.as_ref();
                assert!(path.is_some_and(|p| p.is_file()), "{forked:?}");
            }
        }
        println!(
            "{} native fork {name}: median {:?} (min {:?}, max {:?}, {} runs, 3-turn source)",
            H::HARNESS.name(),
            median(times.clone()),
            times.iter().min().unwrap(),
            times.iter().max().unwrap(),
            times.len()
        );
    }
}

/// How long a timed warm spare waits before its fork: in the app a spare starts in the
/// background after the previous fork and waits for the next one, so its start-up work is
/// done by then.
const SPARE_SETTLE: Duration = Duration::from_millis(300);

/// A warm spare's fork: started ahead, it forks at every case's cut and then is the fork's
/// runtime. Checked as the cold forks are: the source unchanged by a byte, the harness's own
/// checks of the forked session, and what the model sees on the fork's next two turns. Then
/// the warm fork call alone is timed, median and p90, in a spare that had [`SPARE_SETTLE`]
/// after its start and in one forked at once, beside the cold call. A harness without spares
/// (Claude forks lazily) skips.
pub async fn warm_spares_fork_like_the_cold_path<H: HarnessCase>() {
    let Some(s) = Setup::<H>::start().await else {
        return;
    };
    let harness = H::HARNESS.name();
    let env = s.vars();
    let spare = || async {
        Runtime::spare(&s.binary, &env)
            .await
            .map(|started| started.unwrap_or_else(|e| panic!("{harness} spare: {e:?}")))
    };
    let Some(first) = spare().await else {
        return;
    };
    first.close().await;
    let prompts = ["alpha question", "beta question", "gamma question"];
    let (source, source_anchors) = s.session_with(&prompts).await;
    let print = Fingerprint::of(source.path.as_ref().unwrap());
    for &(name, cut, kept) in H::FORK_CASES {
        let warm = spare().await.unwrap();
        let request = ForkRequest {
            binary: &s.binary,
            source: &source,
            anchors: &source_anchors,
            cut,
            env: &env,
            cwd: None,
        };
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let (forked, runtime) = s
            .within(
                "warm fork",
                warm.fork_into_runtime(request, Default::default(), tx),
            )
            .await
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        print.assert_unchanged(name);
        H::check_forked(name, &forked, &source, &source_anchors, kept);
        let mut live = Live::adopted::<H>(Runtime::from_live(runtime), rx).await;
        let prompt = format!("warm fork prompt {name}");
        let log = live.turn(&prompt).await;
        assert_eq!(log.text, reply(kept + 1, &prompt), "{name}");
        let want = [exchange(&prompts[..kept]), vec![Msg::user(&prompt)]].concat();
        assert_eq!(s.last_dialogue(), want, "{name}: what the model saw");
        let second = format!("second warm prompt {name}");
        live.turn(&second).await;
        let want = [
            exchange(&prompts[..kept]),
            exchange_from(kept, &[&prompt]),
            vec![Msg::user(&second)],
        ]
        .concat();
        assert_eq!(s.last_dialogue(), want, "{name}: the fork's second turn");
        live.close().await;
        print.assert_unchanged(&format!("the warm fork {name}"));
    }

    let runs = 20;
    let (name, cut) = H::TIMED_FORKS[0];
    let timed_warm_fork = |settle: Duration| {
        let (spare, env, source, source_anchors) = (&spare, &env, &source, &source_anchors);
        let binary = &s.binary;
        async move {
            let warm = spare().await.unwrap();
            tokio::time::sleep(settle).await;
            let request = ForkRequest {
                binary,
                source,
                anchors: source_anchors,
                cut,
                env,
                cwd: None,
            };
            let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
            let t0 = Instant::now();
            let (_, runtime) = warm
                .fork_into_runtime(request, Default::default(), tx)
                .await
                .unwrap();
            let took = t0.elapsed();
            let _ = runtime.close().await;
            took
        }
    };
    let (mut fresh_times, mut settled_times, mut cold_times) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..runs {
        // Forked at once: the spare's own start-up work may still run beside the fork.
        fresh_times.push(timed_warm_fork(Duration::ZERO).await);
        // As in the app, where a spare starts in the background and waits for a fork.
        settled_times.push(timed_warm_fork(SPARE_SETTLE).await);
        let t0 = Instant::now();
        s.fork(&source, &source_anchors, cut).await.unwrap();
        cold_times.push(t0.elapsed());
    }
    let p90 = |mut times: Vec<Duration>| {
        times.sort();
        times[(times.len() * 9 / 10).min(times.len() - 1)]
    };
    println!(
        "{harness} native fork {name}: warm median {:?} p90 {:?} (spare settled {SPARE_SETTLE:?}) | \
         warm at once median {:?} p90 {:?} | cold median {:?} p90 {:?} ({runs} runs each)",
        median(settled_times.clone()),
        p90(settled_times),
        median(fresh_times.clone()),
        p90(fresh_times),
        median(cold_times.clone()),
        p90(cold_times)
    );
    print.assert_unchanged("everything");
}
