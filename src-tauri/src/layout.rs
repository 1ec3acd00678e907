//! Windows and their tabs: which windows are open, which tabs each holds (in order), which one
//! is active. The UI of each window reports its tabs; this module keeps the whole picture,
//! persists it (Host `save_layout`) at every change, and reopens it at start.

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use forkhost_core::TabKind;
pub use forkhost_core::{LayoutView, TabView, WindowView};

/// Label of the main window (tauri.conf.json `app.windows[0].label`).
pub const MAIN_WINDOW: &str = "main";

/// Prefix of the labels of the other windows (capabilities/default.json lists `w-*`).
pub const WINDOW_PREFIX: &str = "w-";

/// Text to put in a thread's composer when its tab first shows (a fork `before` a turn).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct Prefill {
    pub thread_id: String,
    pub text: String,
}

/// A thread's detail (`ThreadDetail`) serialized once, handed to a window as it is.
pub type Seed = Box<RawValue>;

/// What a window's UI asks for when it loads (the `window_init` reply: a command reply, not an
/// event, so that a large seed travels as a raw response body).
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct WindowInit {
    pub label: String,
    /// The main window shows the sidebar by default.
    pub main: bool,
    pub tabs: Vec<TabView>,
    pub active_tab: Option<String>,
    pub prefill: Option<Prefill>,
    /// Put the keyboard in the active tab's composer at once (a fork window).
    pub focus_composer: bool,
    /// A thread the window can show at once without reading it again (a fork's result).
    #[ts(type = "import(\"./ThreadDetail\").ThreadDetail | null")]
    pub seed: Option<Seed>,
    /// A hidden window kept ready for the next fork: it waits for `window-assign`.
    pub spare: bool,
}

/// One tab to open, without an id yet.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct NewTab {
    pub thread_id: String,
    pub kind: TabKind,
}

/// What a window being opened still has to learn at its first load.
#[derive(Debug, Default)]
struct Pending {
    prefill: Option<Prefill>,
    focus_composer: bool,
    seed: Option<Seed>,
}

/// Every window of the app: the in-memory layout, what a window being opened still has to
/// learn, and the hidden spare windows.
#[derive(Debug, Default)]
pub struct WindowRegistry {
    pub layout: LayoutView,
    pending: HashMap<String, Pending>,
    /// Hidden windows kept ready for forks, and whether their UI is listening yet.
    spares: HashMap<String, bool>,
}

impl WindowRegistry {
    pub fn new(layout: LayoutView) -> Self {
        WindowRegistry {
            layout,
            pending: HashMap::new(),
            spares: HashMap::new(),
        }
    }

    /// A hidden window was built to be used by the next fork.
    pub fn add_spare(&mut self, label: &str) {
        self.spares.insert(label.to_owned(), false);
    }

    /// A spare taken with [`WindowRegistry::take_spare`] is a (ready) spare again.
    pub fn put_back_spare(&mut self, label: &str) {
        self.pending.remove(label);
        self.spares.insert(label.to_owned(), true);
    }

    /// Takes a spare whose UI is ready, if there is one.
    pub fn take_spare(&mut self) -> Option<String> {
        let label = self
            .spares
            .iter()
            .find(|(_, ready)| **ready)
            .map(|(l, _)| l.clone())?;
        self.spares.remove(&label);
        Some(label)
    }

    pub fn is_spare(&self, label: &str) -> bool {
        self.spares.contains_key(label)
    }

    /// Whether any spare exists (ready or still loading).
    pub fn has_spare(&self) -> bool {
        !self.spares.is_empty()
    }

    pub fn window(&self, label: &str) -> Option<&WindowView> {
        self.layout.windows.iter().find(|w| w.id == label)
    }

    /// Adds a window with fresh tab ids; returns it.
    pub fn add_window(
        &mut self,
        label: &str,
        tabs: Vec<NewTab>,
        prefill: Option<Prefill>,
        focus_composer: bool,
        seed: Option<Seed>,
    ) -> WindowView {
        let tabs: Vec<TabView> = tabs
            .into_iter()
            .map(|t| TabView {
                id: new_tab_id(),
                thread_id: t.thread_id,
                kind: t.kind,
            })
            .collect();
        let window = WindowView {
            id: label.to_owned(),
            active_tab: tabs.first().map(|t| t.id.clone()),
            tabs,
        };
        self.layout.windows.retain(|w| w.id != label);
        self.layout.windows.push(window.clone());
        self.pending.insert(
            label.to_owned(),
            Pending {
                prefill,
                focus_composer,
                seed,
            },
        );
        window
    }

