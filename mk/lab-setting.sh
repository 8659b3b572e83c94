#!/bin/sh
# Prints one of the lab's settings from mk/lab.mk (beside this script), for shell
# scripts: mk/lab-setting.sh LAB_DIMS. A value continued over lines (a trailing
# backslash, as make reads it) comes out on one line.
set -eu
value=$(sed -n "/^$1 *:= */{
:more
/\\\\\$/{
N
b more
}
s/ *\\\\\\n */ /g
s/^$1 *:= *//
p
}" "$(dirname "$0")/lab.mk")
[ -n "$value" ] || { echo "lab-setting: no $1 in $(dirname "$0")/lab.mk" >&2; exit 1; }
echo "$value"
