//! Which windows hold which tabs, so a restart reopens what was open: this machine's threads
//! and remote hosts' (`HOST:ID`, kept with their host: removing it removes its tabs).

use forkhost_store::{Layout, TabKind, TabRow, WindowRow};
use serde::{Deserialize, Serialize};

use crate::base::error::{HostError, HostResult};
use crate::host::Host;
use crate::remote::{remote_thread_id, ThreadAddress};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct LayoutView {
    pub windows: Vec<WindowView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct WindowView {
    /// The window's label.
    pub id: String,
    pub active_tab: Option<String>,
    pub tabs: Vec<TabView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct TabView {
    pub id: String,
    pub thread_id: String,
    pub kind: TabKind,
}

impl Host {
    pub async fn layout(&self) -> HostResult<LayoutView> {
        let layout = self.store().layout().await?;
        Ok(LayoutView {
            windows: layout
                .windows
                .into_iter()
                .map(|w| WindowView {
                    id: w.id,
                    active_tab: w.active_tab,
                    tabs: w
                        .tabs
                        .into_iter()
                        .map(|t| TabView {
                            id: t.id,
                            thread_id: match &t.host {
                                Some(host) => remote_thread_id(host, &t.thread_id),
                                None => t.thread_id,
                            },
                            kind: t.kind,
                        })
                        .collect(),
                })
                .collect(),
        })
    }

    /// Replaces the saved layout. Tabs of threads that no longer exist (or of hosts no longer
    /// added) are refused with `thread_not_found`; the old layout then stays. A remote thread's
    /// existence is its host's business: its tab is kept while the host is.
    pub async fn save_layout(&self, layout: &LayoutView) -> HostResult<()> {
        let mut seen = std::collections::HashSet::new();
        let mut windows = Vec::with_capacity(layout.windows.len());
        for w in &layout.windows {
            if w.id.trim().is_empty() || !seen.insert(w.id.clone()) {
                return Err(HostError::InvalidInput(format!(
                    "bad or repeated window id {:?}",
                    w.id
                )));
            }
            let mut tabs = Vec::with_capacity(w.tabs.len());
            for t in &w.tabs {
                if t.id.trim().is_empty() || !seen.insert(t.id.clone()) {
                    return Err(HostError::InvalidInput(format!(
                        "bad or repeated tab id {:?}",
                        t.id
                    )));
                }
                // A remote thread's tab (`HOST:ID`) is kept with its host and its id there.
                let (host, thread_id) = match ThreadAddress::of(&t.thread_id) {
                    ThreadAddress::There { host, thread } => (Some(host.to_owned()), thread),
                    ThreadAddress::Here(thread) => (None, thread),
                };
                tabs.push(TabRow {
                    id: t.id.clone(),
                    thread_id: thread_id.to_owned(),
                    kind: t.kind,
                    host,
                });
            }
            windows.push(WindowRow {
                id: w.id.clone(),
                active_tab: w.active_tab.clone(),
                tabs,
            });
        }
        Ok(self.store().save_layout(&Layout { windows }).await?)
    }
}
