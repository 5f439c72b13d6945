#!/bin/sh
# Installs the Debian packages fuser needs, or says which line to run.
# Usage: install-deps.sh PACKAGE...
missing=""
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
  echo "fuser needs these Debian packages:$missing" >&2
  echo "run as root:  apt-get install -y --no-install-recommends$missing" >&2
  exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends $missing >/tmp/fuser-apt.log 2>&1 || {
  apt-get update >>/tmp/fuser-apt.log 2>&1 &&
  apt-get install -y --no-install-recommends $missing >>/tmp/fuser-apt.log 2>&1
} || { echo "apt-get failed; see /tmp/fuser-apt.log" >&2; tail -20 /tmp/fuser-apt.log >&2; exit 1; }
