# sim/sim_speed.mk - make sim-speed: the simulator's speed, of the bare
# Verilator loop and as libabb programs see it, against a baseline revision
# (sim/README.md, "Simulation speed").
#
#   make sim-speed [BASELINE=<rev>] [SIM_SPEED_RUNS=n] [SIM_SPEED_IR=1]
#                  [SIM_SPEED_PROGRAMS=0]
#
# Needs from sim/sim.mk: the speed build of the RTL model ($(SIM_VDIRFAST)), the
# platform's flags and the Verilator runtime; from host/host.mk: libabb and
# $(B)/abb.pc. Figures are printed, never judged: nothing here fails on a
# slow machine.

.PHONY: sim-speed

SIM_SPEED_RUNS     ?= 5
SIM_SPEED_IR       ?= 0
# 0: the bare loop and speed_abbsim only (e.g. a BASELINE without libabb)
SIM_SPEED_PROGRAMS ?= 1
# the start of this make, for the elapsed time sim-speed prints (builds
# included); taken only when sim-speed is asked for
ifneq ($(filter sim-speed,$(MAKECMDGOALS)),)
SIM_SPEED_T0 := $(shell date +%s)
endif

# The bare loop: the full platform against the bare Verilator loop
# (sim/bare_bench.cpp: same model, ideal link), one 4 MiB DMA read each;
# target ratio >= 0.5. Both use the speed build (no assertions).
$(SIM_B)/fast/bare_bench: sim/bare_bench.cpp sim/model_inputs.h sim/rtl_model_t.h sim/rtl_hooks.cpp $(SIM_VDIRFAST)/.compiled $(SIM_VRT)
	@mkdir -p $(@D)
	$(CXX) $(filter-out -I$(SIM_VDIR),$(SIM_CXXFLAGS)) -I$(SIM_VDIRFAST) -o $@ sim/bare_bench.cpp sim/rtl_hooks.cpp \
	  $(SIM_VDIRFAST)/Vabb_top__ALL.a $(SIM_VRT) -lz -pthread

$(SIM_B)/fast/speed_abbsim: sim/speed_abbsim.c sim/abbsim.h rtl-model/include/abb/abb_regs.h $(SIM_B)/fast/libabbsim.so
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L $(CFLAGS) $(WARN) -Isim -Irtl-model/include -o $@ $< -L$(SIM_B)/fast -labbsim -Wl,-rpath,'$$ORIGIN'

# The programs (sim/sim_speed_programs.sh): host/tools/speed_program.c
# (libabb DMA loops and a DAQ readout module) and the current
# host/tools/abb_bench.c (the original-program shape), built as a user
# builds a program, with pkg-config's flags for the libabb of one tree:
# $(call sim_speed_progs,OUT DIR,DIR OF THAT TREE'S abb.pc). The same
# sources for every tree; only <abb/*.h> and libabb are the tree's.
SIM_SPEED_PROG_SRCS  := host/tools/speed_program.c host/tools/bench_module.c host/tools/tool_args.c
# (without --pio: the baseline's libabb may predate the PIO API)
SIM_SPEED_BENCH_SRCS := host/tools/abb_bench.c host/tools/tool_args.c
define sim_speed_progs
# (-Ihost/lib after the tree's headers: tool_args.c's header-only number
# reader, host/lib/abb_digits.h)
$(1)/speed_program: $$(SIM_SPEED_PROG_SRCS) host/tools/bench_module.h host/tools/tool_args.h host/lib/abb_digits.h \
                    $(2)/abb.pc $(2)/libabb.so
	@mkdir -p $$(@D)
	$$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L $$(CFLAGS) $$(WARN) -Ihost/tools -o $$@ $$(SIM_SPEED_PROG_SRCS) \
	  $$$$(PKG_CONFIG_PATH=$$(abspath $(2)) pkg-config --cflags abb) -Ihost/lib \
	  $$$$(PKG_CONFIG_PATH=$$(abspath $(2)) pkg-config --libs abb)

$(1)/abb_bench: $$(SIM_SPEED_BENCH_SRCS) host/tools/tool_args.h host/lib/abb_digits.h $(2)/abb.pc $(2)/libabb.so
	@mkdir -p $$(@D)
	$$(CC) -std=c11 $$(CFLAGS) $$(WARN) -DABB_BENCH_NO_PIO -Ihost/tools -o $$@ $$(SIM_SPEED_BENCH_SRCS) \
	  $$$$(PKG_CONFIG_PATH=$$(abspath $(2)) pkg-config --cflags abb) -Ihost/lib \
	  $$$$(PKG_CONFIG_PATH=$$(abspath $(2)) pkg-config --libs abb) -lm -pthread
endef
SIM_SPEED_CUR := $(B)/sim-speed
$(eval $(call sim_speed_progs,$(SIM_SPEED_CUR),$(B)))
# built with everything, so a change of the API that breaks it shows at once
all: $(SIM_SPEED_CUR)/speed_program
ifneq ($(SIM_SPEED_PROGRAMS),0)
SIM_SPEED_DEPS := $(SIM_SPEED_CUR)/speed_program $(SIM_SPEED_CUR)/abb_bench $(SIM_LIB)
endif

