# Shared by scripts/image-smoke.sh and scripts/compose-smoke.sh (sourced, not run): one PASS /
# FAIL / WARN line per check, remembered for the summary at the end, and the exit path: the
# script defines `release` (remove what it started) and `summary` (its header, then
# print_results), and calls `on_exit_release_and_summarize` once they can run.
# shellcheck shell=bash

RESULTS=()   # "PASS|FAIL|WARN  what  (detail)"
FAILED=0
WARNED=0

log() { printf '\n== %s\n' "$*"; }
pass() { RESULTS+=("PASS  $1${2:+  ($2)}"); printf 'PASS  %s%s\n' "$1" "${2:+  ($2)}"; }
fail() { RESULTS+=("FAIL  $1${2:+  ($2)}"); printf 'FAIL  %s%s\n' "$1" "${2:+  ($2)}" >&2; FAILED=1; }
warn() { RESULTS+=("WARN  $1${2:+  ($2)}"); printf 'WARN  %s%s\n' "$1" "${2:+  ($2)}" >&2; WARNED=$((WARNED + 1)); }
die() { fail "$1" "${2:-}"; exit 1; }
check() {  # check NAME DETAIL CMD...: PASS when CMD succeeds
  local name="$1" detail="$2"; shift 2
  if "$@"; then pass "$name" "$detail"; else fail "$name" "$detail"; fi
}

print_results() {  # every check's line, then RESULT: PASS (n checks[, w warnings]) or FAIL
  local line
  for line in "${RESULTS[@]}"; do printf '%s\n' "$line"; done
  if [ "$FAILED" = 0 ] && [ "${#RESULTS[@]}" -gt 0 ]; then
    printf 'RESULT: PASS (%d checks%s)\n' "${#RESULTS[@]}" "$([ "$WARNED" = 0 ] || printf ', %d warnings' "$WARNED")"
  else
    printf 'RESULT: FAIL\n'
  fi
}

finish() {  # the EXIT trap: release even after a failure, summarize, exit 1 on any FAIL
  local rc=$?
  trap - EXIT INT TERM
  [ "$rc" != 0 ] && FAILED=1
  set +e
  release
  summary
  [ "$FAILED" = 0 ] || exit 1
  exit 0
}

on_exit_release_and_summarize() {
  trap finish EXIT
  trap 'exit 130' INT TERM
}

require_root() { [ "$(id -u)" = 0 ] || die "run as root" "$1"; }