    /// The window's tabs as its UI reports them.
    pub fn set_tabs(&mut self, label: &str, tabs: Vec<TabView>, active_tab: Option<String>) {
        let active_tab = active_tab.filter(|a| tabs.iter().any(|t| &t.id == a));
        match self.layout.windows.iter_mut().find(|w| w.id == label) {
            Some(w) => {
                w.tabs = tabs;
                w.active_tab = active_tab;
            }
            None => {
                let window = WindowView {
                    id: label.to_owned(),
                    active_tab,
                    tabs,
                };
                if label == MAIN_WINDOW {
                    self.layout.windows.insert(0, window);
                } else {
                    self.layout.windows.push(window);
                }
            }
        }
    }

    /// Takes one tab out of its window (to move it elsewhere).
    pub fn take_tab(&mut self, label: &str, tab_id: &str) -> Option<TabView> {
        let window = self.layout.windows.iter_mut().find(|w| w.id == label)?;
        let index = window.tabs.iter().position(|t| t.id == tab_id)?;
        let tab = window.tabs.remove(index);
        if window.active_tab.as_deref() == Some(tab_id) {
            window.active_tab = window
                .tabs
                .get(index.min(window.tabs.len().saturating_sub(1)))
                .map(|t| t.id.clone());
        }
        Some(tab)
    }

    pub fn remove_window(&mut self, label: &str) {
        self.layout.windows.retain(|w| w.id != label);
        self.pending.remove(label);
        self.spares.remove(label);
    }

    /// What the window's UI starts with; the one-time parts (prefill, focus) are consumed.
    pub fn init(&mut self, label: &str) -> WindowInit {
        let pending = self.pending.remove(label).unwrap_or_default();
        let spare = match self.spares.get_mut(label) {
            Some(ready) => {
                // Its UI is loaded and listening for `window-assign`.
                *ready = true;
                true
            }
            None => false,
        };
        let window = self.window(label);
        WindowInit {
            label: label.to_owned(),
            main: label == MAIN_WINDOW,
            tabs: window.map(|w| w.tabs.clone()).unwrap_or_default(),
            active_tab: window.and_then(|w| w.active_tab.clone()),
            prefill: pending.prefill,
            focus_composer: pending.focus_composer,
            seed: pending.seed,
            spare,
        }
    }

    /// Every thread some tab shows.
    pub fn threads(&self) -> BTreeSet<String> {
        self.layout
            .windows
            .iter()
            .flat_map(|w| w.tabs.iter().map(|t| t.thread_id.clone()))
            .collect()
    }
}

/// The threads a tab may show: this machine's, and any thread of a remote host still added
/// (whether it is there is the host's to say when the tab opens).
pub struct KnownThreads {
    pub here: BTreeSet<String>,
    pub hosts: BTreeSet<String>,
}

impl KnownThreads {
    pub fn contains(&self, thread_id: &str) -> bool {
        match forkhost_core::ThreadAddress::of(thread_id) {
            forkhost_core::ThreadAddress::There { host, .. } => self.hosts.contains(host),
            forkhost_core::ThreadAddress::Here(id) => self.here.contains(id),
        }
    }
}

/// What [`sanitized`] keeps, from the Host.
pub async fn known_threads(host: &forkhost_core::Host) -> forkhost_core::HostResult<KnownThreads> {
    Ok(KnownThreads {
        here: host.threads().await?.into_iter().map(|t| t.id).collect(),
        hosts: host
            .remote_hosts()
            .await?
            .into_iter()
            .map(|h| h.name)
            .collect(),
    })
}

/// Keeps only tabs of known threads and windows that still hold tabs (the main window
/// always stays, first).
pub fn sanitized(mut layout: LayoutView, known: &KnownThreads) -> LayoutView {
    for window in &mut layout.windows {
        window.tabs.retain(|t| known.contains(&t.thread_id));
        let active_ok = window
            .active_tab
            .as_ref()
            .is_some_and(|a| window.tabs.iter().any(|t| &t.id == a));
        if !active_ok {
            window.active_tab = window.tabs.first().map(|t| t.id.clone());
        }
    }
    layout
        .windows
        .retain(|w| w.id == MAIN_WINDOW || !w.tabs.is_empty());
    let mut seen = BTreeSet::new();
    layout.windows.retain(|w| seen.insert(w.id.clone()));
    match layout.windows.iter().position(|w| w.id == MAIN_WINDOW) {
        Some(0) => {}
        Some(i) => {
            let main = layout.windows.remove(i);
            layout.windows.insert(0, main);
        }
        None => layout.windows.insert(
            0,
            WindowView {
                id: MAIN_WINDOW.to_owned(),
                active_tab: None,
                tabs: Vec::new(),
            },
        ),
    }
    layout
}

pub fn new_tab_id() -> String {
    format!("t-{}", uuid::Uuid::new_v4().simple())
}

