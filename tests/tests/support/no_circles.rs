//! No import circle inside a crate (docs/architecture.md "Layers"): the files of a crate form
//! floors, each importing only from below. A circle is where a leaf reached up, and from then
//! on no file of it can be read, tested or moved alone.
//!
//! Each crate's module tree is walked from its roots along `mod` declarations (`#[path]`
//! included), and every path a file names — in `use`, in code, in macro bodies — that starts at
//! `crate`, `super`, `self` or a child module is resolved to the deepest module it reaches; the
//! file holding that module is what the file depends on (inline modules belong to their file;
//! the crate root, the face, is no floor). A circle is a strongly connected set of more than
//! one file; it is reported with the names that tie it. One test per crate, so each can be run
//! alone (`cargo test -p forkhost-tests --test support_no_circles core`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use forkhost_tests::workspace::{self, Member};
use proc_macro2::{TokenStream, TokenTree};
use syn::visit::Visit;

/// A module's path inside its crate (`["files", "scope"]`).
type ModPath = Vec<String>;

/// What one file names, gathered by [`Names`].
#[derive(Default)]
struct Names {
    /// The module being read (inline modules push onto it).
    at: ModPath,
    /// Each path named, with the module it was named in.
    paths: Vec<(ModPath, Vec<String>)>,
    /// Inline modules (`mod tests { … }`) of this file.
    inline: Vec<ModPath>,
    /// `mod x;` declarations: the child's name and its `#[path]`, if any.
    children: Vec<(String, Option<String>)>,
    /// What each `use` binds: in which module, the name, and the path it stands for.
    binds: Vec<(ModPath, String, Vec<String>)>,
}

impl Names {
    fn add(&mut self, segments: Vec<String>) {
        if segments.len() > 1 {
            self.paths.push((self.at.clone(), segments));
        }
    }

    fn bind(&mut self, path: Vec<String>, name: Option<String>) {
        if let Some(name) = name.or_else(|| path.last().cloned()) {
            self.binds.push((self.at.clone(), name, path.clone()));
        }
        self.add(path);
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) if n.ident == "self" => self.bind(prefix.clone(), None),
            syn::UseTree::Name(n) => {
                self.bind([&prefix[..], &[n.ident.to_string()]].concat(), None)
            }
            syn::UseTree::Rename(r) => {
                let path = [&prefix[..], &[r.ident.to_string()]].concat();
                self.bind(path, Some(r.rename.to_string()))
            }
            syn::UseTree::Glob(_) => self.add([&prefix[..], &["*".to_owned()]].concat()),
            syn::UseTree::Group(g) => g.items.iter().for_each(|t| self.use_tree(prefix, t)),
        }
    }

    /// `a :: b :: c` sequences in a macro's tokens (`tracing::info!`, `format!` arguments).
    fn tokens(&mut self, tokens: TokenStream) {
        let mut run: Vec<String> = Vec::new();
        let mut colons = 0;
        for tree in tokens {
            match tree {
                TokenTree::Ident(i) => {
                    if colons != 2 {
                        self.add(std::mem::take(&mut run));
                    }
                    run.push(i.to_string());
                    colons = 0;
                }
                TokenTree::Punct(p) if p.as_char() == ':' && !run.is_empty() && colons < 2 => {
                    colons += 1
                }
                other => {
                    self.add(std::mem::take(&mut run));
                    colons = 0;
                    if let TokenTree::Group(g) = other {
                        self.tokens(g.stream());
                    }
                }
            }
        }
        self.add(run);
    }
}

impl<'ast> Visit<'ast> for Names {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let Some((_, items)) = &m.content else {
            let path = m.attrs.iter().find(|a| a.path().is_ident("path"));
            let path = path.and_then(|a| match &a.meta {
                syn::Meta::NameValue(syn::MetaNameValue {
                    value:
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(s),
                            ..
                        }),
                    ..
                }) => Some(s.value()),
                _ => None,
            });
            self.children.push((m.ident.to_string(), path));
            return;
        };
        self.at.push(m.ident.to_string());
        self.inline.push(self.at.clone());
        items.iter().for_each(|item| self.visit_item(item));
        self.at.pop();
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_path(&mut self, p: &'ast syn::Path) {
        self.add(p.segments.iter().map(|s| s.ident.to_string()).collect());
        syn::visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
        syn::visit::visit_macro(self, m);
    }
}

