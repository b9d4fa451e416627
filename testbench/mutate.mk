# testbench/mutate.mk - mutation score of the bench (included by the top-level Makefile).
#
#   make mutate N=60 SEED=1          N seeded single-operator mutants of the RTL
#   make mutate N=60 SEED=1 ONLY=3,17   replay mutants 3 and 17 of that draw
#   make mutate N=60 SEED=1 LIST=1      print the draw, build nothing
#   make mutate-demo                 three broken lines, one caught by each checker
#                                    (scoreboard, RTL assertion, golden vectors)
#
# testbench/mutate.py draws the mutants and runs each: only the Verilator
# model is rebuilt (into $(B)/mutate/obj, from a mutated copy of the RTL in
# $(B)/mutate/rtl); the platform objects and the Verilator runtime of the
# normal build (and its unmutated 250 MHz model) are linked with it into
# $(B)/mutate/libabbsim.so (the bench runs at 125 MHz), and the
# bench runs on it through ABB_SIM_LIB, stopping at the first failing check:
# MUT_SUITES of build/abb_tests in order (golden vectors first; `regress`
# is build/abb_regress N=MUT_REGRESS_N). Report: $(B)/mutate/report.txt.

MUT_N     := $(if $(filter command line environment,$(origin N)),$(N),60)
MUT_SEED  := $(if $(filter command line environment,$(origin SEED)),$(SEED),1)
ONLY      ?=
LIST      ?=
# The checks, in order; the first failing test stops a mutant. Fast and
# strong first (golden vectors 0.1 s, scoreboard 1 s, the register and link
# suites under 0.5 s each, `regress` = build/abb_regress N=MUT_REGRESS_N
# 0.4 s), then the slower ones (blocking 2 s, dma_integrity 5 s, faults 17 s:
# the error paths), last the RTL units' suites rx and dma_ctl (under 1 s
# together: the receiver's and the channel controller's corners, with most
# of the checks written for survivors of earlier runs, testbench/MUTATION.md).
# protocol, robust and the daq_* suites test the library on top: slow and
# no stronger.
MUT_SUITES ?= vectors scoreboard regs intx cfgspace determinism link bad_input tlp_rules \
              regress blocking dma_integrity faults rx dma_ctl
MUT_REGRESS_N ?= 300
MUT_TIMEOUT   ?= 60
MUT_OUT       ?= $(B)/mutate

MUT_DEMO_OUT  ?= $(B)/mutate-demo

# the simulator's build of the model, for mutate.py
# (the mutant's 125 MHz models, untraced and traced; the 250 MHz ones are
# the normal build's)
MUT_BUILD_ENV = MUT_VFLAGS='$(SIM_VFLAGS) $(SIM_VASSERT) --prefix Vabb_top' MUT_VOPT='$(SIM_VOPT)' \
	MUT_VFLAGS_TR='$(if $(SIM_TR_OBJS),$(SIM_VFLAGS) $(SIM_VTRACE) $(SIM_VASSERT) --prefix Vabb_top_tr)' \
	MUT_SIM_OBJS='$(SIM_OBJS) $(SIM_TR_OBJS)' \
	MUT_DEFER='$(if $(SIM_VEXTRA)$(SIM_VEXTRA_SRCS),,sim/defer_comb.py)' \
	MUT_SIM_LIBS='$(SIM_VDIR250)/Vabb_top250__ALL.a $(call sim_tr_models_250) $(SIM_SC_LIBS)'
MUT_TOOLS = --verilator $(VERILATOR) --cxx '$(CXX)' --vlib $(SIM_VRT) \
	--tests $(TB_BIN) --regress $(B)/abb_regress --timeout '$(MUT_TIMEOUT)'

.PHONY: mutate mutate-demo
mutate:
	@$(MAKE) --no-print-directory deps
	@command -v python3 >/dev/null || { echo "mutate: needs python3 (apt-get install python3)" >&2; exit 1; }
	@$(MAKE) --no-print-directory $(TB_BIN) $(B)/abb_regress $(SIM_LIB)
	$(MUT_BUILD_ENV) python3 testbench/mutate.py --n '$(MUT_N)' --seed '$(MUT_SEED)' --out $(MUT_OUT) \
	  $(MUT_TOOLS) --suites '$(MUT_SUITES)' --regress-n '$(MUT_REGRESS_N)' \
	  $(if $(ONLY),--only '$(ONLY)') $(if $(LIST),--list) $(RTL_SRCS)

# A broken RTL line caught by each checker: three fixed mutations
# (mutate.py DEMOS), one each for the scoreboard, an RTL assertion and the
# golden vectors; the vectors and scoreboard suites run on each and the
# output tells which checker caught it, with its message. Fails unless each
# was caught by the checker it is meant for.
mutate-demo:
	@$(MAKE) --no-print-directory deps
	@command -v python3 >/dev/null || { echo "mutate: needs python3 (apt-get install python3)" >&2; exit 1; }
	@$(MAKE) --no-print-directory $(TB_BIN) $(B)/abb_regress $(SIM_LIB)
	$(MUT_BUILD_ENV) python3 testbench/mutate.py --demo --out $(MUT_DEMO_OUT) $(MUT_TOOLS) $(RTL_SRCS)

# Part of `make lint`: the three demo lines are still in the RTL (no build),
# so a rewrite of the RTL cannot leave `make mutate-demo` pointing at a line
# that is gone.
.PHONY: mutate-demo-check
lint: mutate-demo-check
mutate-demo-check:
	@if command -v python3 >/dev/null; then python3 testbench/mutate.py --demo-check $(RTL_SRCS); \
	else echo "mutate-demo-check: skipped (no python3; apt-get install python3)"; fi
