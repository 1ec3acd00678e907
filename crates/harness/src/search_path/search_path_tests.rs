use super::*;
use std::collections::HashMap;

/// A fake file system: path text → entry.
fn fs(files: &[(&str, Entry)]) -> impl Fn(&Path) -> Entry {
    let map: HashMap<String, Entry> = files.iter().map(|(p, e)| (p.to_string(), *e)).collect();
    move |p: &Path| {
        map.get(&*p.to_string_lossy())
            .copied()
            .unwrap_or(Entry::Missing)
    }
}

const FILE: Entry = Entry::File {
    executable: true,
    script: false,
};
const SCRIPT: Entry = Entry::File {
    executable: true,
    script: true,
};
const PLAIN: Entry = Entry::File {
    executable: false,
    script: false,
};

fn dirs(list: &[&str]) -> Vec<PathBuf> {
    list.iter().map(PathBuf::from).collect()
}

#[test]
fn windows_tries_each_pathext_per_folder_and_never_the_bare_name() {
    let files = fs(&[
        (r"C:\npm\claude", SCRIPT),
        (r"C:\npm\claude.cmd", FILE),
        (r"C:\npm\claude.ps1", FILE),
        (r"C:\Users\me\.local\bin\claude.exe", FILE),
    ]);
    let path = dirs(&[r"C:\Windows", r"C:\npm", r"C:\Users\me\.local\bin"]);
    let found = find_program(
        "claude",
        &path,
        Some(".COM;.EXE;.BAT;.CMD;.VBS;.JS"),
        true,
        &files,
    );
    assert_eq!(found.found, Some(PathBuf::from(r"C:\npm\claude.cmd")));
    // The folder order decides, then PATHEXT's: .exe before .cmd in one folder.
    let path = dirs(&[r"C:\Users\me\.local\bin", r"C:\npm"]);
    let found = find_program("claude", &path, None, true, &files);
    assert_eq!(
        found.found,
        Some(PathBuf::from(r"C:\Users\me\.local\bin\claude.exe"))
    );
    let both = fs(&[(r"C:\x\codex.cmd", FILE), (r"C:\x\codex.exe", FILE)]);
    assert_eq!(
        find_program("codex", &dirs(&[r"C:\x\"]), Some(".CMD;.EXE"), true, &both).found,
        Some(PathBuf::from(r"C:\x\codex.cmd")),
        "the user's PATHEXT order, as cmd.exe"
    );
    assert_eq!(
        find_program("codex", &dirs(&[r"C:\x\"]), None, true, &both).found,
        Some(PathBuf::from(r"C:\x\codex.exe"))
    );
}

#[test]
fn windows_explains_an_sh_shim_it_will_not_start() {
    let files = fs(&[(r"C:\npm\pi", SCRIPT), (r"C:\npm\pi.ps1", FILE)]);
    let lookup = find_program("pi", &dirs(&[r"C:\npm"]), None, true, &files);
    assert_eq!(lookup.found, None);
    assert_eq!(
        lookup.rejected,
        vec![
            Rejected {
                path: r"C:\npm\pi".into(),
                reason: Reason::NoExtension { script: true }
            },
            Rejected {
                path: r"C:\npm\pi.ps1".into(),
                reason: Reason::NotStartable
            },
        ]
    );
    let text = lookup.rejected[0].describe("pi");
    assert!(
        text.contains("shell script") && text.contains("pi.cmd"),
        "{text}"
    );
}

#[test]
fn startable_extensions_follow_pathext() {
    assert_eq!(
        startable_extensions(None),
        vec![".com", ".exe", ".bat", ".cmd"]
    );
    assert_eq!(
        startable_extensions(Some(".PS1;EXE;.Cmd;.exe")),
        vec![".exe", ".cmd"]
    );
    assert_eq!(startable_extensions(Some(".JS")), vec![".exe", ".cmd"]);
}

#[test]
fn unix_wants_an_executable_file() {
    let files = fs(&[
        ("/a/claude", PLAIN),
        ("/b/claude", Entry::Dir),
        ("/c/claude", SCRIPT),
        ("/c/claude.cmd", FILE),
    ]);
    let lookup = find_program("claude", &dirs(&["/a", "/b", "/c"]), None, false, &files);
    assert_eq!(lookup.found, Some(PathBuf::from("/c/claude")));
    assert_eq!(
        lookup.rejected,
        vec![Rejected {
            path: "/a/claude".into(),
            reason: Reason::NotExecutable
        }]
    );
}

#[test]
fn a_given_path_passes_the_same_check() {
    let files = fs(&[
        (r"C:\npm\claude", SCRIPT),
        (r"C:\npm\claude.cmd", FILE),
        (r"C:\tools\codex", FILE),
        (r"C:\tools\pi.ps1", FILE),
        (r"C:\tools\pi.EXE", FILE),
    ]);
    let check = |p: &str| check_program_path(Path::new(p), None, true, &files);
    assert_eq!(
        check(r"C:\npm\claude.cmd"),
        Ok(PathBuf::from(r"C:\npm\claude.cmd"))
    );
    // As cmd.exe: the extension is added.
    assert_eq!(
        check(r"C:\npm\claude"),
        Ok(PathBuf::from(r"C:\npm\claude.cmd"))
    );
    assert_eq!(
        check(r"C:\tools\codex"),
        Err(Some(Rejected {
            path: r"C:\tools\codex".into(),
            reason: Reason::NoExtension { script: false }
        }))
    );
    assert_eq!(
        check(r"C:\tools\pi.ps1"),
        Err(Some(Rejected {
            path: r"C:\tools\pi.ps1".into(),
            reason: Reason::NotStartable
        }))
    );
    assert_eq!(
        check(r"C:\tools\pi.EXE"),
        Ok(PathBuf::from(r"C:\tools\pi.EXE"))
    );
    assert_eq!(check(r"C:\nowhere\x.exe"), Err(None));

    let unix = fs(&[
        ("/u/claude", PLAIN),
        ("/u/pi", FILE),
        ("/u/dir", Entry::Dir),
    ]);
    let check = |p: &str| check_program_path(Path::new(p), None, false, &unix);
    assert_eq!(check("/u/pi"), Ok(PathBuf::from("/u/pi")));
    assert!(matches!(
        check("/u/claude"),
        Err(Some(Rejected {
            reason: Reason::NotExecutable,
            ..
        }))
    ));
    assert!(matches!(
        check("/u/dir"),
        Err(Some(Rejected {
            reason: Reason::NotAFile,
            ..
        }))
    ));
    assert_eq!(check("/u/none"), Err(None));
}

#[test]
fn path_lists_split_and_join_per_os() {
    assert_eq!(
        split_path_list(
            OsStr::new(r#"C:\Windows;;"C:\Program Files\Git\cmd";C:\npm\"#),
            true
        ),
        dirs(&[r"C:\Windows", r"C:\Program Files\Git\cmd", r"C:\npm\"])
    );
    assert_eq!(
        split_path_list(OsStr::new("/usr/bin::/bin:"), false),
        dirs(&["/usr/bin", "/bin"])
    );
    let win = compose(
        Some(OsStr::new(r"C:\Windows;c:\npm\")),
        None,
        dirs(&[r"C:\NPM", r"C:\Users\me\.local\bin"]),
        true,
    );
    assert_eq!(
        win.to_path_var(),
        OsString::from(r"C:\Windows;c:\npm\;C:\Users\me\.local\bin")
    );
    assert_eq!(
        win.origin_of(Path::new(r"C:\Users\me\.local\bin")),
        Some(Origin::Fallback)
    );
}

#[test]
fn a_gui_launch_puts_the_login_shells_folders_first() {
    // macOS: launchd's PATH, the login shell's (Homebrew, nvm), then the fallbacks.
    let path = compose(
        Some(OsStr::new("/usr/bin:/bin:/usr/sbin:/sbin")),
        Some(OsStr::new(
            "/Users/me/.nvm/versions/node/v22.1.0/bin:/opt/homebrew/bin:/usr/bin:/bin",
        )),
        dirs(&["/Users/me/.local/bin", "/opt/homebrew/bin/"]),
        false,
    );
    assert_eq!(
        path.to_path_var(),
        OsString::from(
            "/Users/me/.nvm/versions/node/v22.1.0/bin:/opt/homebrew/bin:/usr/bin:/bin:/usr/sbin:/sbin:/Users/me/.local/bin"
        )
    );
    assert_eq!(path.origin_of(Path::new("/usr/sbin")), Some(Origin::Path));
    assert_eq!(
        path.origin_of(Path::new("/opt/homebrew/bin")),
        Some(Origin::LoginShell)
    );
    assert_eq!(
        path.origin_of(Path::new("/Users/me/.local/bin")),
        Some(Origin::Fallback)
    );
}

#[test]
fn fallbacks_name_the_usual_install_folders() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for d in [
        ".local/bin",
        ".volta/bin",
        ".asdf/shims",
        ".local/share/mise/shims",
        ".cargo/bin",
        "npm-prefix/bin",
    ] {
        std::fs::create_dir_all(h.join(d)).unwrap();
    }
    std::fs::write(h.join(".npmrc"), "registry=x\nprefix = ~/npm-prefix\n").unwrap();
    for v in ["v20.11.0", "v22.1.0", "v22.9.0", "v23.0.0"] {
        std::fs::create_dir_all(h.join(".nvm/versions/node").join(v).join("bin")).unwrap();
    }
    std::fs::create_dir_all(h.join(".nvm/alias")).unwrap();
    std::fs::write(h.join(".nvm/alias/default"), "22\n").unwrap();
    let none = |_: &str| None;
    let found = fallback_dirs(Some(h), &none, false, &|d| d.is_dir());
    let rel: Vec<String> = found
        .iter()
        .filter_map(|d| d.strip_prefix(h).ok())
        .map(|d| d.display().to_string())
        .collect();
    assert_eq!(
        rel,
        [
            ".local/bin",
            "npm-prefix/bin",
            ".nvm/versions/node/v22.9.0/bin",
            ".volta/bin",
            ".asdf/shims",
            ".local/share/mise/shims",
            ".cargo/bin"
        ]
    );
    // The active nvm (NVM_BIN, as nvm.sh exports it) wins over the default alias.
    let active = |k: &str| {
        (k == "NVM_BIN").then(|| h.join(".nvm/versions/node/v20.11.0/bin").into_os_string())
    };
    let found = fallback_dirs(Some(h), &active, false, &|d| d.is_dir());
    assert!(found.contains(&h.join(".nvm/versions/node/v20.11.0/bin")));
    assert!(!found.contains(&h.join(".nvm/versions/node/v22.9.0/bin")));
}

#[test]
fn windows_fallbacks_are_the_native_installer_and_npm() {
    let var = |k: &str| (k == "APPDATA").then(|| OsString::from(r"C:\Users\me\AppData\Roaming"));
    let found = fallback_dirs(Some(Path::new(r"C:\Users\me")), &var, true, &|_| true);
    assert_eq!(
        found,
        dirs(&[
            r"C:\Users\me\.local\bin",
            r"C:\Users\me\AppData\Roaming\npm"
        ])
    );
}

#[cfg(unix)]
#[test]
fn the_real_file_probe_sees_scripts_and_modes() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("s");
    std::fs::write(&script, "#!/usr/bin/env node\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(fs_entry(&script), SCRIPT);
    let plain = dir.path().join("p");
    std::fs::write(&plain, "x").unwrap();
    std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();
    assert_eq!(fs_entry(&plain), PLAIN);
    assert_eq!(fs_entry(dir.path()), Entry::Dir);
    assert_eq!(fs_entry(&dir.path().join("none")), Entry::Missing);
}

#[test]
fn bare_names_are_not_paths() {
    assert!(is_bare_name("claude"));
    assert!(is_bare_name("claude.cmd"));
    assert!(!is_bare_name("./claude"));
    assert!(!is_bare_name(r"C:\npm\claude.cmd"));
    assert!(!is_bare_name("~/bin/claude"));
}
