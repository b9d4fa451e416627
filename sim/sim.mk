# sim/sim.mk - the simulated platform: $(B)/sim/libabbsim.so (API: sim/abbsim.h)
#
#   make sim          the library (Verilator model of $(RTL_TOP) + platform)
#   make sim-smoke    build and run $(B)/sim/smoke_abbsim (opens the board,
#                     reads VERSION, prints the cycle count)
#   make sim-test     build and run $(B)/sim/test_abbsim (config space, PIO,
#                     DMA both ways, IOMMU scatter, faults, determinism, speed)
#   make sim-speed    platform vs bare Verilator loop, 4 MiB DMA read
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

# SIM_TRACE=0 builds a simulator without tracing compiled in (the reference
# of `make trace-cost`; use with its own B=, e.g. make B=build-notrace SIM_TRACE=0).
SIM_TRACE ?= 1

# Verilator flags, one per line.
SIM_VFLAGS := --cc#                          C++ model; the platform owns the main loop
SIM_VFLAGS += -O3#                           all Verilator optimisations
SIM_VFLAGS += --x-assign fast#               X assignments take the fastest value
SIM_VFLAGS += --x-initial fast#              uninitialised state: fastest value (reset defines it)
ifneq ($(SIM_TRACE),0)
SIM_VFLAGS += --trace-fst#                   FST tracing compiled in, switched on at run time
SIM_VFLAGS += --trace-structs#               packed structs (decoded TLP headers) as fields
endif
# Every build of the model (125 and 250 MHz, the speed build, coverage and
# mutants) has the wrapper as top: $(RTL_TOP) as u_abb, the same ports, plus
# trace-only inputs (sim/abb_sim_top.sv; its ClkNs goes to abb_top). The
# wrapper's source is named here so that each verilation gets it.
SIM_VWRAP  := sim/abb_sim_top.sv
SIM_VFLAGS += --top-module abb_sim_top $(SIM_VWRAP)#   $(RTL_TOP) + trace-only lanes
SIM_VFLAGS += -CFLAGS -fPIC#                 the model goes into a shared library
SIM_VFLAGS += -CFLAGS -DVL_USER_FINISH#      $$finish ...
SIM_VFLAGS += -CFLAGS -DVL_USER_STOP#        ... $$stop ...
SIM_VFLAGS += -CFLAGS -DVL_USER_FATAL#       ... and fatal errors stop the simulation, never exit() (sim/rtl_hooks.cpp)
SIM_VFLAGS += -I$(RTL_DIR)#                  rtl-model/abb_assert.svh
# The protocol assertions of the RTL (rtl-model/abb_assert.svh) are on in the
# library the tests use; a failing one stops the simulation: every later
# call fails with "RTL model fatal error: $$stop at <file>:<line>" (the
# assertion's message is printed on stdout). The speed build leaves them out.
SIM_VASSERT := --assert -DABB_ASSERT

# The RTL is built for the clock the simulator runs (sim/rtl_model.h): the
# default ClkNs 8 (125 MHz) as class Vabb_top in $(SIM_VDIR), ClkNs 4
# (250 MHz) as class Vabb_top250 in $(SIM_VDIR250); both go into the one
# library, which picks by the user clock at open. The speed build
# ($(SIM_VDIRFAST): 125 MHz, no assertions) is made only by `make sim-speed`.
SIM_VDIR250  := $(SIM_B)/obj_dir250
SIM_VDIRFAST := $(SIM_B)/obj_fast

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
            root_complex.cpp faults.cpp hard_ip.cpp platform.cpp rtl_hooks.cpp abbsim.cpp \
            stim_rec.cpp rtl_model.cpp trace.cpp
SIM_OBJS := $(addprefix $(SIM_B)/,$(SIM_SRCS:.cpp=.o)) $(SIM_B)/abb_options.o
SIM_CXXFLAGS := -std=c++17 -fPIC $(CXXFLAGS) $(WARN) -Isim -Ihost/include $(SIM_SC_CFLAGS) \
                -I$(SIM_VDIR) -I$(SIM_VDIR250) -I$(SIM_VROOT)/include -I$(SIM_VROOT)/include/vltstd \
                -DVL_USER_FINISH -DVL_USER_STOP -DVL_USER_FATAL $(SIM_CXXEXTRA)
