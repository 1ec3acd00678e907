//! Finding the repository that holds a folder, from its main checkout or a linked worktree.

use std::path::{Path, PathBuf};

use crate::error::{Result, WorktreeError};
use crate::git::Git;
use crate::oid::Oid;

/// One checkout of a repository: the folder a thread works in. Several `Repo` values (the main
/// checkout and its linked worktrees) share one object store and one set of refs.
#[derive(Debug, Clone)]
pub struct Repo {
    pub(crate) git: Git,
    /// The checkout's top folder.
    pub(crate) root: PathBuf,
    /// This checkout's own git folder (its index and HEAD live here).
    pub(crate) git_dir: PathBuf,
    /// The folder shared by all worktrees (objects, refs).
    pub(crate) common_dir: PathBuf,
}

impl Repo {
    /// Whether [`Repo::discover`] could find a work tree from `folder`: some folder on its real
    /// path (the one git walks, symlinks resolved) holds a `.git` entry. Git runs with the
    /// repository variables (`GIT_DIR`, …) removed, so without one it could only answer "not a
    /// git repository". A filesystem check instead of a git process, for callers that ask on
    /// every turn start (a thread outside git pays no spawn on its way from Send to the
    /// harness). A folder that cannot be resolved says `true`: git decides.
    pub fn may_hold(folder: &Path) -> bool {
        let Ok(real) = std::fs::canonicalize(folder) else {
            return true;
        };
        real.ancestors()
            .any(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
    }

    /// The repository containing `folder`, or `None` when it is not inside a work tree (a plain
    /// folder or a bare repository). A folder that does not exist is an [`WorktreeError::Io`]
    /// error (not found), kept apart from [`WorktreeError::GitMissing`].
    pub fn discover(git: &Git, folder: &Path) -> Result<Option<Repo>> {
        if !folder.is_dir() {
            return Err(WorktreeError::Io(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                format!("{} is not a folder", folder.display()),
            )));
        }
        let out = git
            .call(folder)
            .args([
                "rev-parse",
                "--path-format=absolute",
                "--show-toplevel",
                "--git-dir",
                "--git-common-dir",
            ])
            .output()?;
        if !out.success {
            let stderr = String::from_utf8_lossy(&out.stderr);
            if stderr.contains("not a git repository")
                || stderr.contains("must be run in a work tree")
            {
                return Ok(None);
            }
            return Err(crate::git::failed(
                "git rev-parse --show-toplevel".into(),
                &out.stderr,
            ));
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut lines = text.lines();
        let (Some(root), Some(git_dir), Some(common_dir)) =
            (lines.next(), lines.next(), lines.next())
        else {
            return Ok(None);
        };
        let (git_dir, common_dir) = (PathBuf::from(git_dir), PathBuf::from(common_dir));
        let off = filters_off(git, folder, &git_dir, &common_dir)?;
        Ok(Some(Repo {
            git: git.clone().with_config(off),
            root: PathBuf::from(root),
            git_dir,
            common_dir,
        }))
    }

    /// The checkout's top folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder all worktrees of this repository share.
    pub fn common_dir(&self) -> &Path {
        &self.common_dir
    }

    /// A boolean setting of this repository as git reads it (any config file), `None` when
    /// unset or not a boolean.
    pub fn config_bool(&self, key: &str) -> Result<Option<bool>> {
        let out = self
            .git
            .call(&self.root)
            .args(["config", "--type=bool", "--get", "--end-of-options", key])
            .output()?;
        Ok(match String::from_utf8_lossy(&out.stdout).trim() {
            "true" if out.success => Some(true),
            "false" if out.success => Some(false),
            _ => None,
        })
    }

    /// What tells this repository from another one at the same path: its root commits
    /// (sorted, comma-joined), the same in every clone of it; `None` without commits.
    pub fn identity(&self) -> Result<Option<String>> {
        let out = self
            .git
            .call(&self.root)
            .args(["rev-list", "--max-parents=0", "HEAD", "--"])
            .output()?;
        if !out.success {
            return Ok(None);
        }
        let mut roots: Vec<&str> = std::str::from_utf8(&out.stdout)
            .unwrap_or_default()
            .split_whitespace()
            .collect();
        roots.sort_unstable();
        Ok((!roots.is_empty()).then(|| roots.join(",")))
    }

    /// The commit HEAD points at, or `None` in a repository with no commits yet.
    pub fn head(&self) -> Result<Option<Oid>> {
        self.resolve_commit("HEAD")
    }

    /// A revision resolved to a commit, or `None` when it names none.
    pub(crate) fn resolve_commit(&self, rev: &str) -> Result<Option<Oid>> {
        let out = self
            .git
            .call(&self.root)
            .args(["rev-parse", "-q", "--verify", "--end-of-options"])
            .arg(format!("{rev}^{{commit}}"))
            .output()?;
        Ok(if out.success {
            Oid::from_output(&out.stdout)
        } else {
            None
        })
    }

    /// `oid` as an existing commit, or [`WorktreeError::CheckpointNotFound`].
    pub(crate) fn commit(&self, oid: &Oid) -> Result<Oid> {
        self.resolve_commit(oid.as_str())?
            .ok_or_else(|| WorktreeError::CheckpointNotFound(oid.to_string()))
    }

    /// Another checkout of the same repository (shares refs and objects with this one).
    pub(crate) fn sibling(&self, folder: &Path) -> Result<Repo> {
        let other = Repo::discover(&self.git, folder)?
            .ok_or_else(|| WorktreeError::NotARepository(folder.to_owned()))?;
        Ok(other)
    }
}

/// The settings that turn off every filter driver the repository's own config defines (review
/// M-6). A driver's `clean`, `smudge` and `process` are commands; a `.gitattributes` line maps
/// files to it, and git runs it on `update-index --add`, `checkout-index` and `checkout`: at
/// every checkpoint, rewind and worktree fill, before and whatever the folder's trust. A
/// repository that came with its `.git` folder (an archive, a shared drive) brings its
/// `.git/config` too, so its drivers are emptied (an empty command is no filter, and
/// `required=false` lets git store and write the file as it is). Drivers of the user's own
/// config (global, system) stay, and so does a local git-lfs driver that runs exactly git-lfs's
/// own commands. Without a `filter` or `include` in the repository's config files no git call
/// is made (most repositories: nothing to pay at every turn start).
fn filters_off(
    git: &Git,
    folder: &Path,
    git_dir: &Path,
    common_dir: &Path,
) -> Result<Vec<(String, String)>> {
    let files = [
        common_dir.join("config"),
        common_dir.join("config.worktree"),
        git_dir.join("config.worktree"),
    ];
    // A file that is missing or cannot be read defines nothing git could apply either.
    let may_define = files.iter().any(|file| {
        std::fs::read(file).is_ok_and(|bytes| {
            let text = String::from_utf8_lossy(&bytes).to_ascii_lowercase();
            text.contains("filter") || text.contains("include")
        })
    });
    if !may_define {
        return Ok(Vec::new());
    }
    let out = git
        .call(folder)
        .args(["config", "--show-scope", "-z", "--get-regexp", r"^filter\."])
        .output()?;
    // Exit 1: no such key.
    if !out.success && !out.stdout.is_empty() {
        return Err(crate::git::failed(
            "git config --get-regexp filter".into(),
            &out.stderr,
        ));
    }
    Ok(overrides_for(&local_drivers(&out.stdout)))
}

/// git-lfs's own driver, as `git lfs install --local` writes it: it runs the git-lfs program,
/// nothing of the repository's.
const LFS: &[(&str, &str)] = &[
    ("clean", "git-lfs clean -- %f"),
    ("smudge", "git-lfs smudge -- %f"),
    ("process", "git-lfs filter-process"),
    ("required", "true"),
];

/// The drivers defined in the repository's own config files (`local` and `worktree` scope)
/// from `git config --show-scope -z --get-regexp` output (`scope NUL key LF value NUL`), minus
/// a git-lfs driver set exactly as git-lfs sets it.
fn local_drivers(listed: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(listed);
    let mut fields = text.split('\0');
    let mut drivers: Vec<(String, bool)> = Vec::new();
    while let (Some(scope), Some(entry)) = (fields.next(), fields.next()) {
        if scope != "local" && scope != "worktree" {
            continue;
        }
        let (key, value) = entry.split_once('\n').unwrap_or((entry, ""));
        let Some(rest) = key.strip_prefix("filter.") else {
            continue;
        };
        let Some((name, var)) = rest.rsplit_once('.') else {
            continue;
        };
        let lfs = name == "lfs" && LFS.contains(&(var, value));
        match drivers.iter_mut().find(|(n, _)| n == name) {
            Some((_, all_lfs)) => *all_lfs &= lfs,
            None => drivers.push((name.to_owned(), lfs)),
        }
    }
    drivers
        .into_iter()
        .filter(|(_, lfs)| !lfs)
        .map(|(name, _)| name)
        .collect()
}

/// Each driver's commands emptied and its `required` lifted.
fn overrides_for(drivers: &[String]) -> Vec<(String, String)> {
    let mut pairs = Vec::new();
    for name in drivers {
        for (var, value) in [
            ("clean", ""),
            ("smudge", ""),
            ("process", ""),
            ("required", "false"),
        ] {
            pairs.push((format!("filter.{name}.{var}"), value.to_owned()));
        }
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::{local_drivers, overrides_for, Repo};

    #[test]
    fn only_the_repositorys_own_drivers_are_turned_off_and_git_lfs_as_it_sets_itself_stays() {
        let listed = [
            "local\0filter.x.clean\nsh -c evil\0",
            "global\0filter.g.clean\ngit-g clean\0",
            "local\0filter.lfs.clean\ngit-lfs clean -- %f\0",
            "local\0filter.lfs.process\ngit-lfs filter-process\0",
            "local\0filter.lfs.required\ntrue\0",
            "worktree\0filter.a.b.smudge\nx\0",
        ]
        .concat();
        assert_eq!(local_drivers(listed.as_bytes()), ["x", "a.b"]);
        let forged =
            "local\0filter.lfs.clean\ngit-lfs clean -- %f\0local\0filter.lfs.smudge\nsh evil\0";
        assert_eq!(local_drivers(forged.as_bytes()), ["lfs"]);
        assert_eq!(
            overrides_for(&["x".into()]),
            [
                ("filter.x.clean".to_owned(), String::new()),
                ("filter.x.smudge".to_owned(), String::new()),
                ("filter.x.process".to_owned(), String::new()),
                ("filter.x.required".to_owned(), "false".to_owned()),
            ]
        );
    }

    #[test]
    fn only_a_git_entry_on_the_real_path_sends_discovery_to_git() {
        let base = tempfile::tempdir().unwrap();
        let base = base.path();
        let deep = base.join("a/b");
        let beside = base.join("c");
        std::fs::create_dir_all(&deep).unwrap();
        std::fs::create_dir_all(&beside).unwrap();
        // Whatever lies above the temporary folder decides for a folder with no `.git` below;
        // read it here on its own, not through the function under test.
        let above = base
            .canonicalize()
            .unwrap()
            .ancestors()
            .any(|dir| dir.join(".git").symlink_metadata().is_ok());
        assert_eq!(Repo::may_hold(base), above);
        assert_eq!(Repo::may_hold(&deep), above);
        std::fs::write(base.join("a/.git"), "gitdir: elsewhere\n").unwrap();
        assert!(Repo::may_hold(&deep));
        assert_eq!(Repo::may_hold(&beside), above);
        #[cfg(unix)]
        {
            let link = beside.join("link");
            std::os::unix::fs::symlink(&deep, &link).unwrap();
            assert!(Repo::may_hold(&link), "git walks the link's target");
        }
    }
}
