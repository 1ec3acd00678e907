use super::*;
use crate::command_list::signatures;

/// The sources of the modules that hold commands, by the module name the list uses.
fn source(module: &str) -> &'static str {
    match module {
        "commands" => include_str!("commands.rs"),
        "approvals" => include_str!("approvals.rs"),
        "settings" => include_str!("settings.rs"),
        "cli_tool" => include_str!("cli_tool/mod.rs"),
        "update" => include_str!("update.rs"),
        "files" => include_str!("files.rs"),
        "trust" => include_str!("trust.rs"),
        "agents" => include_str!("agents.rs"),
        "first_run" => include_str!("first_run.rs"),
        "rewind" => include_str!("rewind.rs"),
        "race" => include_str!("race.rs"),
        "search" => include_str!("search.rs"),
        "remote" => include_str!("remote/mod.rs"),
        "fork_preview" => include_str!("fork_preview.rs"),
        other => panic!("command_list names a module this test does not read: {other}"),
    }
}

/// A command function as written: its `#[tauri::command(…)]` options, its arguments (name and
/// type, whitespace removed) and its return type ("" for none).
struct Written {
    options: String,
    args: Vec<(String, String)>,
    returns: String,
}

/// Every `#[tauri::command]` function of `src`, by name.
fn written_commands(src: &str) -> BTreeMap<String, Written> {
    let mut found = BTreeMap::new();
    let mut rest = src;
    while let Some(at) = rest.find("#[tauri::command") {
        rest = &rest[at + "#[tauri::command".len()..];
        let options = rest[..rest.find(']').unwrap()].to_owned();
        let fn_at = rest.find("fn ").unwrap() + 3;
        rest = &rest[fn_at..];
        let open = rest.find('(').unwrap();
        let name = rest[..open].trim().to_owned();
        let close = open + matching_paren(&rest[open..]);
        let params = &rest[open + 1..close];
        let body = close + rest[close..].find('{').unwrap();
        let returns = rest[close + 1..body]
            .trim()
            .trim_start_matches("->")
            .split_whitespace()
            .collect();
        let args = split_top_level(params)
            .into_iter()
            .map(|param| {
                let (name, ty) = param.split_once(':').unwrap();
                let name = name.trim().trim_start_matches("mut ").trim().to_owned();
                (name, ty.split_whitespace().collect::<String>())
            })
            .collect();
        found.insert(
            name,
            Written {
                options,
                args,
                returns,
            },
        );
        rest = &rest[body..];
    }
    found
}

/// The index of the `)` closing the `(` that `s` starts with.
fn matching_paren(s: &str) -> usize {
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced parentheses in {s}");
}

/// `a: X, b: Y<Z, W>,` → `["a: X", "b: Y<Z, W>"]`.
fn split_top_level(params: &str) -> Vec<String> {
    let (mut parts, mut current, mut depth) = (Vec::new(), String::new(), 0i32);
    for c in params.chars() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
        .into_iter()
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty())
        .collect()
}

/// A type as compared: no whitespace, no module paths (`forkhost_core::HarnessReport` is
/// `HarnessReport`).
fn bare(ty: &str) -> String {
    let compact: String = ty.split_whitespace().collect();
    let mut out = String::new();
    let mut word = String::new();
    let mut chars = compact.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else if c == ':' && chars.peek() == Some(&':') {
            chars.next();
            word.clear();
        } else {
            out.push_str(&std::mem::take(&mut word));
            out.push(c);
        }
    }
    out + &word
}

/// Arguments Tauri fills in itself; the UI never passes them.
fn injected(ty: &str) -> bool {
    ["State<", "AppHandle", "WebviewWindow", "Window"]
        .iter()
        .any(|t| ty.starts_with(t))
}

