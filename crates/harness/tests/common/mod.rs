//! Fixture transcripts modeled on what the CLIs write (`docs/harness-behaviour.md`).
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

use forkhost_harness::History;
use serde_json::{json, Value};

pub fn jsonl(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

pub fn write(dir: &Path, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&path, content).unwrap();
    path
}

pub fn append(path: &Path, content: impl AsRef<[u8]>) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(content.as_ref()).unwrap();
}

/// Each turn's coordinates: (native turn ref, native checkpoint ref, complete).
pub fn refs(h: &History) -> Vec<(&str, Option<&str>, bool)> {
    h.turns
        .iter()
        .map(|t| {
            (
                t.native_turn_ref.as_str(),
                t.native_checkpoint_ref.as_deref(),
                t.complete,
            )
        })
        .collect()
}

// ------------------------------- Claude Code ("Records, chain and leaf", "Turns and anchors")

pub const SID: &str = "d1190000-0000-4000-8000-000000000001";

pub fn cc_queue(content: &str) -> [Value; 2] {
    [
        json!({"type":"queue-operation","operation":"enqueue","timestamp":"2026-11-29T18:00:00.000Z","sessionId":SID,"content":content}),
        json!({"type":"queue-operation","operation":"dequeue","timestamp":"2026-11-29T18:00:00.001Z","sessionId":SID}),
    ]
}

fn cc_common(uuid: &str, parent: Option<&str>) -> serde_json::Map<String, Value> {
    let v = json!({
        "parentUuid": parent, "isSidechain": false, "uuid": uuid,
        "timestamp": "2026-11-29T18:00:01.000Z", "userType": "external", "entrypoint": "sdk-cli",
        "cwd": "/home/alice/my_proj.v2", "sessionId": SID, "version": "2.1.197", "gitBranch": "HEAD"
    });
    v.as_object().unwrap().clone()
}

pub fn cc_user(uuid: &str, parent: Option<&str>, content: Value) -> Value {
    let mut m = cc_common(uuid, parent);
    m.insert("promptId".into(), json!("0c320000-prompt"));
    m.insert("type".into(), json!("user"));
    m.insert("message".into(), json!({"role":"user","content":content}));
    m.insert("permissionMode".into(), json!("default"));
    m.insert("promptSource".into(), json!("sdk"));
    Value::Object(m)
}

pub fn cc_prompt(uuid: &str, parent: Option<&str>, text: &str) -> Value {
    cc_user(uuid, parent, json!(text))
}

pub fn cc_tool_result(uuid: &str, parent: &str, tool_use_id: &str, output: &str) -> Value {
    let mut v = cc_user(
        uuid,
        Some(parent),
        json!([{"tool_use_id":tool_use_id,"type":"tool_result","content":output,"is_error":false}]),
    );
    let m = v.as_object_mut().unwrap();
    m.insert(
        "toolUseResult".into(),
        json!({"stdout":output,"stderr":"","interrupted":false,"isImage":false,"noOutputExpected":false}),
    );
    m.insert("sourceToolAssistantUUID".into(), json!(parent));
    v
}

