//! Getting the user's attention for a thread that waits on them (an approval request or a
//! question): an OS notification (tauri-plugin-notification, from Rust: the UI needs no
//! notification permission) and the window's taskbar/dock attention request, when the window
//! showing that thread is not focused. Desktop notifications have no click callback on macOS
//! and Windows, so "clicking it shows the thread" is done by focus: the next time that window
//! gains focus while the thread still waits, it is told to activate the thread's tab
//! (`activate-thread`). One notification per request, never for a focused window.
//!
//! Test hook, debug builds only: with `FORKHOST_TEST_NOTIFICATIONS=<file>`, each notification
//! is also appended to that file as one JSON line `{thread_id, title, body}`. Logs hold thread
//! and request ids only.

use std::collections::HashMap;
use std::io::Write;
use std::sync::Mutex;

use forkhost_core::{ApprovalView, Host, SubjectView};
use serde::Serialize;
use tauri::{AppHandle, Manager, UserAttentionType, WebviewWindow};
use tauri_plugin_notification::NotificationExt;

use crate::event_list::{channel, emit_to};
use crate::layout::MAIN_WINDOW;
use crate::state::AppState;

/// The test hook's variable.
pub const TEST_FILE_VAR: &str = "FORKHOST_TEST_NOTIFICATIONS";

/// Per window label: the thread whose notification the user has not come to see yet.
#[derive(Debug, Default)]
pub struct Attention {
    waiting: Mutex<HashMap<String, String>>,
}

/// One notification, as shown and as the test hook records it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    pub thread_id: String,
    pub title: String,
    pub body: String,
}

/// What the request is about, in a few words (the tool's name at most: never the command, the
/// path or a prompt, which may hold secrets and end up in notification logs).
pub fn what(subject: &SubjectView) -> String {
    match subject {
        SubjectView::Command { .. } => "wants to run a command".to_owned(),
        SubjectView::FileChange { paths, .. } if paths.len() == 1 => {
            "wants to change a file".to_owned()
        }
        SubjectView::FileChange { .. } => "wants to change files".to_owned(),
        SubjectView::Tool { name, .. } => format!("wants to use {}", short(name, 60)),
        SubjectView::Question { .. } => "has a question for you".to_owned(),
    }
}

fn short(text: &str, max: usize) -> String {
    let mut out: String = text.chars().take(max).collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}

/// The notification for a request of the thread titled `thread_title`.
pub fn note(thread_id: &str, thread_title: &str, request: &ApprovalView) -> Note {
    let question = matches!(request.subject, SubjectView::Question { .. });
    Note {
        thread_id: thread_id.to_owned(),
        title: if question {
            "Forkhost: a question is waiting".to_owned()
        } else {
            "Forkhost: waiting for your approval".to_owned()
        },
        body: plain_body(&format!(
            "{} {}",
            short(thread_title, 80),
            what(&request.subject)
        )),
    }
}

/// A notification body shown as the text it is. On Linux a freedesktop notification server
/// that supports `body-markup` reads the body as markup (`<a href>`, `<img src>`), and a
/// thread's title can come from a prompt or an imported transcript: `&`, `<` and `>` are
/// escaped there (review L-11). Elsewhere the body is plain text already.
fn plain_body(text: &str) -> String {
    if cfg!(target_os = "linux") {
        text.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    } else {
        text.to_owned()
    }
}

/// The window showing `thread_id` (its active tab first, then any tab; the main window when
/// none shows it).
fn window_of(app: &AppHandle, state: &AppState, thread_id: &str) -> Option<WebviewWindow> {
    let label = {
        let windows = state.windows();
        let holding: Vec<_> = windows
            .layout
            .windows
            .iter()
            .filter(|w| w.tabs.iter().any(|t| t.thread_id == thread_id))
            .collect();
        holding
            .iter()
            .find(|w| {
                w.tabs
                    .iter()
                    .any(|t| Some(&t.id) == w.active_tab.as_ref() && t.thread_id == thread_id)
            })
            .or(holding.first())
            .map(|w| w.id.clone())
            .unwrap_or_else(|| MAIN_WINDOW.to_owned())
    };
    app.get_webview_window(&label)
}

/// A request arrived: notify unless the window showing its thread is focused.
pub async fn requested(app: &AppHandle, host: &Host, thread_id: &str, request: &ApprovalView) {
    let Some((_, window)) = unfocused(app, thread_id) else {
        return;
    };
    let title = match host.threads().await {
        Ok(list) => list
            .into_iter()
            .find(|t| t.id == thread_id)
            .map(|t| t.title)
            .unwrap_or_default(),
        Err(_) => String::new(),
    };
    notify(app, &window, thread_id, &title, request);
}

/// A request of a remote host's thread (`HOST:ID`) arrived over its link: as [`requested`],
/// the thread's title as its host has it.
pub async fn requested_there(app: &AppHandle, thread_id: &str, request: &ApprovalView) {
    let Some((state, window)) = unfocused(app, thread_id) else {
        return;
    };
    let title = match crate::remote::thread::remote(thread_id) {
        Some((host, thread)) => crate::remote::thread::show(&state, host, thread)
            .await
            .map(|d| d.thread.title)
            .unwrap_or_default(),
        None => String::new(),
    };
    notify(app, &window, thread_id, &title, request);
}

