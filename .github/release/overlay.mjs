// Writes the one Tauri config overlay a release build passes as `tauri build --config FILE`.
// Tauri merges it (JSON merge patch) over src-tauri/tauri.conf.json and the platform file
// (tauri.linux/macos/windows.conf.json). It holds only what a release adds to a local build:
//
//   - tauri.release.conf.json      bundle.createUpdaterArtifacts (needs the signing key)
//   - tauri.cli-sidecar.conf.json  bundle.externalBin: the `forkhost` CLI inside the macOS app
//                                  and beside the Windows exe (when SIDECAR=true; on Linux the
//                                  platform file's deb/rpm/appimage `files` place it instead)
//   - TAURI_UPDATER_PUBKEY         plugins.updater.pubkey, when the repository variable is set
//   - WINDOWS_CERTIFICATE_THUMBPRINT  bundle.windows.certificateThumbprint, when a certificate
//                                  was imported
//
// Usage: node .github/release/overlay.mjs OUT.json   (run from the repository root)
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error("usage: node .github/release/overlay.mjs OUT.json");
  process.exit(2);
}

const read = (name) => {
  const value = JSON.parse(readFileSync(join(here, name), "utf8"));
  delete value.$schema;
  return value;
};

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const merge = (base, patch) => {
  const result = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    result[key] = isObject(value) && isObject(base[key]) ? merge(base[key], value) : value;
  }
  return result;
};

let overlay = read("tauri.release.conf.json");
if (process.env.SIDECAR === "true") {
  overlay = merge(overlay, read("tauri.cli-sidecar.conf.json"));
}
const pubkey = (process.env.TAURI_UPDATER_PUBKEY || "").trim();
if (pubkey) {
  overlay = merge(overlay, { plugins: { updater: { pubkey } } });
}
const thumbprint = (process.env.WINDOWS_CERTIFICATE_THUMBPRINT || "").trim();
if (thumbprint) {
  overlay = merge(overlay, { bundle: { windows: { certificateThumbprint: thumbprint } } });
}

mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(overlay, null, 2) + "\n");
// The public key is not secret; print the overlay for the log.
console.log(`${out}:\n${JSON.stringify(overlay, null, 2)}`);
