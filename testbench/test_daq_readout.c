/*
 * test_daq_readout.c - the readout module on the front-end event source:
 * a long chain to a consumer with every event-stream DW checked (no loss,
 * duplicate or reordering; header counter continuity), a slow consumer that
 * throttles the readout, and stops at any moment (no leaked buffer, no
 * hang), in one- and two-thread operation.
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

#define SRC_ID 0x5au
#define EV_PAYLOAD 60u         /* DWs: 64-DW events, not aligned to buffers */
#define POP_TIMEOUT 60000000000ll /* wall ns a consumer waits for one buffer */

static abb_daq_device *dev;

static int readout_init(void)
{
	if (tb_suite_open() < 0)
		return -1;
	return abb_daq_device_attach(&dev, tb_dev, 2) ? -1 : 0;
}

static int readout_cleanup(void)
{
	abb_daq_device_close(dev);
	dev = NULL;
	return tb_suite_close();
}

static void fifo_params(struct abb_daq_params *p, uint32_t addr, int threads, size_t bufsize)
{
	abb_daq_params_default(p);
	p->board = 2;
	p->address = addr;
	p->fifo = 1;
	p->standalone = 0;
	p->threads = threads;
	p->buffer_size = bufsize;
	p->num_buffers = 8;
	p->queue_length = 4;
}

/* Reads nbuf buffers of events with payload DWs from the event source
 * through a regular readout into this thread, checking each; delay_us per
 * buffer makes a slow consumer. */
static void chain_events(int threads, uint64_t nbuf, size_t bufsize, unsigned delay_us,
			 unsigned payload)
{
	struct abb_daq_params p;
	struct abb_daq_stats st;
	struct evcheck ev;
	abb_daq_module *m;
	abb_daq_buf *b;
	uint64_t seq = 0, got = 0, lag, max_lag = 0;
	uint32_t addr = 0, stalls0 = 0, stalls1 = 0;
	int ok = 1, rc;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(abb_daq_evs_start(dev, SRC_ID, payload, 0, &addr), 0);
	evcheck_init(&ev, SRC_ID, payload);
	fifo_params(&p, addr, threads, bufsize);
	p.max_buffers = nbuf;
	abb_daq_device_cleanup(dev); /* event counter from 0 */
	CU_ASSERT_EQUAL_FATAL(abb_daq_readout_create(&m, dev, NULL, &p), 0);
	(void)!abb_reg_read(tb_dev, ABB_REG_EVS_STALLS, &stalls0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(m), 0);
	while ((rc = abb_daq_queue_pop(abb_daq_module_output(m), &b, POP_TIMEOUT)) == 0) {
		if (ok && !daq_check_buffer(b, &seq, 2, &ev))
			ok = 0;
		got++;
		abb_daq_buf_release(b);
		if (delay_us) {
			daq_sleep_us(delay_us);
			abb_daq_module_stats(m, &st);
			lag = st.buffers - got;
			if (lag > max_lag)
				max_lag = lag;
		}
	}
	CU_ASSERT_EQUAL(rc, -EPIPE); /* end of stream, not a timeout */
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(got, nbuf);
	CU_ASSERT_EQUAL(ev.errors, 0);
	CU_ASSERT_EQUAL(ev.dws, nbuf * (bufsize - ABB_DAQ_HEADER_BYTES) / 4);
	CU_ASSERT_EQUAL(abb_daq_module_wait(m, 10000), 0);
	abb_daq_module_stats(m, &st);
	CU_ASSERT_EQUAL(st.error, 0);
	CU_ASSERT_EQUAL(st.buffers, nbuf);
	CU_ASSERT_EQUAL(st.last, ABB_DAQ_EOS);
	if (delay_us) {
		/* back-pressure: the readout never ran ahead of the consumer by
		 * more than the output queue plus the buffer being pushed */
		if (max_lag > p.queue_length + 1)
			printf("\n    readout ran %" PRIu64 " buffers ahead\n", max_lag);
		CU_ASSERT(max_lag <= p.queue_length + 1);
		if (tb_is_sim()) {
			/* and the front end had to wait: its FIFO was full */
			(void)!abb_reg_read(tb_dev, ABB_REG_EVS_STALLS, &stalls1);
			CU_ASSERT(stalls1 > stalls0);
		}
	}
	CU_ASSERT_EQUAL(abb_daq_module_stop(m), 0);
	CU_ASSERT_EQUAL(abb_daq_pool_free(abb_daq_module_pool(m)),
			abb_daq_pool_size(abb_daq_module_pool(m)));
	abb_daq_module_destroy(m);
	CU_ASSERT_EQUAL(abb_daq_evs_stop(dev), 0);
	if (!ok || ev.errors)
		printf("\n    %s\n", ev.first);
}


