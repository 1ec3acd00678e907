//! Live sync: while a view follows a thread, a [`FileWatch`] on its native file turns what
//! another writer (the user's own terminal) appends into anchors and a `ThreadChanged` event.
//! Re-reading is incremental, so its cost follows the appended bytes.

use tokio::sync::mpsc;

use crate::base::error::{HostError, HostResult};
use crate::base::watch::FileWatch;
use crate::host::Host;

impl Host {
    /// Follows a thread's native file while it is open in a view. Idempotent; following a
    /// thread whose file doesn't exist yet (a pending fork) watches its folder.
    pub async fn follow(&self, thread_id: &str) -> HostResult<()> {
        let thread = self.thread(thread_id).await?;
        // A thread in view may be forked next: its harness's warm spare starts now, not at the
        // first fork (which would otherwise wait seconds for a cold process). One per harness.
        self.ensure_spare(thread.kind);
        let Some(path) = thread.native_path() else {
            return Ok(());
        };
        let path = thread.kind.harness().watched_file(&path);
        if path.parent().is_none() {
            return Ok(());
        }
        let slot = self.handle(thread_id);
        {
            let watch = slot.watch.lock().unwrap_or_else(|e| e.into_inner());
            if watch.as_ref().is_some_and(|w| w.path() == path) {
                return Ok(());
            }
        }
        let (tx, mut rx) = mpsc::unbounded_channel::<()>();
        let watch = FileWatch::start(&path, move || {
            let _ = tx.send(());
        })
        .map_err(|e| HostError::Internal(e.to_string()))?;
        // The task holds the Host weakly: a followed thread does not keep a dropped Host alive.
        let host = std::sync::Arc::downgrade(&self.inner);
        let id = thread_id.to_owned();
        tokio::spawn(async move {
            while rx.recv().await.is_some() {
                let Some(inner) = host.upgrade() else { break };
                let host = Host { inner };
                if let Err(err) = host.sync_thread(&id).await {
                    host.report(&id, &err, "live sync failed");
                }
            }
        });
        *slot.watch.lock().unwrap_or_else(|e| e.into_inner()) = Some(watch);
        Ok(())
    }

    /// Stops following a thread's native file.
    pub fn unfollow(&self, thread_id: &str) {
        let slot = self.handle(thread_id);
        slot.watch.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

// The test writes through a symlinked folder.
#[cfg(all(test, unix))]
mod tests {
    use std::time::Duration;

    use super::*;

    /// A Claude transcript of `turns` complete turns.
    fn transcript(session: &str, turns: usize) -> String {
        let mut out = String::new();
        let mut parent = serde_json::Value::Null;
        for t in 1..=turns {
            let user = format!("u{t}");
            let reply = format!("r{t}");
            let common = |uuid: &str, parent: &serde_json::Value| {
                serde_json::json!({
                    "parentUuid": parent, "isSidechain": false, "uuid": uuid,
                    "timestamp": format!("2026-11-29T18:00:0{t}.000Z"), "cwd": "/w",
                    "sessionId": session, "version": "2.1.332",
                })
            };
            let mut u = common(&user, &parent);
            u["type"] = "user".into();
            u["message"] = serde_json::json!({"role": "user", "content": format!("prompt {t}")});
            let mut a = common(&reply, &serde_json::Value::String(user.clone()));
            a["type"] = "assistant".into();
            a["message"] = serde_json::json!({
                "id": format!("msg_{t}"), "type": "message", "role": "assistant",
                "content": [{"type": "text", "text": format!("reply {t}")}],
                "stop_reason": "end_turn",
            });
            out.push_str(&format!("{u}\n{a}\n"));
            parent = serde_json::Value::String(reply);
        }
        out
    }

    #[tokio::test]
    async fn live_sync_follows_a_transcript_behind_a_symlinked_folder() {
        let home = tempfile::tempdir().unwrap();
        let real = home.path().join("elsewhere/claude");
        let project = real.join("projects/-w");
        std::fs::create_dir_all(&project).unwrap();
        // ~/.claude is a link, as when the config folder lives on another disk.
        std::os::unix::fs::symlink(&real, home.path().join(".claude")).unwrap();
        let session = "0f8c3a64-1111-4222-8333-444455556666";
        let file = project.join(format!("{session}.jsonl"));
        std::fs::write(&file, transcript(session, 1)).unwrap();

        let data = tempfile::tempdir().unwrap();
        let options = crate::host::HostOptions {
            harness_env: vec![("HOME".into(), home.path().display().to_string())],
            ..Default::default()
        };
        let (host, _) = Host::open_with(data.path(), options).await.unwrap();
        let detail = host
            .import(forkhost_harness::HarnessKind::Claude, session)
            .await
            .unwrap();
        let native = detail.thread.native.path.clone().unwrap();
        assert!(
            native.contains("/.claude/"),
            "the thread's path goes through the link: {native}"
        );
        assert_eq!(detail.turns.len(), 1);
        let id = detail.thread.id.clone();
        host.follow(&id).await.unwrap();
        let mut events = host.subscribe();

        // Another writer appends a turn, through the link's target.
        let first = transcript(session, 1);
        let both = transcript(session, 2);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .unwrap();
        std::io::Write::write_all(&mut f, &both.as_bytes()[first.len()..]).unwrap();
        drop(f);
        let synced = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                if let Ok(crate::base::events::HostEvent::ThreadChanged { thread_id, .. }) =
                    events.recv().await
                {
                    if thread_id == id && host.show(&id).await.unwrap().turns.len() == 2 {
                        return;
                    }
                }
            }
        })
        .await;
        assert!(synced.is_ok(), "the watcher missed the appended turn");
        host.unfollow(&id);
        host.shutdown().await;
    }
}
