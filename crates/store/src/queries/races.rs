//! Races: the forks of one turn that one prompt was sent to at once, by race and lane.

use sqlx::{Row, SqliteConnection};

use crate::time::now_ms;
use crate::Result;

/// One lane of a race: a fork thread, its race, its source and its 1-based lane number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaceLaneRow {
    pub thread_id: String,
    pub race_id: String,
    pub source_thread_id: String,
    pub lane: i64,
}

pub async fn put(conn: &mut SqliteConnection, row: &RaceLaneRow) -> Result<()> {
    sqlx::query(
        "INSERT INTO race_lanes (thread_id, race_id, source_thread_id, lane, created_at) \
         VALUES (?, ?, ?, ?, ?)",
    )
    .bind(&row.thread_id)
    .bind(&row.race_id)
    .bind(&row.source_thread_id)
    .bind(row.lane)
    .bind(now_ms())
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// The lanes of the race `thread_id` is a lane of (empty when it is none), by lane.
pub async fn of_lane(conn: &mut SqliteConnection, thread_id: &str) -> Result<Vec<RaceLaneRow>> {
    let rows = sqlx::query(
        "SELECT thread_id, race_id, source_thread_id, lane FROM race_lanes WHERE race_id = \
         (SELECT race_id FROM race_lanes WHERE thread_id = ?) ORDER BY lane",
    )
    .bind(thread_id)
    .fetch_all(&mut *conn)
    .await?;
    rows.into_iter()
        .map(|row| {
            Ok(RaceLaneRow {
                thread_id: row.try_get("thread_id")?,
                race_id: row.try_get("race_id")?,
                source_thread_id: row.try_get("source_thread_id")?,
                lane: row.try_get("lane")?,
            })
        })
        .collect()
}
