//! Reading a repository's settings as git does: the opt-in that lets a repository holding the
//! home folder be checkpointed is such a setting, so "unset", "no" and "not a boolean" must
//! never read as "yes".

mod common;

use common::Sandbox;

#[test]
fn a_boolean_setting_reads_as_git_reads_it() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    let r = repo.open();
    assert_eq!(r.config_bool("forkhost.checkpoints").expect("unset"), None);
    for (value, read) in [
        ("true", Some(true)),
        ("yes", Some(true)),
        ("1", Some(true)),
        ("false", Some(false)),
        ("off", Some(false)),
        ("maybe", None),
    ] {
        repo.git(&["config", "forkhost.checkpoints", value]);
        assert_eq!(
            r.config_bool("forkhost.checkpoints").expect("read"),
            read,
            "{value:?}"
        );
    }
}

/// A repository's identity is its root commits, sorted and comma-joined: the same in every
/// clone, another for another repository at the same path, none before the first commit.
#[test]
fn a_repository_is_known_by_its_root_commits() {
    let sb = Sandbox::new();
    let repo = sb.repo();
    assert_eq!(repo.open().identity().expect("unborn"), None);
    repo.write("a.txt", "a");
    repo.commit_all("first");
    let first = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    repo.write("a.txt", "b");
    repo.commit_all("second");
    let r = repo.open();
    assert_eq!(r.identity().expect("identity"), Some(first.clone()));

    // A second root, merged in from an unrelated history.
    repo.git(&["checkout", "-q", "--orphan", "other"]);
    repo.git(&["rm", "-rq", "--cached", "."]);
    repo.write("b.txt", "b");
    repo.git(&["add", "b.txt"]);
    repo.git(&["commit", "-q", "-m", "other root"]);
    let other = repo.git(&["rev-parse", "HEAD"]).trim().to_owned();
    repo.git(&["checkout", "-q", "-f", "main"]);
    repo.git(&[
        "merge",
        "-q",
        "--allow-unrelated-histories",
        "-m",
        "join",
        "other",
    ]);
    let mut roots = [first, other];
    roots.sort();
    assert_eq!(r.identity().expect("identity"), Some(roots.join(",")));
}
