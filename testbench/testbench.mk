# testbench.mk - the CUnit test bench (included by the top-level Makefile).
#
#   make test                         every suite on $ABB_DEVICE (default: the simulator)
#   make test ABB_DEVICE=vfio         the same suites on the real board
#   make test TB_SUITES="regs blocking"   only these suites
#   make vectors                      regenerate the golden TLP vectors (vectors/tlp/)
#
# Builds $(B)/abb_tests from testbench/*.c against libabb ($(B)/libabb.so,
# built by host/host.mk) and CUnit. The program exits non-zero when a test
# fails, so `make test` fails too.

# vectors_run.c is a program of its own (the vector generator)
TB_SRCS    := $(filter-out testbench/vectors_run.c,$(wildcard testbench/*.c))
TB_OBJS    := $(patsubst testbench/%.c,$(B)/testbench/%.o,$(TB_SRCS))
TB_BIN     := $(B)/abb_tests
# host/lib for abb_vfio.h (the discovery entry point, exported by libabb)
TB_CFLAGS  := -std=c11 $(WARN) -Ihost/include -Ihost/lib \
              -DTB_VECTORS_DIR='"$(abspath vectors)"' -DTB_BUILD_DIR='"$(abspath $(B))"'
# libabb next to the binary: found at run time without LD_LIBRARY_PATH
TB_LDFLAGS := -L$(B) -Wl,-rpath,'$$ORIGIN'
TB_LIBS    := -labb -lcunit -pthread
# Suites to run (names as in the suite tables; empty: all)
TB_SUITES  ?=
# Wall-clock limit of one run of the bench, seconds
TB_TIMEOUT ?= 900

.PHONY: test tests vectors

all: $(TB_BIN) $(B)/vectors_run
tests: $(TB_BIN)

$(B)/testbench/%.o: testbench/%.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(TB_CFLAGS) -MMD -MP -c -o $@ $<

$(TB_BIN): $(TB_OBJS) $(B)/libabb.so
	$(CC) $(CFLAGS) -o $@ $(TB_OBJS) $(TB_LDFLAGS) $(TB_LIBS)

# The golden TLP vectors: the generator shares the transfers with the
# vectors suite (tb_vectors.c). `make vectors` rewrites vectors/tlp/ on
# purpose; commit the new files with the change that moved them.
$(B)/vectors_run: $(B)/testbench/vectors_run.o $(B)/testbench/tb_vectors.o $(B)/libabb.so
	$(CC) $(CFLAGS) -o $@ $(B)/testbench/vectors_run.o $(B)/testbench/tb_vectors.o $(TB_LDFLAGS) -labb

vectors: $(B)/vectors_run $(B)/sim/libabbsim.so
	$(B)/vectors_run $(abspath vectors)/tlp

# deps first, then the build (sub-makes: `make -j2 test` never compiles
# before the packages are there), then the example program and the suites
test:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	ABB_DEVICE='$(ABB_DEVICE)' $(B)/readback
	ABB_DEVICE='$(ABB_DEVICE)' timeout $(TB_TIMEOUT) $(TB_BIN) $(TB_SUITES)
	@# a second simulator on the same RTL: Icarus replays the golden vectors
	@$(MAKE) --no-print-directory icarus-replay

-include $(TB_OBJS:.o=.d) $(B)/testbench/vectors_run.d
