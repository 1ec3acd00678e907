//! A thread of a remote host as a client of this machine names it: `HOST:ID`. A window holds
//! one thread id per tab and every command takes one; prefixing the host lets a remote thread
//! sit in a tab beside local ones and every command find its way there (docs/architecture.md
//! "Remote hosts"). Neither half can hide the other: a host's name has no `:` (`hosts add`
//! refuses it) and the Host's own ids are UUIDs.

use crate::base::events::HostEvent;
use crate::base::view::{ThreadDetail, ThreadView};
use crate::cost::TreeCost;
use crate::race::keep::{KeepPlan, KeptView};
use crate::race::{RaceLane, RaceView};
use crate::rewind::{RewindPlan, RewindView, RewoundView};
use crate::search::SearchResults;

/// Where the thread an id names lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadAddress<'a> {
    /// A thread of this machine's Host.
    Here(&'a str),
    /// The thread `thread` of the remote host `host`.
    There { host: &'a str, thread: &'a str },
}

impl<'a> ThreadAddress<'a> {
    /// Reads an id as a client was given it.
    pub fn of(id: &'a str) -> ThreadAddress<'a> {
        match id.split_once(':') {
            Some((host, thread)) if !host.is_empty() && !thread.is_empty() => {
                ThreadAddress::There { host, thread }
            }
            _ => ThreadAddress::Here(id),
        }
    }
}

/// The id a client gives the thread `thread` of the host `host`.
pub fn remote_thread_id(host: &str, thread: &str) -> String {
    format!("{host}:{thread}")
}

impl ThreadView {
    /// This view (a remote host's) with its ids as a client of this machine names them.
    pub fn on_host(mut self, host: &str) -> ThreadView {
        self.id = remote_thread_id(host, &self.id);
        if let Some(fork) = &mut self.fork {
            fork.source_thread = remote_thread_id(host, &fork.source_thread);
        }
        self
    }
}

impl ThreadDetail {
    /// As [`ThreadView::on_host`], with the forks cut at each turn.
    pub fn on_host(mut self, host: &str) -> ThreadDetail {
        self.thread = self.thread.on_host(host);
        for turn in &mut self.turns {
            for fork in &mut turn.forks {
                *fork = remote_thread_id(host, fork);
            }
        }
        self
    }
}

impl RewindPlan {
    /// As [`ThreadView::on_host`].
    pub fn on_host(mut self, host: &str) -> RewindPlan {
        self.thread_id = remote_thread_id(host, &self.thread_id);
        self
    }
}

impl RewindView {
    /// As [`ThreadView::on_host`]: the thread and the line set aside.
    pub fn on_host(mut self, host: &str) -> RewindView {
        self.thread_id = remote_thread_id(host, &self.thread_id);
        if let Some(branch) = &mut self.branch_id {
            *branch = remote_thread_id(host, branch);
        }
        self
    }
}

impl RewoundView {
    /// As [`ThreadView::on_host`].
    pub fn on_host(mut self, host: &str) -> RewoundView {
        self.rewind = self.rewind.on_host(host);
        self.thread = self.thread.on_host(host);
        self
    }
}

impl TreeCost {
    /// As [`ThreadView::on_host`]: the root and each branch.
    pub fn on_host(mut self, host: &str) -> TreeCost {
        self.root = remote_thread_id(host, &self.root);
        for thread in &mut self.threads {
            thread.thread_id = remote_thread_id(host, &thread.thread_id);
        }
        self
    }
}

impl SearchResults {
    /// A remote host's search answer as this machine's search box shows it: its threads'
    /// hits, each group named `HOST:ID` and marked with the host. Sessions that host has not
    /// adopted are left out (opening one would adopt it here, where its file is not).
    pub fn on_host(mut self, host: &str) -> SearchResults {
        self.groups.retain(|g| g.thread_id.is_some());
        for group in &mut self.groups {
            if let Some(id) = &mut group.thread_id {
                *id = remote_thread_id(host, id);
            }
            group.host = Some(host.to_owned());
        }
        self.hits = self.groups.iter().map(|g| g.hits.len()).sum();
        self
    }

