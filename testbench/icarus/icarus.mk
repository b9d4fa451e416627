# testbench/icarus/icarus.mk - a second simulator: Icarus Verilog replays the
# golden vectors against the same RTL (included by the top-level Makefile).
#
#   make icarus-replay    compile testbench/icarus/replay_tb.sv with the RTL
#                         (assertions on) and replay every vectors/tlp/*.stim;
#                         per vector: TX beats, irq_o edges, TLPs and cycle
#                         counts compared (testbench/icarus/replay.sh)
#
# The .stim files are written by `make vectors` (sim/stim_rec.h).

ICARUS_B    := $(B)/icarus
ICARUS_VVP  := $(ICARUS_B)/replay.vvp
ICARUS_STIM := $(wildcard vectors/tlp/*.stim)

.PHONY: icarus-replay

# Icarus 11 runs an always_comb that first assigns a default and then
# overrides it (most of ours) again and again at one time step: its own
# intermediate values wake it up. The replay therefore compiles the RTL with
# always_comb spelled "always @*" (the same logic: no block of ours reads what
# it writes); the copies are in $(ICARUS_B)/rtl.
ICARUS_RTL := $(addprefix $(ICARUS_B)/rtl/,$(notdir $(RTL_SRCS)))

$(ICARUS_B)/rtl/%.sv: $(RTL_DIR)/%.sv
	@mkdir -p $(@D)
	sed 's/\<always_comb\>/always @*/' $< > $@

$(ICARUS_VVP): $(ICARUS_RTL) $(RTL_HDRS) testbench/icarus/replay_tb.sv
	@mkdir -p $(ICARUS_B)
	iverilog -g2012 -I $(RTL_DIR) -DABB_ASSERT -o $@ -s replay_tb $(ICARUS_RTL) \
	  testbench/icarus/replay_tb.sv > $(ICARUS_B)/iverilog.log 2>&1 || \
	  { grep -v 'sorry:' $(ICARUS_B)/iverilog.log; exit 1; }

icarus-replay: $(ICARUS_VVP)
	@[ -n "$(ICARUS_STIM)" ] || { echo "icarus-replay: no vectors/tlp/*.stim: run make vectors" >&2; exit 1; }
	@s=$$(date +%s.%N); testbench/icarus/replay.sh $(ICARUS_VVP) $(ICARUS_B) $(ICARUS_STIM); rc=$$?; \
	  echo "icarus-replay: $(words $(ICARUS_STIM)) vectors in $$(awk -v a=$$s -v b=$$(date +%s.%N) 'BEGIN{printf "%.1f", b-a}') s"; \
	  exit $$rc
