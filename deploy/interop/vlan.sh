#!/usr/bin/env bash
# Interop on an 802.1Q VLAN with Linux: the rxe guest on a kernel VLAN device (eth0.10, egress-qos-map 0:0 … 7:7),
# our rping on rxhost0 tagging its frames itself (--vlan 10; this host's kernel has no 8021q), connected through the
# RDMA CM at ToS 104 (DSCP 26). A capture on the guest's bridge shows each frame's VLAN, PCP and DSCP; the script
# prints them per sender and fails unless every RoCEv2 and ARP frame either way is on VLAN 10 and every RoCEv2
# packet of the connection carries DSCP 26. Boots the guest and always shuts it down: run it under the guest's lock,
#
#   flock /tmp/rnic-rxe-guest.lock deploy/interop/vlan.sh [OUTDIR]
set -euo pipefail
REPO=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
RXE=$(cd "$REPO/../shared/rxe-peer" && pwd)
OUT=${1:-/tmp/rnic-interop-vlan/$(date +%Y%m%d-%H%M%S)}
NS=rx0
mkdir -p "$OUT"
CAPTURE_PID=
cleanup() {
  if [[ -n $CAPTURE_PID ]]; then kill "$CAPTURE_PID" 2>/dev/null || true; fi
  "$RXE/down.sh" > /dev/null 2>&1 || true
}
trap cleanup EXIT
g() { "$RXE/guest.sh" "$@"; }

# shellcheck source=deploy/lib/find-jdk.sh
. "$REPO/deploy/lib/find-jdk.sh"
rnic_find_jdk || { rnic_jdk_missing; exit 2; }
export JAVA_HOME=$RNIC_JAVA_HOME
(cd "$REPO" && mvn -B -o -q -DskipTests package) > "$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
"$RXE/build.sh" > "$OUT/harness-build.log" 2>&1 || { tail -20 "$OUT/harness-build.log"; exit 1; }
if ip netns list | grep -qw "$NS"; then "$RXE/down.sh" > /dev/null 2>&1 || true; fi
"$RXE/up.sh" 1 > "$OUT/harness-up.log" 2>&1 || { tail -20 "$OUT/harness-up.log"; exit 1; }

# The harness's guest image carries only the modules rxe needs: 802.1Q and its dependencies come from the same
# Debian kernel package, shipped in as base64 in chunks (a bash -c argument holds 128 KiB at most) and insmod-ed.
KDEB=$(find "${RXE_DIR:-/tmp/rxe-peer}/debs" -name 'linux-image-*.deb' 2>/dev/null | head -1 || true)
[[ -n $KDEB ]] || { echo "vlan: no guest kernel package in ${RXE_DIR:-/tmp/rxe-peer}/debs (the harness's build.sh)" >&2; exit 2; }
KX=$OUT/kx
mkdir -p "$KX"
dpkg-deb --fsys-tarfile "$KDEB" | tar -x -C "$KX" --wildcards './lib/modules/*/kernel/net/8021q/8021q.ko' \
  './lib/modules/*/kernel/net/802/garp.ko' './lib/modules/*/kernel/net/802/mrp.ko' \
  './lib/modules/*/kernel/net/802/stp.ko' './lib/modules/*/kernel/net/llc/llc.ko'
for m in llc stp garp mrp 8021q; do
  ko=$(find "$KX" -name "$m.ko" | head -1)
  g 1 "rm -f /tmp/$m.b64" > /dev/null
  base64 -w 60000 "$ko" | while read -r chunk; do g 1 "echo $chunk >> /tmp/$m.b64" > /dev/null; done
  g 1 "base64 -d /tmp/$m.b64 > /tmp/$m.ko && (lsmod | grep -qw ^$m || insmod /tmp/$m.ko)" || { echo "vlan: insmod $m failed" >&2; exit 1; }
done

