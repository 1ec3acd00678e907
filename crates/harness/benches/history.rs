//! History reader figures, each printed beside its anchor from the same run ("Transcript reader budgets" in
//! docs/harness-behaviour.md):
//!
//! - index a ~100 MB transcript (turns and anchors) next to `wc -l` on the same file;
//! - read one appended turn at the end of a 1 MB and of a 100 MB file, next to `wc -l` of the
//!   appended bytes.
//!
//! `cargo bench -p forkhost-harness --bench history [-- MB]` (default 100). No assertions: it
//! only prints. Files are generated in a temporary folder from records modeled on the harness
//! notes (tool round trips, long tool outputs with escapes, Codex base instructions and
//! encrypted reasoning, Pi thinking blocks).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use forkhost_harness::{open_reader, HarnessKind};
use serde_json::{json, Value};

const RUNS: usize = 9;

fn main() {
    let mb: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100);
    let dir = tempfile::tempdir().expect("temp dir");
    println!(
        "history readers: {} core(s), rayon {} thread(s), load average {}; median (best) of {RUNS} warm runs\n",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        rayon::current_num_threads(),
        load()
    );
    // `FORKHOST_BENCH_PROFILE=claude|codex|pi`: only index that file, over and over, for a
    // profiler to look at.
    if let Ok(kind) = std::env::var("FORKHOST_BENCH_PROFILE") {
        let kind: HarnessKind = kind.parse().expect("claude, codex or pi");
        let path = dir.path().join("profile.jsonl");
        Gen::new(kind).write_file(&path, mb << 20);
        let t = Instant::now();
        for _ in 0..30 {
            open_reader(kind, &path).unwrap();
        }
        println!("{kind}: {} per index", ms(t.elapsed() / 30));
        return;
    }
    // The harnesses that keep a session file (OpenCode's sessions are database rows, read by
    // a query: its figures are printed by tests/tests/harness/acp_opencode.rs).
    for kind in [HarnessKind::Claude, HarnessKind::Codex, HarnessKind::Pi] {
        bench(kind, dir.path(), mb);
    }
    println!("load average after: {}", load());
}

/// Other work on the machine shows in every figure: say how busy it was.
fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

fn bench(kind: HarnessKind, dir: &Path, mb: usize) {
    let mut gen = Gen::new(kind);
    let big = dir.join(format!("{kind}-big.jsonl"));
    let small = dir.join(format!("{kind}-small.jsonl"));
    let t = Instant::now();
    gen.write_file(&big, mb << 20);
    let mut small_gen = Gen::new(kind);
    small_gen.write_file(&small, 1 << 20);
    let size = std::fs::metadata(&big).unwrap().len();
    println!(
        "== {kind}: {:.1} MB, {} turns (generated in {:.1} s)",
        size as f64 / 1e6,
        gen.turns,
        t.elapsed().as_secs_f64()
    );

    // Warm the page cache, then alternate so both see the same cache.
    wc_l(&big);
    let mut index = Vec::new();
    let mut wc = Vec::new();
    let mut anchors = 0;
    for _ in 0..RUNS {
        wc.push(wc_l(&big));
        let t = Instant::now();
        let reader = open_reader(kind, &big).unwrap();
        index.push(t.elapsed());
        anchors = reader.anchors().len();
    }
    let (best_index, best_wc) = (*index.iter().min().unwrap(), *wc.iter().min().unwrap());
    let (index, wc) = (median(index), median(wc));
    println!(
        "   index (turns + anchors)  {:>9} ({:>8})   wc -l {:>8} ({:>8})   ratio {:.2}x ({:.2}x)   {anchors} anchors, {:.2} GB/s",
        ms(index),
        ms(best_index),
        ms(wc),
        ms(best_wc),
        index.as_secs_f64() / wc.as_secs_f64(),
        best_index.as_secs_f64() / best_wc.as_secs_f64(),
        size as f64 / index.as_secs_f64() / 1e9
    );
    let one_core = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let single = median(
        (0..RUNS)
            .map(|_| {
                one_core.install(|| {
                    let t = Instant::now();
                    open_reader(kind, &big).unwrap();
                    t.elapsed()
                })
            })
            .collect(),
    );
    println!(
        "   index on one core        {:>9}                                      ratio {:.2}x",
        ms(single),
        single.as_secs_f64() / wc.as_secs_f64()
    );
    let reader = open_reader(kind, &big).unwrap();
    let t = Instant::now();
    let history = reader.history().unwrap();
    let messages: usize = history.turns.iter().map(|t| t.messages.len()).sum();
    println!(
        "   full text (history())    {:>9}   ({messages} messages; text is read on demand, not by the index)",
        ms(t.elapsed())
    );

    for (label, path, gen) in [("1 MB", &small, &mut small_gen), ("100 MB", &big, &mut gen)] {
        let mut reader = open_reader(kind, path).unwrap();
        let mut times = Vec::new();
        let mut wcs = Vec::new();
        let mut bytes = 0;
        for _ in 0..RUNS {
            let turn = gen.turn();
            bytes = turn.len();
            let only = dir.join("appended.jsonl");
            std::fs::write(&only, &turn).unwrap();
            wcs.push(wc_l(&only));
            append(path, &turn);
            let t = Instant::now();
            let a = reader.read_appended().unwrap();
            let last = reader.turn(reader.anchors().len() - 1).unwrap();
            times.push(t.elapsed());
            assert!(!a.reset && !last.messages.is_empty());
        }
        println!(
            "   appended turn at {label:>6}  {:>9}   wc -l of its {:.1} KB {:>9}",
            us(median(times)),
            bytes as f64 / 1e3,
            us(median(wcs))
        );
    }
    println!();
}

