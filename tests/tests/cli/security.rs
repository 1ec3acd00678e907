//! Issue 39's two findings "by running the product as a user would", through the `forkhost`
//! CLI with the real Codex CLI and the fake model: "Don't trust" still runs Codex in a folder
//! Codex itself does not trust, whose `.codex/config.toml` defines an MCP server (which never
//! starts); and after `forkhost mode T never` on a thread created with `danger-full-access`,
//! `show --json` names the sandbox that runs (config.toml's), never null, as the model is told.

use std::path::Path;

use forkhost_tests::cli::{with_cli, Cli};
use forkhost_tests::fake_model::{FakeModel, FakeModelOptions, Role};
use forkhost_tests::harness_env::{Harness, HarnessEnv};
use serde_json::Value;

/// [`with_cli`], also handing `body` the fake model (to see what the harness sent it).
fn with_cli_and_model(harness: Harness, body: impl FnOnce(&Cli, &FakeModel)) {
    let model = FakeModel::start_blocking(FakeModelOptions::default()).unwrap();
    let Some(env) = HarnessEnv::for_fake(harness, &model).unwrap() else {
        return;
    };
    let data = tempfile::tempdir().unwrap();
    let cli = Cli {
        env: &env,
        data: data.path(),
    };
    body(&cli, &model);
}

fn id(json: &Value) -> String {
    json["thread"]["id"].as_str().unwrap().to_owned()
}

/// A project `.codex/config.toml` in `dir` whose MCP server `helper` only touches `marker`.
fn codex_marker_server(dir: &Path, marker: &Path) {
    std::fs::create_dir_all(dir.join(".codex")).unwrap();
    std::fs::write(
        dir.join(".codex/config.toml"),
        format!(
            "[mcp_servers.helper]\ncommand = \"sh\"\nargs = [\"-c\", \"touch '{}'\"]\n",
            marker.display()
        ),
    )
    .unwrap();
}

/// `forkhost new --harness codex --cwd DIR --trust T --approve none PROMPT`: must succeed, and
/// the fake model must have received PROMPT.
fn new_codex_turn(cli: &Cli, model: &FakeModel, dir: &Path, trust: &str, prompt: &str) -> Value {
    let cwd = dir.to_str().unwrap();
    let created = cli.ok(&[
        "new",
        "--harness",
        "codex",
        "--cwd",
        cwd,
        "--trust",
        trust,
        "--approve",
        "none",
        prompt,
    ]);
    let asked = model.last_model_request().expect("the model was called");
    assert_eq!(asked.last_user_text(), Some(prompt), "{created}");
    created
}

/// Extra item 1 of issue 39: in a folder Codex's own `config.toml` does not trust, the
/// disabling override alone made a server entry with no transport and Codex ended
/// `harness_failed` ("invalid transport in mcp_servers.helper"). The turn must complete, and
/// the project server never start: neither there nor in a folder Codex does trust (where Codex
/// loads the project layer, so the server would start without the override, as the `--trust
/// yes` control shows).
#[test]
fn codex_dont_trust_runs_where_codex_does_not_trust_and_the_project_server_never_starts() {
    with_cli_and_model(Harness::Codex, |cli, model| {
        // Not under the work folder, which the harness env trusts in Codex's config.toml.
        let untrusted = cli.env.root().join("not-trusted-by-codex");
        let marker = cli.env.root().join("untrusted-server-ran");
        codex_marker_server(&untrusted, &marker);
        new_codex_turn(cli, model, &untrusted, "no", "hello");
        assert!(!marker.exists(), "the project server started untrusted");

        let work = cli.env.work_dir();
        let marker = cli.env.root().join("trusted-server-ran");
        codex_marker_server(work, &marker);
        new_codex_turn(cli, model, work, "no", "hello");
        assert!(
            !marker.exists(),
            "--trust no: the project server started where Codex trusts the folder"
        );
        new_codex_turn(cli, model, work, "yes", "again");
        assert!(
            marker.exists(),
            "the control: trusted, the project server starts"
        );
    });
}

