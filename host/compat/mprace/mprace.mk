# host/compat/mprace/mprace.mk - the mprace compatibility layer (C++ over
# libabb): the original ABB library's API, so old programs build unchanged.
#
# Included by the top Makefile (B, PREFIX, CXX, CXXFLAGS, WARN).
#   make mprace           libabb-mprace.so, abb-mprace.pc, its tests and bench
#   make mprace-test      the layer's own tests on the simulator and the reference model
#   make mprace-check MPRACE_TESTS=DIR   compile and run the original programs in DIR
#   make mprace-bench     the DABC 2008 comparison with the original baseline
#                         (MPRACE_BENCH_ARGS: options of abb_bench_mprace)
#   make mprace-vs-bench MPRACE_LOG=build/mprace-check/testABB.sim.log
#                         testABB's DMA MiB/s from that log next to abb_bench
#                         with testABB's transfer shape (MPRACE_VS_ARGS:
#                         e.g. --max 4M, --device)
#   build/abb_testabb_compare LOG_A LOG_B   two testABB logs side by side
#                         (e.g. the simulator's and the timed model's), MiB/s and difference
#   build/libmprace-pin.so  LD_PRELOAD library: USER buffers at a fixed page
#                         offset (MPRACE_PIN_OFFSET), the same on every backend
#                         (bench/pin_placement.c; doc/mprace.md)
#   make install          also headers (include/mprace/), library, abb-mprace.pc
#   make mprace-cxx98-check  every public header alone as C++98, GNU C++98, C++11,
#                         C++17 (-pedantic-errors -Werror; part of make lint)

