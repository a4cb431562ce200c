#!/usr/bin/env bash
# DPDK benchmarks over net_memif (shared memory between two processes), side by side in one run:
#   - dpdk-testpmd txonly -> rxonly: the packet rate the memif wire itself carries (the ceiling);
#   - rnic write-bw between two rnic endpoints (full RoCEv2: requester, ICRC, validation, responder, ACKs,
#     completions) at 64 B, 1 KB and 4 KB;
#   - rnic write-lat: RDMA WRITE ping-pong percentiles, beside the memif's own round trip: `rnic dpdk-pingpong`, Java
#     on the raw DPDK bindings (no RoCEv2) sending one frame of the same length each way (as veth-bench.sh sets
#     write-lat beside raw_pingpong in C), and the ratio of the two p50s.
# Every memif has 8 KiB buffers (bsize=8192): a jumbo frame in one buffer, so rnic's ports take path MTU 4096.
# Each side's busy thread on a core of its own (2 cores). Needs root (memif's socket in /run), DPDK installed.
# A testpmd that crashes (it has segfaulted: a memif server losing its client while polling) is run again, up to
# 3 tries, and the table says so.
#
#   deploy/bench/memif-bench.sh [--seconds S] [--bw-iters N] [--lat-iters N] [--lat-size BYTES] [--qp-timeout U]
#
# --qp-timeout is the tools' -u (default 14: 67 ms ACK timeout); on a loaded machine engine threads descheduled for
# longer fail runs with RETRY_EXC_ERR; -u 18 (1.07 s) rides it out.
# Prints markdown tables for BENCHMARKS.md. Long runs: the JIT needs ~1 s of traffic before the engine is compiled.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
seconds=8
bw_iters=3000000
lat_iters=100000
lat_size=64
qp_timeout=14
while (($#)); do
  case $1 in
    --seconds) seconds=$2; shift 2 ;;
    --bw-iters) bw_iters=$2; shift 2 ;;
    --lat-iters) lat_iters=$2; shift 2 ;;
    --lat-size) lat_size=$2; shift 2 ;;
    --qp-timeout) qp_timeout=$2; shift 2 ;;
    *) echo "usage: $0 [--seconds S] [--bw-iters N] [--lat-iters N] [--lat-size BYTES] [--qp-timeout U]" >&2; exit 2 ;;
  esac
done
command -v dpdk-testpmd >/dev/null || { echo "memif-bench: dpdk-testpmd missing (apt-get install dpdk)" >&2; exit 2; }
work=$(mktemp -d /tmp/memif-bench.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
  rm -rf /var/run/dpdk/tpt$$ /var/run/dpdk/tpr$$ # testpmd leaves its EAL run-time directories behind
}
trap cleanup EXIT
eal="--no-huge -m 1024 --no-shconf --no-pci"
rnic=("$root/bin/rnic")
"${rnic[@]}" help >/dev/null # build once, outside the timings

echo "# memif-bench $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(uname -r), DPDK $(pkg-config --modversion libdpdk 2>/dev/null || echo ?)"
echo
echo "| wire ceiling: testpmd txonly -> rxonly | frame (= rnic's 64 B / 1 KB / 4 KB WRITE frame) | Rx Mpps (median of per-second rates) |"
echo "|---|---|---|"
# one testpmd txonly -> rxonly run: prints the median of the receiver's non-zero per-second rates (Mpps); when it
# received nothing, "crashed STATUS" if either testpmd died of a signal other than the ones that end it here, else
# "?"
testpmd_run() { # FRAME
  local frame=$1 sock=/run/rnic-bench-tp-$$-$1.sock tx tx_status=0 rx_status=0 mbuf=()
  ((frame > 2000)) && mbuf=(--mbuf-size=$((frame + 256))) # a jumbo frame in one mbuf, as rnic's pool has it
  # the sender is the memif server (started first; forwarding lcore 1), the receiver the client (lcore 0); the
  # receiver leaves first: a memif server that loses its client while polling may crash (seen with testpmd)
  timeout $((seconds + 8)) dpdk-testpmd -l 0,1 $eal --file-prefix tpt$$ \
    --vdev=net_memif0,role=server,bsize=8192,socket=$sock -- --forward-mode=txonly --txpkts=$frame --stats-period 1 \
    --total-num-mbufs=16384 "${mbuf[@]}" >"$work/tx.log" 2>&1 &
  tx=$!; pids+=("$tx")
  # the receiver starts once the sender forwards (EAL's start-up takes seconds on a loaded machine, and a memif
  # client that finds no server does not try again; the socket is an abstract one, no file to wait for)
  local waited=0
  until grep -qs 'start packet forwarding' "$work/tx.log" || ! kill -0 "$tx" 2>/dev/null || ((waited++ >= 300)); do
    sleep 0.1
  done
  timeout "$seconds" dpdk-testpmd -l 0,1 --main-lcore 1 $eal --file-prefix tpr$$ \
    --vdev=net_memif0,role=client,bsize=8192,socket=$sock -- --forward-mode=rxonly --stats-period 1 \
    --total-num-mbufs=16384 "${mbuf[@]}" >"$work/rx.log" 2>&1 || rx_status=$?
  kill "$tx" 2>/dev/null || true; wait "$tx" 2>/dev/null || tx_status=$?
  rm -f "$sock"
  # testpmd prints "Rx-pps: N" every second; the median of the non-zero ones
  local mpps
  mpps=$( (grep -o 'Rx-pps: *[0-9]*' "$work/rx.log" || true) | awk '{print $2}' | awk '$1 > 0' | sort -n |
    awk '{v[NR]=$1} END {if (NR > 0) printf "%.3f", v[int((NR + 1) / 2)] / 1e6}')
  if [[ -n $mpps ]]; then
    echo "$mpps" # a sender that crashed once its receiver had left (seen) spoils nothing measured
    return
  fi
  # normal ends: 0, 124 (timeout's own), 143 (SIGTERM from kill or timeout); a signal beyond those is a crash
  local status
  for status in $rx_status $tx_status; do
    if ((status > 128 && status != 143)); then
      echo "crashed $status"
      return
    fi
  done
  echo "?"
}
for frame in 138 1098 4170; do
  note=
  for try in 1 2 3; do
    mpps=$(testpmd_run "$frame")
    [[ $mpps == crashed* || $mpps == '?' ]] || break
    if [[ $mpps == crashed* ]]; then what="testpmd crashed (exit status ${mpps#crashed })"; else what="nothing received"; fi
    echo "memif-bench: testpmd at $frame B, try $try of 3: $what" >&2
    note="$note; try $try: $what"
    mpps='?'
  done
  [[ -n $note ]] && mpps="$mpps (${note#; })"
  echo "| testpmd | $frame B | $mpps |"
