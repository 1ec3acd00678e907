//! The index pass over rollout lines: envelopes, events and bare response items, read only as
//! far as it takes to tell a line's kind and turn.

use std::fs::File;
use std::hash::Hasher;
use std::path::Path;

use rustc_hash::FxHasher;

use super::{Base, Kind, Line, Meta, Scanned};
use crate::history::HistoryError;
use crate::jsonl::{self, Span};
use crate::scan::{Cursor, RawStr};

/// The start of user messages that Codex injects as context rather than the user typing them.
const INJECTED: [&str; 6] = [
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions",
    "<turn_aborted>",
    "<user_shell_command>",
];

/// The first line's `session_meta`, read alone (it names the inherited prefix). `None` if the
/// file does not start with one.
pub(super) fn first_meta(path: &Path) -> Result<Option<Meta>, HistoryError> {
    let file = File::open(path).map_err(|e| HistoryError::io(path, e))?;
    let mut buf = Vec::new();
    let mut at = 0u64;
    loop {
        let old = buf.len();
        jsonl::append_at(&file, &mut buf, at, 64 << 10).map_err(|e| HistoryError::io(path, e))?;
        if let Some(nl) = memchr::memchr(b'\n', &buf) {
            buf.truncate(nl);
            break;
        }
        if buf.len() == old {
            break;
        }
        at = buf.len() as u64;
    }
    Ok(match scan_line(&buf, Span { start: 0, end: 0 }) {
        Some(Scanned {
            line: Line::Meta(meta),
            ..
        }) => Some(meta),
        _ => None,
    })
}

/// The index pass over one line. The envelope's `type` precedes its `payload`, and a payload's
/// own `type` leads it, so most lines are settled after a few keys and their bodies are never
/// scanned.
pub(super) fn scan_line(line: &[u8], span: Span) -> Option<Scanned> {
    let mut c = Cursor::new(line);
    if !c.begin_object() {
        return None;
    }
    let mut ty: Option<RawStr> = None;
    let mut bare = BareItem::default();
    let mut payload_at = None;
    while let Some(key) = c.next_key() {
        match key.0 {
            b"type" => ty = c.opt_string(),
            b"payload" => match ty {
                Some(t) => {
                    let line = scan_payload(&mut c, t)?;
                    return Some(Scanned { span, line });
                }
                None => {
                    payload_at = Some(c.pos());
                    c.skip();
                }
            },
            _ => {
                bare.field(key, &mut c);
            }
        }
    }
    if c.is_bad() {
        return None;
    }
    let line = match (ty, payload_at) {
        (Some(t), Some(at)) => scan_payload(&mut Cursor::at(line, at), t)?,
        (Some(t), None) => bare.line(t)?,
        // The oldest files open with a bare `{"id","timestamp","instructions"}`.
        (None, _) => Line::Meta(Meta {
            id: bare.id.and_then(|i| i.boxed()),
            ..Meta::default()
        }),
    };
    Some(Scanned { span, line })
}

fn scan_payload(c: &mut Cursor, ty: RawStr) -> Option<Line> {
    if ty.is("session_meta") {
        return Some(Line::Meta(scan_meta(c)));
    }
    if !c.begin_object() {
        return None;
    }
    if ty.is("event_msg") {
        scan_event(c)
    } else if ty.is("response_item") {
        while let Some(key) = c.next_key() {
            if key.is("type") {
                let t = c.opt_string()?;
                if tool_item(t) {
                    return Some(item(Kind::Tool, None));
                }
                if !t.is("message") {
                    return None;
                }
                // A message's role and first text tell injected history (the reader keeps
                // it only outside a turn: inside one, the events carry the text).
                let mut fields = BareItem::default();
                while let Some(key) = c.next_key() {
                    fields.field(key, c);
                }
                return fields.injected_line();
            }
            c.skip();
        }
        None
    } else if ty.is("turn_context") {
        // Only its turn here; the model is read with the turn's text.
        let mut turn_id = None;
        while let Some(key) = c.next_key() {
            if key.is("turn_id") {
                turn_id = c.opt_string().and_then(|s| s.boxed());
            } else {
                c.skip();
            }
        }
        Some(item(Kind::Context, turn_id))
    } else if ty.is("compacted") {
        Some(Line::Item {
            kind: Kind::Compacted,
            turn_id: None,
        })
    } else {
        None
    }
}

fn tool_item(ty: RawStr) -> bool {
    ty.is("function_call")
        || ty.is("function_call_output")
        || ty.is("custom_tool_call")
        || ty.is("custom_tool_call_output")
        || ty.is("local_shell_call")
        || ty.is("local_shell_call_output")
        || ty.is("web_search_call")
        || ty.is("tool_search_call")
        || ty.is("tool_search_output")
}

fn scan_meta(c: &mut Cursor) -> Meta {
    let mut meta = Meta::default();
    if !c.begin_object() {
        c.skip();
        return meta;
    }
    while let Some(key) = c.next_key() {
        match key.0 {
            b"id" => meta.id = c.opt_string().and_then(|s| s.boxed()),
            b"forked_from_id" => meta.forked_from = c.opt_string().and_then(|s| s.boxed()),
            b"history_mode" => meta.paginated = c.opt_string().is_some_and(|m| m.is("paginated")),
            b"history_base" => {
                if !c.begin_object() {
                    c.skip();
                    continue;
                }
                let (mut thread, mut end) = (None, None);
                while let Some(key) = c.next_key() {
                    match key.0 {
                        b"thread_id" => thread = c.opt_string().and_then(|s| s.boxed()),
                        b"end_byte_offset" => end = c.u64(),
                        _ => {
                            c.skip();
                        }
                    }
                }
                if let (Some(thread_id), Some(end)) = (thread, end) {
                    meta.base = Some(Base { thread_id, end });
                }
            }
            _ => {
                c.skip();
            }
        }
    }
    meta
}