MPR_DIR      := host/compat/mprace
MPR_VERSION  := 0.1.0
MPR_SONAME   := libabb-mprace.so.0
MPR_SO       := $(B)/libabb-mprace.so.$(MPR_VERSION)
MPR_PC       := $(B)/abb-mprace.pc
MPR_PC_INST  := $(B)/host/abb-mprace.pc
MPR_SRCS     := $(wildcard $(MPR_DIR)/src/*.cpp)
MPR_OBJS     := $(MPR_SRCS:$(MPR_DIR)/src/%.cpp=$(B)/mprace/%.o)
MPR_HDRS     := $(wildcard $(MPR_DIR)/include/mprace/*.h)
MPR_CXXFLAGS := -std=c++17 -fPIC $(WARN) $(CXXFLAGS) -MMD -MP
# host/include: libabb's public headers only (<abb/abb_vfio.h> for the
# board number); sim: <abbsim_inject.h>, which <abb/abb_sim.h> includes
MPR_CPPFLAGS := -I$(MPR_DIR)/include -I$(MPR_DIR)/src -Ihost/include -Irtl-model/include -Isim
MPR_TEST     := $(B)/mprace_tests
MPR_BENCH    := $(B)/abb_bench_mprace
# the bench's parts of their own (tau statistics, testABB log reader), with
# tests of their own (no board needed)
MPR_BENCH_PARTS := $(B)/mprace/bench/tau_fit.o $(B)/mprace/bench/testabb_log.o \
                   $(B)/mprace/bench/testabb_compare.o
MPR_BENCH_TEST  := $(B)/mprace_bench_tests
# Two testABB logs side by side (e.g. simulator and timed model)
MPR_COMPARE     := $(B)/abb_testabb_compare
# LD_PRELOAD: page-multiple mallocs at one page offset on every backend
MPR_PIN         := $(B)/libmprace-pin.so
MPR_PIN_TEST    := $(B)/mprace_pin_test
# A C++98 program against the public headers and the C++17 library (the
# board's programs and DABC's 2009 abb plugin are C++98)
MPR_CXX98_TEST  := $(B)/mprace_cxx98_test
MPR_PUB_HDRS    := $(MPR_HDRS) $(wildcard $(MPR_DIR)/include/mprace/util/*.h)
MPR_CXX98_FLAGS := -Wall -Wextra -Werror -pedantic-errors
MPR_HDR_STDS    := c++98 gnu++98 c++11 c++17
# Devices the layer's tests run on (each a value of ABB_DEVICE)
MPRACE_TEST_DEVICES ?= sim model
# The directory of original programs for mprace-check
MPRACE_TESTS ?=
# The testABB log for mprace-vs-bench
MPRACE_LOG ?= $(B)/mprace-check/testABB.sim.log

.PHONY: mprace mprace-test mprace-check mprace-bench mprace-vs-bench install-mprace \
        mprace-cxx98-check

all: mprace
mprace: $(MPR_SO) $(B)/libabb-mprace.so $(MPR_PC) $(MPR_PC_INST) $(MPR_TEST) $(MPR_BENCH) \
        $(MPR_BENCH_TEST) $(MPR_CXX98_TEST) $(MPR_COMPARE) $(MPR_PIN) $(MPR_PIN_TEST)

$(MPR_PIN): $(MPR_DIR)/bench/pin_placement.c
	$(CC) $(CFLAGS) $(WARN) -fPIC -shared -o $@ $< -lpthread

$(MPR_PIN_TEST): $(MPR_DIR)/test/test_pin_placement.c
	$(CC) $(CFLAGS) $(WARN) -o $@ $<

$(B)/mprace/%.o: $(MPR_DIR)/src/%.cpp
	@mkdir -p $(@D)
	$(CXX) $(MPR_CPPFLAGS) $(MPR_CXXFLAGS) -c $< -o $@

# libabb is found next to the layer (build tree and installed lib/): $$ORIGIN.
$(MPR_SO): $(MPR_OBJS) $(B)/libabb.so $(MPR_DIR)/mprace.mk
	$(CXX) $(CXXFLAGS) -shared -Wl,-soname,$(MPR_SONAME) -Wl,--no-undefined -Wl,-rpath,'$$ORIGIN' -o $@ $(MPR_OBJS) \
	  -L$(B) -labb

$(B)/libabb-mprace.so: $(MPR_SO)
	ln -sf $(notdir $(MPR_SO)) $(B)/$(MPR_SONAME)
	ln -sf $(MPR_SONAME) $@

# pkg-config: $(B)/abb-mprace.pc for the build tree (next to abb.pc, which
# it requires), $(B)/host/abb-mprace.pc with PREFIX for the installed copy.
define MPR_PC_TEXT
prefix=$(1)
libdir=$(2)
includedir=$(3)

Name: abb-mprace
Description: mprace-compatible C++ API of the CBM Active Buffer Board over libabb
Version: $(MPR_VERSION)
Requires: abb
Libs: -L$${libdir} -Wl,-rpath,$${libdir} -labb-mprace
Cflags: -I$${includedir}
endef

# abb-mprace.pc says "Requires: abb": abb.pc must be there for pkg-config.
$(MPR_PC): $(MPR_DIR)/mprace.mk $(HOST_PC)
	@mkdir -p $(@D)
	$(file >$@,$(call MPR_PC_TEXT,$(abspath .),$(abspath $(B)),$(abspath $(MPR_DIR)/include)))
	@echo "wrote $@"

.PHONY: mprace-pc-always
$(MPR_PC_INST): mprace-pc-always
	@mkdir -p $(@D)
	$(file >$@,$(call MPR_PC_TEXT,$(PREFIX),$${prefix}/lib,$${prefix}/include))

# The layer's tests and the benchmark link the layer, libabb (and its DAQ part).
$(B)/mprace/test/%.o: $(MPR_DIR)/test/%.cpp
	@mkdir -p $(@D)
	$(CXX) $(MPR_CPPFLAGS) $(MPR_CXXFLAGS) -c $< -o $@
$(B)/mprace/bench/%.o: $(MPR_DIR)/bench/%.cpp
	@mkdir -p $(@D)
	$(CXX) $(MPR_CPPFLAGS) $(MPR_CXXFLAGS) -c $< -o $@

# tb_sysfs.o: generated sysfs trees of the test bench (board numbers)
$(B)/mprace/test/test_mprace.o: MPR_CPPFLAGS += -Itestbench
$(MPR_TEST): $(B)/mprace/test/test_mprace.o $(B)/testbench/tb_sysfs.o $(B)/libabb-mprace.so
	$(CXX) $(CXXFLAGS) -o $@ $< $(B)/testbench/tb_sysfs.o -L$(B) -Wl,-rpath,'$$ORIGIN' -labb-mprace -labb -pthread

# bench_module.o: the standalone module as abb_bench_daq runs it (host/tools);
# tool_args.o: the tools' number parser and output check
$(B)/mprace/bench/abb_bench_mprace.o: MPR_CPPFLAGS += -Ihost/tools
$(MPR_BENCH): $(B)/mprace/bench/abb_bench_mprace.o $(MPR_BENCH_PARTS) $(B)/host/tools/bench_module.o \
              $(B)/host/tools/tool_args.o $(B)/libabb-mprace.so
	$(CXX) $(CXXFLAGS) -o $@ $(filter %.o,$^) -L$(B) -Wl,-rpath,'$$ORIGIN' -labb-mprace -labb -pthread

$(B)/mprace/bench/testabb_compare_tool.o: MPR_CPPFLAGS += -Ihost/tools
$(MPR_COMPARE): $(B)/mprace/bench/testabb_compare_tool.o $(MPR_BENCH_PARTS) $(B)/host/tools/tool_args.o
	$(CXX) $(CXXFLAGS) -o $@ $^

# C++98 on purpose: only the public headers, as an installed program sees them
$(MPR_CXX98_TEST): $(MPR_DIR)/test/test_cxx98.cpp $(MPR_DIR)/test/check.h $(MPR_PUB_HDRS) $(B)/libabb-mprace.so
	$(CXX) -std=c++98 $(MPR_CXX98_FLAGS) $(CXXFLAGS) -I$(MPR_DIR)/include -Ihost/include -Irtl-model/include \
	  -o $@ $< -L$(B) -Wl,-rpath,'$$ORIGIN' -labb-mprace -labb -pthread

# Each public header alone (it includes what it needs), in every standard
# a program may use; the layer itself is C++17 behind them.
lint: mprace-cxx98-check
mprace-cxx98-check:
	@set -e; for std in $(MPR_HDR_STDS); do for h in $(MPR_PUB_HDRS:$(MPR_DIR)/include/%=%); do \
	  echo "#include <$$h>" | $(CXX) -std=$$std $(MPR_CXX98_FLAGS) -I$(MPR_DIR)/include \
	    -Ihost/include -Irtl-model/include -x c++ -fsyntax-only - || \
	    { echo "mprace-cxx98-check: <$$h> does not compile as -std=$$std" >&2; exit 1; }; \
	done; done
	@echo "mprace-cxx98-check: $(words $(MPR_PUB_HDRS)) public headers compile as $(MPR_HDR_STDS)"

$(MPR_BENCH_TEST): $(B)/mprace/test/test_bench_parts.o $(MPR_BENCH_PARTS)
	$(CXX) $(CXXFLAGS) -o $@ $^
$(B)/mprace/test/test_bench_parts.o: MPR_CPPFLAGS += -I$(MPR_DIR)/bench

# The targets that run programs on the simulator also need libabbsim.so
# (libabb dlopen()s it; nothing links it, so nothing else pulls it in).
mprace-test: mprace $(SIM_LIB) $(B)/abb_bench
	$(MPR_BENCH_TEST)
	$(MPR_PIN_TEST) none
	LD_PRELOAD=$(abspath $(MPR_PIN)) MPRACE_PIN_OFFSET=0x470 $(MPR_PIN_TEST) 0x470
	LD_PRELOAD=$(abspath $(MPR_PIN)) $(MPR_PIN_TEST) 0x10
	$(MPR_DIR)/test/vs_bench_test.sh $(B)
	@for d in $(MPRACE_TEST_DEVICES); do \
	  echo "mprace-test: ABB_DEVICE=$$d $(MPR_TEST)"; \
	  ABB_DEVICE=$$d $(MPR_TEST) || exit 1; \
	  ABB_DEVICE=$$d $(MPR_CXX98_TEST) || exit 1; \
	done

mprace-check: mprace $(SIM_LIB)
	@if [ -z "$(MPRACE_TESTS)" ]; then \
	  echo "mprace-check: give the directory of the original programs: make mprace-check MPRACE_TESTS=DIR" >&2; \
	  exit 2; fi
	$(MPR_DIR)/mprace-check.sh '$(abspath $(MPRACE_TESTS))' '$(abspath $(B))'

mprace-bench: mprace $(SIM_LIB)
	$(MPR_BENCH) $(MPRACE_BENCH_ARGS)

mprace-vs-bench: mprace $(SIM_LIB) $(B)/abb_bench
	$(MPR_BENCH) --vs-bench '$(MPRACE_LOG)' $(MPRACE_VS_ARGS)

install: install-mprace
install-mprace: mprace install-host
	install -d $(DESTDIR)$(PREFIX)/include/mprace/util $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(MPR_HDRS) $(DESTDIR)$(PREFIX)/include/mprace/
	install -m 644 $(MPR_DIR)/include/mprace/util/*.h $(DESTDIR)$(PREFIX)/include/mprace/util/
	install -m 755 $(MPR_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(notdir $(MPR_SO)) $(DESTDIR)$(PREFIX)/lib/$(MPR_SONAME)
	ln -sf $(MPR_SONAME) $(DESTDIR)$(PREFIX)/lib/libabb-mprace.so
	install -m 644 $(MPR_PC_INST) $(DESTDIR)$(PREFIX)/lib/pkgconfig/abb-mprace.pc

-include $(MPR_OBJS:.o=.d) $(B)/mprace/test/test_mprace.d $(B)/mprace/bench/abb_bench_mprace.d \
         $(B)/mprace/bench/testabb_compare_tool.d \
         $(MPR_BENCH_PARTS:.o=.d) $(B)/mprace/test/test_bench_parts.d
