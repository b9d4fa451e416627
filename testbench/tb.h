/*
 * tb.h - helpers shared by the CUnit suites of the ABB test bench.
 *
 * The device: one board is open at a time in the process (the simulated
 * board is a per-process singleton and abb_open() on it hot-resets it), so
 * every suite opens tb_dev in its init function and closes it in its
 * cleanup; a test that needs other simulator options reopens with
 * tb_reopen() and restores the suite's device with tb_reopen(NULL) before
 * it returns.
 *
 * The backend is $ABB_DEVICE (unset or empty: "sim"), as abb_open() reads
 * it. What a test needs of the backend is stated once, in its suite's
 * table: TB_SIM_TEST(fn) and the other TB_*_TEST entries below. The
 * runner (tb_main.c) makes a test whose need the backend cannot meet
 * inactive before the run starts (CUnit's "Inactive" column) and prints
 * why; such a test never starts, so it does not check the backend again.
 * A test that finds out only while it runs that it cannot check what it
 * should (a missing tool, a BAR too small) calls tb_skip() or
 * tb_skip_part() before it returns: the runner lists it with the Run
 * Summary (CUnit counts it as passed) and JUnit marks it skipped.
 */
#ifndef TB_H
#define TB_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <CUnit/CUnit.h>
#include <abb/abb.h>

/* The open device of the running suite (NULL outside a suite). */
extern abb_dev *tb_dev;

/* Opens tb_dev on $ABB_DEVICE; on the simulator, sim_opts (e.g.
 * "mem_size=4194304,iova=scatter", NULL for none) are appended to the
 * options of $ABB_DEVICE. Returns 0 or the negative errno of abb_open and
 * prints why on failure. */
int tb_open(const char *sim_opts);
/* Closes tb_dev (if open). */
void tb_close(void);
/* Closes tb_dev and opens it again with sim_opts (see tb_open). */
int tb_reopen(const char *sim_opts);
/* CUnit suite init / cleanup that just open / close tb_dev. */
int tb_suite_open(void);
int tb_suite_close(void);

/* 1 if tb_dev runs on the simulator. */
int tb_is_sim(void);
/* 1 if transfers on tb_dev take device time (the simulator, the board,
 * the timed reference model "model:timed=1"); 0 on the untimed reference
 * model ("model"), where a transfer is done inside the CTRL write that
 * starts it. */
int tb_is_timed(void);
/* 1 if tb_dev is the timed reference model: the reference model with
 * device time and the simulation-only calls it serves (abb_sim_cycles,
 * abb_sim_advance, abb_sim_link_params, abb_sim_tlp_log). */
int tb_is_timed_model(void);

/* the simulator or the timed model runs board profile abb2008
 * (ABB_SIM_PROFILE or profile= in ABB_DEVICE; doc/board-profile.md) */
int tb_is_abb2008(void);
/* 1 if the device runs in strict mode: ABB_SIM_STRICT=1 or strict=1 among
 * the options of $ABB_DEVICE (the later wins, as the backends read them).
 * Strict mode disables the model-defined side effects (ISR and GER
 * write-1-to-clear, ISR bit and DONE cleared by a start). */
int tb_is_strict(void);
/* 1 if tb_dev is the simulator or the reference model without strict
 * mode: the model-defined side effects are there to be tested. 0 on the
 * board, where they are unknown. */
int tb_is_lenient(void);
/* 1 if tb_dev has the model-defined event source (simulator, model, and
 * the emulated VFIO kernel, whose board is the simulator). */
int tb_has_evsrc(void);

/* Table entries of CU_TestInfo: the test's name is its function's; a
 * tag in front of the name states what it needs of the backend, the
 * runner strips it (the name stays the function's) and decides:
 *   TB_TEST        any backend
 *   TB_SIM_TEST    the simulator (sim): simulator API, cycles, faults,
 *                  link parameters, TLP log
 *   TB_TIMED_TEST  device time (sim, vfio, the timed model; not the untimed
 *                  model)
 *   TB_EVSRC_TEST  the model-defined event source and registers (sim,
 *                  model, the emulated VFIO kernel; not the board)
 *   TB_NOVFIO_TEST the simulator's or the model's own board, opened
 *                  directly (sim, model; not through vfio)
 *   TB_NOSIM_TEST  a backend other than the simulator (what the others
 *                  answer to the simulator-only calls) */
