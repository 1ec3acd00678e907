//! The event bridge: every [`HostEvent`] reaches every window as one `host-event` Tauri event;
//! a request that waits on the user also gets their attention ([`crate::attention`]), a remote
//! host's too.

use forkhost_core::{Host, HostEvent};
use tauri::{AppHandle, Manager};
use tokio::sync::broadcast;

use crate::event_list::{channel, emit_all};
use crate::state::{follow, AppState};

/// Forwards every Host event to the windows as one `host-event`. Also follows a shown thread
/// again when it changes (its native file may have just appeared).
pub async fn forward_events(app: AppHandle, host: Host) {
    let mut rx = host.subscribe();
    loop {
        match rx.recv().await {
            Ok(event) => {
                if let HostEvent::ApprovalRequested { thread_id, request } = &event {
                    let (app, host) = (app.clone(), host.clone());
                    let (thread_id, request) = (thread_id.clone(), request.clone());
                    tauri::async_runtime::spawn(async move {
                        crate::attention::requested(&app, &host, &thread_id, &request).await;
                    });
                }
                if let HostEvent::ThreadChanged { thread_id, .. } = &event {
                    let shown = app
                        .try_state::<AppState>()
                        .is_some_and(|s| s.windows().threads().contains(thread_id));
                    if shown {
                        follow(&host, thread_id.clone());
                    }
                }
                emit_all::<channel::HostEvent>(&app, &event);
            }
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::warn!(
                    missed,
                    "UI fell behind the Host's events; asking for a reload"
                );
                // Past usize (never in practice) it is still "very many".
                let missed = usize::try_from(missed).unwrap_or(usize::MAX);
                emit_all::<channel::HostLagged>(&app, &missed);
            }
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
}

/// A remote host's request that waits on the user gets their attention as a local one does
/// (the windows already have the event: its link emitted it).
pub async fn attend_remote_requests(app: AppHandle, links: crate::remote::link::RemoteLinks) {
    let mut rx = links.subscribe();
    loop {
        match rx.recv().await {
            Ok(HostEvent::ApprovalRequested { thread_id, request }) => {
                let app = app.clone();
                tauri::async_runtime::spawn(async move {
                    crate::attention::requested_there(&app, &thread_id, &request).await;
                });
            }
            Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
            Err(broadcast::error::RecvError::Closed) => break,
        }
    }
}
