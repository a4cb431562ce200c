#!/usr/bin/env bash
# DPDK benchmarks over net_memif (shared memory between two processes), side by side in one run:
#   - dpdk-testpmd txonly -> rxonly: the packet rate the memif wire itself carries (the ceiling);
#   - rnic write-bw between two rnic endpoints (full RoCEv2: requester, ICRC, validation, responder, ACKs,
#     completions) at 64 B, 1 KB and 4 KB;
#   - rnic write-lat: RDMA WRITE ping-pong percentiles.
# Each side's busy thread on a core of its own (2 cores). Needs root (memif's socket in /run), DPDK installed.
#
#   deploy/bench/memif-bench.sh [--seconds S] [--bw-iters N] [--lat-iters N]
#
# Prints markdown tables for BENCHMARKS.md. Long runs: the JIT needs ~1 s of traffic before the engine is compiled.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
seconds=8
bw_iters=3000000
lat_iters=100000
while (($#)); do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --bw-iters) bw_iters=$2; shift 2 ;;
    --lat-iters) lat_iters=$2; shift 2 ;;
    *) echo "usage: $0 [--seconds S] [--bw-iters N] [--lat-iters N]" >&2; exit 2 ;;
  esac
done
command -v dpdk-testpmd >/dev/null || { echo "memif-bench: dpdk-testpmd missing (apt-get install dpdk)" >&2; exit 2; }
work=$(mktemp -d /tmp/memif-bench.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
eal="--no-huge -m 1024 --no-shconf --no-pci"
rnic=("$root/bin/rnic")
"${rnic[@]}" help >/dev/null # build once, outside the timings

echo "# memif-bench $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(uname -r), DPDK $(pkg-config --modversion libdpdk 2>/dev/null || echo ?)"
echo
echo "| wire ceiling: testpmd txonly -> rxonly | frame (= rnic's 64 B / 1 KB WRITE frame) | Rx Mpps (median of per-second rates) |"
echo "|---|---|---|"
for frame in 138 1098; do
  sock=/run/rnic-bench-tp-$$-$frame.sock
  # the sender is the memif server (started first; forwarding lcore 1), the receiver the client (lcore 0); the
  # receiver leaves first: a memif server that loses its client while polling may crash (seen with testpmd)
  timeout $((seconds + 8)) dpdk-testpmd -l 0,1 $eal --file-prefix tpt$$ \
    --vdev=net_memif0,role=server,socket=$sock -- --forward-mode=txonly --txpkts=$frame --stats-period 1 \
    --total-num-mbufs=16384 >"$work/tx.log" 2>&1 &
  tx=$!; pids+=("$tx")
  sleep 2
  timeout "$seconds" dpdk-testpmd -l 0,1 --main-lcore 1 $eal --file-prefix tpr$$ \
    --vdev=net_memif0,role=client,socket=$sock -- --forward-mode=rxonly --stats-period 1 \
    --total-num-mbufs=16384 >"$work/rx.log" 2>&1 || true
  kill "$tx" 2>/dev/null || true; wait "$tx" 2>/dev/null || true
  # testpmd prints "Rx-pps: N" every second; the median of the non-zero ones
  mpps=$( (grep -o 'Rx-pps: *[0-9]*' "$work/rx.log" || true) | awk '{print $2}' | awk '$1 > 0' | sort -n |
    awk '{v[NR]=$1} END {if (NR == 0) print "?"; else printf "%.3f", v[int((NR + 1) / 2)] / 1e6}')
  echo "| testpmd | $frame B | $mpps |"
done
echo
echo "| rnic write-bw over memif | message | BW average [MB/s] | message rate [Mpps] | frames/message | frame rate [Mpps] |"
echo "|---|---|---|---|---|---|"
run_pair() { # tool args...: server on CPU 1, client on CPU 0; prints the client's output
  local sock=/run/rnic-bench-$$-$RANDOM.sock
  "${rnic[@]}" "$@" --port dpdk -d net_memif0 --cpu 1 --ip 10.60.0.1/24 --oob 127.0.0.1 \
    --eal "$eal --file-prefix rbs$$ --vdev=net_memif0,role=server,socket=$sock" >"$work/server.log" 2>&1 &
  local server=$!; pids+=("$server")
  sleep 1
  "${rnic[@]}" "$@" --port dpdk -d net_memif0 --cpu 0 --ip 10.60.0.2/24 --oob 127.0.0.1 \
    --eal "$eal --file-prefix rbc$$ --vdev=net_memif0,role=client,socket=$sock" 10.60.0.1 >"$work/client.log" 2>&1 ||
    { echo "memif-bench: rnic $* failed:" >&2; cat "$work/client.log" "$work/server.log" >&2; exit 1; }
  wait "$server" || true
  cat "$work/client.log"
}
for size in 64 1024 4096; do
  out=$(run_pair write-bw -s "$size" -n "$bw_iters" --warmup 300000)
  line=$(grep -E "^ *$size +[0-9]+ " <<<"$out" | head -1)
  mbs=$(awk '{print $4}' <<<"$line"); mpps=$(awk '{print $5}' <<<"$line") # perftest's columns
  frames=$(( (size + 1023) / 1024 ))
  echo "| rnic | $size B | $mbs | $mpps | $frames | $(awk -v m="$mpps" -v f="$frames" 'BEGIN {printf "%.3f", m * f}') |"
done
echo
echo "| rnic write-lat over memif, round trip µs | p50 | p90 | p99 | p99.9 | p99.99 | max |"
echo "|---|---|---|---|---|---|---|"
out=$(run_pair write-lat -s 2 -n "$lat_iters" --warmup 300000)
grep -o 'round trip \[usec\]: .*' <<<"$out" |
  sed -E 's/round trip \[usec\]: p50=([^ ]+) p90=([^ ]+) p99=([^ ]+) p99.9=([^ ]+) p99.99=([^ ]+) max=([^ ]+)/| write-lat -s 2 | \1 | \2 | \3 | \4 | \5 | \6 |/'
