//! A race (docs/architecture.md "Race"): N forks of one turn, each in its own worktree with the
//! files as of that turn, one prompt sent to all at once, at most K turns running together (the
//! rest queued, and saying so). Each lane is an ordinary fork thread; the store records which
//! race it is a lane of (coordinates only). Keeping one lane is [`keep`]. A race may have a
//! budget: once its lanes' own spend passes it, the lanes still running stop.
//!
//! Calls: `fork`, `thread`, `files`, `cost` and the base.

pub(crate) mod keep;

use std::sync::Arc;
use std::time::{Duration, Instant};

use forkhost_harness::{ApprovalDecision, HarnessKind, TurnOutcome, TurnUsage};
use forkhost_store::queries::races::RaceLaneRow;
use serde::{Deserialize, Serialize};
use tokio::sync::{broadcast, Semaphore};

use crate::base::error::{HostError, HostResult};
use crate::base::events::HostEvent;
use crate::base::fork_point::ForkAt;
use crate::base::view::CostFigure;
use crate::files::{FileChangeStatus, ForkFiles, LaneCheck};
use crate::host::{new_id, Host};

/// The most lanes one race may have.
pub const MAX_LANES: usize = 8;

/// How long a lane's check may run unless the race says otherwise.
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(600);

/// One lane as asked for: its harness (`None`: the source's; another one continues the
/// conversation there, as "Continue in another agent" does).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LaneSpec {
    pub harness: Option<HarnessKind>,
    /// Its model (`None`: the harness's own choice), set before its turn; a name the harness
    /// refuses fails that lane in words.
    pub model: Option<String>,
}

/// A race as asked for.
#[derive(Debug, Clone)]
pub struct RaceSpec {
    pub source: String,
    pub at: ForkAt,
    pub lanes: Vec<LaneSpec>,
    pub prompt: String,
    /// The source's folder is not in git: race there anyway, every lane in that one folder.
    pub shared_folder: bool,
    /// At most this many turns at once (default: the number of cores).
    pub max_parallel: Option<usize>,
    /// Answer every approval request of every lane so (`None`: leave it to the user; the lane
    /// shows `waiting_for_approval`).
    pub approve: Option<ApprovalDecision>,
    /// Run this in each lane's folder when its turn ends; it must have been approved there
    /// exactly so ([`Host::approve_check`]).
    pub check: Option<String>,
    /// The check's time limit (default [`CHECK_TIMEOUT`]).
    pub check_timeout: Option<Duration>,
    /// US dollars the race's own turns may spend: once the lanes that ended have spent more,
    /// the lanes still running are stopped and the queued ones are not started (`None`: no
    /// limit). A lane's spend is known when its turn ends (docs/architecture.md "Cost").
    pub budget_usd: Option<f64>,
}

/// Where a lane is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "snake_case")]
pub enum LaneState {
    Queued,
    Running,
    WaitingForApproval,
    /// Its turn ended; its check runs.
    Checking,
    Done,
    Failed,
    /// Stopped, or never started, because the race's spend passed its budget.
    OverBudget,
}

impl LaneState {
    /// Its word, as serialized.
    pub fn as_str(self) -> &'static str {
        match self {
            LaneState::Queued => "queued",
            LaneState::Running => "running",
            LaneState::WaitingForApproval => "waiting for approval",
            LaneState::Checking => "checking",
            LaneState::Done => "done",
            LaneState::Failed => "failed",
            LaneState::OverBudget => "over budget",
        }
    }
}

/// A file a lane changed, with its line counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct LaneFile {
    pub path: String,
    pub status: FileChangeStatus,
    #[ts(type = "number")]
    pub added_lines: usize,
    #[ts(type = "number")]
    pub removed_lines: usize,
}

