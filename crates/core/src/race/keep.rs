//! Keeping one lane of a race (docs/architecture.md "Race"): its changes come back into the
//! source's folder (today's bring back: uncommitted, refused on a conflict with nothing
//! changed), then the other lanes' worktrees are removed — only with the loss the caller
//! confirmed, as `Host::worktree_loss` reports it — and their threads archived.

use serde::{Deserialize, Serialize};

use crate::base::error::{HostError, HostResult};
use crate::files::{ChangesView, WorktreeLoss};
use crate::host::Host;

/// Another lane of the race and what discarding it would lose (`None`: it has no worktree of
/// its own, nothing is removed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct LaneLoss {
    pub thread_id: String,
    #[ts(type = "number")]
    pub lane: i64,
    pub loss: Option<WorktreeLoss>,
}

/// What keeping a lane would do: bring it back into `source`, discard `others`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct KeepPlan {
    pub race_id: String,
    pub source: String,
    pub kept: String,
    pub others: Vec<LaneLoss>,
}

/// What keeping a lane did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct KeptView {
    pub plan: KeepPlan,
    /// The files brought back into the source's folder.
    pub brought_back: ChangesView,
}

fn nothing_to_lose(loss: &WorktreeLoss) -> bool {
    !loss.exists
        || (loss.files.is_empty()
            && loss.commits == 0
            && loss.ignored.is_empty()
            && loss.other_threads.is_empty())
}

impl Host {
    /// What keeping `lane` would bring back and discard: to be shown (and confirmed) first.
    pub async fn keep_plan(&self, lane: &str) -> HostResult<KeepPlan> {
        self.store().thread(lane).await?;
        let rows = self.store().race_of_lane(lane).await?;
        let Some(first) = rows.first() else {
            return Err(HostError::InvalidInput(format!(
                "thread {lane} is not a lane of a race"
            )));
        };
        let (race_id, source) = (first.race_id.clone(), first.source_thread_id.clone());
        let mut others = Vec::new();
        for row in rows.iter().filter(|r| r.thread_id != lane) {
            let archived = self
                .store()
                .thread(&row.thread_id)
                .await
                .map_or(true, |t| t.state == forkhost_store::ThreadState::Archived);
            if archived {
                continue;
            }
            let loss = match self.store().worktree(&row.thread_id).await? {
                Some(_) => Some(self.worktree_loss(&row.thread_id).await?),
                None => None,
            };
            others.push(LaneLoss {
                thread_id: row.thread_id.clone(),
                lane: row.lane,
                loss,
            });
        }
        Ok(KeepPlan {
            race_id,
            source,
            kept: lane.to_owned(),
            others,
        })
    }

    /// Keeps `lane`: its changes into the source's folder, uncommitted; then every other lane's
    /// worktree removed and its thread archived. `accepted` is the plan the user confirmed
    /// ([`Host::keep_plan`]); without it, only lanes with nothing to lose are discarded. A loss
    /// that differs from the accepted one refuses the whole keep (`conflict`) before anything
    /// changes, as does a conflict in the source's folder.
    pub async fn keep(&self, lane: &str, accepted: Option<&KeepPlan>) -> HostResult<KeptView> {
        let plan = self.keep_plan(lane).await?;
        let mut unconfirmed = Vec::new();
        for other in &plan.others {
            let Some(loss) = &other.loss else { continue };
            let confirmed = accepted
                .and_then(|a| a.others.iter().find(|o| o.thread_id == other.thread_id))
                .and_then(|o| o.loss.as_ref());
            if !nothing_to_lose(loss) && confirmed != Some(loss) {
                unconfirmed.push(format!(
                    "lane {} ({} changed files, {} commits)",
                    other.lane,
                    loss.files.len(),
                    loss.commits
                ));
            }
        }
        if !unconfirmed.is_empty() {
            return Err(HostError::Conflict(format!(
                "keeping lane would discard work not confirmed: {}; confirm that loss first \
                 (forkhost keep --yes)",
                unconfirmed.join(", ")
            )));
        }
        let brought_back = self.bring_back(lane, &plan.source).await?;
        for other in &plan.others {
            if self.is_streaming(&other.thread_id).await {
                self.interrupt(&other.thread_id).await?;
            }
            if let Some(loss) = &other.loss {
                let accept = (!nothing_to_lose(loss)).then(|| loss.clone());
                if loss.exists {
                    self.remove_worktree(&other.thread_id, accept).await?;
                }
            }
            self.archive(&other.thread_id, true).await?;
        }
        tracing::info!(race = %plan.race_id, kept = %lane, discarded = plan.others.len(), "race lane kept");
        Ok(KeptView { plan, brought_back })
    }
}
