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