ifeq ($(SIM_TRACE),0)
SIM_CXXFLAGS += -DABBSIM_NO_TRACE
endif

.PHONY: sim sim-smoke sim-test sim-speed sim-install
all: sim
sim: $(SIM_LIB)

$(SIM_VDIR)/.verilated: $(RTL_SRCS) $(SIM_VWRAP) $(RTL_DIR)/abb_assert.svh $(SIM_VEXTRA_SRCS) sim/sim.mk
	@mkdir -p $(SIM_VDIR)
	$(VERILATOR) $(SIM_VFLAGS) $(SIM_VASSERT) $(SIM_VEXTRA) --prefix Vabb_top --Mdir $(SIM_VDIR) $(RTL_SRCS) $(SIM_VEXTRA_SRCS)
	@touch $@

$(SIM_VDIR250)/.verilated: $(RTL_SRCS) $(SIM_VWRAP) $(RTL_DIR)/abb_assert.svh sim/sim.mk
	@mkdir -p $(SIM_VDIR250)
	$(VERILATOR) $(SIM_VFLAGS) $(SIM_VASSERT) -GClkNs=4 --prefix Vabb_top250 --Mdir $(SIM_VDIR250) $(RTL_SRCS)
	@touch $@

$(SIM_VDIRFAST)/.verilated: $(RTL_SRCS) $(SIM_VWRAP) $(RTL_DIR)/abb_assert.svh sim/sim.mk
	@mkdir -p $(SIM_VDIRFAST)
	$(VERILATOR) $(SIM_VFLAGS) --prefix Vabb_top --Mdir $(SIM_VDIRFAST) $(RTL_SRCS)
	@touch $@

$(SIM_VDIR)/.compiled: $(SIM_VDIR)/.verilated sim/verilated_lib.mk
	$(MAKE) -C $(SIM_VDIR) -f Vabb_top.mk -f $(CURDIR)/sim/verilated_lib.mk $(SIM_VOPT) $(SIM_VSAN) \
	  Vabb_top__ALL.a libverilated_pic.a
	@touch $@

$(SIM_VDIR250)/.compiled: $(SIM_VDIR250)/.verilated
	$(MAKE) -C $(SIM_VDIR250) -f Vabb_top250.mk $(SIM_VOPT) $(SIM_VSAN) Vabb_top250__ALL.a
	@touch $@

$(SIM_VDIRFAST)/.compiled: $(SIM_VDIRFAST)/.verilated
	$(MAKE) -C $(SIM_VDIRFAST) -f Vabb_top.mk $(SIM_VOPT) $(SIM_VSAN) Vabb_top__ALL.a
	@touch $@

# Every platform object waits for the generated headers (hard_ip.cpp and
# rtl_hooks.cpp include them).
$(SIM_B)/%.o: sim/%.cpp $(SIM_VDIR)/.verilated $(SIM_VDIR250)/.verilated
	@mkdir -p $(SIM_B)
	$(CXX) $(SIM_CXXFLAGS) -MMD -MP -c -o $@ $<

# The option table (host/lib/abb_options.c), shared with libabb: one parser
# of the environment and the URI.
$(SIM_B)/abb_options.o: host/lib/abb_options.c
	@mkdir -p $(SIM_B)
	$(CC) -std=c11 -fPIC $(CFLAGS) $(WARN) -Isim -MMD -MP -c -o $@ $<

$(SIM_LIB): $(SIM_OBJS) $(SIM_VDIR)/.compiled $(SIM_VDIR250)/.compiled
	$(CXX) $(CXXFLAGS) $(LDFLAGS) -shared -o $@ -Wl,--no-undefined -Wl,-soname,libabbsim.so $(SIM_OBJS) \
	  $(SIM_VDIR)/Vabb_top__ALL.a $(SIM_VDIR250)/Vabb_top250__ALL.a $(SIM_VDIR)/libverilated_pic.a \
	  $(SIM_SC_LIBS) -lz -pthread

