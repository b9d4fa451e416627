/*
 * test_robust.c - hostile input (issue 9): every finding outside the DMA
 * and interrupt protocol is a test here that failed before its fix. After
 * each rejected or failed call a normal DMA of a random size must return
 * the right bytes with the guard bytes around the host buffer untouched
 * (robust_dma_ok).
 *
 * Findings and tests:
 *   1 very long timeouts, advance past the clock's end   test_robust_long_timeouts
 *   2 config-space offsets that wrap                     test_robust_cfg_offsets_wrap
 *   3 pool growth that overflows                         test_robust_pool_overflow
 *   4 DAQ transport forgets a running DMA                test_robust_daq_stop_unbounded_timeout,
 *                                                        test_robust_daq_watchdog_error
 *   5 memory that cannot take DMA                        test_robust_map_unusable_memory
 *   6 stale handles                                      test_robust_stale_handles
 *   8 slow links and clocks                              test_robust_slow_link_and_clock
 *   9 fork() after open: the child fails at once        test_robust_fork_child_fails_at_once
 *  11 NumBuffers=1, module destroyed under a consumer    test_robust_daq_modules
 *  11,12 DAQ parameters: all or nothing, exact numbers   test_robust_daq_params
 *  12 abb_strerror names every errno                    test_robust_strerror_names
 *  12 the watchdog message's prefix once                test_robust_watchdog_message
 *     a busy wait outlives the watchdog period          test_robust_watchdog_spares_busy_wait
 *  12 BAR0 64 KiB on the model as on the simulator      test_robust_bar0_size
 *  12 option numbers and booleans (env, sim:, model:)    test_robust_sim_options
 *     the one option table                               test_robust_option_table
 * issue 17:
 *   1 concurrent opens of "sim": exactly one wins      test_robust_concurrent_open
 *  14 close delivers the posted writes on the link     test_robust_close_delivers_posted_writes
 *     ... within a device-time cap                       test_robust_close_drain_capped
 *  13 PIO by the BAR as programmed                      (test_cfgspace.c) test_cfgspace_bar_moved
 */
#define _GNU_SOURCE
#include "tb.h"
#include "test_daq.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>
#include <abbsim_cfg.h>

#define GUARD 4096u            /* guard bytes on each side of the DMA area */
#define AREA (64u * 1024u)     /* the DMA area */
#define GUARD_BYTE 0xA5

/* expr must give exactly err, and leave a message in abb_last_error(). */
#define EXPECT_ERR(expr, err)                                                    \
	do {                                                                     \
		int rc_ = (expr);                                                \
		if (rc_ != (err))                                                \
			printf("\n    %s: got %d, want %d (%s)\n", #expr, rc_, (err), \
			       abb_strerror(err));                               \
		CU_ASSERT_EQUAL(rc_, (err));                                     \
		if (rc_ < 0)                                                     \
			CU_ASSERT(*abb_last_error() != '\0');                    \
	} while (0)

static uint32_t rnd_state = 12345;

static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/* A normal DMA write and read of a random size (multiple of 4, 4..AREA)
 * through a freshly mapped area with guard pages on both sides: the bytes
 * are right, the guards untouched, both channels idle. Returns 1 if so. */
static int robust_dma_ok(void)
{
	size_t len = ((rnd() % AREA) & ~(size_t)3) + 4, total = GUARD + AREA + GUARD;
	uint8_t *mem = tb_alloc_pages(total), *area, *want;
	abb_dmabuf *b = NULL;
	size_t bar1 = 0;
	uint32_t board;
	int ok = 0;

	want = malloc(AREA);
	if (!mem || !want || !tb_dev || abb_mem_size(tb_dev, &bar1) || bar1 < AREA)
		goto out;
	area = mem + GUARD;
	memset(mem, GUARD_BYTE, total);
	if (abb_dmabuf_map(tb_dev, area, AREA, &b)) {
		printf("\n    robust_dma_ok: map: %s\n", abb_last_error());
		goto out;
	}
	board = (rnd() % (uint32_t)(bar1 - AREA + 4)) & ~3u;
	tb_fill(want, len, rnd());
	memcpy(area, want, len);
	if (abb_dma_write(tb_dev, b, 0, board, len, 0)) {
		printf("\n    robust_dma_ok: DMA write of %zu bytes: %s\n", len, abb_last_error());
		goto unmap;
	}
	memset(area, 0, len);
	if (abb_dma_read(tb_dev, b, 0, board, len, rnd() & 1 ? ABB_DMA_IRQ : 0)) {
		printf("\n    robust_dma_ok: DMA read of %zu bytes: %s\n", len, abb_last_error());
		goto unmap;
	}
	ok = tb_same("robust DMA", area, want, len) &&
	     tb_all_byte("guard before", mem, GUARD, GUARD_BYTE) &&
	     tb_all_byte("guard after", area + AREA, GUARD, GUARD_BYTE) &&
	     tb_all_byte("area after the DMA", area + len, AREA - len, GUARD_BYTE);
unmap:
	if (abb_dmabuf_unmap(b)) {
		printf("\n    robust_dma_ok: unmap: %s\n", abb_last_error());
		ok = 0;
	}
out:
	free(mem);
	free(want);
	return ok;
}

/* No protocol error recorded by the simulator since the last call. */
static int no_protocol_errors(void)
{
	char msg[1024] = "";
	int n;

	if (!tb_is_sim())
		return 1;
	n = abb_sim_protocol_errors(tb_dev, msg, sizeof msg);
	if (n)
		printf("\n    %d protocol errors: %s\n", n, msg);
	return n == 0;
}

/* ---- 1: very long timeouts ---- */

static void test_robust_long_timeouts(void)
{
	size_t len = 256u * 1024u;
	uint8_t *mem = tb_alloc_pages(len), *want = malloc(len);
	abb_dmabuf *b;
	uint64_t t0 = 0, t1 = 0;

	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(mem && want);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, mem, len, &b), 0);
	/* a DMA by interrupt waited for with INT64_MAX: no device-time limit */
	tb_fill(want, len, 91);
	memcpy(mem, want, len);
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, b, 0, 0, len, 0), 0);
	memset(mem, 0, len);
	CU_ASSERT_EQUAL(abb_dma_read_start(tb_dev, b, 0, 0, len, ABB_DMA_IRQ), 0);
	EXPECT_ERR(abb_dma_read_wait(tb_dev, INT64_MAX), 0);
	CU_ASSERT(tb_same("DMA waited for with INT64_MAX", mem, want, len));
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	/* the interrupt generator, waited for with INT64_MAX */
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	tb_reg_set(ABB_REG_IGEN_LAT, 1000);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ARM);
	EXPECT_ERR(abb_irq_wait(tb_dev, ABB_IRQ_GEN, INT64_MAX), (int)ABB_IRQ_GEN);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ACK);
	CU_ASSERT(no_protocol_errors());
	/* advancing past the end of the clock is refused; time never goes back */
	if (tb_is_sim()) {
		CU_ASSERT_EQUAL(abb_time_ns(tb_dev, &t0), 0);
		EXPECT_ERR(abb_sim_advance(tb_dev, INT64_MAX), -EINVAL);
		CU_ASSERT(strstr(abb_last_error(), "64-bit") != NULL);
		CU_ASSERT_EQUAL(abb_time_ns(tb_dev, &t1), 0);
		CU_ASSERT(t1 >= t0);
		CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 1000), 0);
		CU_ASSERT_EQUAL(abb_time_ns(tb_dev, &t1), 0);
		CU_ASSERT(t1 >= t0 + 1000);
	}
	CU_ASSERT(robust_dma_ok());
	free(mem);
	free(want);
}

/* ---- 2: config-space offsets that wrap ---- */

