# sim/sim.mk - the simulated platform: $(B)/sim/libabbsim.so (API: sim/abbsim.h)
#
#   make sim          the library (Verilator model of $(RTL_TOP) + platform)
#   make sim-smoke    build and run $(B)/sim/smoke_abbsim (opens the board,
#                     reads VERSION, prints the cycle count)
#   make sim-test     build and run $(B)/sim/test_abbsim (config space, PIO,
#                     DMA both ways, IOMMU scatter, faults, determinism, speed)
#   (make sim-speed, the simulator's speed: sim/sim_speed.mk)
#   make sim-prof     the bare loop's instructions by RTL module and line
#                     (callgrind, sim/prof_rtl.py)
#
# Needs from rtl-model/rtl.mk: RTL_SRCS (package first) and RTL_TOP.
# Steps (each a single target, so `make -j` never races): verilate into
# $(B)/sim/obj_dir (stamp .verilated), compile the verilated C++ with the
# generated makefile (stamp .compiled), compile sim/*.cpp, link.

VERILATOR ?= verilator
SIM_B      := $(B)/sim
SIM_VDIR   := $(SIM_B)/obj_dir
SIM_LIB    := $(SIM_B)/libabbsim.so
SIM_VROOT  := $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null)
SIM_SC_CFLAGS := $(shell pkg-config --cflags systemc 2>/dev/null)
SIM_SC_LIBS   := $(shell pkg-config --libs systemc 2>/dev/null || echo -lsystemc)

# Every model is built twice (sim/rtl_model.h): without tracing, the one a
# run gets unless it asks for a waveform at open, and with --trace-fst
# (directory and class suffix _tr). A model with tracing compiled in is
# 5-10 % slower even while it traces nothing (`make trace-cost`).
# SIM_TRACE=0 builds and links only the untraced ones (a simulator that
# cannot write waveforms: the reference of `make trace-cost`; use with its
# own B=, e.g. make B=build-notrace SIM_TRACE=0).
SIM_TRACE ?= 1
SIM_VTRACE := --trace-fst --trace-structs#   FST tracing; packed structs (decoded TLP headers) as fields

# Verilator flags, one per line.
SIM_VFLAGS := --cc#                          C++ model; the platform owns the main loop
SIM_VFLAGS += -O3#                           all Verilator optimisations
SIM_VFLAGS += --x-assign fast#               X assignments take the fastest value
SIM_VFLAGS += --x-initial fast#              uninitialised state: fastest value (reset defines it)
# Every build of the RTL model (125 and 250 MHz, the speed build, coverage and
# mutants) has the wrapper as top: $(RTL_TOP) as u_abb, the same ports, plus
# trace-only inputs (sim/abb_sim_top.sv; its parameters go to abb_top); it
# loads abb_top's inputs only when one changed (smp_i: speed,
# sim/model_inputs.h). The
# wrapper's source is named here so that each verilation gets it.
SIM_VWRAP  := sim/abb_sim_top.sv
SIM_VFLAGS += --top-module abb_sim_top $(SIM_VWRAP)#   $(RTL_TOP) + trace-only lanes
SIM_VFLAGS += -CFLAGS -fPIC#                 the RTL model goes into a shared library
SIM_VFLAGS += -CFLAGS -DVL_USER_FINISH#      $$finish ...
SIM_VFLAGS += -CFLAGS -DVL_USER_STOP#        ... $$stop ...
SIM_VFLAGS += -CFLAGS -DVL_USER_FATAL#       ... and fatal errors stop the simulation, never exit() (sim/rtl_hooks.cpp)
SIM_VFLAGS += -I$(RTL_DIR)#                  rtl-model/abb_assert.svh
# The protocol assertions of the RTL (rtl-model/abb_assert.svh) are compiled
# into the RTL models with tracing (the ones a waveform or traceable=1
# runs), not into the untraced ones every other run uses: they cost 17 % of
# the instructions per cycle (callgrind on the bare loop: 2987 against 2548)
# and catch nothing a correct RTL does. `make test` runs the simulator's
# suites and the regression once with them (ABB_SIM_TRACEABLE=1, the
# traced models), make mutate builds its mutants with them. A failing one
# stops the simulation: every later call fails with "RTL model fatal error:
# $$stop at <file>:<line>" (the assertion's message is printed on stdout).
SIM_VASSERT := --assert -DABB_ASSERT

