#!/usr/bin/env bash
# perftest's -R with several QPs between two of our tools on a veth pair in two namespaces of its own
# (deploy/topology.sh, removed on exit, also on failure): write-bw -q 4, send-bw -q 2 and read-bw -q 2, each with
# --verify (every byte checked) over AF_PACKET, the server started first. Prints each pair's exit statuses, the QPNs
# each side connected and the client's bandwidth line; exits 0 when every run passed.
#
#   deploy/interop/rdmacm-qps-veth.sh [-o OUTDIR]
set -uo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$here/../.." && pwd)
out=/tmp/rnic-rdmacm-qps-$$
[[ ${1:-} == -o ]] && out=$2
name=rcq$$
mkdir -p "$out"
# shellcheck disable=SC2317 # run by the trap
cleanup() { bash "$root/deploy/topology.sh" down --name "$name" >/dev/null 2>&1 || true; }
trap cleanup EXIT
eval "$(bash "$root/deploy/topology.sh" up --name "$name" --v4 10.218.0 --env)"
failed=0
for run in "write-bw -q 4 -s 65536 -n 2000" "send-bw -q 2 -s 4096 -n 5000" "read-bw -q 2 -s 4096 -n 5000"; do
  tool=${run%% *}
  # shellcheck disable=SC2086 # run is a tool and its options
  ip netns exec "$RNIC_NS_B" timeout 180 "$root/bin/rnic" $run -R -d "$RNIC_IF_B" -x 1 --verify --timeout-ms 60000 \
    > "$out/$tool.server.txt" 2>&1 &
  server=$!
  sleep 5 # no TCP port to wait for: the server's JVM starts and creates its GSI QP (a REQ before that is retried)
  # shellcheck disable=SC2086
  ip netns exec "$RNIC_NS_A" timeout 180 "$root/bin/rnic" $run -R -d "$RNIC_IF_A" -x 1 --verify --timeout-ms 60000 \
    "$RNIC_IP4_B" > "$out/$tool.client.txt" 2>&1
  client_rc=$?
  wait "$server"; server_rc=$?
  verified=$(grep -c 'verify: OK' "$out/$tool.client.txt" "$out/$tool.server.txt" | awk -F: '{n += $2} END {print n}')
  echo "=== rnic $run -R: client exit $client_rc, server exit $server_rc, verify: OK on $verified of 2 sides"
  grep -h 'local address' "$out/$tool.client.txt" | sed 's/^/  client /'
  grep -h 'remote address' "$out/$tool.server.txt" | sed 's/^/  server /'
  grep -hE '^ [0-9]+ +[0-9]+ ' "$out/$tool.client.txt" | sed 's/^/  client /'
  [[ $client_rc == 0 && $server_rc == 0 && $verified == 2 ]] || failed=1
done
echo "outputs in $out"
exit $failed
