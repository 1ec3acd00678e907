//! Every platform's rules, on Linux, with temp folders and stand-ins for the OS.

use std::path::{Path, PathBuf};
use std::process::Command;

use super::env::RECORD_FILE;
use super::files::replace_with_link;
use super::macos::{osascript_args, sh_quote};
use super::windows::{
    encode_powershell, parse_read_path_output, same_windows_dir, windows_path_with,
    windows_path_without, windows_read_path_script, windows_write_path_script,
};
use super::*;
use std::cell::RefCell;
use std::os::unix::fs::PermissionsExt;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A temp folder removed on drop (this crate has no tempfile dependency).
struct Tmp(PathBuf);

impl Tmp {
    fn new() -> Tmp {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "forkhost-cli-tool-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Tmp(dir.canonicalize().unwrap())
    }
    fn join(&self, p: &str) -> PathBuf {
        self.0.join(p)
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A stand-in CLI: a shell script that prints `version`.
fn fake_cli(path: &Path, version: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    forkhost_test_script::write_executable(path, &format!("#!/bin/sh\necho '{version}'\n"))
        .unwrap();
}

/// An app install: `<dir>/forkhost-app` and its CLI.
fn fake_app(dir: &Path, os: Os, version: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let exe = dir.join(os.app_name());
    std::fs::write(&exe, "app").unwrap();
    fake_cli(&dir.join(os.cli_name()), version);
    exe
}

#[derive(Default)]
struct Fake {
    /// Direct writes fail with PermissionDenied (a root-owned /usr/local/bin).
    deny_direct: bool,
    admin: RefCell<Vec<String>>,
    user_path: RefCell<Option<String>>,
    writes: RefCell<usize>,
}

impl System for Fake {
    fn link(&self, target: &Path, at: &Path) -> std::io::Result<()> {
        if self.deny_direct {
            return Err(std::io::ErrorKind::PermissionDenied.into());
        }
        replace_with_link(target, at)
    }
    fn remove(&self, path: &Path) -> std::io::Result<()> {
        if self.deny_direct {
            return Err(std::io::ErrorKind::PermissionDenied.into());
        }
        std::fs::remove_file(path)
    }
    fn run_as_admin(&self, command: &str) -> Result<(), CliToolError> {
        self.admin.borrow_mut().push(command.to_owned());
        // The real command, run without the prompt: checks what the admin shell gets.
        let ok = Command::new("/bin/sh")
            .args(["-c", command])
            .status()
            .unwrap()
            .success();
        ok.then_some(())
            .ok_or_else(|| CliToolError::Admin("failed".into()))
    }
    fn read_user_path(&self) -> Result<Option<String>, CliToolError> {
        Ok(self.user_path.borrow().clone())
    }
    fn write_user_path(
        &self,
        expected: Option<&str>,
        value: Option<&str>,
    ) -> Result<(), CliToolError> {
        assert_eq!(self.user_path.borrow().as_deref(), expected);
        *self.user_path.borrow_mut() = value.map(str::to_owned);
        *self.writes.borrow_mut() += 1;
        Ok(())
    }
}

fn linux_env(tmp: &Tmp, exe: PathBuf) -> CliEnv {
    CliEnv {
        os: Os::Linux,
        exe,
        home: Some(tmp.join("home")),
        path: Some("/usr/local/bin:/usr/bin:/bin".into()),
        appimage: None,
        appdir: None,
        packaged_dir: tmp.join("usr/bin"),
        mac_bin_dir: tmp.join("usr/local/bin"),
        record: Some(tmp.join("data").join(RECORD_FILE)),
    }
}

fn codes(st: &CliToolStatus) -> Vec<&str> {
    st.warnings.iter().map(|w| w.code.as_str()).collect()
}

#[test]
fn a_dev_build_links_local_bin_to_its_cli_and_removes_the_link() {
    let tmp = Tmp::new();
    let exe = fake_app(&tmp.join("target/debug"), Os::Linux, "forkhost 1.2.3");
    let env = linux_env(&tmp, exe);
    let sys = Fake::default();
    let link = tmp.join("home/.local/bin/forkhost");
    let bundled = tmp.join("target/debug/forkhost");

    let st = status(&env, &sys);
    assert_eq!(st.kind, CliInstallKind::Symlink);
    assert_eq!(st.bundled.as_deref(), Some(bundled.to_str().unwrap()));
    assert_eq!(st.bundled_version.as_deref(), Some("forkhost 1.2.3"));
    assert_eq!(st.target.as_deref(), Some(link.to_str().unwrap()));
    assert!(!st.installed && st.can_install && !st.can_uninstall);
    assert!(st.conflict.is_none());
    assert_eq!(codes(&st), ["not_on_path"]);
    assert!(st.warnings[0]
        .message
        .contains("~/.local/bin is not on your PATH"));

    let st = install(&env, &sys, false).unwrap();
    assert_eq!(std::fs::read_link(&link).unwrap(), bundled);
    assert!(st.installed && !st.outdated && st.can_uninstall && !st.can_install);
    assert_eq!(st.installed_path.as_deref(), Some(link.to_str().unwrap()));
    assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.2.3"));
    assert_eq!(codes(&st), ["not_on_path"]);
    // Installing again changes nothing.
    assert_eq!(install(&env, &sys, false).unwrap(), st);

    // With ~/.local/bin on PATH there is nothing to warn about.
    let mut on = env.clone();
    on.path = Some(format!("{}:/usr/bin", tmp.join("home/.local/bin").display()).into());
    assert!(status(&on, &sys).warnings.is_empty());

    let st = uninstall(&env, &sys).unwrap();
    assert!(std::fs::symlink_metadata(&link).is_err());
    assert!(!st.installed && st.can_install && st.installed_version.is_none());
    assert!(!env.record.as_ref().unwrap().exists());
    // Nothing there: uninstall is a no-op.
    assert!(!uninstall(&env, &sys).unwrap().installed);
}

#[test]
fn a_foreign_forkhost_is_replaced_only_when_confirmed_and_never_uninstalled() {
    let tmp = Tmp::new();
    let exe = fake_app(&tmp.join("target/debug"), Os::Linux, "forkhost 1.2.3");
    let env = linux_env(&tmp, exe);
    let sys = Fake::default();
    let target = tmp.join("home/.local/bin/forkhost");
    fake_cli(&target, "forkhost 0.0.1 (mine)");
    let before = std::fs::read(&target).unwrap();

    let st = status(&env, &sys);
    let conflict = st.conflict.clone().unwrap();
    assert_eq!(conflict.path, target.display().to_string());
    assert!(conflict.replaceable);
    assert!(conflict.detail.contains("not this app's"));
    assert!(!st.installed && st.can_install && !st.can_uninstall);

    let err = install(&env, &sys, false).unwrap_err();
    assert_eq!(err.code().as_str(), "conflict");
    assert!(err.to_string().contains("Confirm to replace it"));
    assert_eq!(std::fs::read(&target).unwrap(), before);
    let err = uninstall(&env, &sys).unwrap_err();
    assert_eq!(err.code().as_str(), "conflict");
    assert_eq!(std::fs::read(&target).unwrap(), before);

    let st = install(&env, &sys, true).unwrap();
    assert!(st.installed && st.conflict.is_none());
    assert_eq!(
        std::fs::read_link(&target).unwrap(),
        tmp.join("target/debug/forkhost")
    );

    // A foreign link is described by where it points.
    std::fs::remove_file(&target).unwrap();
    std::os::unix::fs::symlink("/opt/elsewhere/forkhost", &target).unwrap();
    let st = status(&env, &sys);
    assert_eq!(
        st.conflict.unwrap().detail,
        "a broken link to /opt/elsewhere/forkhost"
    );
}

#[test]
fn a_folder_in_the_way_is_never_replaced() {
    let tmp = Tmp::new();
    let exe = fake_app(&tmp.join("target/debug"), Os::Linux, "forkhost 1.2.3");
    let env = linux_env(&tmp, exe);
    let sys = Fake::default();
    std::fs::create_dir_all(tmp.join("home/.local/bin/forkhost/inside")).unwrap();
    let st = status(&env, &sys);
    assert!(!st.conflict.unwrap().replaceable);
    assert!(!st.can_install);
    let err = install(&env, &sys, true).unwrap_err();
    assert_eq!(err.code().as_str(), "conflict");
    assert!(tmp.join("home/.local/bin/forkhost/inside").is_dir());
}

#[test]
fn our_link_to_a_moved_build_is_updated_without_asking() {
    let tmp = Tmp::new();
    let old = fake_app(&tmp.join("old/debug"), Os::Linux, "forkhost 1.0.0");
    let env = linux_env(&tmp, old);
    let sys = Fake::default();
    install(&env, &sys, false).unwrap();
    std::fs::remove_dir_all(tmp.join("old")).unwrap();

    let new = fake_app(&tmp.join("new/debug"), Os::Linux, "forkhost 2.0.0");
    let env = linux_env(&tmp, new);
    let st = status(&env, &sys);
    assert!(st.installed && st.outdated && st.can_install && st.conflict.is_none());
    // The dangling link does not run.
    assert_eq!(codes(&st), ["not_on_path", "version_failed"]);
    let st = install(&env, &sys, false).unwrap();
    assert!(!st.outdated);
    assert_eq!(st.installed_version.as_deref(), Some("forkhost 2.0.0"));
}

#[test]
fn a_link_into_another_forkhost_counts_as_ours_only_at_the_same_version() {
    let tmp = Tmp::new();
    let exe = fake_app(&tmp.join("a"), Os::Linux, "forkhost 1.0.0");
    let env = linux_env(&tmp, exe);
    let sys = Fake::default();
    let target = tmp.join("home/.local/bin/forkhost");
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();

    fake_app(&tmp.join("b"), Os::Linux, "forkhost 1.0.0");
    std::os::unix::fs::symlink(tmp.join("b/forkhost"), &target).unwrap();
    let st = status(&env, &sys);
    assert!(st.installed && st.outdated && st.conflict.is_none());

    fake_app(&tmp.join("b"), Os::Linux, "forkhost 0.9.0");
    let st = status(&env, &sys);
    assert!(!st.installed);
    assert!(st.conflict.unwrap().detail.contains("(forkhost 0.9.0)"));
}

#[test]
fn an_appimage_copies_its_cli_and_re_offers_when_the_version_changes() {
    let tmp = Tmp::new();
    let mount = tmp.join("mount1");
    let exe = fake_app(&mount.join("usr/bin"), Os::Linux, "forkhost 1.0.0");
    let mut env = linux_env(&tmp, exe);
    env.appimage = Some(tmp.join("Forkhost.AppImage"));
    env.appdir = Some(mount.clone());
    let sys = Fake::default();
    let target = tmp.join("home/.local/bin/forkhost");

    let st = status(&env, &sys);
    assert_eq!(st.kind, CliInstallKind::Copy);
    assert!(st.can_install);
    let st = install(&env, &sys, false).unwrap();
    let meta = std::fs::symlink_metadata(&target).unwrap();
    assert!(meta.is_file(), "a copy, not a link");
    assert_eq!(meta.permissions().mode() & 0o111, 0o111);
    assert!(st.installed && !st.outdated);
    assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.0.0"));
    assert_eq!(codes(&st), ["not_on_path"]);

    // The next AppImage (another mount point) carries a newer CLI.
    let mount2 = tmp.join("mount2");
    let exe2 = fake_app(&mount2.join("usr/bin"), Os::Linux, "forkhost 1.1.0");
    env.exe = exe2;
    env.appdir = Some(mount2);
    let st = status(&env, &sys);
    assert!(st.installed && st.outdated && st.can_install && st.conflict.is_none());
    assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.0.0"));
    let st = install(&env, &sys, false).unwrap();
    assert!(!st.outdated);
    assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.1.0"));

    // Edited by someone else since: no longer ours.
    fake_cli(&target, "forkhost 9.9.9-custom");
    let st = status(&env, &sys);
    assert!(!st.installed && st.conflict.is_some());
    assert_eq!(
        install(&env, &sys, false).unwrap_err().code().as_str(),
        "conflict"
    );

    install(&env, &sys, true).unwrap();
    let st = uninstall(&env, &sys).unwrap();
    assert!(!target.exists() && !st.installed);
}

#[test]
fn an_appimage_finds_its_cli_through_appdir() {
    let tmp = Tmp::new();
    let mount = tmp.join("mount");
    fake_cli(&mount.join("usr/bin/forkhost"), "forkhost 1.0.0");
    let mut env = linux_env(&tmp, tmp.join("elsewhere/forkhost-app"));
    env.appimage = Some(tmp.join("Forkhost.AppImage"));
    env.appdir = Some(mount.clone());
    let st = status(&env, &Fake::default());
    assert_eq!(st.kind, CliInstallKind::Copy);
    assert_eq!(
        st.bundled.as_deref(),
        Some(mount.join("usr/bin/forkhost").to_str().unwrap())
    );
}

#[test]
fn a_packaged_app_has_nothing_to_do() {
    let tmp = Tmp::new();
    let exe = fake_app(&tmp.join("usr/bin"), Os::Linux, "forkhost 1.0.0");
    let mut env = linux_env(&tmp, exe);
    env.path = Some(tmp.join("usr/bin").into_os_string());
    let sys = Fake::default();
    let st = status(&env, &sys);
    assert_eq!(st.kind, CliInstallKind::Packaged);
    assert!(st.installed && !st.can_install && !st.can_uninstall);
    assert_eq!(
        st.installed_path.as_deref(),
        Some(tmp.join("usr/bin/forkhost").to_str().unwrap())
    );
    assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.0.0"));
    assert!(st.warnings.is_empty(), "{:?}", st.warnings);
    assert_eq!(install(&env, &sys, false).unwrap(), st);
    let err = uninstall(&env, &sys).unwrap_err();
    assert_eq!(err.code().as_str(), "unsupported");
    assert!(err.to_string().contains("uninstall the package"));
}

#[test]
fn without_a_bundled_cli_nothing_is_offered() {
    let tmp = Tmp::new();
    std::fs::create_dir_all(tmp.join("bin")).unwrap();
    let env = linux_env(&tmp, tmp.join("bin/forkhost-app"));
    let sys = Fake::default();
    let st = status(&env, &sys);
    assert_eq!(st.kind, CliInstallKind::None);
    assert!(st.bundled.is_none() && !st.can_install && !st.can_uninstall);
    assert_eq!(st.looked_at, tmp.join("bin/forkhost").display().to_string());
    let err = install(&env, &sys, true).unwrap_err();
    assert_eq!(err.code().as_str(), "unsupported");
    assert!(err.to_string().contains("no command-line tool beside it"));
    let err: CommandError = uninstall(&env, &sys).unwrap_err().into();
    assert_eq!(err.code.as_str(), "unsupported");
}

#[test]
fn without_home_there_is_nowhere_to_install() {
    let tmp = Tmp::new();
    let exe = fake_app(&tmp.join("target/debug"), Os::Linux, "forkhost 1.0.0");
    let mut env = linux_env(&tmp, exe);
    env.home = None;
    let st = status(&env, &Fake::default());
    assert_eq!(st.kind, CliInstallKind::None);
    assert_eq!(codes(&st), ["no_home"]);
    assert_eq!(
        install(&env, &Fake::default(), false)
            .unwrap_err()
            .code()
            .as_str(),
        "unsupported"
    );
}

#[test]
fn another_forkhost_first_on_path_is_reported() {
    let tmp = Tmp::new();
    let exe = fake_app(&tmp.join("target/debug"), Os::Linux, "forkhost 1.0.0");
    let mut env = linux_env(&tmp, exe);
    fake_cli(&tmp.join("other/forkhost"), "forkhost 0.1.0");
    env.path = Some(
        format!(
            "{}:{}",
            tmp.join("other").display(),
            tmp.join("home/.local/bin").display()
        )
        .into(),
    );
    let st = install(&env, &Fake::default(), false).unwrap();
    assert_eq!(codes(&st), ["shadowed"]);
    assert!(st.warnings[0].message.contains("other/forkhost"));
}

#[test]
fn macos_links_usr_local_bin_and_asks_for_a_password_when_it_must() {
    let tmp = Tmp::new();
    let macos = tmp.join("Forkhost.app/Contents/MacOS");
    let exe = fake_app(&macos, Os::MacOs, "forkhost 1.0.0");
    let mut env = linux_env(&tmp, exe);
    env.os = Os::MacOs;
    env.path = Some(format!("{}:/usr/bin", tmp.join("usr/local/bin").display()).into());
    let link = tmp.join("usr/local/bin/forkhost");

    // Writable: a plain link, no prompt.
    let sys = Fake::default();
    let st = install(&env, &sys, false).unwrap();
    assert_eq!(std::fs::read_link(&link).unwrap(), macos.join("forkhost"));
    assert!(st.installed && st.warnings.is_empty() && sys.admin.borrow().is_empty());
    uninstall(&env, &sys).unwrap();

    // Not writable: the same link through the administrator shell.
    let sys = Fake {
        deny_direct: true,
        ..Fake::default()
    };
    let st = install(&env, &sys, false).unwrap();
    assert_eq!(std::fs::read_link(&link).unwrap(), macos.join("forkhost"));
    assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.0.0"));
    let st = uninstall(&env, &sys).unwrap();
    assert!(!st.installed && std::fs::symlink_metadata(&link).is_err());
    let admin = sys.admin.borrow();
    assert_eq!(admin.len(), 2);
    assert!(admin[0].starts_with("/bin/mkdir -p '"), "{}", admin[0]);
    assert!(admin[0].contains("&& /bin/ln -sfn '"), "{}", admin[0]);
    assert_eq!(admin[1], format!("/bin/rm -f '{}'", link.display()));
}

#[test]
fn osascript_gets_an_escaped_applescript_string() {
    let args =
        osascript_args(r#"/bin/ln -sfn '/Apps/My "Fork"\host.app' '/usr/local/bin/forkhost'"#);
    assert_eq!(args[0], "-e");
    assert_eq!(
        args[1],
        r#"do shell script "/bin/ln -sfn '/Apps/My \"Fork\"\\host.app' '/usr/local/bin/forkhost'" with administrator privileges"#
    );
    assert_eq!(sh_quote("it's"), r"'it'\''s'");
}

fn windows_env(tmp: &Tmp) -> (CliEnv, String) {
    let dir = tmp.join("Forkhost");
    let exe = fake_app(&dir, Os::Windows, "forkhost 1.0.0");
    let mut env = linux_env(tmp, exe);
    env.os = Os::Windows;
    env.path = Some(r"C:\Windows\system32;C:\Windows".into());
    (env, dir.display().to_string())
}

#[test]
fn windows_adds_the_app_folder_to_the_user_path_once_and_removes_only_it() {
    let tmp = Tmp::new();
    let (env, dir) = windows_env(&tmp);
    let sys = Fake::default();
    *sys.user_path.borrow_mut() = Some(r"%USERPROFILE%\bin;C:\Tools".into());

    let st = status(&env, &sys);
    assert_eq!(st.kind, CliInstallKind::UserPath);
    assert_eq!(st.target.as_deref(), Some(dir.as_str()));
    assert!(!st.installed && st.can_install);
    assert!(st.conflict.is_none() && st.warnings.is_empty());

    let st = install(&env, &sys, false).unwrap();
    assert_eq!(
        sys.user_path.borrow().as_deref(),
        Some(format!(r"%USERPROFILE%\bin;C:\Tools;{dir}").as_str())
    );
    assert!(st.installed && st.can_uninstall && !st.can_install);
    assert_eq!(
        st.installed_path.as_deref(),
        Some(format!("{dir}/forkhost.exe").as_str())
    );
    assert_eq!(st.installed_version.as_deref(), Some("forkhost 1.0.0"));
    assert_eq!(codes(&st), ["restart_terminals"]);
    // Not twice.
    install(&env, &sys, false).unwrap();
    assert_eq!(*sys.writes.borrow(), 1);

    let st = uninstall(&env, &sys).unwrap();
    assert_eq!(
        sys.user_path.borrow().as_deref(),
        Some(r"%USERPROFILE%\bin;C:\Tools")
    );
    assert!(!st.installed && st.warnings.is_empty());
    uninstall(&env, &sys).unwrap();
    assert_eq!(*sys.writes.borrow(), 2);
}

#[test]
fn windows_creates_and_deletes_a_missing_user_path() {
    let tmp = Tmp::new();
    let (env, dir) = windows_env(&tmp);
    let sys = Fake::default();
    install(&env, &sys, false).unwrap();
    assert_eq!(sys.user_path.borrow().as_deref(), Some(dir.as_str()));
    uninstall(&env, &sys).unwrap();
    assert_eq!(*sys.user_path.borrow(), None);
}

#[test]
fn windows_path_lists_compare_folders_loosely_and_keep_other_entries() {
    assert!(same_windows_dir(
        r"C:\Program Files\Forkhost\",
        r"c:\program files\forkhost"
    ));
    assert!(same_windows_dir(r#""C:\A""#, "C:/A"));
    assert!(!same_windows_dir("", ""));
    assert_eq!(windows_path_with(None, r"C:\F"), Some(r"C:\F".into()));
    assert_eq!(windows_path_with(Some(""), r"C:\F"), Some(r"C:\F".into()));
    assert_eq!(
        windows_path_with(Some(r"C:\A;"), r"C:\F"),
        Some(r"C:\A;C:\F".into())
    );
    assert_eq!(windows_path_with(Some(r"c:\f\;C:\A"), r"C:\F"), None);
    assert_eq!(
        windows_path_without(r"C:\A;;C:\F;%X%\b", r"c:\f"),
        Some(r"C:\A;;%X%\b".into())
    );
    assert_eq!(windows_path_without(r"C:\A", r"C:\F"), None);
}

#[test]
fn powershell_scripts_keep_the_path_expandable_and_broadcast_the_change() {
    let read = windows_read_path_script();
    assert!(read.contains("[Microsoft.Win32.Registry]::CurrentUser.OpenSubKey('Environment'"));
    assert!(read.contains("'DoNotExpandEnvironmentNames'"));
    assert_eq!(
        parse_read_path_output("\u{feff}=C:\\A;%X%\r\n"),
        Some(Some("C:\\A;%X%".into()))
    );
    assert_eq!(parse_read_path_output("-"), Some(None));
    assert_eq!(parse_read_path_output("="), Some(Some(String::new())));
    assert_eq!(parse_read_path_output("garbage"), None);

    let write = windows_write_path_script(Some("C:\\A"), Some("C:\\A;C:\\Bob's ‘x’"));
    assert!(write.contains("'DoNotExpandEnvironmentNames'"));
    assert!(write.contains("$expected = 'C:\\A'"));
    assert!(write.contains("if ($current -cne $expected) { exit 3 }"));
    assert!(write.contains(
        "$key.SetValue('Path', 'C:\\A;C:\\Bob''s ‘‘x’’', [Microsoft.Win32.RegistryValueKind]::ExpandString)"
    ));
    let set = write
        .find("SetEnvironmentVariable('FORKHOST_PATH_REFRESH', '1', 'User')")
        .unwrap();
    let unset = write
        .find("SetEnvironmentVariable('FORKHOST_PATH_REFRESH', $null, 'User')")
        .unwrap();
    assert!(set < unset);

    let delete = windows_write_path_script(None, None);
    assert!(delete.contains("$expected = $null"));
    assert!(delete.contains("$key.DeleteValue('Path', $false)"));
    assert!(!delete.contains("SetValue('Path'"));
}

#[test]
fn encoded_commands_are_utf16_base64() {
    // PowerShell's -EncodedCommand: base64 of UTF-16LE.
    assert_eq!(encode_powershell(""), "");
    assert_eq!(encode_powershell("a"), "YQA=");
    assert_eq!(encode_powershell("é"), "6QA=");
    assert_eq!(encode_powershell("ab"), "YQBiAA==");
}

#[test]
fn version_reports_a_failing_or_silent_cli() {
    let tmp = Tmp::new();
    let bad = tmp.join("bad");
    forkhost_test_script::write_executable(&bad, "#!/bin/sh\nexit 2\n").unwrap();
    assert!(run_version(&bad).unwrap_err().contains("exited"));
    let silent = tmp.join("silent");
    forkhost_test_script::write_executable(&silent, "#!/bin/sh\n").unwrap();
    assert_eq!(run_version(&silent).unwrap_err(), "it printed nothing");
    assert!(run_version(&tmp.join("missing")).is_err());
}

#[test]
fn status_serializes_in_snake_case() {
    let v = serde_json::to_value(CliInstallKind::UserPath).unwrap();
    assert_eq!(v, "user_path");
}