# The RTL is built for the clock the simulator runs (sim/rtl_model.h): the
# default ClkNs 8 (125 MHz) as class Vabb_top in $(SIM_VDIR), ClkNs 4
# (250 MHz) as class Vabb_top250 in $(SIM_VDIR250); both go into the one
# library, which picks by the user clock at open. The speed build of
# `make sim-speed` ($(SIM_B)/fast) has the same untraced models.
SIM_VDIR250  := $(SIM_B)/obj_dir250
SIM_VDIRFAST := $(SIM_VDIR)
SIM_VDIR_TR     := $(SIM_B)/obj_dir_tr
SIM_VDIR250_TR  := $(SIM_B)/obj_dir250_tr
SIM_VDIRFAST_TR := $(SIM_B)/obj_fast_tr

# A build of its own may add flags and sources to the default (125 MHz)
# model (make coverage: --coverage and rtl-model/abb_cover.sv, with
# SIM_CXXEXTRA=-DVM_COVERAGE=1 for the platform).
SIM_VEXTRA      ?=
SIM_VEXTRA_SRCS ?=
SIM_CXXEXTRA    ?=

# Optimisation of the verilated C++ (the generated makefile's defaults are -Os).
SIM_VOPT := OPT_FAST=-O2 OPT_SLOW=-O1 OPT_GLOBAL=-O2
# Sanitizer flags of CXXFLAGS (make sanitize) reach the verilated C++ too.
# Verilator's code is third-party: the trace code it generates loads and
# stores trace words at misaligned addresses on purpose (no UBSan alignment
# check), its runtime's FST writer has more such (no UBSan at all for the
# runtime, sim/verilated_lib.mk); ASan covers both
# (testbench/sanitize/README.md).
# SIM_VSAN_RTL=0 leaves the verilated C++ uninstrumented (the platform and
# libabb keep their sanitizers): its compile under ASan is most of a
# sanitizer build, and it is generated code (CI's sanitizer stage).
SIM_VSAN_RTL ?= 1
# (CXXFLAGS= : the sub-make would otherwise inherit the sanitizer flags
# given on the command line through MAKEFLAGS)
SIM_VSAN = $(if $(filter 0,$(SIM_VSAN_RTL)),CXXFLAGS=,$(SIM_VSAN_ON))
SIM_VSAN_ON := USER_CPPFLAGS='$(filter -fsanitize% -fno-sanitize% -fno-omit-frame-pointer,$(CXXFLAGS)) \
            $(if $(findstring undefined,$(CXXFLAGS)),-fno-sanitize=alignment)' \
            SIM_VRT_CPPFLAGS='$(if $(findstring undefined,$(CXXFLAGS)),-fno-sanitize=undefined)'

SIM_SRCS := params.cpp tlp.cpp cfg_space.cpp enumerate.cpp iommu.cpp link.cpp \
            root_complex.cpp cpu_store.cpp inject.cpp hard_ip.cpp platform.cpp platform_lockstep.cpp platform_freerun.cpp \
            platform_open_close.cpp sim_thread.cpp trace_control.cpp rtl_hooks.cpp abbsim.cpp \
            stim_rec.cpp rtl_model.cpp trace.cpp
SIM_OBJS := $(addprefix $(SIM_B)/,$(SIM_SRCS:.cpp=.o))
SIM_CXXFLAGS := -std=c++17 -fPIC $(CXXFLAGS) $(WARN) -Isim -Irtl-model/include $(SIM_SC_CFLAGS) \
                -I$(SIM_VDIR) -I$(SIM_VDIR250) -I$(SIM_VROOT)/include -I$(SIM_VROOT)/include/vltstd \
                -DVL_USER_FINISH -DVL_USER_STOP -DVL_USER_FATAL -fno-semantic-interposition $(SIM_CXXEXTRA)
