# testbench/coverage.mk - coverage of the RTL and of libabb (included by the top-level Makefile).
#
#   make coverage                     build $(B)/coverage, run the bench, write the reports
#   make coverage COV_REGRESS_N=1000  transfers of the regression run with it (the default)
#   make coverage COV_CPL_TIMEOUT=262144 the RTL's completion timeout in cycles (the default;
#                                     the normal build has 2^22)
#
# A build of its own below $(B)/coverage (the normal build is untouched;
# `make vfio-coverage` has $(B)/cov):
# the simulator verilated with --coverage (line, toggle and the functional
# points of rtl-model/abb_cover.sv, `cover property` bound into the RTL
# modules) and libabb (host/lib, host/daq) compiled with gcov (-O0
# --coverage). The bench runs on it: every suite of abb_tests on the
# simulator (COV_SIM_SUITES: all but the DAQ readout/writer and protocol suites), every
# suite again on the reference model (ABB_DEVICE=model), the vfio backend's
# suites on the emulated VFIO kernel (--vfio-emu COV_EMU_SUITES: TB_COV_SUITES,
# as `make vfio-coverage`), and the regression (COV_REGRESS_N transfers). Coverage is written only after all
# of it passed: the simulator leaves one file per process in $(COV_B)/raw,
# merged into $(COV_B)/coverage.dat and reported only then; on a failure
# the raw data is deleted and the target fails.
#
# Reports (lcov 1.16, Debian's lcov, installed by `make coverage-deps`):
#   $(COV_B)/html/index.html   genhtml's report, what to browse: per directory and
#                              file, each source with its counts; rtl-model/*.sv
#                              the RTL's lines (verilator_coverage --write-info;
#                              Verilator 5.006 writes no branch records),
#                              rtl-model/abb_cover.sv the functional points (one
#                              line per `cover property`), host/lib and host/daq
#                              libabb's lines, functions and branches (gcov)
#   $(COV_B)/{rtl,functional,libabb}.info  the tracefiles, coverage.info all three
#   $(COV_B)/coverage.txt      the printed summary, toggle per file, and what is
#                              not covered as text (for grep)
# testbench/covreport.py does what no tool does here: it splits Verilator's
# coverage.dat into the RTL's line points and the functional points (the
# inputs of --write-info), and prints the summary: the figures of `lcov
# --summary`, the RTL toggle figure (lcov has no toggle kind) and the RTL
# if/else points (5.006's --write-info writes no branch records).
# Targets (checked, printed as PASS/MISS; the target fails only on a bench failure):
# RTL line >= 95 %, every functional point hit, libabb line >= 90 %.
#
#   make coverage-check               the report's own check on a small sample (in `make lint`)
#   make coverage COV_SUITES='regs dma_integrity'  a short run: these suites only, on the
#                                     simulator, the model and the emulated VFIO kernel
#                                     (with COV_REGRESS_N=10: minutes, for work on the report)

COV_B          := $(B)/coverage
COV_REGRESS_N  ?= 1000
# Suites run on the instrumented simulator (the DAQ readout/writer and
# protocol suites run on the model only: minutes of instrumented simulation
# of milliseconds of device time, for library code the model run covers too)
COV_SIM_SUITES ?= regs dma_integrity blocking bad_input determinism discovery tlp_rules faults rx dma_ctl \
                  cfgspace link vectors intx daq_units robust scoreboard
# Suites run on the reference model: all; daq_units on its own, once more
# if it fails (it assumes a consumer runs within 20 ms, which the -O0 gcov
# build on a loaded machine can miss)
COV_MODEL_SUITES ?= regs dma_integrity blocking protocol bad_input determinism discovery tlp_rules \
                    cfgspace link vectors intx daq_readout daq_writer robust scoreboard vfio
