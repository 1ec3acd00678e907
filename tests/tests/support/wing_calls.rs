//! Calls go downward in core (docs/architecture.md "Core in wings"). `Host` is one facade
//! whose methods live in many files, so no import shows who calls whom: a `self.method()` in
//! one file can run code of any other. This guard reads those calls with syn and holds them to
//! the layout:
//!
//! - the base (`host.rs`, `base/`, and the start-up modules at the root) calls no Host method
//!   defined in a wing;
//! - a wing calls only the wings its `mod.rs` names on its `Calls:` line (and the base);
//! - those lines form no circle, so every call path ends in the base.
//!
//! A call is `self.name(…)` inside `impl Host`, or `host.name(…)` / `….host.name(…)` anywhere,
//! where `name` is a method some `impl Host` defines. Test code (`*_tests.rs`, `#[cfg(test)]`
//! modules, `test_host.rs`) is not read: tests may call anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use syn::visit::Visit;

/// The wings of `crates/core/src`: a folder each.
const WINGS: [&str; 11] = [
    "thread", "requests", "trust", "files", "fork", "race", "rewind", "search", "remote", "cost",
    "serve",
];

/// The place a file belongs to: a wing's name, or `base`.
fn place_of(relative: &Path) -> String {
    let first = relative
        .components()
        .next()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .unwrap_or_default();
    if WINGS.contains(&first.as_str()) {
        first
    } else {
        "base".to_owned()
    }
}

/// Files that are test code by name, or declared `#[cfg(test)] mod x;` by their parent
/// (`test_only`, gathered from every file first).
fn is_test_file(relative: &Path, test_only: &BTreeSet<PathBuf>) -> bool {
    let name = relative.file_name().unwrap().to_string_lossy();
    name.ends_with("_tests.rs") || test_only.contains(relative)
}

/// The files of `#[cfg(test)] mod x;` declarations in `relative`'s file (a `mod.rs` or the
/// crate root declares `x.rs` beside it; `a.rs` declares `a/x.rs`).
fn test_modules(relative: &Path, parsed: &syn::File) -> Vec<PathBuf> {
    let dir = match relative.file_name().unwrap().to_str().unwrap() {
        "mod.rs" | "lib.rs" => relative.parent().unwrap().to_path_buf(),
        _ => relative.with_extension(""),
    };
    parsed
        .items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Mod(m) if m.content.is_none() && is_cfg_test(&m.attrs) => {
                Some(dir.join(format!("{}.rs", m.ident)))
            }
            _ => None,
        })
        .collect()
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.meta
                .require_list()
                .is_ok_and(|l| l.tokens.to_string().contains("test"))
    })
}

fn is_host(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Host"))
}

/// One file's Host methods defined, and the Host methods it calls.
#[derive(Default)]
struct FileCalls {
    defined: Vec<String>,
    calls: Vec<String>,
    in_host_impl: bool,
}

impl<'ast> Visit<'ast> for FileCalls {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !is_cfg_test(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_cfg_test(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if is_cfg_test(&i.attrs) {
            return;
        }
        let host = i.trait_.is_none() && is_host(&i.self_ty);
        if host {
            for item in &i.items {
                if let syn::ImplItem::Fn(f) = item {
                    self.defined.push(f.sig.ident.to_string());
                }
            }
        }
        let was = std::mem::replace(&mut self.in_host_impl, host);
        syn::visit::visit_item_impl(self, i);
        self.in_host_impl = was;
    }

    fn visit_expr_method_call(&mut self, call: &'ast syn::ExprMethodCall) {
        let receiver_is_host = match &*call.receiver {
            syn::Expr::Path(p) => {
                (self.in_host_impl && p.path.is_ident("self")) || p.path.is_ident("host")
            }
            syn::Expr::Field(f) => matches!(&f.member, syn::Member::Named(n) if n == "host"),
            _ => false,
        };
        if receiver_is_host {
            self.calls.push(call.method.to_string());
        }
        syn::visit::visit_expr_method_call(self, call);
    }
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The wings a wing's `mod.rs` says it calls: the backticked names on its `//! Calls:` line
/// (which may run on to the next `//!` lines until a full stop).
fn declared_calls(module_doc: &str) -> Option<BTreeSet<String>> {
    let at = module_doc.find("//! Calls:")?;
    let rest = &module_doc[at..];
    let end = rest.find('.').unwrap_or(rest.len());
    Some(
        rest[..end]
            .split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_owned)
            .collect(),
    )
}

struct Core {
    /// Per file (relative to `crates/core/src`): what it defines and calls.
    files: BTreeMap<PathBuf, FileCalls>,
    /// Host method → the files defining it.
    defined_in: BTreeMap<String, Vec<PathBuf>>,
}

fn read_core(src: &Path) -> Core {
    let mut paths = Vec::new();
    rust_files(src, &mut paths);
    let parsed: Vec<(PathBuf, syn::File)> = paths
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path.strip_prefix(src).unwrap().to_path_buf(), file)
        })
        .collect();
    let test_only: BTreeSet<PathBuf> = parsed
        .iter()
        .flat_map(|(relative, file)| test_modules(relative, file))
        .collect();
    let mut files = BTreeMap::new();
    let mut defined_in: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for (relative, parsed) in parsed {
        if is_test_file(&relative, &test_only) {
            continue;
        }
        let mut found = FileCalls::default();
        found.visit_file(&parsed);
        for name in &found.defined {
            defined_in
                .entry(name.clone())
                .or_default()
                .push(relative.clone());
        }
        files.insert(relative, found);
    }
    Core { files, defined_in }
}