# The speed build: the same platform with the 125 MHz model without
# assertions (the 250 MHz one is the test build's), in $(SIM_B)/fast.
$(SIM_B)/fast/libabbsim.so: $(SIM_OBJS) $(SIM_VDIRFAST)/.compiled $(SIM_VDIR250)/.compiled $(SIM_VDIR)/.compiled
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) $(LDFLAGS) -shared -o $@ -Wl,--no-undefined -Wl,-soname,libabbsim.so $(SIM_OBJS) \
	  $(SIM_VDIRFAST)/Vabb_top__ALL.a $(SIM_VDIR250)/Vabb_top250__ALL.a $(SIM_VDIR)/libverilated_pic.a \
	  $(SIM_SC_LIBS) -lz -pthread

$(SIM_B)/smoke_abbsim: sim/smoke_abbsim.c sim/abbsim.h host/include/abb/abb_regs.h $(SIM_LIB)
	$(CC) -std=c11 $(CFLAGS) $(WARN) -Isim -Ihost/include -o $@ $< -L$(SIM_B) -labbsim -Wl,-rpath,'$$ORIGIN'

sim-smoke: $(SIM_B)/smoke_abbsim
	$(SIM_B)/smoke_abbsim

$(SIM_B)/test_abbsim: sim/test_abbsim.c sim/abbsim.h host/include/abb/abb_regs.h $(SIM_LIB)
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L $(CFLAGS) $(WARN) -Isim -Ihost/include -o $@ $< -L$(SIM_B) -labbsim -Wl,-rpath,'$$ORIGIN'

sim-test: $(SIM_B)/test_abbsim
	$(SIM_B)/test_abbsim

# Speed: the full platform against the bare Verilator loop (sim/bare_bench.cpp:
# same model, ideal link), one 4 MiB DMA read each; target ratio >= 0.5.
# Both use the speed build (no assertions).
$(SIM_B)/fast/bare_bench: sim/bare_bench.cpp sim/rtl_hooks.cpp $(SIM_VDIRFAST)/.compiled $(SIM_VDIR)/.compiled
	@mkdir -p $(@D)
	$(CXX) $(filter-out -I$(SIM_VDIR),$(SIM_CXXFLAGS)) -I$(SIM_VDIRFAST) -o $@ sim/bare_bench.cpp sim/rtl_hooks.cpp \
	  $(SIM_VDIRFAST)/Vabb_top__ALL.a $(SIM_VDIR)/libverilated_pic.a -lz -pthread

$(SIM_B)/fast/speed_abbsim: sim/speed_abbsim.c sim/abbsim.h host/include/abb/abb_regs.h $(SIM_B)/fast/libabbsim.so
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L $(CFLAGS) $(WARN) -Isim -Ihost/include -o $@ $< -L$(SIM_B)/fast -labbsim -Wl,-rpath,'$$ORIGIN'

sim-speed: $(SIM_B)/fast/bare_bench $(SIM_B)/fast/speed_abbsim
	@b=$$($(SIM_B)/fast/bare_bench) && echo "$$b" && p=$$($(SIM_B)/fast/speed_abbsim) && echo "$$p" && \
	  bc=$${b#*cycles_per_s=}; bc=$${bc%% *}; pc=$${p#*cycles_per_s=}; pc=$${pc%% *}; \
	  echo "sim-speed: platform / bare = $$(awk "BEGIN{printf \"%.2f\", $$pc/$$bc}") (target >= 0.5)"

# The program behind `make wave-shots` and the README's walk-through.
$(SIM_B)/wave_demo: sim/wave_demo.c $(B)/libabb.so
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L $(CFLAGS) $(WARN) -Ihost/include -o $@ $< $(LDFLAGS) -L$(B) -labb -Wl,-rpath,'$$ORIGIN/..'
all: $(SIM_B)/wave_demo

sim-install: $(SIM_LIB)
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include
	install -m 0755 $(SIM_LIB) $(DESTDIR)$(PREFIX)/lib/
	install -m 0644 sim/abbsim.h $(DESTDIR)$(PREFIX)/include/

install: sim-install

-include $(SIM_OBJS:.o=.d)
