//! The app menu. Items carry the shortcuts desktop users expect; choosing one sends its id to
//! the focused window as a `menu` event, and that window's UI acts (the same actions its own
//! key handler runs).

use tauri::menu::{Menu, MenuItem, PredefinedMenuItem, Submenu};
use tauri::{AppHandle, Manager, Wry};

use crate::event_list::{channel, emit_to};

/// Menu item ids; the UI's `MenuAction` names them too (ui/src/shortcuts.ts).
pub const QUIT: &str = "quit";

/// (id, label, accelerator) per item; `None` id is a separator.
type Item = (Option<&'static str>, &'static str, Option<&'static str>);

const FILE: &[Item] = &[
    (Some("new_thread"), "New Thread…", Some("CmdOrCtrl+T")),
    (Some("new_window"), "New Window", Some("CmdOrCtrl+N")),
    (
        Some("open_terminal"),
        "Open Terminal Tab",
        Some("CmdOrCtrl+Shift+T"),
    ),
    (None, "", None),
    (Some("close_tab"), "Close Tab", Some("CmdOrCtrl+W")),
    (
        Some("close_window"),
        "Close Window",
        Some("CmdOrCtrl+Shift+W"),
    ),
    (None, "", None),
    (Some("settings"), "Settings…", Some("CmdOrCtrl+Comma")),
    (Some("install_cli"), "Install Command-Line Tool…", None),
    (None, "", None),
    (Some(QUIT), "Quit Forkhost", Some("CmdOrCtrl+Q")),
];

const VIEW: &[Item] = &[
    (
        Some("toggle_sidebar"),
        "Toggle Sidebar",
        Some("CmdOrCtrl+B"),
    ),
    // The sidebar's search box (ui/src/search); the same id as the web view's Ctrl/⌘-K.
    (Some("search"), "Search All Threads…", Some("CmdOrCtrl+K")),
    (None, "", None),
    (Some("next_tab"), "Next Tab", Some("CmdOrCtrl+PageDown")),
    (Some("prev_tab"), "Previous Tab", Some("CmdOrCtrl+PageUp")),
    (
        Some("move_tab_left"),
        "Move Tab Left",
        Some("CmdOrCtrl+Shift+PageUp"),
    ),
    (
        Some("move_tab_right"),
        "Move Tab Right",
        Some("CmdOrCtrl+Shift+PageDown"),
    ),
    (Some("move_tab_to_window"), "Move Tab to New Window", None),
    (None, "", None),
    (
        Some("focus_composer"),
        "Focus Composer",
        Some("CmdOrCtrl+L"),
    ),
];

const THREAD: &[Item] = &[
    (
        Some("fork_selected"),
        "Fork Selected Message",
        Some("CmdOrCtrl+Shift+F"),
    ),
    (
        Some("fork_latest"),
        "Fork After Latest Reply",
        Some("CmdOrCtrl+Shift+L"),
    ),
    (
        Some("race_selected"),
        "Fork ×N From Selected Message…",
        Some("CmdOrCtrl+Shift+R"),
    ),
    (None, "", None),
    (Some("stop"), "Stop", Some("CmdOrCtrl+Period")),
    (Some("refresh"), "Reload Thread", Some("CmdOrCtrl+R")),
];

const HELP: &[Item] = &[
    // The first-run view: which agents are installed and how to get the others.
    (Some("get_started"), "Set Up Agents…", None),
    (Some("check_updates"), "Check for Updates…", None),
];

fn submenu(app: &AppHandle, title: &str, items: &[Item]) -> tauri::Result<Submenu<Wry>> {
    let menu = Submenu::new(app, title, true)?;
    for (id, label, accel) in items {
        match id {
            Some(id) => menu.append(&MenuItem::with_id(app, *id, *label, true, *accel)?)?,
            None => menu.append(&PredefinedMenuItem::separator(app)?)?,
        }
    }
    Ok(menu)
}

pub fn build(app: &AppHandle) -> tauri::Result<Menu<Wry>> {
    let menu = Menu::new(app)?;
    #[cfg(target_os = "macos")]
    {
        let app_menu = Submenu::new(app, "Forkhost", true)?;
        app_menu.append(&PredefinedMenuItem::about(app, None, None)?)?;
        menu.append(&app_menu)?;
    }
    menu.append(&submenu(app, "File", FILE)?)?;
    #[cfg(target_os = "macos")]
    {
        // Clipboard shortcuts in text fields need these on macOS; GTK and WebView2 handle them
        // in the web view.
        let edit = Submenu::new(app, "Edit", true)?;
        edit.append(&PredefinedMenuItem::undo(app, None)?)?;
        edit.append(&PredefinedMenuItem::redo(app, None)?)?;
        edit.append(&PredefinedMenuItem::separator(app)?)?;
        edit.append(&PredefinedMenuItem::cut(app, None)?)?;
        edit.append(&PredefinedMenuItem::copy(app, None)?)?;
        edit.append(&PredefinedMenuItem::paste(app, None)?)?;
        edit.append(&PredefinedMenuItem::select_all(app, None)?)?;
        menu.append(&edit)?;
    }
    menu.append(&submenu(app, "View", VIEW)?)?;
    menu.append(&submenu(app, "Thread", THREAD)?)?;
    menu.append(&submenu(app, "Help", HELP)?)?;
    Ok(menu)
}

/// Sends a menu choice to the focused window (else the main one).
pub fn dispatch(app: &AppHandle, id: &str) {
    if id == QUIT {
        crate::windows::quit(app);
        return;
    }
    let windows = app.webview_windows();
    let target = windows
        .values()
        .find(|w| w.is_focused().unwrap_or(false))
        .or_else(|| windows.get(crate::layout::MAIN_WINDOW))
        .or_else(|| windows.values().next());
    if let Some(window) = target {
        emit_to::<channel::Menu>(app, window.label(), id);
    }
}
