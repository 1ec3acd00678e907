//! The Host's side of approvals, in process: a real Host on a real store, a thread imported
//! from a transcript on disk (`test_host.rs`), and requests raised with the [`Reply`] a harness would hold, whose
//! other end ([`Awaited`]) stands in for the harness process writing the answer. What the
//! harness end receives is what the harness would have been told.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use forkhost_harness::{
    Answer, ApprovalDecision, ApprovalRequest, ApprovalSubject, Awaited, HarnessError, HarnessKind,
    Question, Reply, TurnOutcome,
};

use crate::test_host::{self, TestHost};

use crate::base::events::{ApprovalResolution, HostEvent};
use crate::base::pending::approval_view;
use crate::base::thread_handle::TurnState;
use crate::host::Host;

struct Fixture {
    _base: TestHost,
    host: Host,
    thread: String,
    events: tokio::sync::broadcast::Receiver<HostEvent>,
}

/// A Host with one Claude thread (see `test_host.rs`), listened to.
async fn fixture() -> Fixture {
    let base = test_host::with_claude_thread().await;
    let (host, thread) = (base.host.clone(), base.thread.clone());
    let events = host.subscribe();
    Fixture {
        _base: base,
        host,
        thread,
        events,
    }
}

fn command(id: &str, text: &str, for_session: bool) -> ApprovalRequest {
    ApprovalRequest {
        id: id.into(),
        tool_call_id: Some(format!("call-{id}")),
        subject: ApprovalSubject::Command {
            command: text.into(),
            cwd: None,
        },
        reason: None,
        session_rules: if for_session {
            vec![format!("run exactly `{text}` again")]
        } else {
            Vec::new()
        },
        unsandboxed: false,
    }
}

fn question(id: &str) -> ApprovalRequest {
    ApprovalRequest {
        id: id.into(),
        tool_call_id: None,
        subject: ApprovalSubject::Question {
            questions: vec![
                Question {
                    header: None,
                    prompt: "Which colour?".into(),
                    options: vec!["red".into(), "blue".into()],
                    free_text: false,
                },
                Question {
                    header: None,
                    prompt: "Why?".into(),
                    options: Vec::new(),
                    free_text: true,
                },
            ],
        },
        reason: None,
        session_rules: Vec::new(),
        unsandboxed: false,
    }
}

/// What the harness end was told, in order.
type Told = Arc<Mutex<Vec<Answer>>>;

/// The harness's end: writes every answer (`result` says how that went) and records it.
fn harness(awaited: Awaited, result: fn() -> forkhost_harness::HarnessResult<()>) -> Told {
    let told = Told::default();
    let log = told.clone();
    awaited.spawn_writer(move |answer| {
        log.lock().unwrap().push(answer);
        async move { result() }
    });
    told
}

fn writes() -> forkhost_harness::HarnessResult<()> {
    Ok(())
}

/// The harness's process went while it wrote the answer.
fn pipe_closed() -> forkhost_harness::HarnessResult<()> {
    Err(HarnessError::HarnessFailed {
        harness: HarnessKind::Claude,
        message: "pipe closed".into(),
        stderr_tail: String::new(),
    })
}

impl Fixture {
    /// Raises `request` in runtime `turn` as a harness would; the harness end records.
    async fn raise(&self, request: ApprovalRequest, turn: &TurnState) -> (String, Told) {
        self.raise_with(request, turn, writes).await
    }

    async fn raise_with(
        &self,
        request: ApprovalRequest,
        turn: &TurnState,
        result: fn() -> forkhost_harness::HarnessResult<()>,
    ) -> (String, Told) {
        let view = approval_view(request, 1, turn.generation());
        let id = view.id.clone();
        let (reply, awaited) = Reply::pair();
        let told = harness(awaited, result);
        self.host.raised(&self.thread, view, reply, turn).await;
        (id, told)
    }

    fn pending(&self) -> Vec<String> {
        self.host
            .handle(&self.thread)
            .pending()
            .list()
            .into_iter()
            .map(|r| r.id)
            .collect()
    }

