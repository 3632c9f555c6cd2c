#!/usr/bin/env bash
# Installs everything the test suite needs besides the workspace's own npm packages:
# InspIRCd, ngIRCd and Atheme from Debian, bubblewrap and tmux, and the real agent CLIs at their pinned versions
# (scripts/agent-clis.json, cached under ~/.cache/culture/agent-clis).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/install-irc-servers.sh
./scripts/install-os-tools.sh
node scripts/install-agent-clis.mjs
