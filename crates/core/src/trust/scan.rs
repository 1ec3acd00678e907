//! Finding a folder's project agent config, the way the harnesses find it: in the folder and
//! in **every** ancestor up to the filesystem root (Claude Code collects `.mcp.json` from each
//! ancestor of its cwd; Codex and Pi walk up for `.codex`, `.pi` and `.agents`), so a parent
//! or intermediate folder's config is seen too (docs/architecture.md "Folder trust"). The home
//! folder's own `.claude`, `.codex`, `.pi` and `.agents` are the user's settings, not a
//! project's; its `.mcp.json`, though, Claude loads as a project file, so that one counts.
//!
//! Every function here is plain filesystem reads with no subprocess: it runs before each
//! runtime start, and whatever it cannot read counts as found (failing closed).

use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use sha2::{Digest, Sha256};

/// The project config files and folders that can make a harness run commands.
/// OpenCode's are `opencode.json`/`opencode.jsonc` (MCP servers, plugins, commands) and
/// `.opencode/` (plugins run as code, agents, commands, tools).
const PROJECT_CONFIG: &[&str] = &[
    ".mcp.json",
    ".claude",
    ".codex",
    ".pi",
    ".agents",
    "opencode.json",
    "opencode.jsonc",
    ".opencode",
];
/// What counts in the home folder itself (the rest there is the user's own config).
const HOME_CONFIG: &[&str] = &[".mcp.json"];
/// The files inside those folders that define commands (hooks, MCP servers, packages); each
/// is fingerprinted by content, so that editing one in a trusted folder asks again.
const COMMAND_FILES: &[(&str, &[&str])] = &[
    (".claude", &["settings.json", "settings.local.json"]),
    (".codex", &["config.toml", "hooks.json"]),
    (".pi", &["settings.json"]),
];
/// The folders inside those config folders whose files a harness loads as code, or as config
/// that can carry commands: Pi's extensions (TypeScript run at start), skills and prompts;
/// Codex's exec-policy rules (an `allow` rule runs commands unasked) and skills; Claude's
/// skills, agents and commands (front matter can carry `hooks:` and `mcpServers:`), the
/// scripts its hooks run, plugins and output styles; and all of `.agents` (skills). Every file
/// below them is fingerprinted by path and content (review M-1), so one added or edited later
/// in a trusted folder asks again. An empty name stands for the whole folder.
const CODE_FOLDERS: &[(&str, &[&str])] = &[
    (
        ".claude",
        &[
            "agents",
            "commands",
            "hooks",
            "output-styles",
            "plugins",
            "skills",
        ],
    ),
    (".codex", &["rules", "skills", "prompts"]),
    (
        ".pi",
        &["extensions", "skills", "prompts", "themes", "agents"],
    ),
    (".agents", &[""]),
    (".opencode", &[""]),
];
/// At most this many files are fingerprinted below one config folder, this many folders deep;
/// a folder with more counts as changed at every scan (fail closed: it cannot be covered).
const MAX_TREE_FILES: usize = 2000;
const MAX_TREE_DEPTH: usize = 8;
/// And at most this many bytes are read for them (the scan runs before every runtime start).
const MAX_TREE_BYTES: u64 = 32 * 1024 * 1024;

/// What is left of the bounds for one config folder.
struct Budget {
    files: usize,
    bytes: u64,
}
/// A file's fingerprint covers at most this much of it (config files are small; a huge one is
/// still told apart by its size).
const MAX_HASHED: u64 = 4 * 1024 * 1024;

/// What was found for one folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Scan {
    /// Where the decision is kept: the repository root holding the folder, the main checkout
    /// for a linked worktree, else the folder.
    pub root: PathBuf,
    /// The config entries, shown relative to the repository root (`.mcp.json`,
    /// `../.mcp.json`, `pkg/.mcp.json`), nearest folder first.
    pub config: Vec<String>,
    /// One `name<TAB>hash` line per entry and per command file in it, sorted: what a decision
    /// covers.
    pub fingerprint: String,
}