# BASELINE=<rev>: the whole tree of <rev> by git archive into
# $(SIM_BASE_SRC), built there by its own make (its flags, as <rev> built
# it) once: the speed build of its model for the bare loop (its default
# model where it has no speed build), libabb, libabbsim (its default
# library: the one its programs load) and abb.pc. Cached by the stamps: a
# second run rebuilds nothing. The bare loop of <rev> is the current
# bare_bench.cpp linked with its model; its programs the current sources
# compiled against its headers and libabb.
ifneq ($(BASELINE),)
SIM_BASE_SHA := $(shell git rev-parse --verify -q '$(BASELINE)^{commit}')
ifeq ($(SIM_BASE_SHA),)
$(error sim-speed: BASELINE=$(BASELINE) is not a git revision)
endif
SIM_BASE_D     := $(B)/baseline/$(SIM_BASE_SHA)
SIM_BASE_SRC   := $(SIM_BASE_D)/src
SIM_BASE_B     := $(SIM_BASE_SRC)/build
SIM_BASE_BENCH := $(SIM_BASE_D)/bare_bench
SIM_BASE_PROGS := $(SIM_BASE_D)/programs

$(SIM_BASE_SRC)/.archived:
	rm -rf $(SIM_BASE_D) && mkdir -p $(SIM_BASE_SRC)
	git archive $(SIM_BASE_SHA) | tar -x -C $(SIM_BASE_SRC)
	@touch $@

# (one make in the baseline tree, so `make -j` never runs two there)
$(SIM_BASE_D)/.built: $(SIM_BASE_SRC)/.archived
	@# a baseline with a separate speed model (obj_fast: before the default
	@# models ran without assertions) builds that one too
	cd $(SIM_BASE_SRC) && fast=$$(grep -q '^SIM_VDIRFAST := $$(SIM_B)/obj_fast' sim/sim.mk && echo build/sim/obj_fast/.compiled); \
	  $(MAKE) B=build BASELINE= $$fast build/sim/obj_dir/.compiled \
	  $(if $(filter 0,$(SIM_SPEED_PROGRAMS)),,build/libabb.so build/sim/libabbsim.so build/abb.pc)
	@touch $@

$(SIM_BASE_B)/abb.pc $(SIM_BASE_B)/libabb.so: $(SIM_BASE_D)/.built

$(SIM_BASE_BENCH): sim/bare_bench.cpp sim/model_inputs.h sim/rtl_model_t.h sim/rtl_hooks.cpp $(SIM_BASE_D)/.built $(SIM_VRT)
	vdir=$(SIM_BASE_B)/sim/obj_fast; [ -f $$vdir/.compiled ] || vdir=$(SIM_BASE_B)/sim/obj_dir; \
	$(CXX) $(filter-out -I$(SIM_VDIR) -I$(SIM_VDIR250),$(SIM_CXXFLAGS)) -I$$vdir -o $@ sim/bare_bench.cpp sim/rtl_hooks.cpp \
	  $$vdir/Vabb_top__ALL.a $(SIM_VRT) -lz -pthread

$(eval $(call sim_speed_progs,$(SIM_BASE_PROGS),$(SIM_BASE_B)))
ifneq ($(SIM_SPEED_PROGRAMS),0)
SIM_SPEED_DEPS += $(SIM_BASE_PROGS)/speed_program $(SIM_BASE_PROGS)/abb_bench
SIM_SPEED_BASE_ARGS := $(abspath $(SIM_BASE_PROGS)) $(abspath $(SIM_BASE_B))/sim/libabbsim.so $(BASELINE)
endif
endif

sim-speed: $(SIM_B)/fast/bare_bench $(SIM_B)/fast/speed_abbsim $(SIM_BASE_BENCH) $(SIM_SPEED_DEPS)
	@IR=$(SIM_SPEED_IR) sim/sim_speed.sh $(SIM_SPEED_RUNS) $(SIM_B)/fast/bare_bench $(SIM_B)/fast/speed_abbsim \
	  $(SIM_BASE_BENCH) $(BASELINE)
	@$(if $(SIM_SPEED_DEPS),sim/sim_speed_programs.sh $(SIM_SPEED_RUNS) $(abspath $(SIM_SPEED_CUR)) \
	  $(abspath $(SIM_LIB)) $(SIM_SPEED_BASE_ARGS),true)
	@echo "sim-speed: elapsed $$(( $$(date +%s) - $(SIM_SPEED_T0) )) s (this make, builds included)"

# make model-speed [MODEL_SPEED_RUNS=n]: the timed reference model against
# the simulator, the same speed_program on both (sim/model_speed.sh):
# device-time MB/s of both, simulated MB per wall and per CPU second, ratio.
.PHONY: model-speed
MODEL_SPEED_RUNS ?= 3
model-speed: $(SIM_SPEED_CUR)/speed_program $(SIM_LIB)
	@sim/model_speed.sh $(MODEL_SPEED_RUNS) $(abspath $(SIM_SPEED_CUR)) $(abspath $(SIM_LIB))

# make model-tlp-same BASELINE=<rev>: the timed model's TLP logs (every TLP
# and its device time) of this tree's libabb and <rev>'s for the same
# abb_bench runs must be identical (sim/model_tlp_same.sh): the check for
# speed work on the timed model. Builds only <rev>'s libabb (no RTL).
.PHONY: model-tlp-same
ifneq ($(BASELINE),)
$(SIM_BASE_D)/.libabb: $(SIM_BASE_SRC)/.archived
	cd $(SIM_BASE_SRC) && $(MAKE) B=build BASELINE= build/libabb.so
	@touch $@

model-tlp-same: $(B)/abb_bench $(SIM_BASE_D)/.libabb
	@sim/model_tlp_same.sh $(B)/abb_bench $(abspath $(SIM_BASE_B))
else
model-tlp-same:
	@echo "model-tlp-same: BASELINE=<rev> needed (the libabb to compare with)" >&2; exit 2
endif