/// One lane as it is now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RaceLane {
    /// 1-based.
    #[ts(type = "number")]
    pub lane: usize,
    pub harness: HarnessKind,
    /// The model asked for (`None`: the harness's own).
    pub model: Option<String>,
    /// Its fork thread (`None` when the fork itself failed).
    pub thread_id: Option<String>,
    pub cwd: Option<String>,
    pub state: LaneState,
    /// Since its turn started (0 until then).
    #[ts(type = "number")]
    pub elapsed_ms: u64,
    /// The files it changed since the fork point, once its turn ended (`None` in a shared
    /// folder, where they cannot be told apart).
    pub files: Option<Vec<LaneFile>>,
    /// Why it failed, or what it is waiting for, in words.
    pub message: Option<String>,
    /// Its check's end (`None`: no check, or not run yet).
    pub check: Option<LaneCheck>,
    /// Its turn's tokens and cost, once the turn ended, where its harness reports them
    /// (`None`: not yet, or not reported).
    pub usage: Option<TurnUsage>,
    /// What its own turns cost since the fork point, priced like every figure (the harness's
    /// money, else the price table's), once its turn ended (`None`: not yet).
    pub spent: Option<CostFigure>,
}

/// A race once every lane's turn ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RaceView {
    pub race_id: String,
    pub source: String,
    /// How many turns ran at most at once.
    #[ts(type = "number")]
    pub max_parallel: usize,
    /// The lanes share the source's folder (it is not in git).
    pub shared_folder: bool,
    pub lanes: Vec<RaceLane>,
}

/// Told every lane change.
pub type OnLane = Arc<dyn Fn(&RaceLane) + Send + Sync>;

/// The race's own spend against its budget, shared by its lanes.
struct Budget {
    limit: Option<f64>,
    spent: std::sync::Mutex<f64>,
    /// Flips to `true` once the spend passed the limit; lanes still running watch it.
    over: tokio::sync::watch::Sender<bool>,
}

impl Budget {
    fn new(limit: Option<f64>) -> Budget {
        Budget {
            limit,
            spent: std::sync::Mutex::new(0.0),
            over: tokio::sync::watch::channel(false).0,
        }
    }

    /// Adds a lane's spend; true when the race is now over its budget.
    fn add(&self, usd: f64) -> bool {
        let mut spent = self.spent.lock().unwrap_or_else(|e| e.into_inner());
        *spent += usd;
        let over = self.limit.is_some_and(|limit| *spent > limit);
        if over {
            self.over.send_replace(true);
        }
        over
    }

    fn is_over(&self) -> bool {
        *self.over.borrow()
    }

    /// Why a lane stopped, in words.
    fn words(&self, stopped: bool) -> String {
        let spent = *self.spent.lock().unwrap_or_else(|e| e.into_inner());
        format!(
            "{}: the race spent {}, over its budget of {}",
            if stopped { "stopped" } else { "not started" },
            dollars(spent),
            dollars(self.limit.unwrap_or_default())
        )
    }
}

/// US dollars in words: four places, more for an amount smaller than that shows.
fn dollars(usd: f64) -> String {
    match usd {
        u if u == 0.0 || u >= 0.0001 => format!("${u:.4}"),
        u => format!("${u:.8}").trim_end_matches('0').to_owned(),
    }
}

/// What each lane runs once it has a slot.
struct LaneTurn {
    prompt: String,
    approve: Option<ApprovalDecision>,
    check: Option<String>,
    check_timeout: Duration,
    /// The folder the check was approved in (the source's).
    source_folder: std::path::PathBuf,
    budget: Arc<Budget>,
}

impl Host {
    /// The race's own input refused in words: its number of lanes, an empty prompt, no turn
    /// allowed at once. [`Host::race`] checks it first; a caller that runs the race in the
    /// background (the app) checks it before, so that these come back as the call's answer.
    pub fn check_race(&self, spec: &RaceSpec) -> HostResult<()> {
        let n = spec.lanes.len();
        if !(2..=MAX_LANES).contains(&n) {
            return Err(HostError::InvalidInput(format!(
                "a race has 2 to {MAX_LANES} lanes (asked for {n})"
            )));
        }
        if spec.prompt.trim().is_empty() {
            return Err(HostError::InvalidInput(
                "the prompt of a race is empty".into(),
            ));
        }
        if spec.budget_usd.is_some_and(|b| !b.is_finite() || b <= 0.0) {
            return Err(HostError::InvalidInput(
                "a race's budget is a positive number of US dollars".into(),
            ));
        }
        if spec.max_parallel == Some(0) {
            return Err(HostError::InvalidInput(
                "at most 0 agents at once would run nothing".into(),
            ));
        }
        Ok(())
    }