pub fn cc_assistant(
    uuid: &str,
    parent: &str,
    msg_id: &str,
    block: Value,
    stop: Option<&str>,
) -> Value {
    let mut m = cc_common(uuid, Some(parent));
    m.insert(
        "message".into(),
        json!({"id":msg_id,"type":"message","role":"assistant","model":"claude-opus-4-8",
               "content":[block],"stop_reason":stop,"stop_sequence":null,
               "usage":{"input_tokens":10,"output_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},
               "stop_details":null}),
    );
    m.insert("requestId".into(), json!("req_0001"));
    m.insert("type".into(), json!("assistant"));
    Value::Object(m)
}

pub fn cc_text(uuid: &str, parent: &str, msg_id: &str, text: &str) -> Value {
    cc_assistant(
        uuid,
        parent,
        msg_id,
        json!({"type":"text","text":text}),
        Some("end_turn"),
    )
}

pub fn cc_attachment(uuid: &str, parent: &str, kind: &str) -> Value {
    let mut m = cc_common(uuid, Some(parent));
    m.insert("attachment".into(), json!({"type":kind,"content":"…"}));
    m.insert("type".into(), json!("attachment"));
    Value::Object(m)
}

pub fn cc_last_prompt(prompt: &str, leaf: &str) -> Value {
    json!({"type":"last-prompt","lastPrompt":prompt,"leafUuid":leaf,"sessionId":SID})
}

/// Three turns as `claude -p` then two `--resume` runs write them ("Records, chain and leaf"),
/// the second with a tool round trip.
pub fn cc_three_turns() -> Vec<Value> {
    let mut v = Vec::new();
    v.extend(cc_queue("first message"));
    v.push(cc_prompt("u1", None, "first message"));
    v.push(cc_attachment("a1", "u1", "agent_listing_delta"));
    v.push(cc_attachment("a2", "a1", "skill_listing"));
    v.push(cc_text(
        "r1",
        "a2",
        "msg_1",
        "reply #5 (turn 1, 2 msgs) to: first message",
    ));
    v.push(cc_last_prompt("first message", "r1"));
    v.extend(cc_queue("second message"));
    v.push(cc_prompt("u2", Some("r1"), "second message"));
    v.push(cc_assistant(
        "r2a",
        "u2",
        "msg_2",
        json!({"type":"text","text":"Let me run it."}),
        Some("tool_use"),
    ));
    v.push(cc_assistant(
        "r2b",
        "r2a",
        "msg_2",
        json!({"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"echo tool-ok"}}),
        Some("tool_use"),
    ));
    v.push(cc_tool_result("t2", "r2b", "toolu_1", "tool-ok"));
    v.push(cc_text("r2c", "t2", "msg_3", "Done: tool-ok"));
    v.push(cc_last_prompt("second message", "r2c"));
    v.push(json!({"type":"mode","mode":"normal","sessionId":SID}));
    v.extend(cc_queue("third message"));
    v.push(cc_prompt("u3", Some("r2c"), "third message"));
    v.push(cc_text(
        "r3",
        "u3",
        "msg_4",
        "reply #7 (turn 3, 6 msgs) to: third message",
    ));
    v.push(cc_last_prompt("third message", "r3"));
    v
}

// ---------------------------------------------------------------- Codex ("Codex rollout files")

pub const THREAD: &str = "019a0000-0000-7000-8000-00000000000a";

pub fn cx(ty: &str, payload: Value) -> Value {
    json!({"timestamp":"2026-11-29T18:00:00.000Z","type":ty,"payload":payload})
}

pub fn cx_meta(id: &str, extra: Value) -> Value {
    let mut p = json!({
        "id": id, "session_id": id, "timestamp": "2026-11-29T18:00:00.000Z", "cwd": "/home/alice/proj",
        "originator": "codex_exec", "cli_version": "0.171.0", "source": "exec", "model_provider": "mock",
        "base_instructions": {"text": "You are Codex, a coding agent. ".repeat(40), "provenance": "default"},
        "history_mode": "paginated"
    });
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    cx("session_meta", p)
}

pub fn cx_event(payload: Value) -> Value {
    cx("event_msg", payload)
}

pub fn cx_started(turn: &str) -> Value {
    cx_event(
        json!({"type":"task_started","turn_id":turn,"root_turn_id":turn,"started_at":1795977138,"model_context_window":258400}),
    )
}

pub fn cx_complete(turn: &str, last: &str) -> Value {
    cx_event(
        json!({"type":"task_complete","turn_id":turn,"last_agent_message":last,"duration_ms":12}),
    )
}

pub fn cx_user_item(turn: &str, id: &str, text: &str) -> Value {
    cx_event(
        json!({"type":"item_completed","thread_id":THREAD,"turn_id":turn,
        "item":{"type":"UserMessage","id":id,"content":[{"type":"text","text":text,"text_elements":[]}]},
        "started_at_ms":1,"completed_at_ms":2}),
    )
}

pub fn cx_agent_item(turn: &str, id: &str, text: &str) -> Value {
    cx_event(
        json!({"type":"item_completed","thread_id":THREAD,"turn_id":turn,
        "item":{"type":"AgentMessage","id":id,"content":[{"type":"Text","text":text}],"phase":"final_answer"},
        "started_at_ms":1,"completed_at_ms":2}),
    )
}

pub fn cx_response_message(role: &str, text: &str) -> Value {
    let block = if role == "assistant" {
        "output_text"
    } else {
        "input_text"
    };
    cx(
        "response_item",
        json!({"type":"message","role":role,"content":[{"type":block,"text":text}]}),
    )
}

pub fn cx_turn_context() -> Value {
    cx(
        "turn_context",
        json!({"cwd":"/home/alice/proj","approval_policy":"never","sandbox_policy":{"type":"read-only"},"model":"mock-model"}),
    )
}

/// A paginated rollout: t1 plain, t2 with a tool call, t3 interrupted, t4 still running.
pub fn cx_current() -> Vec<Value> {
    let mut v = vec![
        cx_meta(THREAD, json!({})),
        cx_event(json!({"type":"thread_settings_applied"})),
    ];
    let turn = |v: &mut Vec<Value>, t: &str, user: &str| {
        v.push(cx_started(t));
        v.push(cx_turn_context());
        v.push(cx_response_message(
            "user",
            "<environment_context>\n  <cwd>/home/alice/proj</cwd>\n</environment_context>",
        ));
        v.push(cx_user_item(t, &format!("{t}-u"), user));
        v.push(cx_response_message("user", user));
    };
    turn(&mut v, "t1", "one");
    v.push(cx_response_message("assistant", "reply #1"));
    v.push(cx_agent_item("t1", "t1-a", "reply #1"));
    v.push(cx_event(json!({"type":"token_count","info":null})));
    v.push(cx_complete("t1", "reply #1"));
    turn(&mut v, "t2", "two");
    v.push(cx("response_item", json!({"type":"function_call","name":"shell","arguments":"{\"command\":[\"echo\",\"hi\"]}","call_id":"call_1"})));
    v.push(cx(
        "response_item",
        json!({"type":"function_call_output","call_id":"call_1","output":"hi\n"}),
    ));
    v.push(cx_response_message("assistant", "reply #2"));
    v.push(cx_agent_item("t2", "t2-a", "reply #2"));
    v.push(cx_complete("t2", "reply #2"));
    turn(&mut v, "t3", "three");
    v.push(cx_event(
        json!({"type":"turn_aborted","turn_id":"t3","reason":"interrupted"}),
    ));
    turn(&mut v, "t4", "four");
    v
}

/// `history_mode: "legacy"`: text in `user_message`/`agent_message` events.
pub fn cx_legacy(id: &str, turns: &[(&str, &str)]) -> Vec<Value> {
    let mut v = vec![cx_meta(id, json!({"history_mode":"legacy"}))];
    for (t, text) in turns {
        v.push(cx_started(t));
        v.push(cx_turn_context());
        v.push(cx_response_message("user", text));
        v.push(cx_event(json!({"type":"user_message","message":text,"images":[],"local_images":[],"text_elements":[]})));
        v.push(cx_response_message(
            "assistant",
            &format!("reply to {text}"),
        ));
        v.push(cx_event(
            json!({"type":"agent_message","message":format!("reply to {text}")}),
        ));
        v.push(cx_complete(t, &format!("reply to {text}")));
    }
    v
}

// ------------------------------------------------------- Pi ("Pi session files (format v3)")

pub fn pi_header(id: &str, parent: Option<&str>) -> Value {
    let mut h = json!({"type":"session","version":3,"id":id,"timestamp":"2026-11-29T18:32:18.608Z","cwd":"/path/to/proj"});
    if let Some(p) = parent {
        h["parentSession"] = json!(p);
    }
    h
}

pub fn pi_entry(ty: &str, id: &str, parent: Option<&str>, extra: Value) -> Value {
    let mut e = json!({"type":ty,"id":id,"parentId":parent,"timestamp":"2026-11-29T18:32:18.700Z"});
    for (k, v) in extra.as_object().unwrap() {
        e[k] = v.clone();
    }
    e
}

pub fn pi_user(id: &str, parent: &str, text: &str) -> Value {
    pi_entry(
        "message",
        id,
        Some(parent),
        json!({"message":{"role":"user","content":[{"type":"text","text":text}],"timestamp":1795977138677u64}}),
    )
}

pub fn pi_assistant(id: &str, parent: &str, content: Value, stop: &str) -> Value {
    pi_entry(
        "message",
        id,
        Some(parent),
        json!({"message":{"role":"assistant","content":content,
        "api":"openai-completions","provider":"mock","model":"mock-model",
        "usage":{"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,"cost":{"total":0}},
        "stopReason":stop,"timestamp":1795977138834u64,"responseId":"chatcmpl-mock-3"}}),
    )
}

pub fn pi_reply(id: &str, parent: &str, text: &str) -> Value {
    pi_assistant(id, parent, json!([{"type":"text","text":text}]), "stop")
}

/// alpha, beta (with a tool round trip), gamma, as `pi --mode rpc` writes them.
pub fn pi_three_turns() -> Vec<Value> {
    vec![
        pi_header("01a22894-51af-747e-bf5e-977bc30c7298", None),
        pi_entry(
            "model_change",
            "e210daba",
            None,
            json!({"provider":"mock","modelId":"mock-model"}),
        ),
        pi_entry(
            "thinking_level_change",
            "6cffbe53",
            Some("e210daba"),
            json!({"thinkingLevel":"off"}),
        ),
        pi_user("e95cd435", "6cffbe53", "alpha first question"),
        pi_reply("25e70a35", "e95cd435", "reply #1 to: alpha first question"),
        pi_user("2dc3d14c", "25e70a35", "beta second question"),
        pi_assistant(
            "b1000001",
            "2dc3d14c",
            json!([{"type":"thinking","thinking":"hmm"},{"type":"text","text":"Reading it."},
                   {"type":"toolCall","id":"call_9","name":"read","arguments":{"path":"README.md"}}]),
            "toolUse",
        ),
        pi_entry(
            "message",
            "b1000002",
            Some("b1000001"),
            json!({"message":{"role":"toolResult","toolCallId":"call_9","toolName":"read",
            "content":[{"type":"text","text":"# Readme"}],"isError":false,"timestamp":1795977138900u64}}),
        ),
        pi_reply("b1000003", "b1000002", "reply #2 to: beta second question"),
        pi_user("c1000001", "b1000003", "gamma third question"),
        pi_reply("c1000002", "c1000001", "reply #3 to: gamma third question"),
    ]
}
