#!/usr/bin/env bash
# The Windows and macOS lab, part 2: the Windows `forkhost.exe`, cross-built here, run under Wine.
#
#   1. `forkhost.exe --version`;
#   2. `forkhost.exe doctor --json` with fake harnesses on the Windows PATH (WINEPATH), the way
#      npm and the native installers put them there: Claude as npm's trio `claude` (sh script)
#      + `claude.cmd` + `claude.ps1` → found as `claude.cmd`; Codex as `codex.exe` (the real
#      Windows build from npm) → found; Pi as an extensionless sh shim alone → refused, with a
#      message;
#   3. unless FORKHOST_WINE_THREAD=0: a new Codex thread with one prompt and a fork of it, run by
#      forkhost.exe with the Windows codex.exe against the fake model server (a temporary
#      CODEX_HOME; nothing of the real ~/.codex is read).
#
# Wine 8.0 (Debian's `wine64`) lacks bcryptprimitives.dll, which every Rust program imports for
# ProcessPrng: a test-only stand-in (scripts/wine/bcryptprimitives.c) is put into the prefix.
# The build (scripts/cross-check.sh's environment), the prefix, the stand-in and the npm
# package of Codex are cached under $FORKHOST_CACHE. What Wine cannot run: docs/windows-macos-lab.md.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"

target=x86_64-pc-windows-gnu
codex_version="${FORKHOST_WINE_CODEX_VERSION:-0.171.0}"
cache="$FORKHOST_CACHE/wine"
prefix="$cache/prefix"
exe="$FORKHOST_CACHE/cross/target/$target/debug/forkhost.exe"
wine64=/usr/lib/wine/wine64
wineserver=/usr/lib/wine/wineserver

log() { printf '[wine-smoke] %s\n' "$*" >&2; }
die() {
  log "FAILED: $*"
  exit 1
}
started=$SECONDS


apt_install_missing wine64 wine gcc-mingw-w64-x86-64 python3
[[ -x "$wine64" ]] || die "no $wine64 after installing wine64"
[[ -x "$wineserver" ]] || wineserver=/usr/lib/wine/wineserver64
[[ -x "$wineserver" ]] || die "no wineserver in /usr/lib/wine"

step "Wine smoke: cross-build forkhost.exe ($target)"
bash scripts/cross-check.sh cargo "$target" build -p forkhost-cli --bin forkhost ||
  die "cross-building forkhost.exe"
[[ -f "$exe" ]] || die "the build gave no $exe"

# Linux path → the Windows path Wine shows for it (drive Z: is /).
winpath() { printf 'Z:%s' "${1//\//\\}"; }

