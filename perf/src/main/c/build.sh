#!/usr/bin/env bash
# Builds the C baselines of the latency benchmark into OUT (default perf/target/c).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$here/../../../target/c}
mkdir -p "$out"
for program in raw_pingpong udp_pingpong; do
  gcc -O2 -Wall -Wextra -Werror -o "$out/$program" "$here/$program.c"
done
echo "$out"