    /// The events so far: `(request id, how)` of each resolution, and the ids requested.
    fn drain(&mut self) -> (Vec<(String, ApprovalResolution)>, Vec<String>, usize) {
        let (mut resolved, mut requested, mut grants) = (Vec::new(), Vec::new(), 0);
        while let Ok(event) = self.events.try_recv() {
            match event {
                HostEvent::ApprovalResolved { thread_id, id, how } => {
                    assert_eq!(thread_id, self.thread);
                    resolved.push((id, how));
                }
                HostEvent::ApprovalRequested { thread_id, request } => {
                    assert_eq!(thread_id, self.thread);
                    requested.push(request.id);
                }
                HostEvent::GrantsChanged { .. } => grants += 1,
                _ => {}
            }
        }
        (resolved, requested, grants)
    }
}

/// Waits until the harness end has been told `n` answers (a granted request is answered on
/// a task of its own).
async fn told(told: &Told, n: usize) -> Vec<Answer> {
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if told.lock().unwrap().len() >= n {
                return told.lock().unwrap().clone();
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the harness end was told in time")
}

#[tokio::test]
async fn an_approval_reaches_the_harness_once_and_is_resolved() {
    let mut f = fixture().await;
    let turn = TurnState::started();
    let (id, harness_told) = f.raise(command("7", "touch x", true), &turn).await;
    assert_eq!(f.pending(), [id.as_str()]);
    assert_eq!(f.drain().1, [id.as_str()], "the card was shown");

    f.host
        .answer_approval(&f.thread, &id, ApprovalDecision::Approve)
        .await
        .unwrap();
    assert_eq!(
        *harness_told.lock().unwrap(),
        [Answer::Decision(ApprovalDecision::Approve)]
    );
    assert!(f.pending().is_empty());
    let (resolved, _, grants) = f.drain();
    assert_eq!(resolved, [(id.clone(), ApprovalResolution::Approve)]);
    assert_eq!(grants, 0, "approved once: no grant");
    assert!(f.host.session_grants(&f.thread).await.unwrap().is_empty());

    // Answered is no longer pending: a second answer reaches nobody.
    let again = f
        .host
        .answer_approval(&f.thread, &id, ApprovalDecision::Decline)
        .await
        .unwrap_err();
    assert_eq!(again.code(), "invalid_input", "{again}");
    assert_eq!(harness_told.lock().unwrap().len(), 1);
    let unknown = f
        .host
        .answer_approval("no-such-thread", &id, ApprovalDecision::Approve)
        .await
        .unwrap_err();
    assert_eq!(unknown.code(), "thread_not_found", "{unknown}");
    assert!(f.host.pending_approvals("no-such-thread").await.is_err());
}

#[tokio::test]
async fn what_the_card_did_not_offer_is_refused_and_the_request_stays() {
    let mut f = fixture().await;
    let turn = TurnState::started();
    let (once, once_told) = f.raise(command("1", "rm -rf build", false), &turn).await;
    let (asked, asked_told) = f.raise(question("2"), &turn).await;
    for (id, decision) in [
        (&once, ApprovalDecision::ApproveForSession),
        (&asked, ApprovalDecision::Approve),
        (&asked, ApprovalDecision::ApproveForSession),
    ] {
        let err = f
            .host
            .answer_approval(&f.thread, id, decision)
            .await
            .unwrap_err();
        assert_eq!(err.code(), "invalid_input", "{id} {decision:?}: {err}");
    }
    // A command is not a question.
    let err = f
        .host
        .answer_question(&f.thread, &once, Some(vec!["red".into()]))
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input", "{err}");
    assert_eq!(f.pending(), [once.as_str(), asked.as_str()]);
    assert!(once_told.lock().unwrap().is_empty());
    assert!(asked_told.lock().unwrap().is_empty());
    assert!(f.drain().0.is_empty(), "nothing resolved");
    assert!(f.host.session_grants(&f.thread).await.unwrap().is_empty());

    // A question may be declined.
    f.host
        .answer_approval(&f.thread, &asked, ApprovalDecision::Decline)
        .await
        .unwrap();
    assert_eq!(
        *asked_told.lock().unwrap(),
        [Answer::Decision(ApprovalDecision::Decline)]
    );
    assert_eq!(f.drain().0, [(asked, ApprovalResolution::Decline)]);
    assert_eq!(
        f.host
            .pending_approvals(&f.thread)
            .await
            .unwrap()
            .into_iter()
            .map(|r| r.id)
            .collect::<Vec<_>>(),
        [once]
    );
}

#[tokio::test]
async fn always_this_session_keeps_a_grant_that_answers_the_next_runtime_only_for_that_command() {
    let mut f = fixture().await;
    let before = TurnState::started();
    let turn = TurnState::started();
    let (id, first_told) = f.raise(command("1", "cargo test", true), &turn).await;
    f.host
        .answer_approval(&f.thread, &id, ApprovalDecision::ApproveForSession)
        .await
        .unwrap();
    assert_eq!(
        *first_told.lock().unwrap(),
        [Answer::Decision(ApprovalDecision::ApproveForSession)]
    );
    let (resolved, _, grants) = f.drain();
    assert_eq!(resolved, [(id, ApprovalResolution::ApproveForSession)]);
    assert_eq!(grants, 1);
    assert_eq!(f.host.session_grants(&f.thread).await.unwrap().len(), 1);

    // The same runtime, and one started before the grant, are still asked: the harness itself
    // remembers within its process what the card said it would.
    for runtime in [&turn, &before] {
        let (asked, told_now) = f.raise(command("2", "cargo test", true), runtime).await;
        assert!(f.pending().contains(&asked), "{asked}");
        assert!(told_now.lock().unwrap().is_empty());
        f.host.drop_pending(&f.thread, runtime);
    }
    f.drain();

    // A runtime started later (the harness restarted) is answered for the user, exactly that
    // command only.
    std::thread::sleep(Duration::from_millis(3));
    let later = TurnState::started();
    let (granted, granted_told) = f.raise(command("3", "cargo test", true), &later).await;
    assert_eq!(
        told(&granted_told, 1).await,
        [Answer::Decision(ApprovalDecision::Approve)]
    );
    assert!(!f.pending().contains(&granted));
    let (other, other_told) = f
        .raise(command("4", "cargo test && curl evil", true), &later)
        .await;
    assert_eq!(f.pending(), [other.as_str()]);
    assert!(other_told.lock().unwrap().is_empty());
    let (_, requested, _) = f.drain();
    assert_eq!(requested, [other], "the granted one showed no card");

    // A turn sent with grants off (a daemon client's `--approve none`) is asked; the next
    // turn of the same runtime, sent with them on, is answered by the grant again: the
    // switch was that turn's, not the Host's.
    later.finish(TurnOutcome::Completed);
    let _asked_turn = later.begin_with(2, false).expect("idle");
    let (asked, asked_told) = f.raise(command("5", "cargo test", true), &later).await;
    assert!(f.pending().contains(&asked));
    assert!(asked_told.lock().unwrap().is_empty());
    f.host.drop_pending(&f.thread, &later);
    f.drain();
    later.finish(TurnOutcome::Completed);
    let _granted_turn = later.begin_with(3, true).expect("idle");
    let (_, again_told) = f.raise(command("6", "cargo test", true), &later).await;
    assert_eq!(
        told(&again_told, 1).await,
        [Answer::Decision(ApprovalDecision::Approve)]
    );
    f.drain();

    // With grants switched off for the whole Host (the CLI's `--approve none`) the user is
    // asked again.
    f.host.use_session_grants(false);
    let (asked, asked_told) = f.raise(command("7", "cargo test", true), &later).await;
    assert!(f.pending().contains(&asked));
    assert!(asked_told.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_refused_answer_stays_pending_and_a_gone_harness_resolves_gone() {
    let mut f = fixture().await;
    let turn = TurnState::started();
    let (refused, refused_told) = f
        .raise_with(command("1", "ls", true), &turn, || {
            Err(HarnessError::InvalidInput("not for this request".into()))
        })
        .await;
    let err = f
        .host
        .answer_approval(&f.thread, &refused, ApprovalDecision::Approve)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input", "{err}");
    assert_eq!(refused_told.lock().unwrap().len(), 1);
    assert_eq!(f.pending(), [refused.as_str()], "still answerable");
    assert!(f.drain().0.is_empty());

    let (failed, _) = f
        .raise_with(command("2", "ls -l", true), &turn, pipe_closed)
        .await;
    let err = f
        .host
        .answer_approval(&f.thread, &failed, ApprovalDecision::ApproveForSession)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "harness_failed", "{err}");
    assert_eq!(f.pending(), [refused]);
    assert_eq!(f.drain().0, [(failed, ApprovalResolution::Gone)]);
    assert!(
        f.host.session_grants(&f.thread).await.unwrap().is_empty(),
        "an answer that never arrived keeps no grant"
    );

    // The same for a question whose harness is gone.
    let (asked, _) = f.raise_with(question("3"), &turn, pipe_closed).await;
    let err = f
        .host
        .answer_question(&f.thread, &asked, None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "harness_failed", "{err}");
    assert_eq!(f.drain().0, [(asked, ApprovalResolution::Gone)]);
}

#[tokio::test]
async fn questions_take_only_answers_that_fit_and_may_be_dismissed() {
    let mut f = fixture().await;
    let turn = TurnState::started();
    let (id, harness_told) = f.raise(question("1"), &turn).await;
    for unfit in [
        vec!["red".to_owned()],
        vec!["green".into(), "because".into()],
        vec!["red".into(), "because".into(), "extra".into()],
    ] {
        let err = f
            .host
            .answer_question(&f.thread, &id, Some(unfit.clone()))
            .await
            .unwrap_err();
        assert_eq!(err.code(), "invalid_input", "{unfit:?}: {err}");
    }
    assert_eq!(f.pending(), [id.as_str()]);
    assert!(harness_told.lock().unwrap().is_empty());
    let answers = vec!["blue".to_owned(), "any words".into()];
    f.host
        .answer_question(&f.thread, &id, Some(answers.clone()))
        .await
        .unwrap();
    assert_eq!(
        *harness_told.lock().unwrap(),
        [Answer::Questions(Some(answers))]
    );
    assert_eq!(f.drain().0, [(id.clone(), ApprovalResolution::Answered)]);
    let err = f
        .host
        .answer_question(&f.thread, &id, None)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input", "answered already: {err}");

    let (dismissed, dismissed_told) = f.raise(question("2"), &turn).await;
    f.host
        .answer_question(&f.thread, &dismissed, None)
        .await
        .unwrap();
    assert_eq!(*dismissed_told.lock().unwrap(), [Answer::Questions(None)]);
    assert_eq!(f.drain().0, [(dismissed, ApprovalResolution::Dismissed)]);
    assert!(f.pending().is_empty());
}

#[tokio::test]
async fn a_stopped_turn_declines_all_an_ended_runtime_drops_its_own_and_a_withdrawal_one() {
    let mut f = fixture().await;
    let first = TurnState::started();
    let second = TurnState::started();
    let (a, a_told) = f.raise(command("a", "make", true), &first).await;
    let (b, b_told) = f.raise(question("b"), &second).await;
    f.drain();
    let slot = f.host.handle(&f.thread);
    f.host.decline_pending(&f.thread, &slot).await;
    for t in [&a_told, &b_told] {
        assert_eq!(
            *t.lock().unwrap(),
            [Answer::Decision(ApprovalDecision::Decline)]
        );
    }
    assert_eq!(
        f.drain().0,
        [
            (a, ApprovalResolution::Decline),
            (b, ApprovalResolution::Decline)
        ]
    );
    assert!(f.pending().is_empty());

    let (c, c_told) = f.raise(command("c", "make", true), &first).await;
    let (d, _) = f.raise(command("d", "make install", true), &second).await;
    let (e, _) = f.raise(command("e", "make clean", true), &second).await;
    f.drain();
    f.host.drop_pending(&f.thread, &first);
    assert_eq!(
        f.pending(),
        [d.as_str(), e.as_str()],
        "only the ended runtime's go"
    );
    assert_eq!(f.drain().0, [(c, ApprovalResolution::Gone)]);
    assert!(
        c_told.lock().unwrap().is_empty(),
        "a dropped request is not answered"
    );

    // A withdrawal names the harness's own id within its runtime: "e" of the first runtime is
    // no request, "e" of the second is.
    f.host.withdrawn(&f.thread, &first, "e");
    assert_eq!(f.pending(), [d.as_str(), e.as_str()]);
    f.host.withdrawn(&f.thread, &second, "e");
    assert_eq!(f.pending(), [d]);
    assert_eq!(f.drain().0, [(e, ApprovalResolution::Withdrawn)]);
}

#[tokio::test]
async fn an_answer_to_a_process_that_already_went_resolves_the_request_gone() {
    let mut f = fixture().await;
    let turn = TurnState::started();
    let view = approval_view(command("1", "make", true), 1, turn.generation());
    let id = view.id.clone();
    let (reply, awaited) = Reply::pair();
    f.host.raised(&f.thread, view, reply, &turn).await;
    // The harness's end goes with its process, before the user answers.
    drop(awaited);
    f.drain();
    let err = f
        .host
        .answer_approval(&f.thread, &id, ApprovalDecision::Approve)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "invalid_input", "{err}");
    assert!(f.pending().is_empty(), "not offered again");
    assert_eq!(f.drain().0, [(id, ApprovalResolution::Gone)]);
}
