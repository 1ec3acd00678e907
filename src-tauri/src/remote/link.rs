//! One live connection per remote host, to its daemon, for the remote threads shown in tabs
//! (docs/architecture.md "Remote hosts"). It is the bundled CLI's `--host NAME serve --attach`
//! — install on connect, host keys and the user's ssh as in a terminal — spoken to with the
//! daemon's own wire ([`Connection`]). The events of the threads it follows reach the windows
//! as every other `host-event`, named `HOST:ID` ([`ThreadAddress`]); a connection that drops
//! is made again, and the events missed meanwhile are asked for from the last one seen.
//!
//! [`ThreadAddress`]: forkhost_core::ThreadAddress

use std::collections::{HashMap, HashSet};
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use forkhost_core::{
    Call, Connection, ErrorCode, HostError, HostEvent, HostResult, Item, Returned,
};
use tauri::AppHandle;

use crate::event_list::{channel, emit_all};
use crate::event_payloads::{RaceEnded, RaceLaneEvent};
use forkhost_core::remote_thread_id;

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One host's connection, when there is one, behind its own lock.
type Slot = Arc<tokio::sync::Mutex<Option<Arc<Link>>>>;

/// How long making a connection may take: the first one to a host may install forkhost there.
const CONNECT_LIMIT: Duration = Duration::from_secs(5 * 60);
/// The pause before making a dropped connection again (doubling up to [`RETRY_MAX`]).
const RETRY_FIRST: Duration = Duration::from_secs(1);
const RETRY_MAX: Duration = Duration::from_secs(30);

/// The app's connections to remote daemons, by host name (shared: each connection's pump
/// holds it too).
#[derive(Clone)]
pub struct RemoteLinks(Arc<Links>);

struct Links {
    app: AppHandle,
    data_dir: PathBuf,
    /// Per host, its connection, behind a lock of its own: a host slow to answer (ssh's
    /// timeout, an install on connect) holds up no other host's calls.
    links: Mutex<HashMap<String, Slot>>,
    /// Per host: what the windows follow there, and the daemon's boot and newest entry seen,
    /// kept across connections so a new one replays what the old one missed.
    seen: Mutex<HashMap<String, Seen>>,
    /// Every host's events as the windows get them (`HOST:ID`), for what else reacts to them
    /// (a request that waits on the user gets their attention: `event_bridge`).
    events: tokio::sync::broadcast::Sender<HostEvent>,
}

#[derive(Debug, Clone, Default)]
struct Seen {
    followed: HashSet<String>,
    boot: String,
    last_seq: u64,
    streaming: HashSet<String>,
}

/// One connection to a host's daemon.
pub struct Link {
    host: String,
    connection: Connection,
    /// The CLI relaying it (ended with the link).
    _relay: tokio::process::Child,
    ended: AtomicBool,
    /// Entries up to this number have reached the windows.
    last_seq: AtomicU64,
}

impl RemoteLinks {
    pub fn new(app: AppHandle, data_dir: PathBuf) -> RemoteLinks {
        RemoteLinks(Arc::new(Links {
            app,
            data_dir,
            links: Mutex::default(),
            seen: Mutex::default(),
            events: tokio::sync::broadcast::channel(256).0,
        }))
    }