static void test_robust_cfg_offsets_wrap(void)
{
	uint32_t v = 0, id = 0;

	EXPECT_ERR(abb_sim_cfg_read(tb_dev, 0xFFFFFFFCu, 4, &v), -EINVAL);
	EXPECT_ERR(abb_sim_cfg_read(tb_dev, 0xFFFFFFFFu, 1, &v), -EINVAL);
	EXPECT_ERR(abb_sim_cfg_write(tb_dev, 0xFFFFFFFEu, 2, 0x1234), -EINVAL);
	EXPECT_ERR(abb_sim_cfg_write(tb_dev, 0xFFFFFFFCu, 4, 0), -EINVAL);
	EXPECT_ERR(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_SIZE, 4, &v), -EINVAL);
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_SIZE - 4, 4, &v), 0);
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_VENDOR, 4, &id), 0);
	CU_ASSERT_EQUAL(id, 0x015310dcu);
	CU_ASSERT(robust_dma_ok());
}

/* ---- 3: pool growth that overflows ---- */

static void test_robust_pool_overflow(void)
{
	abb_daq_pool *p = NULL;
	abb_daq_buf *b;

	CU_ASSERT_EQUAL_FATAL(abb_daq_pool_create(&p, "robust", 4096, 4), 0);
	CU_ASSERT(abb_daq_pool_grow(p, UINT_MAX) < 0);
	CU_ASSERT(abb_daq_pool_grow(p, UINT_MAX - 3) < 0);
	CU_ASSERT_EQUAL(abb_daq_pool_size(p), 4);
	CU_ASSERT_EQUAL(abb_daq_pool_free(p), 4);
	CU_ASSERT_EQUAL(abb_daq_pool_get(p, &b, 0), 0);
	memset(b->data, 1, b->size);
	abb_daq_buf_release(b);
	CU_ASSERT_EQUAL(abb_daq_pool_grow(p, 2), 0);
	CU_ASSERT_EQUAL(abb_daq_pool_size(p), 6);
	CU_ASSERT_EQUAL(abb_daq_pool_destroy(p), 0);
	/* a buffer size that cannot be rounded up to pages */
	p = (abb_daq_pool *)1;
	CU_ASSERT(abb_daq_pool_create(&p, "huge", SIZE_MAX & ~(size_t)3, 1) < 0);
	CU_ASSERT_PTR_NULL(p);
	/* NULL is ignored by ref as by release */
	abb_daq_buf_ref(NULL);
	abb_daq_buf_release(NULL);
}

/* ---- 8: slow links and clocks: accepted values work ---- */

static void slow_case(const char *var, const char *val)
{
	int rc;

	setenv(var, val, 1);
	rc = tb_reopen(NULL);
	if (rc)
		printf("\n    %s=%s: abb_open: %s\n", var, val, abb_last_error());
	CU_ASSERT_EQUAL(rc, 0);
	if (!rc) {
		if (!robust_dma_ok())
			printf("\n    %s=%s: DMA failed\n", var, val);
		CU_ASSERT(no_protocol_errors());
	}
	unsetenv(var);
}

static void test_robust_slow_link_and_clock(void)
{
	slow_case("ABB_SIM_LINK_NS", "25000");
	slow_case("ABB_SIM_LINK_NS", "1000000");
	slow_case("ABB_SIM_CLK_MHZ", "10");
	slow_case("ABB_SIM_CLK_MHZ", "15");
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* ---- 4: the DAQ transport never forgets a running DMA ---- */

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A standalone readout of the event source's FIFO with the source off: the
 * DMA never ends. */
static abb_daq_module *starving_readout(abb_daq_device *d, int64_t timeout_ns)
{
	struct abb_daq_params p;
	abb_daq_module *m = NULL;
	uint32_t addr = 0;

	if (abb_daq_evs_start(d, 0x11, 60, 0, &addr) || abb_daq_evs_stop(d))
		return NULL;
	abb_daq_params_default(&p);
	p.address = addr;
	p.fifo = 1;
	p.buffer_size = 4096;
	p.num_buffers = 4;
	p.timeout_ns = timeout_ns;
	if (abb_daq_readout_create(&m, d, NULL, &p) || abb_daq_module_start(m)) {
		abb_daq_module_destroy(m);
		return NULL;
	}
	return m;
}

/* Timeout=-1: module_stop is bounded (it took the simulator's whole
 * watchdog, and never returned on the model). How the transport loop
 * ended tells it, not how long the stop took: the stop, seen between two
 * slices of the unlimited wait (ABB_DAQ_TIMEOUT, no error, the slices not
 * counted as timeouts), not the watchdog (ABB_DAQ_ERROR). */
static void test_robust_daq_stop_unbounded_timeout(void)
{
	abb_daq_device *d = NULL;
	abb_daq_module *m;
	struct abb_daq_stats st;

	TB_REQUIRE_DEV();
	if (tb_is_sim())
		CU_ASSERT_EQUAL_FATAL(tb_reopen("watchdog_s=20"), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_device_attach(&d, tb_dev, 0), 0);
	m = starving_readout(d, -1);
	CU_ASSERT_PTR_NOT_NULL(m);
	if (m) {
		daq_sleep_us(50000);
		CU_ASSERT_EQUAL(abb_daq_module_stop(m), 0);
		abb_daq_module_stats(m, &st);
		if (st.last != ABB_DAQ_TIMEOUT || st.error)
			printf("\n    module_stop with Timeout=-1: the loop ended with %s, error %d\n",
			       abb_daq_result_name(st.last), st.error);
		CU_ASSERT_EQUAL(st.last, ABB_DAQ_TIMEOUT);
		CU_ASSERT_EQUAL(st.error, 0);
		CU_ASSERT_EQUAL(st.timeouts, 0);
		CU_ASSERT_EQUAL(st.finished, 1);
		abb_daq_module_destroy(m);
	}
	abb_daq_device_close(d);
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_C2H + ABB_CH_STA) & ABB_STA_BUSY, 0);
	CU_ASSERT(robust_dma_ok());
	if (tb_is_sim())
		CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* The simulator's watchdog ends a wait with -ETIME: the transport stops
 * the channel and collects the transfer (it dropped the buffer while
 * libabb still held the channel: the next start got -EBUSY, the pool was
 * freed while mapped and a later map of fresh memory got -EEXIST). */
