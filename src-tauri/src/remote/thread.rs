//! A remote thread in a tab (docs/architecture.md "Remote hosts"): the commands a conversation
//! calls, for a thread id of the form `HOST:ID`, answered by that host's daemon over the
//! host's link ([`super::link`]) — read it, send and stream, stop, answer its requests, its
//! mode and session grants, rename, archive, export, rewind and its undo, the tree's cost,
//! its folder and its changes —
//! or by the host's own forkhost run once
//! (Fork). What a remote thread cannot do from the app yet is refused in words naming the
//! terminal command that does it.

use std::time::Instant;

use forkhost_core::{
    ApprovalDecision, ApprovalView, Call, ChangesView, ExportFormat, FilesView, ForkAt, ForkFiles,
    ForkResult, ForkTiming, GrantView, HarnessKind, HostError, HostResult, PermissionMode,
    Returned, RewindKind, RewindPlan, RewindView, RewoundView, ThreadAddress, ThreadDetail,
    ThreadView, TreeCost, TurnRef,
};

use crate::state::AppState;

/// The host and the thread there, for an id of a remote thread; `None` for this machine's.
pub fn remote(thread_id: &str) -> Option<(&str, &str)> {
    match ThreadAddress::of(thread_id) {
        ThreadAddress::There { host, thread } => Some((host, thread)),
        ThreadAddress::Here(_) => None,
    }
}

/// The thread with its turns, as its host reads it; its events follow from now on.
pub async fn show(state: &AppState, host: &str, thread: &str) -> HostResult<ThreadDetail> {
    state.host.remote_host(host).await?;
    let call = Call::Show {
        thread: thread.to_owned(),
    };
    let detail = match state.remote.call(host, call).await? {
        Returned::Thread { detail } => *detail,
        other => return Err(out_of_turn(&other)),
    };
    state.remote.follow(host, thread).await?;
    Ok(detail.on_host(host))
}

/// A new thread of `harness` there, in `cwd` (a folder of that machine; `~/…` its user's
/// home), named as this machine's windows name it.
pub async fn create(
    state: &AppState,
    host: &str,
    harness: HarnessKind,
    cwd: &str,
    title: Option<String>,
    permissions: PermissionMode,
) -> HostResult<ThreadDetail> {
    state.host.remote_host(host).await?;
    if cwd.trim().is_empty() {
        return Err(HostError::InvalidInput(format!(
            "a new thread on {host} needs a folder there"
        )));
    }
    let call = Call::Create {
        harness,
        cwd: cwd.trim().to_owned(),
        title,
        permissions,
    };
    match state.remote.call(host, call).await? {
        Returned::Thread { detail } => Ok(detail.on_host(host)),
        other => Err(out_of_turn(&other)),
    }
}

/// Starts a turn there; its events arrive as the thread's own.
pub async fn start_turn(
    state: &AppState,
    host: &str,
    thread: &str,
    prompt: &str,
) -> HostResult<()> {
    // Followed first, so that no event of the turn comes before the subscription.
    state.remote.follow(host, thread).await?;
    let call = Call::StartTurn {
        thread: thread.to_owned(),
        prompt: prompt.to_owned(),
        session_grants: true,
    };
    done(state.remote.call(host, call).await?)
}

pub async fn interrupt(state: &AppState, host: &str, thread: &str) -> HostResult<()> {
    let call = Call::Interrupt {
        thread: thread.to_owned(),
    };
    done(state.remote.call(host, call).await?)
}

pub async fn pending_approvals(
    state: &AppState,
    host: &str,
    thread: &str,
) -> HostResult<Vec<ApprovalView>> {
    let call = Call::PendingApprovals {
        thread: thread.to_owned(),
    };
    match state.remote.call(host, call).await? {
        Returned::Pending { requests } => Ok(requests),
        other => Err(out_of_turn(&other)),
    }
}

pub async fn answer_approval(
    state: &AppState,
    host: &str,
    thread: &str,
    request: &str,
    decision: ApprovalDecision,
) -> HostResult<()> {
    let call = Call::AnswerApproval {
        thread: thread.to_owned(),
        request: request.to_owned(),
        decision,
    };
    done(state.remote.call(host, call).await?)
}

