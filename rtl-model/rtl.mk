# rtl-model/rtl.mk - RTL sources, register-map generation, lint.

RTL_DIR  := rtl-model
# Package first: the order every tool needs.
RTL_SRCS := $(RTL_DIR)/abb_reg_pkg.sv \
            $(RTL_DIR)/abb_tlp_pkg.sv \
            $(RTL_DIR)/abb_mem.sv \
            $(RTL_DIR)/abb_tx_arb.sv \
            $(RTL_DIR)/abb_rx.sv \
            $(RTL_DIR)/abb_pio_cpl.sv \
            $(RTL_DIR)/abb_regs.sv \
            $(RTL_DIR)/abb_evsrc.sv \
            $(RTL_DIR)/abb_dma_ctl.sv \
            $(RTL_DIR)/abb_c2h_mover.sv \
            $(RTL_DIR)/abb_h2c_mover.sv \
            $(RTL_DIR)/abb_ddr2_arb.sv \
            $(RTL_DIR)/abb_tlp_chk.sv \
            $(RTL_DIR)/abb_top.sv
RTL_TOP  := abb_top
# Included by the sources (-I$(RTL_DIR)): the protocol assertions and
# abb_top's port list (also read by sim/abb_sim_top.sv)
RTL_HDRS := $(RTL_DIR)/abb_assert.svh $(RTL_DIR)/abb_top_ports.svh

REGMAP_DEF  := $(RTL_DIR)/abb_regs.def
REGMAP_OUTS := $(RTL_DIR)/abb_reg_pkg.sv rtl-model/include/abb/abb_regs.h \
               $(RTL_DIR)/REGISTERS.md vectors/reg_reset.txt

$(B)/regmap_gen: $(RTL_DIR)/regmap_gen.c
	@mkdir -p $(B)
	$(CC) $(CFLAGS) $(WARN) -o $@ $<

# The generated outputs are committed; `make regmap` rewrites them on purpose.
regmap: $(B)/regmap_gen
	$(B)/regmap_gen $(REGMAP_DEF) $(REGMAP_OUTS)

# Fails when a committed output differs from what the .def generates.
regmap-check: $(B)/regmap_gen
	@mkdir -p $(B)/regmap-check
	@$(B)/regmap_gen $(REGMAP_DEF) $(B)/regmap-check/pkg.sv $(B)/regmap-check/regs.h \
	  $(B)/regmap-check/regs.md $(B)/regmap-check/reset.txt
	@ok=1; for pair in "pkg.sv $(RTL_DIR)/abb_reg_pkg.sv" "regs.h rtl-model/include/abb/abb_regs.h" \
	    "regs.md $(RTL_DIR)/REGISTERS.md" "reset.txt vectors/reg_reset.txt"; do \
	  set -- $$pair; \
	  if ! diff -u $$2 $(B)/regmap-check/$$1; then \
	    echo "regmap-check: $$2 is stale: run 'make regmap' and commit" >&2; ok=0; fi; \
	done; [ $$ok = 1 ] && echo "regmap-check: generated register map is current"

# Lint: Verilator -Wall (waivers in rtl-model/lint.vlt carry their reasons),
# Icarus -g2012 elaboration, Yosys read + hierarchy check; each with the
# protocol assertions (ABB_ASSERT, rtl-model/abb_assert.svh), Verilator also
# without them (the speed build).
RTL_ASSERT_DEFS := -DABB_ASSERT
lint: regmap-check
	verilator --lint-only -Wall -I$(RTL_DIR) --top-module $(RTL_TOP) $(RTL_DIR)/lint.vlt $(RTL_SRCS)
	verilator --lint-only -Wall -I$(RTL_DIR) --assert $(RTL_ASSERT_DEFS) --top-module $(RTL_TOP) \
	  $(RTL_DIR)/lint.vlt $(RTL_SRCS)
	@mkdir -p $(B)
	@# Icarus prints "sorry" notes for constructs it accepts but does not
	@# optimise (unique case, constant selects); only errors fail the target.
	iverilog -g2012 -I $(RTL_DIR) $(RTL_ASSERT_DEFS) -o $(B)/abb_top.vvp -s $(RTL_TOP) $(RTL_SRCS) \
	  > $(B)/iverilog.log 2>&1 || { grep -v 'sorry:' $(B)/iverilog.log; exit 1; }
	yosys -q -p "read_verilog -sv -I$(RTL_DIR) $(RTL_ASSERT_DEFS) $(RTL_SRCS); hierarchy -check -top $(RTL_TOP); proc; check -assert" \
	  > $(B)/yosys.log 2>&1 || { tail -20 $(B)/yosys.log; exit 1; }
	@echo "lint: verilator, iverilog and yosys clean (with and without ABB_ASSERT)"

# Equivalence proofs of behaviour-preserving rewrites (make equiv, make
# equiv-broken): rtl-model/equiv/equiv.mk
-include rtl-model/equiv/equiv.mk
