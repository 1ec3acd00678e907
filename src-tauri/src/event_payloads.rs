//! The payloads of the shell's own events (the Host's are core's): transport types, kept at
//! the boundary below both the event list and the features that send them, so that neither
//! points back at the other.

use serde::Serialize;

/// Output of a terminal, sent to the window that opened it.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct TerminalOutput {
    pub id: String,
    pub data: String,
}

/// A terminal's process ended.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct TerminalExit {
    pub id: String,
    pub thread_id: String,
    pub code: Option<u32>,
}

/// Where an install stands (the `update-progress` event).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(tag = "stage", rename_all = "snake_case")]
#[ts(export)]
pub enum UpdateProgress {
    /// Bytes received so far; `total` when the server sent a length.
    Downloading {
        #[ts(type = "number")]
        downloaded: u64,
        #[ts(type = "number | null")]
        total: Option<u64>,
    },
    /// Downloaded and verified; the installer runs (it may ask for a password).
    Installing,
    /// Installed; the app restarts into the new version.
    Restarting,
}

/// A race lane changed (`race_start`'s run, every window: each may show the race).
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct RaceLaneEvent {
    /// The run `race_start` returned.
    pub run: String,
    /// The source thread.
    pub source: String,
    pub lane: forkhost_core::RaceLane,
}

/// A race ended: every lane's end, or why none ran.
#[derive(Debug, Clone, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct RaceEnded {
    pub run: String,
    pub source: String,
    pub race: Option<forkhost_core::RaceView>,
    /// Why the race did not run, in words.
    pub error: Option<String>,
}
