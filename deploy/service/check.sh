#!/usr/bin/env bash
# Offline checks of the service files, run by deploy/test.sh (deploy/setup.sh installs what they need: systemd,
# yamllint, python3-kubernetes):
#   - rnic-driver@.service, installed by install.sh into a temporary prefix, passes `systemd-analyze verify` with no
#     warning (systemd 252 exits 0 on an unknown key or a bad value and only warns: any output fails the check),
#     and two broken copies of it fail the same check, so it can fail;
#   - the helpers: rnic-hugepages.sh on a copy of the sysfs counter, rnic-driver-run.sh's command line (dry run);
#   - the Kubernetes manifests: yamllint (deploy/k8s/yamllint.yaml), then deploy/k8s/check_manifests.py (fields and
#     types of every object against the Kubernetes client's models, and rules of the API server), and a broken copy
#     fails it. No container is built and no cluster is asked: kubectl's dry run needs an API server.
# Prints one line per check and "service-check: N passed, M failed"; exits 1 when a check failed.
set -uo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
python=/usr/bin/python3 # Debian's, which has python3-kubernetes (a python3 earlier on PATH may not)
passed=0
failed=0

for tool in systemd-analyze yamllint "$python"; do
  if ! command -v "$tool" >/dev/null; then
    echo "service-check: $tool is missing: run deploy/setup.sh" >&2
    exit 2
  fi
done
if ! "$python" -c 'import kubernetes.client, yaml' 2>/dev/null; then
  echo "service-check: $python has no kubernetes module (python3-kubernetes): run deploy/setup.sh" >&2
  exit 2
fi

tmp=$(mktemp -d /tmp/rnic-service-check.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# check NAME COMMAND...: runs COMMAND, counts it, shows its output when it fails.
check() {
  local name=$1 output
  shift
  if output=$("$@" 2>&1); then
    echo "ok    $name"
    ((passed++))
  else
    echo "FAIL  $name"
    [[ -z $output ]] || printf '%s\n' "$output" | sed 's/^/      /'
    ((failed++))
  fi
}

# The unit passes verify, and not a word of warning: systemd-analyze's exit status alone misses most mistakes.
verify_clean() {
  local output
  output=$(systemd-analyze verify --man=no "$1" 2>&1) || { printf '%s\n' "$output"; return 1; }
  [[ -z $output ]] || { printf '%s\n' "$output"; return 1; }
}

fails() {
  if "$@" >/dev/null 2>&1; then
    echo "passed, but should have failed: $*"
    return 1
  fi
}

# --- systemd ---
prefix=$tmp/opt/rnic
units=$tmp/units
check "install.sh into a temporary prefix" \
  bash "$root/deploy/service/install.sh" --prefix "$prefix" --unit-dir "$units" --conf-dir "$tmp/etc" --files-only \
  --allow-missing-jar
check "systemd-analyze verify rnic-driver@eth0.service" verify_clean "$units/rnic-driver@eth0.service"

mkdir -p "$tmp/broken1" "$tmp/broken2"
sed 's/^Restart=on-failure$/Restrat=on-failure/' "$units/rnic-driver@.service" > "$tmp/broken1/rnic-driver@.service"
sed 's|^ExecStart=.*|ExecStart='"$prefix"'/deploy/service/missing.sh %i|' "$units/rnic-driver@.service" \
  > "$tmp/broken2/rnic-driver@.service"
check "verify fails on a misspelt key" fails verify_clean "$tmp/broken1/rnic-driver@eth0.service"
check "verify fails on a missing ExecStart program" fails verify_clean "$tmp/broken2/rnic-driver@eth0.service"

hugepages() {
  local sysfs=$tmp/nr_hugepages want=$1 start=$2 expect=$3
  echo "$start" > "$sysfs"
  RNIC_HUGEPAGES=$want RNIC_HUGEPAGES_SYSFS=$sysfs bash "$prefix/deploy/service/rnic-hugepages.sh" || return 1
  [[ $(<"$sysfs") == "$expect" ]] || { echo "nr_hugepages is $(<"$sysfs"), expected $expect"; return 1; }
}
check "rnic-hugepages.sh: unset leaves the count alone" hugepages "" 7 7
check "rnic-hugepages.sh: reserves RNIC_HUGEPAGES" hugepages 64 0 64
check "rnic-hugepages.sh: never lowers the count" hugepages 16 64 64
check "rnic-hugepages.sh: refuses a count that is not a number" fails hugepages 12x 0 0

# run_command EXPECTED INSTANCE VAR=VALUE...: the command rnic-driver-run.sh runs, its arguments joined by '|'.
run_command() {
  local expected=$1 instance=$2 actual
  shift 2
  actual=$(env "$@" RNIC_DRIVER_DRY_RUN=1 bash "$prefix/deploy/service/rnic-driver-run.sh" ${instance:+"$instance"} |
    paste -sd '|')
  [[ $actual == "$expected" ]] || { echo "got      $actual"; echo "expected $expected"; return 1; }
}
check "rnic-driver-run.sh: AF_PACKET on the instance" run_command \
  "$prefix/bin/rnic|driver|-d|eth0|--client-timeout-ms|5000|--idle|backoff" eth0 \
  RNIC_DRIVER_OPTS="--client-timeout-ms 5000  --idle backoff" RNIC_EAL_ARGS=
check "rnic-driver-run.sh: DPDK, the EAL arguments one argument" run_command \
  "$prefix/bin/rnic|driver|--port|dpdk|--eal|-a 0000:3b:00.0 --in-memory|--ip|10.0.0.1/24" dpdk0 \
  RNIC_DRIVER_OPTS="--ip 10.0.0.1/24" RNIC_EAL_ARGS="-a 0000:3b:00.0 --in-memory"
check "rnic-driver-run.sh: the interface from RNIC_IFACE (the container's command)" run_command \
  "$prefix/bin/rnic|driver|-d|ens1f0" "" RNIC_IFACE=ens1f0 RNIC_DRIVER_OPTS= RNIC_EAL_ARGS=
check "rnic-driver-run.sh: refuses to run without an interface" \
  fails env RNIC_IFACE= RNIC_DRIVER_DRY_RUN=1 bash "$prefix/deploy/service/rnic-driver-run.sh"

# --- Kubernetes ---
manifests=("$root/deploy/k8s/rnic-driver-daemonset.yaml" "$root/deploy/k8s/example-client-pod.yaml")
check "yamllint deploy/k8s" yamllint -s -c "$root/deploy/k8s/yamllint.yaml" "${manifests[@]}" \
  "$root/deploy/k8s/yamllint.yaml"
check "check_manifests.py: the DaemonSet, its ConfigMap and the client pod" \
  "$python" "$root/deploy/k8s/check_manifests.py" "${manifests[@]}"
sed 's/hostNetwork: true/hostNetwork: "true"/; s/^\( *\)readOnlyRootFilesystem:/\1readOnlyRootFS:/' \
  "$root/deploy/k8s/rnic-driver-daemonset.yaml" > "$tmp/broken.yaml"
check "check_manifests.py fails on a wrong type and an unknown field" \
  fails "$python" "$root/deploy/k8s/check_manifests.py" "$tmp/broken.yaml"

echo "service-check: $passed passed, $failed failed"
((failed == 0))
