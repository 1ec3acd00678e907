//! A client of `forkhost serve`: calls answered by number, and the entries of its
//! subscriptions in order. Over the data folder's socket on this machine
//! ([`Connection::connect`]), or over any byte stream (`forkhost serve --attach` relayed by
//! ssh: [`Connection::over`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use super::wire::{Call, Entry, Request, Returned, ServerMessage, WireError, PROTOCOL};
use crate::base::error::{HostError, HostResult};
use crate::remote::VERSION;

type Waiting = Arc<Mutex<Calls>>;

/// The calls waiting for their answers; once the connection ended, why (a call made after
/// that hears it at once instead of waiting for an answer that cannot come).
#[derive(Default)]
struct Calls {
    open: HashMap<u64, oneshot::Sender<Result<Returned, WireError>>>,
    ended: Option<WireError>,
}

impl Calls {
    /// The connection is over: every open call, and every later one, hears `why`.
    fn end(&mut self, why: WireError) {
        for (_, caller) in self.open.drain() {
            let _ = caller.send(Err(why.clone()));
        }
        self.ended.get_or_insert(why);
    }
}

/// One connection to a daemon, greeted.
pub struct Connection {
    write: tokio::sync::Mutex<Box<dyn AsyncWrite + Send + Unpin>>,
    next_id: AtomicU64,
    waiting: Waiting,
    entries: tokio::sync::Mutex<mpsc::UnboundedReceiver<Entry>>,
    /// The daemon's boot: a `since` from another boot means nothing to it.
    pub boot: String,
    /// The daemon's newest entry when we said hello.
    pub last_seq: u64,
}

/// What `subscribe` says of the replay to come.
pub struct Subscription {
    /// Entries before the ones replayed were dropped: re-read the thread.
    pub gap: bool,
    /// The first this many entries are the replay; the live ones follow.
    pub replayed: usize,
}

impl Connection {
    /// Connects to the daemon serving `data_dir` on this machine.
    #[cfg(unix)]
    pub async fn connect(data_dir: &Path) -> HostResult<Connection> {
        let socket = super::socket::socket_path(data_dir)?;
        let stream = tokio::net::UnixStream::connect(&socket)
            .await
            .map_err(|e| {
                HostError::HostUnreachable(format!("no daemon at {}: {e}", socket.display()))
            })?;
        let (read, write) = stream.into_split();
        Connection::over(read, write).await
    }

    #[cfg(not(unix))]
    pub async fn connect(_: &Path) -> HostResult<Connection> {
        Err(HostError::Unsupported(
            "a daemon is reached on Linux and macOS; this machine can be its client over ssh"
                .into(),
        ))
    }

    /// A connection over a byte stream whose other end is a daemon (or a relay to one).
    pub async fn over(
        read: impl AsyncRead + Send + Unpin + 'static,
        write: impl AsyncWrite + Send + Unpin + 'static,
    ) -> HostResult<Connection> {
        let waiting: Waiting = Arc::default();
        let (entries_tx, entries) = mpsc::unbounded_channel();
        tokio::spawn(read_messages(read, waiting.clone(), entries_tx));
        let mut connection = Connection {
            write: tokio::sync::Mutex::new(Box::new(write)),
            next_id: AtomicU64::new(1),
            waiting,
            entries: tokio::sync::Mutex::new(entries),
            boot: String::new(),
            last_seq: 0,
        };
        let hello = Call::Hello {
            version: VERSION.to_owned(),
            protocol: PROTOCOL,
        };
        match connection.call(hello).await? {
            Returned::Hello { boot, last_seq, .. } => {
                connection.boot = boot;
                connection.last_seq = last_seq;
                Ok(connection)
            }
            other => Err(unexpected(&other)),
        }
    }

    /// Sends `call` and waits for its answer.
    pub async fn call(&self, call: Call) -> HostResult<Returned> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        {
            let mut calls = self.waiting.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(why) = &calls.ended {
                return Err(why.clone().into());
            }
            calls.open.insert(id, tx);
        }
        let mut line = serde_json::to_vec(&Request { id, call })
            .map_err(|e| HostError::Internal(e.to_string()))?;
        line.push(b'\n');
        {
            let mut write = self.write.lock().await;
            write.write_all(&line).await.map_err(closed)?;
            write.flush().await.map_err(closed)?;
        }
        match rx.await {
            Ok(result) => result.map_err(HostError::from),
            Err(_) => Err(closed("the connection ended")),
        }
    }

    /// Subscribes to `thread`'s entries after `since` (`None`: from its latest turn's start).
    pub async fn subscribe(&self, thread: &str, since: Option<u64>) -> HostResult<Subscription> {
        let call = Call::Subscribe {
            thread: Some(thread.to_owned()),
            since,
        };
        match self.call(call).await? {
            Returned::Subscribed { gap, replayed } => Ok(Subscription { gap, replayed }),
            other => Err(unexpected(&other)),
        }
    }

    /// The next entry of this connection's subscriptions; `None` once the connection ended.
    pub async fn next_entry(&self) -> Option<Entry> {
        self.entries.lock().await.recv().await
    }
}