/// A crate's files, which module each holds, and what each names.
#[derive(Default)]
struct Tree {
    files: Vec<PathBuf>,
    /// The module of each file (its inline modules aside).
    file_module: Vec<ModPath>,
    modules: BTreeMap<ModPath, usize>,
    names: Vec<Vec<(ModPath, Vec<String>)>>,
    binds: BTreeMap<(ModPath, String), Vec<String>>,
}

impl Tree {
    fn read(&mut self, file: &Path, module: ModPath, owns_folder: bool) {
        let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| panic!("{file:?}: {e}"));
        let mut names = Names {
            at: module.clone(),
            ..Names::default()
        };
        names.visit_file(&parsed);
        let index = self.files.len();
        self.files.push(file.to_owned());
        self.file_module.push(module.clone());
        self.modules.insert(module.clone(), index);
        for inline in names.inline {
            self.modules.insert(inline, index);
        }
        for (at, name, path) in names.binds {
            self.binds.insert((at, name), path);
        }
        self.names.push(names.paths);
        let dir = file.parent().unwrap();
        let folder = match owns_folder {
            true => dir.to_owned(),
            false => dir.join(file.file_stem().unwrap()),
        };
        for (name, path) in names.children {
            let child = [&module[..], std::slice::from_ref(&name)].concat();
            let (file, owns) = match path {
                // A `#[path]` file declares its children as a `mod.rs` does.
                Some(path) => (dir.join(path), true),
                None if folder.join(format!("{name}.rs")).is_file() => {
                    (folder.join(format!("{name}.rs")), false)
                }
                None => (folder.join(&name).join("mod.rs"), true),
            };
            self.read(&file, child, owns);
        }
    }

    /// The file that holds what `path`, named in module `at`, stands for: through the
    /// `use` that bound it, where it lands on a name a module imported (a face's re-export, a
    /// parent's import its children use); `None` outside this crate.
    fn target(&self, at: &ModPath, path: &[String], depth: usize) -> Option<usize> {
        let (mut full, rest) = match path[0].as_str() {
            "crate" => (Vec::new(), &path[1..]),
            "self" => (at.clone(), &path[1..]),
            "super" => {
                let ups = path.iter().take_while(|s| *s == "super").count();
                (at[..at.len().checked_sub(ups)?].to_vec(), &path[ups..])
            }
            first
                if self
                    .modules
                    .contains_key(&[&at[..], &[first.to_owned()]].concat()) =>
            {
                (at.clone(), path)
            }
            _ => return None,
        };
        full.extend(rest.iter().cloned());
        let mut known = full.len();
        while !self.modules.contains_key(&full[..known]) {
            known -= 1;
        }
        let module = full[..known].to_vec();
        if let Some(bound) = full
            .get(known)
            .and_then(|name| self.binds.get(&(module.clone(), name.clone())))
            .filter(|_| depth < 8)
        {
            let through = [&bound[..], &full[known + 1..]].concat();
            return self.target(&module, &through, depth + 1);
        }
        self.modules.get(&module).copied()
    }
}

/// Each circle of `member`: its files, and for each import inside it the names that tie it.
fn circles(member: &Member) -> Vec<String> {
    let mut found = Vec::new();
    for root in &member.roots {
        let mut tree = Tree::default();
        tree.read(root, Vec::new(), true);
        found.extend(circles_of(&tree, &member.dir.join("src")));
    }
    found
}