/// Scans the canonical `folder` (the caller canonicalizes); `home` is the user's home folder,
/// canonical too.
pub(crate) fn scan(folder: &Path, home: Option<&Path>) -> Scan {
    let base = repo_base(folder);
    let mut config = Vec::new();
    let mut lines = Vec::new();
    for dir in folder.ancestors() {
        let names = match Some(dir) == home {
            true => HOME_CONFIG,
            false => PROJECT_CONFIG,
        };
        for name in names {
            let path = dir.join(name);
            if !present(&path) {
                continue;
            }
            let shown = shown(dir, name, &base);
            // Config inside the repository is keyed by its place in it (a worktree's copy is
            // the main checkout's); config above it by where it is (a worktree elsewhere has
            // other folders above it, and the same file above both is the same file).
            let key = match dir.starts_with(&base) {
                true => shown.clone(),
                false => path.display().to_string(),
            };
            let hash = match *name == ".mcp.json" {
                true => hash_of(&path),
                false => "-".to_owned(),
            };
            lines.push(format!("{key}\t{hash}"));
            for (folder_name, files) in COMMAND_FILES {
                if name == folder_name {
                    for file in *files {
                        let inner = path.join(file);
                        if present(&inner) {
                            lines.push(format!("{key}/{file}\t{}", hash_of(&inner)));
                        }
                    }
                }
            }
            let mut budget = Budget {
                files: MAX_TREE_FILES,
                bytes: MAX_TREE_BYTES,
            };
            for (folder_name, subs) in CODE_FOLDERS {
                if name == folder_name {
                    for sub in *subs {
                        let (inner, inner_key) = match sub.is_empty() {
                            true => (path.clone(), key.clone()),
                            false => (path.join(sub), format!("{key}/{sub}")),
                        };
                        if present(&inner) {
                            tree(&inner, &inner_key, 0, &mut budget, &mut lines);
                        }
                    }
                }
            }
            config.push(shown);
        }
    }
    lines.sort();
    let root = main_checkout(&base).unwrap_or(base);
    Scan {
        root,
        config,
        fingerprint: lines.join("\n"),
    }
}

/// The entries of `now` that `before` (a recorded fingerprint) did not cover: new config, or
/// a command file whose content changed. Entries that went away need no new decision.
pub(crate) fn changed(before: &str, now: &str) -> Vec<String> {
    let covered: Vec<&str> = before.lines().collect();
    now.lines()
        .filter(|line| !covered.contains(line))
        .filter_map(|line| line.split('\t').next())
        .map(str::to_owned)
        .collect()
}

/// One `key/relative/path<TAB>hash` line for every file below `dir` (following links, as the
/// harnesses do, within [`MAX_TREE_DEPTH`]), counted against `budget` ([`MAX_TREE_FILES`],
/// [`MAX_TREE_BYTES`]). A folder that cannot be listed, is too deep, or holds more than the
/// budget gets a line that differs at every scan.
fn tree(dir: &Path, key: &str, depth: usize, budget: &mut Budget, lines: &mut Vec<String>) {
    let meta = match fs::metadata(dir) {
        Ok(meta) => meta,
        // A dangling link, or one that cannot be followed: it is there, and unreadable.
        Err(_) => return lines.push(format!("{key}\tunreadable")),
    };
    if !meta.is_dir() {
        let read = meta.len().min(MAX_HASHED);
        if budget.files == 0 || budget.bytes < read {
            return lines.push(format!(
                "{key}\tbeyond the fingerprint's bound {}",
                never_equal()
            ));
        }
        budget.files -= 1;
        budget.bytes -= read;
        return lines.push(format!("{key}\t{}", hash_of(dir)));
    }
    let listed = match fs::read_dir(dir) {
        Ok(entries) => entries.collect::<Result<Vec<_>, _>>(),
        Err(err) => Err(err),
    };
    let Ok(entries) = listed else {
        return lines.push(format!("{key}/\tunreadable {}", never_equal()));
    };
    if depth >= MAX_TREE_DEPTH {
        return lines.push(format!("{key}/\ttoo deep to fingerprint {}", never_equal()));
    }
    for entry in entries {
        let name = entry.file_name().to_string_lossy().into_owned();
        tree(
            &entry.path(),
            &format!("{key}/{name}"),
            depth + 1,
            budget,
            lines,
        );
    }
}

/// A value no later scan repeats: what cannot be fingerprinted is never covered by a decision.
fn never_equal() -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("({now})")
}

/// Whether `path` exists; an error other than "not found" counts as present (fail closed).
fn present(path: &Path) -> bool {
    match fs::symlink_metadata(path) {
        Ok(_) => true,
        Err(err) => err.kind() != std::io::ErrorKind::NotFound,
    }
}

