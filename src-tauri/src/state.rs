//! The app's state, managed by Tauri and read by commands: the Host, the windows and their tabs,
//! settings, terminals. Every layout change goes through [`AppState::update_layout`], which
//! saves it and keeps the Host following exactly the threads that have a tab.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use forkhost_core::Host;
use tokio::sync::mpsc;

use crate::layout::{self, LayoutView, WindowRegistry};
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
}

impl AppState {
    /// The state for a Host opened on `data_dir` with this saved `layout`; layouts are saved in
    /// the background from here on (the task is started on the async runtime).
    pub fn new(data_dir: PathBuf, host: Host, layout: LayoutView, settings: Settings) -> Self {
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
        }
    }

    pub fn windows(&self) -> MutexGuard<'_, WindowRegistry> {
        self.windows.lock().unwrap_or_else(|e| e.into_inner())
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
                if let Ok(threads) = host.threads().await {
                    let known = threads.into_iter().map(|t| t.id).collect();
                    let _ = host.save_layout(&layout::sanitized(layout, &known)).await;
                }
            } else {
                tracing::warn!(code = err.code(), error = %err, "could not save the layout");
            }
        }
    }
}