/// Extra item 2 of issue 39: `mode T never` leaves the sandbox word out, so the thread runs
/// config.toml's sandbox (here `read-only`); `show --json` and `mode`'s own answer name it,
/// marked as the default, never null, and the model is told the same sandbox, not full access.
#[test]
fn codex_show_names_the_default_sandbox_after_mode_never() {
    with_cli_and_model(Harness::Codex, |cli, model| {
        let config = cli.env.home().join(".codex/config.toml");
        let text = std::fs::read_to_string(&config).unwrap();
        let full = "sandbox_mode = \"danger-full-access\"";
        assert!(text.contains(full), "{text}");
        std::fs::write(&config, text.replace(full, "sandbox_mode = \"read-only\"")).unwrap();

        let cwd = cli.env.work_dir().to_str().unwrap().to_owned();
        let created = cli.ok(&[
            "new",
            "--harness",
            "codex",
            "--cwd",
            &cwd,
            "--mode",
            "never",
            "--sandbox",
            "danger-full-access",
            "first",
        ]);
        let thread = id(&created);
        let told = sandbox_told(model);
        assert!(
            told.contains("danger-full-access"),
            "the chosen sandbox reached the model: {told}"
        );

        let changed = cli.ok(&["mode", &thread, "never"]);
        let permissions = &changed["thread"]["permissions"];
        assert_eq!(permissions["sandbox"], "read-only", "{changed}");
        assert_eq!(permissions["sandbox_default"], true, "{changed}");
        let shown = cli.ok(&["show", &thread]);
        let permissions = &shown["thread"]["permissions"];
        assert_eq!(
            (&permissions["mode"], &permissions["sandbox"]),
            (&Value::from("never"), &Value::from("read-only")),
            "{shown}"
        );
        assert_eq!(permissions["sandbox_default"], true, "{shown}");

        cli.ok(&["send", &thread, "--approve", "none", "second"]);
        let told = sandbox_told(model);
        assert!(
            told.contains("read-only") && !told.contains("danger-full-access"),
            "show says read-only; the model was told: {told}"
        );
    });
}

/// What the model's last request says about the sandbox: the newest system (developer) text
/// naming `sandbox_mode` (Codex adds one when the sandbox changes; the older stays above it).
fn sandbox_told(model: &FakeModel) -> String {
    let asked = model.last_model_request().expect("the model was called");
    asked
        .history
        .iter()
        .rev()
        .filter(|m| m.role == Role::System)
        .find_map(|m| m.text.lines().find(|l| l.contains("`sandbox_mode` is")))
        .unwrap_or_else(|| panic!("no sandbox named in {:?}", asked.history))
        .to_owned()
}

/// Review M-4: a session file whose id would read as an option after `--resume`/`resume` (in
/// the terminal tab's command line) is refused at import (`invalid_input`), so no thread holds
/// it and no terminal command is ever built from it; the hook its `--settings=…` id carries
/// never runs. `harness`'s real session of one turn is copied with its id replaced by `crafted`
/// (in the file's name and text, where each harness reads it). The control: the same copy
/// under another uuid imports.
fn an_option_shaped_session_id_is_refused_at_import(harness: Harness, crafted: &str) {
    with_cli(harness, |cli| {
        let work = cli.env.work_dir();
        let cwd = work.to_str().unwrap().to_owned();
        let created = cli.ok(&[
            "new",
            "--harness",
            harness.name(),
            "--cwd",
            &cwd,
            "--approve",
            "none",
            "hello",
        ]);
        let native = &created["thread"]["native"];
        let real_id = native["session_id"].as_str().unwrap();
        let real_path = Path::new(native["path"].as_str().unwrap());
        let text = std::fs::read_to_string(real_path).unwrap();
        assert!(text.contains(real_id), "the id is in the file's text");
        let name = real_path.file_name().unwrap().to_str().unwrap();
        assert!(name.contains(real_id), "the id is in the file's name");
        let copy_as = |id: &str| {
            let copies = work.join(format!("copy-{}", id.len()));
            std::fs::create_dir_all(&copies).unwrap();
            let copy = copies.join(name.replace(real_id, id));
            // In the text the id sits inside JSON strings.
            let escaped = serde_json::to_string(id).unwrap();
            let escaped = &escaped[1..escaped.len() - 1];
            std::fs::write(&copy, text.replace(real_id, escaped)).unwrap();
            copy.to_str().unwrap().to_owned()
        };
        let import = |path: &str| cli.run(&["import", harness.name(), path, "--trust", "no"]);

        let (ok, refused, _) = import(&copy_as(crafted));
        assert!(!ok, "imported: {refused}");
        assert_eq!(refused["error"]["code"], "invalid_input", "{refused}");
        let threads = cli.ok(&["threads"]).to_string();
        assert!(!threads.contains(crafted), "imported anyway: {threads}");
        assert!(!cli.env.home().join("fh-hook").exists());
        assert!(!work.join("fh-hook").exists());

        let other = "00000000-0000-4000-8000-000000000039";
        let (ok, imported, stderr) = import(&copy_as(other));
        assert!(
            ok,
            "the control copy was not imported: {imported}\n{stderr}"
        );
        assert_eq!(imported["thread"]["native"]["session_id"], other);
    });
}

