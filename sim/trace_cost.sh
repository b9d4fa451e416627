#!/bin/bash
# trace_cost.sh SPEED NOTRACE RUNS - make trace-cost (sim/wave.mk)
# SPEED: speed_abbsim of the normal build (untraced and traced models);
# NOTRACE: the same program of a build without tracing (SIM_TRACE=0).
# Alternating runs of the three set-ups, then a trace window's cost.
set -euo pipefail
speed=$1 notrace=$2 runs=$3
cps() { "$@" | sed -n 's/.*cycles_per_s=\([0-9.]*\).*/\1/p'; }
na=() ta=() ra=()
for i in $(seq "$runs"); do
	na+=("$(cps "$notrace")")
	ta+=("$(cps "$speed")")
	ra+=("$(cps "$speed" $((4 << 20)) traceable)")
done
stats() { printf '%s\n' "$@" | awk '{ s += $1; q += $1 * $1; n++ } END { m = s / n; v = q / n - m * m; if (v < 0) v = 0; printf "%.0f %.0f", m, sqrt(v) }'; }
read -r nm ns <<< "$(stats "${na[@]}")"
read -r tm tsd <<< "$(stats "${ta[@]}")"
read -r rm rsd <<< "$(stats "${ra[@]}")"
echo "trace-cost: (a) a build without tracing (SIM_TRACE=0):          ${na[*]} cycles/s"
echo "trace-cost: (b) the normal build, tracing off (the default):    ${ta[*]} cycles/s"
echo "trace-cost: (c) the normal build, traceable, no trace: ${ra[*]} cycles/s"
# the runs were alternating (a b c a b c ...): the ratio pair by pair is
# robust to the machine's speed drifting during the call and to a single
# disturbed run; its median is the figure, the means' ratio a check
pairs() { paste <(printf '%s\n' "$@" | head -n "$runs") <(printf '%s\n' "$@" | tail -n "$runs") |
	awk '{ print $2 / $1 }' | sort -g | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2;
		printf "%.4f %.4f %.4f", m, v[1], v[NR] }'; }
read -r bmed bmin bmax <<< "$(pairs "${na[@]}" "${ta[@]}")"
read -r cmed cmin cmax <<< "$(pairs "${na[@]}" "${ra[@]}")"
awk -v nm="$nm" -v ns="$ns" -v tm="$tm" -v tsd="$tsd" -v rm="$rm" -v rsd="$rsd" -v r="$runs" \
    -v bmed="$bmed" -v bmin="$bmin" -v bmax="$bmax" -v cmed="$cmed" -v cmin="$cmin" -v cmax="$cmax" 'BEGIN {
	printf "trace-cost: means over %d runs each: (a) %.0f (sd %.1f %%), (b) %.0f (sd %.1f %%), (c) %.0f (sd %.1f %%) cycles/s\n", r, nm, 100 * ns / nm, tm, 100 * tsd / tm, rm, 100 * rsd / rm;
	noise = 100 * (ns / nm > tsd / tm ? ns / nm : tsd / tm);
	d = 100 * (bmed - 1);
	printf "trace-cost: tracing off / not compiled in = (b)/(a): pair by pair median %.4f (min %.4f, max %.4f), means %.4f: difference %+.1f %%, run-to-run noise %.1f %%: %s\n", bmed, bmin, bmax, tm / nm, d, noise, (d < 0 ? -d : d) < noise ? "within the noise" : "MORE than the noise";
	printf "trace-cost: the traced model with nothing traced (traceable) / not compiled in = (c)/(a): pair by pair median %.4f (min %.4f, max %.4f), means %.4f: %+.1f %%\n", cmed, cmin, cmax, rm / nm, 100 * (cmed - 1) }'
# a window of 20000 cycles in the middle of the same run (the traced model)
f=$(mktemp /tmp/trace_cost.XXXXXX.fst)
out=$(ABB_TRACE=$f ABB_TRACE_FROM=200000 ABB_TRACE_TO=220000 "$speed" 2>&1)
tw=$(echo "$out" | sed -n 's/.*wall_s=\([0-9.]*\).*/\1/p')
cyc=$(echo "$out" | sed -n 's/.* cycles=\([0-9]*\).*/\1/p')
echo "$out" | grep 'abbsim: trace' || true
ww=$(echo "$out" | sed -n 's/.* \([0-9.]*\) s of wall-clock time while the window was open.*/\1/p')
awk -v tw="$tw" -v tm="$tm" -v cyc="$cyc" -v ww="$ww" -v sz="$(stat -c %s "$f")" 'BEGIN {
	base = cyc / tm; un = 20000 / tm;
	printf "trace-cost: a 20000-cycle window: %.3f s while it was open (untraced at the mean speed: %.3f s): %.1f us per traced cycle, %.0fx an untraced one; whole run %.3f s (untraced mean %.3f s); FST %d bytes\n", ww, un, 1e6 * ww / 20000, ww / un, tw, base, sz }'
rm -f "$f" "${f%.fst}.gtkw" "${f%.fst}.sta.txt"