# Runs a Windows program under Wine with a clean environment: no Linux harness variables
# (FORKHOST_*_BIN), no real HOME config; extra VAR=value arguments come first.
run_wine() {
  local vars=()
  while (($#)) && [[ "$1" != -- ]]; do
    vars+=("$1")
    shift
  done
  shift
  env -i HOME="$HOME" PATH=/usr/bin:/bin LANG=C.UTF-8 \
    WINEPREFIX="$prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml=" \
    "${vars[@]}" "$wine64" "$@"
}

# Wine 8 itself crashes now and then while a process that ran child processes exits (the wine64
# loader gets SIGSEGV, exit 139, after the program has printed its whole answer; 1 in ~10 CI runs).
# A crash of forkhost.exe's own code would be an unhandled exception inside Wine, not a SIGSEGV
# of the loader. So exit 139 is accepted only when the answer is complete JSON, with a warning;
# the next steps read the store and prove the work was saved.
wine_json_ok() {
  local rc=$1 out=$2 what=$3
  [[ $rc == 139 ]] || return 1
  python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$out" 2>/dev/null ||
    return 1
  log "warning: Wine crashed (SIGSEGV) as $what exited, after a complete answer; going on"
}

step "Wine smoke: the prefix ($prefix) and the bcryptprimitives.dll stand-in"
mkdir -p "$cache"
if [[ ! -f "$prefix/system.reg" ]]; then
  rm -rf "$prefix"
  run_wine -- wineboot --init >/dev/null 2>&1 || die "wineboot --init in $prefix"
  # The registry (system.reg) is written when the wineserver exits.
  env -i PATH=/usr/bin:/bin WINEPREFIX="$prefix" "$wineserver" -w
  [[ -f "$prefix/system.reg" ]] || die "wineboot --init made no registry in $prefix"
fi
dll="$cache/bcryptprimitives.dll"
if [[ ! -f "$dll" || scripts/wine/bcryptprimitives.c -nt "$dll" ]]; then
  x86_64-w64-mingw32-gcc -shared -O2 -Wall -Werror -o "$dll" scripts/wine/bcryptprimitives.c \
    -Wl,--kill-at -ladvapi32 || die "building the bcryptprimitives.dll stand-in"
fi
cp "$dll" "$prefix/drive_c/windows/system32/bcryptprimitives.dll"

codex_dir="$cache/codex-$codex_version-win32-x64"
if [[ ! -d "$codex_dir/package" ]]; then
  step "Wine smoke: the Windows build of Codex $codex_version from npm"
  rm -rf "$codex_dir" "$codex_dir.tmp"
  mkdir -p "$codex_dir.tmp"
  (cd "$codex_dir.tmp" && npm pack --silent "@openai/codex@$codex_version-win32-x64" >/dev/null &&
    tar xzf ./*.tgz && rm -f ./*.tgz) || die "npm pack @openai/codex@$codex_version-win32-x64"
  mv "$codex_dir.tmp" "$codex_dir"
fi
codex_exe="$(find "$codex_dir/package" -name codex.exe -path '*x86_64-pc-windows-msvc*' -print -quit)"
[[ -n "$codex_exe" ]] || die "no codex.exe in the npm package (looked under $codex_dir/package)"

tmp="$(mktemp -d -t forkhost-wine.XXXXXX)"
fake_pid=""
cleanup() {
  [[ -n "$fake_pid" ]] && kill "$fake_pid" 2>/dev/null
  # Ends what is left in this prefix only (a wineserver lingers a few seconds by default).
  env -i PATH=/usr/bin:/bin WINEPREFIX="$prefix" "$wineserver" -k 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

step "Wine smoke: forkhost.exe --version"
version_out="$(run_wine -- "$exe" --version)" || die "forkhost.exe --version exited with $?"
[[ "$version_out" =~ ^forkhost\ [0-9]+\.[0-9]+\.[0-9]+ ]] ||
  die "forkhost.exe --version printed '$version_out'"
log "ok: $version_out"

step "Wine smoke: doctor --json finds claude.cmd and codex.exe on the Windows PATH, refuses the pi sh shim"
bin="$tmp/bin"
mkdir -p "$bin"
# npm's trio for a global install on Windows: an sh script, a .cmd and a .ps1.
printf '#!/bin/sh\necho "2.1.332 (Claude Code)"\n' >"$bin/claude"
printf '@echo 2.1.332 (Claude Code)\r\n' >"$bin/claude.cmd"
printf 'Write-Output "2.1.332 (Claude Code)"\r\n' >"$bin/claude.ps1"
ln -s "$codex_exe" "$bin/codex.exe"
# Only the sh shim: it cannot start on Windows, so it must not be chosen.
# shellcheck disable=SC2016 # the shim's own $0 and $@, as npm writes them
printf '#!/bin/sh\nexec node "$(dirname "$0")/node_modules/pi/dist/cli.js" "$@"\n' >"$bin/pi"
chmod +x "$bin/claude" "$bin/pi"
doctor_json="$tmp/doctor.json"
run_wine WINEPATH="$(winpath "$bin")" FORKHOST_DATA_DIR="$(winpath "$tmp/data-doctor")" -- \
  "$exe" doctor --json >"$doctor_json" || die "forkhost.exe doctor --json exited with $?"
python3 - "$doctor_json" "$codex_version" <<'PY' || die "doctor --json under Wine (its output is above)"
import json, sys

text = open(sys.argv[1], encoding="utf-8").read()
print(text, file=sys.stderr)
found = {h["name"]: h for h in json.loads(text)["harnesses"]}
failures = []


def expect_found(name, file_name, version):
    h = found.get(name) or {}
    path = h.get("path") or ""
    if not path.lower().endswith("\\" + file_name):
        failures.append(f"{name}: expected {file_name} on the Windows PATH, got path={path!r} error={h.get('error')!r}")
    elif h.get("version") != version:
        failures.append(f"{name}: found {path} but version={h.get('version')!r} (expected {version}), error={h.get('error')!r}")


expect_found("claude", "claude.cmd", "2.1.332")
expect_found("codex", "codex.exe", sys.argv[2] if len(sys.argv) > 2 else "0.171.0")
pi = found.get("pi") or {}
if pi.get("version") is not None or (pi.get("path") or "").lower().endswith("\\pi"):
    failures.append(f"pi: the extensionless sh shim was used: {pi!r}")
if not (pi.get("error") or "").strip():
    failures.append(f"pi: refused without a message: {pi!r}")
for failure in failures:
    print(f"[wine-smoke] {failure}", file=sys.stderr)
sys.exit(1 if failures else 0)
PY
log "ok: claude.cmd and codex.exe found, the pi shim refused"

if [[ "${FORKHOST_WINE_THREAD:-1}" == 1 ]]; then
  step "Wine smoke: a Codex thread and a fork by forkhost.exe with the Windows codex.exe, against the fake model"
  # The fake model runs natively; Codex under Wine reaches it on 127.0.0.1.
  cargo build --quiet -p forkhost-tests --bin fake-model || die "building the fake model"
  "$CARGO_TARGET_DIR/debug/fake-model" --quiet --log "$tmp/fake-model.log" >"$tmp/fake-model.out" 2>&1 &
  fake_pid=$!
  for _ in $(seq 100); do
    grep -q '^FAKE_MODEL_BASE_URL=' "$tmp/fake-model.out" 2>/dev/null && break
    kill -0 "$fake_pid" 2>/dev/null || die "the fake model exited: $(cat "$tmp/fake-model.out")"
    sleep 0.1
  done
  base_url="$(sed -n 's/^FAKE_MODEL_BASE_URL=//p' "$tmp/fake-model.out")"
  [[ -n "$base_url" ]] || die "the fake model printed no FAKE_MODEL_BASE_URL"

  # Codex's configuration as tests/src/harness_env.rs writes it, with Windows paths.
  codex_home="$tmp/home/.codex"
  work="$tmp/work"
  mkdir -p "$codex_home" "$work"
  cat >"$codex_home/config.toml" <<EOF
model = "fake-model"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "Forkhost fake model"
base_url = "$base_url/v1"
wire_api = "responses"
env_key = "FORKHOST_FAKE_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[projects.'$(winpath "$work")']
trust_level = "trusted"
EOF
  # Codex writes its installation id under a whole-file lock, and then the write fails under Wine
  # ("Lock violation", os error 33): an id that is already there is only read.
  python3 -c 'import uuid; print(uuid.uuid4(), end="")' >"$codex_home/installation_id"
  thread_env=(
    WINEPATH="$(winpath "$(dirname "$codex_exe")")"
    FORKHOST_DATA_DIR="$(winpath "$tmp/data")"
    CODEX_HOME="$(winpath "$codex_home")"
    FORKHOST_FAKE_API_KEY=dummy
    NO_COLOR=1
  )
  run_wine "${thread_env[@]}" -- "$exe" --json new --harness codex --cwd "$(winpath "$work")" \
    "Say hello from Wine" >"$tmp/new.json" 2>"$tmp/new.err" || wine_json_ok $? "$tmp/new.json" "forkhost.exe new" || {
    cat "$tmp/new.json" "$tmp/new.err" >&2
    die "forkhost.exe new --harness codex under Wine"
  }
  thread_id="$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); t = d.get("thread", d); print(t["id"])' "$tmp/new.json")" || {
    cat "$tmp/new.json" >&2
    die "no thread id in the output of forkhost.exe new"
  }
  run_wine "${thread_env[@]}" -- "$exe" --json fork "$thread_id" --after 1 >"$tmp/fork.json" 2>"$tmp/fork.err" || wine_json_ok $? "$tmp/fork.json" "forkhost.exe fork" || {
    cat "$tmp/fork.json" "$tmp/fork.err" >&2
    die "forkhost.exe fork $thread_id --after 1 under Wine"
  }
  fork_id="$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["thread"]["id"])' "$tmp/fork.json")" || {
    cat "$tmp/fork.json" >&2
    die "no thread id in the output of forkhost.exe fork"
  }
  run_wine "${thread_env[@]}" -- "$exe" --json show "$fork_id" >"$tmp/show.json" 2>"$tmp/show.err" || wine_json_ok $? "$tmp/show.json" "forkhost.exe show" || {
    cat "$tmp/show.json" "$tmp/show.err" >&2
    die "forkhost.exe show $fork_id under Wine"
  }
  python3 - "$tmp/new.json" "$tmp/show.json" "$thread_id" <<'PY' || die "the thread and its fork under Wine"
import json, sys

source = json.load(open(sys.argv[1], encoding="utf-8"))["thread"]
fork = json.load(open(sys.argv[2], encoding="utf-8"))["thread"]
failures = []
if len(source.get("turns", [])) != 1 or not source["turns"][0].get("messages"):
    failures.append(f"the new thread has no turn with messages: {json.dumps(source)[:1500]}")
if fork.get("id") == sys.argv[3] or (fork.get("fork") or {}).get("source_thread") != sys.argv[3]:
    failures.append(f"the fork is not a child of {sys.argv[3]}: {json.dumps(fork)[:1500]}")
if len(fork.get("turns", [])) != 1 or not fork["turns"][0].get("messages"):
    failures.append(f"the fork does not show the source's turn: {json.dumps(fork)[:1500]}")
for failure in failures:
    print(f"[wine-smoke] {failure}", file=sys.stderr)
sys.exit(1 if failures else 0)
PY
  log "ok: thread $thread_id and its fork, by Codex under Wine"
fi

step "Wine smoke: the process layer's Windows tests (kill-on-close job, suspended start, exit codes)"
# Only process::: the rest of the harness unit tests hold Unix expectations where they touch
# the file system (modes, /usr/bin), and their pure Windows inputs run on Linux already.
tests_exe="$(bash scripts/cross-check.sh cargo "$target" test -p forkhost-harness --lib --no-run \
  --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    msg = json.loads(line) if line.startswith("{") else {}
    if msg.get("profile", {}).get("test") and msg.get("executable"):
        print(msg["executable"])
')" || die "cross-building the harness unit tests for $target"
[[ -f "$tests_exe" ]] || die "no harness test executable for $target"
run_wine -- "$tests_exe" process:: >"$tmp/process-tests.log" 2>&1 || {
  cat "$tmp/process-tests.log" >&2
  die "the process layer's Windows tests failed under Wine"
}
log "ok: $(grep -E '^test result' "$tmp/process-tests.log")"

log "all Wine checks passed in $((SECONDS - started)) s"
