#!/usr/bin/env bash
# Runs the Catch2 binary and closes with the plain 'N passed, N failed' line (test
# cases), which CI reads whatever the runner; the exit status is Catch2's own.
set -u
bin=$1; shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$bin" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
summary=$(grep -E '^(All tests passed|test cases:)' "$log" | tail -n 1)
if [[ $summary =~ All\ tests\ passed.*in\ ([0-9]+)\ test\ case ]]; then
  echo "tests: ${BASH_REMATCH[1]} passed, 0 failed"
elif [[ $summary =~ test\ cases:\ +([0-9]+)\ \|\ +([0-9]+)\ passed\ \|\ +([0-9]+)\ failed ]]; then
  echo "tests: ${BASH_REMATCH[2]} passed, ${BASH_REMATCH[3]} failed"
elif [[ $summary =~ test\ cases:\ +([0-9]+)\ \|\ +([0-9]+)\ failed ]]; then
  echo "tests: 0 passed, ${BASH_REMATCH[2]} failed"
else
  echo "tests: 0 passed, 1 failed (the test binary ended without a summary, status $status)"
  [ "$status" -eq 0 ] && status=1
fi
exit "$status"
