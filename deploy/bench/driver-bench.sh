#!/usr/bin/env bash
# What running through an rnic driver costs a tool, side by side in one run over a veth pair (AF_PACKET): the client
# of write-bw (64 B, 4 KiB) and write-lat (64 B) embedded (its own engine, as without --driver) and as a
# client of `bin/rnic driver` on the same interface, interleaved, --runs each. The server is embedded in both cases
# (its engine spinning on CPU 1). Embedded, the client's engine spins on CPU 0. Through the driver, the driver's
# engine and the tool's application thread are two threads: on 3 CPUs or more both spin (engine on CPU 0, tool on
# CPU 2); on 2 CPUs they share CPU 0 and both idle by yielding (--idle yield), which is what the numbers then cost.
#
#   deploy/bench/driver-bench.sh [--runs R] [--lat-iters N] [--bw-iters N] [--qp-timeout U] [--memif]
#
# --memif: over DPDK's net_memif (shared memory between two processes, as deploy/bench/memif-bench.sh) instead of the
# veth pair: the server a DPDK endpoint in memif's server role, the client's port (its own endpoint, or the driver's
# with --port dpdk) in the client role; the exchange over 127.0.0.1.
#
# --qp-timeout is the tools' -u (default 14: 67 ms ACK timeout): on a loaded machine, engine threads descheduled for
# longer than that fail runs with RETRY_EXC_ERR, embedded or not; -u 18 (1.07 s) rides it out.
# Prints each run and a markdown table of medians for BENCHMARKS.md. Needs root.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
runs=3
lat_iters=100000
warmup=20000
bw_iters=300000
qp_timeout=14
memif=0
while (($#)); do
  case $1 in
    --runs) runs=$2; shift 2 ;;
    --lat-iters) lat_iters=$2; shift 2 ;;
    --bw-iters) bw_iters=$2; shift 2 ;;
    --qp-timeout) qp_timeout=$2; shift 2 ;;
    --memif) memif=1; shift ;;
    *) echo "usage: $0 [--runs R] [--lat-iters N] [--bw-iters N] [--qp-timeout U] [--memif]" >&2; exit 2 ;;
  esac
done

name=db$$
dir=/dev/shm/rnic-bench-$name
pids=()
driver_pid=
cleanup() {
  for pid in "${pids[@]}" $driver_pid; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$dir"
  ((memif)) || "$root/deploy/topology.sh" down --name "$name" >/dev/null
}
trap cleanup EXIT
eal="--no-huge -m 1024 --no-shconf --no-pci"
if ((memif)); then
  # no namespaces: memif is a socket in /run and shared memory; the tools exchange over the loopback
  RNIC_NS_A=; RNIC_NS_B=; RNIC_IP4_B=10.60.0.1
else
  eval "$("$root/deploy/topology.sh" up --name "$name" --env | tr '\n' ' ')"
fi
# always in a subshell (a background job or a command substitution): exec, so that $! is the tool or driver itself
in_ns() { if [[ -n $1 ]]; then exec ip netns exec "$@"; else shift; exec "$@"; fi; }
sock=
new_sock() { sock=/run/rnic-driver-bench-$$-$RANDOM.sock; }
# the port arguments: SIDE (server|client|driver)
port_args() {
  if ((memif == 0)); then
    case $1 in server) printf "%s\n" -d "$RNIC_IF_B" ;; *) printf "%s\n" -d "$RNIC_IF_A" ;; esac
    return
  fi
  local role=client ip=10.60.0.2/24
  [[ $1 == server ]] && role=server ip=10.60.0.1/24
  printf '%s\n' --port dpdk -d net_memif0 --ip "$ip" --eal "$eal --file-prefix db$1$$ --vdev=net_memif0,role=$role,bsize=8192,socket=$sock"
}
rnic=("$root/bin/rnic")
"${rnic[@]}" help >/dev/null # builds the jar once, outside the measurements

if (($(nproc) >= 3)); then
  driver_opts=(--cpu 0 --idle spin); tool_opts=(--cpu 2 --idle spin); layout="driver engine spinning on CPU 0, tool thread spinning on CPU 2"
else
  driver_opts=(--cpu 0 --idle yield); tool_opts=(--cpu 0 --idle yield); layout="driver engine and tool thread both on CPU 0, both yielding"
fi