# The library's own calls bind inside it (no PLT jump per event-queue look or
# model eval; nothing interposes the platform's functions): -Bsymbolic-functions.
SIM_LDSYM := -Wl,-Bsymbolic-functions
# the verilated models each library links: the untraced ones (rtl_model.cpp),
# then the traced ones and their unit (rtl_model_traced.cpp); the Verilator
# runtime comes from a traced build (it has the FST writer) when there is one
# (SIM_TRACE=0 also leaves the platform's waveform writer out: ABBSIM_NO_TRACE)
ifeq ($(SIM_TRACE),0)
SIM_CXXFLAGS += -DABBSIM_NO_TRACE
SIM_TR_OBJS :=
SIM_VRT_DIR := $(SIM_VDIR)
SIM_VRT_CLASS := Vabb_top
else
SIM_TR_OBJS := $(SIM_B)/rtl_model_traced.o
SIM_VRT_DIR := $(SIM_VDIR_TR)
SIM_VRT_CLASS := Vabb_top_tr
endif
SIM_VRT := $(SIM_VRT_DIR)/libverilated_pic.a

.PHONY: sim sim-smoke sim-test sim-install
all: sim
sim: $(SIM_LIB)

# One model: $(call sim_model,DIR,CLASS,VERILATOR FLAGS,EXTRA SOURCES[,defer]).
# Each step is one target (`make -j` never races); the generated makefile
# compiles the RTL model's C++ into DIR/CLASS__ALL.a. defer: the generated
# C++ edited so that the loop may leave out the combinational pass of the
# clock edge (sim/defer_comb.py; the untraced models without extras).
define sim_model
$(1)/.verilated: $$(RTL_SRCS) $$(SIM_VWRAP) $$(RTL_HDRS) $(4) sim/sim.mk sim/defer_comb.py
	@mkdir -p $(1)
	$$(VERILATOR) $$(SIM_VFLAGS) $(3) --prefix $(2) --Mdir $(1) $$(RTL_SRCS) $(4)
	$(if $(5),python3 sim/defer_comb.py $(1) $(2))
	@touch $$@

$(1)/.compiled: $(1)/.verilated
	$$(if $$(SIM_PGO_MODEL_GCDA),cp -f $$(SIM_PGO_MODEL_GCDA) $(1)/ 2>/dev/null || true)
	$$(MAKE) -C $(1) -f $(2).mk $$(SIM_VOPT) $$(SIM_VSAN) $(2)__ALL.a
	@touch $$@
endef
# 125 MHz (with make coverage's extras) and 250 MHz, each untraced (no
# assertions) and traced (assertions on); the traced speed build (no
# assertions) of `make trace-cost`
$(eval $(call sim_model,$(SIM_VDIR),Vabb_top,$(SIM_VEXTRA),$(SIM_VEXTRA_SRCS),$(if $(SIM_VEXTRA)$(SIM_VEXTRA_SRCS),,defer)))
$(eval $(call sim_model,$(SIM_VDIR250),Vabb_top250,-GClkNs=4,,defer))
$(eval $(call sim_model,$(SIM_VDIR_TR),Vabb_top_tr,$(SIM_VTRACE) $(SIM_VASSERT) $(SIM_VEXTRA),$(SIM_VEXTRA_SRCS)))
$(eval $(call sim_model,$(SIM_VDIR250_TR),Vabb_top250_tr,$(SIM_VTRACE) $(SIM_VASSERT) -GClkNs=4,))
$(eval $(call sim_model,$(SIM_VDIRFAST_TR),Vabb_top_tr,$(SIM_VTRACE),))

# The Verilator runtime objects the models need, compiled with the models'
# flags (sim/verilated_lib.mk), as $(SIM_VRT).
# (After the RTL model's own compile: one make at a time in a directory.)
$(SIM_VRT): $(SIM_VRT_DIR)/.compiled sim/verilated_lib.mk
	$(MAKE) -C $(SIM_VRT_DIR) -f $(SIM_VRT_CLASS).mk -f $(CURDIR)/sim/verilated_lib.mk $(SIM_VOPT) \
	  $(SIM_VSAN) libverilated_pic.a

