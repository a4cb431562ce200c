#!/usr/bin/env bash
# The test topology: two network namespaces joined by a veth pair, with IPv4 and IPv6 addresses and an MTU; the
# one place it is written (the demo, the benchmarks, deploy/cc/veth-bottleneck.sh and the Java tests' NetnsTopology
# and VethPair run this script).
#
#   deploy/topology.sh up       [--name NAME] [--mtu MTU] [--v4 A.B.C] [--v6 PREFIX] [--hop nft|bridge] [--env]
#   deploy/topology.sh up       --root [--name NAME] [--mtu MTU] [--env]
#   deploy/topology.sh down     [--name NAME]
#   deploy/topology.sh status   [--name NAME]
#   deploy/topology.sh impair   [--name NAME] [--loss PCT] [--reorder PCT] [--duplicate PCT]
#   deploy/topology.sh congest  [--name NAME] --rate MBIT --queue-bytes B [--mark-pct PCT] [--mark-burst FRAMES]
#                               [--frame-bytes B]
#   deploy/topology.sh counters [--name NAME]
#
# NAME (default rnic) gives namespaces NAMEa and NAMEb and interfaces NAME0 (in a) and NAME1 (in b). Addresses:
# A.B.C.1/24 and A.B.C.2/24 (default 10.91.0), PREFIX::1/64 and PREFIX::2/64 (default fd91::, no DAD so they work
# at once). `up` replaces a stale topology of the same name; `down` is idempotent and removes all of it. --env
# prints shell variables (RNIC_NS_A, RNIC_IF_A, RNIC_MAC_A, RNIC_IP4_A, RNIC_IP6_A and the same for B; with --hop
# also RNIC_NS_HOP, RNIC_IF_HOP_A, RNIC_IF_HOP_B) instead of the summary.
#
# --hop puts a third namespace NAMEh between a and b, its interfaces NAMEx (towards a) and NAMEy (towards b): `nft`
# forwards every frame with nftables (netdev ingress `fwd`), so that `impair` can drop and duplicate RoCEv2 frames
# there (the kernel runs no netdev egress hook for AF_PACKET transmissions, and its ingress hook after packet
# sockets: impairing the endpoints' own interfaces would not touch them); `bridge` joins them with a bridge, ready
# for `congest`. --root makes only the pair, NAME0 and NAME1, in the root namespace, up, with IPv6 disabled (no
# router solicitations or DAD frames in the way), for tests that open the interfaces themselves.
#
# impair: both directions at the hop, with tc netem on the hop's interfaces (delay 50us, reorder, loss,
# duplicate), or where the kernel has no sch_netem, with nftables (loss and duplicates only). congest: the hop
# becomes a bridge whose two ports leave through tc tbf at MBIT with a queue of B bytes (tail drop), and whose
# ECT(0) RoCEv2 IPv4 frames are marked CE (iptables hashlimit, a real token bucket, through br_netfilter) once they
# arrive faster than PCT % of the rate (default 95) for longer than FRAMES frames (default 64): a phantom queue
# that marks before the real one fills (this kernel has no RED or other marking qdisc); --frame-bytes (default
# 1082) turns the rate into frames. Both print what they applied. counters prints the frames the hop's queues
# dropped and the frames it marked CE: "DROPPED MARKED".
set -euo pipefail

