# sim/pgo.mk - profile-guided optimisation of the default library (issue 19,
# point 3; included at the end of sim/sim.mk).
#
# The untraced RTL models (125 and 250 MHz) and the platform's per-cycle and
# per-TLP units (SIM_PGO_UNITS) are compiled twice: first instrumented
# (-fprofile-generate, in $(SIM_PGO_D)), linked into an instrumented
# library that the constrained-random regression runs on ($(B)/abb_regress,
# its defaults: 10^4 transfers, 100 link configurations, both clocks), then
# with that profile (-fprofile-use) into the library every program loads.
# The profile is made by the build from the regression, never committed; it
# is made again whenever a unit, the RTL or the regression changes. The
# traced models, the Verilator runtime and the other units are built as
# without it.
#
#   SIM_PGO=0     build without (also off in a sanitizer or coverage build:
#                 CXXFLAGS with -fsanitize or --coverage, SIM_VEXTRA set)
#
# Measured: sim/README.md, "Build options measured" and "The bare loop as
# the library runs it, the write path, the profile".

SIM_PGO ?= 1
ifneq ($(filter -fsanitize% --coverage,$(CXXFLAGS))$(SIM_VEXTRA)$(SIM_VEXTRA_SRCS),)
SIM_PGO := 0
endif
SIM_PGO_D     := $(SIM_B)/pgo
# the units a cycle or a TLP runs through (profiled by callgrind:
# sim/README.md); the others (the C API, open and close, tracing) are
# built once
SIM_PGO_UNITS := hard_ip platform platform_lockstep link root_complex tlp iommu cpu_store rtl_model sim_thread
SIM_PGO_GEN   := -fprofile-generate -fprofile-update=prefer-atomic
# (a unit or function the regression did not run is optimised as without
# a profile; a profile that does not fit its source is a warning, not an
# error: the dependencies below remake it, so this should not happen)
SIM_PGO_USE   := -fprofile-use -fprofile-partial-training -Wno-missing-profile -Wno-error=coverage-mismatch

ifeq ($(SIM_PGO),1)
SIM_PGO_OBJS := $(addprefix $(SIM_B)/,$(addsuffix .o,$(SIM_PGO_UNITS)))
# (private: not passed on to the prerequisites, the instrumented build; the
# profile copied next to the object, where the compiler looks for it)
$(SIM_PGO_OBJS): private SIM_PGO_OBJFLAGS = $(SIM_PGO_USE)
$(SIM_PGO_OBJS): private SIM_PGO_GCDA = $(SIM_PGO_D)/gen/$(basename $(notdir $@)).gcda
$(SIM_PGO_OBJS): $(SIM_PGO_D)/.trained
# the two untraced models (sim/sim.mk sim_model)
$(SIM_VDIR)/.compiled $(SIM_VDIR250)/.compiled: $(SIM_PGO_D)/.trained
$(SIM_VDIR)/.compiled: private SIM_PGO_MODEL_GCDA = $(SIM_PGO_D)/obj_dir/Vabb_top__ALL.gcda
$(SIM_VDIR250)/.compiled: private SIM_PGO_MODEL_GCDA = $(SIM_PGO_D)/obj_dir250/Vabb_top250__ALL.gcda
$(SIM_VDIR)/.compiled $(SIM_VDIR250)/.compiled: \
  private SIM_VOPT = OPT_FAST='-O2 $(SIM_PGO_USE)' OPT_SLOW=-O1 OPT_GLOBAL='-O2 $(SIM_PGO_USE)'
endif

# the instrumented units (with their header dependencies, as the others:
# a header change must remake the profile, not only the units using it)
$(SIM_PGO_D)/gen/%.o: sim/%.cpp $(SIM_VDIR)/.verilated $(SIM_VDIR250)/.verilated
	@mkdir -p $(@D)
	$(CXX) $(SIM_CXXFLAGS) $(SIM_PGO_GEN) -MMD -MP -c -o $@ $<
-include $(addprefix $(SIM_PGO_D)/gen/,$(addsuffix .d,$(SIM_PGO_UNITS)))

# the instrumented models: the verilated (and defer_comb.py-edited) sources
# copied, compiled with the generated makefile
# (the class of a model directory: sim/sim.mk's sim_model calls)
sim_pgo_class = $(if $(filter obj_dir250,$(1)),Vabb_top250,Vabb_top)
$(SIM_PGO_D)/%/.compiled: $(SIM_B)/%/.verilated
	rm -rf $(@D) && mkdir -p $(@D)
	cp $(SIM_B)/$*/*.cpp $(SIM_B)/$*/*.h $(SIM_B)/$*/*.mk $(@D)/
	$(MAKE) -C $(@D) -f $(call sim_pgo_class,$*).mk \
	  OPT_FAST='-O2 $(SIM_PGO_GEN)' OPT_SLOW=-O1 OPT_GLOBAL='-O2 $(SIM_PGO_GEN)' CXXFLAGS= \
	  $(call sim_pgo_class,$*)__ALL.a
	@touch $@

SIM_PGO_GEN_OBJS = $(addprefix $(SIM_PGO_D)/gen/,$(addsuffix .o,$(SIM_PGO_UNITS))) \
                   $(filter-out $(addprefix $(SIM_B)/,$(addsuffix .o,$(SIM_PGO_UNITS))),$(SIM_OBJS))
$(SIM_PGO_D)/gen/libabbsim.so: $(SIM_PGO_GEN_OBJS) $(SIM_TR_OBJS) $(SIM_PGO_D)/obj_dir/.compiled \
                               $(SIM_PGO_D)/obj_dir250/.compiled $(call sim_tr_deps,$(SIM_VDIR_TR)) $(SIM_VRT)
	$(CXX) $(CXXFLAGS) $(LDFLAGS) $(SIM_PGO_GEN) -shared -o $@ -Wl,--no-undefined -Wl,-soname,libabbsim.so $(SIM_LDSYM) \
	  $(SIM_PGO_D)/gen/rtl_model.o $(SIM_PGO_D)/obj_dir/Vabb_top__ALL.a $(SIM_PGO_D)/obj_dir250/Vabb_top250__ALL.a \
	  $(filter-out $(SIM_PGO_D)/gen/rtl_model.o,$(SIM_PGO_GEN_OBJS)) $(SIM_TR_OBJS) \
	  $(call sim_tr_models,$(SIM_VDIR_TR)) $(SIM_VRT) $(SIM_SC_LIBS) -lz -pthread

# the training: the regression on the instrumented library (old counts
# removed first: they would add up), in an environment of its own: the
# caller's ABB_* settings (a CI stage's profile, a wait limit) would change
# the profile or fail the build
$(SIM_PGO_D)/.trained: $(SIM_PGO_D)/gen/libabbsim.so $(B)/abb_regress
	@find $(SIM_PGO_D) -name '*.gcda' -delete
	@t0=$$(date +%s); env -i PATH="$$PATH" ABB_SIM_LIB=$(abspath $<) ABB_DEVICE=sim $(B)/abb_regress \
	    > $(SIM_PGO_D)/train.log 2>&1 || \
	  { echo "sim-pgo: the regression failed on the instrumented library ($(SIM_PGO_D)/train.log):" >&2; \
	    tail -5 $(SIM_PGO_D)/train.log >&2; exit 1; }; \
	  echo "sim-pgo: profile of the regression made in $$(( $$(date +%s) - t0 )) s ($(SIM_PGO_D)/train.log)"
	@touch $@