pub async fn answer_question(
    state: &AppState,
    host: &str,
    thread: &str,
    request: &str,
    answers: Option<Vec<String>>,
) -> HostResult<()> {
    let call = Call::AnswerQuestion {
        thread: thread.to_owned(),
        request: request.to_owned(),
        answers,
    };
    done(state.remote.call(host, call).await?)
}

/// Changes its mode there; its row as it is now.
pub async fn set_mode(
    state: &AppState,
    host: &str,
    thread: &str,
    permissions: PermissionMode,
) -> HostResult<ThreadView> {
    let call = Call::SetMode {
        thread: thread.to_owned(),
        permissions,
    };
    view(host, state.remote.call(host, call).await?)
}

pub async fn session_grants(
    state: &AppState,
    host: &str,
    thread: &str,
) -> HostResult<Vec<GrantView>> {
    let call = Call::SessionGrants {
        thread: thread.to_owned(),
    };
    match state.remote.call(host, call).await? {
        Returned::Grants { grants } => Ok(grants),
        other => Err(out_of_turn(&other)),
    }
}

pub async fn revoke_grant(
    state: &AppState,
    host: &str,
    thread: &str,
    grant: &str,
) -> HostResult<()> {
    let call = Call::RevokeGrant {
        thread: thread.to_owned(),
        grant: grant.to_owned(),
    };
    done(state.remote.call(host, call).await?)
}

pub async fn rename(
    state: &AppState,
    host: &str,
    thread: &str,
    title: &str,
) -> HostResult<ThreadView> {
    let call = Call::Rename {
        thread: thread.to_owned(),
        title: title.to_owned(),
    };
    view(host, state.remote.call(host, call).await?)
}

pub async fn archive(
    state: &AppState,
    host: &str,
    thread: &str,
    archived: bool,
) -> HostResult<ThreadView> {
    let call = Call::Archive {
        thread: thread.to_owned(),
        archived,
    };
    view(host, state.remote.call(host, call).await?)
}

pub async fn export(
    state: &AppState,
    host: &str,
    thread: &str,
    to: Option<TurnRef>,
    format: ExportFormat,
) -> HostResult<String> {
    let call = Call::Export {
        thread: thread.to_owned(),
        to,
        format,
    };
    match state.remote.call(host, call).await? {
        Returned::Text { text } => Ok(text),
        other => Err(out_of_turn(&other)),
    }
}

/// What rewinding the thread there to `to` would do, as that host plans it.
pub async fn rewind_plan(
    state: &AppState,
    host: &str,
    thread: &str,
    to: TurnRef,
    kind: RewindKind,
) -> HostResult<RewindPlan> {
    let call = Call::RewindPlan {
        thread: thread.to_owned(),
        to,
        kind,
    };
    match state.remote.call(host, call).await? {
        Returned::RewindPlan { plan } => Ok(plan.on_host(host)),
        other => Err(out_of_turn(&other)),
    }
}

/// Rewinds the thread there, with the loss the plan showed.
pub async fn rewind(
    state: &AppState,
    host: &str,
    thread: &str,
    to: TurnRef,
    kind: RewindKind,
    accepted_loss: Option<Vec<String>>,
) -> HostResult<RewoundView> {
    let call = Call::Rewind {
        thread: thread.to_owned(),
        to,
        kind,
        accepted_loss,
    };
    rewound(host, state.remote.call(host, call).await?)
}

pub async fn undo_rewind(state: &AppState, host: &str, thread: &str) -> HostResult<RewoundView> {
    let call = Call::UndoRewind {
        thread: thread.to_owned(),
    };
    rewound(host, state.remote.call(host, call).await?)
}

pub async fn rewinds(state: &AppState, host: &str, thread: &str) -> HostResult<Vec<RewindView>> {
    let call = Call::Rewinds {
        thread: thread.to_owned(),
    };
    match state.remote.call(host, call).await? {
        Returned::Rewinds { rewinds } => Ok(rewinds.into_iter().map(|r| r.on_host(host)).collect()),
        other => Err(out_of_turn(&other)),
    }
}

/// What every branch of the thread's tree there cost.
pub async fn tree_cost(state: &AppState, host: &str, thread: &str) -> HostResult<TreeCost> {
    let call = Call::TreeCost {
        thread: thread.to_owned(),
    };
    match state.remote.call(host, call).await? {
        Returned::TreeCost { cost } => Ok(cost.on_host(host)),
        other => Err(out_of_turn(&other)),
    }
}