    /// Runs a race to its end: makes the lanes' forks, sends the prompt to all, and returns
    /// each lane's end. A lane that cannot be made (its harness missing) or whose turn fails
    /// fails in words while the others go on; `on_lane` hears every change of a lane.
    pub async fn race(&self, spec: RaceSpec, on_lane: OnLane) -> HostResult<RaceView> {
        self.check_race(&spec)?;
        let n = spec.lanes.len();
        let source = self.store().thread(&spec.source).await?;
        let folder = std::path::PathBuf::from(&source.cwd);
        if let Some(check) = &spec.check {
            if !self.check_approved(&folder, check).await? {
                return Err(HostError::InvalidInput(format!(
                    "the check command `{check}` has not been approved for {}: show it to the \
                     user and approve exactly that text first (forkhost race --check)",
                    folder.display()
                )));
            }
        }
        let in_git = crate::files::repo_of(&folder).await.is_some();
        if !in_git && !spec.shared_folder {
            return Err(HostError::InvalidInput(format!(
                "{} is not in a git repository: the lanes cannot have worktrees of their own and \
                 would share that one folder, changing each other's files; accept that \
                 (forkhost race --shared-folder) or race in a repository",
                folder.display()
            )));
        }
        let files = match in_git {
            true => ForkFiles::Worktree,
            false => ForkFiles::SameFolder,
        };
        let race_id = new_id();
        let mut lanes = Vec::with_capacity(n);
        let mut first_error = None;
        for (i, lane) in spec.lanes.iter().enumerate() {
            let harness = match lane.harness {
                Some(h) => h,
                None => source.harness.parse().map_err(|_| {
                    HostError::Internal(format!("unknown harness {}", source.harness))
                })?,
            };
            let mut view = RaceLane {
                lane: i + 1,
                harness,
                model: lane.model.clone(),
                thread_id: None,
                cwd: None,
                state: LaneState::Queued,
                elapsed_ms: 0,
                files: None,
                message: None,
                check: None,
                usage: None,
                spent: None,
            };
            match self
                .fork_into(&source.id, spec.at.clone(), files, lane.harness)
                .await
            {
                Ok(forked) => {
                    let thread = forked.thread.thread;
                    self.store()
                        .put_race_lane(&RaceLaneRow {
                            thread_id: thread.id.clone(),
                            race_id: race_id.clone(),
                            source_thread_id: source.id.clone(),
                            lane: i as i64 + 1,
                        })
                        .await?;
                    view.thread_id = Some(thread.id);
                    view.cwd = Some(thread.cwd);
                }
                Err(err) => {
                    tracing::warn!(lane = i + 1, code = err.code(), "race lane not made");
                    view.state = LaneState::Failed;
                    view.message = Some(err.to_string());
                    first_error.get_or_insert(err);
                }
            }
            lanes.push(view);
        }
        if let Some(err) = first_error.filter(|_| lanes.iter().all(|l| l.thread_id.is_none())) {
            return Err(err);
        }
        let max_parallel = spec.max_parallel.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        let permits = Arc::new(Semaphore::new(max_parallel));
        let budget = Arc::new(Budget::new(spec.budget_usd));
        let mut running = Vec::new();
        for lane in lanes {
            if lane.thread_id.is_none() {
                on_lane(&lane);
                running.push(tokio::spawn(async move { lane }));
                continue;
            }
            let (host, permits, on_lane) = (self.clone(), permits.clone(), on_lane.clone());
            let turn = LaneTurn {
                prompt: spec.prompt.clone(),
                approve: spec.approve,
                check: spec.check.clone(),
                check_timeout: spec.check_timeout.unwrap_or(CHECK_TIMEOUT),
                source_folder: folder.clone(),
                budget: budget.clone(),
            };
            running.push(tokio::spawn(async move {
                host.run_lane(lane, turn, permits, on_lane).await
            }));
        }
        let mut ended = Vec::with_capacity(n);
        for task in running {
            ended.push(
                task.await
                    .map_err(|e| HostError::Internal(format!("a race lane panicked: {e}")))?,
            );
        }
        tracing::info!(race = %race_id, lanes = n, max_parallel, "race ended");
        Ok(RaceView {
            race_id,
            source: source.id,
            max_parallel,
            shared_folder: !in_git,
            lanes: ended,
        })
    }

