#!/usr/bin/env bash
# Builds the DPDK fast-path shim (rnic_dpdk_shim.c) into OUT/librnic_dpdk_shim.so with gcc and pkg-config.
# Without DPDK's development files it builds nothing and says so: the bindings then report "DPDK is not
# installed" at run time and the endpoint names the AF_PACKET fallback. Exit status 0 either way, unless
# RNIC_REQUIRE_DPDK=1, when a missing DPDK fails the build.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:?usage: build.sh OUT_DIR}
mkdir -p "$out"
if ! command -v pkg-config >/dev/null || ! pkg-config --exists libdpdk 2>/dev/null || ! command -v gcc >/dev/null; then
  echo "dpdk shim: DPDK development files (libdpdk-dev, pkg-config, gcc) not found: built without the DPDK port" >&2
  rm -f "$out/librnic_dpdk_shim.so"
  [[ ${RNIC_REQUIRE_DPDK:-0} == 1 ]] && exit 1
  exit 0
fi
# -march=corei7 comes from DPDK's pkg-config file; the shim's code is a handful of calls, any x86-64 runs it
# shellcheck disable=SC2046 # pkg-config prints several flags
gcc -O2 -fPIC -shared -Wall -Wextra -Werror $(pkg-config --cflags libdpdk) \
  -o "$out/librnic_dpdk_shim.so" "$here/rnic_dpdk_shim.c" \
  -Wl,--no-as-needed -lrte_ethdev -lrte_mbuf -lrte_mempool -lrte_eal
echo "dpdk shim: $out/librnic_dpdk_shim.so (DPDK $(pkg-config --modversion libdpdk))"
