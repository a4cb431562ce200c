#!/usr/bin/env bash
# ExecStartPre= helper of rnic-driver@.service: reserves RNIC_HUGEPAGES 2 MiB pages when it is set, and does nothing
# when it is empty or unset (AF_PACKET needs no hugepages; DPDK runs without them with --no-huge or --in-memory).
# It never lowers the count (another driver instance or application may use the pages) and fails when the kernel
# reserves fewer than asked (memory too fragmented: reserve them at boot, hugepages=N on the kernel command line).
# RNIC_HUGEPAGES_SYSFS names the counter file (the default is the kernel's; the check points it at a copy).
set -euo pipefail

wanted=${RNIC_HUGEPAGES:-}
sysfs=${RNIC_HUGEPAGES_SYSFS:-/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages}

if [[ -z $wanted ]]; then
  exit 0
fi
if [[ ! $wanted =~ ^[0-9]+$ ]]; then
  echo "rnic-hugepages: RNIC_HUGEPAGES must be a number of 2 MiB pages, not '$wanted'" >&2
  exit 1
fi
if [[ ! -f $sysfs ]]; then
  echo "rnic-hugepages: $sysfs does not exist: this kernel has no 2 MiB hugepages" >&2
  exit 1
fi
current=$(<"$sysfs")
if ((current >= wanted)); then
  echo "rnic-hugepages: $current 2 MiB pages reserved (wanted $wanted)"
  exit 0
fi
echo "$wanted" > "$sysfs"
reserved=$(<"$sysfs")
if ((reserved < wanted)); then
  echo "rnic-hugepages: asked for $wanted 2 MiB pages, the kernel reserved $reserved (memory fragmented?" \
    "reserve them at boot: hugepages=$wanted on the kernel command line)" >&2
  exit 1
fi
echo "rnic-hugepages: reserved $reserved 2 MiB pages (were $current)"
