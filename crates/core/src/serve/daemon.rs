//! `forkhost serve`: the Host of this machine served on its data folder's socket. It numbers
//! every Host event into the [`Journal`], answers each client's calls, and ends when it has
//! had no client and no running turn for [`ServeOptions::idle_exit`].

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{broadcast, mpsc};

use super::journal::Journal;
use super::socket::Served;
use super::wire::{Call, Item, Request, Returned, ServerMessage, WireError, PROTOCOL};
use crate::base::error::{HostError, HostResult};
use crate::base::events::TurnEnd;
use crate::host::Host;
use crate::remote::VERSION;
use forkhost_harness::TurnOutcome;

/// How the daemon runs.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// Ends after this long with no client connected and no turn running (`None`: never).
    pub idle_exit: Option<Duration>,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            idle_exit: Some(Duration::from_secs(30 * 60)),
        }
    }
}

struct Daemon {
    host: Host,
    journal: Journal,
    boot: String,
    clients: AtomicUsize,
    turns: AtomicUsize,
    /// Turns that ended, for the journal's feeder to number after their last events.
    finished: mpsc::UnboundedSender<Item>,
}

/// Serves `host` on `served`'s socket until idle (or the listener fails).
pub async fn serve(host: Host, served: Served, options: ServeOptions) -> HostResult<()> {
    let listener = UnixListener::bind(&served.socket)
        .map_err(|e| HostError::Internal(format!("{}: {e}", served.socket.display())))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(&served.socket, std::fs::Permissions::from_mode(0o600));
    }
    let (finished, finished_rx) = mpsc::unbounded_channel();
    let daemon = Arc::new(Daemon {
        journal: Journal::new(),
        boot: uuid::Uuid::new_v4().to_string(),
        clients: AtomicUsize::new(0),
        turns: AtomicUsize::new(0),
        finished,
        host,
    });
    let feeder = tokio::spawn(feed(daemon.clone(), finished_rx));
    tracing::info!(socket = %served.socket.display(), "serving");
    let idle_check = Duration::from_secs(5).min(options.idle_exit.unwrap_or(Duration::MAX));
    let mut idle_since = tokio::time::Instant::now();
    let data_dir = served.socket.parent().map(std::path::Path::to_path_buf);
    let mut terminate = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| HostError::Internal(format!("SIGTERM: {e}")))?;
    loop {
        tokio::select! {
            _ = terminate.recv() => {
                tracing::info!("asked to end (SIGTERM)");
                break;
            }
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    daemon.clients.fetch_add(1, Ordering::SeqCst);
                    let daemon = daemon.clone();
                    tokio::spawn(async move {
                        if let Err(err) = client(&daemon, stream).await {
                            tracing::info!(error = %err, "a client's connection ended");
                        }
                        daemon.clients.fetch_sub(1, Ordering::SeqCst);
                    });
                }
                Err(err) => {
                    tracing::warn!(error = %err, "the socket stopped accepting");
                    break;
                }
            },
            _ = tokio::time::sleep(idle_check) => {
                let busy = daemon.clients.load(Ordering::SeqCst) > 0
                    || daemon.turns.load(Ordering::SeqCst) > 0;
                // The folder it serves was deleted (a removed account, a test's home): nothing
                // is left to serve.
                if data_dir.as_ref().is_some_and(|dir| !dir.exists()) {
                    tracing::info!("the data folder is gone; the daemon ends");
                    break;
                }
                if busy {
                    idle_since = tokio::time::Instant::now();
                } else if options.idle_exit.is_some_and(|idle| idle_since.elapsed() >= idle) {
                    tracing::info!("idle: no client and no turn; the daemon ends");
                    break;
                }
            }
        }
    }
    feeder.abort();
    daemon.host.shutdown().await;
    drop(served);
    Ok(())
}

