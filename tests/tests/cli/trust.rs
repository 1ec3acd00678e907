//! Folder trust through the `forkhost` CLI (Claude against the fake model): `--trust no` takes
//! effect on a folder trusted before (its project MCP server does not start, judged by the
//! marker file its command would write), and `forkhost trust` lists, sets and revokes
//! decisions.

use forkhost_tests::cli::with_cli;
use forkhost_tests::harness_env::Harness;

#[test]
fn trust_no_holds_back_a_trusted_folder_and_decisions_are_listed_and_revoked() {
    with_cli(Harness::Claude, |cli| {
        let work = cli.env.work_dir();
        let cwd = work.to_str().unwrap().to_owned();
        std::fs::create_dir_all(work.join(".claude")).unwrap();
        std::fs::write(work.join(".claude/settings.json"), "{}").unwrap();
        let trusted = cli.ok(&["trust", &cwd, "yes"]);
        assert_eq!(trusted["trust"]["trusted"], true);

        let marker = work.join("server-ran");
        let mcp = serde_json::json!({"mcpServers": {"helper": {"command": "sh",
            "args": ["-c", format!("touch '{}'", marker.display())]}}});
        std::fs::write(work.join(".mcp.json"), mcp.to_string()).unwrap();
        // New config in a trusted folder: asked again (no terminal here: refused in words).
        let refused = cli.err(&["new", "--harness", "claude", "--cwd", &cwd]);
        assert_eq!(refused["code"], "invalid_input");
        assert!(
            refused["message"].as_str().unwrap().contains(".mcp.json"),
            "{refused}"
        );

        cli.ok(&[
            "new",
            "--harness",
            "claude",
            "--cwd",
            &cwd,
            "--trust",
            "no",
            "--approve",
            "none",
            "hello",
        ]);
        assert!(
            !marker.exists(),
            "--trust no on a trusted folder did not take effect"
        );
        let shown = cli.ok(&["trust", &cwd]);
        assert_eq!(shown["trust"]["trusted"], false);

        let listed = cli.ok(&["trust"]);
        assert_eq!(listed["folders"][0]["folder"], cwd.as_str());
        assert_eq!(listed["folders"][0]["trusted"], false);
        cli.ok(&["trust", "--revoke", &cwd]);
        assert_eq!(cli.ok(&["trust"])["folders"], serde_json::json!([]));
        assert_eq!(cli.err_code(&["trust", "--revoke", &cwd]), "invalid_input");
    });
}