static void test_robust_daq_watchdog_error(void)
{
	abb_daq_device *d = NULL;
	abb_daq_module *m;
	struct abb_daq_stats st;

	CU_ASSERT_EQUAL_FATAL(tb_reopen("watchdog_s=2"), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_device_attach(&d, tb_dev, 0), 0);
	m = starving_readout(d, 10000000000000ll); /* 10^13 ns: the watchdog ends it */
	CU_ASSERT_PTR_NOT_NULL(m);
	if (m) {
		/* 30 s: a hang guard far above the 2 s watchdog that ends it */
		CU_ASSERT_EQUAL(abb_daq_module_wait(m, 30000), 0);
		abb_daq_module_stats(m, &st);
		CU_ASSERT_EQUAL(st.last, ABB_DAQ_ERROR);
		CU_ASSERT(st.error < 0);
		abb_daq_module_destroy(m);
	}
	abb_daq_device_close(d);
	/* the channel is free and fresh memory maps (the pool's did not stay
	 * mapped behind freed memory) */
	for (int i = 0; i < 4; i++)
		CU_ASSERT(robust_dma_ok());
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* ---- 11, 12: DAQ parameters, pools, buffers ---- */

static void test_robust_daq_params(void)
{
	struct abb_daq_params p, q;
	static const char *const bad[] = {
		"Threads=4294967298", "Standalone=4294967296", "BufferSize=18014398509481984K",
		"BufferSize=18446744073709551615M", "NumBuffers=4294967296", "NumBuffers=-1",
		"Address=-4", "Threads= 2", "Threads=+2", "Threads=2x", "Threads=", "Timeout=--1",
		"Timeout=9223372036854775808", "MaxBuffers=18446744073709551616", "Nope=1",
	};

	abb_daq_params_default(&p);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		q = p;
		if (abb_daq_params_parse(&q, bad[i]) != -EINVAL)
			printf("\n    \"%s\" accepted\n", bad[i]);
		CU_ASSERT_EQUAL(abb_daq_params_parse(&q, bad[i]), -EINVAL);
		CU_ASSERT_EQUAL(memcmp(&q, &p, sizeof p), 0);
	}
	/* all or nothing: the good items before a bad one are not applied */
	q = p;
	CU_ASSERT_EQUAL(abb_daq_params_parse(&q, "NumBuffers=5,QueueLength=9,Threads=x"), -EINVAL);
	CU_ASSERT_EQUAL(memcmp(&q, &p, sizeof p), 0);
	CU_ASSERT_EQUAL(abb_daq_params_parse(&q, "BufferSize=4K,NumBuffers=0x10,Timeout=-1,"
					     "SpinNs=9223372036854775807,Region=1M"), 0);
	CU_ASSERT_EQUAL(q.buffer_size, 4096);
	CU_ASSERT_EQUAL(q.num_buffers, 16);
	CU_ASSERT_EQUAL(q.timeout_ns, -1);
	CU_ASSERT_EQUAL(q.spin_ns, INT64_MAX);
	CU_ASSERT_EQUAL(q.region, 1u << 20);
	/* no signed overflow on the way: exact, or refused (issue 17 finding
	 * 9: past 32 bits, BufferSize is refused; test_daq_params_ranges) */
	CU_ASSERT_EQUAL(abb_daq_params_parse(&q, "BufferSize=9007199254740993K"), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_params_parse(&q, "BufferSize=4194303K"), 0);
	CU_ASSERT_EQUAL(q.buffer_size, (size_t)4194303u * 1024u);
}

/* NumBuffers=1 (a module that could never finish) is refused; a module
 * destroyed while a consumer holds one of its buffers leaves the buffer
 * valid, and the pool goes with its last buffer. */
static void test_robust_daq_modules(void)
{
	struct abb_daq_params p;
	abb_daq_device *d = NULL;
	abb_daq_module *m = NULL;
	abb_daq_pool *pool = NULL;
	abb_daq_buf *b = NULL;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(abb_daq_device_attach(&d, tb_dev, 0), 0);
	abb_daq_params_default(&p);
	p.buffer_size = 4096;
	p.num_buffers = 1;
	CU_ASSERT_EQUAL(abb_daq_readout_create(&m, d, NULL, &p), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_writer_create(&m, d, NULL, &p), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(abb_daq_pool_create(&pool, "one", 4096, 1), 0);
	CU_ASSERT_EQUAL(abb_daq_readout_create(&m, d, pool, &p), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_pool_destroy(pool), 0);
	p.num_buffers = 4;
	p.standalone = 2;
	CU_ASSERT_EQUAL(abb_daq_readout_create(&m, d, NULL, &p), -EINVAL);
	/* a regular readout of BAR1 memory, its consumer keeps one buffer */
	p.standalone = 0;
	p.max_buffers = 3;
	CU_ASSERT_EQUAL_FATAL(abb_daq_readout_create(&m, d, NULL, &p), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(m), 0);
	CU_ASSERT_EQUAL(abb_daq_queue_pop(abb_daq_module_output(m), &b, 10000000000ll), 0);
	CU_ASSERT_EQUAL(abb_daq_module_wait(m, 30000), 0);
	abb_daq_module_destroy(m);
	if (b) {
		memset(b->data, 0x5a, b->size); /* still the consumer's */
		abb_daq_buf_ref(b);
		abb_daq_buf_release(b);
		abb_daq_buf_release(b); /* the last: frees the pool */
	}
	abb_daq_device_close(d);
	CU_ASSERT(robust_dma_ok());
}

/* ---- 5: memory that cannot take DMA ---- */

static void test_robust_map_unusable_memory(void)
{
	size_t pg = tb_page(), len = 4 * pg;
	uint8_t *ro, *none, *gone, *want = malloc(len);
	abb_dmabuf *b = NULL;

	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(want != NULL);
	/* read-only: the device may read it (DMA write), not write it */
	ro = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(ro != MAP_FAILED);
	tb_fill(want, len, 5);
	memcpy(ro, want, len);
	CU_ASSERT_EQUAL_FATAL(mprotect(ro, len, PROT_READ), 0);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, ro, len, &b), 0);
	EXPECT_ERR(abb_dma_read(tb_dev, b, 0, 0, len, 0), -EACCES);
	EXPECT_ERR(abb_dma_read_start(tb_dev, b, 0, 0, 4, ABB_DMA_IRQ), -EACCES);
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, b, 0, 0, len, 0), 0);
	CU_ASSERT(tb_same("read-only buffer", ro, want, len));
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	/* one read-only page inside: no DMA read into any of it */
	CU_ASSERT_EQUAL(mprotect(ro, len, PROT_READ | PROT_WRITE), 0);
	CU_ASSERT_EQUAL(mprotect(ro + 2 * pg, pg, PROT_READ), 0);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, ro, len, &b), 0);
	EXPECT_ERR(abb_dma_read(tb_dev, b, 0, 0, 4, 0), -EACCES);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	munmap(ro, len);
	/* PROT_NONE and unmapped memory are refused at map time */
	none = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(none != MAP_FAILED);
	EXPECT_ERR(abb_dmabuf_map(tb_dev, none, len, &b), -EFAULT);
	CU_ASSERT_PTR_NULL(b);
	munmap(none, len);
	gone = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(gone != MAP_FAILED);
	munmap(gone, len);
	EXPECT_ERR(abb_dmabuf_map(tb_dev, gone, len, &b), -EFAULT);
	/* a range that runs from good memory into a hole */
	gone = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(gone != MAP_FAILED);
	munmap(gone + pg, pg);
	EXPECT_ERR(abb_dmabuf_map(tb_dev, gone, 2 * pg, &b), -EFAULT);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, gone, pg, &b), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	munmap(gone, pg);
	free(want);
	CU_ASSERT(robust_dma_ok());
}

/* ---- 6: stale handles never come back to life ---- */

static void test_robust_stale_handles(void)
{
	size_t len = 4096;
	uint8_t *a = tb_alloc_pages(len), *c = tb_alloc_pages(len);
	abb_dmabuf *stale = NULL, *x = NULL, *live = NULL;
	int same = 0;

	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(a && c);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, a, len, &stale), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(stale), 0);
	for (int i = 0; i < 5000; i++) {
		if (abb_dmabuf_map(tb_dev, c, len, &x)) {
			CU_FAIL("map");
			break;
		}
		same += x == stale;
		if (i < 4999)
			CU_ASSERT_EQUAL(abb_dmabuf_unmap(x), 0);
	}
	live = x;
	CU_ASSERT_EQUAL(same, 0);
	EXPECT_ERR(abb_dma_write(tb_dev, stale, 0, 0, len, 0), -EINVAL);
	EXPECT_ERR(abb_dmabuf_unmap(stale), -EINVAL);
	/* the live buffer is still mapped */
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, live, 0, 0, len, 0), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(live), 0);
	EXPECT_ERR(abb_dmabuf_unmap(live), -EINVAL);
	free(a);
	free(c);
	CU_ASSERT(robust_dma_ok());
}

/* ---- 9: fork() after open on the simulator ---- */

