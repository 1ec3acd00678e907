//! Runs the fake model server standalone, for manual runs of the harness CLIs.
//!
//! ```text
//! cargo run -p forkhost-tests --bin fake-model -- [--port N] [--log FILE] [--slow] [--quiet]
//!     [--env claude|codex|pi]
//! ```
//!
//! Prints `FAKE_MODEL_PORT=<port>` and `FAKE_MODEL_BASE_URL=http://127.0.0.1:<port>` on stdout,
//! then one line per request on stderr (unless `--quiet`), until Ctrl-C. With `--env H` it also
//! makes a temporary HOME configured for harness H against this server (removed at exit) and
//! prints its variables as `export` lines, plus `FAKE_MODEL_WORK_DIR`, a trusted work folder.

use forkhost_tests::fake_model::{FakeModel, FakeModelOptions};
use forkhost_tests::harness_env::{Harness, HarnessEnv};

fn usage() -> ! {
    eprintln!(
        "usage: fake-model [--port N] [--log FILE] [--slow] [--quiet] [--env claude|codex|pi]"
    );
    std::process::exit(2)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> anyhow::Result<()> {
    let mut opts = FakeModelOptions {
        verbose: true,
        ..FakeModelOptions::default()
    };
    let mut harness = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => {
                opts.port = args
                    .next()
                    .and_then(|p| p.parse().ok())
                    .unwrap_or_else(|| usage())
            }
            "--log" => opts.log_file = Some(args.next().unwrap_or_else(|| usage()).into()),
            "--slow" => opts.always_slow = true,
            "--quiet" => opts.verbose = false,
            "--env" => {
                harness = Some(match args.next().as_deref() {
                    Some("claude") => Harness::Claude,
                    Some("codex") => Harness::Codex,
                    Some("pi") => Harness::Pi,
                    _ => usage(),
                })
            }
            _ => usage(),
        }
    }
    let fake = FakeModel::start(opts).await?;
    println!("FAKE_MODEL_PORT={}", fake.port());
    println!("FAKE_MODEL_BASE_URL={}", fake.base_url());
    let env = match harness {
        Some(h) => Some(HarnessEnv::new(h, &fake.base_url())?),
        None => None,
    };
    if let Some(env) = &env {
        for (key, value) in env.vars() {
            println!("export {key}='{value}'");
        }
        println!("FAKE_MODEL_WORK_DIR={}", env.work_dir().display());
    }
    eprintln!(
        "fake-model: listening on {} (Anthropic: ANTHROPIC_BASE_URL={}; OpenAI: {}); Ctrl-C stops",
        fake.base_url(),
        fake.base_url(),
        fake.openai_base_url()
    );
    tokio::signal::ctrl_c().await?;
    Ok(())
}
