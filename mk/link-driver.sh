#!/usr/bin/env bash
# Links a driver from the driver core and one or more student objects.
#   mk/link-driver.sh OUTPUT DRIVER_CORE.o KERNELS_SOURCE STUDENT.o [MORE.o ...]
# The core and a small build-info object are merged and every symbol but main and
# the two add_*_function calls is made local, so nothing of the driver (its oracle
# kernels above all) can collide with a name in the student's file. The build
# info records what --explain needs: which file was built, how, and when.
set -euo pipefail
out=$1 core=$2 source=$3
shift 3
: "${CC:=gcc}" "${CXX:=g++}" "${KCFLAGS:=-O2 -Wall -g}" "${LDLIBS:=-lfmt -lpfm -lm -pthread}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

abs_source=$(readlink -f "$source")
sum=$(sha256sum "$abs_source" | cut -d' ' -f1)
c_string() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
cat > "$work/build_info.c" <<EOC
const char perflab_build_kernels_path[] = $(c_string "$abs_source");
const char perflab_build_kernels_sha256[] = "$sum";
const char perflab_build_kcflags[] = $(c_string "$KCFLAGS");
const long perflab_build_time = $(date +%s);
EOC
$CC -c "$work/build_info.c" -o "$work/build_info.o"
ld -r "$core" "$work/build_info.o" -o "$work/core.o"
objcopy --keep-global-symbols="$(dirname "$0")/driver-exports" "$work/core.o" "$work/core-local.o"
$CXX "$@" "$work/core-local.o" $LDLIBS -o "$out.tmp"
mv -f "$out.tmp" "$out"