#[test]
fn claude_a_settings_option_as_session_id_is_refused_at_import() {
    an_option_shaped_session_id_is_refused_at_import(
        Harness::Claude,
        r#"--settings={"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch fh-hook"}]}]}}"#,
    );
}

#[test]
fn codex_a_bypass_option_as_session_id_is_refused_at_import() {
    an_option_shaped_session_id_is_refused_at_import(
        Harness::Codex,
        "--dangerously-bypass-approvals-and-sandbox",
    );
}

/// Review M-6: a filter driver the opened repository's own `.git/config` defines never runs
/// at Forkhost's checkpoints (a turn in a git folder takes one), trusted or not; the control,
/// the same driver in the user's global config (the test HOME's `.gitconfig`), does.
#[test]
fn pi_a_repositorys_own_filter_driver_never_runs() {
    with_cli(Harness::Pi, |cli| {
        let work = cli.env.work_dir();
        let cwd = work.to_str().unwrap().to_owned();
        let git = |args: &[&str]| {
            let out = std::process::Command::new("git")
                .current_dir(work)
                .env("HOME", cli.env.home())
                .env_remove("GIT_CONFIG_GLOBAL")
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .args(["-c", "user.name=Test", "-c", "user.email=test@localhost"])
                .args(args)
                .output()
                .unwrap();
            assert!(out.status.success(), "git {args:?}: {out:?}");
        };
        git(&["init", "-q"]);
        std::fs::write(work.join(".gitattributes"), "*.txt filter=x\n").unwrap();
        git(&["add", "-A"]);
        git(&["commit", "-q", "-m", "attributes"]);
        let marker = cli.env.root().join("fh-filter");
        let driver = format!("sh -c \"touch '{}'; cat\"", marker.display());
        git(&["config", "filter.x.clean", &driver]);
        git(&["config", "filter.x.smudge", &driver]);
        std::fs::write(work.join("a.txt"), "one\n").unwrap();

        let new = |prompt: &str| {
            cli.ok(&[
                "new",
                "--harness",
                "pi",
                "--cwd",
                &cwd,
                "--trust",
                "no",
                "--approve",
                "none",
                prompt,
            ])
        };
        new("hello");
        assert!(!marker.exists(), "the repository's own filter ran");

        // The control needs the global config to be the test HOME's (forkhost inherits ours).
        if std::env::var_os("GIT_CONFIG_GLOBAL").is_some() {
            return;
        }
        // Forkhost empties every driver the repository's config names, so the control moves it.
        git(&["config", "--remove-section", "filter.x"]);
        git(&["config", "--global", "filter.x.clean", &driver]);
        std::fs::write(work.join("a.txt"), "two\n").unwrap();
        new("again");
        assert!(marker.exists(), "the control: a global filter runs");
    });
}
