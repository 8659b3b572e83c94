#!/usr/bin/env bash
# Writes the student handout tarball (see handout/handout.mk).
#   handout/make-handout.sh OUTPUT.tar
# Environment: HANDOUT_DRIVER (the driver's sources, headers and driver.mk),
# HANDOUT_GENERATED (the sources make wrote: the lab's settings as C++, the pages' assets),
# HANDOUT_ORACLE (the naive oracle's C files), BASELINE and POLICY (optional
# files to bake in as baseline.toml / policy.toml), DRIVER (the built ./driver, whose
# --help is the README's option list).
# Layout, all at the top of the archive:
#   kernels.c defs.h Makefile README [baseline.toml] [policy.toml]
#   perflab/src/        the driver's and the kernel hosts' sources, and driver.mk
#   perflab/gen/        the generated sources
#   perflab/reference/  naive.c oracle.h speed_of_light.c (the oracle only)
#   perflab/mk/         compile.mk deps.sh link-host.sh align-text.sh host-exports lab.mk
#   perflab/team.c      the team-name stub of make handin
#   perflab/config.mk   what is baked in
set -euo pipefail
out=$1
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

put() {  # put MODE DEST SOURCE...
  local mode=$1 dest=$2; shift 2
  mkdir -p "$stage/$dest"
  install -p -m "$mode" "$@" "$stage/$dest/"
}

put 644 . kernels/kernels.c kernels/defs.h
# The option list is the driver's own --help, so a default or a flag is written once.
help=$("$DRIVER" --help | sed 's/^/  /')
awk -v help="$help" '$0 == "@DRIVER_HELP@" { print help; next } { print }' handout/README > "$stage/README"
chmod 644 "$stage/README"
install -p -m 644 handout/Makefile "$stage/Makefile"
# The driver's sources keep their folders under src/ (common/, driver/core/, ...).
for f in $HANDOUT_DRIVER; do
  rel=${f#src/}
  put 644 "perflab/src/$(dirname "$rel")" "$f"
done
put 644 perflab/reference $HANDOUT_ORACLE
put 644 perflab/gen $HANDOUT_GENERATED
put 755 perflab/mk mk/deps.sh mk/link-host.sh mk/align-text.sh mk/lab-setting.sh
put 644 perflab/mk mk/host-exports mk/lab.mk mk/compile.mk
put 644 perflab handout/team.c

# What is baked in is checked by the driver's own code, as students' ./driver will
# read it (--check-options: the options, the policy, the baseline matched to the
# dimensions a plain ./driver runs), so a handout never carries a file its driver
# refuses, with the repository's ./driver (DRIVER).
if [ -n "${BASELINE:-}${POLICY:-}" ]; then
  if ! said=$("$DRIVER" -t --check-options ${BASELINE:+--baseline "$BASELINE"} ${POLICY:+--policy "$POLICY"} 2>&1 >/dev/null); then
    echo "make handout: the handout's ./driver would refuse ${BASELINE:+BASELINE=$BASELINE }${POLICY:+POLICY=$POLICY}: ${said#*: }" >&2
    exit 1
  fi
fi

{
  echo "# Written by the instructor's make handout: files beside ./driver that it uses by default."
  if [ -n "${BASELINE:-}" ]; then
    install -p -m 644 "$BASELINE" "$stage/baseline.toml"
    echo "BAKED_BASELINE := baseline.toml"
  fi
  if [ -n "${POLICY:-}" ]; then
    install -p -m 644 "$POLICY" "$stage/policy.toml"
    echo "BAKED_POLICY := policy.toml"
  fi
} > "$stage/perflab/config.mk"

# The handout must not carry a reference solution: only the oracle's two kernels.
bad=$(cd "$stage" && find . -name 'rotate_*' -o -name 'smooth_*' -o -name 'solutions.c' -o -name 'reference.h' \
        -o -name 'solutions-host')
if [ -n "$bad" ]; then
  echo "make handout: reference solution files in the handout: $bad" >&2
  exit 1
fi

mkdir -p "$(dirname "$out")"
tar -cf "$out.tmp" -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner $(cd "$stage" && ls -A)
mv -f "$out.tmp" "$out"
echo "make handout: wrote $out ($(tar -tf "$out" | grep -vc '/$') files)"
