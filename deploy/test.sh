#!/usr/bin/env bash
# Runs every test: set-up (packages, JDK 25 check), then `mvn -B verify` with the tshark- and DPDK-based tests required.
# Extra arguments go to Maven (e.g. deploy/test.sh -o -pl rnic-engine). Exits with Maven's status.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
bash "$root/deploy/setup.sh"
. "$root/deploy/lib/find-jdk.sh"
rnic_find_jdk || { rnic_jdk_missing; exit 2; }

export JAVA_HOME=$RNIC_JAVA_HOME
cd "$root"
exec mvn -B verify -Drnic.require.tshark=true -Drnic.require.dpdk=true "$@"
