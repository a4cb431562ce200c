#!/usr/bin/env bash
# The DCQCN figures: runs `rnic cc-sim` (two RC flows into a 10 Gb/s bottleneck with RED/ECN marking, on a virtual
# clock, with DCQCN and without congestion control) and writes OUT_DIR/cc-sim.html — inline SVG charts of each
# flow's throughput and DCQCN rate and of the queue depth over time — plus the time series as CSV.
# No plotting library needed: the page is written by io.rnic.simulation.CongestionPlot.
#   deploy/cc/plot.sh [OUT_DIR] [cc-sim options, e.g. --params paper --flows 3]
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
out=${1:-$root/target/cc-sim} # generated: the recorded runs are under docs/evidence/cc-sim
shift || true
"$root/bin/rnic" cc-sim --out "$out" "$@"
echo "open $out/cc-sim.html"