usage() {
  sed -n '5,15p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

action=${1:-}
[[ -n $action ]] || usage
shift
name=rnic
mtu=1500
v4=10.91.0
v6=fd91:
env=false
hop=
root_only=false
loss=0 reorder=0 duplicate=0
rate='' queue_bytes='' mark_pct=95 mark_burst=64 frame_bytes=1082
while (($#)); do
  case $1 in
    --name) name=${2:?--name needs a value}; shift 2 ;;
    --mtu) mtu=${2:?--mtu needs a value}; shift 2 ;;
    --v4) v4=${2:?--v4 needs A.B.C}; v4=${v4%/24}; [[ $v4 =~ ^[0-9]+\.[0-9]+\.[0-9]+\.0$ ]] && v4=${v4%.0}; shift 2 ;;
    --v6) v6=${2:?--v6 needs a prefix}; v6=${v6%::*}:; shift 2 ;;
    --hop) hop=${2:?--hop needs nft or bridge}; shift 2 ;;
    --root) root_only=true; shift ;;
    --env) env=true; shift ;;
    --loss) loss=${2:?}; shift 2 ;;
    --reorder) reorder=${2:?}; shift 2 ;;
    --duplicate) duplicate=${2:?}; shift 2 ;;
    --rate) rate=${2:?}; shift 2 ;;
    --queue-bytes) queue_bytes=${2:?}; shift 2 ;;
    --mark-pct) mark_pct=${2:?}; shift 2 ;;
    --mark-burst) mark_burst=${2:?}; shift 2 ;;
    --frame-bytes) frame_bytes=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "topology: unknown option $1" >&2; usage ;;
  esac
done

if ((EUID != 0)); then
  echo "topology: network namespaces and veth pairs need root" >&2
  exit 1
fi
if ! command -v ip >/dev/null; then
  echo "topology: 'ip' (iproute2) is missing: run deploy/setup.sh" >&2
  exit 1
fi
if [[ ! $name =~ ^[a-z][a-z0-9]{0,12}$ ]]; then
  echo "topology: --name '$name' must be 1..13 lowercase letters/digits starting with a letter" >&2
  exit 2
fi
if [[ ! $mtu =~ ^[0-9]+$ ]] || ((mtu < 576 || mtu > 65535)); then
  echo "topology: --mtu $mtu out of range 576..65535" >&2
  exit 2
fi

if [[ -n $hop && $hop != nft && $hop != bridge ]]; then
  echo "topology: --hop takes nft or bridge, not $hop" >&2
  exit 2
fi

ns_a=${name}a ns_b=${name}b if_a=${name}0 if_b=${name}1 ns_h=${name}h hop_a=${name}x hop_b=${name}y

down() {
  ip netns del "$ns_a" 2>/dev/null || true
  ip netns del "$ns_b" 2>/dev/null || true
  ip netns del "$ns_h" 2>/dev/null || true
  ip link del "$if_a" 2>/dev/null || true # a veth left in the root namespace by a half-done `up`, or by --root
  ip link del "$if_b" 2>/dev/null || true # the other end of a pair made towards a hop
}

has_hop() { ip netns list | grep -q "^$ns_h\( (id: [0-9]*)\)\{0,1\}$"; }

# The hop forwards every frame to the other side, dropping and duplicating RoCEv2 frames at random (per cent).
hop_rules() {
  local loss_pct=$1 dup_pct=$2 from to rules
  rules="flush ruleset"$'\n'"table netdev rnic_hop {"$'\n'
  for from in "$hop_a" "$hop_b"; do
    if [[ $from == "$hop_a" ]]; then to=$hop_b; else to=$hop_a; fi
    rules+="  chain from_$from {"$'\n'"    type filter hook ingress device \"$from\" priority 0;"$'\n'
    if [[ $loss_pct != 0 ]]; then
      rules+="    meta l4proto udp udp dport 4791 numgen random mod 10000 < $(per_10000 "$loss_pct") counter drop"$'\n'
    fi
    if [[ $dup_pct != 0 ]]; then
      rules+="    meta l4proto udp udp dport 4791 numgen random mod 10000 < $(per_10000 "$dup_pct") counter dup to \"$to\""$'\n'
    fi
    rules+="    fwd to \"$to\""$'\n'"  }"$'\n'
  done
  rules+="}"$'\n'
  ip netns exec "$ns_h" nft -f - <<<"$rules"
}

per_10000() { awk -v p="$1" 'BEGIN { printf "%d", p * 100 }'; }

