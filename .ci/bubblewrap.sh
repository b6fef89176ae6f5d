#!/usr/bin/env bash
# Makes sure bubblewrap is installed: the shell sandbox's tests run it, and fail (never skip) in CI without it.
set -euo pipefail
if command -v bwrap >/dev/null 2>&1; then
  echo "bubblewrap.sh: using $(command -v bwrap)" >&2
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "bubblewrap.sh: no bwrap found and no apt-get to install it; install bubblewrap and run again" >&2
  exit 1
fi
echo "bubblewrap.sh: installing Debian's bubblewrap" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq bubblewrap >/dev/null
command -v bwrap >/dev/null 2>&1 || { echo "bubblewrap.sh: the bubblewrap package installed no bwrap" >&2; exit 1; }
echo "bubblewrap.sh: installed $(bwrap --version)" >&2
