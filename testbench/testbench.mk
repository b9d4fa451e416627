# testbench.mk - the CUnit test bench (included by the top-level Makefile).
#
#   make test                         every suite on $ABB_DEVICE (default: the simulator),
#                                     then (simulator only) the regression, TB_REGRESS_N transfers
#   make test ABB_DEVICE=vfio         the same suites on the real board
#   make test ABB_DEVICE=model        the same suites on the reference model (seconds)
#   make test TB_SUITES="regs blocking"   only these suites (no regression)
#   make test SHARD=k/n               shard k of n: every n-th suite and every n-th
#                                     configuration of the regression (n shards = one run)
#   make test JUNIT_DIR=dir           also JUnit XML: dir/abb_tests[-k_n].xml, dir/regress[-k_n].xml
#   make regress N=10000 SEED=1       the constrained-random regression alone (see below)
#   make soak                         the DAQ soak run: readout and writer at once, 10^7
#                                     buffers on the model, 10^5 on the simulator (see below)
#   make vectors                      regenerate the golden TLP vectors (vectors/tlp/)
#   make vfio-coverage                gcov line coverage of the vfio backend (backend_vfio.c
#                                     and its host/lib/vfio_*.c units) by the bench on the
#                                     emulated VFIO kernel (build/cov/)
#   make hosttime-cost [ROUNDS=5]     what host-time coupling charges a device call on this
#                                     machine (a figure, not a test: bench_hosttime.c)
#
# Builds $(B)/abb_tests from testbench/*.c against libabb ($(B)/libabb.so,
# built by host/host.mk) and CUnit. The program exits non-zero when a test
# fails, so `make test` fails too.

# vectors_run.c, regress.c, bench_hosttime.c and soak.c are programs of
# their own (the vector generator, the constrained-random regression, a
# benchmark, the DAQ soak run)
TB_PROGS   := testbench/vectors_run.c testbench/regress.c testbench/bench_hosttime.c \
              testbench/soak.c
