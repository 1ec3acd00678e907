//! A repository's check command (a race lane's check, docs/architecture.md "Race") and the
//! exact texts the user approved to run.

mod common;

use common::fresh;

#[tokio::test]
async fn a_repositorys_check_command_is_set_changed_and_removed() {
    let (_dir, store) = fresh().await;
    assert_eq!(store.check_command("/r").await.unwrap(), None);
    store
        .set_check_command("/r", Some("npm test"))
        .await
        .unwrap();
    assert_eq!(
        store.check_command("/r").await.unwrap().as_deref(),
        Some("npm test")
    );
    store
        .set_check_command("/r", Some("  cargo test  "))
        .await
        .unwrap();
    assert_eq!(
        store.check_command("/r").await.unwrap().as_deref(),
        Some("cargo test"),
        "changed, in the user's words without the blanks around them"
    );
    assert_eq!(
        store.check_command("/other").await.unwrap(),
        None,
        "per repository"
    );
    store.set_check_command("/r", Some("   ")).await.unwrap();
    assert_eq!(
        store.check_command("/r").await.unwrap(),
        None,
        "blank removes it"
    );
    store.set_check_command("/r", Some("make")).await.unwrap();
    store.set_check_command("/r", None).await.unwrap();
    assert_eq!(store.check_command("/r").await.unwrap(), None);
}

#[tokio::test]
async fn a_check_is_approved_by_its_exact_text_and_repository() {
    let (_dir, store) = fresh().await;
    assert_eq!(store.check_approval("/r", "npm test").await.unwrap(), None);
    store
        .approve_check("/r", "npm test", Some("root-abc"))
        .await
        .unwrap();
    assert_eq!(
        store.check_approval("/r", "npm test").await.unwrap(),
        Some(Some("root-abc".to_owned()))
    );
    assert_eq!(
        store
            .check_approval("/r", "npm test -- --all")
            .await
            .unwrap(),
        None,
        "another text is another command"
    );
    assert_eq!(
        store.check_approval("/s", "npm test").await.unwrap(),
        None,
        "another repository is asked again"
    );
    // Approved again in a repository whose identity changed: the newest identity is kept.
    store
        .approve_check("/r", "npm test", Some("root-def"))
        .await
        .unwrap();
    assert_eq!(
        store.check_approval("/r", "npm test").await.unwrap(),
        Some(Some("root-def".to_owned()))
    );
    store.approve_check("/t", "make", None).await.unwrap();
    assert_eq!(
        store.check_approval("/t", "make").await.unwrap(),
        Some(None),
        "approved outside git: no identity"
    );
    // Changing or removing the command keeps what was approved.
    store.set_check_command("/r", Some("make")).await.unwrap();
    store.set_check_command("/r", None).await.unwrap();
    assert!(store
        .check_approval("/r", "npm test")
        .await
        .unwrap()
        .is_some());
}