fn scan_event(c: &mut Cursor) -> Option<Line> {
    let mut ty: Option<RawStr> = None;
    let mut turn_id = None;
    let mut item_ty: Option<RawStr> = None;
    let mut num_turns = None;
    let mut total = None;
    while let Some(key) = c.next_key() {
        match key.0 {
            b"type" => {
                ty = c.opt_string();
                let t = ty?;
                // Settled by the type alone: skip the (possibly long) rest.
                if t.is("user_message") {
                    return Some(item(Kind::UserEvent, None));
                }
                if t.is("agent_message") {
                    return Some(item(Kind::AgentEvent, None));
                }
                if t.is("error") {
                    return Some(item(Kind::Error, None));
                }
                let wanted = t.is("task_started")
                    || t.is("turn_started")
                    || t.is("task_complete")
                    || t.is("turn_complete")
                    || t.is("turn_aborted")
                    || t.is("item_completed")
                    || t.is("thread_rolled_back")
                    || t.is("token_count");
                if !wanted {
                    return None;
                }
            }
            b"turn_id" => turn_id = c.opt_string().and_then(|s| s.boxed()),
            // 0.171 also nests the id in `turn_attribution`; the top-level one wins.
            b"turn_attribution" if turn_id.is_none() && c.begin_object() => {
                while let Some(key) = c.next_key() {
                    if key.is("turn_id") {
                        turn_id = c.opt_string().and_then(|s| s.boxed());
                    } else {
                        c.skip();
                    }
                }
            }
            b"num_turns" => num_turns = c.u64(),
            // `info` is null in an event that only refreshes rate limits: no usage.
            b"info" if c.begin_object() => {
                while let Some(key) = c.next_key() {
                    if key.is("total_token_usage") {
                        total = c.raw_value().map(fingerprint);
                    } else {
                        c.skip();
                    }
                }
            }
            b"item" => {
                if !c.begin_object() {
                    c.skip();
                    continue;
                }
                let mut found = false;
                while let Some(key) = c.next_key() {
                    if key.is("type") {
                        item_ty = c.opt_string();
                        found = true;
                        break;
                    }
                    c.skip();
                }
                if found {
                    if turn_id.is_some() {
                        // Nothing after the item's type matters.
                        break;
                    }
                    c.finish_object();
                }
            }
            _ => {
                c.skip();
            }
        }
    }
    let t = ty?;
    if t.is("task_started") || t.is("turn_started") {
        Some(Line::TurnStarted(turn_id))
    } else if t.is("task_complete") || t.is("turn_complete") || t.is("turn_aborted") {
        Some(Line::TurnEnded { id: turn_id })
    } else if t.is("thread_rolled_back") {
        Some(Line::RolledBack(num_turns.unwrap_or(0) as usize))
    } else if t.is("token_count") {
        Some(Line::TokenCount { total: total? })
    } else {
        let it = item_ty?;
        if it.is("UserMessage") {
            Some(item(Kind::UserItem, turn_id))
        } else if it.is("AgentMessage") {
            Some(item(Kind::AgentItem, turn_id))
        } else {
            None
        }
    }
}

/// A running total, as written, reduced to a number that tells a repeat from a move.
fn fingerprint(total: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write(total);
    h.finish()
}

fn item(kind: Kind, turn_id: Option<Box<str>>) -> Line {
    Line::Item { kind, turn_id }
}

/// The fields of a bare (envelope-less) response item, gathered while walking the line.
#[derive(Default)]
struct BareItem<'a> {
    id: Option<RawStr<'a>>,
    role: Option<RawStr<'a>>,
    injected: bool,
}

impl<'a> BareItem<'a> {
    fn field(&mut self, key: RawStr<'a>, c: &mut Cursor<'a>) {
        match key.0 {
            b"id" => self.id = c.opt_string(),
            b"role" => self.role = c.opt_string(),
            // Only the first text block tells injected context from a typed prompt.
            b"content" if c.begin_array() => {
                if c.next_element() && c.begin_object() {
                    while let Some(key) = c.next_key() {
                        match (key.0, c.peek()) {
                            (b"text", Some(b'"')) => {
                                let text = c.string();
                                self.injected =
                                    text.is_some_and(|t| INJECTED.iter().any(|p| t.starts_with(p)));
                            }
                            _ => {
                                c.skip();
                            }
                        }
                    }
                }
                c.finish_array();
            }
            _ => {
                c.skip();
            }
        }
    }

    /// An enveloped message as injected history: a typed user prompt or an assistant reply.
    fn injected_line(&self) -> Option<Line> {
        let role = self.role?;
        if role.is("user") && !self.injected {
            Some(item(Kind::InjectedUser, None))
        } else if role.is("assistant") {
            Some(item(Kind::InjectedAssistant, None))
        } else {
            None
        }
    }

    fn line(&self, ty: RawStr) -> Option<Line> {
        if ty.is("message") {
            let role = self.role?;
            if role.is("user") && !self.injected {
                Some(item(Kind::BareUser, None))
            } else if role.is("assistant") {
                Some(item(Kind::BareAssistant, None))
            } else {
                None
            }
        } else if tool_item(ty) {
            Some(item(Kind::Tool, None))
        } else {
            None
        }
    }
}