static void test_robust_fork_child_fails_at_once(void)
{
	size_t len = 4096;
	uint8_t *mem;
	abb_dmabuf *b = NULL;
	int status = 0;
	pid_t pid;

	mem = tb_alloc_pages(len);
	CU_ASSERT_FATAL(mem != NULL);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, mem, len, &b), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		uint32_t v;
		abb_dev *d2;
		int bad = 0;

		/* a hang guard far above the milliseconds this takes (before
		 * the fix every call blocked for the 120 s watchdog) */
		alarm(60);
		bad |= abb_reg_read(tb_dev, ABB_REG_VERSION, &v) != -ECHILD;
		bad |= strstr(abb_last_error(), "belongs to the parent process") == NULL;
		bad |= abb_reg_write(tb_dev, ABB_REG_IER, 0) != -ECHILD;
		bad |= abb_dma_read(tb_dev, b, 0, 0, len, 0) != -ECHILD;
		bad |= abb_dma_write(tb_dev, b, 0, 0, len, ABB_DMA_IRQ) != -ECHILD;
		bad |= abb_irq_wait(tb_dev, ABB_IRQ_GEN, 1000) != -ECHILD;
		bad |= abb_sim_advance(tb_dev, 1000) != -ECHILD;
		bad |= abb_open(&d2, "sim") != -ECHILD;
		bad |= strncmp(abb_strerror(-ECHILD), "unknown", 7) == 0;
		abb_close(tb_dev); /* returns, does not touch the parent's board */
		_exit(bad ? 1 : 0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		printf("\n    child: %s %d\n", WIFEXITED(status) ? "exit" : "signal",
		       WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* the parent's board is untouched */
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	CU_ASSERT(robust_dma_ok());
	free(mem);
}

/* ---- 12: error names, the watchdog message, BAR0 ---- */

static void test_robust_strerror_names(void)
{
	/* every negative errno libabb and the DAQ layer return (grep -E in
	 * host/lib and host/daq), and the system calls' the vfio backend passes on */
	static const int errs[] = {
		EINVAL, EIO, ENOMEM, ETIMEDOUT, EBUSY, ERANGE, ENOTSUP, ENODEV, ENOENT,
		ECANCELED, EAGAIN, ETIME, EPIPE, ENXIO, EOVERFLOW, ELIBBAD, EEXIST, ENOSPC,
		EMSGSIZE, EPERM, ENOSYS, ENAMETOOLONG, EINTR, EFAULT, EALREADY, EACCES, E2BIG,
		ECHILD, ENOTTY, EBADF, ESRCH,
	};

	for (size_t i = 0; i < sizeof errs / sizeof errs[0]; i++) {
		const char *s = abb_strerror(-errs[i]);

		if (strncmp(s, "unknown", 7) == 0)
			printf("\n    abb_strerror(%d): %s\n", -errs[i], s);
		CU_ASSERT(strncmp(s, "unknown", 7) != 0);
	}
	CU_ASSERT(strstr(abb_strerror(-EPIPE), "unknown") == NULL);
	CU_ASSERT(strstr(abb_strerror(-ECANCELED), "unknown") == NULL);
	CU_ASSERT(strncmp(abb_strerror(-100000), "unknown", 7) == 0);
}

static void test_robust_watchdog_message(void)
{
	size_t len = 4096, bar1 = 0;
	uint8_t *mem;
	abb_dmabuf *b = NULL;
	int rc;

	mem = tb_alloc_pages(len);
	CU_ASSERT_FATAL(mem != NULL);
	CU_ASSERT_EQUAL_FATAL(tb_reopen("watchdog_s=1"), 0);
	CU_ASSERT_EQUAL(abb_mem_size(tb_dev, &bar1), 0);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, mem, len, &b), 0);
	tb_reg_set(ABB_REG_EVS_CTRL, 0);
	tb_reg_set(ABB_REG_EVS_ADDR, (uint32_t)bar1 - 16);
	CU_ASSERT_EQUAL(abb_dma_read_start(tb_dev, b, 0, (uint32_t)bar1 - 16, len, ABB_DMA_FIXED), 0);
	rc = abb_dma_read_wait(tb_dev, ABB_WAIT_FOREVER);
	CU_ASSERT_EQUAL(rc, -ETIME);
	if (strstr(abb_last_error(), "abb_dma_read_wait: abb_dma_read_wait"))
		printf("\n    %s\n", abb_last_error());
	CU_ASSERT(strstr(abb_last_error(), "abb_dma_read_wait: abb_dma_read_wait") == NULL);
	CU_ASSERT(strstr(abb_last_error(), "watchdog") != NULL);
	/* stop it: however libabb left the channel, it lets go */
	tb_reg_set(ABB_BLK_C2H + ABB_CH_CTRL, (ABB_CTRL_RESET_CODE & ABB_CTRL_RESET) | ABB_CTRL_V |
						  ABB_CTRL_BAR);
	rc = abb_dma_read_wait(tb_dev, 1000000);
	CU_ASSERT(rc == 0 || rc == -EIO || rc == -EINVAL);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	free(mem);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
	CU_ASSERT(robust_dma_ok());
}

/* abb_irq_wait for ever on an idle simulated board (nothing armed: no
 * interrupt can come) ends by the wall-clock watchdog, -ETIME (abb.h rule
 * 4): its own ISR reads are not traffic that keeps it alive. Before, it
 * never returned (the wait limit is off on the simulator), then it ran to
 * the watchdog's 10x cap. Which limit ended the wait is in the message
 * (host/lib/abb_watchdog.c), not in how long it took. */
static void test_robust_irq_wait_watchdog(void)
{
	const char *e;
	int rc;

	CU_ASSERT_EQUAL_FATAL(tb_reopen("watchdog_s=1"), 0);
	rc = abb_irq_wait(tb_dev, ABB_IRQ_GEN, ABB_WAIT_FOREVER);
	e = abb_last_error();
	CU_ASSERT_EQUAL(rc, -ETIME);
	CU_ASSERT(strstr(e, "watchdog") != NULL);
	CU_ASSERT(strstr(e, "no interrupt from source") != NULL);
	/* the no-traffic limit (1 s), not the 10x cap of a busy link */
	if (!strstr(e, "no TLP on the link but the wait's own status reads for 1 s"))
		printf("\n    %s\n", e);
	CU_ASSERT(strstr(e, "no TLP on the link but the wait's own status reads for 1 s") != NULL);
	CU_ASSERT(strstr(e, "although the link is busy") == NULL);
	/* the board works after it */
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
	CU_ASSERT(robust_dma_ok());
}

/* The watchdog stops a wait that sees no link traffic, not a long one that
 * keeps the link busy: a transfer whose wait takes longer than watchdog_s
 * of wall-clock time finishes (testABB's 64 MiB writes on a loaded machine
 * were stopped after 120 s). The size doubles until one wait takes more
 * than 1.5 watchdog periods; a machine too fast for 64 MiB to take that
 * long is reported, the transfers are still checked. */
static void test_robust_watchdog_spares_busy_wait(void)
{
	size_t max = 64u << 20, len, bar1 = 0;
	uint8_t *mem;
	abb_dmabuf *b = NULL;
	double dt = 0;

	mem = tb_alloc_pages(max);
	CU_ASSERT_FATAL(mem != NULL);
	CU_ASSERT_EQUAL_FATAL(tb_reopen("watchdog_s=1"), 0);
	CU_ASSERT_EQUAL(abb_mem_size(tb_dev, &bar1), 0);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, mem, max, &b), 0);
	for (len = 4u << 20; len <= max && dt <= 1.5; len *= 2) {
		double t0 = wall_s();
		int rc = abb_dma_read(tb_dev, b, 0, 0, len, ABB_DMA_FIXED);

		dt = wall_s() - t0;
		if (rc != 0)
			printf("\n    %zu bytes after %.1f s: %s\n", len, dt, abb_last_error());
		CU_ASSERT_EQUAL(rc, 0);
		if (rc != 0)
			break;
	}
	if (dt <= 1.5 && len > max)
		printf("\n    (64 MiB took %.2f s < 1.5 watchdog periods: not a long wait here)\n", dt);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	free(mem);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
	CU_ASSERT(robust_dma_ok());
}