/// Numbers the Host's events into the journal; a finished turn goes in after the events
/// that came before its end.
async fn feed(daemon: Arc<Daemon>, mut finished: mpsc::UnboundedReceiver<Item>) {
    let mut events = daemon.host.subscribe();
    loop {
        tokio::select! {
            event = events.recv() => match event {
                Ok(event) => {
                    daemon.journal.push(Item::Event { event });
                }
                Err(broadcast::error::RecvError::Lagged(n)) => {
                    tracing::warn!(missed = n, "the journal fell behind the Host's events");
                }
                Err(broadcast::error::RecvError::Closed) => break,
            },
            Some(item) = finished.recv() => {
                while let Ok(event) = events.try_recv() {
                    daemon.journal.push(Item::Event { event });
                }
                daemon.journal.push(item);
            }
        }
    }
}

/// One client: a hello first, then calls answered in order; a subscription's entries are
/// written between the answers as they come.
async fn client(daemon: &Arc<Daemon>, stream: UnixStream) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let (out, mut out_rx) = mpsc::unbounded_channel::<ServerMessage>();
    let writer = tokio::spawn(async move {
        while let Some(message) = out_rx.recv().await {
            let Ok(mut line) = serde_json::to_vec(&message) else {
                continue;
            };
            line.push(b'\n');
            if write.write_all(&line).await.is_err() {
                break;
            }
        }
    });
    let mut lines = BufReader::new(read).lines();
    let mut subscriptions = Vec::new();
    // The threads whose terminal this connection holds: released when it ends.
    let mut terminals: Vec<String> = Vec::new();
    let ended = serve_calls(daemon, &mut lines, &out, &mut subscriptions, &mut terminals).await;
    for thread in terminals {
        if let Err(err) = daemon.host.release_terminal(&thread).await {
            tracing::warn!(thread = %thread, code = err.code(), "a terminal's release failed");
        } else {
            tracing::info!(thread = %thread, "terminal released: its client's connection ended");
        }
    }
    for subscription in subscriptions {
        subscription.abort();
    }
    drop(out);
    let _ = writer.await;
    ended
}

/// A connection's calls, answered in order until it ends or says something unreadable.
async fn serve_calls(
    daemon: &Arc<Daemon>,
    lines: &mut tokio::io::Lines<BufReader<tokio::net::unix::OwnedReadHalf>>,
    out: &mpsc::UnboundedSender<ServerMessage>,
    subscriptions: &mut Vec<tokio::task::JoinHandle<()>>,
    terminals: &mut Vec<String>,
) -> std::io::Result<()> {
    let mut greeted = false;
    while let Some(line) = lines.next_line().await? {
        let request: Request = match serde_json::from_str(&line) {
            Ok(request) => request,
            Err(err) => {
                let err = HostError::InvalidInput(format!("not a call: {err}"));
                let _ = out.send(reply(0, Err(err)));
                break;
            }
        };
        let id = request.id;
        let result = match (greeted, request.call) {
            (false, Call::Hello { version, protocol }) => {
                if protocol != PROTOCOL || version != VERSION {
                    let _ = out.send(reply(id, Err(crate::remote::version_mismatch(&version))));
                    break;
                }
                greeted = true;
                Ok(Returned::Hello {
                    version: VERSION.to_owned(),
                    protocol: PROTOCOL,
                    boot: daemon.boot.clone(),
                    last_seq: daemon.journal.last_seq(),
                })
            }
            (false, _) => {
                let err = HostError::InvalidInput("say hello first".into());
                let _ = out.send(reply(id, Err(err)));
                break;
            }
            (true, Call::Subscribe { thread, since }) => {
                let replay = daemon.journal.replay(thread.as_deref(), since);
                let (gap, replayed) = (replay.gap, replay.entries.len());
                let out = out.clone();
                // The answer goes first; the replay and the live entries after it.
                let _ = out.send(reply(id, Ok(Returned::Subscribed { gap, replayed })));
                subscriptions.push(tokio::spawn(forward(replay, thread, out)));
                continue;
            }
            (true, Call::OpenTerminal { thread }) => {
                let opened = daemon.host.terminal_command(&thread).await;
                if opened.is_ok() && !terminals.contains(&thread) {
                    terminals.push(thread);
                }
                opened.map(|command| Returned::Terminal {
                    command: Box::new(command),
                })
            }
            (true, Call::ReleaseTerminal { thread }) => {
                terminals.retain(|held| *held != thread);
                daemon
                    .host
                    .release_terminal(&thread)
                    .await
                    .map(|()| Returned::Done)
            }
            (true, call) => answer(daemon, call).await,
        };
        if out.send(reply(id, result)).is_err() {
            break;
        }
    }
    Ok(())
}

