#!/bin/sh
# sim_speed.sh - the sim-speed report (sim/sim.mk): runs the bare Verilator
# loop of the current RTL (and, given, of a baseline revision) RUNS times
# each, interleaved (base, current, base, current, ...) so that both see the
# same machine load, then the full platform RUNS times; prints every run and
# min / median cycles per wall second of each, the ratios of the medians,
# and the same per CPU second (the wall time of a run on a loaded machine
# includes waiting for a core). With IR=1 (make sim-speed SIM_SPEED_IR=1)
# each bare loop also runs once under callgrind: instructions per simulated
# cycle, a figure that no machine load moves.
#
#   sim_speed.sh RUNS CURRENT_BARE SPEED_ABBSIM [BASELINE_BARE BASELINE_NAME]
set -e
runs=$1 cur=$2 plat=$3 base=$4 name=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cps() { sed -n 's/.*cycles_per_s=\([0-9.]*\).*/\1/p'; }
cpu() { sed -n 's/.*cycles_per_cpu_s=\([0-9.]*\).*/\1/p'; }
cyc() { sed -n 's/.* cycles=\([0-9]*\).*/\1/p'; }
# run BENCH TAG: one run, its figures appended to $tmp/TAG*
run() {
	l=$("$1")
	printf '%-8s %s\n' "$2" "$l"
	echo "$l" | cps >> "$tmp/$2"
	echo "$l" | cpu >> "$tmp/$2.cpu"
	echo "$l" | cyc >> "$tmp/$2.cyc"
}
i=0
while [ $i -lt "$runs" ]; do
	[ -z "$base" ] || run "$base" baseline
	run "$cur" current
	i=$((i + 1))
done
i=0
while [ $i -lt "$runs" ]; do
	l=$("$plat") && echo "$l" && echo "$l" | cps >> "$tmp/plat"
	i=$((i + 1))
done
# min and median of a file of numbers
stat() { sort -g "$1" | awk '{v[NR]=$1} END{m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%.0f %.0f", v[1], m}'; }
# min / median / max of the per-pair ratios of two files
pairs() { paste "$1" "$2" | awk '{print $2 / $1}' | sort -g |
	awk '{v[NR]=$1} END{m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "min %.2f median %.2f max %.2f", v[1], m, v[NR]}'; }
set -- $(stat "$tmp/current"); cmin=$1 cmed=$2
set -- $(stat "$tmp/current.cpu"); ccmed=$2
set -- $(stat "$tmp/plat"); pmin=$1 pmed=$2
echo "sim-speed: bare current:  min $cmin median $cmed cycles/s, median $ccmed cycles/CPU-s ($runs runs)"
if [ -n "$base" ]; then
	set -- $(stat "$tmp/baseline"); bmin=$1 bmed=$2
	set -- $(stat "$tmp/baseline.cpu"); bcmed=$2
	echo "sim-speed: bare baseline $name: min $bmin median $bmed cycles/s, median $bcmed cycles/CPU-s ($runs runs)"
	if ! cmp -s "$tmp/baseline.cyc" "$tmp/current.cyc"; then
		echo "sim-speed: note: the two RTLs take different cycle counts for the same DMA" \
		     "($(sort -u "$tmp/baseline.cyc" | tr '\n' ' ')vs $(sort -u "$tmp/current.cyc" | tr '\n' ' '))"
	fi
	# each run of the current model against the baseline run just before it
	echo "sim-speed: bare current / baseline, wall: $(awk "BEGIN{printf \"%.2f\", $cmed/$bmed}")" \
	     "(medians); per pair: $(pairs "$tmp/baseline" "$tmp/current")"
	echo "sim-speed: bare current / baseline, CPU:  $(awk "BEGIN{printf \"%.2f\", $ccmed/$bcmed}")" \
	     "(medians); per pair: $(pairs "$tmp/baseline.cpu" "$tmp/current.cpu")"
fi
echo "sim-speed: platform:      min $pmin median $pmed cycles/s ($runs runs)"
echo "sim-speed: platform / bare = $(awk "BEGIN{printf \"%.2f\", $pmed/$cmed}") (medians; target >= 0.5)"

if [ "${IR:-0}" = 1 ]; then
	command -v valgrind >/dev/null || { echo "sim-speed: IR=1 needs valgrind" >&2; exit 1; }
	# instructions of the whole process (setup included) per simulated cycle
	ipc() {
		l=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" 2>"$tmp/vg")
		c=$(echo "$l" | cyc)
		n=$(sed -n 's/.*refs: *\([0-9,]*\).*/\1/p' "$tmp/vg" | tr -d ,)
		echo $((n / c))
	}
	ci=$(ipc "$cur")
	echo "sim-speed: callgrind: bare current $ci instructions per cycle"
	if [ -n "$base" ]; then
		bi=$(ipc "$base")
		echo "sim-speed: callgrind: bare baseline $name $bi instructions per cycle;" \
		     "baseline / current = $(awk "BEGIN{printf \"%.2f\", $bi/$ci}")"
	fi
fi
