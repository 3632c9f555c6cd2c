#!/usr/bin/env bash
# Installs the OS tools the test suite drives besides the IRC servers: bubblewrap (the `bwrap`
# sandbox, docs/sandbox.md), tmux (a real terminal for `culture top`), Debian's chromium (the
# browser `culture console`'s tests drive with playwright-core; no browser download) and
# iproute2 (`ip netns`: the two-host test's second machine). Does nothing when all are present.
# Needs root (or sudo) to install.
set -euo pipefail
missing=()
command -v bwrap >/dev/null 2>&1 || missing+=(bubblewrap)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-os-tools: need root or sudo to apt-get install ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
command -v apt-get >/dev/null 2>&1 || { echo "install-os-tools: apt-get not found; install ${missing[*]} with your package manager" >&2; exit 1; }
echo "Installing ${missing[*]} (apt-get)..."
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
