# host/host.mk - libabb (shared + static), its tools and pkg-config files.
#
# Included by the top Makefile (B = build directory, PREFIX, CC, CFLAGS, WARN).
#   make host       libabb.so (soname libabb.so.0), libabb.a, tools, abb.pc
#   make demo       runs build/abb_demo (DMA write/read table on the simulator)
#   make bench      runs build/abb_bench (throughput against the link formula,
#                   build/bench.png; PIO uc/wc by store width, build/bench-pio.png)
#   make install    lib, headers, abb.pc, libabbsim.so, tools into $(PREFIX)
#
# The library never links SystemC: the sim backend dlopen()s libabbsim.so.

HOST_VERSION  := 0.1.0
HOST_SONAME   := libabb.so.0
HOST_LIBDIR   := $(B)
HOST_SO       := $(B)/libabb.so.$(HOST_VERSION)
HOST_A        := $(B)/libabb.a
HOST_PC       := $(B)/abb.pc
HOST_PC_INST  := $(B)/host/abb.pc
HOST_TOOLS    := $(patsubst host/tools/%.c,$(B)/%,$(wildcard host/tools/abb_*.c))

# The library: host/lib (API, DMA driver, backends) and host/daq (readout
# and writer modules, <abb/abb_daq.h>), one object per source file.
# (not host/daq/daq_net_out.c: the farm's ZeroMQ output, see host/daq/daq.mk)
HOST_SRCS     := $(wildcard host/lib/*.c) $(filter-out host/daq/daq_net_out.c,$(wildcard host/daq/*.c))
# and the simulator's one loader (sim/abbsim_loader.c), hidden in libabb
HOST_OBJS     := $(HOST_SRCS:host/%.c=$(B)/host/%.o) $(B)/host/abbsim_loader.o
HOST_PCI_CFLAGS := $(shell pkg-config --cflags libpci 2>/dev/null)
HOST_PCI_LIBS := $(or $(shell pkg-config --libs libpci 2>/dev/null),-lpci)
HOST_LIBS     := -ldl -lpthread $(HOST_PCI_LIBS)

# HOST_EXTRA_INC: extra include directories after ours (e.g. a stand-in
# for a generated header while it is being written).
HOST_CPPFLAGS := -Ihost/include -Irtl-model/include -Ihost/lib -Ihost/daq -Isim $(HOST_EXTRA_INC) -D_GNU_SOURCE \
                 -DABB_BUILD_DIR='"$(abspath $(B))"'
# sim: the simulator's public headers (abbsim.h and what it includes;
# <abb/abb_sim.h> includes <abbsim_inject.h> and <abbsim_note.h>, installed
# next to abbsim.h in $(PREFIX)/include; in the build tree they are sim's)
HOST_TOOL_CPPFLAGS := -Ihost/include -Irtl-model/include -Ihost/lib -Isim $(HOST_EXTRA_INC)
HOST_CFLAGS   := -std=c11 -fPIC $(WARN) $(CFLAGS) $(HOST_PCI_CFLAGS) -MMD -MP

.PHONY: host install-host

all: host
host: $(HOST_SO) $(B)/libabb.so $(HOST_A) $(HOST_TOOLS) $(HOST_PC) $(HOST_PC_INST)

$(B)/host/lib/%.o: host/lib/%.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CPPFLAGS) $(HOST_CFLAGS) -c $< -o $@

$(B)/host/abbsim_loader.o: sim/abbsim_loader.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CPPFLAGS) $(HOST_CFLAGS) -fvisibility=hidden -c $< -o $@

$(B)/host/daq/%.o: host/daq/%.c
	@mkdir -p $(@D)
	$(CC) $(HOST_CPPFLAGS) $(HOST_CFLAGS) -c $< -o $@

$(HOST_SO): $(HOST_OBJS)
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(HOST_SONAME) -Wl,--no-undefined -o $@ $^ $(HOST_LIBS)

$(B)/libabb.so: $(HOST_SO)
	ln -sf $(notdir $(HOST_SO)) $(B)/$(HOST_SONAME)
	ln -sf $(HOST_SONAME) $@

$(HOST_A): $(HOST_OBJS)
	rm -f $@
	$(AR) rcs $@ $^

# Tools link the shared library and find it (and libabbsim.so) next to
# themselves in the build tree, or in ../lib once installed.
$(B)/host/tools/%.o: host/tools/%.c
	@mkdir -p $(@D)
	$(CC) $(HOST_TOOL_CPPFLAGS) $(HOST_CFLAGS) -c $< -o $@

$(B)/abb_%: $(B)/host/tools/abb_%.o $(B)/host/tools/tool_args.o $(B)/libabb.so
	$(CC) $(CFLAGS) -o $@ $(filter %.o,$^) -L$(B) -labb -Wl,-rpath,'$$ORIGIN:$$ORIGIN/../lib' -lm -pthread $(TOOL_LIBS)

# Parts of a tool in files of their own (not named abb_*, so no tool each);
# tool_args.o (numbers, the output check) is in every tool
$(B)/abb_tool: $(B)/host/tools/doctor.o
$(B)/abb_bench_daq: $(B)/host/tools/bench_module.o
$(B)/abb_bench: $(B)/host/tools/bench_pio.o
# the readout farm (ZeroMQ): the node's network output unit, libzmq
$(B)/abb_readout_node $(B)/abb_builder: $(B)/host/daq/daq_net_out.o
$(B)/abb_readout_node $(B)/abb_builder: TOOL_LIBS := -lzmq

# pkg-config: $(B)/abb.pc for programs built against the build tree,
# $(B)/host/abb.pc (with PREFIX) for the installed copy. The build tree's
# also names sim/: <abb/abb_sim.h> includes the simulator's
# <abbsim_inject.h>, which an installation has in includedir.
define HOST_PC_TEXT
prefix=$(1)
libdir=$(2)
includedir=$(3)

Name: abb
Description: Host library of the CBM Active Buffer Board (real board via VFIO, or the simulator)
Version: $(HOST_VERSION)
Libs: -L$${libdir} -Wl,-rpath,$${libdir} -labb
Libs.private: -ldl -lpthread $(HOST_PCI_LIBS)
Cflags: -I$${includedir}$(4)
endef

$(HOST_PC): host/host.mk
	@mkdir -p $(@D)
	$(file >$@,$(call HOST_PC_TEXT,$(abspath .),$(abspath $(B)),$(abspath host/include), -I$(abspath rtl-model/include) -I$(abspath sim)))
	@echo "wrote $@"

# Rewritten on every run: PREFIX may differ between `make` and `make install`.
.PHONY: host-pc-always
$(HOST_PC_INST): host-pc-always
	@mkdir -p $(@D)
	$(file >$@,$(call HOST_PC_TEXT,$(PREFIX),$${prefix}/lib,$${prefix}/include))

-include $(HOST_OBJS:.o=.d) $(HOST_TOOLS:$(B)/abb_%=$(B)/host/tools/abb_%.d) $(B)/host/tools/doctor.d $(B)/host/tools/bench_module.d $(B)/host/tools/bench_pio.d \
         $(B)/host/tools/tool_args.d

# deps first, then the build (a sub-make each, so `make -j2 demo` never
# compiles before the packages are there)
demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	$(B)/abb_demo

# make bench PROFILE=abb2008: the profile's figures (by interrupt, the
# shapes of the 2008 measurements: doc/board-profile.md) beside the default
# board's, one CSV each and one plot ($(B)/bench-PROFILE.png)
bench:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
ifeq ($(PROFILE),)
	ABB_SIM_MEM_SIZE=$${ABB_SIM_MEM_SIZE:-4M} $(B)/abb_bench --plot $(B)/bench.png
	$(B)/abb_bench --pio --plot $(B)/bench-pio.png
else
	ABB_SIM_MEM_SIZE=$${ABB_SIM_MEM_SIZE:-4M} $(B)/abb_bench -d sim --irq --min 4K --max 1M --no-concurrent --csv > $(B)/bench-default.csv
	ABB_SIM_MEM_SIZE=$${ABB_SIM_MEM_SIZE:-4M} $(B)/abb_bench -d 'sim:profile=$(PROFILE)' --irq --min 4K --max 1M --no-concurrent --csv > $(B)/bench-$(PROFILE).csv
	@paste -d, $(B)/bench-default.csv $(B)/bench-$(PROFILE).csv | \
	  awk -F, 'NR == 1 { printf "%8s %10s %10s %10s %10s   (MB/s device time, by interrupt)\n", "size", "read", "write", "$(PROFILE) rd", "$(PROFILE) wr"; next } \
	    { printf "%8s %10s %10s %10s %10s\n", $$1, $$2, $$5, $$13, $$16 }'
	@printf '%s\n' "set terminal png size 900,600" "set output '$(B)/bench-$(PROFILE).png'" \
	  "set datafile separator ','" "set logscale x 2" "set format x '%.0b %BB'" \
	  "set xlabel 'transfer size'" "set ylabel 'MB/s (device time, by interrupt)'" \
	  "set key bottom right" "set grid" "set title 'ABB DMA: default board and profile $(PROFILE)'" \
	  "plot '$(B)/bench-default.csv' u 1:2 every ::1 w lp t 'default: DMA read', '' u 1:5 every ::1 w lp t 'default: DMA write', '$(B)/bench-$(PROFILE).csv' u 1:2 every ::1 w lp t '$(PROFILE): DMA read', '' u 1:5 every ::1 w lp t '$(PROFILE): DMA write'" \
	  | gnuplot && echo "plot: $(B)/bench-$(PROFILE).png"
endif

install: install-host
install-host: host
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include/abb \
	  $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(HOST_SO) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(notdir $(HOST_SO)) $(DESTDIR)$(PREFIX)/lib/$(HOST_SONAME)
	ln -sf $(HOST_SONAME) $(DESTDIR)$(PREFIX)/lib/libabb.so
	install -m 644 $(HOST_A) $(DESTDIR)$(PREFIX)/lib/
	install -m 644 host/include/abb/*.h rtl-model/include/abb/abb_regs.h $(DESTDIR)$(PREFIX)/include/abb/
	install -m 644 sim/abbsim_inject.h sim/abbsim_note.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 $(HOST_PC_INST) $(DESTDIR)$(PREFIX)/lib/pkgconfig/abb.pc
	@if [ -f $(B)/sim/libabbsim.so ]; then \
	  echo "install -m 755 $(B)/sim/libabbsim.so $(DESTDIR)$(PREFIX)/lib/"; \
	  install -m 755 $(B)/sim/libabbsim.so $(DESTDIR)$(PREFIX)/lib/; \
	else echo "install: $(B)/sim/libabbsim.so not built: the sim backend will not work" >&2; fi
	install -m 755 $(HOST_TOOLS) $(DESTDIR)$(PREFIX)/bin/

# The option table of doc/options.md, generated from host/lib/abb_options.c
# by `abb_tool options --markdown` between the two marker lines.
OPT_DOC        := doc/options.md
OPT_MARK_BEGIN := <!-- options: generated by
OPT_MARK_END   := <!-- options: end -->
define OPT_TABLE
{ sed -n '1,/^$(OPT_MARK_BEGIN)/p' $(OPT_DOC); $(B)/abb_tool options --markdown; \
  sed -n '/^$(OPT_MARK_END)/,$$p' $(OPT_DOC); }
endef

.PHONY: options options-check
options: $(B)/abb_tool
	@$(OPT_TABLE) > $(B)/options.md && mv $(B)/options.md $(OPT_DOC)
	@echo "options: $(OPT_DOC)'s option table rewritten from host/lib/abb_options.c"

options-check: $(B)/abb_tool
	@grep -q '^$(OPT_MARK_BEGIN)' $(OPT_DOC) && grep -q '^$(OPT_MARK_END)' $(OPT_DOC) || \
	  { echo "options-check: $(OPT_DOC) lacks the marker lines of the option table" >&2; exit 1; }
	@$(OPT_TABLE) > $(B)/options.md
	@diff -u $(OPT_DOC) $(B)/options.md >/dev/null || { diff -u $(OPT_DOC) $(B)/options.md; \
	  echo "options-check: $(OPT_DOC)'s option table is stale: run 'make options' and commit" >&2; exit 1; }
	@echo "options-check: $(OPT_DOC)'s option table is current"

lint: options-check