/* BAR0 is the same size on every backend: 64 KiB (the simulator's; the
 * model had 32 KiB). */
static void test_robust_bar0_size(void)
{
	uint32_t v;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, 0xFFFC, &v), 0);
	EXPECT_ERR(abb_reg_read(tb_dev, 0x10000, &v), -EINVAL);
	EXPECT_ERR(abb_reg_write(tb_dev, 0x10000, 0), -EINVAL);
	/* and the model, whatever the suite runs on */
	{
		abb_dev *m = NULL;

		if (abb_open(&m, "model") == 0) {
			CU_ASSERT_EQUAL(abb_reg_read(m, 0xFFFC, &v), 0);
			EXPECT_ERR(abb_reg_read(m, 0x10000, &v), -EINVAL);
			abb_close(m);
		}
	}
}

/* ---- 12: numbers and words of the simulator's and the model's options
 * (one table, one parser for the environment and the URI) ---- */

/* abb_open with variable var=val (NULL: unset) and URI uri; rc wanted;
 * the message names what (if not NULL). */
static void open_case(const char *var, const char *val, const char *uri, int want,
		      const char *what)
{
	abb_dev *d = NULL;
	int rc;

	tb_close();
	if (var)
		setenv(var, val, 1);
	rc = abb_open(&d, uri);
	if (rc != want || (rc && what && !strstr(abb_last_error(), what)))
		printf("\n    %s=\"%s\" %s: rc %d (want %d): %s\n", var ? var : "", val ? val : "",
		       uri, rc, want, abb_last_error());
	CU_ASSERT_EQUAL(rc, want);
	if (rc && what)
		CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), what));
	if (d)
		abb_close(d);
	if (var)
		unsetenv(var);
}

/* hosttime is on (1) or off (0) after opening with ABB_SIM_HOSTTIME=val */
static int hosttime_with(const char *val)
{
	abb_dev *d = NULL;
	int on = -1;

	tb_close();
	setenv("ABB_SIM_HOSTTIME", val, 1);
	if (abb_open(&d, "sim") == 0) {
		on = abb_sim_hosttime(d);
		abb_close(d);
	}
	unsetenv("ABB_SIM_HOSTTIME");
	return on;
}

static void test_robust_sim_options(void)
{
	static const char *const off[] = {"0", "no", "false", "off", "NO", "False"};
	static const char *const on[] = {"1", "yes", "true", "on", "YES"};
	static const char *const bad[] = {"garbage", "-1", "2", " 1", "yes please"};
	int sim = tb_is_sim();

	TB_REQUIRE_DEV();
	/* the model: the same parser */
	open_case(NULL, NULL, "model:mem_size=17592186044417M", -EINVAL, "mem_size");
	open_case("ABB_SIM_MEM_SIZE", "17592186044417M", "model", -EINVAL, "ABB_SIM_MEM_SIZE");
	open_case(NULL, NULL, "model:mem_size=4M,strict=yes,shared_engine=off", 0, NULL);
	open_case(NULL, NULL, "model:mps=256", -EINVAL, "unknown model option");
	open_case(NULL, NULL, "model:shared_engine=2", -EINVAL, "shared_engine");
	if (sim) {
		/* the simulator (loaded whatever the suite's backend) */
		open_case(NULL, NULL, "sim:mem_size=17592186044417M", -EINVAL, "mem_size");
		open_case("ABB_SIM_MEM_SIZE", "17592186044417M", "sim", -EINVAL, "ABB_SIM_MEM_SIZE");
		open_case("ABB_SIM_MEM_SIZE", "4M", "sim", 0, NULL);
		open_case("ABB_SIM_SEED", " -1", "sim", -EINVAL, "ABB_SIM_SEED");
		open_case("ABB_SIM_SEED", "-1", "sim", -EINVAL, "ABB_SIM_SEED");
		open_case(NULL, NULL, "sim:seed=-1", -EINVAL, "seed");
		open_case("ABB_SIM_SEED", "18446744073709551616", "sim", -EINVAL, "ABB_SIM_SEED");
		open_case("ABB_SIM_GEN", "2 ", "sim", -EINVAL, "ABB_SIM_GEN");
		open_case("ABB_SIM_LINK_NS", "4294967496", "sim", -EINVAL, "ABB_SIM_LINK_NS");
		open_case(NULL, NULL, "sim:link_ns=4294967496", -EINVAL, "link_ns");
		/* contiguous / contig: both spellings in both places */
		open_case("ABB_SIM_IOVA", "contig", "sim", 0, NULL);
		open_case("ABB_SIM_IOVA", "contiguous", "sim", 0, NULL);
		open_case(NULL, NULL, "sim:iova=contiguous", 0, NULL);
		open_case(NULL, NULL, "sim:iova=contig", 0, NULL);
		/* the windows by content are URI options as well (libabb hands
		 * them to the simulator at its open): a window needs its file */
		open_case(NULL, NULL, "sim:trace_dma=2", -EINVAL, "trace=");
		open_case(NULL, NULL, "sim:trace_test=regs/x", -EINVAL, "trace=");
		open_case(NULL, NULL, "sim:trace_on_error=100", -EINVAL, "trace=");
		open_case(NULL, NULL, "sim:trace_dma=0", -EINVAL, "trace_dma");
		open_case(NULL, NULL, "sim:trace_dma=3-2", -EINVAL, "trace_dma");
		open_case(NULL, NULL, "sim:trace_dma=2-", -EINVAL, "trace_dma");
		open_case("ABB_TRACE_DMA", "1-x", "sim", -EINVAL, "ABB_TRACE_DMA");
		/* read by abb_open for every backend, from the environment only */
		open_case(NULL, NULL, "sim:wait_limit_ms=5", -EINVAL, "ABB_WAIT_LIMIT_MS");
		open_case("ABB_WAIT_LIMIT_MS", "5x", "sim", -EINVAL, "ABB_WAIT_LIMIT_MS");
		/* traceable: a boolean, as the others */
		open_case(NULL, NULL, "sim:traceable=2", -EINVAL, "traceable");
		open_case("ABB_SIM_TRACEABLE", "maybe", "sim", -EINVAL, "ABB_SIM_TRACEABLE");
		open_case(NULL, NULL, "sim:iova=scattered", -EINVAL, "iova");
		/* strict booleans */
		for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
			CU_ASSERT_EQUAL(hosttime_with(off[i]), 0);
		for (size_t i = 0; i < sizeof on / sizeof on[0]; i++)
			CU_ASSERT_EQUAL(hosttime_with(on[i]), 1);
		for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
			open_case("ABB_SIM_HOSTTIME", bad[i], "sim", -EINVAL, "ABB_SIM_HOSTTIME");
		open_case(NULL, NULL, "sim:hosttime=maybe", -EINVAL, "hosttime");
		open_case(NULL, NULL, "sim:strict=1,msi=0", 0, NULL);
		open_case("ABB_SIM_STRICT", "2", "sim", -EINVAL, "ABB_SIM_STRICT");
	}
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
	CU_ASSERT(robust_dma_ok());
}