/// A label for a new window: `w-` and 12 hex digits (Tauri labels allow `[A-Za-z0-9-/:_]`).
pub fn new_window_label() -> String {
    let id = uuid::Uuid::new_v4().simple().to_string();
    format!("{WINDOW_PREFIX}{}", &id[..12])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tab(id: &str, thread: &str) -> TabView {
        TabView {
            id: id.into(),
            thread_id: thread.into(),
            kind: TabKind::Conversation,
        }
    }

    #[test]
    fn sanitize_drops_unknown_threads_and_empty_windows_and_keeps_main_first() {
        let layout = LayoutView {
            windows: vec![
                WindowView {
                    id: "w-1".into(),
                    active_tab: Some("a".into()),
                    tabs: vec![tab("a", "gone")],
                },
                WindowView {
                    id: "w-2".into(),
                    active_tab: Some("x".into()),
                    tabs: vec![
                        tab("b", "t1"),
                        tab("c", "t2"),
                        tab("r", "box:t9"),
                        tab("s", "gone-box:t1"),
                    ],
                },
            ],
        };
        let known = KnownThreads {
            here: ["t1".to_owned(), "t2".to_owned()].into(),
            hosts: ["box".to_owned()].into(),
        };
        let out = sanitized(layout, &known);
        assert_eq!(out.windows.len(), 2);
        assert_eq!(out.windows[0].id, "main");
        assert!(out.windows[0].tabs.is_empty());
        assert_eq!(out.windows[1].id, "w-2");
        assert_eq!(out.windows[1].active_tab.as_deref(), Some("b"));
        let kept: Vec<_> = out.windows[1].tabs.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(kept, ["b", "c", "r"], "a tab of a host still added stays");
    }

    #[test]
    fn windows_add_init_take() {
        let mut w = WindowRegistry::new(LayoutView::default());
        w.set_tabs(
            "main",
            vec![tab("a", "t1"), tab("b", "t2")],
            Some("b".into()),
        );
        let added = w.add_window(
            "w-x",
            vec![NewTab {
                thread_id: "t3".into(),
                kind: TabKind::Conversation,
            }],
            Some(Prefill {
                thread_id: "t3".into(),
                text: "edit me".into(),
            }),
            true,
            None,
        );
        assert_eq!(added.tabs.len(), 1);
        let init = w.init("w-x");
        assert!(init.focus_composer && !init.main);
        assert_eq!(init.prefill.unwrap().text, "edit me");
        // Prefill is handed out once.
        assert!(w.init("w-x").prefill.is_none());
        assert_eq!(
            w.threads().into_iter().collect::<Vec<_>>(),
            vec!["t1", "t2", "t3"]
        );
        let taken = w.take_tab("main", "b").unwrap();
        assert_eq!(taken.thread_id, "t2");
        assert_eq!(w.window("main").unwrap().active_tab.as_deref(), Some("a"));
        w.remove_window("w-x");
        assert!(w.window("w-x").is_none());
    }

    #[test]
    fn spares_are_handed_out_once_their_ui_listens() {
        let mut w = WindowRegistry::new(LayoutView::default());
        w.add_spare("w-s");
        assert!(w.has_spare() && w.is_spare("w-s"));
        assert_eq!(w.take_spare(), None, "not loaded yet");
        let init = w.init("w-s");
        assert!(init.spare && init.tabs.is_empty());
        assert_eq!(w.take_spare().as_deref(), Some("w-s"));
        assert!(!w.has_spare());
        // Taken: it becomes an ordinary window.
        w.add_window("w-s", vec![], None, false, None);
        assert!(!w.init("w-s").spare);
    }

    #[test]
    fn a_seed_is_handed_out_once_verbatim_and_a_spare_can_be_put_back() {
        let mut w = WindowRegistry::new(LayoutView::default());
        w.add_spare("w-s");
        w.init("w-s");
        assert_eq!(w.take_spare().as_deref(), Some("w-s"));
        w.put_back_spare("w-s");
        assert_eq!(w.take_spare().as_deref(), Some("w-s"), "ready again");
        let seed = RawValue::from_string(r#"{"id":"t5"}"#.to_owned()).unwrap();
        w.add_window(
            "w-s",
            vec![NewTab {
                thread_id: "t5".into(),
                kind: TabKind::Conversation,
            }],
            None,
            true,
            Some(seed),
        );
        let init = w.init("w-s");
        assert!(!init.spare);
        // The reply carries the seed as it is.
        let json = serde_json::to_string(&init).unwrap();
        assert!(json.contains(r#""seed":{"id":"t5"}"#), "{json}");
        assert!(w.init("w-s").seed.is_none(), "handed out once");
    }
}