/// The SHA-256 of a file's first [`MAX_HASHED`] bytes plus its size; `unreadable` when it
/// cannot be read (a later readable version then differs, and asks).
fn hash_of(path: &Path) -> String {
    let Ok(file) = fs::File::open(path) else {
        return "unreadable".to_owned();
    };
    let mut bytes = Vec::new();
    if file.take(MAX_HASHED).read_to_end(&mut bytes).is_err() {
        return "unreadable".to_owned();
    }
    let size = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let mut hasher = Sha256::new();
    hasher.update(&bytes);
    hasher.update(size.to_le_bytes());
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `dir/name` shown relative to `base`: `name` in it, `sub/name` below it, `../name` above.
fn shown(dir: &Path, name: &str, base: &Path) -> String {
    if let Ok(rel) = dir.strip_prefix(base) {
        let mut parts: Vec<String> = rel
            .components()
            .filter_map(|c| match c {
                Component::Normal(part) => Some(part.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        parts.push(name.to_owned());
        return parts.join("/");
    }
    let up = base
        .components()
        .count()
        .saturating_sub(dir.components().count());
    format!("{}{name}", "../".repeat(up))
}

/// The repository root above `folder` (the nearest folder holding `.git`), else `folder`.
fn repo_base(folder: &Path) -> PathBuf {
    folder
        .ancestors()
        .find(|dir| present(&dir.join(".git")))
        .unwrap_or(folder)
        .to_path_buf()
}

/// For a linked worktree (its `.git` a file `gitdir: <main>/.git/worktrees/<name>`), its main
/// checkout, so that a worktree fork keeps its repository's decision (the setup command is
/// keyed the same way). Only a worktree that the main repository itself registered counts:
/// the worktree's folder in `<common>/worktrees/` must name this checkout back (git's own
/// `gitdir` file there). A `.git` file written by a project (an archive claiming to be a
/// worktree of a trusted repository) names a folder it cannot write into, so it gets no
/// trust of another repository's.
fn main_checkout(base: &Path) -> Option<PathBuf> {
    let dot_git = base.join(".git");
    if !fs::symlink_metadata(&dot_git).ok()?.is_file() {
        return None;
    }
    let text = fs::read_to_string(&dot_git).ok()?;
    let git_dir = dunce::canonicalize(base.join(text.strip_prefix("gitdir:")?.trim())).ok()?;
    let common = fs::read_to_string(git_dir.join("commondir")).ok()?;
    let common = dunce::canonicalize(git_dir.join(common.trim())).ok()?;
    if git_dir.parent()? != common.join("worktrees") {
        return None;
    }
    let back = fs::read_to_string(git_dir.join("gitdir")).ok()?;
    let back = dunce::canonicalize(git_dir.join(back.trim())).ok()?;
    if back != dunce::canonicalize(&dot_git).ok()? {
        return None;
    }
    // A bare repository's worktrees have no main checkout: each keeps its own decision.
    if common.file_name()? != ".git" {
        return None;
    }
    Some(common.parent()?.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(dir: &tempfile::TempDir) -> PathBuf {
        dunce::canonicalize(dir.path()).unwrap()
    }

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn config_is_found_in_every_ancestor_shown_from_the_repository_root() {
        let dir = tempfile::tempdir().unwrap();
        let top = canonical(&dir);
        write(&top.join(".mcp.json"), "{}");
        let repo = top.join("repo");
        fs::create_dir_all(repo.join(".git")).unwrap();
        write(&repo.join("pkg/.mcp.json"), "{}");
        fs::create_dir_all(repo.join("pkg/app/.agents")).unwrap();
        fs::create_dir_all(repo.join(".claude")).unwrap();
        let found = scan(&repo.join("pkg/app"), None);
        assert_eq!(found.root, repo);
        assert_eq!(
            found.config,
            [
                "pkg/app/.agents",
                "pkg/.mcp.json",
                ".claude",
                "../.mcp.json"
            ]
        );
        // Outside a repository the folder is the root.
        let plain = top.join("plain/deeper");
        fs::create_dir_all(&plain).unwrap();
        let found = scan(&plain, None);
        assert_eq!(
            (found.root.as_path(), found.config.as_slice()),
            (plain.as_path(), ["../../.mcp.json".to_owned()].as_slice())
        );
    }

    /// OpenCode's project config: its file and its folder, whose plugins run as code.
    #[test]
    fn opencodes_config_is_found_and_its_plugins_are_covered() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical(&dir);
        fs::create_dir_all(root.join(".git")).unwrap();
        write(&root.join("opencode.json"), "{}");
        write(&root.join("app/.opencode/plugin/a.ts"), "export {}");
        let found = scan(&root.join("app"), None);
        assert_eq!(found.config, ["app/.opencode", "opencode.json"]);
        write(&root.join("app/.opencode/plugin/b.ts"), "export {}");
        let grown = scan(&root.join("app"), None).fingerprint;
        assert_eq!(
            changed(&found.fingerprint, &grown),
            ["app/.opencode/plugin/b.ts"]
        );
        // The installer's own folder in the home folder is not a project's.
        let elsewhere = tempfile::tempdir().unwrap();
        let home = canonical(&elsewhere);
        write(&home.join(".opencode/bin/opencode"), "");
        fs::create_dir_all(home.join("proj")).unwrap();
        assert!(scan(&home.join("proj"), Some(&home)).config.is_empty());
    }

    #[test]
    fn the_home_folder_counts_only_its_mcp_json() {
        let dir = tempfile::tempdir().unwrap();
        let home = canonical(&dir);
        for own in [".claude", ".codex", ".pi", ".agents"] {
            fs::create_dir_all(home.join(own)).unwrap();
        }
        let project = home.join("proj");
        fs::create_dir_all(&project).unwrap();
        assert!(scan(&project, Some(&home)).config.is_empty());
        write(&home.join(".mcp.json"), "{}");
        assert_eq!(scan(&project, Some(&home)).config, ["../.mcp.json"]);
    }

    #[test]
    fn new_or_edited_command_files_are_changes_and_removals_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical(&dir);
        write(&root.join(".claude/settings.json"), "{}");
        let before = scan(&root, None).fingerprint;
        assert!(changed(&before, &before).is_empty());
        write(&root.join(".claude/settings.json"), r#"{"hooks":{}}"#);
        let edited = scan(&root, None).fingerprint;
        assert_eq!(changed(&before, &edited), [".claude/settings.json"]);
        write(&root.join(".mcp.json"), "{}");
        let grown = scan(&root, None).fingerprint;
        assert_eq!(changed(&edited, &grown), [".mcp.json"]);
        fs::remove_file(root.join(".mcp.json")).unwrap();
        assert!(changed(&grown, &scan(&root, None).fingerprint).is_empty());
        // A decision older than fingerprints covers nothing.
        assert_eq!(changed("", &edited).len(), 2);
    }

    /// Review M-1: code a harness loads from inside a trusted config folder is covered.
    #[test]
    fn files_added_or_edited_inside_config_folders_are_changes() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical(&dir);
        write(&root.join(".pi/settings.json"), "{}");
        fs::create_dir_all(root.join(".codex")).unwrap();
        fs::create_dir_all(root.join(".claude")).unwrap();
        fs::create_dir_all(root.join(".agents")).unwrap();
        let mut before = scan(&root, None).fingerprint;
        for added in [
            ".pi/extensions/x.ts",
            ".pi/extensions/nested/y.ts",
            ".codex/rules/a.rules",
            ".claude/skills/s/SKILL.md",
            ".claude/agents/a.md",
            ".claude/commands/c.md",
            ".claude/hooks/h.sh",
            ".agents/skills/k/SKILL.md",
        ] {
            write(&root.join(added), "one");
            let after = scan(&root, None).fingerprint;
            assert_eq!(changed(&before, &after), [added], "{added}");
            write(&root.join(added), "two");
            let edited = scan(&root, None).fingerprint;
            assert_eq!(changed(&after, &edited), [added], "{added} edited");
            before = edited;
        }
        // Unchanged, a rescan covers all of it.
        assert!(changed(&before, &scan(&root, None).fingerprint).is_empty());
    }

    #[test]
    fn a_config_folder_too_deep_or_too_large_is_never_covered() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical(&dir);
        // Eight folders deep is one too many.
        write(&root.join(".agents/1/2/3/4/5/6/7/f"), "x");
        let before = scan(&root, None).fingerprint;
        assert!(changed(&before, &scan(&root, None).fingerprint).is_empty());
        write(&root.join(".agents/1/2/3/4/5/6/7/8/f"), "x");
        let before = scan(&root, None).fingerprint;
        assert!(!changed(&before, &scan(&root, None).fingerprint).is_empty());
        // More bytes than the bound: nine files of 4 MiB (sparse) are past 32 MiB.
        let other = tempfile::tempdir().unwrap();
        let root = canonical(&other);
        fs::create_dir_all(root.join(".agents")).unwrap();
        for i in 0..8 {
            let big = fs::File::create(root.join(format!(".agents/{i}.bin"))).unwrap();
            big.set_len(MAX_HASHED).unwrap();
        }
        let before = scan(&root, None).fingerprint;
        assert!(
            changed(&before, &scan(&root, None).fingerprint).is_empty(),
            "32 MiB fit"
        );
        let big = fs::File::create(root.join(".agents/8.bin")).unwrap();
        big.set_len(MAX_HASHED).unwrap();
        let before = scan(&root, None).fingerprint;
        assert!(!changed(&before, &scan(&root, None).fingerprint).is_empty());
    }

    #[test]
    fn a_config_folder_beyond_the_bound_is_never_covered() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical(&dir);
        for i in 0..=MAX_TREE_FILES {
            write(&root.join(format!(".agents/many/{i}.md")), "x");
        }
        let before = scan(&root, None).fingerprint;
        assert!(!changed(&before, &scan(&root, None).fingerprint).is_empty());
    }

    #[test]
    fn an_mcp_json_edited_in_place_is_a_change_within_its_first_4_mib() {
        let dir = tempfile::tempdir().unwrap();
        let root = canonical(&dir);
        // The same size before and after: only its content tells the edit apart.
        let mut text = vec![b' '; 3 * 1024 * 1024 + 512];
        text[0] = b'{';
        *text.last_mut().unwrap() = b'}';
        fs::write(root.join(".mcp.json"), &text).unwrap();
        let before = scan(&root, None).fingerprint;
        text[3 * 1024 * 1024] = b'\n';
        fs::write(root.join(".mcp.json"), &text).unwrap();
        let after = scan(&root, None).fingerprint;
        assert_eq!(changed(&before, &after), [".mcp.json"]);
        // Past the hashed part, the size still tells a grown file apart.
        text.resize(MAX_HASHED as usize + 10, b' ');
        fs::write(root.join(".mcp.json"), &text).unwrap();
        let long = scan(&root, None).fingerprint;
        text.push(b' ');
        fs::write(root.join(".mcp.json"), &text).unwrap();
        assert_eq!(
            changed(&long, &scan(&root, None).fingerprint),
            [".mcp.json"]
        );
    }

    #[test]
    fn config_above_two_checkouts_at_other_depths_fingerprints_the_same() {
        let dir = tempfile::tempdir().unwrap();
        let top = canonical(&dir);
        write(&top.join(".mcp.json"), "{}");
        let near = top.join("main");
        let far = top.join("data/worktrees/fork");
        for checkout in [&near, &far] {
            fs::create_dir_all(checkout.join(".git")).unwrap();
            write(&checkout.join(".claude/settings.json"), "{}");
        }
        let (near, far) = (scan(&near, None), scan(&far, None));
        assert_eq!(near.config, [".claude", "../.mcp.json"]);
        assert_eq!(far.config, [".claude", "../../../.mcp.json"]);
        assert_eq!(near.fingerprint, far.fingerprint);
    }

    #[test]
    fn a_registered_worktree_is_keyed_by_its_main_checkout_and_a_forged_one_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let top = canonical(&dir);
        let main = top.join("main");
        let admin = main.join(".git/worktrees/wt");
        fs::create_dir_all(&admin).unwrap();
        let wt = top.join("wt");
        write(&wt.join(".git"), &format!("gitdir: {}\n", admin.display()));
        write(&admin.join("commondir"), "../..\n");
        write(
            &admin.join("gitdir"),
            &format!("{}\n", wt.join(".git").display()),
        );
        assert_eq!(scan(&wt, None).root, main);
        // A checkout whose `.git` names the same admin folder is not the one registered there.
        let forged = top.join("forged");
        write(
            &forged.join(".git"),
            &format!("gitdir: {}\n", admin.display()),
        );
        assert_eq!(scan(&forged, None).root, forged);
        // Nor is one whose admin folder is its own, pointing at the trusted common dir.
        let own = top.join("own");
        let own_admin = own.join("admin");
        write(
            &own.join(".git"),
            &format!("gitdir: {}\n", own_admin.display()),
        );
        write(
            &own_admin.join("commondir"),
            &format!("{}\n", main.join(".git").display()),
        );
        write(
            &own_admin.join("gitdir"),
            &format!("{}\n", own.join(".git").display()),
        );
        assert_eq!(scan(&own, None).root, own);
    }
}