start_driver() {
  local args; mapfile -t args < <(port_args driver)
  in_ns "$RNIC_NS_A" "${rnic[@]}" driver "${args[@]}" --dir "$dir" "${driver_opts[@]}" >"/tmp/$name-driver.log" 2>&1 &
  driver_pid=$!
  for _ in $(seq 1 300); do
    if "${rnic[@]}" stat --dir "$dir" >/dev/null 2>&1; then return 0; fi
    kill -0 "$driver_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "driver-bench: the driver did not come up:" >&2; cat "/tmp/$name-driver.log" >&2
  kill "${pids[@]}" 2>/dev/null || true # this runs in one()'s subshell: the EXIT trap does not see its server
  exit 1
}
stop_driver() {
  kill -TERM "$driver_pid"; wait "$driver_pid" || true; driver_pid=
}

# client_args MODE: how the client reaches the port (one argument a line)
client_args() {
  if [[ $1 == driver ]]; then printf '%s\n' --driver "$dir" "${tool_opts[@]}"; else port_args client; echo --cpu; echo 0; fi
  if ((memif)); then echo --oob; echo 127.0.0.1; fi
}

# one run: MODE (embedded|driver) TOOL SIZE; prints the run's figure (write-bw: Mpps, write-lat: p50 round trip µs)
one() {
  local mode=$1 tool=$2 size=$3 out iters
  [[ $tool == write-lat ]] && iters=$lat_iters || iters=$bw_iters
  local server_args client
  new_sock
  mapfile -t server_args < <(port_args server)
  ((memif)) && server_args+=(--oob 127.0.0.1)
  # the server first: with memif it is the socket's server, which the client's port (endpoint or driver) connects to
  in_ns "$RNIC_NS_B" "${rnic[@]}" "$tool" "${server_args[@]}" -s "$size" -n "$iters" --warmup "$warmup" --cpu 1 \
    -u "$qp_timeout" >/dev/null 2>&1 &
  pids+=($!)
  # the client connects once; the server (a JVM, with memif DPDK's EAL too) may take longer to listen than the
  # driver takes to start
  for _ in $(seq 1 300); do
    if [[ -n $RNIC_NS_B ]]; then
      ip netns exec "$RNIC_NS_B" ss -ltnH 'sport = :18515' | grep -q . && break
    else
      ss -ltnH 'sport = :18515' | grep -q . && break
    fi
    sleep 0.1
  done
  [[ $mode == driver ]] && start_driver
  mapfile -t client < <(client_args "$mode")
  out=$(in_ns "$RNIC_NS_A" "${rnic[@]}" "$tool" "${client[@]}" -s "$size" -n "$iters" \
    --warmup "$warmup" -u "$qp_timeout" "$RNIC_IP4_B" 2>&1) || {
    echo "driver-bench: $mode $tool -s $size failed:" >&2; echo "$out" >&2
    kill "${pids[-1]}" 2>/dev/null || true # the server would wait for a client that is gone
  }
  wait "${pids[-1]}" || true
  [[ $mode == driver ]] && stop_driver
  if [[ $tool == write-lat ]]; then
    echo "$out" | sed -n 's/^ rnic percentiles .*round trip \[usec\]: p50=\([0-9.]*\).*/\1/p'
  else
    echo "$out" | awk -v s="$size" '$1 == s && NF == 5 { print $5 }' # MsgRate[Mpps], perftest's 5th column
  fi
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {if (NR == 0) print "?"; else print v[int((NR + 1) / 2)]}'; }

echo "# driver-bench $(date -u +%Y-%m-%dT%H:%MZ), $( ((memif)) && echo memif || echo 'veth (AF_PACKET)'), $(nproc) CPUs, $(uname -r), load average $(cut -d" " -f1-3 /proc/loadavg), $runs runs, interleaved, -u $qp_timeout; $layout"
declare -A results
tests=("write-bw 64" "write-bw 4096" "write-lat 64")
for ((r = 1; r <= runs; r++)); do
  for t in "${tests[@]}"; do
    for mode in embedded driver; do
      # shellcheck disable=SC2086
      v=$(one "$mode" $t)
      echo "run $r: $mode $t -> $v"
      results["$mode $t"]+="$v "
    done
  done
done
echo
echo "| test | embedded client (runs) | median | client through the driver (runs) | median | driver / embedded |"
echo "|---|---|---|---|---|---|"
for t in "${tests[@]}"; do
  e=$(echo "${results["embedded $t"]}" | median); d=$(echo "${results["driver $t"]}" | median)
  unit=$([[ $t == write-lat* ]] && echo "p50 round trip µs" || echo "Mpps")
  ratio=$(awk -v e="$e" -v d="$d" 'BEGIN { if (e + 0 > 0) printf "%.3f", d / e; else print "?" }')
  echo "| $t B ($unit) | ${results["embedded $t"]% } | $e | ${results["driver $t"]% } | $d | $ratio |"
done