done
echo
echo "| rnic write-bw over memif | message | BW average [MB/s] | message rate [Mpps] | frames/message | frame rate [Mpps] |"
echo "|---|---|---|---|---|---|"
. "$root/deploy/bench/memif-pair.sh"
# the ports' default MTU (4200: path MTU 4096), and 4 KB again at Ethernet MTU 1500 (path MTU 1024, four frames a
# message: what memif ports had before path MTU 4096 became their default) for the ratio in one run
for case in 64 1024 4096 4096@1500; do
  size=${case%@*}; extra=()
  [[ $case == *@* ]] && extra=(--port-mtu "${case#*@}")
  out=$(memif_pair write-bw -s "$size" -n "$bw_iters" --warmup 300000 "${extra[@]}")
  line=$(grep -E "^ *$size +[0-9]+ " <<<"$out" | head -1)
  mbs=$(awk '{print $4}' <<<"$line"); mpps=$(awk '{print $5}' <<<"$line") # perftest's columns
  path_mtu=$(grep -o 'Mtu *: *[0-9]*' <<<"$out" | head -1 | grep -o '[0-9]*$')
  frames=$(( (size + path_mtu - 1) / path_mtu ))
  gbits=$(awk -v m="$mbs" 'BEGIN {printf "%.1f", m * 8 / 1000}')
  echo "| rnic, path MTU $path_mtu | $size B | $mbs ($gbits Gb/s) | $mpps | $frames | $(awk -v m="$mpps" -v f="$frames" 'BEGIN {printf "%.3f", m * f}') |"
done
echo
# the memif's own round trip: the same frame each way on the raw DPDK bindings, no RoCEv2
frame=$((74 + (lat_size + 3) / 4 * 4)) # Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 + data padded + ICRC 4
pingpong_pair() { # prints the client's output
  local sock=/run/rnic-bench-pp-$$-$RANDOM.sock
  "${rnic[@]}" dpdk-pingpong --server -d net_memif0 --cpu 1 -l "$frame" -n "$lat_iters" --warmup 300000 \
    --timeout-ms 600000 \
    --eal "$eal --file-prefix pps$$ --vdev=net_memif0,role=server,bsize=8192,socket=$sock" >"$work/server.log" 2>&1 &
  local server=$!; pids+=("$server")
  sleep 1
  "${rnic[@]}" dpdk-pingpong -d net_memif0 --cpu 0 -l "$frame" -n "$lat_iters" --warmup 300000 \
    --timeout-ms 600000 \
    --eal "$eal --file-prefix ppc$$ --vdev=net_memif0,role=client,bsize=8192,socket=$sock" >"$work/client.log" 2>&1 ||
    { echo "memif-bench: dpdk-pingpong failed:" >&2; cat "$work/client.log" "$work/server.log" >&2; exit 1; }
  wait "$server" || true
  rm -f "$sock"
  cat "$work/client.log"
}
percentiles() { # NAME: the ' round trip [usec]: p50=...' line on stdin as a table row
  grep -o 'round trip \[usec\]: .*' |
    sed -E 's/round trip \[usec\]: p50=([^ ]+) p90=([^ ]+) p99=([^ ]+) p99.9=([^ ]+) p99.99=([^ ]+) max=([^ ]+)/| '"$1"' | '"$frame"' B | \1 | \2 | \3 | \4 | \5 | \6 |/'
}
echo "| round trip over memif, µs | frame | p50 | p90 | p99 | p99.9 | p99.99 | max |"
echo "|---|---|---|---|---|---|---|---|"
floor=$(pingpong_pair | percentiles "dpdk-pingpong (raw DPDK bindings, no RoCEv2)")
echo "$floor"
roce=$(memif_pair write-lat -s "$lat_size" -n "$lat_iters" --warmup 300000 | percentiles "rnic write-lat -s $lat_size")
echo "$roce"
echo
p50() { awk -F'|' '{gsub(/ /, "", $4); print $4}' <<<"$1"; }
echo "write-lat p50 / dpdk-pingpong p50: $(awk -v r="$(p50 "$roce")" -v f="$(p50 "$floor")" \
  'BEGIN {if (f > 0) printf "%.2fx (%s / %s µs)", r / f, r, f; else print "?"}')"
