#!/usr/bin/env bash
# Gradescope image setup: what the grader needs at grading time. The autograder zip
# is `make grader-bundle`'s build/grader-bundle/ (this file, run_autograder and
# perflab/; see docs/grader.md, "Deploying"). The binaries are built on Debian 12:
# use an image of the same release, or their libraries will not be found.
set -euo pipefail
apt-get update
# gcc, binutils and libc6-dev: each hand-in is compiled and statically linked here.
# bubblewrap, setpriv (util-linux) and libseccomp2: the sandbox it runs in.
# libfmt9, libpfm4, libsodium23, libarchive13: what grader and driver link (ldd).
apt-get install -y --no-install-recommends gcc binutils libc6-dev make \
    bubblewrap util-linux libseccomp2 libfmt9 libpfm4 libsodium23 libarchive13 libstdc++6
src=/autograder/source
chmod +x "$src/run_autograder" "$src/perflab/grader" "$src/perflab/driver" "$src/perflab/reference-host" \
    "$src/perflab/link-host.sh" "$src/perflab/align-text.sh"
