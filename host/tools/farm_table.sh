#!/bin/sh
# farm_table.sh - the farm's throughput per buffer size over loopback, in
# the seed's form (2008 bnet tests: buffer sizes 2 KiB-128 KiB, rate and
# CPU % of sender and receiver): one readout node, one builder, no filter,
# MIB_PER_SIZE MiB per size, for each device of DEVICES. Prints a Markdown
# table (doc/farm.md); every run's logs stay in OUT.
#
#   DEVICES ["model model:timed=1"]   MIB_PER_SIZE [64]   B [build]   OUT [temporary]
set -eu
B=${B:-build}
DEVICES=${DEVICES:-"model model:timed=1"}
MIB=${MIB_PER_SIZE:-64}
OUT=${OUT:-$(mktemp -d /tmp/farm-table.XXXXXX)}
SIZES="2 4 8 16 32 64 128"

head="| buffer |"
rule="|---|"
for dev in $DEVICES; do
	head="$head $dev: sender MB/s | CPU % | receiver MB/s | CPU % |"
	rule="$rule---|---|---|---|"
done
echo "$head"
echo "$rule"
for kb in $SIZES; do
	row="| $kb KiB |"
	for dev in $DEVICES; do
		d="$OUT/$(echo "$dev" | tr ':=' '__')-$kb"
		rm -rf "$d"
		if ! OUT="$d" B="$B" BOARDS=1 BUFFERS=$((MIB * 1024 / kb)) BUFSIZE=${kb}K DEVICE="$dev" \
			sh host/tools/farm.sh >"$d.log" 2>&1; then
			echo "farm_table: $dev, $kb KiB: the farm failed (log $d.log)" >&2
			row="$row failed | | | |"
			continue
		fi
		# node 1: ..., 36.9 MB/s, CPU 53 %, ...   builder: 34.3 MB/s over 0.86 s, CPU 22 %, ...
		n=$(grep '^node 1:' "$d.log" | sed -n 's/.*, \([0-9.]*\) MB\/s, CPU \([0-9]*\) %.*/\1 | \2/p')
		r=$(grep '^builder: [0-9.]* MB/s over' "$d.log" | sed -n 's/^builder: \([0-9.]*\) MB\/s over [0-9.]* s, CPU \([0-9]*\) %.*/\1 | \2/p')
		row="$row ${n:-?} | ${r:-?} |"
	done
	echo "$row"
done
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg); logs in $OUT)"
