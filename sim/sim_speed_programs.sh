#!/bin/bash
# sim_speed_programs.sh - the program half of the sim-speed report
# (sim/sim_speed.mk): the simulator's speed as libabb programs see it, on
# the current tree and (given) on a baseline revision's tree, interleaved.
#
#   sim_speed_programs.sh RUNS CUR_DIR CUR_SIMLIB [BASE_DIR BASE_SIMLIB BASE_NAME]
#
# Each DIR holds speed_program and abb_bench, built from this tree's
# sources against that side's libabb (host/tools/speed_program.c); SIMLIB
# is that side's libabbsim.so (its default library: the one a program
# loads). Every workload runs RUNS times on each side, the two sides
# alternately (baseline first in odd runs, current first in even ones), so
# both see the same machine load. Prints every run, then per workload the
# medians of each side and current / baseline of the medians: simulated MB
# per wall second, the real-time factor (wall time / device time), Mcycles
# of the user clock per wall second and per CPU second of the process (all
# its threads: on a loaded machine wall time includes waiting for a core).
# Figures are printed, never judged.
#
# A workload that fails or runs longer than SIM_SPEED_TIMEOUT seconds (600)
# is reported as such and the others still run; the table is printed in
# any case (also when the script is interrupted: what was measured so
# far), and the exit status is then 1. (Before, one failing run ended the
# script under set -e before the table, with the reason on stderr only.)
set -eu
export LC_ALL=C # bash's time and awk: decimal points
runs=$1 cur_dir=$2 cur_lib=$3 base_dir=${4:-} base_lib=${5:-} name=${6:-}
limit=${SIM_SPEED_TIMEOUT:-600}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t_start=$(date +%s)
failed=()

# name | command (run in the side's directory: ./speed_program, ./abb_bench)
WORKLOADS=(
	"read 1M poll|./speed_program read-poll 1M 32M"
	"read 1M irq|./speed_program read-irq 1M 32M"
	"write 1M poll|./speed_program write-poll 1M 32M"
	"write 1M irq|./speed_program write-irq 1M 32M"
	"read 64K poll|./speed_program read-poll 64K 16M"
	"read 64K irq|./speed_program read-irq 64K 16M"
	"write 64K poll|./speed_program write-poll 64K 16M"
	"write 64K irq|./speed_program write-irq 64K 16M"
	"DAQ readout 64K|./speed_program readout 64K 16M"
	"abb_bench shape|./abb_bench --fixed 0x8000 --loops 5 --no-concurrent --max 1M --csv"
)
# abb_bench's own command line (the original-program shape): its loop count
BENCH_LOOPS=5
# the default user clock (abb_bench reports device bandwidth, not cycles)
CLK_MHZ=125

# abb_bench, timed from outside: the whole process (start, open, the
# sweep, close) in wall and CPU (user + system) seconds by bash's time; its
# device time is the sum over the sizes of loops x size / MB/s of each
# direction (its CSV). Prints the line speed_program prints.
bench_run() {
	local wall u s TIMEFORMAT='%R %U %S'
	{ time "$@" > "$tmp/out" 2> "$tmp/err"; } 2> "$tmp/time" || { cat "$tmp/err" >&2; return 1; }
	read -r wall u s < "$tmp/time"
	awk -F, -v loops=$BENCH_LOOPS -v wall="$wall" -v cpu="$(awk "BEGIN{print $u + $s}")" \
	    -v clk=$CLK_MHZ '
		NR > 1 && $2 > 0 && $5 > 0 { b += 2 * loops * $1; us += loops * $1 / $2 + loops * $1 / $5 }
		END {
			s = us * 1e-6; c = s * clk * 1e6
			if (s <= 0 || wall <= 0 || cpu <= 0)
				exit 1
			printf "abb_bench: size=- bytes=%d wall_s=%.4f cpu_s=%.4f device_s=%.6f cycles=%.0f " \
			       "sim_MB_per_s=%.3f rtf=%.2f cycles_per_s=%.0f cycles_per_cpu_s=%.0f " \
			       "device_MB_per_s=%.1f\n", b, wall, cpu, s, c, b / wall / 1e6, wall / s,
			       c / wall, c / cpu, b / s / 1e6
		}' "$tmp/out"
}

