#!/bin/sh
# sim_speed.sh - the sim-speed report (sim/sim.mk): runs the bare Verilator
# loop of the current RTL (and, given, of a baseline revision) RUNS times
# each, interleaved (base, current, base, current, ...) so that both see the
# same machine load, then the full platform RUNS times; prints every run and
# min / median cycles per wall second of each, and the ratios of the medians.
#
#   sim_speed.sh RUNS CURRENT_BARE SPEED_ABBSIM [BASELINE_BARE BASELINE_NAME]
set -e
runs=$1 cur=$2 plat=$3 base=$4 name=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cps() { sed -n 's/.*cycles_per_s=\([0-9.]*\).*/\1/p'; }
cyc() { sed -n 's/.* cycles=\([0-9]*\).*/\1/p'; }
i=0
while [ $i -lt "$runs" ]; do
	if [ -n "$base" ]; then
		l=$("$base") && echo "baseline $l" && echo "$l" | cps >> "$tmp/base" && echo "$l" | cyc >> "$tmp/basecyc"
	fi
	l=$("$cur") && echo "current  $l" && echo "$l" | cps >> "$tmp/cur" && echo "$l" | cyc >> "$tmp/curcyc"
	i=$((i + 1))
done
i=0
while [ $i -lt "$runs" ]; do
	l=$("$plat") && echo "$l" && echo "$l" | cps >> "$tmp/plat"
	i=$((i + 1))
done
# min and median of a file of numbers
stat() { sort -g "$1" | awk '{v[NR]=$1} END{m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.0f %.0f", v[1], m}'; }
set -- $(stat "$tmp/cur"); cmin=$1 cmed=$2
set -- $(stat "$tmp/plat"); pmin=$1 pmed=$2
echo "sim-speed: bare current:  min $cmin median $cmed cycles/s ($runs runs)"
if [ -n "$base" ]; then
	set -- $(stat "$tmp/base"); bmin=$1 bmed=$2
	echo "sim-speed: bare baseline $name: min $bmin median $bmed cycles/s ($runs runs)"
	if ! cmp -s "$tmp/basecyc" "$tmp/curcyc"; then
		echo "sim-speed: note: the two RTLs take different cycle counts for the same DMA" \
		     "($(sort -u "$tmp/basecyc" | tr '\n' ' ')vs $(sort -u "$tmp/curcyc" | tr '\n' ' '))"
	fi
	# each run of the current model against the baseline run just before it
	paste "$tmp/base" "$tmp/cur" | awk '{print $2 / $1}' > "$tmp/ratio"
	set -- $(sort -g "$tmp/ratio" | awk '{v[NR]=$1} END{m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.2f %.2f %.2f", v[1], m, v[NR]}')
	echo "sim-speed: bare current / baseline = $(awk "BEGIN{printf \"%.2f\", $cmed/$bmed}") (medians);" \
	     "per pair: min $1 median $2 max $3"
fi
echo "sim-speed: platform:      min $pmin median $pmed cycles/s ($runs runs)"
echo "sim-speed: platform / bare = $(awk "BEGIN{printf \"%.2f\", $pmed/$cmed}") (medians; target >= 0.5)"
