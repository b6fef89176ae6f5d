#!/usr/bin/env bash
# Makes sure Node.js 20+ and npm are there: the browser tools run Playwright's driver with the system Node, and the
# MCP tests install real MCP clients and servers from the npm registry and run them with it.
set -euo pipefail
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$major" -ge 20 ]; then
    echo "node.sh: using Node $(node --version) and npm $(npm --version)" >&2
    exit 0
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "node.sh: no Node.js 20+ with npm found and no apt-get to install them; install nodejs and npm and run again" >&2
  exit 1
fi
echo "node.sh: installing Debian's nodejs and npm" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq nodejs npm >/dev/null
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "node.sh: Debian's nodejs is $(node --version); the tests need 20 or newer" >&2
  exit 1
fi
echo "node.sh: installed Node $(node --version) and npm $(npm --version)" >&2
