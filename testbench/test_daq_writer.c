/*
 * test_daq_writer.c - the writer module, and both modules together:
 * writer -> board memory -> readout loopback keeps every byte; a readout
 * and a writer run at the same time in their own threads, with one shared
 * pool and with separate pools, with independent channels and with the
 * shared engine; a writer stopped at any moment leaks nothing.
 */
#define _GNU_SOURCE
#include "tb.h"
#include "test_daq.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <abb/abb_regs.h>

#define SRC_ID 0x3cu
#define EV_PAYLOAD 27u  /* odd: rounded up to 28, 32-DW events */
#define POP_TIMEOUT 60000000000ll

static abb_daq_device *dev;

static int writer_init(void)
{
	if (tb_suite_open() < 0)
		return -1;
	return abb_daq_device_attach(&dev, tb_dev, 1) ? -1 : 0;
}

static int writer_cleanup(void)
{
	abb_daq_device_close(dev);
	dev = NULL;
	return tb_suite_close();
}

static uint32_t seed_of(int round, unsigned i)
{
	return 0x1000u * (uint32_t)round + i;
}

/* Writes k buffers into k slots of board memory with a writer, reads them
 * back with a readout, compares. */
static void loopback(int threads, unsigned k, uint32_t len, int round)
{
	struct abb_daq_params p;
	struct abb_daq_stats st;
	abb_daq_module *w, *r;
	abb_daq_buf *b;
	uint8_t *want = malloc(len);
	uint64_t seq = 0;
	unsigned got = 0;
	int ok = 1;

	CU_ASSERT_FATAL(want != NULL);
	abb_daq_params_default(&p);
	p.standalone = 0;
	p.threads = threads;
	p.address = 0x10000;
	p.length = len;
	p.region = k * len;
	p.max_buffers = k;
	p.queue_length = 3;
	p.num_buffers = 6;

	/* host -> board */
	p.buffer_size = len;
	CU_ASSERT_EQUAL_FATAL(abb_daq_writer_create(&w, dev, NULL, &p), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(w), 0);
	for (unsigned i = 0; i < k; i++) {
		CU_ASSERT_EQUAL_FATAL(abb_daq_pool_get(abb_daq_module_pool(w), &b, -1), 0);
		tb_fill(b->data, len, seed_of(round, i));
		b->len = len;
		CU_ASSERT_EQUAL_FATAL(abb_daq_queue_push(abb_daq_module_input(w), b, -1), 0);
	}
	abb_daq_queue_close(abb_daq_module_input(w));
	CU_ASSERT_EQUAL(abb_daq_module_wait(w, 60000), 0);
	abb_daq_module_stats(w, &st);
	CU_ASSERT_EQUAL(st.error, 0);
	CU_ASSERT_EQUAL(st.buffers, k);
	CU_ASSERT_EQUAL(st.bytes, (uint64_t)k * len);
	CU_ASSERT_EQUAL(abb_daq_module_stop(w), 0);
	abb_daq_module_destroy(w);

	/* board -> host */
	p.buffer_size = len + ABB_DAQ_HEADER_BYTES;
	abb_daq_device_cleanup(dev);
	CU_ASSERT_EQUAL_FATAL(abb_daq_readout_create(&r, dev, NULL, &p), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(r), 0);
	while (abb_daq_queue_pop(abb_daq_module_output(r), &b, POP_TIMEOUT) == 0) {
		ok &= daq_check_buffer(b, &seq, 1, NULL);
		tb_fill(want, len, seed_of(round, got));
		if (ok && !tb_same("loopback buffer", (uint8_t *)b->data + ABB_DAQ_HEADER_BYTES,
				   want, len))
			ok = 0;
		got++;
		abb_daq_buf_release(b);
	}
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(got, k);
	abb_daq_module_destroy(r);
	free(want);
}

static void test_daq_writer_loopback(void)
{
	TB_REQUIRE_DEV();
	for (int round = 0; round < 3; round++) {
		loopback(1, 16, 4096, round);
		loopback(2, 16, 4096, round + 10);
	}
	loopback(2, 4, 64 * 1024, 20);
	loopback(1, 64, 1024, 21);
}

