#!/usr/bin/env bash
# Interop with Linux Soft-RoCE: the unmodified rdma-core and perftest tools in a QEMU guest running rdma_rxe
# (the shared harness ../shared/rxe-peer) against our bin/rnic tools on the host end of the guest's bridge
# (veth rxhost0 in netns rx0), every tool in both roles. Prints a pass/fail table; every tool's own output is
# kept in $OUT. Builds and boots what it needs and always shuts the guest down.
#
#   deploy/interop/run.sh [-o OUTDIR] [-n ITERS] [-f FILTER_REGEX] [--sizes "2 4096 65536"] [--keep-up] [--reuse]
#                         [--driver]
#
# --driver: our side runs through one `bin/rnic driver` on rxhost0 (started here, stopped at the end), each tool as
# its client (--driver DIR) instead of an engine of its own, the RDMA CM tests (perftest -R, rping) through the
# driver's connection manager.
# -f: only the tests whose name matches (e.g. 'pingpong|write'); --keep-up: leave the guest running;
# --reuse: use a guest that is already up (and leave it up) instead of building and booting one.
# Needs root (netns, QEMU). RX_MTU (default 1500: IB MTU 1024) is passed to the harness. While the file
# RNIC_BENCH_LOCK (default /tmp/rnic-bench.lock) exists, a latency benchmark runs: each test waits for it to go.
set -euo pipefail
REPO=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
RXE=$(cd "$REPO/../shared/rxe-peer" && pwd) || { echo "interop: the harness $REPO/../shared/rxe-peer is missing" >&2; exit 1; }
BENCH_LOCK=${RNIC_BENCH_LOCK:-/tmp/rnic-bench.lock}
OUT=/tmp/rnic-interop/$(date +%Y%m%d-%H%M%S)
ITERS=100
FILTER=.
SIZES="2 4096 65536"
KEEP_UP=0
REUSE=0
DRIVER=0
while (($#)); do
  case $1 in
    -o) OUT=$2; shift 2 ;;
    -n) ITERS=$2; shift 2 ;;
    -f) FILTER=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --keep-up) KEEP_UP=1; shift ;;
    --reuse) REUSE=1; KEEP_UP=1; shift ;;
    --driver) DRIVER=1; shift ;;
    *) echo "usage: $0 [-o OUTDIR] [-n ITERS] [-f FILTER_REGEX] [--sizes \"2 4096 65536\"] [--keep-up] [--reuse] [--driver]" >&2; exit 2 ;;
  esac
