#!/usr/bin/env bash
# Runs the embedding example as a client of two `rnic driver`s, one at each end of a veth pair in two network
# namespaces (deploy/topology.sh): the same program deploy/example/run.sh runs embedded. The drivers use a yielding
# engine thread (2 cores: no spinning thread of a driver starves the example). Everything it made is removed on exit,
# also on failure. Arguments go to Maven (-o). Exits with the example's status, or 1 when a driver did not stop
# cleanly (status 0 on SIGTERM).
set -euo pipefail

here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$here/../.." && pwd)
name=rnicex$$
dir_a=/dev/shm/$name-a
dir_b=/dev/shm/$name-b
pids=()

cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  bash "$root/deploy/topology.sh" down --name "$name" >/dev/null 2>&1 || true
  rm -rf "$dir_a" "$dir_b"
}
trap cleanup EXIT

eval "$(bash "$root/deploy/topology.sh" up --name "$name" --env)"
ip netns exec "$RNIC_NS_A" "$root/bin/rnic" driver -d "$RNIC_IF_A" --dir "$dir_a" --idle yield &
pids+=($!)
ip netns exec "$RNIC_NS_B" "$root/bin/rnic" driver -d "$RNIC_IF_B" --dir "$dir_b" --idle yield &
pids+=($!)
for dir in "$dir_a" "$dir_b"; do
  for _ in $(seq 600); do
    [[ -f $dir/cnc.dat ]] && "$root/bin/rnic" devinfo --dir "$dir" >/dev/null 2>&1 && break
    sleep 0.1
  done
  "$root/bin/rnic" devinfo --dir "$dir" >/dev/null || { echo "run-with-drivers: no driver came up in $dir" >&2; exit 1; }
done

bash "$here/run.sh" "$@" -- "$dir_a" "$dir_b"

status=0
for pid in "${pids[@]}"; do
  kill -TERM "$pid"
  wait "$pid" || { echo "run-with-drivers: driver $pid ended with status $?" >&2; status=1; }
done
pids=()
exit $status
