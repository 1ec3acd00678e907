//! Rows of the mapping store and the small enums their text columns hold.

use serde::{Deserialize, Serialize};

use crate::StoreError;

macro_rules! text_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "ts", derive(ts_rs::TS))]
        #[serde(rename_all = "lowercase")]
        pub enum $name { $($variant),+ }

        impl $name {
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $text),+ }
            }

            pub fn parse(s: &str) -> Result<Self, StoreError> {
                s.parse()
            }
        }

        impl std::str::FromStr for $name {
            type Err = StoreError;
            fn from_str(s: &str) -> Result<Self, StoreError> {
                match s {
                    $($text => Ok($name::$variant),)+
                    other => Err(StoreError::InvalidInput(format!(
                        concat!("unknown ", stringify!($name), " {:?}"), other
                    ))),
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

text_enum!(
    /// Where a thread is in its life. `creating` rows belong to a fork in progress and are
    /// removed at open when their process is gone.
    ThreadState {
        Creating => "creating",
        Pending => "pending",
        Ready => "ready",
        Missing => "missing",
        Archived => "archived",
    }
);

text_enum!(
    /// Which side of a turn a file checkpoint records.
    Edge {
        Start => "start",
        End => "end",
    }
);

/// The working tree at one edge of a turn, as a commit in the user's repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckpointRow {
    pub thread_id: String,
    pub turn_ordinal: i64,
    pub edge: Edge,
    pub commit_id: String,
}

/// One "Always this session" grant of a thread: `scope` is the core's JSON description of
/// exactly what the card showed; `granted_at` in ms since the epoch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantRow {
    pub id: String,
    pub thread_id: String,
    pub scope: String,
    pub granted_at: i64,
}

/// The git worktree a thread runs in, when Forkhost made one for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorktreeRow {
    pub thread_id: String,
    pub path: String,
    pub branch: String,
    pub repo_root: String,
    pub base_commit: String,
}

text_enum!(
    /// Where a fork cuts its source.
    Boundary {
        After => "after",
        Before => "before",
        Latest => "latest",
    }
);

text_enum!(
    /// What a tab shows: the structured conversation or the harness's own TUI.
    TabKind {
        Conversation => "conversation",
        Terminal => "terminal",
    }
);

/// A fork's origin. `source_turn` is `None` for a fork made before the source's first turn, or
/// once the source turn is gone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lineage {
    pub source_thread: String,
    pub source_turn: Option<String>,
    pub boundary: Boundary,
    /// The source's harness when the fork was made (another one than the fork's own: the
    /// conversation continued in another harness); `None` where it is not known.
    pub source_harness: Option<String>,
}

/// A thread as stored. `revision` is the compare-and-swap token for every change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ThreadRow {
    pub id: String,
    pub harness: String,
    pub cwd: String,
    pub title: String,
    /// The user named it (a rename): no derived title ever replaces it.
    pub title_custom: bool,
    pub state: ThreadState,
    pub native_session_id: Option<String>,
    pub native_path: Option<String>,
    pub fork: Option<Lineage>,
    pub pending_fork: Option<String>,
    /// How much its harness may do without asking, in the harness's words; `None`: the
    /// harness's default.
    pub permission_mode: Option<String>,
    pub permission_sandbox: Option<String>,
    pub revision: i64,
    pub created_at: i64,
    pub updated_at: i64,
}

/// What a caller gives to create a thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewThread {
    pub id: String,
    pub harness: String,
    pub cwd: String,
    pub title: String,
    pub state: ThreadState,
    pub native_session_id: Option<String>,
    pub native_path: Option<String>,
    pub fork: Option<Lineage>,
    pub pending_fork: Option<String>,
    pub permission_mode: Option<String>,
    pub permission_sandbox: Option<String>,
}

/// A turn anchor: host turn id → native coordinates. Never text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRow {
    pub id: String,
    pub thread_id: String,
    /// 1-based position in the thread.
    pub ordinal: i64,
    pub native_turn_ref: String,
    pub native_checkpoint_ref: Option<String>,
}

/// A turn anchor to append; its ordinal follows the thread's last turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTurn {
    pub id: String,
    pub native_turn_ref: String,
    pub native_checkpoint_ref: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WindowRow {
    pub id: String,
    pub active_tab: Option<String>,
    pub tabs: Vec<TabRow>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TabRow {
    pub id: String,
    /// The thread's id in the store of the machine it is on.
    pub thread_id: String,
    pub kind: TabKind,
    /// The remote host the thread is on; `None`: this machine's.
    #[serde(default)]
    pub host: Option<String>,
}

/// Which windows are open, in order, and the tabs each holds, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Layout {
    pub windows: Vec<WindowRow>,
}