done
export RX_MTU=${RX_MTU:-1500}
NS=rx0 IF=rxhost0 GUEST=10.77.0.2
T_GUEST=${T_GUEST:-120}        # seconds a guest tool may take
T_RNIC_MS=${T_RNIC_MS:-90000}  # our tools' --timeout-ms
mkdir -p "$OUT"
log() { printf '[interop %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

# The machine is shared with latency benchmarks: never start CPU-heavy work while one runs.
wait_bench() {
  while [[ -e $BENCH_LOCK ]]; do log "benchmark lock $BENCH_LOCK present: waiting"; sleep 30; done
}

DRIVER_DIR=/dev/shm/rnic-interop$$
DRIVER_PID=
cleanup() {
  local pid
  if [[ -n $DRIVER_PID ]]; then kill -TERM "$DRIVER_PID" 2>/dev/null || true; wait "$DRIVER_PID" 2>/dev/null || true; fi
  rm -rf "$DRIVER_DIR"
  for pid in $(jobs -p); do kill "$pid" 2>/dev/null || true; done
  if ((KEEP_UP == 0)); then "$RXE/down.sh" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_bench
# shellcheck source=deploy/lib/find-jdk.sh
. "$REPO/deploy/lib/find-jdk.sh"
rnic_find_jdk || { rnic_jdk_missing; exit 2; }
export JAVA_HOME=$RNIC_JAVA_HOME
log "building rnic"
(cd "$REPO" && mvn -B -o -q -DskipTests package) > "$OUT/build.log" 2>&1 || { cat "$OUT/build.log"; exit 1; }
g() { "$RXE/guest.sh" "$@"; }
if ((REUSE)) && g -t 5 1 true >/dev/null 2>&1; then
  log "reusing the running guest 1"
else
  log "building and booting the rxe guest"
  "$RXE/build.sh" > "$OUT/harness-build.log" 2>&1 || { tail -20 "$OUT/harness-build.log"; exit 1; }
  if ip netns list | grep -qw "$NS"; then "$RXE/down.sh" >/dev/null 2>&1 || true; fi
  "$RXE/up.sh" 1 > "$OUT/harness-up.log" 2>&1 || { tail -20 "$OUT/harness-up.log"; exit 1; }
fi
# shellcheck disable=SC2016 # expanded by the guest's shell
g 1 'uname -r; dpkg-query -W -f="\${Package} \${Version}\n" perftest ibverbs-utils rdma-core 2>/dev/null; ibv_devinfo -d rxe0 | grep -E "active_mtu|state"' > "$OUT/guest-info.txt" 2>&1 || true
COUNTERS='cd /sys/class/infiniband/rxe0/ports/1/hw_counters && grep -H . * | sed "s/:/ /"'
g 1 "$COUNTERS" > "$OUT/hw_counters.before" 2>&1 || true
RNIC=("$REPO/bin/rnic")
PORT=(-d "$IF")   # how our tools reach the port: their own engine on the interface, or a driver's
RPING_PORT=(--iface "$IF") # rping's -d is debug, as in librdmacm's
if ((DRIVER)); then
  log "starting bin/rnic driver on $IF ($DRIVER_DIR)"
  ip netns exec "$NS" "${RNIC[@]}" driver -d "$IF" --dir "$DRIVER_DIR" --idle yield > "$OUT/driver.txt" 2>&1 &
  DRIVER_PID=$!
  for _ in $(seq 600); do
    [[ -f $DRIVER_DIR/cnc.dat ]] && "${RNIC[@]}" devinfo --dir "$DRIVER_DIR" >/dev/null 2>&1 && break
    kill -0 "$DRIVER_PID" 2>/dev/null || { cat "$OUT/driver.txt" >&2; exit 1; }
    sleep 0.1
  done
  PORT=(--driver "$DRIVER_DIR")
  RPING_PORT=(--driver "$DRIVER_DIR")
fi

RESULTS=()
SKIPPED=()
NO_TCP=0
record() {  # name role result detail
  RESULTS+=("$(printf '| %-34s | %-22s | %-4s | %s |' "$1" "$2" "$3" "$4")")
  log "$1 [$2]: $3 $4"
}

# With CHECK_DSCP set (a DSCP, 0-63), each test runs under a capture on the guest's bridge (tcpdump in $NS on
# rxbr0) and passes a second check: every RoCEv2 packet of the connections (QP1's CM MADs aside) carried that DSCP,
# both ways (tshark reads the IP header).
CHECK_DSCP=
CAPTURE_PID=
capture_start() {  # pcap-file
  [[ -n $CHECK_DSCP ]] || return 0
  ip netns exec "$NS" tcpdump -i rxbr0 -U --immediate-mode -w "$1" udp port 4791 > /dev/null 2>&1 &
  CAPTURE_PID=$!
  for _ in $(seq 50); do [[ -s $1 ]] && break; sleep 0.1; done # tcpdump writes the file header once it listens
}
capture_check() {  # name role pcap-file
  [[ -n $CHECK_DSCP ]] || return 0
  sleep 0.5
  kill "$CAPTURE_PID" 2>/dev/null || true; wait "$CAPTURE_PID" 2>/dev/null || true
  # "count source destination-QP dscp" for every RoCEv2 packet but the CM's MADs (QP1): a QP's packets all at one
  # DSCP, and each side sends at $CHECK_DSCP on at least one QP (perftest's -R exchange connects its QP without the
  # -T, as perftest sets the ToS on the test QP's cm_id only: DSCP 0 there)
  local seen
  seen=$(tshark -r "$3" -Y 'infiniband && infiniband.bth.destqp != 1' -T fields -e ip.src -e infiniband.bth.destqp \
    -e ip.dsfield.dscp 2>/dev/null | sort | uniq -c | awk 'NF == 4 {print $1, $2, $3, $4}' || true)
  local detail
  detail=$(echo "$seen" | awk 'NF == 4 {printf "%s%s from %s to QP %s at DSCP %s", (NR > 1 ? ", " : ""), $1, $2, $3, $4}' || true)
  local qps lines
  qps=$(echo "$seen" | awk 'NF == 4 {print $2, $3}' | sort -u | wc -l)
  lines=$(echo "$seen" | awk 'NF == 4' | wc -l)
  if [[ -n $seen && $qps == "$lines" ]] &&
    echo "$seen" | awk -v d="$CHECK_DSCP" '$2 == "10.77.0.1" && $4 == d' | grep -q . &&
    echo "$seen" | awk -v d="$CHECK_DSCP" '$2 == "10.77.0.2" && $4 == d' | grep -q .; then
    record "$1 DSCP $CHECK_DSCP" "$2" PASS "$detail"
  else
    record "$1 DSCP $CHECK_DSCP" "$2" FAIL "${detail:-no RoCEv2 packets captured}"
  fi
}

# guest server + rnic client
run_guest_server() {  # name guest-cmd rnic-tool rnic-args...
  local name=$1 gcmd=$2 tool=$3; shift 3
  local f="$OUT/$name.guest-server"
  wait_bench
  capture_start "$f.pcap"
  g 1 "pkill -x -f '^(ib_|ibv_).*' 2>/dev/null; rm -f /tmp/s.log; (timeout $T_GUEST $gcmd; echo \"exit=\$?\") > /tmp/s.log 2>&1 &" >/dev/null || true
  sleep 1
  local rc=0
  timeout $((T_RNIC_MS / 1000 + 30)) ip netns exec "$NS" "${RNIC[@]}" "$tool" "${PORT[@]}" "$@" --timeout-ms "$T_RNIC_MS" "$GUEST" \
    > "$f.rnic.txt" 2>&1 || rc=$?
  g -t $((T_GUEST + 10)) 1 "for i in \$(seq $((T_GUEST * 5))); do grep -q '^exit=' /tmp/s.log && break; sleep 0.2; done; cat /tmp/s.log" \
    > "$f.guest.txt" 2>&1 || true
  local grc; grc=$(sed -n 's/^exit=//p' "$f.guest.txt" | tail -1)
  if [[ $rc == 0 && $grc == 0 ]]; then record "$name" "guest server/rnic client" PASS ""
  else record "$name" "guest server/rnic client" FAIL "rnic exit $rc, guest exit ${grc:-none}"; fi
  capture_check "$name" "guest server/rnic client" "$f.pcap"
}

# waits (up to 30 s) until a client of the driver listens on an RDMA CM port, as `stat` shows it
await_driver_listener() {  # pid-of-the-tool
  for _ in $(seq 60); do
    "${RNIC[@]}" stat --dir "$DRIVER_DIR" 2>/dev/null |
      grep -Eq '^ *[0-9]+: +[1-9][0-9,]* - driver RDMA CM ports listened on$' && return 0
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.5
  done
}

# rnic server + guest client
run_rnic_server() {  # name guest-cmd rnic-tool rnic-args...
  local name=$1 gcmd=$2 tool=$3; shift 3
  local f="$OUT/$name.rnic-server"
  wait_bench
  capture_start "$f.pcap"
  timeout $((T_RNIC_MS / 1000 + 30)) ip netns exec "$NS" "${RNIC[@]}" "$tool" "${PORT[@]}" "$@" --timeout-ms "$T_RNIC_MS" \
    > "$f.rnic.txt" 2>&1 &
  local pid=$!
  if ((NO_TCP && DRIVER)); then
    await_driver_listener "$pid" # the driver's CM rejects a REQ at once until the tool listens, as the kernel's
  elif ((NO_TCP)); then
    sleep 3 # -R: no TCP port to wait for: the JVM starts and creates its GSI QP (a REQ before that is retried)
  else
    for _ in $(seq 150); do
      ip netns exec "$NS" ss -ltnH 'sport = :18515' 2>/dev/null | grep -q . && break
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.2
    done
  fi
  g -t $((T_GUEST + 10)) 1 "timeout $T_GUEST $gcmd 10.77.0.1; echo exit=\$?" > "$f.guest.txt" 2>&1 || true
  local grc; grc=$(sed -n 's/^exit=//p' "$f.guest.txt" | tail -1)
  local rc=0; wait "$pid" || rc=$?
  if [[ $rc == 0 && $grc == 0 ]]; then record "$name" "rnic server/guest client" PASS ""
  else record "$name" "rnic server/guest client" FAIL "rnic exit $rc, guest exit ${grc:-none}"; fi
  capture_check "$name" "rnic server/guest client" "$f.pcap"
}

both() {  # name guest-cmd rnic-tool rnic-args...
  [[ $1 =~ $FILTER ]] || return 0
  run_guest_server "$@"
  run_rnic_server "$@"
}

PT="-d rxe0 -x 1 -F -n $ITERS"
both "ibv_rc_pingpong-s4096" "ibv_rc_pingpong -d rxe0 -g 1 -n $ITERS -s 4096" rc-pingpong -g 1 -n "$ITERS" -s 4096
both "ibv_rc_pingpong-s64" "ibv_rc_pingpong -d rxe0 -g 1 -n $ITERS -s 64" rc-pingpong -g 1 -n "$ITERS" -s 64
both "ibv_ud_pingpong-s1024" "ibv_ud_pingpong -d rxe0 -g 1 -n $ITERS -s 1024" ud-pingpong -g 1 -n "$ITERS" -s 1024
both "ibv_uc_pingpong-s4096" "ibv_uc_pingpong -d rxe0 -g 1 -n $ITERS -s 4096" uc-pingpong -g 1 -n "$ITERS" -s 4096
# -q QPs (default 16) on one shared receive queue each side; -n counts the messages of all QPs together (with
# --driver the SRQ is the driver's, its ring in the tool's shared memory)
both "ibv_srq_pingpong-s4096" "ibv_srq_pingpong -d rxe0 -g 1 -n $ITERS -s 4096" srq-pingpong -g 1 -n "$ITERS" -s 4096
both "ibv_srq_pingpong-q4-s64" "ibv_srq_pingpong -d rxe0 -g 1 -n $ITERS -q 4 -r 8 -s 64" srq-pingpong -g 1 -n "$ITERS" -q 4 -r 8 -s 64
for s in $SIZES; do
  both "ib_write_bw-s$s" "ib_write_bw $PT -s $s" write-bw -x 1 -n "$ITERS" -s "$s"
  both "ib_write_lat-s$s" "ib_write_lat $PT -s $s" write-lat -x 1 -n "$ITERS" -s "$s"
  both "ib_read_bw-s$s" "ib_read_bw $PT -s $s" read-bw -x 1 -n "$ITERS" -s "$s"
  both "ib_read_lat-s$s" "ib_read_lat $PT -s $s" read-lat -x 1 -n "$ITERS" -s "$s"
  both "ib_send_bw-s$s" "ib_send_bw $PT -s $s" send-bw -x 1 -n "$ITERS" -s "$s"
  both "ib_send_lat-s$s" "ib_send_lat $PT -s $s" send-lat -x 1 -n "$ITERS" -s "$s"
done
both "ib_atomic_bw-FETCH_AND_ADD" "ib_atomic_bw $PT -A FETCH_AND_ADD" atomic-bw -x 1 -n "$ITERS" -A FETCH_AND_ADD
both "ib_atomic_bw-CMP_AND_SWAP" "ib_atomic_bw $PT -A CMP_AND_SWAP" atomic-bw -x 1 -n "$ITERS" -A CMP_AND_SWAP
both "ib_atomic_lat-FETCH_AND_ADD" "ib_atomic_lat $PT -A FETCH_AND_ADD" atomic-lat -x 1 -n "$ITERS" -A FETCH_AND_ADD

# perftest -R: the exchange over a QP the RDMA CM connects to port 18515, the test QP through a second CM connection
NO_TCP=1
for s in $SIZES; do
  both "ib_write_bw-R-s$s" "ib_write_bw $PT -R -s $s" write-bw -R -x 1 -n "$ITERS" -s "$s"
done
both "ib_read_bw-R-s4096" "ib_read_bw $PT -R -s 4096" read-bw -R -x 1 -n "$ITERS" -s 4096
both "ib_send_bw-R-s4096" "ib_send_bw $PT -R -s 4096" send-bw -R -x 1 -n "$ITERS" -s 4096
both "ib_write_lat-R-s64" "ib_write_lat $PT -R -s 64" write-lat -R -x 1 -n "$ITERS" -s 64
both "ib_read_lat-R-s64" "ib_read_lat $PT -R -s 64" read-lat -R -x 1 -n "$ITERS" -s 64
both "ib_send_lat-R-s64" "ib_send_lat $PT -R -s 64" send-lat -R -x 1 -n "$ITERS" -s 64
both "ib_atomic_bw-R-FETCH_AND_ADD" "ib_atomic_bw $PT -R -A FETCH_AND_ADD" atomic-bw -R -x 1 -n "$ITERS" -A FETCH_AND_ADD
both "ib_atomic_lat-R-FETCH_AND_ADD" "ib_atomic_lat $PT -R -A FETCH_AND_ADD" atomic-lat -R -x 1 -n "$ITERS" -A FETCH_AND_ADD
# -R with -q: one CM connection per test QP to the same port (perftest: each QP its own rdma_cm id)
# several QPs over perftest's TCP exchange: each QP's keys in two rounds, perftest keeping the second (ib_send_bw
# meets once with QP 0's keys between the rounds)
both "ib_write_bw-q2" "ib_write_bw $PT -q 2 -s 4096" write-bw -x 1 -n "$ITERS" -s 4096 -q 2
both "ib_read_bw-q2" "ib_read_bw $PT -q 2 -s 4096" read-bw -x 1 -n "$ITERS" -s 4096 -q 2
both "ib_send_bw-q2" "ib_send_bw $PT -q 2 -s 4096" send-bw -x 1 -n "$ITERS" -s 4096 -q 2
both "ib_write_bw-R-q4" "ib_write_bw $PT -R -q 4 -s 4096" write-bw -R -x 1 -n "$ITERS" -s 4096 -q 4
both "ib_send_bw-R-q2" "ib_send_bw $PT -R -q 2 -s 4096" send-bw -R -x 1 -n "$ITERS" -s 4096 -q 2
both "ib_read_bw-R-q2" "ib_read_bw $PT -R -q 2 -s 4096" read-bw -R -x 1 -n "$ITERS" -s 4096 -q 2
NO_TCP=0

# rping: the connection through RDMA CM MADs on QP1 (no TCP exchange), then COUNT pings of SIZE bytes
RPING_ARGS="-v -C $((ITERS < 20 ? ITERS : 20)) -S 64"
RPING_RNIC_ARGS= # ours only
RPING_NAME=rping
rping_guest_server() {
  local name=$RPING_NAME f="$OUT/$RPING_NAME.guest-server"
  wait_bench
  capture_start "$f.pcap"
  g 1 "pkill -x -f '^rping.*' 2>/dev/null; rm -f /tmp/s.log; (timeout $T_GUEST rping $RPING_ARGS -s -a $GUEST; echo \"exit=\$?\") > /tmp/s.log 2>&1 &" >/dev/null || true
  sleep 1
  local rc=0
  # shellcheck disable=SC2086 # RPING_ARGS is a space-separated list of options
  timeout $((T_RNIC_MS / 1000 + 30)) ip netns exec "$NS" "${RNIC[@]}" rping "${RPING_PORT[@]}" $RPING_ARGS $RPING_RNIC_ARGS -V -c -a "$GUEST" \
    --timeout-ms "$T_RNIC_MS" > "$f.rnic.txt" 2>&1 || rc=$?
  g -t $((T_GUEST + 10)) 1 "for i in \$(seq $((T_GUEST * 5))); do grep -q '^exit=' /tmp/s.log && break; sleep 0.2; done; cat /tmp/s.log" \
    > "$f.guest.txt" 2>&1 || true
  local grc; grc=$(sed -n 's/^exit=//p' "$f.guest.txt" | tail -1)
  local pings; pings=$(grep -c '^server ping data: rdma-ping-' "$f.guest.txt" || true)
  if [[ $rc == 0 && $grc == 0 ]]; then record "$name" "guest server/rnic client" PASS "$pings pings"
  else record "$name" "guest server/rnic client" FAIL "rnic exit $rc, guest exit ${grc:-none}, $pings pings"; fi
  capture_check "$name" "guest server/rnic client" "$f.pcap"
}
rping_rnic_server() {
  local name=$RPING_NAME f="$OUT/$RPING_NAME.rnic-server"
  wait_bench
  capture_start "$f.pcap"
  # shellcheck disable=SC2086 # RPING_ARGS is a space-separated list of options
  timeout $((T_RNIC_MS / 1000 + 30)) ip netns exec "$NS" "${RNIC[@]}" rping "${RPING_PORT[@]}" $RPING_ARGS -s -a 10.77.0.1 \
    --timeout-ms "$T_RNIC_MS" > "$f.rnic.txt" 2>&1 &
  local pid=$!
  if ((DRIVER)); then
    await_driver_listener "$pid"
  else
    sleep 3 # no TCP port to wait for: the JVM starts and creates its GSI QP (a REQ before that is retried)
  fi
  g -t $((T_GUEST + 10)) 1 "timeout $T_GUEST rping $RPING_ARGS -V -c -a 10.77.0.1; echo exit=\$?" > "$f.guest.txt" 2>&1 || true
  local grc; grc=$(sed -n 's/^exit=//p' "$f.guest.txt" | tail -1)
  local rc=0; wait "$pid" || rc=$?
  local pings; pings=$(grep -c '^ping data: rdma-ping-' "$f.guest.txt" || true)
  if [[ $rc == 0 && $grc == 0 ]]; then record "$name" "rnic server/guest client" PASS "$pings pings"
  else record "$name" "rnic server/guest client" FAIL "rnic exit $rc, guest exit ${grc:-none}, $pings pings"; fi
  capture_check "$name" "rnic server/guest client" "$f.pcap"
}
if [[ rping =~ $FILTER ]]; then
  rping_guest_server
  rping_rnic_server
fi

# Type of service: the RDMA CM's ToS (perftest -T with -R, rping -t; rdma_set_option RDMA_OPTION_ID_TOS), 0x68 =
# DSCP 26, on both sides; the REQ carries it as the traffic class, both QPs send at it. Each run is captured on the
# bridge and every packet's DSCP checked, both ways.
TOS=104
CHECK_DSCP=$((TOS >> 2))
NO_TCP=1
both "ib_write_bw-R-tos$TOS" "ib_write_bw $PT -R -T $TOS -s 4096" write-bw -R -T "$TOS" -x 1 -n "$ITERS" -s 4096
both "ib_send_lat-R-tos$TOS" "ib_send_lat $PT -R -T $TOS -s 64" send-lat -R -T "$TOS" -x 1 -n "$ITERS" -s 64
NO_TCP=0
# rdma-core 44's rping has no ToS option (no -t): our client sets it, the guest's server takes it from the REQ; the
# other role cannot be given a ToS
RPING_NAME=rping-tos$TOS
if [[ $RPING_NAME =~ $FILTER ]]; then
  RPING_RNIC_ARGS="-t $TOS"
  rping_guest_server
  RPING_RNIC_ARGS=
fi
CHECK_DSCP=

# memory windows: deploy/interop/mw_peer.c, built here against rdma-core's libibverbs (the guest's is the same
# rdma-core 44) and shipped into the guest, serves the exchange; `bin/rnic mw-peer` reads, writes and invalidates
# (SEND_WITH_INV) rxe's type 1 and type 2 windows, then rxe does the same to ours; with --driver through the driver.
mw_case() {
  local name=memory-windows f="$OUT/memory-windows" role="rxe's windows, then ours"
  wait_bench
  # rdma-core's headers (the guest's libibverbs is rdma-core 44 too, Debian 12's)
  if [[ ! -e /usr/include/infiniband/verbs.h ]]; then
    env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends libibverbs-dev gcc libc6-dev \
      > "$f.install.txt" 2>&1 || true
  fi
  if ! gcc -O2 -Wall -s -o "$OUT/mw_peer" "$REPO/deploy/interop/mw_peer.c" -libverbs > "$f.build.txt" 2>&1; then
    record "$name" "$role" FAIL "gcc: $(head -1 "$f.build.txt")"; return 0
  fi
  g 1 "pkill -x mw_peer 2>/dev/null; echo $(base64 -w0 "$OUT/mw_peer") | base64 -d > /root/mw_peer && chmod +x /root/mw_peer && rm -f /tmp/mw.log && ((timeout $T_GUEST /root/mw_peer -d rxe0 -g 1; echo \"exit=\$?\") > /tmp/mw.log 2>&1 &)" >/dev/null || true
  g -t 30 1 "for i in \$(seq 100); do grep -q '^listening' /tmp/mw.log && break; sleep 0.2; done" >/dev/null || true
  local rc=0 port=(-d "$IF" --pcap "$f.pcap")
  ((DRIVER)) && port=("${PORT[@]}")
  timeout $((T_RNIC_MS / 1000 + 30)) ip netns exec "$NS" "${RNIC[@]}" mw-peer "${port[@]}" -x 1 --timeout-ms 20000 "$GUEST" \
    > "$f.rnic.txt" 2>&1 || rc=$?
  g -t $((T_GUEST + 10)) 1 "for i in \$(seq $((T_GUEST * 5))); do grep -q '^exit=' /tmp/mw.log && break; sleep 0.2; done; cat /tmp/mw.log" \
    > "$f.guest.txt" 2>&1 || true
  local grc; grc=$(sed -n 's/^exit=//p' "$f.guest.txt" | tail -1)
  local checks; checks=$(cat "$f.rnic.txt" "$f.guest.txt" | grep -c '^ok ' || true)
  if [[ $rc == 0 && $grc == 0 ]]; then record "$name" "$role" PASS "$checks checks"
  else record "$name" "$role" FAIL "rnic exit $rc, guest exit ${grc:-none}, $checks checks ok"; fi
}
if [[ memory-windows =~ $FILTER ]]; then
  mw_case
fi

g 1 "$COUNTERS" > "$OUT/hw_counters.after" 2>&1 || true
{
  echo "rxe interop $(date -u '+%Y-%m-%d %H:%M UTC'), RX_MTU=$RX_MTU, -n $ITERS,$( ((DRIVER)) && echo ' our side through bin/rnic driver,') guest: $(head -1 "$OUT/guest-info.txt"), rnic $(git -C "$REPO" rev-parse --short HEAD)"
  echo
  echo "| test | role | result | detail |"
  echo "| --- | --- | --- | --- |"
  printf '%s\n' "${RESULTS[@]}"
  echo
  if ((${#SKIPPED[@]})); then
    echo "not run:"
    printf '  %s\n' "${SKIPPED[@]}"
    echo
  fi
  echo "guest rxe0 hw_counters that changed during the runs (before -> after):"
  join <(sort "$OUT/hw_counters.before") <(sort "$OUT/hw_counters.after") | awk '$2 != $3 {printf "  %-28s %10s -> %s\n", $1, $2, $3}' || true
} | tee "$OUT/results.md"
pass=$(printf '%s\n' "${RESULTS[@]}" | grep -c '| PASS |' || true)
echo "$pass of ${#RESULTS[@]} passed; outputs in $OUT"
[[ $pass == "${#RESULTS[@]}" ]]
