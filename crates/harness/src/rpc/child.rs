//! The owner of the child process: starts it with its reader, ends it, and kills its tree
//! if dropped without being closed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::client::{RpcClient, Shared};
use super::reader::Reader;
use super::{lock, Event, Protocol};
use crate::process::{Spawned, Tree};
use crate::HarnessError;

/// A running child that speaks protocol `P`. Dropping it kills the process tree.
pub(crate) struct RpcChild<P: Protocol> {
    client: RpcClient<P>,
    pid: Option<u32>,
    tree: Tree,
    reader: Mutex<Option<JoinHandle<()>>>,
}

impl<P: Protocol> RpcChild<P> {
    /// Takes a just spawned child (stdin and stdout piped) and starts its reader. `handler`
    /// hears every message and, last, the exit; it runs on the reader task, so it must not
    /// block. `failed` words an error of the harness (or agent) it runs.
    pub fn start(
        failed: impl FnOnce(String) -> HarnessError,
        spawned: Spawned,
        protocol: P,
        handler: impl FnMut(Event<P::Message>) + Send + 'static,
    ) -> Result<Self, HarnessError> {
        let Spawned {
            mut child,
            tree,
            stderr,
        } = spawned;
        let pid = child.id();
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(failed(format!(
                "{} started without its stdio pipes",
                P::NAME
            )));
        };
        let (exited_tx, exited) = watch::channel(None);
        let shared = Arc::new(Shared {
            protocol,
            stdin: tokio::sync::Mutex::new(Some(stdin)),
            pending: Mutex::new(Some(HashMap::new())),
            next_id: AtomicU64::new(1),
            stderr,
            closing: AtomicBool::new(false),
            exited,
        });
        let reader = Reader {
            child,
            tree: tree.clone(),
            shared: shared.clone(),
            exited: exited_tx,
            handler: Box::new(handler),
        };
        let reader = tokio::spawn(reader.run(stdout));
        tracing::debug!(server = P::NAME, pid, "rpc process started");
        Ok(RpcChild {
            client: RpcClient(shared),
            pid,
            tree,
            reader: Mutex::new(Some(reader)),
        })
    }

    pub fn client(&self) -> &RpcClient<P> {
        &self.client
    }

    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Ends the process: closes its stdin (both servers exit on EOF, Pi aborting a running
    /// turn), waits up to `grace`, then terminates its process tree, then kills it. Returns
    /// once the child is reaped.
    pub async fn close(&self, grace: Duration) {
        self.client.0.closing.store(true, Ordering::SeqCst);
        let started = Instant::now();
        self.client.0.stdin.lock().await.take();
        let mut how = "stdin closed";
        if self.client.wait_exit(grace).await.is_none() {
            how = "terminated";
            self.tree.terminate();
            if self
                .client
                .wait_exit(Duration::from_secs(2))
                .await
                .is_none()
            {
                how = "killed";
                self.tree.kill();
                self.client.wait_exit(Duration::from_secs(5)).await;
            }
        }
        let reader = lock(&self.reader).take();
        if let Some(reader) = reader {
            if !self.client.has_exited() {
                // Still there: dropping the reader's `Child` kills it (`kill_on_drop`).
                reader.abort();
            }
            // The reader ends right after the exit; don't hang on a wedged pipe.
            let _ = tokio::time::timeout(Duration::from_secs(5), reader).await;
        }
        tracing::debug!(
            server = P::NAME,
            pid = self.pid,
            how,
            ms = started.elapsed().as_millis() as u64,
            "rpc process closed"
        );
    }
}

impl<P: Protocol> Drop for RpcChild<P> {
    fn drop(&mut self) {
        if let Some(reader) = lock(&self.reader).take() {
            // Dropped without `close`: kill at once. Aborting the reader drops the `Child`,
            // whose `kill_on_drop` then reaps it in the background.
            self.client.0.closing.store(true, Ordering::SeqCst);
            if !self.client.has_exited() {
                self.tree.kill();
            }
            reader.abort();
        }
    }
}