/// The thread's folder there and its checkpoints.
pub async fn files(state: &AppState, host: &str, thread: &str) -> HostResult<FilesView> {
    let call = Call::Files {
        thread: thread.to_owned(),
    };
    match state.remote.call(host, call).await? {
        Returned::Files { files } => Ok(*files),
        other => Err(out_of_turn(&other)),
    }
}

/// A fork's changes there since its fork point, or (`other`, a thread of the same host) the
/// two threads' current files.
pub async fn changes(
    state: &AppState,
    host: &str,
    thread: &str,
    other: Option<&str>,
) -> HostResult<ChangesView> {
    let other = match other.map(ThreadAddress::of) {
        None => None,
        Some(ThreadAddress::There { host: h, thread }) if h == host => Some(thread.to_owned()),
        Some(_) => {
            return Err(HostError::InvalidInput(format!(
                "Compare takes two threads of one machine; this one is on {host}"
            )))
        }
    };
    let call = Call::Changes {
        thread: thread.to_owned(),
        other,
    };
    match state.remote.call(host, call).await? {
        Returned::Changes { changes } => Ok(*changes),
        other => Err(out_of_turn(&other)),
    }
}

fn rewound(host: &str, answer: Returned) -> HostResult<RewoundView> {
    match answer {
        Returned::Rewound { rewound } => Ok(rewound.on_host(host)),
        other => Err(out_of_turn(&other)),
    }
}

/// Forks there, by the host's own forkhost (`--host HOST fork …`): a new native session of
/// that host, its files as `files` says; it opens in a tab here.
pub async fn fork(
    state: &AppState,
    host: &str,
    thread: &str,
    at: ForkAt,
    files: ForkFiles,
    into: Option<HarnessKind>,
) -> HostResult<ForkResult> {
    state.host.remote_host(host).await?;
    let started = Instant::now();
    let mut args = vec![
        "--host".to_owned(),
        host.to_owned(),
        "fork".to_owned(),
        thread.to_owned(),
    ];
    args.extend(at.cli_words());
    match files {
        ForkFiles::Worktree => args.push("--worktree".to_owned()),
        ForkFiles::SameFolder => args.push("--same-folder".to_owned()),
        ForkFiles::Auto => {}
    }
    if let Some(into) = into {
        args.extend(["--into".to_owned(), into.to_string()]);
    }
    let answer = super::cli::run_cli(&state.data_dir, &args).await?;
    let detail: ThreadDetail = super::cli::read(&answer["thread"], host)?;
    let text = |key: &str| answer[key].as_str().map(str::to_owned);
    let total_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(ForkResult {
        thread: detail.on_host(host),
        prefill: text("prefill"),
        files_note: text("files_note"),
        carry_note: text("carry_note"),
        // The remote's forkhost answers once the fork's files are there.
        files_pending: false,
        // Measured here: the whole round trip; the remote's steps stay there.
        timing: ForkTiming {
            check_ms: 0.0,
            native_ms: 0.0,
            warm: false,
            commit_ms: 0.0,
            read_back_ms: 0.0,
            total_ms,
        },
    })
}

/// What a remote thread cannot do from the app yet, in words naming the terminal's way.
pub fn not_yet(what: &str, host: &str) -> HostError {
    HostError::Unsupported(format!(
        "{what} of a thread on {host} is not in the app yet; in a terminal: \
         `forkhost --host {host} …`"
    ))
}

/// A thread's row that came back, named as this machine's windows name it.
fn view(host: &str, answer: Returned) -> HostResult<ThreadView> {
    match answer {
        Returned::View { thread } => Ok(thread.on_host(host)),
        other => Err(out_of_turn(&other)),
    }
}

fn done(answer: Returned) -> HostResult<()> {
    match answer {
        Returned::Done => Ok(()),
        other => Err(out_of_turn(&other)),
    }
}

pub(crate) fn out_of_turn(answer: &Returned) -> HostError {
    HostError::Internal(format!(
        "the remote daemon answered out of turn: {answer:?}"
    ))
}

/// `Ok` for a thread of this machine; for a remote one, [`not_yet`] of `what`.
pub fn here(thread_id: &str, what: &str) -> HostResult<()> {
    match remote(thread_id) {
        Some((host, _)) => Err(not_yet(what, host)),
        None => Ok(()),
    }
}
