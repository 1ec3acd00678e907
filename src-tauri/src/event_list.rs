//! The one list of the events the shell sends the UI, beside [`crate::command_list`]: each
//! event's channel name, its payload type, and whether every window hears it or only the one it
//! is sent to. Every emit goes through [`emit_all`] or [`emit_to`], which take an entry of the
//! list and only its payload type, so a payload changed on one side fails this crate's build.
//! On `cargo test` the list becomes `ui/src/bindings/events.ts` ([`crate::command_bindings`]),
//! whose `Events` map types `ui/src/ipc.ts`'s listeners: renaming an event, or changing what
//! it carries, fails the UI's type check. A test holds every `emit` of the crate to this file.

use serde::Serialize;
use tauri::{Emitter, Wry};

/// An event of the list: its channel name and the payload it carries.
pub trait Event {
    const NAME: &'static str;
    type Payload: Serialize + ?Sized;
}

/// An event sent to every window (the UI listens with `on`).
pub trait ToAll: Event {}

/// An event sent to one window, by label (the UI listens with `onHere`, which hears only what
/// is sent to its own window).
pub trait ToWindow: Event {}

/// Sends `payload` to every window.
pub fn emit_all<E: ToAll>(app: &impl Emitter<Wry>, payload: &E::Payload) {
    // A window gone meanwhile is not an error: there is no one to tell.
    let _ = app.emit(E::NAME, payload);
}

/// Sends `payload` to the window labelled `label` only.
pub fn emit_to<E: ToWindow>(app: &impl Emitter<Wry>, label: &str, payload: &E::Payload) {
    let _ = app.emit_to(label, E::NAME, payload);
}

/// Turns the list into one marker type per event (in [`channel`]) and, for the tests,
/// [`events`].
macro_rules! event_list {
    ($( $(#[$doc:meta])* $scope:ident $ty:ident = $name:literal : $payload:ty ; )*) => {
        /// One type per event, named after its channel: `emit_all::<channel::HostEvent>(…)`.
        pub mod channel {
            use super::{Event, ToAll, ToWindow};
            $(
                $(#[$doc])*
                pub struct $ty;

                impl Event for $ty {
                    const NAME: &'static str = $name;
                    type Payload = $payload;
                }

                impl $scope for $ty {}
            )*
        }

        /// Every event of the list, as the UI hears it.
        #[cfg(test)]
        pub(crate) fn events() -> Vec<crate::command_bindings::EventShape> {
            use crate::command_bindings::{EventShape, Shape};
            vec![$(EventShape {
                name: $name,
                to_all: stringify!($scope) == "ToAll",
                payload: Shape::of::<$payload>("", stringify!($payload)),
            }),*]
        }
    };
}

event_list! {
    /// Every Host event of every thread ([`crate::event_bridge`]).
    ToAll HostEvent = "host-event": forkhost_core::HostEvent;
    /// The UI fell behind the Host's events by this many: it re-reads what it shows.
    ToAll HostLagged = "host-lagged": usize;
    ToAll SettingsChanged = "settings-changed": crate::settings::Settings;
    /// A menu item (its id) chosen while the window had focus.
    ToWindow Menu = "menu": str;
    /// A spare window was given tabs: its `window_init` now says what it holds.
    ToWindow WindowAssign = "window-assign": ();
    /// A window shown for a fork being made: `fork_preview` now says what history it inherits
    /// (or, the fork failed, that there is none).
    ToWindow ForkPreview = "fork-preview": ();
    /// The shell changed the window's tabs (one moved to another window).
    ToWindow LayoutChanged = "layout-changed": ();
    /// The window gained focus after a notification about this thread, which still waits.
    ToWindow ActivateThread = "activate-thread": String;
    /// Progress of the update the window is installing.
    ToWindow UpdateProgress = "update-progress": crate::event_payloads::UpdateProgress;
    ToWindow TerminalOutput = "terminal-output": crate::event_payloads::TerminalOutput;
    ToWindow TerminalExit = "terminal-exit": crate::event_payloads::TerminalExit;
    /// A lane of a race started from any window changed.
    ToAll RaceLane = "race-lane": crate::event_payloads::RaceLaneEvent;
    /// A race started from any window ended.
    ToAll RaceEnded = "race-ended": crate::event_payloads::RaceEnded;
}
