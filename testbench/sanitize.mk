# testbench/sanitize.mk - `make sanitize`: the library, the simulator and the
# test bench built with sanitizers in their own build directories, then the
# suites (included by the top-level Makefile).
#
#   build-asan/  AddressSanitizer + UBSan, -fno-sanitize-recover=all (any
#                undefined behaviour ends the run with an error). libabb, the
#                DAQ layer, libabbsim (platform and the verilated model), the
#                tools and the test bench are all instrumented.
#   build-tsan/  ThreadSanitizer: libabb (with the DAQ layer) and the test
#                bench; the simulator is not built (SystemC's coroutines and
#                an uninstrumented SystemC are outside what TSan can follow).
#
# Runs, one timing line each:
#   asan-model   every suite on the reference model (ABB_DEVICE=model)
#   asan-sim     sim-test (the platform's own test program) and the suites
#                $(SAN_SIM_SUITES) on the simulator (under 3 minutes together)
#   tsan-model   $(SAN_TSAN_SUITES) on the model: the DAQ modules run a
#                transport thread beside the consumer, blocking waits
#                across threads
# Reports stop at the first finding (halt_on_error / exitcode); third-party
# suppressions (none needed for the project's own code) are in
# testbench/sanitize/{lsan,tsan}.supp with a reason per entry.

SAN_ASAN_B := build-asan
SAN_TSAN_B := build-tsan
SAN_COMMON := -O1 -g -fno-omit-frame-pointer
SAN_ASAN_FLAGS := $(SAN_COMMON) -fsanitize=address,undefined -fno-sanitize-recover=all
SAN_TSAN_FLAGS := $(SAN_COMMON) -fsanitize=thread
SAN_SIM_SUITES ?= regs bad_input blocking cfgspace
SAN_TSAN_SUITES ?= daq_units daq_readout daq_writer blocking
SAN_LSAN_SUPP := $(abspath testbench/sanitize/lsan.supp)
SAN_TSAN_SUPP := $(abspath testbench/sanitize/tsan.supp)
SAN_ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:halt_on_error=1:exitcode=86:strict_string_checks=1:detect_stack_use_after_return=1 \
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
	$(call SAN_STAGE,build-asan,mkdir -p $(SAN_ASAN_B) && $(MAKE) --no-print-directory B=$(SAN_ASAN_B) CFLAGS='$(SAN_ASAN_FLAGS)' \
	  CXXFLAGS='$(SAN_ASAN_FLAGS)' all $(SAN_ASAN_B)/sim/test_abbsim >$(SAN_ASAN_B)/build.log 2>&1 || \
	  { tail -30 $(SAN_ASAN_B)/build.log; false; })

sanitize-build-tsan:
	$(call SAN_STAGE,build-tsan,mkdir -p $(SAN_TSAN_B) && $(MAKE) --no-print-directory B=$(SAN_TSAN_B) CFLAGS='$(SAN_TSAN_FLAGS)' \
	  CXXFLAGS='$(SAN_TSAN_FLAGS)' host $(SAN_TSAN_B)/abb_tests >$(SAN_TSAN_B)/build.log 2>&1 || \
	  { tail -30 $(SAN_TSAN_B)/build.log; false; })

sanitize-asan: sanitize-build-asan
	$(call SAN_STAGE,asan-model (all suites),$(SAN_ASAN_ENV) ABB_DEVICE=model \
	  timeout $(TB_TIMEOUT) $(SAN_ASAN_B)/abb_tests)
	$(call SAN_STAGE,asan-sim (sim-test; suites $(SAN_SIM_SUITES)),$(SAN_ASAN_ENV) \
	  timeout 300 $(SAN_ASAN_B)/sim/test_abbsim && $(SAN_ASAN_ENV) ABB_DEVICE=sim \
	  timeout $(TB_TIMEOUT) $(SAN_ASAN_B)/abb_tests $(SAN_SIM_SUITES))

sanitize-tsan: sanitize-build-tsan
	$(call SAN_STAGE,tsan-model (suites $(SAN_TSAN_SUITES)),$(SAN_TSAN_ENV) ABB_DEVICE=model \
	  timeout $(TB_TIMEOUT) $(SAN_TSAN_B)/abb_tests $(SAN_TSAN_SUITES))
