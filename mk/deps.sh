#!/bin/sh
# Installs the Debian packages perflab builds against, or says exactly how to.
# Usage: mk/deps.sh [--optional-pfm] PACKAGE...
# Checks each package with dpkg-query; installs the missing ones with apt-get as
# root or through sudo; otherwise prints the command and fails, so `make` stops
# with the remedy instead of a compiler error about a missing header.
set -u
missing=""
for pkg in "$@"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $pkg"
  fi
done
[ -z "$missing" ] && exit 0

cmd="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
  runner=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  runner="sudo"
else
  echo "perflab: missing Debian packages:$missing" >&2
  echo "perflab: install them with: sudo apt-get update && sudo $cmd" >&2
  exit 1
fi
echo "perflab: installing missing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# Recommends are not needed: the Slurm daemons' would bring a mail server and printing.
if ! $runner apt-get install -y -q --no-install-recommends $missing >&2; then
  # A fresh machine has no package lists yet.
  $runner apt-get update -q >&2 && $runner apt-get install -y -q --no-install-recommends $missing >&2 || {
    echo "perflab: could not install:$missing; run: sudo apt-get update && sudo $cmd" >&2
    exit 1
  }
fi