/* The table lists every option, with its variable and URI name. */
static void test_robust_option_table(void)
{
	static const char *const names[] = {
		"ABB_SIM_GEN", "ABB_SIM_LANES", "ABB_SIM_MPS", "ABB_SIM_MRRS", "ABB_SIM_RCB",
		"ABB_SIM_CPL", "ABB_SIM_CREDITS", "ABB_SIM_CLK_MHZ", "ABB_SIM_LINK_NS",
		"ABB_SIM_MEM_NS", "ABB_SIM_REORDER", "ABB_SIM_SEED", "ABB_SIM_MEM_SIZE",
		"ABB_SIM_IOVA", "ABB_SIM_WATCHDOG_S", "ABB_SIM_STRICT", "ABB_SIM_MSI", "ABB_SIM_TRACEABLE",
		"ABB_SIM_HOSTTIME", "ABB_TRACE", "ABB_TRACE_FROM", "ABB_TRACE_TO", "ABB_TLP_LOG",
		"`mem_size`", "`hosttime`", "`strict`", "`msi`", "`shared_engine`", "`traceable`",
	};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CU_ASSERT_FATAL(f != NULL);
	CU_ASSERT_EQUAL(abb_sim_options(f, 1), 0);
	fclose(f);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (!strstr(text, names[i]))
			printf("\n    %s is not in the table\n", names[i]);
		CU_ASSERT_PTR_NOT_NULL(strstr(text, names[i]));
	}
	free(text);
	EXPECT_ERR(abb_sim_options(NULL, 0), -EINVAL);
}

/* ---- issue 17 finding 1/13/14 (helper h1): concurrent opens, the last
 * posted writes at close (13, the BAR as programmed: test_cfgspace.c) ---- */

#define OPEN_THREADS 4
#define OPEN_ROUNDS 10

struct open_racer {
	pthread_barrier_t *start;
	abb_dev *dev;
	int rc;
	char msg[256];
};

static void *open_racer_run(void *arg)
{
	struct open_racer *r = arg;

	pthread_barrier_wait(r->start);
	r->rc = abb_open(&r->dev, "sim");
	snprintf(r->msg, sizeof r->msg, "%s", r->rc ? abb_last_error() : "");
	return NULL;
}

/* 1: threads that open "sim" at the same moment with nothing open: exactly
 * one wins, the others get -EBUSY with a message, and the winner's board
 * is intact (a DMA of a random size returns the right bytes). Before the
 * fix every open passed abbsim_open's "open" check before the first
 * marked it open: several returned 0 and reset each other's board. */
static void test_robust_concurrent_open(void)
{
	tb_close();
	for (int round = 0; round < OPEN_ROUNDS; round++) {
		struct open_racer r[OPEN_THREADS];
		pthread_t th[OPEN_THREADS];
		pthread_barrier_t start;
		int won = 0, busy = 0;

		pthread_barrier_init(&start, NULL, OPEN_THREADS);
		for (int i = 0; i < OPEN_THREADS; i++) {
			memset(&r[i], 0, sizeof r[i]);
			r[i].start = &start;
			CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, open_racer_run, &r[i]), 0);
		}
		for (int i = 0; i < OPEN_THREADS; i++)
			pthread_join(th[i], NULL);
		pthread_barrier_destroy(&start);
		tb_dev = NULL;
		for (int i = 0; i < OPEN_THREADS; i++) {
			if (r[i].rc == 0) {
				won++;
				tb_dev = r[i].dev;
			} else if (r[i].rc == -EBUSY && strstr(r[i].msg, "open already")) {
				busy++;
			} else {
				printf("\n    round %d thread %d: %d %s\n", round, i, r[i].rc, r[i].msg);
			}
		}
		if (won != 1 || busy != OPEN_THREADS - 1)
			printf("\n    round %d: %d opens won, %d got -EBUSY\n", round, won, busy);
		CU_ASSERT_EQUAL(won, 1);
		CU_ASSERT_EQUAL(busy, OPEN_THREADS - 1);
		if (won == 1)
			CU_ASSERT(robust_dma_ok());
		for (int i = 0; i < OPEN_THREADS; i++)
			if (r[i].rc == 0)
				abb_close(r[i].dev);
		tb_dev = NULL;
		if (won != 1)
			break;
	}
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* The lines of a TLP log file (NULL if it cannot be read). */
static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *s = NULL;
	size_t n = 0;
	long len;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (len = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		s = malloc((size_t)len + 1);
		if (s)
			n = fread(s, 1, (size_t)len, f);
		if (s)
			s[n] = 0;
	}
	fclose(f);
	return s;
}

/* 14: a DMA read by interrupt, then unmap and close: the acknowledge (the
 * MWr that clears the IER bit) and the Deassert_INTA it causes reach the
 * TLP log before the close tears the board down. Before the fix the log
 * ended with Assert_INTA and the PIO reads of the wait: posted writes still
 * on the link were dropped at close. */
static void test_robust_close_delivers_posted_writes(void)
{
	char path[] = "/tmp/abb-tb-close-XXXXXX", ier[64];
	size_t len = 4096;
	uint8_t *mem = tb_alloc_pages(len);
	abb_dmabuf *b = NULL;
	char *log, *assert_at, *ack, *deassert;
	uint32_t bar0 = 0;
	int fd;

	CU_ASSERT_FATAL(mem != NULL);
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(tb_reopen(NULL), 0);
	CU_ASSERT_EQUAL_FATAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_BAR(0), 4, &bar0), 0);
	snprintf(ier, sizeof ier, "down MWr  req=0000 tag=00 addr=0x%08x ",
		 (bar0 & ~ABBSIM_BAR_FLAGS) + ABB_REG_IER);
	CU_ASSERT_EQUAL_FATAL(abb_sim_tlp_log(tb_dev, path), 0);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, mem, len, &b), 0);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, b, 0, 0, len, ABB_DMA_IRQ), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	tb_close();
	log = read_text(path);
	CU_ASSERT_FATAL(log != NULL);
	assert_at = strstr(log, "Msg Assert_INTA");
	ack = assert_at ? strstr(assert_at, ier) : NULL;
	deassert = ack ? strstr(ack, "Msg Deassert_INTA") : NULL;
	if (!deassert)
		printf("\n    TLP log %s: Assert_INTA %s, then the IER write %s, then Deassert_INTA %s\n",
		       path, assert_at ? "found" : "missing", ack ? "found" : "missing",
		       deassert ? "found" : "missing");
	CU_ASSERT_PTR_NOT_NULL(assert_at);
	CU_ASSERT_PTR_NOT_NULL(ack);
	CU_ASSERT_PTR_NOT_NULL(deassert);
	if (deassert)
		unlink(path);
	free(log);
	free(mem);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
	CU_ASSERT(robust_dma_ok());
}

/* 14: the drain at close is bounded: a link that never gets credits
 * (STARVE for a second) holds a posted write back; close gives up after its
 * device-time cap and says so in the TLP log, and the next open works. */
static void test_robust_close_drain_capped(void)
{
	char path[] = "/tmp/abb-tb-close-XXXXXX";
	struct abb_sim_inject_spec s = {
		.kind = ABB_SIM_INJ_STARVE, .dir = ABB_SIM_DIR_DOWN, .tlp = ABB_SIM_TLP_MWR,
		.tag = -1, .nth = 1, .ns = 1000000000ull,
	};
	char *log;
	int fd;

	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(tb_reopen(NULL), 0);
	CU_ASSERT_EQUAL_FATAL(abb_sim_tlp_log(tb_dev, path), 0);
	CU_ASSERT_FATAL(abb_sim_inject(tb_dev, &s) >= 0);
	CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_IER, ABB_ISR_C2H), 0);
	tb_close();
	log = read_text(path);
	CU_ASSERT_FATAL(log != NULL);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "FAULT STARVE"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "abbsim_close: the link did not drain within"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "down 1 TLPs"));
	CU_ASSERT_PTR_NULL(strstr(log, "down MWr"));
	free(log);
	unlink(path);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
	CU_ASSERT(robust_dma_ok());
}

/* ---- issue 17 findings 3/7/12 ----
 *  3 PIO from other threads while abb_close runs       test_robust_pio_during_close
 *  7 numbers with a leading zero are decimal            test_robust_leading_zero_decimal
 * 12 (vfio: a device that is not an ABB: test_vfio.c, test_vfio_not_an_abb)
 *  3 (stress suite) an abb_close racing another       test_robust_close_racing_close
 *  3 abb_dmabuf_map on a closed device                 test_robust_map_on_closed_device */