    /// Every host's events from now on, named as the windows name them.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<HostEvent> {
        self.0.events.subscribe()
    }

    /// Calls `call` on the daemon of `host`, connecting first when no connection is up.
    pub async fn call(&self, host: &str, call: Call) -> HostResult<Returned> {
        let link = self.link(host).await?;
        link.connection.call(call).await
    }

    /// The hosts whose connection is up now. A search asks only these: reaching a host that
    /// is offline would hold the search box for ssh's timeout.
    pub fn connected(&self) -> Vec<String> {
        let links = self.0.links.lock().unwrap_or_else(|e| e.into_inner());
        let mut hosts: Vec<String> = links
            .iter()
            .filter(|(_, slot)| {
                // A slot being connected (locked) is not up yet.
                slot.try_lock()
                    .ok()
                    .and_then(|link| link.as_ref().map(|l| !l.ended.load(Ordering::SeqCst)))
                    .unwrap_or(false)
            })
            .map(|(host, _)| host.clone())
            .collect();
        hosts.sort();
        hosts
    }

    /// Follows `thread` of `host`: its events from now on (and those since the last one seen
    /// there) reach the windows.
    pub async fn follow(&self, host: &str, thread: &str) -> HostResult<()> {
        let link = self.link(host).await?;
        let new = self
            .seen()
            .entry(host.to_owned())
            .or_default()
            .followed
            .insert(thread.to_owned());
        if new {
            let since = link.last_seq.load(Ordering::SeqCst);
            if let Err(err) = link.connection.subscribe(thread, Some(since)).await {
                if let Some(seen) = self.seen().get_mut(host) {
                    seen.followed.remove(thread);
                }
                return Err(err);
            }
        }
        Ok(())
    }

    /// Whether a turn of `thread` of `host` runs, as its events said.
    pub fn is_streaming(&self, host: &str, thread: &str) -> bool {
        self.seen()
            .get(host)
            .is_some_and(|s| s.streaming.contains(thread))
    }

    fn seen(&self) -> std::sync::MutexGuard<'_, HashMap<String, Seen>> {
        self.0.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The connection to `host`, made when there is none (or it ended). Boxed: its pump
    /// makes it again, and a future that holds itself has no size.
    fn link<'a>(&'a self, host: &'a str) -> BoxFuture<'a, HostResult<Arc<Link>>> {
        Box::pin(async move {
            let slot = {
                let mut links = self.0.links.lock().unwrap_or_else(|e| e.into_inner());
                links.entry(host.to_owned()).or_default().clone()
            };
            let mut slot = slot.lock().await;
            if let Some(link) = slot.as_ref() {
                if !link.ended.load(Ordering::SeqCst) {
                    return Ok(link.clone());
                }
            }
            let link = Arc::new(self.connect(host).await?);
            *slot = Some(link.clone());
            tauri::async_runtime::spawn(pump(self.clone(), link.clone()));
            Ok(link)
        })
    }

    /// Starts the relay and greets the daemon; a daemon of another boot than the last one
    /// seen has none of the old numbers, so the threads followed are re-read from the start.
    async fn connect(&self, host: &str) -> HostResult<Link> {
        let args = ["--host", host, "serve", "--attach"];
        let mut command = super::cli::cli_command(&self.0.data_dir, &args)?;
        command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null());
        let mut relay = command.spawn().map_err(|e| {
            HostError::Internal(format!("the command-line tool could not run: {e}"))
        })?;
        let (Some(read), Some(write)) = (relay.stdout.take(), relay.stdin.take()) else {
            return Err(HostError::Internal("the relay has no pipes".into()));
        };
        let connection = tokio::time::timeout(CONNECT_LIMIT, Connection::over(read, write))
            .await
            .map_err(|_| {
                HostError::HostUnreachable(format!(
                    "{host} did not answer within {} minutes",
                    CONNECT_LIMIT.as_secs() / 60
                ))
            })??;
        let since = {
            let mut seen = self.seen();
            let seen = seen.entry(host.to_owned()).or_default();
            if seen.boot != connection.boot {
                seen.boot = connection.boot.clone();
                seen.last_seq = connection.last_seq;
            }
            seen.last_seq
        };
        let link = Link {
            host: host.to_owned(),
            connection,
            _relay: relay,
            ended: AtomicBool::new(false),
            last_seq: AtomicU64::new(since),
        };
        for thread in self.followed(host) {
            link.connection.subscribe(&thread, Some(since)).await?;
        }
        Ok(link)
    }

    fn saw(&self, host: &str, seq: u64, item: &Item) {
        let mut seen = self.seen();
        let seen = seen.entry(host.to_owned()).or_default();
        seen.last_seq = seen.last_seq.max(seq);
        match item {
            Item::Event {
                event: HostEvent::TurnStarted { thread_id },
            } => {
                seen.streaming.insert(thread_id.clone());
            }
            Item::Event {
                event: HostEvent::TurnEnded { thread_id, .. },
            }
            | Item::TurnFinished { thread_id, .. } => {
                seen.streaming.remove(thread_id);
            }
            Item::Event { .. } | Item::RaceLane { .. } | Item::RaceEnded { .. } => {}
        }
    }

    /// The threads of `host` the windows follow.
    fn followed(&self, host: &str) -> Vec<String> {
        self.seen()
            .get(host)
            .map(|s| s.followed.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// Hands the link's entries to the windows; when it ends, tells the threads followed there
/// and makes it again until it is back (then they re-read what they show).
async fn pump(links: RemoteLinks, link: Arc<Link>) {
    let app = links.0.app.clone();
    let host = link.host.clone();
    while let Some(entry) = link.connection.next_entry().await {
        link.last_seq.fetch_max(entry.seq, Ordering::SeqCst);
        links.saw(&host, entry.seq, &entry.item);
        match entry.item {
            Item::Event { event } => {
                let event = event.on_host(&host);
                emit_all::<channel::HostEvent>(&app, &event);
                // Nobody listening is fine.
                let _ = links.0.events.send(event);
            }
            // A race started from here runs there (`race::start_there`): its lanes and end
            // reach the windows as a local race's do.
            Item::RaceLane { run, source, lane } => {
                // Its lanes' turns stream in the race view as the source's do: followed.
                // (Once: a lane changes many times, and following is a call on the link.)
                let new_lane = lane
                    .thread_id
                    .clone()
                    .filter(|id| !links.followed(&host).contains(id));
                if let Some(id) = new_lane {
                    let (links, host) = (links.clone(), host.clone());
                    tauri::async_runtime::spawn(async move {
                        if let Err(err) = links.follow(&host, &id).await {
                            tracing::debug!(code = err.code(), "a race lane could not be followed");
                        }
                    });
                }
                let lane = RaceLaneEvent {
                    run,
                    source: remote_thread_id(&host, &source),
                    lane: lane.on_host(&host),
                };
                emit_all::<channel::RaceLane>(&app, &lane);
            }
            Item::RaceEnded {
                run,
                source,
                race,
                error,
            } => {
                let ended = RaceEnded {
                    run,
                    source: remote_thread_id(&host, &source),
                    race: race.map(|r| r.on_host(&host)),
                    error,
                };
                emit_all::<channel::RaceEnded>(&app, &ended);
            }
            Item::TurnFinished { .. } => {}
        }
    }
    link.ended.store(true, Ordering::SeqCst);
    let followed = links.followed(&host);
    if followed.is_empty() {
        return;
    }
    for thread in &followed {
        let lost = HostEvent::Error {
            thread_id: thread.clone(),
            code: ErrorCode::HostUnreachable,
            message: format!("the connection to {host} was lost; connecting again…"),
        };
        emit_all::<channel::HostEvent>(&app, &lost.on_host(&host));
    }
    let mut pause = RETRY_FIRST;
    loop {
        tokio::time::sleep(pause).await;
        if links.followed(&host).is_empty() {
            return;
        }
        match links.link(&host).await {
            Ok(_) => break,
            Err(err) => {
                tracing::debug!(host = %host, code = err.code(), "reconnecting failed");
                pause = (pause * 2).min(RETRY_MAX);
            }
        }
    }
    // Back: what the windows show may have moved on meanwhile.
    for thread in links.followed(&host) {
        let changed = HostEvent::ThreadChanged {
            thread_id: thread,
            thread: None,
        };
        emit_all::<channel::HostEvent>(&app, &changed.on_host(&host));
    }
}
