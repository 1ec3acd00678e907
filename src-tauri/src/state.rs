//! The app's state, managed by Tauri and read by commands: the Host, the windows and their tabs,
//! settings, terminals, and what the shell's features keep between calls (the spare window
//! being built, fork previews on their way, running searches, race run numbers). Every layout
//! change goes through [`AppState::update_layout`], which saves it and keeps the Host following
//! exactly the threads that have a tab.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use forkhost_core::Host;
use tokio::sync::mpsc;

use crate::layout::{self, LayoutView, Seed, WindowRegistry};
use crate::remote::link::RemoteLinks;
use crate::settings::Settings;
use crate::terminal::Terminals;

/// The app's state, managed by Tauri and read by commands.
pub struct AppState {
    pub data_dir: PathBuf,
    pub host: Host,
    windows: Mutex<WindowRegistry>,
    pub settings: Mutex<Settings>,
    pub terminals: Terminals,
    /// Set once the app is quitting: closing windows then keeps them in the layout.
    exiting: AtomicBool,
    save_layout: mpsc::UnboundedSender<LayoutView>,
    /// The spare window being built (`crate::spare_window`).
    pub building_spare: BuildingSpare,
    /// Windows shown for a fork still being made, with the preview each holds until it asks
    /// (`crate::fork_preview`).
    fork_previews: Mutex<HashMap<String, Option<Seed>>>,
    /// Per window: the flag that stops its running search (`crate::search`).
    searches: Mutex<HashMap<String, Arc<AtomicBool>>>,
    /// The number of the next race this run of the app starts (`crate::race`).
    race_runs: AtomicU64,
    /// The connections to remote hosts' daemons, for remote threads in tabs
    /// (`crate::remote::link`).
    pub remote: RemoteLinks,
}

/// The label of the spare window being built. The window-state plugin's filter reads it too;
/// that filter is made before the app state exists, so it holds a clone.
#[derive(Debug, Clone, Default)]
pub struct BuildingSpare(Arc<Mutex<Option<String>>>);

impl BuildingSpare {
    /// Whether `label` is the spare window being built (the window-state plugin leaves it
    /// alone).
    pub fn is(&self, label: &str) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).as_deref() == Some(label)
    }

    /// `label` is the spare being built now; an older one is a window by now.
    pub fn set(&self, label: &str) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(label.to_owned());
    }
}

impl AppState {
    /// The state for a Host opened on `data_dir` with this saved `layout`; layouts are saved in
    /// the background from here on (the task is started on the async runtime).
    pub fn new(
        data_dir: PathBuf,
        host: Host,
        layout: LayoutView,
        settings: Settings,
        building_spare: BuildingSpare,
        remote: RemoteLinks,
    ) -> Self {
        let (save_tx, save_rx) = mpsc::unbounded_channel();
        tauri::async_runtime::spawn(save_layouts(host.clone(), save_rx));
        Self {
            data_dir,
            host,
            windows: Mutex::new(WindowRegistry::new(layout)),
            settings: Mutex::new(settings),
            terminals: Terminals::default(),
            exiting: AtomicBool::new(false),
            save_layout: save_tx,
            building_spare,
            fork_previews: Mutex::default(),
            searches: Mutex::default(),
            race_runs: AtomicU64::new(1),
            remote,
        }
    }

    pub fn windows(&self) -> MutexGuard<'_, WindowRegistry> {
        self.windows.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Windows shown for a fork still being made → the preview each holds until it asks.
    pub fn fork_previews(&self) -> MutexGuard<'_, HashMap<String, Option<Seed>>> {
        self.fork_previews.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Window label → the flag that stops its running search.
    pub fn searches(&self) -> MutexGuard<'_, HashMap<String, Arc<AtomicBool>>> {
        self.searches.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The number of a race starting now (from 1, once each).
    pub fn next_race_run(&self) -> u64 {
        self.race_runs.fetch_add(1, Ordering::Relaxed)
    }

    /// Whether the app is quitting (windows closing now stay in the layout).
    pub fn is_exiting(&self) -> bool {
        self.exiting.load(Ordering::SeqCst)
    }

    /// The app is quitting: from now on closing windows keeps them in the layout.
    pub fn mark_exiting(&self) {
        self.exiting.store(true, Ordering::SeqCst);
    }

    /// Changes the layout, saves it, and keeps the Host in step: threads that gained a tab are
    /// followed (live sync), threads that lost their last tab are closed (runtime stopped).
    pub fn update_layout<R>(&self, change: impl FnOnce(&mut WindowRegistry) -> R) -> R {
        let mut windows = self.windows();
        let before = windows.threads();
        let out = change(&mut windows);
        let after = windows.threads();
        let _ = self.save_layout.send(windows.layout.clone());
        drop(windows);
        for gone in before.difference(&after) {
            let (host, id) = (self.host.clone(), gone.clone());
            tauri::async_runtime::spawn(async move {
                if let Err(err) = host.close(&id).await {
                    tracing::debug!(thread = %id, code = err.code(), "close after last tab");
                }
            });
        }
        for new in after.difference(&before) {
            follow(&self.host, new.clone());
        }
        out
    }
}

/// Follows a thread in the background (a failure is only logged: the tab still shows what the
/// store has).
pub fn follow(host: &Host, thread_id: String) {
    let host = host.clone();
    tauri::async_runtime::spawn(async move {
        if let Err(err) = host.follow(&thread_id).await {
            tracing::debug!(thread = %thread_id, code = err.code(), "follow failed");
        }
    });
}

/// Saves layouts in order, skipping to the newest when several queued up.
async fn save_layouts(host: Host, mut rx: mpsc::UnboundedReceiver<LayoutView>) {
    while let Some(mut layout) = rx.recv().await {
        while let Ok(newer) = rx.try_recv() {
            layout = newer;
        }
        if let Err(err) = host.save_layout(&layout).await {
            if matches!(err, forkhost_core::HostError::ThreadNotFound(_)) {
                // A thread vanished under a tab: save what still exists.
                if let Ok(known) = layout::known_threads(&host).await {
                    let _ = host.save_layout(&layout::sanitized(layout, &known)).await;
                }
            } else {
                tracing::warn!(code = err.code(), error = %err, "could not save the layout");
            }
        }
    }
}
