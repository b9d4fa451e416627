# rtl-model/tb/tb.mk - per-module RTL benches with parameter sweeps, under
# Icarus Verilog (included by the top-level Makefile).
#
#   make rtl-benches              every bench at every point of its sweep (RTLTB_RUNS)
#   make rtl-benches RTLTB=tb_rx  only the runs of the named bench(es)
#   make -j2 rtl-benches          two runs at a time
#
# Each bench is a self-checking SystemVerilog program (rtl-model/tb/tb_*.sv)
# around one module of the RTL (tb_top, tb_pio: all of abb_top), with the protocol
# assertions on (ABB_ASSERT); parameters are set per configuration with
# iverilog -P (Verilator's -G). Each configuration is built once, in its own
# directory build/rtl-tb/<bench>__<param>_<value>.../ (sim.vvp, build.log;
# rebuilt only when the RTL or the bench changes) and run there (run.log,
# result). The RTL is read as the Icarus replay reads it (always_comb spelled
# always @*, see testbench/icarus/icarus.mk). A failing check ends a bench
# with $fatal (exit status 1); the target prints one line per run and a
# summary, and fails if any run failed.

RTLTB_B := $(B)/rtl-tb
rtltb_comma := ,

# bench: the RTL modules it needs (besides the packages)
RTLTB_MODS_tb_tx_arb    := abb_tx_arb
RTLTB_MODS_tb_c2h_mover := abb_c2h_mover
RTLTB_MODS_tb_h2c_mover := abb_h2c_mover
RTLTB_MODS_tb_rx        := abb_rx
RTLTB_MODS_tb_dma_ctl   := abb_dma_ctl
RTLTB_MODS_tb_top       := $(filter-out abb_reg_pkg abb_tlp_pkg,$(basename $(notdir $(RTL_SRCS))))
RTLTB_MODS_tb_pio       := $(RTLTB_MODS_tb_top)

# abb_top as a whole: ClkNs 8/4 x SharedEngine 0/1, with NumTags 2..32,
# TxPostedMinAv 0..40, MemBitsMax 16..28 and run-time sizes (0 = default,
# above the maximum = clamped)
RTLTB_TOP_RUNS := \
  tb_top:ClkNs=8,SharedEngine=0 tb_top:ClkNs=4,SharedEngine=1,Seed=2 \
  tb_top:ClkNs=4,SharedEngine=0,NumTags=32,TxPostedMinAv=0,MemBitsMax=28,MemBits=28,Seed=3 \
  tb_top:ClkNs=8,SharedEngine=1,NumTags=2,TxPostedMinAv=40,MemBitsMax=16,MemBits=16,Seed=4 \
  tb_top:ClkNs=4,SharedEngine=1,NumTags=4,TxPostedMinAv=20,MemBits=30,Seed=5 \
  tb_top:ClkNs=8,SharedEngine=0,NumTags=8,MemBits=0,Seed=6 \
  tb_top:ClkNs=8,SharedEngine=0,MemBitsMax=16,MemBits=0,Seed=7

# The sweeps: bench:param=value,... (one configuration each). Which abb_top
# parameter reaches which module (abb_top.sv): MemBitsMax -> AddrBits of
# abb_rx, the movers (and the run-time size: MemBits, mem_mask/mem_bytes);
# NumTags -> abb_h2c_mover (and abb_regs); TxPostedMinAv -> abb_tx_arb
# PostedMinAv; CplTimeoutCycles -> abb_dma_ctl, abb_h2c_mover; ClkNs and
# SharedEngine -> abb_regs and abb_top's hold logic only: swept in tb_top.
RTLTB_RUNS := \
  tb_tx_arb:N=5,PostedMinAv=12 tb_tx_arb:N=5,PostedMinAv=0 tb_tx_arb:N=5,PostedMinAv=40,Seed=3 \
  tb_tx_arb:N=2,PostedMinAv=12,Seed=7 tb_tx_arb:N=8,PostedMinAv=20,Seed=9 \
  tb_c2h_mover:AddrBits=14 tb_c2h_mover:AddrBits=18,Seed=2 tb_c2h_mover:AddrBits=22,Seed=3 \
  tb_c2h_mover:AddrBits=22,MemBits=16,Seed=4 \
  tb_h2c_mover:NumTags=2 tb_h2c_mover:NumTags=4,Seed=2 tb_h2c_mover:NumTags=16,Seed=3 \
  tb_h2c_mover:NumTags=32,AddrBits=22,Seed=4 tb_h2c_mover:NumTags=8,AddrBits=14,Seed=5 \
  tb_h2c_mover:NumTags=16,AddrBits=22,MemBits=17,Seed=6 \
  tb_pio:MemBits=20 tb_pio:MemBitsMax=16,MemBits=16,ClkNs=4,Hdr4Pct=60,GapPct=40,Seed=2 \
  tb_pio:MemBitsMax=24,MemBits=24,Hdr4Pct=0,GapPct=0,Seed=3 \
  tb_rx:AddrBits=14,MemBits=16 tb_rx:AddrBits=22,MemBits=20,Seed=2 \
  tb_rx:AddrBits=22,MemBits=24,Seed=3 tb_rx:AddrBits=26,MemBits=17,Seed=4 \
  tb_dma_ctl:MemBits=20 tb_dma_ctl:MemBits=16,FetchTag=129,Strict=1,Seed=2 \
  tb_dma_ctl:MemBits=28,HoldPct=30,Seed=3 tb_dma_ctl:MemBits=24,CplTimeoutCycles=16,Strict=1,HoldPct=60,Seed=4 \
  $(RTLTB_TOP_RUNS)