# COV_SUITES: one list for the three runs (simulator, model, emulated VFIO kernel)
COV_EMU_SUITES ?= $(TB_COV_SUITES)
ifdef COV_SUITES
COV_SIM_SUITES   := $(COV_SUITES)
COV_MODEL_SUITES := $(COV_SUITES)
COV_EMU_SUITES   := $(COV_SUITES)
endif
COV_DEB_PKGS   := lcov python3
# lcov with branch records (gcov's branches of libabb); the Perl warnings of
# Debian's lcov 1.16 ("Subroutine ... redefined") are not lcov's messages
COV_LCOV       := lcov -q --rc lcov_branch_coverage=1
COV_QUIET      := { grep -v 'Subroutine .* redefined at' || true; }
# What the bench below runs (not `all`: the mprace layer's programs link
# with its own flags, without --coverage, and are not part of libabb)
# abb_tool, abb_bench, abb_bench_daq: the discovery suite runs them from the
# bench's directory (`abb_tool doctor`, the tools' refusals of bad arguments)
COV_BINS       := $(COV_B)/sim/libabbsim.so $(COV_B)/abb_tests $(COV_B)/abb_regress $(COV_B)/readback \
                  $(COV_B)/abb_tool $(COV_B)/abb_bench $(COV_B)/abb_bench_daq
# wall seconds per program of the bench (the instrumented model is slow)
COV_TIMEOUT    ?= 3600
# The RTL's completion timeout in the coverage build (cycles; the normal
# build: 2^22, 33.6 ms at 125 MHz): the link-injection suite waits for it
# in five tests, which the instrumented model runs at a few 10^4 cycles per
# second; 2^18 (2.1 ms) keeps those waits short and stays above the 1 ms
# wait limit of test_faults_drop_wait_limit (which must end by that limit,
# not by the completion timeout).
COV_CPL_TIMEOUT ?= 262144
# The instrumented model is ~10x the C++ of the normal one (a toggle point
# per signal bit): compiled file by file (-j2) at -O1.
# (ABB_COVERAGE: a forked test child flushes its gcov counters before _exit)
COV_VERILATE   := SIM_VEXTRA='--coverage -GCplTimeoutCycles=$(COV_CPL_TIMEOUT)' SIM_VEXTRA_SRCS=$(RTL_DIR)/abb_cover.sv
COV_MAKE_VARS  := B=$(COV_B) CFLAGS='-O0 -g --coverage -fprofile-update=atomic -DABB_COVERAGE' LDFLAGS=--coverage \
                  $(COV_VERILATE) SIM_CXXEXTRA=-DVM_COVERAGE=1 \
                  SIM_VOPT='OPT_FAST=-O1 OPT_SLOW=-O0 OPT_GLOBAL=-O1 VM_PARALLEL_BUILDS=1 -j2'

.PHONY: coverage coverage-deps coverage-check
coverage-deps:
	@$(MAKE) --no-print-directory deps DEB_PKGS='$(COV_DEB_PKGS)'

# The report's own check, seconds (part of `make lint`): a small coverage.dat
# of two instances through covreport.py split, verilator_coverage
# --write-info and lcov --summary, the figures compared with the right ones.
lint: coverage-check
coverage-check:
	@if command -v lcov >/dev/null && command -v verilator_coverage >/dev/null && command -v python3 >/dev/null; then \
	  rm -rf $(B)/coverage-check; python3 testbench/covreport.py check --dir $(B)/coverage-check; \
	else echo "coverage-check: skipped (needs lcov, verilator_coverage, python3: make coverage-deps)"; fi

