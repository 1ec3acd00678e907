//! Checkpoint cost against `git status` on a 50,000-file, ~1 GB repository with an ignored
//! `node_modules` of 100,000 files (issue 12's benchmark), printed side by side in one run:
//!
//! - a checkpoint when nothing changed, and when 10 files changed (each beside `git status` on
//!   the same tree, interleaved so a neighbour's load hits both alike; goal ≤ 2×);
//! - what checkpoints add to a turn (a start and an end one);
//! - the same through a `TreeWatch` (the Host's way for a live thread) with 0, 10 and 1,000
//!   changed files, beside `git status` (goal: ≤ 30 ms for 10 files, well under 1×);
//! - a fork worktree from a checkpoint: the time to the fork returning (the worktree added) and
//!   to its files being ready (filled), beside `git worktree add` alone; and the same fork
//!   claiming a spare worktree filled at a checkpoint 10 files away (only the difference
//!   written);
//! - the disk a checkpoint adds (goal: only the changed blobs).
//!
//! The repository is built once and kept under the target dir (`CARGO_TARGET_TMPDIR`), or
//! under `FORKHOST_BENCH_DIR`: a file system with copy-on-write clones there measures the fill
//! through clones (`src/clone.rs`).
//! Run: `cargo bench -p forkhost-worktree --bench checkpoint`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use forkhost_worktree::{CheckpointSpec, Confirm, Git, Repo, Scanned, TreeWatch, WorktreeSpec};

const FILES: usize = 50_000;
const PER_DIR: usize = 100;
/// ~20 KiB per file: 50,000 files ≈ 1 GB.
const FILE_LINES: usize = 400;
const IGNORED: usize = 100_000;
const RUNS: usize = 10;
const WORKTREES: usize = 2;

