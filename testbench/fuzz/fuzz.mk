# testbench/fuzz/fuzz.mk - libFuzzer targets (one file each in testbench/fuzz/)
#
#   make fuzz                      build (clang, ASan+UBSan, build-fuzz/) and run
#                                  each target for FUZZ_SECONDS (default 60)
#   make fuzz FUZZ_SECONDS=10      a short smoke run
#   make fuzz FUZZ_TARGETS="fuzz_daq_params"   only these
#
# Targets:
#   fuzz_options     the one option table (host/lib/abb_options.c): model
#                    URIs through abb_open, sim and model URIs through
#                    abb_opt_each + abb_opt_set, the environment through
#                    abb_opt_from_env and abbsim_params_from_env (rejected
#                    calls change nothing, messages stay in their buffer);
#                    one name and value through the URI and its variable
#                    give the same answer (accepted with equal values, or
#                    refused by both)
#   fuzz_daq_params  abb_daq_params_parse / abb_daq_params_set
#   fuzz_lspci       abb_vfio_find on an `lspci -x` dump written from the input
#                    (libpci's dump method)
#   fuzz_device      random register writes and descriptor chains on the
#                    reference model and (FUZZ_DEVICE=sim) the simulator:
#                    guard pages around every mapped buffer, bounded waits,
#                    every call returns 0 or a negative errno; PIO block
#                    writes, flush and mapping query (opened with pio=wc,
#                    FUZZ_PIO=uc for the other mapping): the answer abb.h's
#                    rules give, the bytes read back as written (or unchanged)
#
# Each run prints "fuzz: TARGET: N execs in S s"; a crash or hang leaves the
# input in build-fuzz/TARGET/ (crash-*, timeout-*) and fails the target.
# Inputs worth keeping as regression cases go to testbench/fuzz/crashes/
# (each target runs them first) and the corpora start from
# testbench/fuzz/seeds/TARGET/.

FUZZ_B        := build-fuzz
FUZZ_SECONDS  ?= 60
# libpci leaks its state after an error (testbench/sanitize/lsan.supp): about
# 4 KB per fuzz_lspci input, so 10^6 inputs need more than the default 2 GB
FUZZ_RSS_MB   ?= 8192
FUZZ_TARGETS  ?= fuzz_options fuzz_daq_params fuzz_lspci fuzz_device
FUZZ_CC       ?= clang
FUZZ_CXX      ?= clang++
FUZZ_FLAGS    := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined \
                 -fno-sanitize-recover=all -fsanitize=fuzzer-no-link
FUZZ_DEB_PKGS := clang libclang-rt-dev
# The device fuzzer on the simulator loads the plain (uninstrumented)
# build/sim/libabbsim.so: its DMA writes into host memory are checked by
# the guard pages, not by ASan.
FUZZ_SIM_LIB  := $(abspath build/sim/libabbsim.so)

.PHONY: fuzz fuzz-deps fuzz-build

fuzz-deps:
	@missing=""; for p in $(FUZZ_DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "fuzz: installing$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
	      { echo "fuzz: apt-get install failed for:$$missing" >&2; exit 1; }; \
	  else \
	    echo "fuzz: missing packages; run as root:" >&2; \
	    echo "  apt-get install -y$$missing" >&2; exit 1; \
	  fi; \
	fi

# Built in a sub-make with B=$(FUZZ_B) and clang, so every object of libabb
# (libabb.a, hidden symbols reachable) carries the sanitizers and coverage.
fuzz-build: $(addprefix $(B)/fuzz/,$(sort $(patsubst fuzz_device_%,fuzz_device,$(FUZZ_TARGETS))))

FUZZ_LIBS := $(HOST_A) $(HOST_LIBS)
.PRECIOUS: $(B)/fuzz/%.o

$(B)/fuzz/%.o: testbench/fuzz/%.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CPPFLAGS) $(HOST_CFLAGS) -c $< -o $@

$(B)/fuzz/params.o: sim/params.cpp
	@mkdir -p $(@D)
	$(CXX) -std=c++17 $(CXXFLAGS) $(WARN) -Isim -Ihost/include -Irtl-model/include -c $< -o $@