/* A readout of the event source (regular, consumer here) and a standalone
 * writer into board memory run at once. */
static void concurrent(int shared_pool, int shared_engine, int threads)
{
	const uint64_t nr = daq_test_buffers(3000), nw = daq_test_buffers(2000);
	struct abb_daq_params pr, pw;
	struct abb_daq_stats sr, sw;
	struct evcheck ev;
	abb_daq_pool *pool = NULL;
	abb_daq_module *r, *w;
	abb_daq_buf *b;
	uint64_t seq = 0, got = 0;
	uint32_t addr = 0, gcr = 0;
	const size_t size = 8192 + ABB_DAQ_HEADER_BYTES;
	int ok = 1;

	CU_ASSERT_EQUAL_FATAL(abb_daq_shared_engine(dev, shared_engine), 0);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_GCR, &gcr), 0);
	CU_ASSERT_EQUAL(!!(gcr & ABB_GCR_SHARED_ENGINE), !!shared_engine);
	CU_ASSERT_EQUAL_FATAL(abb_daq_evs_start(dev, SRC_ID, EV_PAYLOAD, 0, &addr), 0);
	evcheck_init(&ev, SRC_ID, EV_PAYLOAD);
	abb_daq_device_cleanup(dev);
	if (shared_pool)
		CU_ASSERT_EQUAL_FATAL(abb_daq_pool_create(&pool, "shared", size, 16), 0);

	abb_daq_params_default(&pr);
	pr.board = 1;
	pr.buffer_size = size;
	pr.fifo = 1;
	pr.address = addr;
	pr.standalone = 0;
	pr.threads = threads;
	pr.max_buffers = nr;
	abb_daq_params_default(&pw);
	pw.buffer_size = size;
	pw.length = 8192;
	pw.region = 256 * 1024;
	pw.threads = threads;
	pw.max_buffers = nw;
	CU_ASSERT_EQUAL_FATAL(abb_daq_readout_create(&r, dev, pool, &pr), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_writer_create(&w, dev, pool, &pw), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(r), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(w), 0);
	while (abb_daq_queue_pop(abb_daq_module_output(r), &b, POP_TIMEOUT) == 0) {
		if (ok && !daq_check_buffer(b, &seq, 1, &ev))
			ok = 0;
		got++;
		abb_daq_buf_release(b);
	}
	CU_ASSERT_EQUAL(abb_daq_module_wait(w, 120000), 0);
	abb_daq_module_stats(r, &sr);
	abb_daq_module_stats(w, &sw);
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(got, nr);
	CU_ASSERT_EQUAL(ev.errors, 0);
	CU_ASSERT_EQUAL(sr.error, 0);
	CU_ASSERT_EQUAL(sw.error, 0);
	CU_ASSERT_EQUAL(sw.buffers, nw);
	CU_ASSERT_EQUAL(abb_daq_module_stop(r), 0);
	CU_ASSERT_EQUAL(abb_daq_module_stop(w), 0);
	if (pool) {
		CU_ASSERT_EQUAL(abb_daq_pool_free(pool), 16);
	} else {
		CU_ASSERT_EQUAL(abb_daq_pool_free(abb_daq_module_pool(r)),
				abb_daq_pool_size(abb_daq_module_pool(r)));
		CU_ASSERT_EQUAL(abb_daq_pool_free(abb_daq_module_pool(w)),
				abb_daq_pool_size(abb_daq_module_pool(w)));
	}
	abb_daq_module_destroy(r);
	abb_daq_module_destroy(w);
	if (pool) {
		CU_ASSERT_EQUAL(abb_daq_device_unmap_pool(dev, pool), 0);
		CU_ASSERT_EQUAL(abb_daq_pool_destroy(pool), 0);
	}
	CU_ASSERT_EQUAL(abb_daq_evs_stop(dev), 0);
	CU_ASSERT_EQUAL(abb_daq_shared_engine(dev, 0), 0);
	if (!ok)
		printf("\n    %s\n", ev.first);
}