RTLTB ?=
RTLTB_SEL := $(if $(RTLTB),$(filter $(addsuffix :%,$(RTLTB)),$(RTLTB_RUNS)),$(RTLTB_RUNS))
rtltb_tb = $(firstword $(subst :, ,$1))
rtltb_ps = $(subst $(rtltb_comma), ,$(word 2,$(subst :, ,$1)))
rtltb_id = $(subst =,_,$(subst $(rtltb_comma),_,$(subst :,__,$1)))
RTLTB_IDS := $(foreach r,$(RTLTB_SEL),$(call rtltb_id,$r))

# one configuration: its build (sim.vvp) and its run (phony: always runs,
# writes result = ok or FAIL, never fails itself so that -j runs them all)
define RTLTB_RULE
$(RTLTB_B)/$(call rtltb_id,$1)/sim.vvp: $(ICARUS_B)/rtl/abb_reg_pkg.sv $(ICARUS_B)/rtl/abb_tlp_pkg.sv \
    $(addprefix $(ICARUS_B)/rtl/,$(addsuffix .sv,$(RTLTB_MODS_$(call rtltb_tb,$1)))) \
    rtl-model/tb/$(call rtltb_tb,$1).sv rtl-model/tb/tb_rand.svh $(RTL_HDRS) rtl-model/tb/tb.mk
	@mkdir -p $$(@D)
	@iverilog -g2012 -I $(RTL_DIR) -I rtl-model/tb -DABB_ASSERT $(addprefix -P$(call rtltb_tb,$1).,$(call rtltb_ps,$1)) \
	  -s $(call rtltb_tb,$1) -o $$@ $$(filter %.sv,$$^) > $$(@D)/build.log 2>&1 || \
	  { echo "rtl-benches: $(call rtltb_tb,$1) $(call rtltb_ps,$1): build failed"; \
	    grep -v 'sorry\|warning\|cannot be synth' $$(@D)/build.log | head -20; exit 1; }

.PHONY: rtltb-run-$(call rtltb_id,$1)
rtltb-run-$(call rtltb_id,$1): $(RTLTB_B)/$(call rtltb_id,$1)/sim.vvp
	@d=$(RTLTB_B)/$(call rtltb_id,$1); t0=$$$$(date +%s.%N); \
	if (cd $$$$d && vvp -n sim.vvp > run.log 2>&1) && grep -q ': ok' $$$$d/run.log; then \
	  r=ok; line="$$$$(grep ': ok' $$$$d/run.log)"; \
	else \
	  r=FAIL; line="$(call rtltb_tb,$1) $(call rtltb_ps,$1): FAIL (see $$$$d/run.log)"; \
	fi; \
	echo "rtl-benches: $$$$line ($$$$(awk -v a=$$$$t0 -v b=$$$$(date +%s.%N) 'BEGIN{printf "%.1f", b-a}') s)"; \
	[ $$$$r = ok ] || grep -v 'sorry\|warning' $$$$d/run.log | tail -6; \
	echo $$$$r > $$$$d/result
endef
$(foreach r,$(RTLTB_RUNS),$(eval $(call RTLTB_RULE,$r)))

.PHONY: rtl-benches rtltb-runs
rtltb-runs: $(addprefix rtltb-run-,$(RTLTB_IDS))

rtl-benches: $(addprefix $(ICARUS_B)/rtl/,$(notdir $(RTL_SRCS)))
	@[ -n "$(RTLTB_IDS)" ] || { echo "rtl-benches: no run matches RTLTB=$(RTLTB)" >&2; exit 1; }
	@s=$$(date +%s.%N); \
	for id in $(RTLTB_IDS); do rm -f $(RTLTB_B)/$$id/result; done; \
	$(MAKE) --no-print-directory rtltb-runs || exit 1; \
	n=0; f=0; \
	for id in $(RTLTB_IDS); do \
	  n=$$((n + 1)); \
	  [ "$$(cat $(RTLTB_B)/$$id/result 2>/dev/null)" = ok ] || { f=$$((f + 1)); echo "rtl-benches: FAILED $$id"; }; \
	done; \
	echo "rtl-benches: $$n runs, $$((n - f)) passed, $$f failed, in $$(awk -v a=$$s -v b=$$(date +%s.%N) 'BEGIN{printf "%.1f", b-a}') s"; \
	[ $$f = 0 ]
