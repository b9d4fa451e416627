#!/bin/bash
# replay.sh VVP OUTDIR STIM... - the Icarus replay of the golden vectors
# (testbench/icarus/replay_tb.sv): for each vectors/tlp/NAME.stim runs the
# compiled bench and checks, against what the simulator (Verilator) did
# when `make vectors` wrote the vector:
#   beats   every TX beat (edge, sop, eop, 64 data bits) and irq_o edge of
#           the .stim record, exactly
#   marks   the cycle count at each marker (the TLP log's start and end)
#   tlps    every TLP of the golden NAME.txt that crosses the RTL boundary
#           (not the hard IP's MSI writes and INTx messages), same text and
#           same cycle (TLPs of one cycle in any order), from the TLP log's
#           start to its end (the header's cycles= is read at the call's
#           return, inside that window: its TLPs are checked, not the figure)
# Prints one line per vector; exit status 1 when any vector disagrees.
set -u
vvp_file=$1; out=$2; shift 2
mkdir -p "$out"
fail=0
for stim in "$@"; do
	name=$(basename "$stim" .stim)
	gold=${stim%.stim}.txt
	o=$out/$name.out
	t0=$(date +%s.%N)
	if ! vvp -n "$vvp_file" +stim="$stim" +out="$o" > "$out/$name.log" 2>&1; then
		echo "icarus-replay: $name: FAIL: the bench stopped (see $out/$name.log):"
		tail -5 "$out/$name.log"
		fail=1; continue
	fi
	t1=$(date +%s.%N)
	why=""
	grep -E '^[OQ] ' "$stim" > "$out/$name.beats.want"
	grep -E '^[OQ] ' "$o" > "$out/$name.beats.got"
	nbeats=$(grep -c '^O ' "$out/$name.beats.want")
	if ! cmp -s "$out/$name.beats.want" "$out/$name.beats.got"; then
		why="$why; TX beats / irq_o differ: $(diff "$out/$name.beats.want" "$out/$name.beats.got" | head -3 | tr '\n' ' ')"
	fi
	if [ "$(awk '/^M /{ print $1, $2, $3 }' "$stim")" != "$(grep '^M ' "$o")" ]; then
		why="$why; cycle counts at the markers differ: verilator $(grep '^M ' "$stim" | tr '\n' ' ') icarus $(grep '^M ' "$o" | tr '\n' ' ')"
	fi
	# the golden cycles count from what abbsim_cycles() read at the markers
	read -r c0 c1 <<< "$(awk '/^M /{ m[n++] = $4 } END { print m[0], m[1] }' "$stim")"
	# the golden TLPs at the RTL boundary (icarus: from the log's start to its end)
	awk '!/^#/ && !($2 == "up" && ($3 == "Msg" || ($3 == "MWr" && $6 == "addr=0xfee00000"))) \
		{ $1 = $1; print }' "$gold" | sort -k1,1n -k2 > "$out/$name.tlp.want"
	read -r m0 m1 <<< "$(awk '/^M /{ m[n++] = $3 } END { print m[0], m[1] }' "$o")"
	awk -v c0="$c0" -v m0="$m0" -v m1="$m1" '$1 == "T" && $2 > m0 && $2 <= m1 \
		{ $1 = ""; $2 = $2 - c0; $0 = $0; $1 = $1; print }' "$o" | sort -k1,1n -k2 > "$out/$name.tlp.got"
	ntlp=$(wc -l < "$out/$name.tlp.want")
	if ! cmp -s "$out/$name.tlp.want" "$out/$name.tlp.got"; then
		why="$why; TLPs differ from $gold: $(diff "$out/$name.tlp.want" "$out/$name.tlp.got" | head -3 | tr '\n' ' ')"
	fi
	want_cyc=$(sed -n '1s/.*cycles=\([0-9]*\).*/\1/p' "$gold")
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	if [ -n "$why" ]; then
		echo "icarus-replay: $name: FAIL${why}"
		fail=1
	else
		echo "icarus-replay: $name: agree: $ntlp TLPs at the same cycles (vector cycles=$want_cyc), $nbeats TX beats and every irq_o edge identical (${secs} s)"
	fi
done
exit $fail
