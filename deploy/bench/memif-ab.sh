#!/usr/bin/env bash
# Two builds of rnic side by side over net_memif, alternating round by round (A B A B ...), so that a change is
# measured against its base on the same machine in the same minutes: the median of each build's rounds and their
# ratio. A build is a directory holding rnic.jar and jvm.options, as the build leaves them in perf/target:
#
#   mkdir -p /tmp/base && cp perf/target/rnic.jar perf/target/jvm.options /tmp/base    # before the change
#   ... change, mvn -DskipTests package ...
#   deploy/bench/memif-ab.sh /tmp/base perf/target [--size BYTES] [--rounds N] [--iters N] [--lat]
#
# write-bw at --size (default 4096, the ports' default path MTU 4096) for --iters WRITEs (default 3 000 000), or with
# --lat write-lat at --size (p50 of --iters round trips, default 100 000). Each side's busy thread on a core of its
# own (2 cores); root and DPDK as for memif-bench.sh. Prints a markdown table for BENCHMARKS.md.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
usage="usage: $0 BUILD_A BUILD_B [--size BYTES] [--rounds N] [--iters N] [--lat]"
(($# >= 2)) || { echo "$usage" >&2; exit 2; }
builds=("$(readlink -f "$1")" "$(readlink -f "$2")"); shift 2
size=4096; rounds=5; iters=; lat=0
while (($#)); do
  case $1 in
    --size) size=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --lat) lat=1; shift ;;
    *) echo "$usage" >&2; exit 2 ;;
  esac
done
for b in "${builds[@]}"; do
  [[ -f $b/rnic.jar && -f $b/jvm.options ]] || { echo "memif-ab: $b holds no rnic.jar and jvm.options" >&2; exit 2; }
done
. "$root/deploy/lib/find-jdk.sh"
rnic_find_jdk || { rnic_jdk_missing; exit 2; }
work=$(mktemp -d /tmp/memif-ab.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
eal="--no-huge -m 1024 --no-shconf --no-pci"
qp_timeout=18
. "$root/deploy/bench/memif-pair.sh"

measure() { # BUILD: one run; prints MB/s (write-bw) or the p50 in µs (write-lat)
  local flags
  read -ra flags <"$1/jvm.options"
  rnic=("$RNIC_JAVA_HOME/bin/java" "${flags[@]}" -cp "$1/rnic.jar" io.rnic.cli.RnicCli)
  local out
  if ((lat)); then
    out=$(memif_pair write-lat -s "$size" -n "${iters:-100000}" --warmup 300000)
    grep -o 'round trip \[usec\]: p50=[^ ]*' <<<"$out" | sed 's/.*p50=//'
  else
    out=$(memif_pair write-bw -s "$size" -n "${iters:-3000000}" --warmup 300000)
    grep -E "^ *$size +[0-9]+ " <<<"$out" | head -1 | awk '{print $4}'
  fi
}
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

what=$( ((lat)) && echo "write-lat -s $size p50 [µs]" || echo "write-bw -s $size [MB/s]")
echo "# memif-ab $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
echo "# A = ${builds[0]}, B = ${builds[1]}"
echo
echo "| round | A: $what | B: $what |"
echo "|---|---|---|"
a=(); b=()
for ((r = 1; r <= rounds; r++)); do
  a+=("$(measure "${builds[0]}")")
  b+=("$(measure "${builds[1]}")")
  echo "| $r | ${a[-1]} | ${b[-1]} |"
done
ma=$(printf '%s\n' "${a[@]}" | median); mb=$(printf '%s\n' "${b[@]}" | median)
echo "| **median** | **$ma** | **$mb** |"
echo
echo "B / A (medians): $(awk -v a="$ma" -v b="$mb" 'BEGIN {if (a > 0) printf "%.3f", b / a; else print "?"}')"
