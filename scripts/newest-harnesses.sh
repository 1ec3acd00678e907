#!/usr/bin/env bash
# For maintainers: tries the newest published harness CLIs, to move the "newest verified" pins.
# Asks npm for the latest Claude Code, Codex and Pi, installs them as a scratch set
# (scripts/install-harnesses.sh --set scratch), runs the real-CLI suites against them
# (tests/tests/harness_{claude,codex,pi}.rs, harness_smoke.rs, cli_fork.rs), and prints the lines
# to put in scripts/harness-versions.env (and the matching NEWEST_VERIFIED in
# crates/harness/src/verified.rs; a unit test checks the two agree).
#
#   bash scripts/newest-harnesses.sh              latest of all three
#   bash scripts/newest-harnesses.sh --claude 2.1.400   a version of your choice for one
#   bash scripts/newest-harnesses.sh --no-test    only install and print
#
# A harness whose suites fail is not moved: its line keeps today's pin, and the script exits 1
# after printing what failed. Needs what scripts/test.sh needs (run scripts/setup.sh --tests).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$forkhost_root"

run_tests=1
declare -A chosen=()
while (($#)); do
  case "$1" in
    --no-test) run_tests=0 ;;
    --claude | --codex | --pi)
      chosen[${1#--}]="${2:?$1 needs a version}"
      shift
      ;;
    -h | --help)
      sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "newest-harnesses.sh: unknown argument: $1" >&2
      exit 2
      ;;
  esac
  shift
done

# shellcheck source=harness-versions.env
source scripts/harness-versions.env
declare -A package=([claude]=@anthropic-ai/claude-code [codex]=@openai/codex
  [pi]=@earendil-works/pi-coding-agent)
declare -A var=([claude]=CLAUDE_CODE [codex]=CODEX [pi]=PI_CODING_AGENT)
declare -A version=()
for h in claude codex pi; do
  if [[ -n "${chosen[$h]:-}" ]]; then
    version[$h]="${chosen[$h]}"
  else
    version[$h]="$(npm view "${package[$h]}" version)"
  fi
  pinned="${var[$h]}_NEWEST_VERSION"
  step "$h: trying ${version[$h]} (newest verified today: ${!pinned})"
done

eval "$(bash scripts/install-harnesses.sh --set scratch --claude "${version[claude]}" \
  --codex "${version[codex]}" --pi "${version[pi]}" --print-env)"
export FORKHOST_CLAUDE_BIN FORKHOST_CODEX_BIN FORKHOST_PI_BIN FORKHOST_OPENCODE_BIN FORKHOST_GEMINI_BIN
export FORKHOST_REQUIRE_HARNESSES=1

declare -A passed=()
failed=0
if ((run_tests)); then
  step "building the forkhost binary the CLI tests run"
  cargo build -p forkhost-cli
  for h in claude codex pi; do
    step "$h ${version[$h]}: its suite, and its tests in the shared suites"
    if cargo test -p forkhost-tests --test harness -- "${h}::" &&
      cargo test -p forkhost-tests --test harness --test cli -- --exact \
        $(layer_tests harness "^smoke::.*${h}_") $(layer_tests cli "^fork::.*${h}_"); then
      passed[$h]=1
    else
      echo "newest-harnesses: $h ${version[$h]} FAILED its suites" >&2
      failed=1
    fi
  done
else
  for h in claude codex pi; do passed[$h]=1; done
fi

step "lines for scripts/harness-versions.env (newest verified set)"
for h in claude codex pi; do
  pinned="${var[$h]}_NEWEST_VERSION"
  if [[ -n "${passed[$h]:-}" ]]; then
    echo "${var[$h]}_NEWEST_VERSION=${version[$h]}"
  else
    echo "${var[$h]}_NEWEST_VERSION=${!pinned}   # ${version[$h]} failed; kept"
  fi
done
((run_tests)) || echo "# (not tested: --no-test)"
exit "$failed"
