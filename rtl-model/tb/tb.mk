# rtl-model/tb/tb.mk - per-module RTL benches with parameter sweeps, under
# Icarus Verilog (included by the top-level Makefile).
#
#   make rtl-benches      every bench at every point of its sweep
#
# Each bench is a self-checking SystemVerilog program (rtl-model/tb/tb_*.sv)
# around one module of the RTL, with the protocol assertions on (ABB_ASSERT);
# parameters are set per run with iverilog -P (Verilator's -G). The RTL is
# read as the Icarus replay reads it (always_comb spelled always @*, see
# testbench/icarus/icarus.mk). A failing check ends the bench with $fatal
# (exit status 1) and fails the target.

RTLTB_B := $(B)/rtl-tb
# bench: modules it needs (besides the packages)
RTLTB_MODS_tb_tx_arb    := abb_tx_arb
RTLTB_MODS_tb_c2h_mover := abb_c2h_mover
RTLTB_MODS_tb_h2c_mover := abb_h2c_mover
# the sweeps: bench:param=value,... (one run each)
RTLTB_RUNS := \
  tb_tx_arb:N=5,PostedMinAv=12 tb_tx_arb:N=5,PostedMinAv=0 tb_tx_arb:N=5,PostedMinAv=40,Seed=3 \
  tb_tx_arb:N=2,PostedMinAv=12,Seed=7 tb_tx_arb:N=8,PostedMinAv=20,Seed=9 \
  tb_c2h_mover:AddrBits=14 tb_c2h_mover:AddrBits=18,Seed=2 tb_c2h_mover:AddrBits=22,Seed=3 \
  tb_h2c_mover:NumTags=2 tb_h2c_mover:NumTags=4,Seed=2 tb_h2c_mover:NumTags=16,Seed=3 \
  tb_h2c_mover:NumTags=32,AddrBits=22,Seed=4 tb_h2c_mover:NumTags=8,AddrBits=14,Seed=5

.PHONY: rtl-benches

rtl-benches: $(addprefix $(ICARUS_B)/rtl/,$(notdir $(RTL_SRCS)))
	@mkdir -p $(RTLTB_B); s=$$(date +%s.%N); fail=0; n=0; \
	for run in $(RTLTB_RUNS); do \
	  tb=$${run%%:*}; ps=$${run#*:}; id=$$(echo "$$run" | tr ':,=' '___'); \
	  case $$tb in \
	    tb_tx_arb) mods="$(RTLTB_MODS_tb_tx_arb)";; \
	    tb_c2h_mover) mods="$(RTLTB_MODS_tb_c2h_mover)";; \
	    tb_h2c_mover) mods="$(RTLTB_MODS_tb_h2c_mover)";; \
	  esac; \
	  srcs="$(ICARUS_B)/rtl/abb_reg_pkg.sv $(ICARUS_B)/rtl/abb_tlp_pkg.sv"; \
	  for m in $$mods; do srcs="$$srcs $(ICARUS_B)/rtl/$$m.sv"; done; \
	  pflags=""; for p in $$(echo $$ps | tr ',' ' '); do pflags="$$pflags -P$$tb.$$p"; done; \
	  n=$$((n + 1)); t0=$$(date +%s.%N); \
	  if iverilog -g2012 -I $(RTL_DIR) -DABB_ASSERT $$pflags -s $$tb -o $(RTLTB_B)/$$id.vvp \
	       $$srcs rtl-model/tb/$$tb.sv > $(RTLTB_B)/$$id.log 2>&1 && \
	     vvp -n $(RTLTB_B)/$$id.vvp >> $(RTLTB_B)/$$id.log 2>&1 && grep -q ': ok' $(RTLTB_B)/$$id.log; then \
	    echo "rtl-benches: $$(grep ': ok' $(RTLTB_B)/$$id.log) ($$(awk -v a=$$t0 -v b=$$(date +%s.%N) 'BEGIN{printf "%.1f", b-a}') s)"; \
	  else \
	    echo "rtl-benches: $$tb $$ps: FAIL (see $(RTLTB_B)/$$id.log)"; grep -v 'sorry\|warning' $(RTLTB_B)/$$id.log | tail -5; fail=1; \
	  fi; \
	done; \
	echo "rtl-benches: $$n runs in $$(awk -v a=$$s -v b=$$(date +%s.%N) 'BEGIN{printf "%.1f", b-a}') s"; exit $$fail
