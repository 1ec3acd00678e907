# shellcheck shell=bash
# Sourced by scripts/test.sh: names its steps, times each, and ends the run with a table of them
# (how long each took, when it started, how busy the machine's cores were meanwhile) and a loud
# warning naming the slowest when the whole run took longer than its budget — so the suite's
# growth shows long before CI's 90-minute limit.
#
#   step NAME                 a step in the foreground, until the next `step` or the end
#   step_background NAME CMD… a step run beside the others, its output kept in a log until
#   step_wait NAME            waits for it, prints its log and fails the run if it failed
#   steps_table               the table (scripts/test.sh's EXIT trap prints it)
#
# FORKHOST_SUITE_BUDGET_MIN (default 45): the run's budget in minutes.

steps_dir="$forkhost_root/test-artifacts/steps"
rm -rf "$steps_dir"
mkdir -p "$steps_dir"
steps_tsv="$steps_dir/steps.tsv"
: >"$steps_tsv"
steps_started=$SECONDS
step_name=""
step_started=0
step_cpu=""
declare -A step_pids=() step_begun=() step_cpu_at=()

# Busy and total jiffies of all cores, from /proc/stat's first line ("" where there is none).
cpu_jiffies() {
  [[ -r /proc/stat ]] || return 0
  awk '/^cpu / { busy = $2 + $3 + $4 + $7 + $8 + $9; total = busy + $5 + $6; print busy, total; exit }' /proc/stat
}

# Cores busy on average since $1 (a cpu_jiffies reading): "1.4", or "?".
cores_busy_since() {
  local before="$1" now
  now="$(cpu_jiffies)"
  [[ -n "$before" && -n "$now" ]] || { echo "?"; return; }
  awk -v a="$before" -v b="$now" -v n="$(nproc)" 'BEGIN {
    split(a, x, " "); split(b, y, " "); dt = y[2] - x[2]
    if (dt <= 0) { print "?"; exit }
    printf "%.1f", (y[1] - x[1]) / dt * n }'
}

step_record() { # name start end status cores mode
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$steps_tsv"
}

step_close() {
  [[ -n "$step_name" ]] || return 0
  step_record "$step_name" "$((step_started - steps_started))" "$((SECONDS - steps_started))" \
    "${1:-ok}" "$(cores_busy_since "$step_cpu")" fg
  step_name=""
}

step() {
  step_close
  step_name="$*"
  step_started=$SECONDS
  step_cpu="$(cpu_jiffies)"
  printf '\n\033[1m== %s\033[0m  (at %s)\n' "$*" "$(mmss $((SECONDS - steps_started)))" >&2
}

step_background() {
  local name="$1"
  shift
  local log="$steps_dir/${name//[^A-Za-z0-9]/_}.log"
  printf '\n\033[1m== %s\033[0m  (at %s, beside the next steps; log: %s)\n' "$name" \
    "$(mmss $((SECONDS - steps_started)))" "${log#"$forkhost_root"/}" >&2
  step_begun[$name]=$SECONDS
  step_cpu_at[$name]="$(cpu_jiffies)"
  # Inside, `step` only prints (the scripts it calls name their own parts): the table is this
  # shell's alone. Job control on for the spawn: the step gets a process group of its own, so
  # that stopping it stops what it started too (a release build left running would write its
  # packages into the next run's).
  set -m
  (
    step_name=""
    step() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }
    "$@"
  ) >"$log" 2>&1 &
  step_pids[$name]=$!
  set +m
}

step_wait() {
  local name="$1" status=0
  local log="$steps_dir/${name//[^A-Za-z0-9]/_}.log"
  wait "${step_pids[$name]}" || status=$?
  printf '\n\033[1m== %s\033[0m  (finished beside the others, exit %s; its output:)\n' "$name" "$status" >&2
  cat "$log" >&2
  step_record "$name" "$((step_begun[$name] - steps_started))" "$((SECONDS - steps_started))" \
    "$( ((status)) && echo "FAILED ($status)" || echo ok)" "$(cores_busy_since "${step_cpu_at[$name]}")" bg
  unset "step_pids[$name]"
  return "$status"
}

mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }

# Prints the table; $1 is the run's exit status (a failed foreground step is marked so).
steps_table() {
  local status="${1:-0}" name
  if ((status)); then step_close "FAILED ($status)"; else step_close; fi
  for name in "${!step_pids[@]}"; do # a background step the run never waited for (it failed first)
    kill -- "-${step_pids[$name]}" 2>/dev/null || kill "${step_pids[$name]}" 2>/dev/null || true
    step_record "$name" "$((step_begun[$name] - steps_started))" "$((SECONDS - steps_started))" \
      "stopped" "?" bg
  done
  local total=$((SECONDS - steps_started))
  local budget_min="${FORKHOST_SUITE_BUDGET_MIN:-45}"
  {
    printf '\n\033[1m== the run, step by step\033[0m\n'
    printf '%-72s %7s %7s %7s  %s\n' "step" "start" "took" "cores" "outcome"
    sort -t$'\t' -k2,2n "$steps_tsv" | while IFS=$'\t' read -r name start end outcome cores mode; do
      [[ "$mode" == bg ]] && outcome="$outcome, beside"
      printf '%-72.72s %7s %7s %7s  %s\n' "$name" "$(mmss "$start")" "$(mmss $((end - start)))" "$cores" "$outcome"
    done
    printf '%-72s %7s %7s\n' "the whole run" "" "$(mmss "$total")"
    printf '(cores: how many of the machine'"'"'s %s cores were busy on average during the step, whatever ran them)\n' "$(nproc)"
  } | tee "$steps_dir/table.txt" >&2
  if ((total > budget_min * 60)); then
    {
      printf '\n\033[1;31m!! THE SUITE TOOK %s, OVER ITS %d-MINUTE BUDGET (CI stops at 90).\033[0m\n' "$(mmss "$total")" "$budget_min"
      printf '!! The slowest steps:\n'
      sort -t$'\t' -k7,7nr <(awk -F'\t' -v OFS='\t' '{ print $0, $3 - $2 }' "$steps_tsv") | head -n 3 |
        while IFS=$'\t' read -r name start end _ _ _ took; do
          printf '!!   %s  %s\n' "$(mmss "$took")" "$name"
        done
      printf '!! Make room (tests/README.md, "The suite'"'"'s budget") before adding to it.\n'
    } >&2
  fi
}
