//! The history a fork's window shows while the harness forks (`Host::fork_preview`): the
//! source's turns up to the cut, the same messages the fork then holds; none for a fork that
//! makes no native call (Claude's lazy fork within Claude). Real CLIs, fake model.

use crate::host_kit;

use forkhost_core::{ForkAt, Host, TurnRef};
use forkhost_tests::harness_env::Harness;

use host_kit::{setup, turn};

/// The messages of each turn, as a view shows them.
fn messages(detail: &forkhost_core::ThreadDetail) -> Vec<Vec<forkhost_core::MessageView>> {
    detail.turns.iter().map(|t| t.messages.clone()).collect()
}

async fn previews_what_the_fork_inherits(which: Harness) {
    let Some(s) = setup(which).await else {
        return;
    };
    let host: Host = s.host().await;
    let id = s.thread(&host, Default::default()).await;
    turn(&host, &id, "first question").await;
    turn(&host, &id, "second question").await;

    let after1 = ForkAt::After(TurnRef::Number(1));
    let preview = host.fork_preview(&id, &after1, None).await.unwrap();
    let preview = preview.expect("a native fork gets a preview");
    assert_eq!(preview.thread.id, id, "the preview is the source's");
    assert_eq!(preview.turns.len(), 1);
    assert!(preview.turns.iter().all(|t| t.forks.is_empty()));
    let fork = host.fork(&id, after1).await.unwrap();
    assert_eq!(messages(&preview), messages(&fork.thread));
    assert!(!messages(&preview)[0].is_empty());

    // Before turn 2 keeps turn 1; a turn that does not exist is turn_not_found.
    let before2 = ForkAt::Before(TurnRef::Number(2));
    let before = host
        .fork_preview(&id, &before2, None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(messages(&before), messages(&preview));
    let latest = host
        .fork_preview(&id, &ForkAt::Latest, None)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(latest.turns.len(), 2);
    let missing = host
        .fork_preview(&id, &ForkAt::After(TurnRef::Number(9)), None)
        .await
        .unwrap_err();
    assert_eq!(missing.error_code(), forkhost_core::ErrorCode::TurnNotFound);
    host.shutdown().await;
}

#[tokio::test]
async fn codex_previews_what_the_fork_inherits() {
    previews_what_the_fork_inherits(Harness::Codex).await;
}

#[tokio::test]
async fn pi_previews_what_the_fork_inherits() {
    previews_what_the_fork_inherits(Harness::Pi).await;
}

/// A Claude fork within Claude is lazy (no native call, it answers at once): no preview; into
/// another harness it is a native call again, and gets one.
#[tokio::test]
async fn a_lazy_fork_gets_no_preview() {
    let Some(s) = setup(Harness::Claude).await else {
        return;
    };
    let host = s.host().await;
    let id = s.thread(&host, Default::default()).await;
    turn(&host, &id, "first question").await;
    let latest = ForkAt::Latest;
    assert!(host
        .fork_preview(&id, &latest, None)
        .await
        .unwrap()
        .is_none());
    let into = Some(forkhost_core::HarnessKind::Codex);
    let crossing = host.fork_preview(&id, &latest, into).await.unwrap();
    assert_eq!(crossing.map(|d| d.turns.len()), Some(1));
    host.shutdown().await;
}
