#!/usr/bin/env bash
# Runs every test: set-up (packages, JDK 25 check), the offline checks of the service files (deploy/service/check.sh:
# the systemd unit, its helpers, the Kubernetes manifests), then `mvn -B install` with the tshark- and DPDK-based tests
# required (install: the tests first, then the jars, sources and Javadoc into ~/.m2, in the same run), then the
# embedding example built against those installed artifacts, embedded (deploy/example/run.sh) and as a client of two
# drivers on a veth pair (deploy/example/run-with-drivers.sh).
# Extra arguments go to Maven (e.g. deploy/test.sh -o -pl rnic-engine); -o/--offline goes to the example's too.
# Exits with the first failure's status.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
bash "$root/deploy/setup.sh"
. "$root/deploy/lib/find-jdk.sh"
rnic_find_jdk || { rnic_jdk_missing; exit 2; }

bash "$root/deploy/service/check.sh"

export JAVA_HOME=$RNIC_JAVA_HOME
cd "$root"
mvn -B install -Drnic.require.tshark=true -Drnic.require.dpdk=true "$@"

offline=()
for arg in "$@"; do
  case $arg in -o|--offline) offline=(-o) ;; esac
done
bash "$root/deploy/example/run.sh" "${offline[@]}"
bash "$root/deploy/example/run-with-drivers.sh" "${offline[@]}"
