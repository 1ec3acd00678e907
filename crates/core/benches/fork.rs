//! Host overhead of a fork on a 1,000-turn source (goal: ≤ 10 ms median; docs/architecture.md
//! "## Fork"), printed beside the harness's native call. Everything the Host does but the
//! native call counts: checks, reading the source's anchors, the `creating` row, the commit,
//! reading the fork back.
//!
//! `cargo bench -p forkhost-core --bench fork` (needs FORKHOST_CLAUDE_BIN or `claude` on PATH:
//! Claude's native fork is lazy, so its native call is only a check of the source file).

use std::io::Write;
use std::time::Instant;

use forkhost_core::{ForkAt, HarnessKind, Host, HostOptions, TurnRef};

const TURNS: usize = 1000;
const FORKS: usize = 60;

fn transcript(dir: &std::path::Path, cwd: &str, sid: &str) -> std::path::PathBuf {
    let file = dir.join(format!("{sid}.jsonl"));
    let mut out = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
    let mut parent = "null".to_owned();
    for t in 0..TURNS {
        let user = format!("00000000-0000-4000-8000-{:012}", 2 * t);
        let reply = format!("00000000-0000-4000-8000-{:012}", 2 * t + 1);
        writeln!(out, r#"{{"parentUuid":{parent},"isSidechain":false,"type":"user","message":{{"role":"user","content":"prompt number {t}: please look at the code and tell me what you think about it"}},"uuid":"{user}","timestamp":"2026-11-29T10:00:00.000Z","cwd":"{cwd}","sessionId":"{sid}","version":"2.1.197","userType":"external"}}"#).unwrap();
        writeln!(out, r#"{{"parentUuid":"{user}","isSidechain":false,"type":"assistant","message":{{"id":"msg_{t}","type":"message","role":"assistant","model":"claude-opus-4-8","content":[{{"type":"text","text":"reply number {t}: {}"}}],"stop_reason":"end_turn"}},"uuid":"{reply}","timestamp":"2026-11-29T10:00:01.000Z","cwd":"{cwd}","sessionId":"{sid}","version":"2.1.197","userType":"external"}}"#, "lorem ipsum dolor sit amet ".repeat(20)).unwrap();
        parent = format!("\"{reply}\"");
    }
    file
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    if forkhost_harness::binary::locate(HarnessKind::Claude).is_err() {
        println!("fork overhead: skipped (no claude binary; set FORKHOST_CLAUDE_BIN)");
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let home = tempfile::tempdir().unwrap();
        let cwd = home.path().join("work");
        std::fs::create_dir_all(&cwd).unwrap();
        let cwd = cwd.canonicalize().unwrap().display().to_string();
        let project = home.path().join(".claude/projects/bench");
        std::fs::create_dir_all(&project).unwrap();
        let sid = "11111111-2222-4333-8444-555555555555";
        let file = transcript(&project, &cwd, sid);
        let data = tempfile::tempdir().unwrap();
        let env = vec![("HOME".to_owned(), home.path().display().to_string())];
        let (host, _) = Host::open_with(data.path(), HostOptions { harness_env: env, ..Default::default() }).await.unwrap();
        let source = host.import(HarnessKind::Claude, file.to_str().unwrap()).await.unwrap();
        assert_eq!(source.turns.len(), TURNS);
        let bytes = std::fs::metadata(&file).unwrap().len();

        let (mut native, mut overhead, mut total) = (Vec::new(), Vec::new(), Vec::new());
        let (mut check, mut commit, mut read_back) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..FORKS {
            let at = match i % 3 {
                0 => ForkAt::Latest,
                1 => ForkAt::After(TurnRef::Number(TURNS as i64 / 2)),
                _ => ForkAt::Before(TurnRef::Number(TURNS as i64)),
            };
            let started = Instant::now();
            let fork = host.fork(&source.thread.id, at).await.unwrap();
            let wall = started.elapsed().as_secs_f64() * 1e3;
            native.push(fork.timing.native_ms);
            check.push(fork.timing.check_ms);
            commit.push(fork.timing.commit_ms);
            read_back.push(fork.timing.read_back_ms);
            overhead.push(wall - fork.timing.native_ms);
            total.push(wall);
        }
        let mut show = Vec::new();
        for _ in 0..10 {
            let started = Instant::now();
            host.show(&source.thread.id).await.unwrap();
            show.push(started.elapsed().as_secs_f64() * 1e3);
        }
        println!(
            "show of the {TURNS}-turn source (anchors + every message read from the native file), median of 10: {:.2} ms",
            median(&mut show)
        );
        println!(
            "fork of a {TURNS}-turn Claude source ({:.1} MB), median of {FORKS}: host overhead {:.2} ms (goal <= 10 ms) | native call {:.2} ms | total {:.2} ms",
            bytes as f64 / 1e6,
            median(&mut overhead),
            median(&mut native),
            median(&mut total)
        );
        println!(
            "  of which: checks {:.2} ms | insert creating + commit {:.2} ms | read back with messages {:.2} ms",
            median(&mut check),
            median(&mut commit),
            median(&mut read_back)
        );
        host.shutdown().await;
    });
}