#define TB_TEST(fn)        { #fn, fn }
#define TB_SIM_TEST(fn)    { "[sim]" #fn, fn }
#define TB_TIMED_TEST(fn)  { "[timed]" #fn, fn }
#define TB_EVSRC_TEST(fn)  { "[evsrc]" #fn, fn }
#define TB_NOVFIO_TEST(fn) { "[novfio]" #fn, fn }
#define TB_NOSIM_TEST(fn)  { "[nosim]" #fn, fn }

/* The test that runs cannot check what it should (the reason, printf
 * format): printed, counted and listed with the Run Summary as skipped;
 * the caller returns. tb_skip_part: only part of it is skipped (the
 * rest of the test ran and counts). */
void tb_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tb_skip_part(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* For a test not tagged TB_SIM_TEST (better: tag it): on another backend
 * the test is skipped (tb_skip, listed) and returns. */
#define TB_REQUIRE_SIM()                                                      \
	do {                                                                  \
		if (!tb_is_sim()) {                                           \
			tb_skip("simulation-only test, backend is \"%s\"",     \
				tb_dev ? abb_backend(tb_dev) : "none");       \
			return;                                               \
		}                                                             \
	} while (0)

/* Fails the test (fatally) if tb_dev is not open. */
#define TB_REQUIRE_DEV() CU_ASSERT_PTR_NOT_NULL_FATAL(tb_dev)

/* Deterministic pseudo-random bytes: the same (seed, n) always gives the
 * same bytes; different seeds give different data. */
void tb_fill(void *p, size_t n, uint32_t seed);

/* Compares got with want; on a mismatch prints what (a label), the first
 * differing offset and the bytes there, and returns 0. Returns 1 if equal. */
int tb_same(const char *what, const void *got, const void *want, size_t n);
/* 1 if all n bytes at p are v; else prints the first offset that is not. */
int tb_all_byte(const char *what, const void *p, size_t n, uint8_t v);

/* Page size of the host. */
size_t tb_page(void);
/* n bytes of page-aligned, zeroed memory (posix_memalign); abort-free: NULL
 * on failure. Free with free(). */
void *tb_alloc_pages(size_t n);
/* One DMA by raw register writes (simulator): see tb_common.c. */
uint32_t tb_raw_dma(uint32_t ch, uint32_t board, uint64_t iova, uint32_t len);

/* Device time in ns (0 if unavailable). */
uint64_t tb_now_ns(void);

/* Reads a register, failing the test (not fatally) if the read fails;
 * returns the value (0xDEADBEEF after a failed read). */
uint32_t tb_reg(uint32_t off);
/* Writes a register, failing the test if the write fails. */
void tb_reg_set(uint32_t off, uint32_t val);

/* The path of a golden vector file: $ABB_VECTORS/<name> if ABB_VECTORS
 * names a directory, $ABB_VECTORS itself if it names a file, else
 * TB_VECTORS_DIR/<name> (set by testbench.mk to the repository's vectors/),
 * else vectors/<name>. Returns buf. */
const char *tb_vector_path(const char *name, char *buf, size_t n);

/* Registration functions of the suites (one per file). Each returns a
 * CUnit error code. */
CU_ErrorCode tb_register_regs(void);
CU_ErrorCode tb_register_dma_integrity(void);
CU_ErrorCode tb_register_blocking(void);
CU_ErrorCode tb_register_protocol(void);
CU_ErrorCode tb_register_bad_input(void);
CU_ErrorCode tb_register_determinism(void);
CU_ErrorCode tb_register_rtlclk(void);
CU_ErrorCode tb_register_freerun(void);
CU_ErrorCode tb_register_discovery(void);
CU_ErrorCode tb_register_tlp_rules(void);
CU_ErrorCode tb_register_cfgspace(void);
CU_ErrorCode tb_register_link(void);
CU_ErrorCode tb_register_vectors(void);
CU_ErrorCode tb_register_intx(void);
CU_ErrorCode tb_register_robust(void);
CU_ErrorCode tb_register_scoreboard(void);
CU_ErrorCode tb_register_vfio(void);
CU_ErrorCode tb_register_faults(void);
CU_ErrorCode tb_register_rx(void);
CU_ErrorCode tb_register_dma_ctl(void);
CU_ErrorCode tb_register_runner(void);
CU_ErrorCode tb_register_stress(void);
CU_ErrorCode tb_register_pio(void);

/* 1 when the bench runs on the emulated VFIO kernel (--vfio-emu). */
extern int tb_vfio_emu;
/* Puts the emulator back as the runner installed it (or removes it when
 * the bench runs without --vfio-emu); for tests that install their own
 * emulator options. 0 or a negative errno. */
int tb_vfio_emu_restore(void);

#endif
