#!/usr/bin/env bash
# DCQCN on a real congested path: two namespaces joined through a middle hop (a bridge in a third namespace) whose
# egress is a rate-limited queue and which marks ECN like a switch; rnic write-bw across it with DCQCN (and with
# --cc-none also without), the hop's drops and marks next to the tools' counters. Needs root, iproute2, iptables.
#
#   deploy/cc/veth-bottleneck.sh [--rate MBIT] [--queue-ms MS] [--mark-rate-pct P] [--mark-burst FRAMES]
#                                [--size BYTES] [--iters N] [--runs R] [--cc-none] [-- extra write-bw options]
#
# The hop: `tc tbf rate MBIT` with a queue of MS milliseconds of the rate on both ports, and iptables (hashlimit, a
# token bucket, through br_netfilter) marking ECT(0) RoCEv2 frames CE once they arrive faster than P % of the rate
# for longer than FRAMES frames: a phantom queue that marks before the real one fills (this kernel has no RED or
# other marking qdisc). Defaults: 200 Mbit/s, 2 ms, 90 %, 16 frames; the test (VethCongestionTest) uses
# --queue-ms 8 --mark-rate-pct 95 --mark-burst 64. RNIC_CC_DEBUG=1 adds interface/qdisc statistics and captures.
# The namespaces, the hop and its bottleneck are deploy/topology.sh's (up --hop bridge, congest). Always removes
# what it created.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
rate=200 mark_pct=90 mark_burst_pkts=16 queue_ms=2 size=65536 iters=1500 runs=1 with_none=false
extra=()
while (($#)); do
  case $1 in
    --rate) rate=$2; shift 2 ;;
    --mark-rate-pct) mark_pct=$2; shift 2 ;;
    --mark-burst) mark_burst_pkts=$2; shift 2 ;;
    --queue-ms) queue_ms=$2; shift 2 ;;
    --size) size=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --cc-none) with_none=true; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "veth-bottleneck: unknown option $1" >&2; exit 2 ;;
  esac
done
((EUID == 0)) || { echo "veth-bottleneck: needs root (namespaces, tc, iptables)" >&2; exit 1; }

id=cc$$
topology=$root/deploy/topology.sh
cleanup() {
  "$topology" down --name "$id" >/dev/null
}
trap cleanup EXIT INT TERM

eval "$("$topology" up --name "$id" --v4 10.77.0 --hop bridge --env | tr '\n' ' ')"
ns_a=$RNIC_NS_A ns_b=$RNIC_NS_B ns_h=$RNIC_NS_HOP if_a=$RNIC_IF_A if_b=$RNIC_IF_B hop_a=$RNIC_IF_HOP_A hop_b=$RNIC_IF_HOP_B

if [[ -n ${RNIC_CC_SENDER_QDISC:-} ]]; then
  ip netns exec "$ns_b" tc qdisc replace dev "$if_b" root $RNIC_CC_SENDER_QDISC
  ip netns exec "$ns_a" tc qdisc replace dev "$if_a" root $RNIC_CC_SENDER_QDISC
fi
bytes_per_sec=$((rate * 1000000 / 8))
queue_bytes=$((bytes_per_sec * queue_ms / 1000))
frame_bytes=$(( (size < 1024 ? size : 1024) + 14 + 20 + 8 + 12 + 4 ))
mark_pps=$(( bytes_per_sec * mark_pct / 100 / frame_bytes ))
"$topology" congest --name "$id" --rate "$rate" --queue-bytes "$queue_bytes" --mark-pct "$mark_pct" \
  --mark-burst "$mark_burst_pkts" --frame-bytes "$frame_bytes" >/dev/null

