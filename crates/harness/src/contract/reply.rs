//! The way back to a harness that waits on one of its requests: an approval request carries
//! its own [`Reply`] (as Zed's `acp_thread` and codex-rs's `TurnState` do), so the one list of
//! pending requests is the Host's, and each harness writes its answer where its protocol
//! context already is (Claude's `ToolPermission`, Codex's JSON-RPC id, Pi's dialog).
//!
//! The harness side is [`Reply::pair`]'s [`Awaited`]: it waits for an [`Answer`], writes it
//! and reports back whether that worked. An answer the harness refuses (`InvalidInput`: it
//! does not fit the request) is not spent: the request can still be answered. Nobody
//! answering is not an error: when the Host forgets the request (withdrawn, its turn or
//! process over) every handle is dropped and the harness writes nothing.

use std::sync::{Arc, Mutex, Weak};

use tokio::sync::oneshot;

use super::approval::ApprovalDecision;
use crate::error::{HarnessError, HarnessResult};

/// What the user said to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A decision on an approval request (a question can only be declined this way).
    Decision(ApprovalDecision),
    /// One text per question of a question request, or `None`: dismissed.
    Questions(Option<Vec<String>>),
}

type Written = oneshot::Sender<HarnessResult<()>>;
/// Where a reply's one answer goes: empty once sent (or while the harness writes it).
type Open = Mutex<Option<oneshot::Sender<(Answer, Written)>>>;
type Slot = Arc<Open>;

/// Answers one request, once. Clones share the one answer: the first `send` takes it, any
/// later one is `InvalidInput`. (Clonable so that events stay plain data that tests and
/// logs can keep.)
#[derive(Clone, Default)]
pub struct Reply(Slot);

/// The harness's end of a [`Reply`].
pub struct Awaited {
    rx: oneshot::Receiver<(Answer, Written)>,
    /// The replies' shared slot, to open again after a refused answer.
    slot: Weak<Open>,
}

/// The harness's promise to say how writing an answer went.
pub struct Ack(Written);

impl Reply {
    /// A reply and the end the harness waits on.
    pub fn pair() -> (Reply, Awaited) {
        let (tx, rx) = oneshot::channel();
        let slot = Arc::new(Mutex::new(Some(tx)));
        let awaited = Awaited {
            rx,
            slot: Arc::downgrade(&slot),
        };
        (Reply(slot), awaited)
    }

    /// Sends `answer`; returns once the harness wrote it to its process (or could not). A
    /// request answered before, or no longer waited on, is `InvalidInput`.
    pub async fn send(&self, answer: Answer) -> HarnessResult<()> {
        let taken = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        let gone = || HarnessError::InvalidInput("the request is no longer pending".into());
        let tx = taken.ok_or_else(gone)?;
        let (written, done) = oneshot::channel();
        tx.send((answer, written)).map_err(|_| gone())?;
        // A harness that dropped its end without saying (its process went) wrote nothing.
        done.await.unwrap_or_else(|_| Err(gone()))
    }

    /// Whether an answer can still be sent (not sent, and the harness still waits).
    pub fn is_open(&self) -> bool {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .is_some_and(|tx| !tx.is_closed())
    }
}

impl std::fmt::Debug for Reply {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_open() {
            "Reply(open)"
        } else {
            "Reply(closed)"
        })
    }
}

impl PartialEq for Reply {
    /// The same request's reply.
    fn eq(&self, other: &Reply) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Awaited {
    /// The answer, once the user gave one; `None` when nobody will (the request was
    /// forgotten).
    pub async fn answer(self) -> Option<(Answer, Ack)> {
        self.rx
            .await
            .ok()
            .map(|(answer, written)| (answer, Ack(written)))
    }

    /// Waits for the answer on a task of its own and hands it to `write`, which writes it to
    /// the process; its result goes back to whoever answered. An answer `write` refuses as
    /// `InvalidInput` (before writing anything) leaves the request open for another.
    pub fn spawn_writer<F, Fut>(self, mut write: F)
    where
        F: FnMut(Answer) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = HarnessResult<()>> + Send + 'static,
    {
        tokio::spawn(async move {
            let mut awaited = self;
            loop {
                let slot = awaited.slot.clone();
                let Some((answer, ack)) = awaited.answer().await else {
                    return;
                };
                let written = write(answer).await;
                let refused = matches!(written, Err(HarnessError::InvalidInput(_)));
                let again = match (refused, slot.upgrade()) {
                    (true, Some(shared)) => {
                        let (tx, rx) = oneshot::channel();
                        *shared
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(tx);
                        Some(Awaited {
                            rx,
                            slot: Arc::downgrade(&shared),
                        })
                    }
                    _ => None,
                };
                ack.done(written);
                match again {
                    Some(next) => awaited = next,
                    None => return,
                }
            }
        });
    }
}

impl Ack {
    pub fn done(self, written: HarnessResult<()>) {
        let _ = self.0.send(written);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that refuses approvals (as a question does) and fails every other write.
    fn writer(reply_to: Awaited) -> Arc<Mutex<Vec<Answer>>> {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        reply_to.spawn_writer(move |answer| {
            let log = log.clone();
            async move {
                let refused = answer == Answer::Decision(ApprovalDecision::Approve);
                log.lock().unwrap().push(answer);
                match refused {
                    true => Err(HarnessError::InvalidInput("a question".into())),
                    false => Err(HarnessError::HarnessFailed {
                        harness: crate::HarnessKind::Pi,
                        message: "pipe closed".into(),
                        stderr_tail: String::new(),
                    }),
                }
            }
        });
        seen
    }

    #[tokio::test]
    async fn a_refused_answer_leaves_the_request_open_and_a_written_one_closes_it() {
        let (reply, awaited) = Reply::pair();
        let seen = writer(awaited);
        let again = reply.clone();
        let refused = reply
            .send(Answer::Decision(ApprovalDecision::Approve))
            .await;
        assert!(
            matches!(refused, Err(HarnessError::InvalidInput(_))),
            "{refused:?}"
        );
        assert!(again.is_open(), "still answerable");
        let failed = again.send(Answer::Questions(None)).await;
        assert!(
            matches!(failed, Err(HarnessError::HarnessFailed { .. })),
            "{failed:?}"
        );
        assert!(!reply.is_open());
        assert!(matches!(
            reply.send(Answer::Questions(None)).await,
            Err(HarnessError::InvalidInput(_))
        ));
        assert_eq!(
            *seen.lock().unwrap(),
            [
                Answer::Decision(ApprovalDecision::Approve),
                Answer::Questions(None)
            ]
        );
    }

    #[tokio::test]
    async fn a_forgotten_request_is_never_written() {
        let (reply, awaited) = Reply::pair();
        drop(reply);
        assert!(awaited.answer().await.is_none());
        let (reply, awaited) = Reply::pair();
        drop(awaited);
        assert!(!reply.is_open());
        assert!(reply.send(Answer::Questions(None)).await.is_err());
    }
}