fn main() {
    // `FORKHOST_BENCH_DIR` puts the repository on another file system: one with copy-on-write
    // clones (btrfs, XFS; an XFS loop mount does) measures the fork's fill through clones.
    let base = std::env::var_os("FORKHOST_BENCH_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")), PathBuf::from)
        .join("forkhost-worktree-bench");
    let home = base.join("home");
    let repo = base.join("repo 50k 1g");
    std::fs::create_dir_all(&home).expect("bench home");
    std::fs::write(home.join("gitconfig"), "").expect("empty global config");
    let ready = base.join("repo-50k-1g.ready");
    if !ready.exists() {
        build(&repo, &home);
        std::fs::write(&ready, "").expect("marker");
    }
    let git_cmd = |args: &[&str]| -> String {
        let out = command(&repo, &home, args).output().expect("git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // A known starting point: the committed tree, no checkpoint refs, then this run's edits.
    git_cmd(&["reset", "-q", "--hard"]);
    git_cmd(&["clean", "-fdq"]); // untracked files, not the ignored node_modules
    git_cmd(&["worktree", "prune"]);
    let deletes = git_cmd(&[
        "for-each-ref",
        "--format=delete %(refname)",
        "refs/forkhost/",
    ]);
    if !deletes.is_empty() {
        let mut child = command(&repo, &home, &["update-ref", "--stdin"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .expect("update-ref");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(deletes.as_bytes())
            .expect("write");
        assert!(child.wait().expect("wait").success());
    }
    git_cmd(&["status", "--porcelain"]); // settle the index stat data, as a user's would be
                                         // Unique edits per run, so the objects counted below are really written by this run.
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    for i in 0..20 {
        let p = file_path(&repo, i * 2_477 % FILES);
        let mut text = std::fs::read_to_string(&p).expect("read");
        text.push_str(&format!("edited by the benchmark {nonce}\n"));
        std::fs::write(&p, text).expect("modify");
    }
    for i in 0..5 {
        std::fs::write(
            repo.join(format!("dir0007/new file {i}.txt")),
            format!("new {nonce}\n"),
        )
        .expect("add");
    }

    let git = Git::new()
        .expect("git")
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", &home)
        .env("GIT_CONFIG_GLOBAL", home.join("gitconfig"))
        .env("GIT_CONFIG_NOSYSTEM", "1");
    let r = Repo::discover(&git, &repo)
        .expect("discover")
        .expect("repo");

    // A first checkpoint records the tree the edits above made; then nothing changes.
    let first = r
        .checkpoint(&CheckpointSpec::new("bench", "first"))
        .expect("checkpoint");
    let mut parent = first.commit.clone();
    let mut run = |label: &str, edit: &mut dyn FnMut(usize)| {
        let mut checkpoints = Vec::new();
        let mut statuses = Vec::new();
        let mut objects = (0, 0);
        for n in 0..RUNS {
            edit(n);
            let before = loose_objects(&git_cmd(&["count-objects", "-v"]));
            let name = format!("{}-{n}", label.replace(' ', "-"));
            let spec = CheckpointSpec::new("bench", name).parent(parent.clone());
            let t = Instant::now();
            let cp = r.checkpoint(&spec).expect("checkpoint");
            checkpoints.push(t.elapsed());
            let after = loose_objects(&git_cmd(&["count-objects", "-v"]));
            objects.0 += after.0 - before.0;
            objects.1 += after.1 - before.1;
            parent = cp.commit;
            let t = Instant::now();
            let out = command(&repo, &home, &["status", "--porcelain"])
                .output()
                .expect("status");
            statuses.push(t.elapsed());
            assert!(out.status.success());
        }
        let (cm, cp90) = stats(&mut checkpoints);
        let (sm, sp90) = stats(&mut statuses);
        println!(
            "checkpoint, {label}: median {} ms p90 {} ms | git status: median {} ms p90 {} ms | ratio {:.2} (goal ≤ 2×) | disk per checkpoint: {:.1} objects, {:.1} KiB",
            ms(cm),
            ms(cp90),
            ms(sm),
            ms(sp90),
            cm.as_secs_f64() / sm.as_secs_f64(),
            objects.0 as f64 / RUNS as f64,
            objects.1 as f64 / RUNS as f64,
        );
        cm
    };
    let unchanged = run("nothing changed", &mut |_| {});
    let ten = run("10 files changed", &mut |n| {
        for i in 0..10 {
            let p = file_path(&repo, (n * 10 + i) * 4_999 % FILES);
            let mut text = std::fs::read_to_string(&p).expect("read");
            text.push_str(&format!("run {n} edit {i} {nonce}\n"));
            std::fs::write(&p, text).expect("modify");
        }
    });
    println!(
        "added to a turn: start + end checkpoint ≈ {} ms (10 files changed) to {} ms (nothing changed); the start one runs while the harness starts",
        ms(unchanged + ten),
        ms(unchanged * 2)
    );

    // The same through a watch on the folder (what the Host does for a live thread): only the
    // paths the watcher saw change are re-read. 0, 10 and 1,000 files, beside `git status`.
    let watch = TreeWatch::start(&repo).expect("watch");
    let first = r
        .checkpoint_watched(
            &CheckpointSpec::new("bench", "watched-first").parent(parent.clone()),
            &watch,
        )
        .expect("watched checkpoint");
    assert_eq!(first.scanned, Scanned::Full);
    parent = first.commit;
    let mut watched = |label: &str, files: usize, round: usize| {
        let mut checkpoints = Vec::new();
        let mut statuses = Vec::new();
        let mut scanned = Vec::new();
        for n in 0..RUNS {
            for i in 0..files {
                let p = file_path(&repo, (round * 7_919 + n * files + i) * 4_999 % FILES);
                let mut text = std::fs::read_to_string(&p).expect("read");
                text.push_str(&format!("watched {round} run {n} edit {i} {nonce}\n"));
                std::fs::write(&p, text).expect("modify");
            }
            let name = format!("watched-{round}-{n}");
            let spec = CheckpointSpec::new("bench", name).parent(parent.clone());
            let t = Instant::now();
            let cp = r.checkpoint_watched(&spec, &watch).expect("checkpoint");
            checkpoints.push(t.elapsed());
            scanned.push(cp.scanned);
            parent = cp.commit;
            let t = Instant::now();
            let out = command(&repo, &home, &["status", "--porcelain"])
                .output()
                .expect("status");
            statuses.push(t.elapsed());
            assert!(out.status.success());
        }
        let (cm, cp90) = stats(&mut checkpoints);
        let (sm, sp90) = stats(&mut statuses);
        scanned.dedup();
        println!(
            "watched checkpoint, {label}: median {} ms p90 {} ms | git status: median {} ms p90 {} ms | ratio {:.2} (goal ≤ 30 ms for 10 files, well under 1×) | read: {scanned:?}",
            ms(cm),
            ms(cp90),
            ms(sm),
            ms(sp90),
            cm.as_secs_f64() / sm.as_secs_f64(),
        );
    };
    watched("nothing changed (a start after an end)", 0, 0);
    watched("10 files changed", 10, 1);
    watched("1,000 files changed", 1_000, 2);
    // The source stays watched through the forks, as a live thread's folder is in the app: a
    // clone opens every source file, and the watcher hears each open.
    let source_watch = watch;

    // A fork worktree from a checkpoint: added (what the fork waits for), then filled (what
    // its first Send waits for), beside `git worktree add` of the same commit alone.
    // One fork's worktree, added then filled and removed: (time to added, time to filled).
    let fork_fill = |name: &str| {
        let t = Instant::now();
        let mut made = r
            .add_worktree(&WorktreeSpec {
                at: parent.clone(),
                path: base.join(format!("wt-{name}")),
                branch: format!("forkhost/bench-{name}-{nonce}"),
            })
            .expect("worktree");
        let added = t.elapsed();
        r.fill_worktree(&mut made, |_| {}).expect("fill");
        let filled = t.elapsed();
        r.remove_worktree(&made.path, Confirm::NothingToLose)
            .expect("remove");
        (added, filled)
    };
    let mut added = Vec::new();
    let mut filled = Vec::new();
    let mut plain = Vec::new();
    for n in 0..WORKTREES {
        let (a, f) = fork_fill(&format!("ours-{n}"));
        added.push(a);
        filled.push(f);
        let path = base.join(format!("wt-plain-{n}"));
        let path_text = path.display().to_string();
        let t = Instant::now();
        git_cmd(&[
            "worktree",
            "add",
            "-q",
            "--detach",
            &path_text,
            parent.as_str(),
        ]);
        plain.push(t.elapsed());
        git_cmd(&["worktree", "remove", "--force", &path_text]);
    }
    let (am, _) = stats(&mut added);
    let (fm, _) = stats(&mut filled);
    let (pm, _) = stats(&mut plain);
    println!(
        "fork worktree from a checkpoint: the fork returns after {} ms (added, no file written) | files ready after {} ms ({}) | git worktree add alone: {} ms ({WORKTREES} runs each, medians)",
        ms(am),
        ms(fm),
        if clones(&base) {
            "unchanged files cloned copy-on-write, the rest by git"
        } else {
            "no copy-on-write clones on this file system: git's parallel checkout"
        },
        ms(pm)
    );

    drop(source_watch);
    let mut unwatched: Vec<_> = (0..WORKTREES)
        .map(|n| fork_fill(&format!("unwatched-{n}")).1)
        .collect();
    let (um, _) = stats(&mut unwatched);
    println!(
        "the same fork with the source not watched: files ready after {} ms (above: watched, as in the app)",
        ms(um)
    );

    // The same fork claiming a spare filled (in the background) at a checkpoint 10 files away:
    // the fork returns once the spare is claimed (its clean check, the move, the branch), and
    // its files are ready once the fill wrote the difference.
    for i in 0..10 {
        let p = file_path(&repo, 1_000 + i * 3_331 % FILES);
        let mut text = std::fs::read_to_string(&p).expect("read");
        text.push_str(&format!("away from the spare {nonce}\n"));
        std::fs::write(&p, text).expect("modify");
    }
    let away = r
        .checkpoint(&CheckpointSpec::new("bench", "away").parent(parent.clone()))
        .expect("checkpoint")
        .commit;
    let (mut spared, mut claimed, mut ready) = (Vec::new(), Vec::new(), Vec::new());
    let _ = r.discard_spare(&base.join("spare")); // one an interrupted run left
    for n in 0..WORKTREES {
        let spare = base.join("spare");
        let t = Instant::now();
        r.add_spare(&spare, &parent).expect("spare");
        spared.push(t.elapsed());
        let t = Instant::now();
        let mut made = r
            .claim_spare(
                &spare,
                &WorktreeSpec {
                    at: away.clone(),
                    path: base.join(format!("wt-claimed-{n}")),
                    branch: format!("forkhost/bench-claimed-{n}-{nonce}"),
                },
            )
            .expect("claim");
        claimed.push(t.elapsed());
        r.fill_worktree(&mut made, |_| {})
            .expect("fill the difference");
        ready.push(t.elapsed());
        r.remove_worktree(&made.path, Confirm::NothingToLose)
            .expect("remove");
    }
    let (sm, _) = stats(&mut spared);
    let (cm, _) = stats(&mut claimed);
    let (rm, _) = stats(&mut ready);
    println!(
        "fork worktree claiming a spare 10 files away: the fork returns after {} ms (claimed) | files ready after {} ms (the difference written) | beside: a full fill {} ms, git worktree add alone {} ms | the spare's own fill (in the background, before the fork) {} ms ({WORKTREES} runs each, medians)",
        ms(cm),
        ms(rm),
        ms(fm),
        ms(pm),
        ms(sm)
    );
}

/// Whether the file system under `base` clones files copy-on-write.
fn clones(base: &Path) -> bool {
    let (from, to) = (base.join("clone-probe"), base.join("clone-probe-2"));
    std::fs::write(&from, b"probe").expect("probe");
    let cloned = reflink_copy::reflink(&from, &to).is_ok();
    let _ = std::fs::remove_file(&from);
    let _ = std::fs::remove_file(&to);
    cloned
}

fn file_path(repo: &Path, i: usize) -> PathBuf {
    repo.join(format!("dir{:04}", i / PER_DIR))
        .join(format!("file {:03}.txt", i % PER_DIR))
}

fn build(repo: &Path, home: &Path) {
    eprintln!(
        "building a {FILES}-file repository at {} (once)",
        repo.display()
    );
    let _ = std::fs::remove_dir_all(repo);
    std::fs::create_dir_all(repo).expect("repo dir");
    for i in 0..FILES {
        let p = file_path(repo, i);
        if i % PER_DIR == 0 {
            std::fs::create_dir_all(p.parent().expect("parent")).expect("dir");
        }
        let body: String = (0..FILE_LINES)
            .map(|l| format!("file {i} line {l}: lorem ipsum dolor sit amet, consectetur\n"))
            .collect();
        std::fs::write(p, body).expect("write");
    }
    std::fs::write(repo.join(".gitignore"), "node_modules/\n").expect("gitignore");
    for i in 0..IGNORED {
        let dir = repo.join(format!("node_modules/pkg{:04}", i / 100));
        if i % 100 == 0 {
            std::fs::create_dir_all(&dir).expect("node_modules dir");
        }
        std::fs::write(dir.join(format!("f{:03}.js", i % 100)), "x\n").expect("ignored");
    }
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "50k files"],
        // Packed once, and no background auto-gc skewing the timings or the object counts.
        &["config", "gc.auto", "0"],
        &["repack", "-adq"],
    ] {
        let out = command(repo, home, args).output().expect("git");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

fn command(repo: &Path, home: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new("git");
    cmd.current_dir(repo)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_WORK_TREE")
        .env("HOME", home)
        .env("XDG_CONFIG_HOME", home)
        .env("GIT_CONFIG_GLOBAL", home.join("gitconfig"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("LC_ALL", "C")
        .args([
            "-c",
            "user.name=Bench",
            "-c",
            "user.email=bench@example.com",
        ])
        .args(args);
    cmd
}

/// (loose object count, loose size in KiB) from `git count-objects -v`.
fn loose_objects(text: &str) -> (i64, i64) {
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0)
    };
    (field("count:"), field("size:"))
}

fn stats(samples: &mut [Duration]) -> (Duration, Duration) {
    samples.sort();
    let median = samples[samples.len() / 2];
    let p90 = samples[(samples.len() * 9 / 10).min(samples.len() - 1)];
    (median, p90)
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1000.0)
}
