use forkhost_harness::{Message, Role, ToolCall, Turn};

use crate::base::view::MessageView;

use super::*;

fn turn(reference: &str, messages: Vec<Message>) -> Turn {
    Turn {
        native_turn_ref: reference.into(),
        native_checkpoint_ref: None,
        messages,
        complete: true,
        usage: None,
        model: None,
    }
}

fn tool(input: serde_json::Value, output: &str) -> Message {
    Message {
        tool: Some(ToolCall {
            id: Some("c1".into()),
            name: "bash".into(),
            input,
            output: Some(output.into()),
            is_error: false,
        }),
        ..Message::new(Role::Tool, "")
    }
}

#[test]
fn inherited_turns_are_skipped_and_each_message_is_one_hit() {
    let turns = vec![
        turn("t1", vec![Message::new(Role::User, "zebra one")]),
        turn(
            "t2",
            vec![
                Message::new(Role::User, "zebra zebra"),
                Message::new(Role::Other, "bookkeeping zebra"),
                tool(serde_json::json!({"command": "echo zebra"}), "zebra\n"),
                Message::new(Role::Assistant, "no"),
            ],
        ),
    ];
    let matcher = Matcher::literal("ZEBRA").unwrap();
    let all = hits_in(&turns, 0, &matcher);
    // Numbered as the view lists them.
    for (index, _, hit) in &all {
        let views: Vec<MessageView> = turns[*index]
            .messages
            .iter()
            .filter_map(MessageView::from_message)
            .collect();
        assert!(hit.message_index < views.len());
    }
    assert_eq!(
        turns[1].messages.iter().filter(|m| shown(m)).count(),
        turns[1]
            .messages
            .iter()
            .filter_map(MessageView::from_message)
            .count()
    );
    assert_eq!(all.len(), 3, "one hit per shown message");
    let own = hits_in(&turns, 1, &matcher);
    let found: Vec<_> = own
        .iter()
        .map(|(i, r, h)| (*i, r.as_str(), h.turn_number, h.message_index, h.part))
        .collect();
    assert_eq!(
        found,
        [
            (1, "t2", 2, 0, HitPart::UserText),
            // Role::Other without an error is not shown, so the tool call is message 1.
            (1, "t2", 2, 1, HitPart::ToolInput),
        ]
    );
    let output = hits_in(
        &[turn(
            "t",
            vec![tool(serde_json::json!({"c": 1}), "a zebra")],
        )],
        0,
        &matcher,
    );
    assert_eq!(output[0].2.part, HitPart::ToolOutput);
    let hit = &output[0].2;
    assert_eq!(&hit.snippet[hit.hit_start..hit.hit_end], "zebra");
}

#[test]
fn queries_are_checked_before_anything_is_read() {
    let query = |text: &str, regex: bool| SearchQuery {
        text: text.into(),
        regex,
        ..SearchQuery::default()
    };
    for bad in [query("", false), query(" \n ", false), query("(", true)] {
        let err = compile(&bad).err().expect("refused");
        assert_eq!(err.code(), "invalid_input");
    }
    let huge = query(&"x".repeat(10 << 20), false);
    let err = compile(&huge).err().expect("refused");
    assert_eq!(err.code(), "invalid_input");
    assert!(err.to_string().contains("at most 64 KB"), "{err}");
    assert!(compile(&query("a.b", false)).is_ok());
}

#[test]
fn tool_input_is_its_string_values() {
    let input = serde_json::json!({"command": "ls -la", "timeout": 5, "paths": ["a", "b"]});
    let text = input_text(&input);
    for part in ["ls -la", "5", "a", "b"] {
        assert!(text.lines().any(|l| l == part), "{text}");
    }
}
