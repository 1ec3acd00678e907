use std::path::Path;

fn main() {
    ensure_frontend_dist();
    tauri_build::build()
}

/// `tauri.conf.json` embeds `../ui/dist`, and the Tauri macros refuse to compile without it. So
/// that `cargo build/test/clippy --workspace` works in a fresh clone before the UI was built,
/// write a placeholder page that says how to build the real UI (`npm ci && npm run build`).
fn ensure_frontend_dist() {
    // Read at run time: a build script binary may be reused for a checkout elsewhere.
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR");
    let dist = Path::new(&manifest_dir).join("../ui/dist");
    let index = dist.join("index.html");
    println!("cargo:rerun-if-changed={}", index.display());
    if index.exists() {
        return;
    }
    println!(
        "cargo:warning=ui/dist is missing: embedding a placeholder page. Run `npm ci && npm run build` in the repository root, then rebuild."
    );
    std::fs::create_dir_all(&dist).expect("create ui/dist");
    std::fs::write(&index, PLACEHOLDER).expect("write ui/dist/index.html");
}

const PLACEHOLDER: &str = r#"<!doctype html>
<html lang="en">
  <head><meta charset="UTF-8" /><title>Forkhost</title></head>
  <body style="font-family: system-ui, sans-serif; padding: 2rem">
    <h1>Forkhost</h1>
    <p>The UI was not built. Run <code>npm ci &amp;&amp; npm run build</code> in the repository root and rebuild the app.</p>
  </body>
</html>
"#;