    /// One lane: waits for a slot (queued meanwhile), runs its turn, then its changed files
    /// and its check (within its slot: a check is work on the machine too).
    async fn run_lane(
        &self,
        mut lane: RaceLane,
        turn: LaneTurn,
        permits: Arc<Semaphore>,
        on_lane: OnLane,
    ) -> RaceLane {
        let LaneTurn {
            prompt,
            approve,
            check,
            check_timeout,
            source_folder,
            budget,
        } = turn;
        let Some(thread) = lane.thread_id.clone() else {
            return lane;
        };
        let permit = match permits.clone().try_acquire_owned() {
            Ok(permit) => permit,
            Err(_) => {
                lane.message = Some("queued: at most as many agents at once as allowed".into());
                on_lane(&lane);
                match permits.acquire_owned().await {
                    Ok(permit) => permit,
                    Err(_) => return lane,
                }
            }
        };
        if budget.is_over() {
            lane.state = LaneState::OverBudget;
            lane.message = Some(budget.words(false));
            on_lane(&lane);
            return lane;
        }
        let started = Instant::now();
        lane.state = LaneState::Running;
        lane.message = None;
        on_lane(&lane);
        let outcome = self
            .lane_turn(
                &mut lane, &thread, &prompt, approve, &on_lane, started, &budget,
            )
            .await;
        // Its spend since the fork point, read with its history; the race's grows by it.
        match self.cost(&thread).await {
            Ok(cost) => {
                budget.add(cost.own.cost_usd);
                lane.spent = Some(cost.own);
            }
            Err(err) => {
                tracing::warn!(thread = %thread, code = err.code(), "race lane's cost unread")
            }
        }
        let stopped = matches!(outcome, Ok(TurnOutcome::Interrupted)) && budget.is_over();
        // The lane's time is its turn's; the check has its own.
        let turn_ms = started.elapsed().as_millis() as u64;
        if let (Some(command), Ok(TurnOutcome::Completed), Some(cwd)) =
            (&check, &outcome, lane.cwd.clone())
        {
            lane.state = LaneState::Checking;
            lane.elapsed_ms = turn_ms;
            on_lane(&lane);
            let ran = self
                .run_lane_check(
                    command,
                    &source_folder,
                    std::path::Path::new(&cwd),
                    check_timeout,
                )
                .await;
            lane.check = Some(ran);
        }
        drop(permit);
        lane.elapsed_ms = turn_ms;
        match outcome {
            Ok(TurnOutcome::Completed) => {
                lane.state = LaneState::Done;
                lane.message = None;
            }
            Ok(TurnOutcome::Interrupted) if stopped => {
                lane.state = LaneState::OverBudget;
                lane.message = Some(budget.words(true));
            }
            Ok(TurnOutcome::Interrupted) => {
                lane.state = LaneState::Failed;
                lane.message = Some("the turn was interrupted".into());
            }
            Ok(TurnOutcome::Failed { message }) => {
                lane.state = LaneState::Failed;
                lane.message = Some(format!("the turn failed: {message}"));
            }
            Err(err) => {
                lane.state = LaneState::Failed;
                lane.message = Some(err.to_string());
            }
        }
        if self
            .store()
            .worktree(&thread)
            .await
            .ok()
            .flatten()
            .is_some()
        {
            match self.changes(&thread, None).await {
                Ok(changes) => {
                    lane.files = Some(
                        changes
                            .files
                            .into_iter()
                            .map(|f| LaneFile {
                                path: f.path,
                                status: f.status,
                                added_lines: f.added_lines,
                                removed_lines: f.removed_lines,
                            })
                            .collect(),
                    )
                }
                Err(err) => {
                    tracing::warn!(thread = %thread, code = err.code(), "race lane's changes unread")
                }
            }
        }
        on_lane(&lane);
        lane
    }

