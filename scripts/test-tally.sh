#!/usr/bin/env bash
# Prints how many of the tests that need an outside binary ran for real, one line per group,
# from the lines the tests appended to the tally file (tests/src/need.rs writes them:
# `group<TAB>ran|skipped<TAB>binary::test`). A test that skipped on any of its needs counts as
# skipped; a test recorded twice (a test that re-runs itself in a child) counts once.
#
#   scripts/test-tally.sh FILE             print the line
#   scripts/test-tally.sh --require FILE   and fail when a group skipped any test or ran none
#                                          (a group that ran none was never invoked at all)
set -euo pipefail
require=0
[[ "${1:-}" == "--require" ]] && { require=1; shift; }
tally="${1:?usage: test-tally.sh [--require] FILE}"
[[ -f "$tally" ]] || : >"$tally"
awk -F'\t' -v require="$require" '
  { key = $1 SUBSEP $3; seen[key] = 1; if ($2 == "skipped") skip[key] = 1 }
  END {
    split("harness app package remote", order, " ")
    label["harness"] = "real harness tests"
    label["app"] = "app over WebDriver"
    label["package"] = "packaged .deb"
    label["remote"] = "remote hosts over sshd"
    for (i = 1; i <= 4; i++) {
      g = order[i]; ran = 0; skipped = 0
      for (k in seen) {
        split(k, part, SUBSEP)
        if (part[1] != g) continue
        if (k in skip) skipped++; else ran++
      }
      printf "%s: %d ran, %d skipped\n", label[g], ran, skipped
      if (require && (skipped > 0 || ran == 0)) bad = bad (bad == "" ? " " : ", ") label[g]
    }
    if (bad != "") { print "not every group ran for real:" bad > "/dev/stderr"; exit 1 }
  }' "$tally"