fn circles_of(tree: &Tree, src: &Path) -> Vec<String> {
    let n = tree.files.len();
    let mut edges: Vec<BTreeMap<usize, BTreeSet<String>>> = vec![BTreeMap::new(); n];
    for (from, names) in tree.names.iter().enumerate() {
        for (at, path) in names {
            let Some(to) = tree.target(at, path, 0) else {
                continue;
            };
            // The crate root is the face, no floor; a module naming its own parts (a face's
            // re-exports, a folder's entry calling into its files) is what `mod` says already.
            let (own, theirs) = (&tree.file_module[from], &tree.file_module[to]);
            if to != from && !theirs.is_empty() && !theirs.starts_with(own) {
                edges[from].entry(to).or_default().insert(path.join("::"));
            }
        }
    }
    let reach = |from: usize| {
        let (mut seen, mut todo) = (vec![false; n], vec![from]);
        while let Some(f) = todo.pop() {
            for &to in edges[f].keys() {
                if !std::mem::replace(&mut seen[to], true) {
                    todo.push(to);
                }
            }
        }
        seen
    };
    let reaches: Vec<Vec<bool>> = (0..n).map(reach).collect();
    let name = |f: usize| {
        let file = &tree.files[f];
        file.strip_prefix(src).unwrap_or(file).display().to_string()
    };
    let mut found: BTreeSet<Vec<usize>> = BTreeSet::new();
    for (f, from_f) in reaches.iter().enumerate() {
        let set: Vec<usize> = (0..n).filter(|&g| from_f[g] && reaches[g][f]).collect();
        if set.len() > 1 {
            found.insert(set);
        }
    }
    found
        .into_iter()
        .map(|set| {
            let mut text = format!("{} files:", set.len());
            for &f in &set {
                for (to, names) in edges[f].iter().filter(|(to, _)| set.contains(to)) {
                    let names: Vec<&str> = names.iter().map(String::as_str).collect();
                    text.push_str(&format!(
                        "\n  {} → {}: {}",
                        name(f),
                        name(*to),
                        names.join(", ")
                    ));
                }
            }
            text
        })
        .collect()
}

fn assert_no_circles(crate_name: &str) {
    let member = workspace::members()
        .into_iter()
        .find(|m| m.name == crate_name);
    let member = member.unwrap_or_else(|| panic!("{crate_name} is no workspace member"));
    let found = circles(&member);
    assert!(
        found.is_empty(),
        "import circles in {crate_name}:\n{}",
        found.join("\n")
    );
}

/// One test per crate; [`every_crate_is_checked`] keeps the list whole.
macro_rules! crates {
    ($($test:ident: $name:literal),* $(,)?) => {
        const CHECKED: &[&str] = &[$($name),*];
        $(#[test] fn $test() { assert_no_circles($name) })*
    };
}

crates! {
    app: "forkhost-app",
    cli: "forkhost-cli",
    core: "forkhost-core",
    harness: "forkhost-harness",
    store: "forkhost-store",
    test_script: "forkhost-test-script",
    tests_kit: "forkhost-tests",
    worktree: "forkhost-worktree",
}

#[test]
fn every_crate_is_checked() {
    let members: Vec<String> = workspace::members().into_iter().map(|m| m.name).collect();
    assert_eq!(
        members, CHECKED,
        "give each workspace member its test in crates!"
    );
}

#[test]
fn a_circle_is_found_through_re_exports_and_macros_and_a_face_is_none() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    std::fs::create_dir_all(src.join("a")).unwrap();
    std::fs::create_dir_all(src.join("face")).unwrap();
    let write = |p: &str, text: &str| std::fs::write(src.join(p), text).unwrap();
    write(
        "lib.rs",
        "mod a;\nmod face;\nmod leaf;\npub use a::b::Thing;\n",
    );
    // A folder's entry calling into its parts, and parts using what it defines: no circle.
    write(
        "a/mod.rs",
        "pub mod b;\nmod c;\nfn f() { c::helper(); }\n#[cfg(test)]\nmod tests { use super::*; }\n",
    );
    write("a/c.rs", "pub fn helper() -> super::b::Thing { todo!() }\n");
    write(
        "face/mod.rs",
        "mod part;\npub use part::P;\npub struct Shared;\n",
    );
    write("face/part.rs", "pub struct P(super::Shared);\n");
    // The circle: b names the leaf, the leaf names b through the root's re-export, in a macro.
    write("a/b.rs", "use crate::leaf::X;\npub struct Thing(X);\n");
    write(
        "leaf.rs",
        "pub struct X;\nfn h() { tracing::info!(\"{:?}\", crate::Thing); }\n",
    );
    let member = Member {
        name: "t".into(),
        dir: dir.path().into(),
        roots: vec![src.join("lib.rs")],
    };
    let found = circles(&member);
    assert_eq!(
        found,
        ["2 files:\n  a/b.rs → leaf.rs: crate::leaf::X\n  leaf.rs → a/b.rs: crate::Thing"]
    );
}