impair() {
  has_hop || { echo "topology: impairment needs the topology with a middle hop (--hop)" >&2; exit 1; }
  local netem=(delay 50us reorder "$reorder%" 50% loss "$loss%" duplicate "$duplicate%") dev message
  for dev in "$hop_a" "$hop_b"; do
    if ! message=$(ip netns exec "$ns_h" tc qdisc replace dev "$dev" root netem "${netem[@]}" 2>&1); then
      if [[ $message != *"qdisc kind is unknown"* && $message != *"No such file"* ]]; then
        echo "topology: tc netem at the hop failed: $message" >&2
        exit 1
      fi
      hop_rules "$loss" "$duplicate"
      echo "nftables at the middle hop: loss $loss%, duplicate $duplicate% (this kernel has no sch_netem: no delay, no reordering)"
      return
    fi
  done
  echo "tc netem ${netem[*]} at the middle hop"
}

congest() {
  has_hop || { echo "topology: a bottleneck needs the topology with a middle hop (--hop)" >&2; exit 1; }
  [[ -n $rate && -n $queue_bytes ]] || { echo "topology: congest needs --rate and --queue-bytes" >&2; exit 2; }
  ip netns exec "$ns_h" nft delete table netdev rnic_hop 2>/dev/null || true # the nft hop's forwarding
  if ! ip -n "$ns_h" link show br0 >/dev/null 2>&1; then
    ip -n "$ns_h" link add br0 type bridge
    ip -n "$ns_h" link set "$hop_a" master br0
    ip -n "$ns_h" link set "$hop_b" master br0
    ip -n "$ns_h" link set br0 up
  fi
  # br_netfilter hands the bridge's IPv4 frames to iptables, whose hashlimit is a real token bucket (nftables'
  # limit keeps a bucket of one second of the rate: it marks nothing before a whole second of excess). A stock
  # kernel builds it as a module that creating a bridge does not load.
  modprobe br_netfilter 2>/dev/null || true
  ip netns exec "$ns_h" sysctl -qw net.bridge.bridge-nf-call-iptables=1
  # and those of an 802.1Q VLAN (tools run with --vlan): the kernel keeps their tag beside the frame, br_netfilter
  # hands them to iptables only when asked
  ip netns exec "$ns_h" sysctl -qw net.bridge.bridge-nf-filter-vlan-tagged=1
  local dev
  for dev in "$hop_a" "$hop_b"; do
    ip netns exec "$ns_h" tc qdisc replace dev "$dev" root tbf rate "${rate}mbit" burst 32kb limit "$queue_bytes"
  done
  # shellcheck disable=SC2017 # bytes per second first, as the bottleneck script and the tests always computed it
  local mark_pps=$((rate * 1000000 / 8 * mark_pct / 100 / frame_bytes))
  ip netns exec "$ns_h" iptables -t mangle -A FORWARD -p udp --dport 4791 -m ecn --ecn-ip-ect 2 \
    -m hashlimit --hashlimit-above "$mark_pps/sec" --hashlimit-burst "$mark_burst" --hashlimit-mode dstip \
    --hashlimit-name rnic -j TOS --set-tos 0x03/0x03
  echo "tbf $rate Mbit/s with a $((queue_bytes / 1000)) KB queue at the middle hop, ECN CE marking above $mark_pct% of it ($mark_pps frames/s) beyond $mark_burst frames"
}

counters() {
  local dev dropped=0 n marked
  for dev in "$hop_a" "$hop_b"; do
    n=$(ip netns exec "$ns_h" tc -s qdisc show dev "$dev" | sed -n 's/.*dropped \([0-9]*\).*/\1/p' | head -1)
    dropped=$((dropped + ${n:-0}))
  done
  marked=$(ip netns exec "$ns_h" iptables -t mangle -L FORWARD -v -x -n | awk '/TOS/ { n += $1 } END { print n + 0 }')
  echo "$dropped $marked"
}

mac_of() { ip -n "$1" -o link show "$2" | sed -n 's/.*link\/ether \([0-9a-f:]*\).*/\1/p'; }

