#!/bin/sh
# Prints one of the lab's settings from mk/lab.mk (beside this script), for shell
# scripts: mk/lab-setting.sh LAB_DIMS
set -eu
value=$(sed -n "s/^$1 *:= *//p" "$(dirname "$0")/lab.mk")
[ -n "$value" ] || { echo "lab-setting: no $1 in $(dirname "$0")/lab.mk" >&2; exit 1; }
echo "$value"