# Every platform object waits for the generated headers (hard_ip.cpp and
# rtl_hooks.cpp include them).
# (a unit of SIM_PGO_UNITS gets its profile: sim/pgo.mk)
$(SIM_B)/%.o: sim/%.cpp $(SIM_VDIR)/.verilated $(SIM_VDIR250)/.verilated
	@mkdir -p $(SIM_B)
	$(if $(SIM_PGO_GCDA),cp -f $(SIM_PGO_GCDA) $(SIM_B)/ 2>/dev/null || true)
	$(CXX) $(SIM_CXXFLAGS) $(SIM_PGO_OBJFLAGS) -MMD -MP -c -o $@ $<

$(SIM_B)/rtl_model_traced.o: sim/rtl_model_traced.cpp $(SIM_VDIR_TR)/.verilated $(SIM_VDIR250_TR)/.verilated
	@mkdir -p $(SIM_B)
	$(CXX) $(SIM_CXXFLAGS) -I$(SIM_VDIR_TR) -I$(SIM_VDIR250_TR) -MMD -MP -c -o $@ $<

# the traced models of a library: its 125 MHz one (DIR) and the 250 MHz one
sim_tr_models = $(if $(SIM_TR_OBJS),$(1)/Vabb_top_tr__ALL.a $(SIM_VDIR250_TR)/Vabb_top250_tr__ALL.a)
sim_tr_models_250 = $(if $(SIM_TR_OBJS),$(SIM_VDIR250_TR)/Vabb_top250_tr__ALL.a)
sim_tr_deps = $(if $(SIM_TR_OBJS),$(1)/.compiled $(SIM_VDIR250_TR)/.compiled)
# Link order: rtl_model.o and the untraced models (its 125 MHz archive, then
# the 250 MHz one) first, then the other platform objects, the traced models
# last. So the code a run without a waveform executes lies at the same place
# in a library with traced models as in one without (SIM_TRACE=0): with the
# traced unit before the models, `make trace-cost` measured a build-dependent
# 3 % between the two (code placement, the RTL model code being identical).
sim_untraced_first = $(SIM_B)/rtl_model.o $(1) $(SIM_VDIR250)/Vabb_top250__ALL.a \
                     $(filter-out $(SIM_B)/rtl_model.o,$(SIM_OBJS))

$(SIM_LIB): $(SIM_OBJS) $(SIM_TR_OBJS) $(SIM_VDIR)/.compiled $(SIM_VDIR250)/.compiled \
            $(call sim_tr_deps,$(SIM_VDIR_TR)) $(SIM_VRT)
	$(CXX) $(CXXFLAGS) $(LDFLAGS) -shared -o $@ -Wl,--no-undefined -Wl,-soname,libabbsim.so $(SIM_LDSYM) \
	  $(call sim_untraced_first,$(SIM_VDIR)/Vabb_top__ALL.a) $(SIM_TR_OBJS) \
	  $(call sim_tr_models,$(SIM_VDIR_TR)) $(SIM_VRT) $(SIM_SC_LIBS) -lz -pthread

# The speed build: the same platform and untraced models, the traced
# 125 MHz model without assertions, in $(SIM_B)/fast.
$(SIM_B)/fast/libabbsim.so: $(SIM_OBJS) $(SIM_TR_OBJS) $(SIM_VDIR)/.compiled $(SIM_VDIR250)/.compiled \
                            $(call sim_tr_deps,$(SIM_VDIRFAST_TR)) $(SIM_VRT)
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) $(LDFLAGS) -shared -o $@ -Wl,--no-undefined -Wl,-soname,libabbsim.so $(SIM_LDSYM) \
	  $(call sim_untraced_first,$(SIM_VDIRFAST)/Vabb_top__ALL.a) $(SIM_TR_OBJS) \
	  $(call sim_tr_models,$(SIM_VDIRFAST_TR)) $(SIM_VRT) $(SIM_SC_LIBS) -lz -pthread

$(SIM_B)/smoke_abbsim: sim/smoke_abbsim.c sim/abbsim.h rtl-model/include/abb/abb_regs.h $(SIM_LIB)
	$(CC) -std=c11 $(CFLAGS) $(WARN) -Isim -Irtl-model/include -o $@ $< -L$(SIM_B) -labbsim -Wl,-rpath,'$$ORIGIN'

sim-smoke: $(SIM_B)/smoke_abbsim
	$(SIM_B)/smoke_abbsim