static void test_daq_concurrent_shared_pool(void)
{
	TB_REQUIRE_DEV();
	concurrent(1, 0, 2);
	concurrent(1, 1, 2);
	concurrent(1, 0, 1);
}

static void test_daq_concurrent_separate_pools(void)
{
	TB_REQUIRE_DEV();
	concurrent(0, 0, 2);
	concurrent(0, 1, 2);
	concurrent(0, 1, 1);
}

/* Writers stopped while running: standalone after a while, regular with a
 * producer that still has buffers queued. */
static void test_daq_writer_stop_at_any_moment(void)
{
	struct abb_daq_params p;
	abb_daq_module *w;
	abb_daq_pool *pool;
	abb_daq_buf *b;

	TB_REQUIRE_DEV();
	for (int threads = 1; threads <= 2; threads++) {
		for (unsigned wait_us = 0; wait_us <= 3000; wait_us += 1500) {
			abb_daq_params_default(&p);
			p.threads = threads;
			p.buffer_size = 32768;
			CU_ASSERT_EQUAL_FATAL(abb_daq_writer_create(&w, dev, NULL, &p), 0);
			pool = abb_daq_module_pool(w);
			CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(w), 0);
			daq_sleep_us(wait_us);
			CU_ASSERT_EQUAL(abb_daq_module_stop(w), 0);
			CU_ASSERT_EQUAL(abb_daq_pool_free(pool), abb_daq_pool_size(pool));
			abb_daq_module_destroy(w);
		}
		/* regular: the producer fills the input, then the module stops */
		abb_daq_params_default(&p);
		p.threads = threads;
		p.standalone = 0;
		p.buffer_size = 16384;
		p.queue_length = 4;
		CU_ASSERT_EQUAL_FATAL(abb_daq_writer_create(&w, dev, NULL, &p), 0);
		pool = abb_daq_module_pool(w);
		CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(w), 0);
		for (int i = 0; i < 6; i++) {
			if (abb_daq_pool_get(pool, &b, 1000000000) != 0)
				break;
			b->len = 16384;
			if (abb_daq_queue_push(abb_daq_module_input(w), b, 1000000000) != 0) {
				abb_daq_buf_release(b);
				break;
			}
		}
		CU_ASSERT_EQUAL(abb_daq_module_stop(w), 0);
		/* the input is closed now: a producer learns it at its next push */
		CU_ASSERT_EQUAL(abb_daq_pool_get(pool, &b, 0), 0);
		CU_ASSERT_EQUAL(abb_daq_queue_push(abb_daq_module_input(w), b, 0), -EPIPE);
		abb_daq_buf_release(b);
		abb_daq_module_destroy(w); /* releases what is still queued */
	}
	{
		uint32_t sta = tb_reg(ABB_BLK_H2C + ABB_CH_STA);

		CU_ASSERT_NOT_EQUAL(sta & (ABB_STA_DONE | ABB_STA_BUSY), ABB_STA_BUSY);
	}
}

/* A standalone writer ends by itself after MaxBuffers, in both thread
 * modes, also when its pool is small (regression: the two-thread writer's
 * module thread waited forever for a buffer that sat in the closed queue). */
static void test_daq_writer_standalone_max_buffers(void)
{
	struct abb_daq_params p;
	struct abb_daq_stats st;
	abb_daq_module *w;

	TB_REQUIRE_DEV();
	for (int threads = 1; threads <= 2; threads++) {
		for (unsigned nbuf = 2; nbuf <= 8; nbuf *= 2) {
			abb_daq_params_default(&p);
			p.threads = threads;
			p.buffer_size = 1024;
			p.num_buffers = nbuf;
			p.queue_length = 4;
			p.max_buffers = 500;
			CU_ASSERT_EQUAL_FATAL(abb_daq_writer_create(&w, dev, NULL, &p), 0);
			CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(w), 0);
			CU_ASSERT_EQUAL(abb_daq_module_wait(w, 60000), 0);
			abb_daq_module_stats(w, &st);
			CU_ASSERT_EQUAL(st.buffers, 500);
			CU_ASSERT_EQUAL(st.error, 0);
			CU_ASSERT_EQUAL(abb_daq_module_stop(w), 0);
			CU_ASSERT_EQUAL(abb_daq_pool_free(abb_daq_module_pool(w)), nbuf);
			abb_daq_module_destroy(w);
		}
	}
}