#[test]
fn the_list_matches_each_command_functions_signature() {
    for sig in signatures() {
        let written = written_commands(source(sig.module));
        let Some(f) = written.get(sig.name) else {
            panic!("{}::{} is not a #[tauri::command]", sig.module, sig.name);
        };
        let args: Vec<(String, String)> = f
            .args
            .iter()
            .filter(|(_, ty)| !injected(ty))
            .map(|(name, ty)| (name.clone(), bare(ty)))
            .collect();
        let listed: Vec<(String, String)> = sig
            .args
            .iter()
            .map(|a| (a.name.to_owned(), bare(a.rust)))
            .collect();
        assert_eq!(args, listed, "arguments of {}", sig.name);
        // Tauri renames arguments to camelCase unless told otherwise; the UI uses Rust's names.
        assert!(
            f.options.contains("rename_all = \"snake_case\"")
                || !args.iter().any(|(n, _)| n.contains('_')),
            "{} needs #[tauri::command(rename_all = \"snake_case\")]",
            sig.name
        );
        let returns = bare(&f.returns);
        let reply = bare(sig.reply.rust);
        let matches = returns == reply
            || returns == format!("CmdResult<{reply}>")
            || (returns.is_empty() && reply == "()");
        assert!(
            matches,
            "{} returns {returns}, the list says {reply}",
            sig.name
        );
    }
}

#[test]
fn every_command_function_is_listed() {
    let listed: Vec<(&str, &str)> = signatures().iter().map(|s| (s.module, s.name)).collect();
    for module in ["commands", "settings", "cli_tool", "update"] {
        for name in written_commands(source(module)).keys() {
            assert!(
                listed.contains(&(module, name.as_str())),
                "{module}::{name} is a command the UI cannot call: add it to command_list.rs"
            );
        }
    }
}

#[test]
fn types_are_compared_without_paths_or_spaces() {
    assert_eq!(
        bare("CmdResult< forkhost_core::HarnessReport >"),
        "CmdResult<HarnessReport>"
    );
    assert_eq!(bare("Option<Vec<a::B>>"), "Option<Vec<B>>");
    assert_eq!(split_top_level("a: X, b: Y<Z, W>,"), ["a: X", "b: Y<Z, W>"]);
}

#[test]
fn commands_ts_is_current() {
    let text = render(&signatures());
    let file = path();
    let old = std::fs::read_to_string(&file).unwrap_or_default();
    if old != text {
        std::fs::write(&file, &text).unwrap();
        panic!(
            "{} was stale and has been rewritten: check and commit it",
            file.display()
        );
    }
}

#[test]
fn events_ts_is_current() {
    let text = render_events(&crate::event_list::events());
    let file = events_path();
    let old = std::fs::read_to_string(&file).unwrap_or_default();
    if old != text {
        std::fs::write(&file, &text).unwrap();
        panic!(
            "{} was stale and has been rewritten: check and commit it",
            file.display()
        );
    }
}

#[test]
fn events_have_one_name_each() {
    let mut names: Vec<&str> = crate::event_list::events().iter().map(|e| e.name).collect();
    let count = names.len();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), count, "an event name is listed twice");
}

/// Every `.rs` file under `dir`, with its path.
fn sources(dir: &std::path::Path, found: &mut Vec<(PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, found);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            found.push((path, text));
        }
    }
}

#[test]
fn every_emit_goes_through_the_event_list() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    assert!(
        files.len() > 10,
        "read {} files under {}",
        files.len(),
        src.display()
    );
    let list = src.join("event_list.rs");
    for (path, text) in &files {
        // This test's own text names what it looks for.
        if *path == list || path.ends_with("command_bindings_tests.rs") {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            let bypasses = [".emit(", ".emit_to(", ".emit_filter(", "Emitter"]
                .iter()
                .any(|call| line.contains(call));
            assert!(
                !bypasses,
                "{}:{}: emits without the event list (use event_list::emit_all / emit_to): {line}",
                path.display(),
                n + 1
            );
        }
    }
}
