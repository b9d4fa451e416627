#!/bin/bash
# model_speed.sh - make model-speed: the timed reference model's speed
# against the simulator's, as a plain libabb program sees both
# (host/tools/speed_program.c; doc/time.md, "The timed reference model").
#
#   model_speed.sh RUNS DIR SIMLIB
#
# DIR holds speed_program (built against this tree's libabb), SIMLIB is
# the libabbsim.so the sim device loads. Workloads: DMA reads polled and
# DMA writes by interrupt of 4 KiB, 64 KiB and 1 MiB. Each run of a
# workload runs, alternately in either order (so both see the same
# machine load):
#   sim             TOTAL bytes           (its wall and CPU speed)
#   model:timed=1   TOTAL bytes           (device time: must equal sim's)
#   model:timed=1   MODEL_FACTOR x TOTAL  (its wall and CPU speed)
# and prints every run, then per workload the medians: device-time MB/s
# of both (and whether the device times of the equal runs are identical),
# simulated MB per wall second of both and model / sim, and the same per
# CPU second of the process (the figure the machine's load moves least).
# Figures are printed, never judged.
set -eu
runs=$1 dir=$2 simlib=$3
MODEL_FACTOR=${MODEL_FACTOR:-32}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
t_start=$(date +%s)

# name | speed_program kind | size | TOTAL on the simulator
WORKLOADS=(
	"read 4K poll|read-poll|4K|2M"
	"write 4K irq|write-irq|4K|2M"
	"read 64K poll|read-poll|64K|4M"
	"write 64K irq|write-irq|64K|4M"
	"read 1M poll|read-poll|1M|8M"
	"write 1M irq|write-irq|1M|8M"
)

# one speed_program line on DEVICE: KIND SIZE TOTAL
one() {
	local dev=$1
	shift
	(cd "$dir" && ABB_DEVICE=$dev ABB_SIM_LIB="$simlib" ./speed_program "$@") ||
		{ echo "model-speed: $dev $* failed" >&2; return 1; }
}

field() { echo "$1" | sed -n "s/.* $2=\([0-9.]*\).*/\1/p"; }

# run INDEX: one run of workload INDEX; order 0: sim first
run() {
	local IFS='|' name kind size total s m1 m2 mb
	read -r name kind size total <<< "${WORKLOADS[$1]}"
	mb=$(numfmt --from=iec "$total")
	if [ "$2" = 0 ]; then
		s=$(one sim "$kind" "$size" "$total")
		m1=$(one model:timed=1 "$kind" "$size" "$total")
		m2=$(one model:timed=1 "$kind" "$size" $((mb * MODEL_FACTOR)))
	else
		m2=$(one model:timed=1 "$kind" "$size" $((mb * MODEL_FACTOR)))
		m1=$(one model:timed=1 "$kind" "$size" "$total")
		s=$(one sim "$kind" "$size" "$total")
	fi
	printf '%-14s sim    %s\n%-14s model  %s\n%-14s model  %s\n' "$name" "$s" "$name" "$m1" "$name" "$m2"
	field "$s" device_MB_per_s >> "$tmp/$1.sim_dev"
	field "$m1" device_MB_per_s >> "$tmp/$1.model_dev"
	[ "$(field "$s" device_s)" = "$(field "$m1" device_s)" ] && echo 1 >> "$tmp/$1.same" || echo 0 >> "$tmp/$1.same"
	field "$s" sim_MB_per_s >> "$tmp/$1.sim_wall"
	field "$m2" sim_MB_per_s >> "$tmp/$1.model_wall"
	awk -v b="$(field "$s" bytes)" -v c="$(field "$s" cpu_s)" 'BEGIN{print b / c / 1e6}' >> "$tmp/$1.sim_cpu"
	awk -v b="$(field "$m2" bytes)" -v c="$(field "$m2" cpu_s)" 'BEGIN{print b / c / 1e6}' >> "$tmp/$1.model_cpu"
}

i=0
while [ "$i" -lt "$runs" ]; do
	for w in "${!WORKLOADS[@]}"; do
		run "$w" $((i % 2))
	done
	i=$((i + 1))
done

med() { sort -g "$1" | awk '{v[NR]=$1} END{printf "%.6g", (NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2}'; }
echo
echo "model-speed: medians of $runs runs; device = device-time MB/s (sim, model:timed=1, and"
echo "model-speed:   whether every run's device time was identical); wall = simulated MB per wall"
echo "model-speed:   second; CPU = per CPU second of the process; x = model / sim"
printf 'model-speed: %-14s | %8s %8s %5s | %8s %8s %7s | %8s %8s %7s\n' workload "dev sim" "dev mod" same \
	"wall sim" "wall mod" x "CPU sim" "CPU mod" x
for w in "${!WORKLOADS[@]}"; do
	same=$(sort -u "$tmp/$w.same" | tr -d '\n')
	[ "$same" = 1 ] && same=yes || same=NO
	awk -v n="${WORKLOADS[$w]%%|*}" -v sd="$(med "$tmp/$w.sim_dev")" -v md="$(med "$tmp/$w.model_dev")" \
	    -v same=$same -v sw="$(med "$tmp/$w.sim_wall")" -v mw="$(med "$tmp/$w.model_wall")" \
	    -v sc="$(med "$tmp/$w.sim_cpu")" -v mc="$(med "$tmp/$w.model_cpu")" \
	    'BEGIN{printf "model-speed: %-14s | %8.1f %8.1f %5s | %8.2f %8.1f %7.1f | %8.2f %8.1f %7.1f\n",
		   n, sd, md, same, sw, mw, mw / sw, sc, mc, mc / sc}'
done
echo "model-speed: took $(( $(date +%s) - t_start )) s"
