#!/usr/bin/env bash
# Idempotent set-up of a fresh Debian 12 machine for rnic: installs whichever of the packages below is missing
# (as root, or through sudo), then checks for JDK 25, which Debian 12 does not package.
# Exits 0 when everything is in place, 2 when no JDK 25 was found, 1 when installing failed.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
. "$root/deploy/lib/find-jdk.sh"

packages=(maven tshark python3 iproute2 tcpdump nftables iptables kmod gcc libc6-dev dpdk dpdk-dev libdpdk-dev pkg-config
  systemd yamllint python3-yaml python3-kubernetes)

missing=()
for pkg in "${packages[@]}"; do
  if [[ $(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null) != installed ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: already installed: ${packages[*]}"
else
  if ((EUID == 0)); then
    as_root=()
  elif command -v sudo >/dev/null; then
    as_root=(sudo)
  else
    echo "setup: need to install ${missing[*]}: run this as root (no sudo here)" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]} (apt-get)"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  echo "setup: installed ${missing[*]}"
fi

if rnic_find_jdk; then
  echo "setup: JDK $RNIC_JAVA_MAJOR at $RNIC_JAVA_HOME"
else
  rnic_jdk_missing
  exit 2
fi