    /// The lane's turn to its end, its approvals answered by `approve` or shown as waiting;
    /// interrupted once the race is over its budget.
    #[allow(clippy::too_many_arguments)]
    async fn lane_turn(
        &self,
        lane: &mut RaceLane,
        thread: &str,
        prompt: &str,
        approve: Option<ApprovalDecision>,
        on_lane: &OnLane,
        started: Instant,
        budget: &Budget,
    ) -> HostResult<TurnOutcome> {
        if let Some(model) = &lane.model {
            self.set_model(thread, model).await?;
        }
        let mut events = self.subscribe();
        let mut over = budget.over.subscribe();
        let mut done = self.start_turn(thread, prompt).await?;
        let mut interrupted = false;
        loop {
            tokio::select! {
                // Mapped to a bool: the answer (a borrow of the flag) must not live in the
                // select's output across the interrupt's await (the lane's task is Send).
                _ = async { over.wait_for(|over| *over).await.is_ok() }, if !interrupted => {
                    interrupted = true;
                    if budget.is_over() {
                        tracing::info!(thread = %thread, "race over its budget: lane stopped");
                        if let Err(err) = self.interrupt(thread).await {
                            tracing::warn!(thread = %thread, code = err.code(), "race lane not stopped");
                        }
                    }
                }
                outcome = &mut done => {
                    // The turn's end event went out before its outcome: it is queued here.
                    while let Ok(event) = events.try_recv() {
                        take_usage(lane, thread, event);
                    }
                    return Ok(outcome.unwrap_or(TurnOutcome::Failed {
                        message: "the harness stopped before the turn ended".into(),
                    }));
                }
                event = events.recv() => match event {
                    Ok(event @ HostEvent::TurnEnded { .. }) => take_usage(lane, thread, event),
                    Ok(HostEvent::ApprovalRequested { thread_id, request }) if thread_id == thread => {
                        match approve {
                            Some(decision) => {
                                let answered = match request.subject {
                                    crate::base::view::SubjectView::Question { .. } => {
                                        self.answer_question(thread, &request.id, None).await
                                    }
                                    _ => self.answer_approval(thread, &request.id, decision).await,
                                };
                                if let Err(err) = answered {
                                    tracing::warn!(thread = %thread, code = err.code(), "race approval unanswered");
                                }
                            }
                            None => {
                                lane.state = LaneState::WaitingForApproval;
                                lane.elapsed_ms = started.elapsed().as_millis() as u64;
                                on_lane(lane);
                            }
                        }
                    }
                    Ok(HostEvent::ApprovalResolved { thread_id, .. })
                        if thread_id == thread && lane.state == LaneState::WaitingForApproval =>
                    {
                        lane.state = LaneState::Running;
                        on_lane(lane);
                    }
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                    Err(broadcast::error::RecvError::Closed) => {
                        return Ok(done.await.unwrap_or(TurnOutcome::Failed {
                            message: "the harness stopped before the turn ended".into(),
                        }));
                    }
                },
            }
        }
    }
}

/// A lane's usage from its thread's turn-end event.
fn take_usage(lane: &mut RaceLane, thread: &str, event: HostEvent) {
    if let HostEvent::TurnEnded {
        thread_id, usage, ..
    } = event
    {
        if thread_id == thread {
            lane.usage = usage;
        }
    }
}