TB_SRCS    := $(filter-out $(TB_PROGS),$(wildcard testbench/*.c))
# and the simulator's one loader (the emulated VFIO kernel and the tests
# that reach libabbsim directly load it through it)
TB_OBJS    := $(patsubst testbench/%.c,$(B)/testbench/%.o,$(TB_SRCS)) $(B)/testbench/abbsim_loader.o
TB_BIN     := $(B)/abb_tests
# host/lib for vfio_seam.h (the vfio backend's system-call seam, which the
# emulated VFIO kernel fills; exported by libabb), vfio_iommufd_abi.h and
# abb_procmap.h (kernel requests: the iommufd ABI, PROCMAP_QUERY, which the
# bad_input suite blocks); sim for the simulator's C interface
# (abbsim_cfg.h: the config-space layout)
TB_CFLAGS  := -std=c11 $(WARN) -Ihost/include -Irtl-model/include -Ihost/lib -Isim \
              -DTB_VECTORS_DIR='"$(abspath vectors)"' -DTB_BUILD_DIR='"$(abspath $(B))"'
# libabb next to the binary: found at run time without LD_LIBRARY_PATH
TB_LDFLAGS := -L$(B) -Wl,-rpath,'$$ORIGIN'
TB_LIBS    := -labb -lcunit -pthread -ldl
# Suites to run (names as in the suite tables; empty: all)
TB_SUITES  ?=
# Wall-clock limit of one run of the bench, seconds
TB_TIMEOUT ?= 900
# The environment of `make test`'s first pass and regression: the RTL
# models with the protocol assertions (empty: the default ones)
TB_ASSERT_ENV ?= ABB_SIM_TRACEABLE=1
# Transfers of the regression that `make test` runs (0: none)
TB_REGRESS_N ?= 10000
# Shard k/n of `make test` and `make regress` (empty: everything)
SHARD      ?=
# Directory for JUnit XML of `make test` (empty: none)
JUNIT_DIR  ?=
TB_SHARD_SFX := $(if $(SHARD),-$(subst /,_,$(SHARD)))

.PHONY: test tests vectors regress soak vfio-coverage hosttime-cost include-check

# The include graph against the layer order (testbench/include_order.sh).
lint: include-check
include-check:
	@testbench/include_order.sh

all: $(TB_BIN) $(B)/vectors_run $(B)/abb_regress $(B)/abb_bench_hosttime $(B)/abb_soak
tests: $(TB_BIN)

$(B)/testbench/%.o: testbench/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TB_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/testbench/abbsim_loader.o: sim/abbsim_loader.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TB_CFLAGS) -MMD -MP -c -o $@ $<

$(TB_BIN): $(TB_OBJS) $(B)/libabb.so
	$(CC) $(CFLAGS) -o $@ $(TB_OBJS) $(TB_LDFLAGS) $(TB_LIBS)

# The golden TLP vectors: the generator shares the transfers with the
# vectors suite (tb_vectors.c). `make vectors` rewrites vectors/tlp/ on
# purpose; commit the new files with the change that moved them.
$(B)/vectors_run: $(B)/testbench/vectors_run.o $(B)/testbench/tb_vectors.o $(B)/libabb.so
	$(CC) $(CFLAGS) -o $@ $(B)/testbench/vectors_run.o $(B)/testbench/tb_vectors.o $(TB_LDFLAGS) -labb

# The constrained-random regression against the reference model
# (testbench/regress.c): make regress N=10000 SEED=1 [CASE=c[.t]] [SHARD=k/n]
# [PER=100] [JUNIT=file] [V=1]
N     ?= 10000
SEED  ?= 1
CASE  ?=
PER   ?=
JUNIT ?=
V     ?=
$(B)/abb_regress: $(B)/testbench/regress.o $(B)/testbench/tb_scoreboard.o $(B)/libabb.so
	$(CC) $(CFLAGS) -o $@ $(B)/testbench/regress.o $(B)/testbench/tb_scoreboard.o $(TB_LDFLAGS) -labb -pthread

regress:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory $(B)/abb_regress $(B)/sim/libabbsim.so
	timeout $(TB_TIMEOUT) $(B)/abb_regress N='$(N)' SEED='$(SEED)' CASE='$(CASE)' \
	  SHARD='$(SHARD)' PER='$(PER)' JUNIT='$(JUNIT)' V='$(V)'

# What host-time coupling costs a call here (the figure the determinism
# suite no longer asserts: a wall-clock cost of the machine)
ROUNDS ?= 5
$(B)/abb_bench_hosttime: $(B)/testbench/bench_hosttime.o $(B)/libabb.so
	$(CC) $(CFLAGS) -o $@ $(B)/testbench/bench_hosttime.o $(TB_LDFLAGS) -labb

hosttime-cost: $(B)/abb_bench_hosttime $(B)/sim/libabbsim.so
	$(B)/abb_bench_hosttime $(ROUNDS)

# The DAQ soak run (testbench/soak.c): a readout and a writer module at
# once, every buffer checked, RSS and open descriptors compared between 10 %
# and 100 % of the run; the reference model first, then the simulator (both
# run, the target fails if either failed). Not part of `make test`.
#   make soak [SOAK_MODEL_BUFFERS=n] [SOAK_SIM_BUFFERS=n] [SOAK_BUFSIZE=bytes per DMA]
#             [SOAK_THREADS=1|2] [SOAK_TIMEOUT=s per run]
SOAK_MODEL_BUFFERS ?= 10000000
SOAK_SIM_BUFFERS   ?= 100000
SOAK_BUFSIZE       ?= 4096
SOAK_THREADS       ?= 2
SOAK_TIMEOUT       ?= 3600
$(B)/abb_soak: $(B)/testbench/soak.o $(B)/testbench/test_daq_common.o $(B)/libabb.so
	$(CC) $(CFLAGS) -o $@ $(B)/testbench/soak.o $(B)/testbench/test_daq_common.o \
	  $(TB_LDFLAGS) -labb -pthread

soak:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory $(B)/abb_soak $(B)/sim/libabbsim.so
	@rc=0; \
	for run in 'model $(SOAK_MODEL_BUFFERS)' 'sim $(SOAK_SIM_BUFFERS)'; do \
	  set -- $$run; \
	  echo "timeout $(SOAK_TIMEOUT) $(B)/abb_soak --device $$1 --buffers $$2 --size $(SOAK_BUFSIZE) --threads $(SOAK_THREADS)"; \
	  timeout $(SOAK_TIMEOUT) $(B)/abb_soak --device $$1 --buffers $$2 --size '$(SOAK_BUFSIZE)' \
	    --threads '$(SOAK_THREADS)' || { echo "soak: $$1 run failed (exit $$?)"; rc=1; }; \
	done; exit $$rc

vectors: $(B)/vectors_run $(B)/sim/libabbsim.so
	$(B)/vectors_run $(abspath vectors)/tlp

# deps first, then the build (sub-makes: `make -j2 test` never compiles
# before the packages are there), then the example program and the suites
test:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	ABB_DEVICE='$(ABB_DEVICE)' $(B)/readback
	$(if $(JUNIT_DIR),mkdir -p '$(JUNIT_DIR)')
	@# this pass and the regression on the RTL models with the protocol
	@# assertions (the traced ones: sim/sim.mk, SIM_VASSERT); the other
	@# passes on the faster default ones
	ABB_DEVICE='$(ABB_DEVICE)' $(TB_ASSERT_ENV) timeout $(TB_TIMEOUT) $(TB_BIN) $(if $(SHARD),--shard '$(SHARD)') \
	  $(if $(JUNIT_DIR),--junit '$(JUNIT_DIR)/abb_tests$(TB_SHARD_SFX).xml') $(TB_SUITES)
	@if [ -n '$(TB_SUITES)' ] || [ '$(TB_REGRESS_N)' = 0 ]; then \
	  echo "regress: not run (TB_SUITES or TB_REGRESS_N=0)"; \
	else case '$(ABB_DEVICE)' in \
	  ''|sim|sim:*) echo "timeout $(TB_TIMEOUT) $(B)/abb_regress N=$(TB_REGRESS_N) SEED=$(SEED) SHARD=$(SHARD)"; \
	    $(TB_ASSERT_ENV) timeout $(TB_TIMEOUT) $(B)/abb_regress N='$(TB_REGRESS_N)' SEED='$(SEED)' SHARD='$(SHARD)' \
	      JUNIT='$(if $(JUNIT_DIR),$(JUNIT_DIR)/regress$(TB_SHARD_SFX).xml)' ;; \
	  *) echo "regress: not run on ABB_DEVICE=$(ABB_DEVICE) (it runs the simulator against the reference model)" ;; \
	esac; fi
	@# the same suites through the unchanged vfio backend on the emulated
	@# VFIO kernel (its board is the simulator): with the simulator runs only
	@case '$(ABB_DEVICE)' in ''|sim|sim:*) \
	  echo "timeout $(TB_TIMEOUT) $(TB_BIN) --vfio-emu $(TB_SUITES)"; \
	  timeout $(TB_TIMEOUT) $(TB_BIN) --vfio-emu $(if $(SHARD),--shard '$(SHARD)') \
	  $(if $(JUNIT_DIR),--junit '$(JUNIT_DIR)/abb_tests-vfio-emu$(TB_SHARD_SFX).xml') $(TB_SUITES) ;; \
	*) echo "vfio-emu: not run on ABB_DEVICE=$(ABB_DEVICE)" ;; esac
	@$(MAKE) --no-print-directory mprace-test
	@$(MAKE) --no-print-directory farm-test
	@# a second simulator on the same RTL: Icarus replays the golden vectors
	@# and the per-module RTL benches over their parameter sweeps
	@# (rtl-model/tb): once, with the simulator runs (they do not depend on
	@# ABB_DEVICE), in the first shard
	@if [ -n '$(TB_SUITES)' ] || { [ -n '$(SHARD)' ] && [ '$(firstword $(subst /, ,$(SHARD)))' != 1 ]; }; then \
	  echo "icarus-replay, rtl-benches: not run (TB_SUITES or SHARD)"; \
	else case '$(ABB_DEVICE)' in \
	  ''|sim|sim:*) $(MAKE) --no-print-directory icarus-replay && $(MAKE) --no-print-directory rtl-benches ;; \
	  *) echo "icarus-replay, rtl-benches: not run on ABB_DEVICE=$(ABB_DEVICE) (they run with the simulator's)" ;; \
	esac; fi

# libabb and the bench built with --coverage in $(TB_COV_B) (the simulator
# of $(B) is used as it is), the suites run on the emulated VFIO kernel,
# then gcov's line figure for each file of the vfio backend (TB_COV_SRCS:
# backend_vfio.c and its units; discovery, vfio_find.c and vfio_sysfs.c,
# is the discovery suite's) and the lines not run
# ($(TB_COV_B)/<file>.c.gcov marks them #####; TB_COV_B is below $(B), so
# `make clean` removes it).
TB_COV_B      ?= $(B)/cov
TB_COV_SRCS   := host/lib/backend_vfio.c $(sort $(filter-out host/lib/vfio_find.c \
                 host/lib/vfio_sysfs.c,$(wildcard host/lib/vfio_*.c)))
TB_COV_SUITES ?= vfio regs blocking dma_integrity bad_input
# a second run through the iommufd/cdev path (no legacy container)
TB_COV_CDEV_SUITES ?= regs blocking dma_integrity
vfio-coverage: $(B)/sim/libabbsim.so
	@if [ -d $(TB_COV_B) ]; then find $(TB_COV_B) -name '*.gcda' -delete; fi
	@$(MAKE) --no-print-directory B=$(TB_COV_B) CFLAGS='-O0 -g --coverage' $(TB_COV_B)/abb_tests
	ABB_SIM_LIB=$(abspath $(B))/sim/libabbsim.so timeout $(TB_TIMEOUT) \
	  $(TB_COV_B)/abb_tests --vfio-emu $(TB_COV_SUITES) > $(TB_COV_B)/vfio-coverage.log 2>&1 || \
	  { grep -B1 -A3 FAILED $(TB_COV_B)/vfio-coverage.log; \
	    echo "vfio-coverage: tests failed (log: $(TB_COV_B)/vfio-coverage.log)"; }
	ABB_SIM_LIB=$(abspath $(B))/sim/libabbsim.so timeout $(TB_TIMEOUT) \
	  $(TB_COV_B)/abb_tests --vfio-emu=iommufd_only $(TB_COV_CDEV_SUITES) \
	  > $(TB_COV_B)/vfio-coverage-cdev.log 2>&1 || \
	  { grep -B1 -A3 FAILED $(TB_COV_B)/vfio-coverage-cdev.log; \
	    echo "vfio-coverage: cdev run failed (log: $(TB_COV_B)/vfio-coverage-cdev.log)"; }
	@gcov -o $(TB_COV_B)/host/lib $(TB_COV_SRCS) 2>/dev/null | \
	  grep -A1 "File 'host/lib/.*\.c'" | grep -v '^--'; mv -f *.gcov $(TB_COV_B)/ 2>/dev/null || true
	@echo "vfio-coverage: lines not run (file:line: source), from $(TB_COV_B)/*.c.gcov:"
	@for f in $(notdir $(TB_COV_SRCS)); do \
	  grep '#####' $(TB_COV_B)/$$f.gcov | sed "s/^ *#####: *\([0-9]*\):/$$f:\1:/"; done || true

-include $(TB_OBJS:.o=.d) $(B)/testbench/vectors_run.d $(B)/testbench/regress.d \
  $(B)/testbench/bench_hosttime.d \
  $(B)/testbench/soak.d

# The readout farm on loopback (host/tools/farm.sh): BOARDS readout nodes on
# simulated boards (DEVICE=sim: sim:clock=free,board=K; default the
# reference model) and the event builder; KILL_BOARD=K kills node K mid-run.
BOARDS ?= 3
FARM_DEVICE ?= model
.PHONY: farm-demo farm-test farm-table
farm-demo: $(B)/abb_readout_node $(B)/abb_builder
	B=$(B) BOARDS=$(BOARDS) DEVICE=$(FARM_DEVICE) KILL_BOARD=$(KILL_BOARD) sh host/tools/farm.sh
# the throughput table of doc/farm.md (one node, one builder, 2-128 KiB
# buffers; DEVICES, MIB_PER_SIZE: host/tools/farm_table.sh)
farm-table: $(B)/abb_readout_node $(B)/abb_builder
	B=$(B) sh host/tools/farm_table.sh
# short runs on the reference model: clean, a node killed, a slow filter,
# a builder restart (testbench/farm_test.sh)
farm-test: $(B)/abb_readout_node $(B)/abb_builder
	B=$(B) timeout $(TB_TIMEOUT) sh testbench/farm_test.sh