    /// Adds `other`'s groups (another machine's) after these: one answer for the search box.
    pub fn merge(&mut self, other: SearchResults) {
        self.hits += other.hits;
        self.truncated |= other.truncated;
        self.files += other.files;
        self.bytes += other.bytes;
        self.decoded += other.decoded;
        self.elapsed_ms = self.elapsed_ms.max(other.elapsed_ms);
        self.groups.extend(other.groups);
    }
}

impl RaceLane {
    /// A remote host's race lane, its fork thread named as a client of this machine names it.
    pub fn on_host(mut self, host: &str) -> RaceLane {
        if let Some(id) = &mut self.thread_id {
            *id = remote_thread_id(host, id);
        }
        self
    }
}

impl RaceView {
    /// As [`RaceLane::on_host`], for the whole race and its source.
    pub fn on_host(mut self, host: &str) -> RaceView {
        self.source = remote_thread_id(host, &self.source);
        self.lanes = self.lanes.into_iter().map(|l| l.on_host(host)).collect();
        self
    }
}

impl KeepPlan {
    /// A remote host's plan with its threads named as a client of this machine names them.
    pub fn on_host(mut self, host: &str) -> KeepPlan {
        self.rename(|id| remote_thread_id(host, id));
        self
    }

    /// The plan a client was shown, named back as `host` names its threads (`None` when a
    /// thread in it is not that host's: a plan of another machine).
    pub fn off_host(mut self, host: &str) -> Option<KeepPlan> {
        let prefix = format!("{host}:");
        let mut foreign = false;
        self.rename(|id| match id.strip_prefix(&prefix) {
            Some(bare) => bare.to_owned(),
            None => {
                foreign = true;
                id.to_owned()
            }
        });
        (!foreign).then_some(self)
    }

    fn rename(&mut self, mut name: impl FnMut(&str) -> String) {
        self.source = name(&self.source);
        self.kept = name(&self.kept);
        for other in &mut self.others {
            other.thread_id = name(&other.thread_id);
        }
    }
}

impl KeptView {
    pub fn on_host(mut self, host: &str) -> KeptView {
        self.plan = self.plan.on_host(host);
        self
    }
}

impl HostEvent {
    /// This event (a remote host's) about its thread as a client of this machine names it.
    pub fn on_host(mut self, host: &str) -> HostEvent {
        let id = self.thread_id_mut();
        *id = remote_thread_id(host, id);
        if let HostEvent::ThreadChanged {
            thread: Some(view), ..
        } = &mut self
        {
            **view = (**view).clone().on_host(host);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_with_a_host_is_there_and_a_plain_one_here() {
        let id = remote_thread_id("dev.box", "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000");
        assert_eq!(id, "dev.box:0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000");
        assert_eq!(
            ThreadAddress::of(&id),
            ThreadAddress::There {
                host: "dev.box",
                thread: "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000"
            }
        );
        for here in ["0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000", ":x", "box:", ""] {
            assert_eq!(ThreadAddress::of(here), ThreadAddress::Here(here));
        }
    }

    #[test]
    fn a_keep_plan_is_named_here_and_back_there_but_never_for_another_host() {
        let plan = KeepPlan {
            race_id: "r".into(),
            source: "s".into(),
            kept: "k".into(),
            others: vec![crate::race::keep::LaneLoss {
                thread_id: "o".into(),
                lane: 2,
                loss: None,
            }],
        };
        let here = plan.clone().on_host("box");
        assert_eq!(
            (
                here.source.as_str(),
                here.kept.as_str(),
                here.others[0].thread_id.as_str()
            ),
            ("box:s", "box:k", "box:o")
        );
        assert_eq!(here.clone().off_host("box"), Some(plan));
        assert_eq!(here.off_host("other"), None);
    }

    #[test]
    fn an_event_names_the_remote_thread_and_its_row() {
        let event = HostEvent::TextDelta {
            thread_id: "t1".into(),
            text: "hi".into(),
        };
        assert_eq!(event.on_host("box").thread_id(), "box:t1");
        let view: ThreadView = serde_json::from_value(serde_json::json!({
            "id": "t2", "harness": "pi", "cwd": "/w", "title": "x", "state": "ready",
            "native": {"session_id": null, "path": null},
            "fork": {"source_thread": "t1", "source_turn": null, "boundary": "after",
                     "source_harness": null, "source_turn_number": null},
            "permissions": {"mode": null, "sandbox": null, "sandbox_default": false},
            "revision": 1, "created_at": 0, "updated_at": 0
        }))
        .unwrap();
        let changed = HostEvent::ThreadChanged {
            thread_id: "t2".into(),
            thread: Some(Box::new(view)),
        }
        .on_host("box");
        let HostEvent::ThreadChanged {
            thread_id,
            thread: Some(view),
        } = changed
        else {
            panic!("still a thread change");
        };
        assert_eq!(thread_id, "box:t2");
        assert_eq!(view.id, "box:t2");
        assert_eq!(view.fork.unwrap().source_thread, "box:t1");
    }
}