$(SIM_B)/test_abbsim: sim/test_abbsim.c sim/abbsim.h rtl-model/include/abb/abb_regs.h $(SIM_LIB)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L $(CFLAGS) $(WARN) -Isim -Irtl-model/include -o $@ $< -L$(SIM_B) -labbsim -Wl,-rpath,'$$ORIGIN'

sim-test: $(SIM_B)/test_abbsim
	$(SIM_B)/test_abbsim

# make sim-speed: sim/sim_speed.mk

# make sim-prof [SIM_PROF_TOP=n]: where the bare loop's instructions go, by
# RTL module and RTL line (sim/prof_rtl.py): the speed build's verilated C++
# again (edited by sim/defer_comb.py as the library's is), compiled with -g
# ($(SIM_B)/prof/obj), linked into the bare loop and
# run under callgrind; the same RTL verilated with --prof-cfuncs (not
# compiled: its function names map model variables to RTL lines).
SIM_PROF_TOP ?= 20
SIM_PROF_D   := $(SIM_B)/prof
SIM_VOPT_G   := OPT_FAST='-O2 -g' OPT_SLOW=-O1 OPT_GLOBAL='-O2 -g'

$(SIM_PROF_D)/obj/.compiled: $(RTL_SRCS) $(SIM_VWRAP) $(RTL_HDRS) sim/sim.mk sim/defer_comb.py
	rm -rf $(@D) && mkdir -p $(@D)
	$(VERILATOR) $(SIM_VFLAGS) --prefix Vabb_top --Mdir $(@D) $(RTL_SRCS)
	python3 sim/defer_comb.py $(@D) Vabb_top
	$(MAKE) -C $(@D) -f Vabb_top.mk $(SIM_VOPT_G) CXXFLAGS= Vabb_top__ALL.a
	@touch $@

$(SIM_PROF_D)/cfuncs/.verilated: $(RTL_SRCS) $(SIM_VWRAP) $(RTL_HDRS) sim/sim.mk
	rm -rf $(@D) && mkdir -p $(@D)
	$(VERILATOR) $(SIM_VFLAGS) --prof-cfuncs --prefix Vabb_top --Mdir $(@D) $(RTL_SRCS)
	@touch $@

$(SIM_PROF_D)/bare_bench: sim/bare_bench.cpp sim/model_inputs.h sim/rtl_model_t.h sim/rtl_hooks.cpp $(SIM_PROF_D)/obj/.compiled $(SIM_VRT)
	$(CXX) $(filter-out -I$(SIM_VDIR),$(SIM_CXXFLAGS)) -I$(SIM_PROF_D)/obj -o $@ sim/bare_bench.cpp sim/rtl_hooks.cpp \
	  $(SIM_PROF_D)/obj/Vabb_top__ALL.a $(SIM_VRT) -lz -pthread

.PHONY: sim-prof
sim-prof: $(SIM_PROF_D)/bare_bench $(SIM_PROF_D)/cfuncs/.verilated
	@command -v valgrind >/dev/null || { echo "sim-prof: needs valgrind" >&2; exit 1; }
	@l=$$(valgrind --tool=callgrind --dump-line=yes --callgrind-out-file=$(SIM_PROF_D)/callgrind.out \
	    $(SIM_PROF_D)/bare_bench 2>$(SIM_PROF_D)/valgrind.log) && echo "$$l" && \
	  python3 sim/prof_rtl.py $(SIM_PROF_D)/callgrind.out $(SIM_PROF_D)/obj $(SIM_PROF_D)/cfuncs $(RTL_DIR) \
	    $$(echo "$$l" | sed -n 's/.* cycles=\([0-9]*\).*/\1/p') $(SIM_PROF_TOP)

sim-install: $(SIM_LIB)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 0755 $(SIM_LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 0644 sim/abbsim.h sim/abbsim_inject.h sim/abbsim_note.h sim/abbsim_cfg.h $(DESTDIR)$(PREFIX)/include/

install: sim-install

# the profile-guided build of the default library (after everything it names)
include sim/pgo.mk

-include $(SIM_OBJS:.o=.d) $(SIM_TR_OBJS:.o=.d)
