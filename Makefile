# Top-level Makefile of the ABB simulator and test bench.
#
#   make deps     install missing Debian packages (as root; else prints the apt-get line)
#   make all      build the RTL model, the simulator, libabb, tools and tests
#   make demo     deps + all, then a readout on the simulated board (MB/s table)
#   make test     deps + all, then every CUnit suite (ABB_DEVICE selects the backend)
#   make lint     Verilator -Wall, Icarus -g2012, Yosys on the RTL (with the assertions); regmap-check
#   make doc-links  every relative link of the Markdown files resolves, README.md <= 400 lines (in make lint)
#   make icarus-replay  the golden vectors replayed on the RTL under Icarus Verilog
#   make rtl-benches    per-module RTL benches with parameter sweeps (rtl-model/tb/)
#   make regmap   regenerate the register-map outputs from rtl-model/abb_regs.def
#   make wave     a traced run on the simulator: build/wave.fst + build/wave.gtkw
#                 (TEST=suite/test, DMA=N-M, FROM= TO=, ON_ERROR=K: sim/wave.mk)
#   make coverage RTL and libabb coverage: lcov HTML report in build/coverage/html, summary printed
#   make mutate   N=60 SEED=1: seeded RTL mutants through the bench, kill rate
#   make mutate-demo  three broken RTL lines, one caught by each checker (scoreboard, assertion, vectors)
#   make install  PREFIX=/usr/local: libabb, headers, abb.pc, libabbsim, tools,
#                 the mprace layer (include/mprace/, libabb-mprace, abb-mprace.pc)
#   make mprace-check MPRACE_TESTS=DIR   build and run old mprace programs (doc/mprace.md)
#   make sanitize ASan+UBSan and TSan builds (build-asan/, build-tsan/) and their suite runs
#   make fuzz     libFuzzer targets of testbench/fuzz/ for FUZZ_SECONDS each
#   make clean
#
# Each directory contributes a fragment (rtl-model/rtl.mk, sim/sim.mk,
# host/host.mk, testbench/testbench.mk); everything is built below build/.

SHELL   := /bin/bash
B       := build
PREFIX  ?= /usr/local

CC      ?= cc
CXX     ?= c++
CFLAGS  ?= -O2 -g
CXXFLAGS ?= -O2 -g
WARN    := -Wall -Wextra -Wno-unused-parameter

# Debian packages the project needs (checked by `make deps`).
DEB_PKGS := build-essential pkg-config verilator libsystemc-dev libpci-dev \
            pciutils libcunit1-dev iverilog yosys gnuplot-nox libzmq3-dev

.PHONY: all deps demo test lint regmap regmap-check install clean bench example

all:

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
	      { echo "deps: apt-get install failed for:$$missing" >&2; exit 1; }; \
	  else \
	    echo "deps: missing packages; run as root:" >&2; \
	    echo "  apt-get install -y$$missing" >&2; exit 1; \
	  fi; \
	fi

-include rtl-model/rtl.mk
-include sim/sim.mk
-include sim/wave.mk
-include host/host.mk
-include host/daq/daq.mk
-include sim/sim_speed.mk
-include host/compat/mprace/mprace.mk
-include testbench/testbench.mk
-include testbench/coverage.mk
-include testbench/mutate.mk
-include testbench/icarus/icarus.mk
-include rtl-model/tb/tb.mk
-include testbench/sanitize.mk
-include testbench/fuzz/fuzz.mk

# The example program, built exactly as README.md tells users to build
# theirs: only <abb/abb.h>, flags from pkg-config (build/abb.pc).
all: $(B)/readback
$(B)/readback: host/examples/readback.c $(B)/libabb.so $(B)/abb.pc
	$(CC) $(CFLAGS) -o $@ $< $$(PKG_CONFIG_PATH=$(abspath $(B)) pkg-config --cflags --libs abb)

# The program behind `make wave-shots` and the walk-through of
# doc/waveforms.md, built the same way.
all: $(B)/wave_demo
$(B)/wave_demo: host/examples/wave_demo.c $(B)/libabb.so $(B)/abb.pc
	$(CC) -std=c11 -D_POSIX_C_SOURCE=200809L $(CFLAGS) -o $@ $< $$(PKG_CONFIG_PATH=$(abspath $(B)) pkg-config --cflags --libs abb)

example: $(B)/readback
	$(B)/readback

# The links of README.md, doc/*.md and the folders' Markdown files: a page
# that moves or a heading that changes breaks no link unnoticed. And
# README.md stays a guide: the reference goes to doc/, one page per topic,
# each linked from it.
DOC_MD := $(shell find . -name '*.md' -not -path './build*' -not -path './.git/*' | sort)
README_MAX_LINES := 400
.PHONY: doc-links
lint: doc-links
doc-links:
	@doc/check_links.sh $(DOC_MD)
	@n=$$(grep -c '' README.md); [ $$n -le $(README_MAX_LINES) ] || \
	  { echo "doc-links: README.md has $$n lines, more than $(README_MAX_LINES): move reference text to a doc/ page and link it" >&2; exit 1; }
	@for f in doc/*.md; do grep -qF "]($$f" README.md || \
	  { echo "doc-links: $$f is not linked from README.md (its 'Where to read on' lists every page)" >&2; exit 1; }; done
	@echo "doc-links: README.md has $$(grep -c '' README.md) lines (at most $(README_MAX_LINES)) and links every doc/ page"

clean:
	rm -rf $(B)
