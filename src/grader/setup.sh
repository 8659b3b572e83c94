#!/usr/bin/env bash
# Gradescope image setup (Debian/Ubuntu base): the toolchain the grader needs
# at grading time. The autograder zip holds this file, run_autograder and a
# perflab/ directory with grader, driver-core.o, defs.h and link-driver.sh
# (see docs/grader.md, "Deploying").
set -euo pipefail
apt-get update
apt-get install -y --no-install-recommends gcc g++ binutils make tar gzip libfmt-dev libpfm4-dev
chmod +x /autograder/source/run_autograder /autograder/source/perflab/grader /autograder/source/perflab/link-driver.sh
