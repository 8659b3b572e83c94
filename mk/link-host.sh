#!/usr/bin/env bash
# Links a kernel host: the host runtime, a kernels file's objects and a small
# build-info object, statically and at a fixed address (so the driver can name a
# function from the address the host reports, and the host needs no file at run
# time: it runs in a sandbox that has none).
#   mk/link-host.sh OUTPUT HOST_RUNTIME.o KERNELS_SOURCE STUDENT.o [MORE.o ...]
# The build info records what --explain needs: which file was built, how, and when.
set -euo pipefail
out=$1 runtime=$2 source=$3
shift 3
: "${CC:=gcc}" "${KCFLAGS:=$("$(dirname "$0")/lab-setting.sh" LAB_KCFLAGS)}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# What the host calls in a kernels file: say which is missing in the student's terms,
# not as the linker's undefined reference inside the host runtime.
objects=()
for a in "$@"; do [[ $a == *.o ]] && objects+=("$a"); done
# (No awk: the grader runs this in a sandbox without /etc, where awk's alternative lives.)
defined=$(nm --defined-only -g --format=posix "${objects[@]}" | cut -d' ' -f1)
for sym in team rotate smooth register_rotate_functions register_smooth_functions; do
  if ! grep -qx "$sym" <<<"$defined"; then
    echo "$(basename "$source") does not define '$sym', which the driver needs: define it (not static)" >&2
    exit 1
  fi
done

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
# The build info joins the runtime and goes local with it: a kernels file may use any name.
ld -r "$runtime" "$work/build_info.o" -o "$work/runtime.o"
objcopy --keep-global-symbols="$(dirname "$0")/host-exports" "$work/runtime.o"
# Each kernels object's code starts on a page of its own (mk/align-text.sh).
linked=()
for a in "$@"; do
  if [[ $a == *.o ]]; then
    linked+=("$work/${#linked[@]}-$(basename "$a")")
    "$(dirname "$0")/align-text.sh" "$a" "${linked[-1]}"
  else
    linked+=("$a")
  fi
done
$CC -static -no-pie "$work/runtime.o" "${linked[@]}" -lm -pthread -o "$out.tmp"
mv -f "$out.tmp" "$out"