/// Writes a subscription's replay, then its live entries after the last one replayed.
async fn forward(
    mut replay: super::journal::Replay,
    thread: Option<String>,
    out: mpsc::UnboundedSender<ServerMessage>,
) {
    let mut last = 0;
    for entry in replay.entries {
        last = entry.seq;
        if out.send(ServerMessage::Entry { entry }).is_err() {
            return;
        }
    }
    loop {
        match replay.live.recv().await {
            Ok(entry) => {
                let wanted = thread
                    .as_deref()
                    .is_none_or(|t| entry.item.thread_id() == t);
                if entry.seq > last && wanted {
                    last = entry.seq;
                    if out.send(ServerMessage::Entry { entry }).is_err() {
                        return;
                    }
                }
            }
            // A client too slow to keep up: it ends, and reconnects from its last number.
            Err(_) => return,
        }
    }
}

async fn answer(daemon: &Arc<Daemon>, call: Call) -> HostResult<Returned> {
    let host = &daemon.host;
    match call {
        Call::Hello { .. } => Err(HostError::InvalidInput("hello was said already".into())),
        Call::Subscribe { .. } | Call::OpenTerminal { .. } | Call::ReleaseTerminal { .. } => {
            unreachable_call()
        }
        Call::StartTurn {
            thread,
            prompt,
            session_grants,
        } => {
            let done = host
                .start_turn_with(&thread, &prompt, session_grants)
                .await?;
            daemon.turns.fetch_add(1, Ordering::SeqCst);
            let daemon = daemon.clone();
            tokio::spawn(async move {
                let (end, message) = match done.await {
                    Ok(TurnOutcome::Failed { message }) => (TurnEnd::Failed, Some(message)),
                    Ok(outcome) => (TurnEnd::from(&outcome), None),
                    Err(_) => (
                        TurnEnd::Failed,
                        Some("the harness stopped before the turn ended".to_owned()),
                    ),
                };
                let _ = daemon.finished.send(Item::TurnFinished {
                    thread_id: thread,
                    end,
                    message,
                });
                daemon.turns.fetch_sub(1, Ordering::SeqCst);
            });
            Ok(Returned::Done)
        }
        Call::Interrupt { thread } => host.interrupt(&thread).await.map(|()| Returned::Done),
        Call::AnswerApproval {
            thread,
            request,
            decision,
        } => host
            .answer_approval(&thread, &request, decision)
            .await
            .map(|()| Returned::Done),
        Call::AnswerQuestion {
            thread,
            request,
            answers,
        } => host
            .answer_question(&thread, &request, answers)
            .await
            .map(|()| Returned::Done),
        Call::PendingApprovals { thread } => Ok(Returned::Pending {
            requests: host.pending_approvals(&thread).await?,
        }),
        Call::Show { thread } => Ok(Returned::Thread {
            detail: Box::new(host.show(&thread).await?),
        }),
        Call::SetMode {
            thread,
            permissions,
        } => Ok(Returned::View {
            thread: Box::new(host.set_mode(&thread, permissions).await?),
        }),
        Call::SessionGrants { thread } => Ok(Returned::Grants {
            grants: host.session_grants(&thread).await?,
        }),
        Call::RevokeGrant { thread, grant } => host
            .revoke_grant(&thread, &grant)
            .await
            .map(|()| Returned::Done),
        Call::Rename { thread, title } => Ok(Returned::View {
            thread: Box::new(host.rename(&thread, &title).await?),
        }),
        Call::Archive { thread, archived } => Ok(Returned::View {
            thread: Box::new(host.archive(&thread, archived).await?),
        }),
        Call::Export { thread, to, format } => Ok(Returned::Text {
            text: host.export(&thread, to, format).await?,
        }),
        Call::RewindPlan { thread, to, kind } => Ok(Returned::RewindPlan {
            plan: Box::new(host.rewind_plan(&thread, &to, kind).await?),
        }),
        Call::Rewind {
            thread,
            to,
            kind,
            accepted_loss,
        } => Ok(Returned::Rewound {
            rewound: Box::new(
                host.rewind(&thread, &to, kind, accepted_loss.as_deref())
                    .await?,
            ),
        }),
        Call::UndoRewind { thread } => Ok(Returned::Rewound {
            rewound: Box::new(host.undo_rewind(&thread).await?),
        }),
        Call::Rewinds { thread } => Ok(Returned::Rewinds {
            rewinds: host.rewinds(&thread).await?,
        }),
        Call::TreeCost { thread } => Ok(Returned::TreeCost {
            cost: Box::new(host.tree_cost(&thread).await?),
        }),
        Call::Create {
            harness,
            cwd,
            title,
            permissions,
        } => {
            let spec = crate::thread::lifecycle::NewThreadSpec {
                harness,
                cwd: in_home(&cwd, std::env::var_os("HOME").map(Into::into)),
                title,
                permissions,
            };
            Ok(Returned::Thread {
                detail: Box::new(host.create(spec).await?),
            })
        }
        Call::Files { thread } => Ok(Returned::Files {
            files: Box::new(host.files(&thread).await?),
        }),
        Call::Changes { thread, other } => Ok(Returned::Changes {
            changes: Box::new(host.changes(&thread, other.as_deref()).await?),
        }),
        Call::BringBack { fork, target } => Ok(Returned::Changes {
            changes: Box::new(host.bring_back(&fork, &target).await?),
        }),
        Call::WorktreeLoss { thread } => Ok(Returned::WorktreeLoss {
            loss: Box::new(host.worktree_loss(&thread).await?),
        }),
        Call::RemoveWorktree { thread, accepted } => host
            .remove_worktree(&thread, accepted)
            .await
            .map(|()| Returned::Done),
        Call::FolderTrust { folder } => Ok(Returned::Trust {
            trust: Box::new(host.folder_trust(&folder_here(&folder)?).await?),
        }),
        Call::SetFolderTrust {
            folder,
            trusted,
            shown,
        } => {
            let folder = folder_here(&folder)?;
            let trust = match shown {
                Some(shown) => {
                    host.set_folder_trust_shown(&folder, trusted, &shown)
                        .await?
                }
                None => host.set_folder_trust(&folder, trusted).await?,
            };
            Ok(Returned::Trust {
                trust: Box::new(trust),
            })
        }
        Call::Search { query } => Ok(Returned::Search {
            results: Box::new(host.search(query).await?),
        }),
        Call::Doctor => Ok(Returned::Harnesses {
            harnesses: host.doctor().await,
        }),
        Call::Models { thread } => Ok(Returned::Models {
            models: host.models(&thread).await?,
        }),
        Call::CheckCommand { thread } => {
            let folder = folder_of(host, &thread).await?;
            Ok(Returned::CheckCommand {
                check: Box::new(host.check_command(&folder).await?),
            })
        }
        Call::SetCheckCommand { thread, command } => {
            let folder = folder_of(host, &thread).await?;
            Ok(Returned::CheckCommand {
                check: Box::new(host.set_check_command(&folder, command.as_deref()).await?),
            })
        }
        Call::StartRace { run, race } => start_race(daemon, run, *race).await,
        Call::KeepPlan { lane } => Ok(Returned::KeepPlan {
            plan: Box::new(host.keep_plan(&lane).await?),
        }),
        Call::Keep { lane, accepted } => {
            if accepted.kept != lane {
                return Err(HostError::InvalidInput(
                    "the plan shown is for another lane".into(),
                ));
            }
            Ok(Returned::Kept {
                kept: Box::new(host.keep(&lane, Some(&accepted)).await?),
            })
        }
    }
}