status() {
  local ns iface
  for side in a b; do
    if [[ $side == a ]]; then ns=$ns_a iface=$if_a; else ns=$ns_b iface=$if_b; fi
    if ! ip netns list | grep -qx "$ns\( (id: [0-9]*)\)\{0,1\}"; then
      echo "$ns: absent"
      continue
    fi
    echo "$ns: $iface $(mac_of "$ns" "$iface") mtu $(ip -n "$ns" -o link show "$iface" | sed -n 's/.* mtu \([0-9]*\).*/\1/p')" \
      "$(ip -n "$ns" -o addr show dev "$iface" scope global | awk '{print $4}' | tr '\n' ' ')"
  done
}

case $action in
  up)
    down
    trap 'echo "topology: set-up failed, removing what was made" >&2; down' ERR
    if $root_only; then
      ip link add "$if_a" mtu "$mtu" type veth peer name "$if_b" mtu "$mtu"
      for iface in "$if_a" "$if_b"; do
        sysctl -qw "net.ipv6.conf.$iface.disable_ipv6=1"
        ip link set "$iface" up
      done
      trap - ERR
      if $env; then
        echo "RNIC_IF_A=$if_a RNIC_IF_B=$if_b"
      else
        echo "topology $name: $if_a and $if_b up in the root namespace"
      fi
      exit 0
    fi
    ip netns add "$ns_a"
    ip netns add "$ns_b"
    if [[ -n $hop ]]; then
      ip netns add "$ns_h"
      ip link add "$if_a" mtu "$mtu" type veth peer name "$hop_a" mtu "$mtu"
      ip link add "$if_b" mtu "$mtu" type veth peer name "$hop_b" mtu "$mtu"
      ip link set "$hop_a" netns "$ns_h"
      ip link set "$hop_b" netns "$ns_h"
      ip -n "$ns_h" link set "$hop_a" up
      ip -n "$ns_h" link set "$hop_b" up
      if [[ $hop == nft ]]; then
        hop_rules 0 0
      else
        ip -n "$ns_h" link add br0 type bridge
        ip -n "$ns_h" link set "$hop_a" master br0
        ip -n "$ns_h" link set "$hop_b" master br0
        ip -n "$ns_h" link set br0 up
      fi
    else
      ip link add "$if_a" mtu "$mtu" type veth peer name "$if_b" mtu "$mtu"
    fi
    ip link set "$if_a" netns "$ns_a"
    ip link set "$if_b" netns "$ns_b"
    for side in a b; do
      if [[ $side == a ]]; then ns=$ns_a iface=$if_a host=1; else ns=$ns_b iface=$if_b host=2; fi
      ip -n "$ns" link set lo up
      # no router solicitations or DAD probes on a two-host link
      ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$iface.accept_dad=0" "net.ipv6.conf.$iface.router_solicitations=0"
      ip -n "$ns" addr add "$v4.$host/24" dev "$iface"
      ip -n "$ns" addr add "${v6}:$host/64" dev "$iface" nodad
      ip -n "$ns" link set "$iface" up
    done
    trap - ERR
    if $env; then
      echo "RNIC_NS_A=$ns_a RNIC_IF_A=$if_a RNIC_MAC_A=$(mac_of "$ns_a" "$if_a") RNIC_IP4_A=$v4.1 RNIC_IP6_A=${v6}:1"
      echo "RNIC_NS_B=$ns_b RNIC_IF_B=$if_b RNIC_MAC_B=$(mac_of "$ns_b" "$if_b") RNIC_IP4_B=$v4.2 RNIC_IP6_B=${v6}:2"
      if [[ -n $hop ]]; then
        echo "RNIC_NS_HOP=$ns_h RNIC_IF_HOP_A=$hop_a RNIC_IF_HOP_B=$hop_b"
      fi
    else
      echo "topology $name: up"
      status
    fi
    ;;
  down)
    down
    echo "topology $name: down"
    ;;
  status)
    status
    ;;
  impair)
    impair
    ;;
  congest)
    congest
    ;;
  counters)
    counters
    ;;
  *)
    usage
    ;;
esac