/* Issue 17, finding 10: a writer started again after abb_daq_module_stop
 * writes on (the two-thread writer's hand-over queue stayed closed: it
 * ended at once, its input refused every buffer). Three runs of k
 * buffers, MaxBuffers=k each (a new run counts from 0): each run fills
 * the k board slots from Address in order with its own data. */
static void writer_restart(int threads)
{
	const unsigned k = 12;
	const uint32_t len = 2048, base = 0x20000;
	struct abb_daq_params p;
	struct abb_daq_stats st;
	abb_daq_module *w;
	abb_daq_buf *b;
	uint8_t *want = malloc(len), *got = malloc(len);

	CU_ASSERT_FATAL(want != NULL && got != NULL);
	abb_daq_params_default(&p);
	p.standalone = 0;
	p.threads = threads;
	p.address = base;
	p.length = len;
	p.region = k * len;
	p.max_buffers = k;
	p.buffer_size = len;
	p.num_buffers = 4;
	p.queue_length = 2;
	CU_ASSERT_EQUAL_FATAL(abb_daq_writer_create(&w, dev, NULL, &p), 0);
	for (int run = 0; run < 3; run++) {
		unsigned pushed = 0, bad = 0;

		CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(w), 0);
		for (unsigned i = 0; i < k; i++) {
			if (abb_daq_pool_get(abb_daq_module_pool(w), &b, 10000000000ll))
				break;
			tb_fill(b->data, len, seed_of(30 + run, i));
			b->len = len;
			if (abb_daq_queue_push(abb_daq_module_input(w), b, 10000000000ll)) {
				abb_daq_buf_release(b);
				break;
			}
			pushed++;
		}
		if (pushed < k)
			printf("\n    run %d of a %d-thread writer took %u buffers\n", run, threads,
			       pushed);
		CU_ASSERT_EQUAL(pushed, k);
		CU_ASSERT_EQUAL(abb_daq_module_wait(w, 60000), 0);
		abb_daq_module_stats(w, &st);
		CU_ASSERT_EQUAL(st.buffers, k); /* this run's */
		CU_ASSERT_EQUAL(st.error, 0);
		CU_ASSERT_EQUAL(st.last, ABB_DAQ_EOS);
		CU_ASSERT_EQUAL(abb_daq_module_stop(w), 0);
		for (unsigned i = 0; i < k; i++) {
			tb_fill(want, len, seed_of(30 + run, i));
			CU_ASSERT_EQUAL_FATAL(abb_mem_read(tb_dev, base + i * len, got, len), 0);
			bad += memcmp(want, got, len) != 0;
		}
		if (bad)
			printf("\n    run %d of a %d-thread writer: %u of %u slots wrong\n", run,
			       threads, bad, k);
		CU_ASSERT_EQUAL(bad, 0);
	}
	CU_ASSERT_EQUAL(abb_daq_pool_free(abb_daq_module_pool(w)), 4);
	abb_daq_module_destroy(w);
	free(want);
	free(got);
}

static void test_daq_writer_restart(void)
{
	TB_REQUIRE_DEV();
	writer_restart(1);
	writer_restart(2);
}

static CU_TestInfo daq_writer_tests[] = {
	{ "test_daq_writer_standalone_max_buffers", test_daq_writer_standalone_max_buffers },
	{ "test_daq_writer_loopback", test_daq_writer_loopback },
	{ "test_daq_concurrent_shared_pool", test_daq_concurrent_shared_pool },
	{ "test_daq_concurrent_separate_pools", test_daq_concurrent_separate_pools },
	{ "test_daq_writer_stop_at_any_moment", test_daq_writer_stop_at_any_moment },
	{ "test_daq_writer_restart", test_daq_writer_restart },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo daq_writer_suite[] = {
	{ "daq_writer", writer_init, writer_cleanup, NULL, NULL, daq_writer_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_daq_writer(void)
{
	return CU_register_suites(daq_writer_suite);
}