#define PIO_THREADS 4
#define PIO_SLICE 256u /* bytes of BAR1 per thread */

struct pio_ctx {
	abb_dev *dev;
	unsigned idx;
	int closed;        /* set by the main thread when abb_close returned */
	unsigned calls;    /* calls made (the main thread waits for some) */
	unsigned bad_rc;   /* a result neither 0 nor -EINVAL */
	unsigned bad_data; /* a call that returned 0 with wrong bytes */
	unsigned no_msg;   /* -EINVAL without a message */
	unsigned ok_after; /* a call after close that returned 0 */
	unsigned einval;
};

/* rc of one PIO call: 0 or -EINVAL (with a message), never 0 after close. */
static void pio_result(struct pio_ctx *c, int rc, int closed)
{
	if (rc == -EINVAL) {
		c->einval++;
		if (!*abb_last_error())
			c->no_msg++;
	} else if (rc != 0) {
		c->bad_rc++;
	} else if (closed) {
		c->ok_after++;
	}
}

/* Registers, board memory (its own slice, checked), device time and, on
 * the simulator, its cycle counter, in a loop until the main thread has
 * closed the device; then a few more calls, all refused. */
static void *pio_worker(void *arg)
{
	struct pio_ctx *c = arg;
	uint8_t out[PIO_SLICE], in[PIO_SLICE];
	uint32_t off = c->idx * PIO_SLICE, v;
	int sim = !strcmp(abb_backend(c->dev), "sim");
	unsigned after = 0;

	for (unsigned i = 0; after < 8; i++) {
		int closed = __atomic_load_n(&c->closed, __ATOMIC_ACQUIRE), rc;
		uint64_t t;

		after += closed;
		switch (i % 5) {
		case 0:
			v = 0;
			rc = abb_reg_read(c->dev, ABB_REG_VERSION, &v);
			if (rc == 0 && v != ABB_VERSION_ID)
				c->bad_data++;
			break;
		case 1:
			rc = abb_reg_write(c->dev, ABB_REG_IGEN_LAT, i);
			break;
		case 2:
			tb_fill(out, sizeof out, i * 8 + c->idx);
			rc = abb_mem_write(c->dev, off, out, sizeof out);
			if (rc == 0) {
				memset(in, 0, sizeof in);
				rc = abb_mem_read(c->dev, off, in, sizeof in);
				if (rc == 0 && memcmp(in, out, sizeof in))
					c->bad_data++;
			}
			break;
		case 3:
			rc = abb_time_ns(c->dev, &t);
			break;
		default:
			rc = sim ? abb_sim_cycles(c->dev, &t) : abb_reg_read(c->dev, ABB_REG_ISR, &v);
			break;
		}
		pio_result(c, rc, closed);
		__atomic_add_fetch(&c->calls, 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Finding 3: PIO is safe from any thread, also while another closes the
 * device: each call returns 0 (right bytes) or -EINVAL with a message, none
 * after abb_close returned succeeds, nothing crashes or hangs. Before the
 * fix: SIGSEGV, glibc's mutex assertion, or a thread blocked for ever on
 * the backend's destroyed lock. */
static void test_robust_pio_during_close(void)
{
	unsigned rounds = tb_is_sim() ? 5 : 200, einval = 0;

	TB_REQUIRE_DEV();
	for (unsigned r = 0; r < rounds; r++) {
		struct pio_ctx ctx[PIO_THREADS];
		pthread_t th[PIO_THREADS];
		unsigned started = 0;
		abb_dev *d;

		CU_ASSERT_EQUAL_FATAL(tb_reopen(NULL), 0);
		d = tb_dev;
		tb_dev = NULL; /* closed below, by this thread, while the others run */
		for (unsigned i = 0; i < PIO_THREADS; i++) {
			ctx[i] = (struct pio_ctx){ .dev = d, .idx = i };
			if (pthread_create(&th[i], NULL, pio_worker, &ctx[i]) == 0)
				started++;
			else
				break;
		}
		CU_ASSERT_EQUAL_FATAL(started, PIO_THREADS);
		/* close in the middle of the traffic: every thread is in its loop */
		for (unsigned i = 0; i < PIO_THREADS; i++)
			while (__atomic_load_n(&ctx[i].calls, __ATOMIC_ACQUIRE) < 3 + r % 17)
				sched_yield();
		abb_close(d);
		for (unsigned i = 0; i < PIO_THREADS; i++)
			__atomic_store_n(&ctx[i].closed, 1, __ATOMIC_RELEASE);
		for (unsigned i = 0; i < PIO_THREADS; i++) {
			struct pio_ctx *c = &ctx[i];

			pthread_join(th[i], NULL);
			if (c->bad_rc || c->bad_data || c->no_msg || c->ok_after)
				printf("\n    round %u thread %u: %u results neither 0 nor -EINVAL, %u "
				       "with wrong bytes, %u -EINVAL without a message, %u calls "
				       "after close succeeded\n", r, i, c->bad_rc, c->bad_data,
				       c->no_msg, c->ok_after);
			CU_ASSERT_EQUAL(c->bad_rc, 0);
			CU_ASSERT_EQUAL(c->bad_data, 0);
			CU_ASSERT_EQUAL(c->no_msg, 0);
			CU_ASSERT_EQUAL(c->ok_after, 0);
			einval += c->einval;
		}
	}
	CU_ASSERT(einval >= rounds * PIO_THREADS * 8); /* the calls after close */
	CU_ASSERT_EQUAL_FATAL(tb_reopen(NULL), 0);
	CU_ASSERT(robust_dma_ok());
}

/* The simulator opened with URI uri and variable var=val (var NULL: none):
 * its link parameters in *out. Returns abb_open's rc. */
static int sim_link_with(const char *var, const char *val, const char *uri,
			 struct abb_sim_link *out)
{
	abb_dev *d = NULL;
	int rc;

	tb_close();
	if (var)
		setenv(var, val, 1);
	rc = abb_open(&d, uri);
	if (rc == 0) {
		rc = abb_sim_link_params(d, out);
		abb_close(d);
	} else {
		printf("\n    %s=%s %s: %s\n", var ? var : "", val ? val : "", uri, abb_last_error());
	}
	if (var)
		unsetenv(var);
	return rc;
}

/* BAR1 bytes of the model opened with URI uri and var=val, or abb_open's
 * rc (negative). */
static long long model_mem_with(const char *var, const char *val, const char *uri)
{
	abb_dev *d = NULL;
	size_t size = 0;
	long long rc;

	if (var)
		setenv(var, val, 1);
	rc = abb_open(&d, uri);
	if (rc == 0) {
		rc = abb_mem_size(d, &size) ? -1 : (long long)size;
		abb_close(d);
	}
	if (var)
		unsetenv(var);
	return rc;
}

/* Finding 7: numbers with a leading zero are decimal, as doc/options.md says
 * (decimal or 0x hex), through the URI and the environment alike. Before
 * the fix strtoull's base 0 read them as octal: sim:link_ns=010 gave 8,
 * model:mem_size=0200000 gave 64K (decimal 200000 is no power of two). */
static void test_robust_leading_zero_decimal(void)
{
	struct abb_sim_link l;
	int sim = tb_is_sim();

	TB_REQUIRE_DEV();
	/* 0200000 is 200000, not a power of two; octal it was 65536 */
	open_case(NULL, NULL, "model:mem_size=0200000", -EINVAL, "mem_size");
	open_case("ABB_SIM_MEM_SIZE", "0200000", "model", -EINVAL, "ABB_SIM_MEM_SIZE");
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "010 is 10"));
	/* 065536 is 65536 (octal 27486, refused) */
	CU_ASSERT_EQUAL(model_mem_with(NULL, NULL, "model:mem_size=065536"), 65536);
	CU_ASSERT_EQUAL(model_mem_with("ABB_SIM_MEM_SIZE", "065536", "model"), 65536);
	CU_ASSERT_EQUAL(model_mem_with("ABB_SIM_MEM_SIZE", "0128K", "model"), 128 * 1024);
	/* hex stays hex; a prefix without digits, a second prefix or a
	 * sign after it are refused */
	CU_ASSERT_EQUAL(model_mem_with(NULL, NULL, "model:mem_size=0x20000"), 0x20000);
	CU_ASSERT_EQUAL(model_mem_with(NULL, NULL, "model:mem_size=0X40K"), 0x40 * 1024);
	open_case(NULL, NULL, "model:mem_size=0x", -EINVAL, "mem_size");
	open_case(NULL, NULL, "model:mem_size=0x0x20000", -EINVAL, "mem_size");
	open_case(NULL, NULL, "model:mem_size=0x-20000", -EINVAL, "mem_size");
	open_case(NULL, NULL, "model:mem_size=0x 20000", -EINVAL, "mem_size");
	open_case(NULL, NULL, "model:mem_size=0x1000000000000000000", -EINVAL, "mem_size");
	if (sim) {
		memset(&l, 0, sizeof l);
		CU_ASSERT_EQUAL(sim_link_with(NULL, NULL, "sim:link_ns=010", &l), 0);
		CU_ASSERT_EQUAL(l.link_ns, 10);
		memset(&l, 0, sizeof l);
		CU_ASSERT_EQUAL(sim_link_with("ABB_SIM_LINK_NS", "010", "sim", &l), 0);
		CU_ASSERT_EQUAL(l.link_ns, 10);
		memset(&l, 0, sizeof l);
		CU_ASSERT_EQUAL(sim_link_with("ABB_SIM_MEM_NS", "0300", "sim:seed=0017", &l), 0);
		CU_ASSERT_EQUAL(l.mem_ns, 300);
		CU_ASSERT_EQUAL(l.seed, 17);
		open_case(NULL, NULL, "sim:mem_size=0200000", -EINVAL, "mem_size");
		open_case("ABB_SIM_MEM_SIZE", "0200000", "sim", -EINVAL, "ABB_SIM_MEM_SIZE");
	}
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
	CU_ASSERT(robust_dma_ok());
}

struct close_ctx {
	abb_dev *dev;
	int rc;
};

static void *irq_waiter(void *arg)
{
	struct close_ctx *c = arg;

	c->rc = abb_irq_wait(c->dev, ABB_IRQ_GEN, ABB_WAIT_FOREVER);
	return NULL;
}

static void *closer(void *arg)
{
	abb_close(((struct close_ctx *)arg)->dev);
	return NULL;
}

/* Found by the stress suite (issue 17): an abb_close racing another one
 * returned at once, while the first still waited for a thread in
 * abb_irq_wait and had not unmapped the buffers yet: a program that freed
 * its buffers after its abb_close returned left them mapped for the
 * device. Now it returns when the first close is done. */
static void test_robust_close_racing_close(void)
{
	uint8_t *mem = tb_alloc_pages(4096);
	struct close_ctx w, c;
	pthread_t tw, tc;
	abb_dmabuf *b = NULL;
	abb_dev *d = NULL;
	uint32_t v;

	TB_REQUIRE_DEV();
	CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
	tb_close();
	CU_ASSERT_EQUAL_FATAL(abb_open(&d, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(d, mem, 4096, &b), 0);
	w = (struct close_ctx){.dev = d};
	c = w;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&tw, NULL, irq_waiter, &w), 0);
	/* the waiter is inside abb_irq_wait when IER shows its bit */
	for (int i = 0; i < 100000; i++) {
		if (abb_reg_read(d, ABB_REG_IER, &v) == 0 && (v & ABB_IRQ_GEN))
			break;
		sched_yield();
	}
	CU_ASSERT_EQUAL_FATAL(pthread_create(&tc, NULL, closer, &c), 0);
	/* the first close began */
	while (abb_reg_read(d, ABB_REG_VERSION, &v) == 0)
		sched_yield();
	abb_close(d); /* the second: returns when the first is done */
	EXPECT_ERR(abb_dmabuf_unmap(b), -EINVAL); /* unmapped by the close */
	pthread_join(tc, NULL);
	pthread_join(tw, NULL);
	CU_ASSERT_EQUAL(w.rc, -ECANCELED);
	free(mem);
	CU_ASSERT_EQUAL_FATAL(tb_reopen(NULL), 0);
	CU_ASSERT(robust_dma_ok());
}

