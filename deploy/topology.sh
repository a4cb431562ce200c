#!/usr/bin/env bash
# The test topology: two network namespaces joined by a veth pair, with IPv4 and IPv6 addresses and an MTU.
#
#   deploy/topology.sh up     [--name NAME] [--mtu MTU] [--v4 A.B.C] [--v6 PREFIX] [--env]
#   deploy/topology.sh down   [--name NAME]
#   deploy/topology.sh status [--name NAME]
#
# NAME (default rnic) gives namespaces NAMEa and NAMEb and interfaces NAME0 (in a) and NAME1 (in b). Addresses:
# A.B.C.1/24 and A.B.C.2/24 (default 10.91.0), PREFIX::1/64 and PREFIX::2/64 (default fd91::, no DAD so they work
# at once). `up` replaces a stale topology of the same name; `down` is idempotent. --env prints shell variables
# (RNIC_NS_A, RNIC_IF_A, RNIC_MAC_A, RNIC_IP4_A, RNIC_IP6_A and the same for B) instead of the summary.
set -euo pipefail

usage() {
  sed -n '3,10p' "$0" | sed 's/^# \{0,1\}//' >&2
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
while (($#)); do
  case $1 in
    --name) name=${2:?--name needs a value}; shift 2 ;;
    --mtu) mtu=${2:?--mtu needs a value}; shift 2 ;;
    --v4) v4=${2:?--v4 needs A.B.C}; v4=${v4%.0}; v4=${v4%.0/24}; shift 2 ;;
    --v6) v6=${2:?--v6 needs a prefix}; v6=${v6%::*}:; shift 2 ;;
    --env) env=true; shift ;;
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

ns_a=${name}a ns_b=${name}b if_a=${name}0 if_b=${name}1

down() {
  ip netns del "$ns_a" 2>/dev/null || true
  ip netns del "$ns_b" 2>/dev/null || true
  ip link del "$if_a" 2>/dev/null || true # a veth left in the root namespace by a half-done `up`
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
    ip netns add "$ns_a"
    ip netns add "$ns_b"
    ip link add "$if_a" mtu "$mtu" type veth peer name "$if_b" mtu "$mtu"
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
  *)
    usage
    ;;
esac