# run SIDE DIR SIMLIB INDEX: workload INDEX once on one side
run() {
	local cmd=${WORKLOADS[$4]#*|} l rc=0
	l=$(cd "$2" && export ABB_DEVICE=sim ABB_SIM_LIB="$3" &&
	    if [[ $cmd == ./abb_bench* ]]; then bench_run timeout "$limit" $cmd; else timeout "$limit" $cmd; fi) ||
		rc=$?
	if [ $rc != 0 ] || [ -z "$l" ]; then
		local why="exit status $rc"
		[ $rc != 124 ] || why="longer than $limit s (SIM_SPEED_TIMEOUT)"
		echo "sim-speed: $1: ${WORKLOADS[$4]%%|*} failed ($why)"
		failed+=("$1: ${WORKLOADS[$4]%%|*} ($why)")
		# a 0 keeps the runs of both sides in step (pairs); med skips it
		for k in sim_MB_per_s rtf cycles_per_s cycles_per_cpu_s; do echo 0 >> "$tmp/$4.$1.$k"; done
		return 0
	fi
	printf '%-8s %s\n' "$1" "$l"
	for k in sim_MB_per_s rtf cycles_per_s cycles_per_cpu_s; do
		echo "$l" | sed -n "s/.* $k=\([0-9.]*\).*/\1/p" >> "$tmp/$4.$1.$k"
	done
}

# interrupted: the table of what was measured so far
trap 'echo; echo "sim-speed: interrupted"; failed+=("interrupted"); report; exit 1' INT TERM
i=0
while [ $i -lt "$runs" ]; do
	for w in "${!WORKLOADS[@]}"; do
		if [ -n "$base_dir" ] && [ $((i % 2)) = 0 ]; then
			run baseline "$base_dir" "$base_lib" "$w"
			run current "$cur_dir" "$cur_lib" "$w"
		elif [ -n "$base_dir" ]; then
			run current "$cur_dir" "$cur_lib" "$w"
			run baseline "$base_dir" "$base_lib" "$w"
		else
			run current "$cur_dir" "$cur_lib" "$w"
		fi
	done
	i=$((i + 1))
done

# the median of a file of figures; 0 when there is none (every run failed)
med() {
	[ -s "$1" ] || { printf 0; return; }
	sort -g "$1" | awk '$1 > 0 {v[++n]=$1} END{if (!n) {printf 0; exit}
		printf "%.6g", (n%2)?v[(n+1)/2]:(v[n/2]+v[n/2+1])/2}'
}
# the median of current / baseline of the runs of one index (one pair)
pairs() {
	[ -s "$1" ] && [ -s "$2" ] || { printf 0; return; }
	paste "$1" "$2" | awk '$1 > 0 && $2 > 0 {print $2 / $1}' > "$tmp/pairs" && med "$tmp/pairs"
}

report() {
trap - INT TERM
echo
echo "sim-speed: programs, medians of $runs runs$([ -n "$base_dir" ] && echo " interleaved with baseline $name"):"
echo "sim-speed:   MB/s = simulated DMA MB per wall second; RTF = real-time factor, wall time / device time;"
echo "sim-speed:   Mc/s, Mc/CPU-s = million user-clock cycles per wall second, per CPU second of the process"
[ -z "$base_dir" ] || echo "sim-speed:   cur/bas = current / baseline of the medians; pairs = median of current / baseline run by run"
if [ -n "$base_dir" ]; then
	printf 'sim-speed: %-16s | %-29s |' "" "MB/s"
	for k in RTF Mc/s Mc/CPU-s; do printf ' %-21s |' "$k"; done
	echo
	printf 'sim-speed: %-16s | %6s %6s %7s %7s |' "workload" base cur cur/bas pairs
	for k in 1 2 3; do printf ' %6s %6s %7s |' base cur cur/bas; done
	echo
else
	printf 'sim-speed: %-16s | %8s | %8s | %8s | %8s |\n' workload MB/s RTF Mc/s Mc/CPU-s
fi
for w in "${!WORKLOADS[@]}"; do
	printf 'sim-speed: %-16s |' "${WORKLOADS[$w]%%|*}"
	for k in sim_MB_per_s rtf cycles_per_s cycles_per_cpu_s; do
		scale=1
		[[ $k == cycles* ]] && scale=1e-6
		c=$(med "$tmp/$w.current.$k")
		if [ -n "$base_dir" ]; then
			b=$(med "$tmp/$w.baseline.$k")
			awk -v b="$b" -v c="$c" -v s=$scale 'BEGIN{printf " %6.2f %6.2f %7.2f", b * s, c * s, (b > 0 ? c / b : 0)}'
			[ $k != sim_MB_per_s ] || printf ' %7.2f' "$(pairs "$tmp/$w.baseline.$k" "$tmp/$w.current.$k")"
			printf ' |'
		else
			awk -v c="$c" -v s=$scale 'BEGIN{printf " %8.2f |", c * s}'
		fi
	done
	echo
done
echo "sim-speed: programs took $(( $(date +%s) - t_start )) s"
if [ ${#failed[@]} != 0 ]; then
	echo "sim-speed: ${#failed[@]} run(s) failed (their figures left out, 0: none):"
	printf 'sim-speed:   %s\n' "${failed[@]}"
	return 1
fi
}
report
