#!/usr/bin/env bash
# The main job. Set-up (packages, JDK 25 check), the wire-format self-check (`bin/rnic demo`), then the veth demo:
# two network namespaces joined by a veth pair (deploy/topology.sh), an rnic endpoint in each on AF_PACKET, and
# the perftest-style tools between them — latency (WRITE, READ, SEND, atomic) and bandwidth (WRITE, READ, SEND)
# with --verify on both sides, over IPv4, plus a WRITE latency test over IPv6. Prints each client's results and
# counters; the topology is removed afterwards, even on failure. Exit 0 when every run passed.
#
# With --port dpdk the same runs go between two endpoint processes on DPDK, joined by net_memif (shared memory,
# no hugepages needed) instead of a veth: the DPDK endpoints take their addresses from --ip and answer ARP/ND.
#
#   deploy/demo.sh [--quick] [--port afpacket|dpdk]      --quick: fewer iterations
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
bash "$root/deploy/setup.sh"
rnic="$root/bin/rnic"
lat_iters=50000 lat_warmup=20000 bw_iters=50000
port=afpacket
while (($#)); do
  case $1 in
    --quick) lat_iters=5000 lat_warmup=2000 bw_iters=5000; shift ;;
    --port) port=${2:?--port takes afpacket or dpdk}; shift 2 ;;
    *) echo "usage: deploy/demo.sh [--quick] [--port afpacket|dpdk]" >&2; exit 2 ;;
  esac
done
[[ $port == afpacket || $port == dpdk ]] || { echo "demo: --port takes afpacket or dpdk, not $port" >&2; exit 2; }

echo
echo "=== 1. wire format and transport self-check (bin/rnic demo)"
"$rnic" demo

if ((EUID != 0)); then
  echo "the demo needs root (network namespaces and AF_PACKET, or DPDK's memif socket): run deploy/demo.sh as root" >&2
  exit 1
fi

name=demo$$
server_pid=
cleanup() {
  [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  [[ $port == afpacket ]] && "$root/deploy/topology.sh" down --name "$name" >/dev/null
  rm -f "/run/$name.sock"
}
trap cleanup EXIT
if [[ $port == afpacket ]]; then
  echo
  echo "=== 2. topology: two namespaces joined by a veth pair"
  eval "$("$root/deploy/topology.sh" up --name "$name" --env | tr '\n' ' ')"
  "$root/deploy/topology.sh" status --name "$name"
else
  echo
  echo "=== 2. two DPDK endpoint processes joined by net_memif (socket /run/$name.sock)"
  RNIC_IP4_A=10.61.0.1 RNIC_IP4_B=10.61.0.2 RNIC_IP6_A=fd61::1 RNIC_IP6_B=fd61::2
  eal="--no-huge -m 512 --no-shconf --no-pci"
fi

# 2 cores are common here: the server's engine thread on CPU 1, the client's on CPU 0 (one spinner per core)
cpus=$(nproc)
server_cpu=() client_cpu=()
if ((cpus >= 2)); then server_cpu=(--cpu 1); client_cpu=(--cpu 0); fi

failures=0
run() {
  local title=$1 address=$2
  shift 2
  echo
  echo "=== $title: rnic $*"
  local server=() client=()
  if [[ $port == afpacket ]]; then
    server=(ip netns exec "$RNIC_NS_A" "$rnic" "$@" -d "$RNIC_IF_A")
    client=(ip netns exec "$RNIC_NS_B" "$rnic" "$@" -d "$RNIC_IF_B")
  else
    local vdev="net_memif0,bsize=8192,socket=/run/$name.sock" # 8 KiB buffers: path MTU 4096
    server=("$rnic" "$@" --port dpdk -d net_memif0 --ip "$RNIC_IP4_A/24" --ip "$RNIC_IP6_A/64" --oob 127.0.0.1
      --eal "$eal --file-prefix ${name}a --vdev=$vdev,role=server")
    client=("$rnic" "$@" --port dpdk -d net_memif0 --ip "$RNIC_IP4_B/24" --ip "$RNIC_IP6_B/64" --oob 127.0.0.1
      --eal "$eal --file-prefix ${name}b --vdev=$vdev,role=client")
  fi
  "${server[@]}" "${server_cpu[@]}" --verify >"/tmp/$name.server" 2>&1 &
  server_pid=$!
  if "${client[@]}" "${client_cpu[@]}" --verify "$address" >"/tmp/$name.client" 2>&1 && wait "$server_pid"; then
    sed -n '/^ #bytes/,$p;/usec\/iter/p' "/tmp/$name.client" | grep -v '^---' || true
  else
    failures=$((failures + 1))
    echo "FAILED — client:"; cat "/tmp/$name.client"; echo "server:"; cat "/tmp/$name.server"
  fi
  server_pid=
  rm -f "/tmp/$name.client" "/tmp/$name.server"
}

echo
echo "=== 3. latency (IPv4, GID index 1 = ::ffff:$RNIC_IP4_A)"
run "RDMA WRITE latency" "$RNIC_IP4_A" write-lat -s 2 -n "$lat_iters" --warmup "$lat_warmup"
run "RDMA READ latency" "$RNIC_IP4_A" read-lat -s 2 -n "$lat_iters" --warmup "$lat_warmup"
run "SEND latency" "$RNIC_IP4_A" send-lat -s 2 -n "$lat_iters" --warmup "$lat_warmup" --imm
run "FETCH_ADD latency" "$RNIC_IP4_A" atomic-lat -n "$lat_iters" --warmup "$lat_warmup"
echo
echo "=== 4. bandwidth (IPv4)"
run "RDMA WRITE bandwidth, 4 KB" "$RNIC_IP4_A" write-bw -s 4096 -n "$bw_iters"
run "RDMA READ bandwidth, 4 KB" "$RNIC_IP4_A" read-bw -s 4096 -n "$bw_iters"
run "SEND bandwidth, 1 KB" "$RNIC_IP4_A" send-bw -s 1024 -n "$bw_iters"
echo
echo "=== 5. IPv6 (GID index 2 = $RNIC_IP6_A)"
run "RDMA WRITE latency over IPv6" "$RNIC_IP6_A" write-lat -x 2 -s 64 -n "$lat_iters" --warmup "$lat_warmup"
run "UD ping-pong over IPv6" "$RNIC_IP6_A" ud-pingpong -g 2 -s 1024 -n "$lat_iters"

echo
if ((failures == 0)); then
  echo "demo: every run passed, every byte verified"
else
  echo "demo: $failures run(s) failed" >&2
  exit 1
fi
