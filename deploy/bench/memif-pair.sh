# Sourced by the memif benchmarks: one rnic tool's server and client over a fresh net_memif pair, each on a core of
# its own. The caller sets:
#   rnic        array: the command that runs rnic (bin/rnic, or java with a saved build's jar)
#   work        a scratch directory (server.log, client.log go there)
#   eal         EAL options shared by both sides
#   qp_timeout  the tools' -u
#   pids        array the caller's cleanup kills
# memif_pair TOOL ARGS...: server on CPU 1, client on CPU 0; prints the client's output; a failed client ends the
# calling script with both logs on stderr.
memif_pair() {
  local sock=/run/rnic-bench-$$-$RANDOM.sock
  "${rnic[@]}" "$@" -u "$qp_timeout" --timeout-ms 600000 --port dpdk -d net_memif0 --cpu 1 --ip 10.60.0.1/24 \
    --oob 127.0.0.1 \
    --eal "$eal --file-prefix rbs$$ --vdev=net_memif0,role=server,bsize=8192,socket=$sock" >"$work/server.log" 2>&1 &
  local server=$!; pids+=("$server")
  sleep 1 # the client's connect is retried for 10 s; this only spares it the first refusals
  "${rnic[@]}" "$@" -u "$qp_timeout" --timeout-ms 600000 --port dpdk -d net_memif0 --cpu 0 --ip 10.60.0.2/24 \
    --oob 127.0.0.1 \
    --eal "$eal --file-prefix rbc$$ --vdev=net_memif0,role=client,bsize=8192,socket=$sock" 10.60.0.1 >"$work/client.log" 2>&1 ||
    { echo "memif: rnic $* failed:" >&2; cat "$work/client.log" "$work/server.log" >&2; exit 1; }
  wait "$server" || true
  rm -f "$sock"
  cat "$work/client.log"
}