echo "hop: tbf ${rate} Mbit/s, queue ${queue_bytes} B; CE above ${mark_pct}% of the rate ($mark_pps frames/s) beyond a phantom queue of ${mark_burst_pkts} frames"
hop_stats() {
  local drops sent
  drops=$(ip netns exec "$ns_h" tc -s qdisc show dev "$hop_a" | sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -1)
  sent=$(ip netns exec "$ns_h" tc -s qdisc show dev "$hop_a" | sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -1)
  marks=$(ip netns exec "$ns_h" iptables -t mangle -L FORWARD -v -x -n | awk '/TOS/ { n += $1 } END { print n + 0 }')
  local tx_drop rx_drop
  tx_drop=$(ip -n "$ns_b" -s link show "$if_b" | awk '/TX:/ { getline; print $4 }')
  rx_drop=$(ip -n "$ns_h" -s link show "$hop_b" | awk '/RX:/ { getline; print $4 }')
  echo "$sent $drops $marks $tx_drop $rx_drop"
}
run_one() {
  local label=$1; shift
  local before after port=$((18515 + RANDOM % 1000))
  before=($(hop_stats))
  ip netns exec "$ns_a" "$root/bin/rnic" write-bw -x 1 -d "$if_a" -p "$port" -s "$size" -n "$iters" --warmup 0 "$@" \
    > "/tmp/$id-$label-server.txt" 2>&1 &
  local server=$!
  sleep 1
  if [[ -n ${RNIC_CC_DEBUG:-} ]]; then
    (ip netns exec "$ns_a" timeout 20 tcpdump -ni "$if_a" -c 4000 -w "/tmp/$id-a.pcap" udp port 4791 2>/dev/null &)
    (ip netns exec "$ns_b" timeout 20 tcpdump -ni "$if_b" -c 4000 -w "/tmp/$id-b.pcap" udp port 4791 2>/dev/null &)
    sleep 1
  fi
  ip netns exec "$ns_b" "$root/bin/rnic" write-bw -x 1 -d "$if_b" -p "$port" -s "$size" -n "$iters" --warmup 0 "$@" \
    10.77.0.1 > "/tmp/$id-$label-client.txt" 2>&1 || { cat "/tmp/$id-$label-client.txt"; }
  wait "$server" || cat "/tmp/$id-$label-server.txt"
  after=($(hop_stats))
  local bw retx cnps
  bw=$(awk -v s="$size" '$1 == s && NF >= 5 { print $3 }' "/tmp/$id-$label-client.txt" | tail -1)
  retx=$(sed -n 's/ *retransmitted_pkts *\([0-9,]*\).*/\1/p' "/tmp/$id-$label-client.txt" | head -1)
  cnps=$(sed -n 's/.*CNPs received: \([0-9]*\).*/\1/p' "/tmp/$id-$label-client.txt" | head -1)
  printf '%-8s BW %6s MB/s (bottleneck %d)  hop: %7d pkts forwarded, %6d dropped, %6d CE-marked;  client: %s retransmitted, %s CNPs\n' \
    "$label" "$bw" $((bytes_per_sec / 1000000)) $((after[0] - before[0])) $((after[1] - before[1])) \
    $((after[2] - before[2])) "${retx:-0}" "${cnps:-0}"
  echo "  veth drops: sender's interface TX $((after[3] - before[3])), hop's interface RX $((after[4] - before[4]))"
  grep -E "final rate|rate " "/tmp/$id-$label-client.txt" | head -3 || true
}
for ((r = 0; r < runs; r++)); do
  run_one dcqcn --cc dcqcn "${extra[@]}"
  if $with_none; then
    run_one none
  fi
done
if [[ -n ${RNIC_CC_DEBUG:-} ]]; then
  ip netns exec "$ns_b" ip -s -s link show "$if_b"; ip netns exec "$ns_h" ip -s -s link
  ip netns exec "$ns_a" ip -s -s link show "$if_a"
  ip netns exec "$ns_h" tc -s qdisc; ip netns exec "$ns_h" iptables -t mangle -L FORWARD -v -n
fi
echo "outputs of the last runs: /tmp/$id-*-client.txt /tmp/$id-*-server.txt"
