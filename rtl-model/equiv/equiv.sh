#!/bin/sh
# equiv.sh - abb_top of this tree proven equivalent to abb_top of a git
# revision by Yosys (rtl-model/equiv/equiv.mk: make equiv, make equiv-broken).
#
#   equiv.sh OUT REV [BROKEN_FILE BROKEN_SED]
#
# gold: rtl-model/ of REV (git archive), gate: rtl-model/ of the work tree;
# with BROKEN_FILE and BROKEN_SED the gate's copy of that file is edited by
# the sed expression first (a deliberately broken variant: the proof must
# fail). Both copies are read alike (README.md: what the proof shows):
#   - the board memory is small for the proof: the elaboration check
#     "MemBitsMax < 16" of abb_top reads "MemBitsMax < 6" in both copies and
#     MemBitsMax is 8 (64 words); the event FIFO has DepthBits 3;
#   - abb_top's tx_data_o compared only while tx_valid_o (0 otherwise in
#     both copies: the data of no beat is not part of the machine);
#   - proc, flatten, every memory as flip-flops (memory_map);
#   - every flip-flop turned into an input (its output) and an output (its
#     next state) (expose -evert-dff), every other internal name hidden;
#   - equiv_make matches the ports by name (inputs joined, outputs compared),
#     equiv_simple proves each output bit, equiv_status -assert.
# So the two are proven to have the same flip-flops (names and widths), the
# same next state of each and the same outputs for every state and input:
# the same machine from any state, reset included. A flip-flop renamed or
# added fails the match (no unsound pass). Each parameter set in CONFIGS
# is proven on its own. Exit status 0: every configuration proven.
set -e
out=$1 rev=$2 bfile=$3 bsed=$4
# the RTL's sources in rtl.mk's order (EQUIV_SRCS, from equiv.mk: RTL_SRCS);
# each design reads those its revision has (a revision before a module was
# added lacks it)
srcs=${EQUIV_SRCS:-"abb_reg_pkg.sv abb_tlp_pkg.sv abb_mem.sv abb_tx_arb.sv abb_rx.sv abb_pio_cpl.sv
      abb_regs.sv abb_evsrc.sv abb_dma_ctl.sv abb_c2h_mover.sv abb_h2c_mover.sv abb_ddr2_arb.sv
      abb_top.sv"}
# the proofs: name:abb_top parameters (param=value,...; empty: the defaults)
CONFIGS=${EQUIV_CONFIGS:-"default: shared4:ClkNs=4,SharedEngine=1,NumTags=4,TxPostedMinAv=0,CplTimeoutCycles=16"}

rm -rf "$out" && mkdir -p "$out/gold" "$out/gate"
git archive "$rev" rtl-model | tar -x -C "$out/gold" --strip-components=1
cp rtl-model/*.sv rtl-model/*.svh "$out/gate/"
if [ -n "$bfile" ]; then
	cp "$out/gate/$bfile" "$out/gate/$bfile.orig"
	sed -i "$bsed" "$out/gate/$bfile"
	if cmp -s "$out/gate/$bfile" "$out/gate/$bfile.orig"; then
		echo "equiv: the broken variant ($bfile: $bsed) changes nothing" >&2
		exit 2
	fi
fi
for d in gold gate; do
	sed -i 's/MemBitsMax < 16 ||/MemBitsMax < 6 ||/' "$out/$d/abb_top.sv"
	grep -q 'MemBitsMax < 6 ||' "$out/$d/abb_top.sv" ||
		{ echo "equiv: $d/abb_top.sv has no MemBitsMax check to relax" >&2; exit 2; }
	# tx_data_o is compared while tx_valid_o only (TLP-STREAM.md: a beat's
	# data means something only with valid; the platform, the port record
	# and the TLP log take it only then): 0 in both copies otherwise
	sed -i -e 's/^\( *\.tx_valid_o, \.tx_ready_i, \.tx_sop_o, \.tx_eop_o, \)\.tx_data_o$/\1.tx_data_o(equiv_tx_data)/' \
		-e "s/^endmodule\$/  logic [63:0] equiv_tx_data;  \/\/ equiv.sh: data compared with valid only\n  assign tx_data_o = tx_valid_o ? equiv_tx_data : 64'h0;\nendmodule/" \
		"$out/$d/abb_top.sv"
	grep -q '\.tx_data_o(equiv_tx_data)' "$out/$d/abb_top.sv" && grep -q 'assign tx_data_o = tx_valid_o' "$out/$d/abb_top.sv" ||
		{ echo "equiv: $d/abb_top.sv: the arbiter's tx_data_o not found to mask with tx_valid_o" >&2; exit 2; }
done

# read DESIGN PARAMS: one design, flattened, its flip-flops as ports
# A gold revision from before the board profile (no board_cfg_i port): the
# gate is proven with the profile off (board_cfg_i tied to 0 inside its
# abb_top), i.e. that the default board is the machine of that revision.
if ! grep -q board_cfg_i "$out/gold/abb_top_ports.svh" && grep -q board_cfg_i "$out/gate/abb_top_ports.svh"; then
	sed -i '/board_cfg_i/d' "$out/gate/abb_top_ports.svh"
	sed -i "0,/^);\$/s//);\n  logic [63:0] board_cfg_i;  \/\/ equiv.sh: the board profile off\n  assign board_cfg_i = 64'h0;/" \
		"$out/gate/abb_top.sv"
	# the DDR2 model (abb_ddr2_arb.sv: rd_wait_o and busy_o are 0 while
	# cfg_i[0] is 0, its flops feed nothing else) left out, its outputs 0
	awk '/^  abb_ddr2_arb u_ddr2 \(/ { skip = 1; print "  assign ddr_wait = 1'"'"'b0;  // equiv.sh: the board profile off"; print "  assign ddr_busy = 1'"'"'b0;"; next }
	     skip && /^  \);/ { skip = 0; next } !skip' "$out/gate/abb_top.sv" > "$out/gate/abb_top.sv.t" &&
		mv "$out/gate/abb_top.sv.t" "$out/gate/abb_top.sv"
	# and the endpoint's tag limit, 0 while off, not applied (the effective
	# limit is MRD_CR's: an alias of that register would rename its flop)
	sed -i -e 's/\.tag_limit_i(tag_lim_eff)/.tag_limit_i(tag_limit)/' \
		-e "s/^\( *\)tag_lim_eff = .*/\1tag_lim_eff = '0;/" "$out/gate/abb_top.sv"
	grep -q "assign board_cfg_i = 64'h0;" "$out/gate/abb_top.sv" && ! grep -q 'u_ddr2' "$out/gate/abb_top.sv" &&
		grep -q '\.tag_limit_i(tag_limit)' "$out/gate/abb_top.sv" ||
		{ echo "equiv: could not turn the gate's board profile off" >&2; exit 2; }
	echo "equiv: $rev has no board profile: the gate is proven with board_cfg_i = 0"
fi

read_design() {
	printf 'read_verilog -sv -I%s' "$out/$1"
	for f in $srcs; do [ -f "$out/$1/$f" ] && printf ' %s' "$out/$1/$f"; done
	printf '\nchparam -set DepthBits 3 abb_evsrc\n'
	printf 'hierarchy -check -top abb_top -chparam MemBitsMax 8 %s\n' "$2"
	printf 'proc; flatten; hierarchy -top abb_top; memory_map; opt_clean\n'
	printf 'expose -evert-dff t:*dff*\n'
	printf 'rename -hide w:* x:* %%d\n'
	printf 'opt_clean; rename abb_top %s; design -stash %s\n' "$1" "$1"
}
status=0
for c in $CONFIGS; do
	name=${c%%:*} params=$(echo "${c#*:}" | tr ',' '\n' | sed -n 's/^\(.*\)=\(.*\)$/-chparam \1 \2/p' | tr '\n' ' ')
	ys="$out/$name.ys" log="$out/$name.log"
	{
		read_design gold "$params"
		read_design gate "$params"
		printf 'design -copy-from gold -as gold gold\ndesign -copy-from gate -as gate gate\n'
		printf 'equiv_make gold gate equiv\nhierarchy -top equiv\nequiv_simple\nequiv_status -assert\n'
	} > "$ys"
	if yosys -q -l "$log" "$ys" > /dev/null 2>&1; then
		n=$(sed -n 's/^Found \([0-9]*\) \$equiv cells in equiv.*/\1/p' "$log")
		echo "equiv: $name${params:+ ($params)}: all $n outputs proven (ports, flip-flop next states)"
	else
		n=$(sed -n 's/.*Of those cells [0-9]* are proven and \([0-9]*\) are unproven.*/\1/p' "$log")
		echo "equiv: $name${params:+ ($params)}: NOT proven (${n:-?} unproven; $log)"
		grep -m3 'Unproven \$equiv\|ERROR' "$log" | sed 's/^/  /' || true
		status=1
	fi
done
exit $status
