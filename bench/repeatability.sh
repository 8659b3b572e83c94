#!/usr/bin/env bash
# Repeatability of the driver (issue 2's benchmark): N back-to-back `driver -t -g`
# runs of one kernels file, and the coefficient of variation of each kernel's mean
# speedup across them (from the JSON report, at full precision rather than the
# one decimal of the bestscores line). Goal: CV <= 2% on the course machines.
#   bench/repeatability.sh [DRIVER] [RUNS]
set -euo pipefail
driver=${1:-./driver}
runs=${2:-10}
[ -x "$driver" ] || { echo "repeatability: no driver at $driver: run make first" >&2; exit 1; }
report=$(mktemp)
trap 'rm -f "$report"' EXIT
for ((i = 1; i <= runs; i++)); do
  "$driver" -t -g --json "$report" | tail -n 1 | tr '\n' ' '
  # In -g mode each kernel has one variant; its best.mean_speedup is that variant's.
  grep -A1 '"best": {' "$report" | grep -o '"mean_speedup": [0-9.e+-]*' | awk '{printf "%s ", $2}'
  echo
done | awk '
  { print "run " NR ": " $0; r[NR] = $2; s[NR] = $3 }
  function cv(a, n,   i, m, ss) { for (i = 1; i <= n; i++) m += a[i]; m /= n
    for (i = 1; i <= n; i++) ss += (a[i] - m) ^ 2; return sqrt(ss / (n - 1)) / m * 100 }
  END { printf "rotate: CV %.2f%% over %d runs\nsmooth: CV %.2f%% over %d runs\n", cv(r, NR), NR, cv(s, NR), NR }'
