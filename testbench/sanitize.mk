# testbench/sanitize.mk - `make sanitize`: the library, the simulator and the
# test bench built with sanitizers in their own build directories, then the
# suites (included by the top-level Makefile).
#
#   build-asan/  AddressSanitizer + UBSan, -fno-sanitize-recover=all (any
#                undefined behaviour ends the run with an error): libabb with
#                the DAQ layer, libabbsim (platform and verilated model), the
#                tools, the test bench and sim/test_abbsim. Verilator's own
#                code is third-party: ASan only for its runtime, UBSan
#                without the alignment check for the model it generates
#                (sim/sim.mk, testbench/sanitize/README.md).
#   build-tsan/  ThreadSanitizer: libabb (with the DAQ layer) and the test
#                bench; no simulator (SystemC switches coroutine stacks,
#                which TSan cannot follow).
#
# Stages, one timing line each ("sanitize: STAGE: N s"):
#   build-asan, build-tsan   the two builds (logs in DIR/build.log)
#   asan-model   every suite but vfio on the reference model (ABB_DEVICE=model)
#   asan-sim     sim/test_abbsim (the platform's own test program) and
#                $(SAN_SIM_SUITES) on the simulator: every suite but
#                protocol, daq_readout and daq_writer, which take 6 minutes
#                there under ASan (140 s, 116 s, 125 s) and run on the model
#                in asan-model, and daq_units (pool and queue, no device;
#                its 20 ms back-pressure check is too tight for a loaded
#                machine under ASan)
#   tsan-model   $(SAN_TSAN_SUITES) on the model: the DAQ modules run a
#                transport thread beside the consumer; waits, interrupts and
#                abb_close from several threads (blocking, protocol, robust);
#                the stress suite (testbench/test_stress.c: open/close, DMA
#                and PIO with close from 8 threads) with $(SAN_STRESS_MODEL)
#                rounds
# The stress suite also runs in asan-sim with $(SAN_STRESS_SIM) rounds and
# in asan-model with its default (ABB_STRESS_ROUNDS unset: 100).
# Every sanitizer stops at its first finding. ASan's stack-use-after-return
# detection runs on the model only: SystemC's coroutine stack switches
# defeat it (a false SEGV in the first SystemC thread). Suppressions, third-party code only,
# with a reason each: testbench/sanitize/lsan.supp, tsan.supp.

SAN_ASAN_B := build-asan
# SAN_RTL=0: the verilated RTL model is compiled without sanitizers (the
# platform, libabb and the bench keep them); CI uses it to stay in budget.
SAN_RTL ?= 1
SAN_TSAN_B := build-tsan
SAN_COMMON := -O1 -g -fno-omit-frame-pointer
SAN_ASAN_FLAGS := $(SAN_COMMON) -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_TSAN_FLAGS := $(SAN_COMMON) -fsanitize=thread
SAN_SIM_SUITES ?= regs dma_integrity blocking bad_input determinism discovery tlp_rules cfgspace \
                  link vectors intx scoreboard robust vfio faults rx dma_ctl stress
# On the model: every suite but vfio, whose emulated VFIO board is always the
# simulator (SystemC: no stack-use-after-return check there; it runs with
# the simulator suites)
SAN_MODEL_SUITES ?= regs dma_integrity blocking protocol bad_input determinism discovery \
                    tlp_rules cfgspace link vectors intx daq_units daq_readout daq_writer robust \
                    scoreboard faults rx dma_ctl stress
SAN_TSAN_SUITES ?= daq_units daq_readout daq_writer blocking protocol robust stress
# Rounds of the stress suite (issue 17: 10^4 on the model under TSan, 10^2
# on the simulator under ASan)
SAN_STRESS_MODEL ?= 10000
SAN_STRESS_SIM ?= 100
SAN_LSAN_SUPP := $(abspath testbench/sanitize/lsan.supp)
SAN_TSAN_SUPP := $(abspath testbench/sanitize/tsan.supp)
SAN_ASAN_OPTS := detect_leaks=1:halt_on_error=1:exitcode=86:strict_string_checks=1
SAN_ASAN_ENV := ASAN_OPTIONS=$(SAN_ASAN_OPTS):detect_stack_use_after_return=0 \
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87 \
                LSAN_OPTIONS=suppressions=$(SAN_LSAN_SUPP)
SAN_TSAN_ENV := TSAN_OPTIONS=halt_on_error=1:exitcode=88:second_deadlock_stack=1:suppressions=$(SAN_TSAN_SUPP)

# One line per stage: "sanitize: STAGE: N s".
define SAN_STAGE
	@t0=$$(date +%s); echo "sanitize: $(1) ..."; \
	  { $(2); } || { echo "sanitize: $(1): FAILED after $$(( $$(date +%s) - t0 )) s" >&2; exit 1; }; \
	  echo "sanitize: $(1): $$(( $$(date +%s) - t0 )) s"
endef

.PHONY: sanitize sanitize-asan sanitize-tsan sanitize-build-asan sanitize-build-tsan

sanitize:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory sanitize-asan
	@$(MAKE) --no-print-directory sanitize-tsan

sanitize-build-asan:
	$(call SAN_STAGE,build-asan,mkdir -p $(SAN_ASAN_B) && $(MAKE) --no-print-directory B=$(SAN_ASAN_B) \
	  SIM_VSAN_RTL=$(SAN_RTL) CFLAGS='$(SAN_ASAN_FLAGS)' \
	  CXXFLAGS='$(SAN_ASAN_FLAGS)' all $(SAN_ASAN_B)/sim/test_abbsim >$(SAN_ASAN_B)/build.log 2>&1 || \
	  { tail -30 $(SAN_ASAN_B)/build.log; false; })

sanitize-build-tsan:
	$(call SAN_STAGE,build-tsan,mkdir -p $(SAN_TSAN_B) && $(MAKE) --no-print-directory B=$(SAN_TSAN_B) CFLAGS='$(SAN_TSAN_FLAGS)' \
	  CXXFLAGS='$(SAN_TSAN_FLAGS)' host $(SAN_TSAN_B)/abb_tests >$(SAN_TSAN_B)/build.log 2>&1 || \
	  { tail -30 $(SAN_TSAN_B)/build.log; false; })

sanitize-asan: sanitize-build-asan
	$(call SAN_STAGE,asan-model,$(SAN_ASAN_ENV) ASAN_OPTIONS=$(SAN_ASAN_OPTS):detect_stack_use_after_return=1 \
	  ABB_DEVICE=model \
	  timeout $(TB_TIMEOUT) $(SAN_ASAN_B)/abb_tests $(SAN_MODEL_SUITES))
	$(call SAN_STAGE,asan-sim,$(SAN_ASAN_ENV) \
	  timeout 300 $(SAN_ASAN_B)/sim/test_abbsim && $(SAN_ASAN_ENV) ABB_DEVICE=sim \
	  ABB_STRESS_ROUNDS=$(SAN_STRESS_SIM) \
	  timeout $(TB_TIMEOUT) $(SAN_ASAN_B)/abb_tests $(SAN_SIM_SUITES))

sanitize-tsan: sanitize-build-tsan
	$(call SAN_STAGE,tsan-model,$(SAN_TSAN_ENV) ABB_DEVICE=model \
	  ABB_STRESS_ROUNDS=$(SAN_STRESS_MODEL) \
	  timeout $(TB_TIMEOUT) $(SAN_TSAN_B)/abb_tests $(SAN_TSAN_SUITES))