/// Every call from one file into a Host method defined in another: (caller, callee file,
/// method). A name defined in several files counts toward each.
fn file_calls(core: &Core) -> Vec<(PathBuf, PathBuf, String)> {
    let mut out = Vec::new();
    for (file, found) in &core.files {
        for name in &found.calls {
            for target in core.defined_in.get(name).into_iter().flatten() {
                if target != file {
                    out.push((file.clone(), target.clone(), name.clone()));
                }
            }
        }
    }
    out
}

/// Strongly connected sets of more than one file in the file call graph (Tarjan's).
fn knots(edges: &BTreeSet<(PathBuf, PathBuf)>) -> Vec<Vec<PathBuf>> {
    let nodes: BTreeSet<&PathBuf> = edges.iter().flat_map(|(a, b)| [a, b]).collect();
    let index: BTreeMap<&PathBuf, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let nodes: Vec<&PathBuf> = nodes.into_iter().collect();
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (a, b) in edges {
        next[index[a]].push(index[b]);
    }
    struct Walk {
        counter: usize,
        order: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        found: Vec<Vec<usize>>,
    }
    fn visit(v: usize, next: &[Vec<usize>], w: &mut Walk) {
        w.order[v] = Some(w.counter);
        w.low[v] = w.counter;
        w.counter += 1;
        w.stack.push(v);
        w.on_stack[v] = true;
        for &u in &next[v] {
            match w.order[u] {
                None => {
                    visit(u, next, w);
                    w.low[v] = w.low[v].min(w.low[u]);
                }
                Some(o) if w.on_stack[u] => w.low[v] = w.low[v].min(o),
                _ => {}
            }
        }
        if Some(w.low[v]) == w.order[v] {
            let mut set = Vec::new();
            while let Some(u) = w.stack.pop() {
                w.on_stack[u] = false;
                set.push(u);
                if u == v {
                    break;
                }
            }
            if set.len() > 1 {
                w.found.push(set);
            }
        }
    }
    let n = nodes.len();
    let mut w = Walk {
        counter: 0,
        order: vec![None; n],
        low: vec![0; n],
        stack: Vec::new(),
        on_stack: vec![false; n],
        found: Vec::new(),
    };
    for v in 0..n {
        if w.order[v].is_none() {
            visit(v, &next, &mut w);
        }
    }
    w.found
        .into_iter()
        .map(|set| {
            let mut files: Vec<PathBuf> = set.into_iter().map(|i| nodes[i].clone()).collect();
            files.sort();
            files
        })
        .collect()
}

/// `crates/core/src`, or another tree's (`FORKHOST_CORE_SRC`) to measure its knots for a
/// before-and-after figure.
fn core_src() -> PathBuf {
    match std::env::var_os("FORKHOST_CORE_SRC") {
        Some(other) => PathBuf::from(other),
        None => forkhost_tests::workspace::root().join("crates/core/src"),
    }
}

#[test]
fn the_base_calls_no_wing_and_wings_call_only_downward() {
    let src = core_src();
    let core = read_core(&src);
    let mut declared: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut problems = Vec::new();
    for wing in WINGS {
        let face = src.join(wing).join("mod.rs");
        let text = std::fs::read_to_string(&face).unwrap_or_default();
        match declared_calls(&text) {
            Some(calls) => {
                for called in &calls {
                    if called != "base" && !WINGS.contains(&called.as_str()) {
                        problems.push(format!("{wing}/mod.rs: `Calls:` names `{called}`, no wing"));
                    }
                }
                declared.insert(wing.to_owned(), calls);
            }
            None => problems.push(format!(
                "{wing}/mod.rs opens with no `//! Calls:` line naming the wings it calls"
            )),
        }
    }
    for (caller, callee, name) in file_calls(&core) {
        let (from, to) = (place_of(&caller), place_of(&callee));
        if from == to || to == "base" {
            continue;
        }
        let allowed = declared.get(&from).is_some_and(|calls| calls.contains(&to));
        if !allowed {
            problems.push(format!(
                "{} calls `{name}` of {} ({from} → {to}){}",
                caller.display(),
                callee.display(),
                if from == "base" {
                    ": the base calls no wing"
                } else {
                    ": not on its `Calls:` line"
                }
            ));
        }
    }
    // The declared calls form no circle: each wing's calls end in the base.
    let edges: BTreeSet<(PathBuf, PathBuf)> = declared
        .iter()
        .flat_map(|(from, tos)| {
            tos.iter()
                .filter(|t| *t != "base")
                .map(move |to| (PathBuf::from(from), PathBuf::from(to)))
        })
        .collect();
    for knot in knots(&edges) {
        problems.push(format!("the `Calls:` lines form a circle: {knot:?}"));
    }
    assert!(
        problems.is_empty(),
        "calls that run up or sideways in core:\n  {}",
        problems.join("\n  ")
    );
}

/// The figure the layout is for: files tied in a circle by calls alone. Circles may stay
/// inside one wing (its own business); none may span two.
#[test]
fn call_circles_stay_inside_one_wing() {
    let core = read_core(&core_src());
    let edges: BTreeSet<(PathBuf, PathBuf)> = file_calls(&core)
        .into_iter()
        .map(|(a, b, _)| (a, b))
        .collect();
    let found = knots(&edges);
    let largest = found.iter().map(Vec::len).max().unwrap_or(0);
    println!(
        "call knots: {} (largest {largest} files): {found:?}",
        found.len()
    );
    let spanning: Vec<_> = found
        .iter()
        .filter(|knot| {
            let places: BTreeSet<String> = knot.iter().map(|f| place_of(f)).collect();
            places.len() > 1
        })
        .collect();
    assert!(
        spanning.is_empty(),
        "call circles across wings: {spanning:?}"
    );
}
