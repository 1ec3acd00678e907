//! The session reader's usage, on lines Pi 1.6.0 wrote against the fake model (the system
//! prompt entry left out): each assistant message carries its call's `usage` and `model`.

use std::io::Write;

use super::PiReader;
use crate::contract::TurnUsage;
use crate::history::SessionReader;

const LINES: &[&str] = &[
    r#"{"type":"session","version":3,"id":"01a228e4-0a40-73e3-80cc-f7a09201decf","timestamp":"2026-11-29T19:59:23.200Z","cwd":"/project"}"#,
    r#"{"type":"model_change","id":"e1e3fcee","parentId":null,"timestamp":"2026-11-29T19:59:23.293Z","provider":"fake","modelId":"fake-model"}"#,
    r#"{"type":"message","id":"f1101ded","parentId":"e1e3fcee","timestamp":"2026-11-29T19:59:23.333Z","message":{"role":"user","content":[{"type":"text","text":"please CALL_TOOL now"}],"timestamp":1795982363329}}"#,
    r#"{"type":"message","id":"56d27937","parentId":"f1101ded","timestamp":"2026-11-29T19:59:23.422Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_fake00035b8da3cb79c5","name":"bash","arguments":{"command":"echo tool-ok"}}],"api":"openai-completions","provider":"fake","model":"fake-model","usage":{"input":1371,"output":20,"cacheRead":0,"cacheWrite":0,"reasoning":0,"totalTokens":1391,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}},"stopReason":"toolUse","timestamp":1795982363350,"responseId":"chatcmpl-fake00035b8da3cb79c5","rawStopReason":"tool_calls","durationMs":70,"thinkingLevel":"off"}}"#,
    r#"{"type":"message","id":"3522adde","parentId":"56d27937","timestamp":"2026-11-29T19:59:23.436Z","message":{"role":"toolResult","toolCallId":"call_fake00035b8da3cb79c5","toolName":"bash","content":[{"type":"text","text":"tool-ok\n"}],"isError":false,"durationMs":10,"timestamp":1795982363436}}"#,
    r#"{"type":"message","id":"a49e1493","parentId":"3522adde","timestamp":"2026-11-29T19:59:23.452Z","message":{"role":"assistant","content":[{"type":"text","text":"reply (turn 1) to: please CALL_TOOL now (tool result: tool-ok)"}],"api":"openai-completions","provider":"fake","model":"fake-model","usage":{"input":1436,"output":16,"cacheRead":0,"cacheWrite":0,"reasoning":0,"totalTokens":1452,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}},"stopReason":"stop","timestamp":1795982363440,"responseId":"chatcmpl-fake000473b50a27ab4b","rawStopReason":"stop","durationMs":12,"thinkingLevel":"off"}}"#,
    // Turn 2: a call aborted before its usage came (Pi writes zeros). Turn 3: a priced call,
    // in the shape Pi writes one (the fake model has no price, so this line is not recorded).
    r#"{"type":"message","id":"f1957d1e","parentId":"a49e1493","timestamp":"2026-11-29T19:59:31.346Z","message":{"role":"user","content":[{"type":"text","text":"SLOW second"}],"timestamp":1795982371344}}"#,
    r#"{"type":"message","id":"e87671ce","parentId":"f1957d1e","timestamp":"2026-11-29T19:59:31.773Z","message":{"role":"assistant","content":[{"type":"text","text":"reply "}],"api":"openai-completions","provider":"fake","model":"fake-model","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"aborted","timestamp":1795982371350,"errorMessage":"Request was aborted"}}"#,
    r#"{"type":"message","id":"0c1d2e3f","parentId":"e87671ce","timestamp":"2026-11-29T19:59:32.000Z","message":{"role":"user","content":[{"type":"text","text":"third"}],"timestamp":1795982372000}}"#,
    r#"{"type":"message","id":"1a2b3c4d","parentId":"0c1d2e3f","timestamp":"2026-11-29T19:59:32.100Z","message":{"role":"assistant","content":[{"type":"text","text":"priced"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":12,"output":30,"cacheRead":2000,"cacheWrite":500,"reasoning":4,"totalTokens":2542,"cost":{"input":0.000036,"output":0.00045,"cacheRead":0.0006,"cacheWrite":0.001875,"total":0.002961}},"stopReason":"stop","timestamp":1795982372100,"responseId":"msg_01"}}"#,
];

fn reader(lines: &[&str], torn: &str) -> (tempfile::TempDir, PiReader) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("2026-11-29T19-59-23-200Z_s.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    for line in lines {
        writeln!(f, "{line}").unwrap();
    }
    f.write_all(torn.as_bytes()).unwrap();
    let reader = PiReader::open(&path).unwrap();
    (dir, reader)
}

#[test]
fn each_assistant_message_is_one_call_and_a_zero_is_no_report() {
    let (_dir, reader) = reader(LINES, "");
    let h = reader.history().unwrap();
    assert_eq!(h.turns.len(), 3);
    // The tool turn: both calls, the cache's (0) included; Pi's 0 for an unpriced model is
    // no price.
    let t1 = &h.turns[0];
    let usage = t1.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (1371 + 1436, 36));
    assert_eq!(
        (usage.cached_input_tokens, usage.cache_write_tokens),
        (Some(0), Some(0))
    );
    assert_eq!((usage.reasoning_tokens, usage.cost_usd), (Some(0), None));
    assert_eq!(t1.model.as_deref(), Some("fake-model"));
    // The aborted call's zeros are no figure.
    assert_eq!(
        (h.turns[1].usage, h.turns[1].model.as_deref()),
        (None, None)
    );
    // A priced call: every input token, the cache's included, and Pi's own price.
    let t3 = &h.turns[2];
    assert_eq!(
        t3.usage,
        Some(TurnUsage {
            input_tokens: 12 + 2000 + 500,
            output_tokens: 30,
            cached_input_tokens: Some(2000),
            cache_write_tokens: Some(500),
            reasoning_tokens: Some(4),
            cost_usd: Some(0.002961),
        })
    );
    assert_eq!(t3.model.as_deref(), Some("claude-sonnet-4-5"));
}

#[test]
fn a_torn_last_message_counts_once_it_is_whole() {
    let (whole, last) = LINES.split_at(LINES.len() - 1);
    let (head, tail) = last[0].split_at(last[0].len() - 40);
    let (_dir, mut reader) = reader(whole, head);
    assert_eq!(reader.history().unwrap().turns[2].usage, None);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(reader.path())
        .unwrap();
    writeln!(f, "{tail}").unwrap();
    reader.read_appended().unwrap();
    let t3 = reader.turn(2).unwrap();
    assert_eq!(t3.usage.map(|u| u.output_tokens), Some(30));
    assert_eq!(t3.usage.and_then(|u| u.cost_usd), Some(0.002961));
}
