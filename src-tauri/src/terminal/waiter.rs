//! The end of a terminal's process: its tree guarded by the harness process layer, waited for,
//! its leftovers killed, and the tab ended.

use std::sync::{mpsc, Arc};
use std::time::Duration;

use forkhost_harness::process::Tree;
use portable_pty::Child;

use super::output::Sink;
use super::session::{lock, Sessions};
use crate::event_payloads::TerminalExit;

/// After the exit, how long the output already written may take to reach the window.
const OUTPUT_DRAIN: Duration = Duration::from_secs(1);

/// The child's tree under the harness process layer (see the module note); `None`, with a
/// warning, where portable-pty gives nothing to guard it by.
pub(super) fn guard(child: &(dyn Child + Send + Sync)) -> Option<Tree> {
    let pid = child.process_id()?;
    #[cfg(windows)]
    let handle = child.as_raw_handle();
    #[cfg(not(windows))]
    let handle = None;
    match Tree::adopt(pid, handle) {
        Ok(tree) => Some(tree),
        Err(err) => {
            tracing::warn!(error = %err, "terminal process tree not guarded; its tools may outlive it");
            None
        }
    }
}

/// Waits for a terminal's process and ends its tab.
pub(super) struct Waiter {
    pub(super) sessions: Sessions,
    pub(super) sink: Arc<dyn Sink>,
    pub(super) id: String,
    pub(super) thread_id: String,
    pub(super) tree: Option<Tree>,
}

impl Waiter {
    pub(super) fn run(
        self,
        mut child: Box<dyn Child + Send + Sync>,
        output_done: mpsc::Receiver<()>,
        on_exit: impl FnOnce(),
    ) {
        let code = self.wait_and_clean_up(child.as_mut());
        // The master's end closes the terminal: the pseudo console on Windows, which only
        // then ends the output.
        let session = lock(&self.sessions).remove(&self.id);
        let handed_back = session.is_none();
        drop(session);
        let _ = output_done.recv_timeout(OUTPUT_DRAIN);
        tracing::info!(terminal = %self.id, ?code, "terminal ended");
        self.sink.exit(TerminalExit {
            id: self.id.clone(),
            thread_id: self.thread_id.clone(),
            code,
        });
        if !handed_back {
            on_exit();
        }
    }

    /// Waits for the process to exit, kills whatever it left behind (a tool holding the
    /// terminal), and reaps it; its exit code. On Unix the process is waited for without
    /// being reaped first: until the reap its id, hence its group's, cannot name anyone else.
    #[cfg(unix)]
    fn wait_and_clean_up(&self, child: &mut (dyn Child + Send + Sync)) -> Option<u32> {
        let exited = child
            .process_id()
            .map(forkhost_harness::process::wait_exited);
        if let Some(tree) = &self.tree {
            match exited {
                Some(Ok(())) => tree.kill(),
                Some(Err(err)) => {
                    tracing::warn!(terminal = %self.id, error = %err, "could not wait for the terminal process; its leftovers are not killed");
                }
                None => {}
            }
            tree.release();
        }
        child.wait().ok().map(|status| status.exit_code())
    }

    /// Windows: a job is a handle, not an id, so its leftovers are ended after the reap.
    #[cfg(not(unix))]
    fn wait_and_clean_up(&self, child: &mut (dyn Child + Send + Sync)) -> Option<u32> {
        let code = child.wait().ok().map(|status| status.exit_code());
        if let Some(tree) = &self.tree {
            tree.kill();
            tree.release();
        }
        code
    }
}
