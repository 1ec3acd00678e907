//! The Host's outward shapes: what the CLI prints as JSON and the app sends to the UI.
//! Field names are a public contract (scripts parse them): add fields, never rename.

use forkhost_store::{ThreadRow, ThreadState};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ThreadView {
    pub id: String,
    pub harness: String,
    pub cwd: String,
    pub title: String,
    pub state: String,
    pub native: NativeView,
    pub fork: Option<ForkView>,
    #[ts(type = "number")]
    pub revision: i64,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub updated_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct NativeView {
    pub session_id: Option<String>,
    pub path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct ForkView {
    pub source_thread: String,
    pub source_turn: Option<String>,
    pub boundary: String,
}

impl From<&ThreadRow> for ThreadView {
    fn from(row: &ThreadRow) -> Self {
        ThreadView {
            id: row.id.clone(),
            harness: row.harness.clone(),
            cwd: row.cwd.clone(),
            title: row.title.clone(),
            state: state_name(row.state).to_owned(),
            native: NativeView {
                session_id: row.native_session_id.clone(),
                path: row.native_path.clone(),
            },
            fork: row.fork.as_ref().map(|f| ForkView {
                source_thread: f.source_thread.clone(),
                source_turn: f.source_turn.clone(),
                boundary: f.boundary.as_str().to_owned(),
            }),
            revision: row.revision,
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }
}

fn state_name(state: ThreadState) -> &'static str {
    state.as_str()
}
