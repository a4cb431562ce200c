#!/usr/bin/env bash
# ExecStart= of rnic-driver@.service (and the container's command): turns the environment into `bin/rnic driver`
# flags and execs it, so the driver is the service's main process and gets its SIGTERM.
#
#   rnic-driver-run.sh [INSTANCE]     INSTANCE defaults to $RNIC_IFACE
#
#   RNIC_EAL_ARGS empty:  bin/rnic driver -d INSTANCE $RNIC_DRIVER_OPTS                       (AF_PACKET on INSTANCE)
#   RNIC_EAL_ARGS set:    bin/rnic driver --port dpdk --eal "$RNIC_EAL_ARGS" $RNIC_DRIVER_OPTS (DPDK; --ip and the
#                         device go in RNIC_DRIVER_OPTS, INSTANCE only names the service)
#
# RNIC_DRIVER_OPTS is split on blanks (no quoting inside it); RNIC_EAL_ARGS stays one argument, as --eal wants.
# RNIC_DRIVER_DRY_RUN=1 prints the command, one argument a line, instead of running it.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
instance=${1:-${RNIC_IFACE:-}}
if [[ -z $instance ]]; then
  echo "rnic-driver-run: no interface: give it as the argument (rnic-driver@IFACE) or in RNIC_IFACE" >&2
  exit 2
fi

read -ra opts <<< "${RNIC_DRIVER_OPTS:-}"
if [[ -n ${RNIC_EAL_ARGS:-} ]]; then
  command=("$root/bin/rnic" driver --port dpdk --eal "$RNIC_EAL_ARGS" "${opts[@]}")
else
  command=("$root/bin/rnic" driver -d "$instance" "${opts[@]}")
fi

if [[ ${RNIC_DRIVER_DRY_RUN:-} == 1 ]]; then
  printf '%s\n' "${command[@]}"
  exit 0
fi
exec "${command[@]}"