/// A thread's folder here (a race's check command is its repository's).
async fn folder_of(host: &Host, thread: &str) -> HostResult<std::path::PathBuf> {
    Ok(host.show(thread).await?.thread.cwd.into())
}

/// Starts a race as [`Call::StartRace`] asks: refused at once where the Host would refuse it,
/// its check approved as the client showed it, then run in the background, each lane's change
/// and its end journaled on the source thread (a client that comes back sees them replayed).
async fn start_race(
    daemon: &Arc<Daemon>,
    run: String,
    race: super::wire::RaceCall,
) -> HostResult<Returned> {
    let spec = crate::race::RaceSpec::from(race);
    daemon.host.check_race(&spec)?;
    if let Some(command) = &spec.check {
        let folder = folder_of(&daemon.host, &spec.source).await?;
        daemon.host.approve_check(&folder, command).await?;
    }
    let source = spec.source.clone();
    let journal = daemon.clone();
    let (lane_run, lane_source) = (run.clone(), source.clone());
    let on_lane: crate::race::OnLane = Arc::new(move |lane: &crate::race::RaceLane| {
        journal.journal.push(Item::RaceLane {
            run: lane_run.clone(),
            source: lane_source.clone(),
            lane: Box::new(lane.clone()),
        });
    });
    // A race is turns running: the daemon does not end while it runs.
    daemon.turns.fetch_add(1, Ordering::SeqCst);
    let daemon = daemon.clone();
    tokio::spawn(async move {
        let (race, error) = match daemon.host.race(spec, on_lane).await {
            Ok(race) => (Some(Box::new(race)), None),
            Err(err) => (None, Some(err.to_string())),
        };
        daemon.journal.push(Item::RaceEnded {
            run,
            source,
            race,
            error,
        });
        daemon.turns.fetch_sub(1, Ordering::SeqCst);
    });
    Ok(Returned::Done)
}