/// The window showing `thread_id`, when it is not the focused one (a focused window needs no
/// notification: the card is in front of the user).
fn unfocused<'a>(
    app: &'a AppHandle,
    thread_id: &str,
) -> Option<(tauri::State<'a, AppState>, WebviewWindow)> {
    let state = app.try_state::<AppState>()?;
    let window = window_of(app, &state, thread_id)?;
    match window.is_focused().unwrap_or(false) {
        true => None,
        false => Some((state, window)),
    }
}

/// Notifies about `request` of the thread titled `title`, shown in `window`.
fn notify(
    app: &AppHandle,
    window: &WebviewWindow,
    thread_id: &str,
    title: &str,
    request: &ApprovalView,
) {
    let note = note(thread_id, title, request);
    if let Some(attention) = app.try_state::<Attention>() {
        attention
            .waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(window.label().to_owned(), thread_id.to_owned());
    }
    if let Err(err) = app
        .notification()
        .builder()
        .title(&note.title)
        .body(&note.body)
        .show()
    {
        tracing::warn!(thread = %thread_id, error = %err, "could not show a notification");
    }
    if let Err(err) = window.request_user_attention(Some(UserAttentionType::Informational)) {
        tracing::debug!(error = %err, "could not request the user's attention");
    }
    tracing::info!(thread = %thread_id, request = %request.id, window = %window.label(), "notified");
    record(&note);
}

/// Appends the notification to the test hook's file, when set. Debug builds only (the app's
/// WebDriver tests run one): a release build never appends to a file some environment variable
/// names (review L9).
fn record(note: &Note) {
    if !cfg!(debug_assertions) {
        return;
    }
    let Some(path) = std::env::var_os(TEST_FILE_VAR) else {
        return;
    };
    let Ok(line) = serde_json::to_string(note) else {
        return;
    };
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut f| writeln!(f, "{line}"));
    if let Err(err) = written {
        tracing::warn!(error = %err, "could not record a notification for the tests");
    }
}

/// A window gained focus: if it was notified about a thread that still waits, it shows that
/// thread (the user came from the notification or the taskbar).
pub fn focused(app: &AppHandle, label: &str) {
    let Some(attention) = app.try_state::<Attention>() else {
        return;
    };
    let Some(thread_id) = attention
        .waiting
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .remove(label)
    else {
        return;
    };
    let (app, label) = (app.clone(), label.to_owned());
    tauri::async_runtime::spawn(async move {
        let Some(state) = app.try_state::<AppState>() else {
            return;
        };
        let pending = match crate::remote::thread::remote(&thread_id) {
            Some((host, thread)) => {
                crate::remote::thread::pending_approvals(&state, host, thread).await
            }
            None => state.host.pending_approvals(&thread_id).await,
        };
        let waits = pending.is_ok_and(|list| !list.is_empty());
        if waits {
            emit_to::<channel::ActivateThread>(&app, &label, &thread_id);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(subject: SubjectView) -> ApprovalView {
        ApprovalView {
            id: "1-r1".into(),
            native_id: "r1".into(),
            turn: 1,
            tool_call_id: None,
            subject,
            reason: None,
            can_approve_for_session: true,
            session_rules: vec!["run exactly this again".into()],
        }
    }

    #[test]
    fn a_note_names_the_thread_and_the_tool_never_the_command() {
        let n = note(
            "t1",
            "Fix the build",
            &request(SubjectView::Command {
                command: "curl https://secret.example/?token=abc".into(),
                cwd: None,
                unsandboxed: false,
            }),
        );
        assert_eq!(n.thread_id, "t1");
        assert_eq!(n.title, "Forkhost: waiting for your approval");
        assert_eq!(n.body, "Fix the build wants to run a command");
        let n = note(
            "t1",
            "x",
            &request(SubjectView::Tool {
                name: "Write".into(),
                input: serde_json::json!({"file_path": "/home/me/secret.txt"}),
            }),
        );
        assert_eq!(n.body, "x wants to use Write");
        let n = note(
            "t1",
            "x",
            &request(SubjectView::FileChange {
                paths: vec!["/a".into(), "/b".into()],
                diff: Some("+secret".into()),
            }),
        );
        assert!(
            !n.body.contains("secret") && !n.body.contains("/a"),
            "{n:?}"
        );
    }

    #[test]
    fn long_titles_are_cut() {
        let title = "é".repeat(200);
        let n = note(
            "t",
            &title,
            &request(SubjectView::Command {
                command: "ls".into(),
                cwd: None,
                unsandboxed: false,
            }),
        );
        assert!(n.body.chars().count() < 120, "{}", n.body);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_title_is_never_markup_in_a_linux_notification() {
        let n = note(
            "t",
            "<b>x</b> & <img src=y>",
            &request(SubjectView::Command {
                command: "ls".into(),
                cwd: None,
                unsandboxed: false,
            }),
        );
        assert!(
            n.body.starts_with("&lt;b&gt;x&lt;/b&gt; &amp; &lt;img"),
            "{}",
            n.body
        );
        assert!(!n.body.contains('<'));
    }
}