coverage:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory coverage-deps
	@# verilate again when the Verilator options changed (sim.mk's stamp does not see them)
	@mkdir -p $(COV_B); echo "$(COV_VERILATE)" | cmp -s - $(COV_B)/.verilate-vars || \
	  { rm -f $(COV_B)/sim/obj_dir/.verilated; echo "$(COV_VERILATE)" > $(COV_B)/.verilate-vars; }
	@$(MAKE) --no-print-directory $(COV_MAKE_VARS) $(COV_BINS)
	@rm -rf $(COV_B)/raw $(COV_B)/html $(COV_B)/*.info $(COV_B)/*.dat $(COV_B)/coverage.txt
	@mkdir -p $(COV_B)/raw
	@find $(COV_B) -name '*.gcda' -delete
	@echo "coverage: the bench on the coverage build (logs in $(COV_B)/*.log)"
	@set -o pipefail; fail() { echo "coverage: $$1 FAILED (see $(COV_B)/$$2): no coverage written" >&2; \
	    rm -rf $(COV_B)/raw; find $(COV_B) -name '*.gcda' -delete; exit 1; }; \
	  export ABB_SIM_COVERAGE=$(abspath $(COV_B))/raw/sim; \
	  ABB_DEVICE= timeout $(COV_TIMEOUT) $(COV_B)/readback > $(COV_B)/readback.log 2>&1 || fail readback readback.log; \
	  ABB_DEVICE= timeout $(COV_TIMEOUT) $(COV_B)/abb_tests $(COV_SIM_SUITES) > $(COV_B)/tests-sim.log 2>&1 || fail "abb_tests (sim)" tests-sim.log; \
	  sed -n "/^Run Summary/,\$$p" $(COV_B)/tests-sim.log | grep -E "^ +tests |^abb_tests" || true; \
	  ABB_DEVICE=model timeout $(COV_TIMEOUT) $(COV_B)/abb_tests $(COV_MODEL_SUITES) > $(COV_B)/tests-model.log 2>&1 || \
	    fail "abb_tests (model)" tests-model.log; \
	  sed -n "/^Run Summary/,\$$p" $(COV_B)/tests-model.log | grep -E "^ +tests |^abb_tests" || true; \
	  ABB_DEVICE=model $(COV_B)/abb_tests daq_units > $(COV_B)/tests-daq-units.log 2>&1 || \
	    { echo "coverage: daq_units failed once (its 20 ms back-pressure window): again"; \
	      ABB_DEVICE=model $(COV_B)/abb_tests daq_units > $(COV_B)/tests-daq-units.log 2>&1; } || \
	    fail "abb_tests daq_units (model)" tests-daq-units.log; \
	  ABB_DEVICE= timeout $(COV_TIMEOUT) $(COV_B)/abb_tests --vfio-emu $(COV_EMU_SUITES) > $(COV_B)/tests-vfio-emu.log 2>&1 || \
	    fail "abb_tests --vfio-emu" tests-vfio-emu.log; \
	  sed -n "/^Run Summary/,\$$p" $(COV_B)/tests-vfio-emu.log | grep -E "^ +tests |^abb_tests" || true; \
	  timeout $(COV_TIMEOUT) $(COV_B)/abb_regress N=$(COV_REGRESS_N) SEED=$(SEED) > $(COV_B)/regress.log 2>&1 || fail regress regress.log; \
	  tail -n 1 $(COV_B)/regress.log
	verilator_coverage --write $(COV_B)/coverage.dat $(COV_B)/raw/*.dat
	@# lcov's tracefiles: the RTL's lines and the functional points (verilator_coverage,
	@# split by kind by covreport.py), libabb's lines and branches (gcov via lcov)
	python3 testbench/covreport.py split --dat $(COV_B)/coverage.dat --out-dir $(COV_B)
	verilator_coverage --write-info $(COV_B)/rtl.info $(COV_B)/rtl-line.dat
	verilator_coverage --write-info $(COV_B)/functional.info $(COV_B)/functional.dat
	@set -o pipefail; $(COV_LCOV) --capture --directory $(COV_B)/host --base-directory . -o $(COV_B)/gcov.info 2>&1 | $(COV_QUIET)
	@set -o pipefail; $(COV_LCOV) --extract $(COV_B)/gcov.info '$(CURDIR)/host/lib/*' '$(CURDIR)/host/daq/*' \
	  -o $(COV_B)/libabb.info 2>&1 | $(COV_QUIET)
	@set -o pipefail; $(COV_LCOV) -a $(COV_B)/rtl.info -a $(COV_B)/functional.info -a $(COV_B)/libabb.info \
	  -o $(COV_B)/coverage.info 2>&1 | $(COV_QUIET)
	@set -o pipefail; genhtml -q --branch-coverage --legend --title 'ABB: RTL, functional points, libabb' \
	  -o $(COV_B)/html $(COV_B)/coverage.info 2>&1 | $(COV_QUIET)
	@python3 testbench/covreport.py summary --dat $(COV_B)/coverage.dat --info-dir $(COV_B) --out $(COV_B)/coverage.txt
