# sim/wave.mk - waveforms of the simulated board (sim/trace.h)
#
#   make wave                     the example (a 64 KiB DMA write and read back), every cycle
#   make wave TEST=suite/test     only that test of abb_tests (e.g. TEST=blocking/test_blocking_both_channels_irq)
#   make wave DMA=N[-M]           only the N-th to M-th DMA of the run (RUN=program, default the example)
#   make wave FROM=a TO=b         only cycles [a, b) (RUN=program)
#   make wave ON_ERROR=K          flight recorder: the last K cycles before a failing DMA,
#                                 a protocol error or a failed test (RUN=program or TEST=)
#   make wave-shots               the screenshots of doc/waveforms.md (doc/wave-*.png) from fresh runs
#   make trace-cost               cost of tracing compiled in but off, against a build without it
#
# Each writes $(WAVE) and the save file next to it ($(WAVE:.fst=.gtkw): groups,
# ASCII text lanes, DMA markers) and $(B)/wave-tlp.txt (the TLP log), prints
# the window's size and wall-clock time, then opens GTKWave when there is a
# display (else prints the command).

WAVE     ?= $(B)/wave.fst
RUN      ?= $(B)/readback
GTKWAVE  ?= gtkwave
WAVE_DEB := gtkwave xvfb x11-apps netpbm xauth
WAVE_ENV := ABB_DEVICE=sim ABB_TRACE=$(WAVE) ABB_TLP_LOG=$(B)/wave-tlp.txt

.PHONY: wave wave-view wave-deps wave-shots trace-cost

wave: all
	@rm -f $(WAVE) $(WAVE:.fst=.gtkw)
ifneq ($(ON_ERROR),)
	time $(WAVE_ENV) ABB_TRACE_ON_ERROR=$(ON_ERROR) $(if $(TEST),$(B)/abb_tests $(TEST),$(RUN)) || true
else ifneq ($(TEST),)
	time $(WAVE_ENV) ABB_TRACE_TEST=$(TEST) $(B)/abb_tests $(TEST) || true
else ifneq ($(DMA),)
	time $(WAVE_ENV) ABB_TRACE_DMA=$(DMA) $(RUN)
else
	time $(WAVE_ENV) ABB_TRACE_FROM=$(or $(FROM),0) ABB_TRACE_TO=$(or $(TO),0) $(RUN)
endif
	@$(MAKE) --no-print-directory wave-view WAVE=$(WAVE)

wave-view:
	@test -f $(WAVE) || { echo "wave: no $(WAVE) was written (the window was never reached?)" >&2; exit 1; }
	@ls -l $(WAVE) $(WAVE:.fst=.gtkw)
	@if [ -n "$$DISPLAY" ] && command -v $(GTKWAVE) >/dev/null; then \
	  echo "wave: $(GTKWAVE) $(WAVE:.fst=.gtkw)"; ( $(GTKWAVE) $(WAVE:.fst=.gtkw) >/dev/null 2>&1 & ); \
	else \
	  echo "wave: view with: $(GTKWAVE) $(WAVE:.fst=.gtkw)"; \
	fi

# GTKWave, a virtual X server, xwd and netpbm (as root, like make deps).
wave-deps:
	@missing=""; for p in $(WAVE_DEB); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "wave-deps: installing$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null || \
	      { echo "wave-deps: apt-get install failed for:$$missing" >&2; exit 1; }; \
	  else \
	    echo "wave-deps: missing packages; run as root:" >&2; \
	    echo "  apt-get install -y$$missing" >&2; exit 1; \
	  fi; \
	fi

# The screenshots of doc/waveforms.md, from fresh runs:
#  - doc/wave-dma-read.png: the 2nd DMA of wave_demo 4096 (a 4 KiB DMA read,
#    interrupt-driven), its first 2 us;
#  - doc/wave-stall.png: the flight recorder's picture of a DMA read that
#    does not finish within libabb's wait limit (the walk-through in the
#    doc/waveforms.md: one posted header credit board to host), its last 3 us.
WAVE_SHOTS := $(B)/shots
STALL_ENV  := ABB_SIM_CREDITS=up.ph=1,up.pd=8 ABB_WAIT_LIMIT_MS=1
wave-shots: all wave-deps
	@rm -rf $(WAVE_SHOTS) && mkdir -p $(WAVE_SHOTS) doc
	time ABB_DEVICE=sim ABB_TRACE=$(WAVE_SHOTS)/dma-read.fst ABB_TRACE_DMA=2 \
	  ABB_TLP_LOG=$(WAVE_SHOTS)/dma-read-tlp.txt $(B)/wave_demo 4096
	WAVE_SHOT_DROP="registers;H2C channel (0, DMA write)" \
	  sim/wave_shot.sh $(WAVE_SHOTS)/dma-read.gtkw $(CURDIR)/doc/wave-dma-read.png 1600000
	time ABB_DEVICE=sim ABB_TRACE=$(WAVE_SHOTS)/stall.fst ABB_TRACE_ON_ERROR=3000 $(STALL_ENV) \
	  ABB_TLP_LOG=$(WAVE_SHOTS)/stall-tlp.txt $(B)/wave_demo 524288 || true
	WAVE_SHOT_DROP="registers;H2C channel (0, DMA write);TLP in (host to board)" \
	  sim/wave_shot.sh $(WAVE_SHOTS)/stall.gtkw $(CURDIR)/doc/wave-stall.png 3000000 before
	@ls -l $(WAVE_SHOTS) doc/wave-*.png

# Tracing switched off against a simulator built without it (SIM_TRACE=0,
# in $(B)-notrace), both the speed build (sim/sim.mk: the 125 MHz model
# without assertions): TRACE_COST_RUNS alternating runs of speed_abbsim (a
# 4 MiB DMA read) with (a) the build without tracing, (b) the normal build
# (tracing off: the untraced model runs, sim/rtl_model.h), (c) the normal
# build with ABB_SIM_TRACEABLE=1 (the traced model, nothing traced); mean
# and run-to-run spread of each, the ratios of the means and pair by pair;
# then the cost of a trace window of 20000 cycles.
TRACE_COST_RUNS ?= 15
trace-cost: $(SIM_B)/fast/speed_abbsim
	$(MAKE) --no-print-directory B=$(B)-notrace SIM_TRACE=0 $(B)-notrace/sim/fast/speed_abbsim
	@sim/trace_cost.sh $(SIM_B)/fast/speed_abbsim $(B)-notrace/sim/fast/speed_abbsim $(TRACE_COST_RUNS)
