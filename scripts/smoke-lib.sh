# Shared by scripts/image-smoke.sh and scripts/compose-smoke.sh (sourced, not run): one PASS /
# FAIL / WARN line per check, remembered for the summary at the end.
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
