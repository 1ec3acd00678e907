//! Every place the code cites the docs points at something that is there: a comment naming
//! `docs/<file>.md` names a file that exists, and a quoted heading next to it (`"Fork" in
//! docs/architecture.md`, `docs/release.md, "Signing"`) is a heading of that file. And no
//! comment cites the design brief that lives outside the repository (`DESIGN.md`, "harness
//! notes §N"): what the code relies on is written in `docs/`.

use std::path::{Path, PathBuf};

/// The folders whose source files are read, from the repository root.
const SOURCE_DIRS: [&str; 6] = [
    "crates",
    "src-tauri/src",
    "ui/src",
    "tests",
    "scripts",
    ".ci",
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(
                name.as_str(),
                "node_modules" | "target" | "bindings" | "fixtures"
            ) {
                source_files(&path, out);
            }
        } else if [".rs", ".ts", ".tsx", ".sh", ".css"]
            .iter()
            .any(|ext| name.ends_with(ext))
            || name == "run"
        {
            out.push(path);
        }
    }
}

/// The file's comments, each run of consecutive comment lines joined into one line of text
/// (a heading cited across a line break reads as one).
fn comment_blocks(text: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut current: Option<(usize, String)> = None;
    for (index, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let body = ["//!", "///", "//", "/*", "*/", "*", "#"]
            .iter()
            .find_map(|marker| trimmed.strip_prefix(marker));
        match body {
            Some(body) if !trimmed.starts_with("#!") && !trimmed.starts_with("#[") => {
                let block = current.get_or_insert((index + 1, String::new()));
                block.1.push(' ');
                block.1.push_str(body.trim());
            }
            _ => blocks.extend(current.take()),
        }
    }
    blocks.extend(current);
    blocks
}

/// A citation: the doc it names and, if one stands beside it, the quoted heading.
#[derive(Debug, PartialEq)]
struct Citation {
    doc: String,
    heading: Option<String>,
}

fn citations(block: &str) -> Vec<Citation> {
    let mut found = Vec::new();
    let mut rest = block;
    let mut offset = 0;
    while let Some(at) = rest.find("docs/") {
        let start = offset + at;
        let tail = &block[start..];
        let name_len = tail["docs/".len()..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .unwrap_or(tail.len() - "docs/".len());
        let end = start + "docs/".len() + name_len;
        if block[end..].starts_with(".md") {
            let doc = block[start..end + ".md".len()].to_owned();
            let before = heading_before(&block[..start]);
            let after = heading_after(&block[end + ".md".len()..]);
            found.push(Citation {
                doc,
                heading: before.or(after),
            });
        }
        offset = end;
        rest = &block[end..];
    }
    found
}

/// `"Heading" in docs/…`, `"Heading" (docs/…`, `("Heading" in `docs/…`.
fn heading_before(text: &str) -> Option<String> {
    let text = text.trim_end_matches(['`', '(', ' ']);
    let text = text.strip_suffix(" in").unwrap_or(text).trim_end();
    let text = text.strip_suffix('"')?;
    let open = text.rfind('"')?;
    Some(text[open + 1..].to_owned())
}

/// `docs/… "Heading"`, `docs/…, "Heading"`, `docs/…` ("Heading")`.
fn heading_after(text: &str) -> Option<String> {
    let text = text.trim_start_matches(['`', ',', ' ', '(']);
    let text = text.strip_prefix('"')?;
    let close = text.find('"')?;
    Some(text[..close].to_owned())
}

fn headings(doc: &str) -> Vec<String> {
    doc.lines()
        .filter(|line| line.starts_with('#'))
        .map(|line| line.trim_start_matches('#').trim().to_owned())
        .collect()
}

fn cites(headings: &[String], cited: &str) -> bool {
    let cited = cited.trim_start_matches('#').trim();
    headings.iter().any(|h| h == cited || h.starts_with(cited))
}

#[test]
fn every_cited_doc_and_heading_exists() {
    let root = repo_root();
    let mut files = Vec::new();
    for dir in SOURCE_DIRS {
        source_files(&root.join(dir), &mut files);
    }
    assert!(files.len() > 100, "read only {} files", files.len());
    let this_file = Path::new(file!()).file_name().unwrap();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for file in &files {
        if file.file_name() == Some(this_file) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let shown = file.strip_prefix(&root).unwrap().display().to_string();
        for (line, block) in comment_blocks(&text) {
            for stale in ["DESIGN.md", "DESIGN \"", "§", "harness-notes"] {
                if block.contains(stale) {
                    wrong.push(format!(
                        "{shown}:{line}: cites `{stale}` (not in the repository)"
                    ));
                }
            }
            for citation in citations(&block) {
                checked += 1;
                let Ok(doc) = std::fs::read_to_string(root.join(&citation.doc)) else {
                    wrong.push(format!("{shown}:{line}: {} does not exist", citation.doc));
                    continue;
                };
                if let Some(heading) = &citation.heading {
                    if !cites(&headings(&doc), heading) {
                        wrong.push(format!(
                            "{shown}:{line}: {} has no heading \"{heading}\"",
                            citation.doc
                        ));
                    }
                }
            }
        }
    }
    assert!(
        checked > 10,
        "found only {checked} citations: is the parser blind?"
    );
    println!(
        "{checked} citations of docs/ checked in {} files",
        files.len()
    );
    assert!(wrong.is_empty(), "stale references:\n{}", wrong.join("\n"));
}

#[test]
fn the_docs_cite_nothing_outside_the_repository() {
    let root = repo_root();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.extend([root.join("README.md"), root.join("tests/README.md")]);
    let mut wrong = Vec::new();
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        for (index, line) in text.lines().enumerate() {
            for stale in ["DESIGN.md", "§"] {
                if line.contains(stale) {
                    let shown = doc.strip_prefix(&root).unwrap().display().to_string();
                    wrong.push(format!("{shown}:{}: cites `{stale}`", index + 1));
                }
            }
        }
    }
    assert!(docs.len() >= 4, "read only {} docs", docs.len());
    assert!(
        wrong.is_empty(),
        "references outside the repository:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_citation_reads_its_heading_on_either_side() {
    let block = " see \"Fork\" in `docs/architecture.md` and docs/release.md, \"Signing \
                 the update\" and (docs/x.md) and \"Pi\" (docs/harness-behaviour.md).";
    assert_eq!(
        citations(block),
        vec![
            Citation {
                doc: "docs/architecture.md".into(),
                heading: Some("Fork".into())
            },
            Citation {
                doc: "docs/release.md".into(),
                heading: Some("Signing the update".into())
            },
            Citation {
                doc: "docs/x.md".into(),
                heading: None
            },
            Citation {
                doc: "docs/harness-behaviour.md".into(),
                heading: Some("Pi".into())
            },
        ]
    );
    let blocks = comment_blocks("//! \"Words\" in\n//! docs/architecture.md\nfn x() {}\n");
    assert_eq!(citations(&blocks[0].1)[0].heading.as_deref(), Some("Words"));
    assert!(cites(&["Fork".into()], "## Fork"));
    assert!(!cites(&["Fork".into()], "Forks"));
}