# the guest: VLAN 10 on eth0, rxe0 gets its address as a GID (ndev eth0.10)
# shellcheck disable=SC2016 # expanded by the guest's shell
g 1 'ip link add link eth0 name eth0.10 type vlan id 10 egress-qos-map 0:0 1:1 2:2 3:3 4:4 5:5 6:6 7:7 &&
  ip addr add 10.77.10.2/24 dev eth0.10 && ip link set eth0.10 up && sleep 2 &&
  cd /sys/class/infiniband/rxe0/ports/1 && for i in gids/*; do n=${i#gids/};
    [[ $(cat "$i") != 0000:0000:0000:0000:0000:0000:0000:0000 ]] &&
    echo "GID[$n] $(cat "$i") $(cat gid_attrs/ndevs/"$n" 2>/dev/null)"; done; true' > "$OUT/guest-gids.txt" 2>&1 || true
cat "$OUT/guest-gids.txt"
# our side: an address on the VLAN's subnet, which the port takes as a GID (the frames are tagged by the engine)
ip -n "$NS" addr add 10.77.10.1/24 dev rxhost0

ip netns exec "$NS" tcpdump -i rxbr0 -U --immediate-mode -w "$OUT/vlan.pcap" > /dev/null 2>&1 &
CAPTURE_PID=$!
sleep 1
g 1 "rm -f /tmp/s.log; (timeout 120 rping -s -v -C 5 -S 64 -a 10.77.10.2; echo \"exit=\$?\") > /tmp/s.log 2>&1 &"
sleep 1
rc=0
timeout 150 ip netns exec "$NS" "$REPO/bin/rnic" rping --iface rxhost0 --vlan 10 -c -a 10.77.10.2 -I 10.77.10.1 \
  -t 104 -v -V -C 5 -S 64 --timeout-ms 90000 > "$OUT/rnic.txt" 2>&1 || rc=$?
# shellcheck disable=SC2016 # expanded by the guest's shell
g -t 130 1 'for i in $(seq 600); do grep -q "^exit=" /tmp/s.log && break; sleep 0.2; done; cat /tmp/s.log' \
  > "$OUT/guest.txt" 2>&1 || true
sleep 0.5
kill "$CAPTURE_PID" 2>/dev/null || true; wait "$CAPTURE_PID" 2>/dev/null || true; CAPTURE_PID=
grc=$(sed -n 's/^exit=//p' "$OUT/guest.txt" | tail -1)
echo "rnic rping client: exit $rc; guest rping server: exit ${grc:-none}, $(grep -c '^server ping data' "$OUT/guest.txt" || true) pings"

# per sender: frames by VLAN id, PCP, EtherType/protocol, DSCP (QP1's CM MADs apart)
summary=$(tshark -r "$OUT/vlan.pcap" -Y 'arp || infiniband' -T fields -e eth.src -e vlan.id -e vlan.priority \
  -e ip.dsfield.dscp -e infiniband.bth.destqp 2>/dev/null |
  awk -F'\t' '{kind = $5 == "" ? "arp" : ($5 == "0x000001" ? "cm-mad" : "rc"); print $1, "vlan=" ($2 == "" ? "none" : $2), "pcp=" $3, "dscp=" $4, kind}' |
  sort | uniq -c)
echo "$summary" | tee "$OUT/summary.txt"
ok=1
[[ $rc == 0 && $grc == 0 ]] || ok=0
echo "$summary" | grep -q 'vlan=none' && ok=0                                # every ARP and RoCEv2 frame tagged
echo "$summary" | awk '$6 == "rc" && $5 != "dscp=26"' | grep -q . && ok=0    # the connection at DSCP 26
echo "$summary" | awk '$6 == "rc"' | grep -q '52:54:00:77:00:01' || ok=0      # both ways
echo "$summary" | awk '$6 == "rc"' | grep -q '52:54:00:77:00:02' || ok=0
if ((ok)); then echo "VLAN interop: PASS (outputs in $OUT)"; else echo "VLAN interop: FAIL (outputs in $OUT)"; exit 1; fi
