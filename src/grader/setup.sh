#!/usr/bin/env bash
# Gradescope image setup (Debian/Ubuntu base): the toolchain the grader needs
# at grading time. The autograder zip holds this file, run_autograder and a
# perflab/ directory with grader, driver-core.o, defs.h and link-driver.sh
# (see docs/grader.md, "Deploying").
set -euo pipefail
apt-get update
# bubblewrap, setpriv (util-linux), libseccomp2 and libarchive13: the sandbox every
# hand-in is compiled and run in, and the archive reader.
apt-get install -y --no-install-recommends gcc g++ binutils make tar gzip libfmt-dev libpfm4-dev \
    bubblewrap util-linux libseccomp2 libarchive13 libc6-dev
chmod +x /autograder/source/run_autograder /autograder/source/perflab/grader /autograder/source/perflab/link-driver.sh
