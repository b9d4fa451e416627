#!/bin/sh
# farm.sh - a readout farm on this machine (loopback): BOARDS readout nodes
# (build/abb_readout_node, one board each) and the event builder
# (build/abb_builder). `make farm-demo` and `make farm-test` run it.
#
# Environment (defaults in brackets):
#   BOARDS [3]        readout nodes, boards 1..BOARDS
#   BUFFERS [300]     buffers per node
#   BUFSIZE [32K]     pool buffer size
#   DEVICE [model]    model, model:timed=1, or sim (each node: sim:clock=free,board=K)
#   KILL_BOARD [ ]    kill node K (kill -9) once the builder has built something
#   ON_FAULT [stop]   the builder's --on-fault (stop | continue)
#   FILTER_MBPS [ ]   slow filter stage (MB/s); default: 10 when KILL_BOARD is
#                     set (so that the run lasts past the kill), else none
#   RESTART_BUILDER [ ]  1: kill the builder mid-run and start a new one
#   PORT [ ]          base port (default: 10000 + pid % 20000)
#   B [build]         build directory
#   OUT [ ]           directory for the logs (default: a new temporary one)
# Every wait is bounded: the builder by LIMIT_S [120], the nodes (which wait
# for acknowledgements) are stopped 10 s after the builder ended. Prints the
# builder's farm: line last; exit status is the builder's.
set -u
B=${B:-build}
BOARDS=${BOARDS:-3}
BUFFERS=${BUFFERS:-300}
BUFSIZE=${BUFSIZE:-32K}
DEVICE=${DEVICE:-model}
KILL_BOARD=${KILL_BOARD:-}
ON_FAULT=${ON_FAULT:-stop}
RESTART_BUILDER=${RESTART_BUILDER:-}
LIMIT_S=${LIMIT_S:-120}
BUILDER_ARGS=${BUILDER_ARGS:-}
NODE_ARGS=${NODE_ARGS:-}
# below the ephemeral range (32768-60999): an outgoing connection never holds it
PORT=${PORT:-$((10000 + $$ % 20000))}
if [ -z "${FILTER_MBPS:-}" ] && { [ -n "$KILL_BOARD" ] || [ -n "$RESTART_BUILDER" ]; }; then
	FILTER_MBPS=10
fi
FILTER_MBPS=${FILTER_MBPS:-0}
OUT=${OUT:-$(mktemp -d /tmp/abb-farm-XXXXXX)}
mkdir -p "$OUT"

uri() {
	case "$DEVICE" in
	sim) echo "sim:clock=free,board=$1" ;;
	*) echo "$DEVICE" ;;
	esac
}

builder() {
	"$B/abb_builder" --boards "$BOARDS" --port "$PORT" --on-fault "$ON_FAULT" \
		--filter-mbps "$FILTER_MBPS" --dead-ms 1500 $BUILDER_ARGS >>"$OUT/builder.out" 2>>"$OUT/builder.err" &
	BPID=$!
	# the bound of the whole run: the builder stops on SIGTERM
	(i=0; while [ $i -lt "$LIMIT_S" ] && kill -0 "$BPID" 2>/dev/null; do sleep 1; i=$((i + 1)); done
	 kill -TERM "$BPID" 2>/dev/null) >/dev/null 2>&1 &
	WPID=$!
}
echo "farm: $BOARDS boards on $DEVICE, $BUFFERS buffers of $BUFSIZE each, ports $PORT..$((PORT + BOARDS)), logs in $OUT" >&2
builder
NPIDS=""
for k in $(seq 1 "$BOARDS"); do
	"$B/abb_readout_node" --board "$k" --buffers "$BUFFERS" --buffer-size "$BUFSIZE" \
		--port "$PORT" --device "$(uri "$k")" --resend-ms 1000 $NODE_ARGS \
		>"$OUT/node$k.out" 2>"$OUT/node$k.err" &
	NPIDS="$NPIDS $!"
	eval "NPID_$k=$!"
done

# wait (bounded) until the builder reports its first second, or a built range
built_something() {
	grep -q "events/s" "$OUT/builder.err" 2>/dev/null
}
if [ -n "$KILL_BOARD" ] || [ -n "$RESTART_BUILDER" ]; then
	i=0
	while ! built_something && kill -0 "$BPID" 2>/dev/null && [ $i -lt $((LIMIT_S * 10)) ]; do
		sleep 0.1
		i=$((i + 1))
	done
fi
if [ -n "$KILL_BOARD" ]; then
	eval "kp=\${NPID_$KILL_BOARD:-}"
	if [ -n "$kp" ]; then
		echo "farm: killing the readout node of board $KILL_BOARD (pid $kp)" >&2
		kill -9 "$kp" 2>/dev/null
	fi
fi
if [ -n "$RESTART_BUILDER" ]; then
	echo "farm: killing the builder (pid $BPID) and starting a new one" >&2
	kill -9 "$BPID" 2>/dev/null
	wait "$BPID" 2>/dev/null
	kill "$WPID" 2>/dev/null
	echo "--- builder restarted" >>"$OUT/builder.err"
	: >"$OUT/builder.out"
	builder
fi
wait "$BPID"
brc=$?
kill "$WPID" 2>/dev/null
# the nodes end with the builder's last acknowledgements; bounded
i=0
for p in $NPIDS; do
	while kill -0 "$p" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -TERM "$p" 2>/dev/null
	wait "$p" 2>/dev/null
done
cat "$OUT"/node*.out >&2
grep -v "events/s" "$OUT/builder.err" >&2
cat "$OUT/builder.out"
exit $brc
