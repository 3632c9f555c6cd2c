#!/usr/bin/env bash
# Installs the IRC servers the integration tests run (InspIRCd 3, ngIRCd and Atheme services
# from Debian). Does nothing when all are present. Needs root (or sudo) to install.
set -euo pipefail
if command -v inspircd >/dev/null 2>&1 || [ -x /usr/sbin/inspircd ]; then
  if command -v ngircd >/dev/null 2>&1 || [ -x /usr/sbin/ngircd ]; then
    if command -v atheme-services >/dev/null 2>&1 || [ -x /usr/sbin/atheme-services ]; then
      exit 0
    fi
  fi
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "install-irc-servers: need root or sudo to apt-get install inspircd ngircd atheme-services" >&2; exit 1; }
  SUDO="sudo"
fi
command -v apt-get >/dev/null 2>&1 || { echo "install-irc-servers: apt-get not found; install InspIRCd 3, ngIRCd and Atheme with your package manager" >&2; exit 1; }
echo "Installing InspIRCd, ngIRCd and Atheme (apt-get)..."
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq inspircd ngircd atheme-services >/dev/null
# The packages start system services listening on 6667; the tests use their own ports.
$SUDO systemctl stop inspircd ngircd atheme-services >/dev/null 2>&1 || true