static void chain(int threads, uint64_t nbuf, size_t bufsize, unsigned delay_us)
{
	chain_events(threads, nbuf, bufsize, delay_us, EV_PAYLOAD);
}

/* The largest events (EVS_SIZE 4092..4095: up to 4100 DWs with the header)
 * arrive whole and counted: the event source's position counter once had
 * 12 bits and wrapped inside such an event (a header again at DW 4096, the
 * event counter never advanced). */
static void test_daq_readout_largest_events(void)
{
	for (unsigned payload = 4092; payload <= 4095; payload++)
		chain_events(2, 12, 8192 + ABB_DAQ_HEADER_BYTES, 0, payload);
}
static void test_daq_readout_chain_100k_two_threads(void)
{
	chain(2, daq_test_buffers(100000), 1024, 0);
}

static void test_daq_readout_chain_one_thread(void)
{
	chain(1, daq_test_buffers(20000), 1024, 0);
}

static void test_daq_readout_chain_large_buffers(void)
{
	chain(2, daq_test_buffers(200), 64 * 1024 + ABB_DAQ_HEADER_BYTES, 0);
}

static void test_daq_readout_slow_consumer_throttles(void)
{
	chain(2, daq_test_buffers(300), 8192, 300);
	chain(1, daq_test_buffers(150), 8192, 300);
}

/* Starts a regular readout, takes `take` buffers, optionally switches the
 * event source off (a DMA then waits for data that never comes), stops the
 * module and checks that every buffer is back and nothing hangs. */
static void stop_midway(int threads, unsigned take, int starve, int standalone)
{
	struct abb_daq_params p;
	abb_daq_module *m;
	abb_daq_pool *pool;
	abb_daq_buf *b, *held[64];
	uint64_t seq = 0;
	uint32_t addr = 0;
	unsigned n = 0;
	int ok = 1;

	CU_ASSERT_EQUAL_FATAL(abb_daq_evs_start(dev, SRC_ID, EV_PAYLOAD, 0, &addr), 0);
	fifo_params(&p, addr, threads, 4096);
	p.standalone = standalone;
	p.timeout_ns = 200000;
	abb_daq_device_cleanup(dev);
	CU_ASSERT_EQUAL_FATAL(abb_daq_readout_create(&m, dev, NULL, &p), 0);
	pool = abb_daq_module_pool(m);
	CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(m), 0);
	if (standalone) {
		daq_sleep_us(take * 100);
	} else {
		/* keep a few buffers, as a consumer in the middle of its work */
		while (n < take && abb_daq_queue_pop(abb_daq_module_output(m), &b,
						     POP_TIMEOUT) == 0) {
			ok &= daq_check_buffer(b, &seq, 2, NULL);
			if (n < 4)
				held[n] = b;
			else
				abb_daq_buf_release(b);
			n++;
		}
	}
	if (starve) {
		CU_ASSERT_EQUAL(abb_daq_evs_stop(dev), 0);
		daq_sleep_us(2000);
	}
	CU_ASSERT_EQUAL(abb_daq_module_stop(m), 0);
	CU_ASSERT(ok);
	/* what is left in the output can still be taken, then end of stream */
	if (!standalone) {
		while (abb_daq_queue_pop(abb_daq_module_output(m), &b, 0) == 0)
			abb_daq_buf_release(b);
		CU_ASSERT_EQUAL(abb_daq_queue_pop(abb_daq_module_output(m), &b, 0), -EPIPE);
	}
	for (unsigned i = 0; i < n && i < 4; i++)
		abb_daq_buf_release(held[i]);
	CU_ASSERT_EQUAL(abb_daq_pool_free(pool), abb_daq_pool_size(pool));
	abb_daq_module_destroy(m);
	(void)!abb_daq_evs_stop(dev);
	/* the channel is usable again */
	{
		uint32_t sta = tb_reg(ABB_BLK_C2H + ABB_CH_STA);

		CU_ASSERT_NOT_EQUAL(sta & (ABB_STA_DONE | ABB_STA_BUSY), ABB_STA_BUSY);
	}
}