fn closed(err: impl std::fmt::Display) -> HostError {
    HostError::HostUnreachable(format!("the connection to the daemon was lost ({err})"))
}

fn unexpected(answer: &Returned) -> HostError {
    HostError::Internal(format!("the daemon answered out of turn: {answer:?}"))
}

/// Hands each answer to its caller and each entry to the subscription; at the end, every
/// call still waiting learns the connection is gone.
async fn read_messages(
    read: impl AsyncRead + Unpin,
    waiting: Waiting,
    entries: mpsc::UnboundedSender<Entry>,
) {
    let mut lines = BufReader::new(read).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        match serde_json::from_str::<ServerMessage>(&line) {
            Ok(ServerMessage::Reply { id, result }) => {
                let caller = waiting
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .open
                    .remove(&id);
                if let Some(caller) = caller {
                    let _ = caller.send(result);
                } else if let Err(err) = result {
                    // An answer to no call: the daemon refused the connection itself.
                    tracing::warn!(code = ?err.code, "the daemon refused: {}", err.message);
                    waiting.lock().unwrap_or_else(|e| e.into_inner()).end(err);
                }
            }
            Ok(ServerMessage::Entry { entry }) => {
                let _ = entries.send(entry);
            }
            Err(err) => {
                let value = serde_json::from_str::<serde_json::Value>(&line).ok();
                // `forkhost --json` refusing before any daemon answered (another version
                // there, ssh failing, no such host): every caller hears its code and words.
                if let Some(refused) = value.as_ref().and_then(HostError::in_document) {
                    let refused = WireError::from(&refused);
                    waiting
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .end(refused);
                    break;
                }
                // A reply this build cannot read: its caller hears why instead of waiting.
                tracing::warn!(error = %err, "the daemon sent a line that is no message");
                let id = value.and_then(|v| v.get("id").and_then(serde_json::Value::as_u64));
                let caller = id.and_then(|id| {
                    waiting
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .open
                        .remove(&id)
                });
                if let Some(caller) = caller {
                    let _ = caller.send(Err(WireError {
                        code: crate::base::error::ErrorCode::Internal,
                        message: format!("the daemon's answer could not be read: {err}"),
                    }));
                }
                // An entry skipped would be an event lost without a word: the connection
                // ends instead, and a subscriber reconnects from its last number.
                break;
            }
        }
    }
    waiting
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .end(WireError {
            code: crate::base::error::ErrorCode::HostUnreachable,
            message: "the connection to the daemon was lost (it ended)".into(),
        });
}

#[cfg(test)]
mod tests {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

    use super::*;

    /// A client whose other end is `answer`ed by hand.
    async fn over_hand(
        answer: impl FnOnce(tokio::io::DuplexStream) -> tokio::task::JoinHandle<()>,
    ) -> HostResult<Connection> {
        let (ours, theirs) = tokio::io::duplex(4096);
        let _other = answer(theirs);
        let (read, write) = tokio::io::split(ours);
        Connection::over(read, write).await
    }

    #[tokio::test]
    async fn a_refusal_printed_before_any_daemon_answered_keeps_its_code_and_words() {
        let refused = over_hand(|theirs| {
            tokio::spawn(async move {
                let (read, mut write) = tokio::io::split(theirs);
                let mut lines = BufReader::new(read).lines();
                let _hello = lines.next_line().await;
                let doc =
                    r#"{"error":{"code":"version_mismatch","message":"box runs forkhost 0.0.1"}}"#;
                write
                    .write_all(format!("{doc}\n").as_bytes())
                    .await
                    .unwrap();
                // Held open: the refusal alone must end the wait.
                tokio::time::sleep(std::time::Duration::from_secs(30)).await;
            })
        })
        .await;
        let err = refused.err().expect("refused");
        assert_eq!(err.code(), "version_mismatch");
        assert!(err.to_string().contains("box runs forkhost 0.0.1"), "{err}");
    }

    #[tokio::test]
    async fn a_call_after_the_connection_ended_hears_so_at_once() {
        let connection = over_hand(|theirs| {
            tokio::spawn(async move {
                let (read, mut write) = tokio::io::split(theirs);
                let mut lines = BufReader::new(read).lines();
                let hello = lines.next_line().await.unwrap().unwrap();
                let id = serde_json::from_str::<serde_json::Value>(&hello).unwrap()["id"].clone();
                let reply = serde_json::json!({
                    "kind": "reply", "id": id,
                    "result": {"Ok": {"kind": "hello", "version": VERSION, "protocol": PROTOCOL,
                                      "boot": "b1", "last_seq": 4}}
                });
                write
                    .write_all(format!("{reply}\n").as_bytes())
                    .await
                    .unwrap();
                // Then the daemon's side ends.
            })
        })
        .await
        .expect("greeted");
        assert_eq!((connection.boot.as_str(), connection.last_seq), ("b1", 4));
        assert!(connection.next_entry().await.is_none());
        let err = tokio::time::timeout(
            std::time::Duration::from_secs(10),
            connection.call(Call::Show { thread: "t".into() }),
        )
        .await
        .expect("answered at once, not waiting")
        .unwrap_err();
        assert_eq!(err.code(), "host_unreachable", "{err}");
    }
}