fn wc_l(path: &Path) -> Duration {
    let t = Instant::now();
    let out = Command::new("wc").arg("-l").arg(path).output().expect("wc");
    let d = t.elapsed();
    assert!(out.status.success());
    d
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn us(d: Duration) -> String {
    format!("{:.0} µs", d.as_secs_f64() * 1e6)
}

/// Deterministic transcript generator.
struct Gen {
    kind: HarnessKind,
    seed: u64,
    turns: usize,
    /// The previous record's id (Claude uuid, Pi entry id).
    parent: Option<String>,
    ids: u64,
}

const WORDS: &[&str] = &[
    "the",
    "file",
    "function",
    "returns",
    "error",
    "value",
    "let",
    "mut",
    "fn",
    "struct",
    "impl",
    "self",
    "=>",
    "{",
    "}",
    "\"quoted\"",
    "path/to/src/lib.rs",
    "println!",
    "Ok(())",
    "tests",
    "passed;",
    "cargo",
    "build",
    "warning:",
    "unused",
    "variable",
    "\\",
    "données",
    "→",
    "42",
    "0x7fff",
    "match",
    "Some(x)",
    "None",
    "async",
    "await",
    "tokio",
    "serde_json::Value",
];

impl Gen {
    fn new(kind: HarnessKind) -> Self {
        Gen {
            kind,
            seed: 0x9e37_79b9_7f4a_7c15,
            turns: 0,
            parent: None,
            ids: 0,
        }
    }

    fn next(&mut self) -> u64 {
        self.seed ^= self.seed << 13;
        self.seed ^= self.seed >> 7;
        self.seed ^= self.seed << 17;
        self.seed
    }

    /// Prose or program output of about `len` bytes, with newlines, quotes and backslashes.
    fn text(&mut self, len: usize) -> String {
        let mut s = String::with_capacity(len + 16);
        while s.len() < len {
            let r = self.next();
            s.push_str(WORDS[(r % WORDS.len() as u64) as usize]);
            s.push(if r.is_multiple_of(11) { '\n' } else { ' ' });
        }
        s
    }

    fn uuid(&mut self) -> String {
        self.ids += 1;
        let r = self.next();
        format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            r as u32,
            (r >> 32) as u16,
            self.ids % 4096,
            (r >> 48) % 4096,
            self.ids
        )
    }

    fn short_id(&mut self) -> String {
        self.ids += 1;
        format!("{:08x}", (self.next() as u32) ^ self.ids as u32)
    }

    fn write_file(&mut self, path: &PathBuf, size: usize) {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
        let mut written = 0;
        let head = self.head();
        written += head.len();
        f.write_all(&head).unwrap();
        while written < size {
            let turn = self.turn();
            written += turn.len();
            f.write_all(&turn).unwrap();
        }
        f.flush().unwrap();
    }

    fn head(&mut self) -> Vec<u8> {
        match self.kind {
            HarnessKind::Claude => Vec::new(),
            HarnessKind::Codex => lines(&[
                json!({"timestamp":"2026-11-29T18:00:00.000Z","type":"session_meta","payload":{
                "id":"019a0000-0000-7000-8000-00000000000a","session_id":"019a0000-0000-7000-8000-00000000000a",
                "timestamp":"2026-11-29T18:00:00.000Z","cwd":"/home/alice/proj","originator":"codex_exec","cli_version":"0.171.0",
                "source":"exec","model_provider":"mock","base_instructions":{"text":self.text(22_000),"provenance":"default"},
                "history_mode":"paginated"}}),
            ]),
            HarnessKind::Opencode => Vec::new(),
            HarnessKind::Pi => {
                let (a, b) = (self.short_id(), self.short_id());
                self.parent = Some(b.clone());
                lines(&[
                    json!({"type":"session","version":3,"id":"01a22894-51af-747e-bf5e-977bc30c7298","timestamp":"2026-11-29T18:32:18.608Z","cwd":"/path/to/proj"}),
                    json!({"type":"model_change","id":a,"parentId":null,"timestamp":"2026-11-29T18:32:18.700Z","provider":"mock","modelId":"mock-model"}),
                    json!({"type":"thinking_level_change","id":b,"parentId":a,"timestamp":"2026-11-29T18:32:18.701Z","thinkingLevel":"off"}),
                ])
            }
        }
    }

    /// One realistic turn: a prompt, three tool round trips with long outputs, a final reply.
    fn turn(&mut self) -> Vec<u8> {
        self.turns += 1;
        match self.kind {
            HarnessKind::Claude => self.claude_turn(),
            HarnessKind::Codex => self.codex_turn(),
            HarnessKind::Pi | HarnessKind::Opencode => self.pi_turn(),
        }
    }

    fn claude_record(&mut self, ty: &str, extra: Value) -> Value {
        let uuid = self.uuid();
        let mut v = json!({"parentUuid":self.parent,"isSidechain":false,"type":ty,"uuid":uuid,
            "timestamp":"2026-11-29T18:00:01.000Z","userType":"external","entrypoint":"sdk-cli",
            "cwd":"/home/alice/my_proj.v2","sessionId":"d1190000-0000-4000-8000-000000000001",
            "version":"2.1.197","gitBranch":"HEAD"});
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        self.parent = Some(uuid);
        v
    }

    fn claude_assistant(&mut self, msg: &str, block: Value, stop: &str) -> Value {
        self.claude_record(
            "assistant",
            json!({"message":{"id":msg,"type":"message","role":"assistant","model":"claude-opus-4-8",
                "content":[block],"stop_reason":stop,"stop_sequence":null,
                "usage":{"input_tokens":12034,"cache_creation_input_tokens":0,"cache_read_input_tokens":11800,"output_tokens":412,
                         "server_tool_use":{"web_search_requests":0},"service_tier":"standard"},"stop_details":null},
                "requestId":"req_011CVxyz"}),
        )
    }

    fn claude_turn(&mut self) -> Vec<u8> {
        let prompt = self.text(300);
        let mut v = vec![
            json!({"type":"queue-operation","operation":"enqueue","timestamp":"…","sessionId":"d119","content":prompt}),
            json!({"type":"queue-operation","operation":"dequeue","timestamp":"…","sessionId":"d119"}),
        ];
        let user = self.claude_record(
            "user",
            json!({"promptId":"0c32","message":{"role":"user","content":prompt},"permissionMode":"default","promptSource":"sdk"}),
        );
        v.push(user);
        for step in 0..3 {
            let msg = format!("msg_{}_{step}", self.turns);
            let think = self.text(400);
            let a = self.claude_assistant(&msg, json!({"type":"text","text":think}), "tool_use");
            v.push(a);
            let tool_id = format!("toolu_{}", self.uuid());
            let cmd = self.text(120);
            let b = self.claude_assistant(
                &msg,
                json!({"type":"tool_use","id":tool_id,"name":"Bash","input":{"command":cmd,"description":"Run it"}}),
                "tool_use",
            );
            let source = self.parent.clone();
            v.push(b);
            let out = self.text(3000);
            let r = self.claude_record(
                "user",
                json!({"message":{"role":"user","content":[{"tool_use_id":tool_id,"type":"tool_result","content":out,"is_error":false}]},
                    "toolUseResult":{"stdout":out,"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false},
                    "sourceToolAssistantUUID":source}),
            );
            v.push(r);
        }
        let msg = format!("msg_{}_end", self.turns);
        let reply = self.text(1500);
        let end = self.claude_assistant(&msg, json!({"type":"text","text":reply}), "end_turn");
        v.push(end);
        v.push(json!({"type":"last-prompt","lastPrompt":"…","leafUuid":self.parent,"sessionId":"d119"}));
        lines(&v)
    }

    fn codex_turn(&mut self) -> Vec<u8> {
        let turn = self.uuid();
        let ev = |p: Value| json!({"timestamp":"2026-11-29T18:00:00.000Z","type":"event_msg","payload":p});
        let ri = |p: Value| json!({"timestamp":"2026-11-29T18:00:00.000Z","type":"response_item","payload":p});
        let prompt = self.text(300);
        let mut v = vec![
            ev(
                json!({"type":"task_started","turn_id":turn,"root_turn_id":turn,"started_at":1795977138,"model_context_window":258400}),
            ),
            json!({"timestamp":"…","type":"turn_context","payload":{"turn_id":turn,"cwd":"/home/alice/proj","approval_policy":"never",
                "sandbox_policy":{"type":"read-only"},"model":"mock-model","effort":"medium","summary":"auto","collaboration_mode":{"mode":"default"}}}),
            ri(
                json!({"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n  <cwd>/home/alice/proj</cwd>\n  <shell>bash</shell>\n</environment_context>"}]}),
            ),
            ev(
                json!({"type":"item_completed","thread_id":"019a","turn_id":turn,"item":{"type":"UserMessage","id":self.uuid(),
                "content":[{"type":"text","text":prompt,"text_elements":[]}]},"started_at_ms":1,"completed_at_ms":2}),
            ),
            ri(
                json!({"type":"message","role":"user","content":[{"type":"input_text","text":prompt}]}),
            ),
        ];
        for _ in 0..3 {
            let enc: String = (0..2400)
                .map(|i| (b'A' + ((self.next() + i) % 26) as u8) as char)
                .collect();
            let summary = self.text(200);
            v.push(ri(json!({"type":"reasoning","summary":[{"type":"summary_text","text":summary}],"content":null,"encrypted_content":enc})));
            let call = format!("call_{}", self.uuid());
            let cmd = self.text(120);
            let args = json!({"command":["bash","-lc",cmd],"workdir":"/home/alice/proj","timeout_ms":120000}).to_string();
            v.push(ri(
                json!({"type":"function_call","name":"shell","arguments":args,"call_id":call}),
            ));
            let out = self.text(3500);
            v.push(ri(
                json!({"type":"function_call_output","call_id":call,"output":out}),
            ));
        }
        let reply = self.text(1500);
        v.push(ri(json!({"type":"message","role":"assistant","content":[{"type":"output_text","text":reply}]})));
        v.push(ev(json!({"type":"item_completed","thread_id":"019a","turn_id":turn,"item":{"type":"AgentMessage","id":self.uuid(),
            "content":[{"type":"Text","text":reply}],"phase":"final_answer"},"started_at_ms":1,"completed_at_ms":2})));
        v.push(ev(json!({"type":"token_count","info":{"total_token_usage":{"input_tokens":12000,"cached_input_tokens":11000,"output_tokens":400,
            "reasoning_output_tokens":120,"total_tokens":12400},"last_token_usage":{"input_tokens":1200,"output_tokens":40},
            "model_context_window":258400},"rate_limits":null})));
        v.push(ev(json!({"type":"task_complete","turn_id":turn,"last_agent_message":reply,"duration_ms":4200})));
        lines(&v)
    }

    fn pi_entry(&mut self, message: Value) -> Value {
        let id = self.short_id();
        let v = json!({"type":"message","id":id,"parentId":self.parent,"timestamp":"2026-11-29T18:32:18.700Z","message":message});
        self.parent = Some(id);
        v
    }

    fn pi_turn(&mut self) -> Vec<u8> {
        let prompt = self.text(300);
        let mut v = vec![self.pi_entry(
            json!({"role":"user","content":[{"type":"text","text":prompt}],"timestamp":1795977138677u64}),
        )];
        let usage = json!({"input":12000,"output":400,"cacheRead":11000,"cacheWrite":0,"totalTokens":12400,
            "cost":{"input":0.01,"output":0.002,"cacheRead":0.001,"cacheWrite":0,"total":0.013}});
        for _ in 0..3 {
            let call = format!("call_{}", self.short_id());
            let (thinking, text, cmd) = (self.text(600), self.text(300), self.text(120));
            let a = self.pi_entry(json!({"role":"assistant","content":[
                    {"type":"thinking","thinking":thinking},{"type":"text","text":text},
                    {"type":"toolCall","id":call,"name":"bash","arguments":{"command":cmd}}],
                "api":"openai-completions","provider":"mock","model":"mock-model","usage":usage,
                "stopReason":"toolUse","timestamp":1795977138834u64,"responseId":"chatcmpl-mock-3"}));
            v.push(a);
            let out = self.text(3500);
            let r = self.pi_entry(json!({"role":"toolResult","toolCallId":call,"toolName":"bash",
                "content":[{"type":"text","text":out}],"isError":false,"timestamp":1795977138900u64}));
            v.push(r);
        }
        let reply = self.text(1500);
        let end = self.pi_entry(
            json!({"role":"assistant","content":[{"type":"text","text":reply}],
            "api":"openai-completions","provider":"mock","model":"mock-model","usage":usage,
            "stopReason":"stop","timestamp":1795977138999u64,"responseId":"chatcmpl-mock-4"}),
        );
        v.push(end);
        lines(&v)
    }
}

fn lines(v: &[Value]) -> Vec<u8> {
    let mut s = String::new();
    for l in v {
        let _ = writeln!(s, "{l}");
    }
    s.into_bytes()
}