/// A folder a client named for a trust decision here: `~` is this user's home, and the rest
/// must be absolute (a relative one would be judged against the daemon's own folder).
fn folder_here(folder: &str) -> HostResult<std::path::PathBuf> {
    let path = in_home(folder, std::env::var_os("HOME").map(Into::into));
    match path.is_absolute() {
        true => Ok(path),
        false => Err(HostError::InvalidInput(format!(
            "{} is not an absolute folder path",
            path.display()
        ))),
    }
}

/// A folder as a client typed it for this machine: `~` and `~/…` are this user's home.
pub(super) fn in_home(cwd: &str, home: Option<std::path::PathBuf>) -> std::path::PathBuf {
    let cwd = cwd.trim();
    match (cwd.strip_prefix('~'), home) {
        (Some(""), Some(home)) => home,
        (Some(rest), Some(home)) if rest.starts_with('/') => {
            home.join(rest.trim_start_matches('/'))
        }
        _ => std::path::PathBuf::from(cwd),
    }
}

/// Subscriptions and terminals (held by their connection) are answered in `serve_calls`,
/// never here.
fn unreachable_call() -> HostResult<Returned> {
    Err(HostError::Internal(
        "a subscription reached the wrong place".into(),
    ))
}

fn reply(id: u64, result: HostResult<Returned>) -> ServerMessage {
    ServerMessage::Reply {
        id,
        result: result.map_err(|e| WireError::from(&e)),
    }
}
