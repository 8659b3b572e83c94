#!/bin/bash
# Takes the README's screenshots from real runs: the student's page (./driver
# --html on the reference solutions), the TA's (--explain with its findings) and
# the instructor's (a small batch through ./grader), each opened in Debian's
# headless Chromium with no network.
# Usage: mk/screenshots.sh WORK_DIR OUT_DIR
set -euo pipefail
work=$1
out=$2
rm -rf "$work"
mkdir -p "$work/handins" "$out"

shot() {  # shot PAGE PNG HEIGHT
  local profile
  profile=$(mktemp -d)
  /usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$profile" \
    --hide-scrollbars --virtual-time-budget=10000 --window-size=1200,"$3" --screenshot="$2" "file://$(realpath "$1")" \
    2>/dev/null
  rm -rf "$profile"
  echo "screenshot: $2"
}

# Student: every reference variant, the oracle and the memcpy, with simulated misses,
# at the lab's default dims.
./driver --host build/solutions-host --speed-of-light --simulate \
  --json "$work/student.json" --html "$work/student.html" >/dev/null
shot "$work/student.html" "$out/page-student.png" 1500

# TA: the diagnosis of the stock kernels, findings beside the charts.
./driver -t --explain --dims 128,256 --html "$work/ta.html" >/dev/null
shot "$work/ta.html" "$out/page-ta.png" 2300

# Instructor: a small batch of hand-ins, good and bad.
cp kernels/kernels.c "$work/handins/alice.c"
for f in tests/fixtures/handins/{good,fakescore,wrong,segfault,forks}.c; do
  name=$(basename "$f" .c)
  sed -e "/HANDIN_COMMON/{r tests/fixtures/handins/common.inc" -e "d}" "$f" > "$work/handins/$name.c"
done
./grader grade "$work/handins" --out "$work/batch" --trials 1 --recalibrate-every 2 \
  --driver-args "--dims 64,128,256 --max-samples 5 --timeout 2" 2>/dev/null
shot "$work/batch/report.html" "$out/page-instructor.png" 2000
