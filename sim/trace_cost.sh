#!/bin/bash
# trace_cost.sh TRACED NOTRACE RUNS BUILD - make trace-cost (sim/wave.mk)
set -euo pipefail
traced=$1 notrace=$2 runs=$3 b=$4
cps() { "$@" | sed -n 's/.*cycles_per_s=\([0-9.]*\).*/\1/p'; }
ta=() na=()
for i in $(seq "$runs"); do
	na+=("$(cps "$notrace")")
	ta+=("$(cps "$traced")")
done
stats() { printf '%s\n' "$@" | awk '{ s += $1; q += $1 * $1; n++ } END { m = s / n; v = q / n - m * m; if (v < 0) v = 0; printf "%.0f %.0f", m, sqrt(v) }'; }
read -r nm ns <<< "$(stats "${na[@]}")"
read -r tm tsd <<< "$(stats "${ta[@]}")"
echo "trace-cost: without tracing compiled in: ${na[*]} cycles/s"
echo "trace-cost: tracing compiled in, off:    ${ta[*]} cycles/s"
awk -v nm="$nm" -v ns="$ns" -v tm="$tm" -v tsd="$tsd" -v r="$runs" 'BEGIN {
	printf "trace-cost: mean %.0f (sd %.0f, %.1f %%) vs %.0f (sd %.0f, %.1f %%) cycles/s over %d runs each\n", nm, ns, 100 * ns / nm, tm, tsd, 100 * tsd / tm, r;
	printf "trace-cost: compiled in but off / not compiled in = %.4f (difference %.1f %%; run-to-run noise %.1f %%)\n", tm / nm, 100 * (tm - nm) / nm, 100 * (ns > tsd ? ns : tsd) / nm }'
# a window of 20000 cycles in the middle of the same run
f=$(mktemp /tmp/trace_cost.XXXXXX.fst)
w0=$(date +%s.%N)
out=$(ABB_TRACE=$f ABB_TRACE_FROM=200000 ABB_TRACE_TO=220000 "$traced" 2>&1)
w1=$(date +%s.%N)
tw=$(echo "$out" | sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p')
cyc=$(echo "$out" | sed -n 's/.* cycles=\([0-9]*\).*/\1/p')
echo "$out" | grep 'abbsim: trace' || true
ww=$(echo "$out" | sed -n 's/.* \([0-9.]*\) s of wall-clock time while the window was open.*/\1/p')
awk -v tw="$tw" -v tm="$tm" -v cyc="$cyc" -v ww="$ww" -v sz="$(stat -c %s "$f")" 'BEGIN {
	base = cyc / tm; un = 20000 / tm;
	printf "trace-cost: a 20000-cycle window: %.3f s while it was open (untraced at the mean speed: %.3f s): %.1f us per traced cycle, %.0fx an untraced one; whole run %.3f s (untraced mean %.3f s); FST %d bytes\n", ww, un, 1e6 * ww / 20000, ww / un, tw, base, sz }'
rm -f "$f" "${f%.fst}.gtkw" "${f%.fst}.sta.txt"
