//! The `windows`, `tabs` and `remote_tabs` tables: what was open, so a restart reopens it (a
//! remote host's threads too).

use sqlx::SqliteConnection;

use crate::{Layout, Result, StoreError, TabKind, TabRow, WindowRow};

/// Replaces the whole layout. Callers run it in a transaction; the layout is small and written
/// only when the user moves things, so rewriting it whole is simpler than diffing.
pub async fn replace(conn: &mut SqliteConnection, layout: &Layout) -> Result<()> {
    sqlx::query("DELETE FROM windows")
        .execute(&mut *conn)
        .await?;
    for (w_ord, window) in layout.windows.iter().enumerate() {
        if window.id.trim().is_empty() {
            return Err(StoreError::InvalidInput("a window needs an id".into()));
        }
        sqlx::query("INSERT INTO windows (id, ordinal, active_tab) VALUES (?, ?, ?)")
            .bind(&window.id)
            .bind(w_ord as i64)
            .bind(&window.active_tab)
            .execute(&mut *conn)
            .await?;
        for (t_ord, tab) in window.tabs.iter().enumerate() {
            let insert = match &tab.host {
                None => sqlx::query(
                    "INSERT INTO tabs (id, window_id, ordinal, thread_id, kind) \
                     VALUES (?, ?, ?, ?, ?)",
                ),
                Some(_) => sqlx::query(
                    "INSERT INTO remote_tabs (id, window_id, ordinal, thread_id, kind, host) \
                     VALUES (?, ?, ?, ?, ?, ?)",
                ),
            }
            .bind(&tab.id)
            .bind(&window.id)
            .bind(t_ord as i64)
            .bind(&tab.thread_id)
            .bind(tab.kind.as_str());
            let insert = match &tab.host {
                Some(host) => insert.bind(host),
                None => insert,
            };
            insert
                .execute(&mut *conn)
                .await
                .map_err(|err| match StoreError::from(err) {
                    // The only foreign key a tab has besides its window is its thread (or,
                    // for a remote thread, its host).
                    StoreError::Database(e) if is_foreign_key(&e) => {
                        StoreError::ThreadNotFound(match &tab.host {
                            Some(host) => format!("{host}:{}", tab.thread_id),
                            None => tab.thread_id.clone(),
                        })
                    }
                    other => other,
                })?;
        }
    }
    Ok(())
}

fn is_foreign_key(err: &sqlx::Error) -> bool {
    matches!(err, sqlx::Error::Database(db) if db.is_foreign_key_violation())
}

pub async fn load(conn: &mut SqliteConnection) -> Result<Layout> {
    let windows: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT id, active_tab FROM windows ORDER BY ordinal")
            .fetch_all(&mut *conn)
            .await?;
    // Both tables' tabs, in one order per window.
    let tabs: Vec<(String, String, String, String, Option<String>)> = sqlx::query_as(
        "SELECT id, window_id, thread_id, kind, host FROM ( \
           SELECT tabs.id, tabs.window_id, tabs.thread_id, tabs.kind, NULL AS host, \
                  windows.ordinal AS w_ord, tabs.ordinal AS t_ord \
           FROM tabs JOIN windows ON windows.id = tabs.window_id \
           UNION ALL \
           SELECT remote_tabs.id, remote_tabs.window_id, remote_tabs.thread_id, remote_tabs.kind, \
                  remote_tabs.host, windows.ordinal, remote_tabs.ordinal \
           FROM remote_tabs JOIN windows ON windows.id = remote_tabs.window_id \
         ) ORDER BY w_ord, t_ord",
    )
    .fetch_all(&mut *conn)
    .await?;
    let mut layout = Layout {
        windows: windows
            .into_iter()
            .map(|(id, active_tab)| WindowRow {
                id,
                active_tab,
                tabs: Vec::new(),
            })
            .collect(),
    };
    for (id, window_id, thread_id, kind, host) in tabs {
        if let Some(window) = layout.windows.iter_mut().find(|w| w.id == window_id) {
            window.tabs.push(TabRow {
                id,
                thread_id,
                kind: kind.parse::<TabKind>()?,
                host,
            });
        }
    }
    Ok(layout)
}