$(B)/fuzz/fuzz_options: $(B)/fuzz/fuzz_options.o $(B)/fuzz/params.o $(HOST_A)
	$(CXX) $(CXXFLAGS) -fsanitize=fuzzer -o $@ $(B)/fuzz/fuzz_options.o $(B)/fuzz/params.o $(FUZZ_LIBS)

$(B)/fuzz/fuzz_%: $(B)/fuzz/fuzz_%.o $(HOST_A)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBS)

# The runs: NAME=BINARY[:ENV]. fuzz_device runs twice, on the model and on
# the simulator (FUZZ_TARGETS=fuzz_device_model or fuzz_device_sim: one).
FUZZ_RUNS := $(foreach t,$(FUZZ_TARGETS),$(if $(filter fuzz_device,$(t)),\
               fuzz_device_model=fuzz_device:FUZZ_DEVICE=model \
               fuzz_device_sim=fuzz_device:FUZZ_DEVICE=sim,\
             $(if $(filter fuzz_device_%,$(t)),$(t)=fuzz_device:FUZZ_DEVICE=$(t:fuzz_device_%=%),\
             $(t)=$(t))))
FUZZ_ENV := ABB_SIM_LIB=$(FUZZ_SIM_LIB) LSAN_OPTIONS=suppressions=$(abspath testbench/sanitize/lsan.supp)

fuzz:
	@$(MAKE) --no-print-directory fuzz-deps
	@mkdir -p $(FUZZ_B); t0=$$(date +%s); $(MAKE) --no-print-directory B=$(FUZZ_B) CC=$(FUZZ_CC) CXX=$(FUZZ_CXX) \
	  CFLAGS='$(FUZZ_FLAGS)' CXXFLAGS='$(FUZZ_FLAGS)' fuzz-build >$(FUZZ_B)/build.log 2>&1 || \
	  { tail -30 $(FUZZ_B)/build.log; exit 1; }; echo "fuzz: build: $$(( $$(date +%s) - t0 )) s"
	@if echo " $(FUZZ_TARGETS) " | grep -q ' fuzz_device \| fuzz_device_sim ' && [ ! -f $(FUZZ_SIM_LIB) ]; then \
	  t0=$$(date +%s); $(MAKE) --no-print-directory sim >/dev/null || exit 1; \
	  echo "fuzz: build of the plain simulator library: $$(( $$(date +%s) - t0 )) s"; fi
	@fail=0; for run in $(FUZZ_RUNS); do \
	  name=$${run%%=*}; t=$${run#*=}; env=; case $$t in *:*) env=$${t#*:}; t=$${t%%:*};; esac; \
	  d=$(FUZZ_B)/$$name; mkdir -p $$d/corpus; \
	  seeds=; [ -d testbench/fuzz/seeds/$$t ] && seeds=testbench/fuzz/seeds/$$t; \
	  crashes=$$(ls testbench/fuzz/crashes/$$t-* 2>/dev/null); \
	  if [ -n "$$crashes" ] && ! env $(FUZZ_ENV) $$env $(FUZZ_B)/fuzz/$$t $$crashes >$$d/regress.log 2>&1; then \
	    echo "fuzz: $$name: a committed case in testbench/fuzz/crashes/ fails (log $$d/regress.log):" >&2; \
	    grep -m1 -A12 'ERROR\|runtime error\|fuzz_' $$d/regress.log >&2; fail=1; continue; fi; \
	  t0=$$(date +%s); \
	  env $(FUZZ_ENV) $$env $(FUZZ_B)/fuzz/$$t -max_total_time=$(FUZZ_SECONDS) -timeout=20 \
	    -rss_limit_mb=$(FUZZ_RSS_MB) -print_final_stats=1 -artifact_prefix=$$d/ $$d/corpus $$seeds \
	    >$$d/run.log 2>&1; rc=$$?; \
	  execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' $$d/run.log | tail -1); \
	  if [ $$rc != 0 ]; then \
	    echo "fuzz: $$name: FAILED (rc $$rc) after $${execs:-?} execs; log $$d/run.log:" >&2; \
	    grep -m1 -A25 'ERROR\|runtime error\|fuzz_device:\|timeout' $$d/run.log >&2; fail=1; \
	  else echo "fuzz: $$name: $$execs execs in $$(( $$(date +%s) - t0 )) s, no crash, hang or leak"; fi; \
	done; exit $$fail
