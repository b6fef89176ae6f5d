#!/usr/bin/env bash
# Makes sure a Chromium is installed for the browser tests (Debian's package; Playwright never downloads one).
set -euo pipefail
for candidate in /usr/bin/chromium /usr/bin/chromium-browser /usr/bin/google-chrome; do
  if [ -x "$candidate" ]; then
    echo "chromium.sh: using $candidate" >&2
    exit 0
  fi
done
if ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium.sh: no Chromium found and no apt-get to install one; install chromium and run again" >&2
  exit 1
fi
echo "chromium.sh: installing Debian's chromium" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq chromium fonts-noto-color-emoji >/dev/null
test -x /usr/bin/chromium || { echo "chromium.sh: the chromium package installed no /usr/bin/chromium" >&2; exit 1; }
echo "chromium.sh: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)" >&2
