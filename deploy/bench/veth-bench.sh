#!/usr/bin/env bash
# Latency and bandwidth over a veth pair between two network namespaces, side by side in one run:
#   - raw AF_PACKET ping-pong in C (the floor of this path), receiving from a PACKET_MMAP ring polled in user space
#     as rnic does (raw-afpacket-mmap), and with a recvfrom() system call per poll (raw-afpacket),
#   - kernel UDP ping-pong in C (what a user would use instead),
#   - rnic write-lat (RDMA WRITE ping-pong: AF_PACKET, RoCEv2, RC, ACKs),
# then rnic write-bw at 64 B, 1 KB and 4 KB. Servers pinned to CPU 1, clients to CPU 0.
#
#   deploy/bench/veth-bench.sh [--iters N] [--warmup N] [--bw-iters N] [--runs R]
#
# Prints a markdown table for BENCHMARKS.md. Needs root; builds the C programs with gcc.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
iters=100000
warmup=20000
bw_iters=300000
runs=1
while (($#)); do
  case $1 in
    --iters) iters=$2; shift 2 ;;
    --warmup) warmup=$2; shift 2 ;;
    --bw-iters) bw_iters=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    *) echo "veth-bench: unknown option $1" >&2; exit 2 ;;
  esac
done

cbin=$("$root/perf/src/main/c/build.sh" "$root/perf/target/c")
name=vb$$
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  "$root/deploy/topology.sh" down --name "$name" >/dev/null
}
trap cleanup EXIT
eval "$("$root/deploy/topology.sh" up --name "$name" --env | tr '\n' ' ')"
rnic=("$root/bin/rnic")
"${rnic[@]}" help >/dev/null # builds the jar once, outside the measurements

# a RoCEv2 RDMA WRITE of 2 bytes is a 78-byte frame: the raw frames are that size, the UDP payload the same 36 bytes
raw_line() { # [-m]: receive from a PACKET_MMAP ring instead of recvfrom()
  ip netns exec "$RNIC_NS_B" "$cbin/raw_pingpong" -i "$RNIC_IF_B" -s -C 1 "$@" &
  pids+=($!)
  sleep 0.3
  ip netns exec "$RNIC_NS_A" "$cbin/raw_pingpong" -i "$RNIC_IF_A" -c "$RNIC_MAC_B" -n "$iters" -w "$warmup" -l 78 -C 0 \
    "$@"
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
}
udp_line() {
  ip netns exec "$RNIC_NS_B" "$cbin/udp_pingpong" -s -C 1 &
  pids+=($!)
  sleep 0.3
  ip netns exec "$RNIC_NS_A" "$cbin/udp_pingpong" -c "$RNIC_IP4_B" -n "$iters" -w "$warmup" -l 36 -C 0
  kill "${pids[-1]}"; wait "${pids[-1]}" 2>/dev/null || true
}
rnic_line() {
  ip netns exec "$RNIC_NS_B" "${rnic[@]}" write-lat -d "$RNIC_IF_B" -s 2 -n "$iters" --warmup "$warmup" --cpu 1 \
    >/dev/null 2>&1 &
  pids+=($!)
  local out
  out=$(ip netns exec "$RNIC_NS_A" "${rnic[@]}" write-lat -d "$RNIC_IF_A" -s 2 -n "$iters" --warmup "$warmup" \
    --cpu 0 "$RNIC_IP4_B")
  wait "${pids[-1]}" || true
  echo "$out" | sed -n 's/^ rnic percentiles .*round trip \[usec\]: /rnic-write-lat size=2 iters='"$iters"' rtt_us /p'
}
bw_line() {
  local size=$1 out
  ip netns exec "$RNIC_NS_B" "${rnic[@]}" write-bw -d "$RNIC_IF_B" -s "$size" -n "$bw_iters" --cpu 1 >/dev/null 2>&1 &
  pids+=($!)
  out=$(ip netns exec "$RNIC_NS_A" "${rnic[@]}" write-bw -d "$RNIC_IF_A" -s "$size" -n "$bw_iters" --cpu 0 \
    "$RNIC_IP4_B" 2>&1) || { echo "write-bw -s $size failed:" >&2; echo "$out" >&2; }
  wait "${pids[-1]}" || true
  # perftest's columns: #bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps] (MB = 2^20 bytes)
  echo "$out" | awk -v s="$size" '$1 == s { printf "| %s B | %s | %s | %.3f |\n", s, $4, $5, $4 * 1048576 * 8 / 1e9 }'
}

echo "# veth-bench $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(uname -r), iters $iters (+$warmup warm-up)"
lines=()
for ((r = 1; r <= runs; r++)); do
  lines+=("$(raw_line -m)" "$(raw_line)" "$(udp_line)" "$(rnic_line)")
done
echo
echo "| round trip, µs | p50 | p90 | p99 | p99.9 | p99.99 | max |"
echo "|---|---|---|---|---|---|---|"
for line in "${lines[@]}"; do
  echo "$line" | awk '{ n = $1; for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
    printf "| %s | %s | %s | %s | %s | %s | %s |\n", n, v["p50"], v["p90"], v["p99"], v["p99.9"], v["p99.99"], v["max"] }'
done
echo
echo "| write-bw message | BW average [MB/s] | message rate [Mpps] | BW [Gb/s] |"
echo "|---|---|---|---|"
for size in 64 1024 4096; do
  bw_line "$size"
done