/* abb_dmabuf_map did not check its device: a closed handle reached the
 * backend's map with its state freed. Now -EINVAL with a message, nothing
 * mapped (issue 17 finding 3: map counts as a PIO call). */
static void test_robust_map_on_closed_device(void)
{
	uint8_t *mem = tb_alloc_pages(4096);
	abb_dmabuf *b = NULL;
	abb_dev *d = NULL;

	TB_REQUIRE_DEV();
	CU_ASSERT_PTR_NOT_NULL_FATAL(mem);
	tb_close();
	CU_ASSERT_EQUAL_FATAL(abb_open(&d, NULL), 0);
	abb_close(d);
	EXPECT_ERR(abb_dmabuf_map(d, mem, 4096, &b), -EINVAL);
	CU_ASSERT_PTR_NULL(b);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "not an open device"));
	free(mem);
	CU_ASSERT_EQUAL_FATAL(tb_reopen(NULL), 0);
	CU_ASSERT(robust_dma_ok());
}

static int robust_init(void)
{
	return tb_suite_open();
}

static CU_TestInfo robust_tests[] = {
	{ "test_robust_long_timeouts", test_robust_long_timeouts },
	TB_SIM_TEST(test_robust_cfg_offsets_wrap),
	{ "test_robust_pool_overflow", test_robust_pool_overflow },
	TB_SIM_TEST(test_robust_slow_link_and_clock),
	{ "test_robust_daq_stop_unbounded_timeout", test_robust_daq_stop_unbounded_timeout },
	TB_SIM_TEST(test_robust_daq_watchdog_error),
	{ "test_robust_daq_params", test_robust_daq_params },
	{ "test_robust_daq_modules", test_robust_daq_modules },
	{ "test_robust_map_unusable_memory", test_robust_map_unusable_memory },
	{ "test_robust_stale_handles", test_robust_stale_handles },
	TB_SIM_TEST(test_robust_fork_child_fails_at_once),
	{ "test_robust_strerror_names", test_robust_strerror_names },
	TB_SIM_TEST(test_robust_watchdog_message),
	TB_SIM_TEST(test_robust_irq_wait_watchdog),
	TB_SIM_TEST(test_robust_watchdog_spares_busy_wait),
	TB_EVSRC_TEST(test_robust_bar0_size),
	{ "test_robust_sim_options", test_robust_sim_options },
	{ "test_robust_option_table", test_robust_option_table },
	TB_SIM_TEST(test_robust_concurrent_open),
	TB_SIM_TEST(test_robust_close_delivers_posted_writes),
	TB_SIM_TEST(test_robust_close_drain_capped),
	{ "test_robust_pio_during_close", test_robust_pio_during_close },
	{ "test_robust_leading_zero_decimal", test_robust_leading_zero_decimal },
	{ "test_robust_close_racing_close", test_robust_close_racing_close },
	{ "test_robust_map_on_closed_device", test_robust_map_on_closed_device },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo robust_suites[] = {
	{ "robust", robust_init, tb_suite_close, NULL, NULL, robust_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_robust(void)
{
	return CU_register_suites(robust_suites);
}