static void test_daq_readout_stop_at_any_moment(void)
{
	TB_REQUIRE_DEV();
	for (int threads = 1; threads <= 2; threads++) {
		stop_midway(threads, 0, 0, 0);
		stop_midway(threads, 1, 0, 0);
		stop_midway(threads, 3, 0, 0);
		stop_midway(threads, 40, 0, 0);
		stop_midway(threads, 5, 1, 0); /* a DMA waits for an empty FIFO */
		stop_midway(threads, 0, 1, 0);
		stop_midway(threads, 20, 0, 1); /* standalone, stopped after ~2 ms */
		stop_midway(threads, 10, 1, 1);
	}
}

/* Issue 17, finding 10: a module started again after abb_daq_module_stop
 * reads on. The two-thread module's hand-over queue stayed closed: the
 * second start returned 0, the module ended at once and moved nothing.
 * Each run moves buffers whose header counters follow one another; the
 * second run's first counter comes after the first run's last (the
 * device's counter goes on; buffers dropped by the stop leave a gap). */
static void restart(int threads)
{
	struct abb_daq_params p;
	struct abb_daq_stats st;
	abb_daq_module *m;
	abb_daq_buf *b;
	uint64_t seq = 0, last = 0;
	uint32_t addr = 0;
	int ok = 1, rc;

	CU_ASSERT_EQUAL_FATAL(abb_daq_evs_start(dev, SRC_ID, EV_PAYLOAD, 0, &addr), 0);
	fifo_params(&p, addr, threads, 2048);
	abb_daq_device_cleanup(dev);
	CU_ASSERT_EQUAL_FATAL(abb_daq_readout_create(&m, dev, NULL, &p), 0);
	for (int run = 0; run < 3; run++) {
		unsigned got = 0;

		CU_ASSERT_EQUAL_FATAL(abb_daq_module_start(m), 0);
		while (got < 40 &&
		       (rc = abb_daq_queue_pop(abb_daq_module_output(m), &b, POP_TIMEOUT)) == 0) {
			const struct abb_daq_evhdr *h = b->data;

			if (got == 0) {
				/* after the last run's: the counter went on */
				if (run > 0 && h->event_counter <= last) {
					printf("\n    run %d began at event %" PRIu64 ", after %" PRIu64
					       "\n", run, h->event_counter, last);
					ok = 0;
				}
				seq = h->event_counter;
			}
			ok &= daq_check_buffer(b, &seq, 2, NULL);
			abb_daq_buf_release(b);
			got++;
		}
		if (got < 40)
			printf("\n    run %d of a %d-thread readout: %u buffers\n", run, threads, got);
		CU_ASSERT_EQUAL(got, 40);
		abb_daq_module_stats(m, &st);
		CU_ASSERT(st.buffers >= 40); /* this run's */
		CU_ASSERT_EQUAL(st.error, 0);
		CU_ASSERT_EQUAL(abb_daq_module_stop(m), 0);
		/* what the run left in the output, then its end */
		while (abb_daq_queue_pop(abb_daq_module_output(m), &b, 0) == 0) {
			ok &= daq_check_buffer(b, &seq, 2, NULL);
			abb_daq_buf_release(b);
		}
		CU_ASSERT_EQUAL(abb_daq_queue_pop(abb_daq_module_output(m), &b, 0), -EPIPE);
		last = seq - 1;
	}
	CU_ASSERT(ok);
	CU_ASSERT_EQUAL(abb_daq_pool_free(abb_daq_module_pool(m)),
			abb_daq_pool_size(abb_daq_module_pool(m)));
	abb_daq_module_destroy(m);
	CU_ASSERT_EQUAL(abb_daq_evs_stop(dev), 0);
}

static void test_daq_readout_restart(void)
{
	TB_REQUIRE_DEV();
	restart(1);
	restart(2);
}

static CU_TestInfo daq_readout_tests[] = {
	{ "test_daq_readout_chain_100k_two_threads", test_daq_readout_chain_100k_two_threads },
	{ "test_daq_readout_chain_one_thread", test_daq_readout_chain_one_thread },
	{ "test_daq_readout_chain_large_buffers", test_daq_readout_chain_large_buffers },
	{ "test_daq_readout_slow_consumer_throttles", test_daq_readout_slow_consumer_throttles },
	{ "test_daq_readout_stop_at_any_moment", test_daq_readout_stop_at_any_moment },
	{ "test_daq_readout_restart", test_daq_readout_restart },
	{ "test_daq_readout_largest_events", test_daq_readout_largest_events },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo daq_readout_suite[] = {
	{ "daq_readout", readout_init, readout_cleanup, NULL, NULL, daq_readout_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_daq_readout(void)
{
	return CU_register_suites(daq_readout_suite);
}
