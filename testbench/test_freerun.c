/*
 * test_freerun.c - the simulator's free-running clock (clock=free,
 * sim/platform_freerun.cpp) and the board's bus number (board=N): a board
 * that runs while its host does something else, several boards that
 * discovery tells apart.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tb.h"

#include <CUnit/CUnit.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>
#include <abb/abb_vfio.h>

/* The event source's FIFO: 2^11 64-bit words (abb_evsrc.sv, DepthBits). */
#define FIFO_DWS 4096u

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Starts the event source (60 payload DWs, no gap: faster than the link
 * drains), sleeps ms of wall time without a device call, reads what the
 * source did meanwhile. */
static int evs_unwatched(const char *opts, long ms, uint32_t *level, uint32_t *stalls,
			 uint64_t *dt_ns)
{
	uint64_t t0, t1;

	if (tb_reopen(opts))
		return -1;
	tb_reg_set(ABB_REG_EVS_CTRL, ABB_EVS_CTRL_CLEAR);
	tb_reg_set(ABB_REG_EVS_SIZE, 60);
	tb_reg_set(ABB_REG_EVS_GAP, 0);
	tb_reg_set(ABB_REG_EVS_CTRL, ABB_EVS_CTRL_ENABLE);
	if (abb_time_ns(tb_dev, &t0))
		return -1;
	sleep_ms(ms);
	*level = tb_reg(ABB_REG_EVS_LEVEL);
	*stalls = tb_reg(ABB_REG_EVS_STALLS);
	if (abb_time_ns(tb_dev, &t1))
		return -1;
	tb_reg_set(ABB_REG_EVS_CTRL, 0);
	*dt_ns = t1 - t0;
	return 0;
}

/* Free-running: the board fills its FIFO and stalls its front end while
 * the host sleeps; lockstep: device time stood still meanwhile, the FIFO
 * holds what the few register accesses' device time let the source write. */
static void test_freerun_board_runs_while_host_sleeps(void)
{
	uint32_t lvl_free, st_free, lvl_lock, st_lock;
	uint64_t dt_free, dt_lock;

	CU_ASSERT_EQUAL_FATAL(evs_unwatched("clock=free", 100, &lvl_free, &st_free, &dt_free), 0);
	CU_ASSERT_EQUAL_FATAL(evs_unwatched("clock=lockstep", 100, &lvl_lock, &st_lock, &dt_lock), 0);
	printf("\n    100 ms asleep: free-running %llu ns of device time, FIFO %u DWs, %u stall "
	       "cycles; lockstep %llu ns, %u DWs, %u ",
	       (unsigned long long)dt_free, lvl_free, st_free, (unsigned long long)dt_lock, lvl_lock,
	       st_lock);
	CU_ASSERT_EQUAL(lvl_free, FIFO_DWS);
	/* the source stalled from the moment the FIFO was full (16 KiB at the
	 * link's rate: some microseconds) to the end, skipped cycles counted */
	CU_ASSERT(st_free > 0);
	CU_ASSERT((uint64_t)st_free * 8 <= dt_free);
	CU_ASSERT((uint64_t)st_free * 8 >= dt_free / 2);
	CU_ASSERT(lvl_lock < FIFO_DWS);
	CU_ASSERT_EQUAL(st_lock, 0);
	CU_ASSERT(dt_free > dt_lock);
	tb_reopen(NULL);
}

/* A DMA from the FIFO on a free-running board: the data is the source's
 * event stream from event 0 on, in order (nothing lost while it stalled). */
static void test_freerun_fifo_dma_in_order(void)
{
	enum { LEN = 64 * 1024, EV_DWS = 64 };
	uint32_t *buf = aligned_alloc(4096, LEN);
	abb_dmabuf *db = NULL;
	size_t mem;
	int bad = 0;

	CU_ASSERT_FATAL(buf != NULL);
	memset(buf, 0, LEN);
	CU_ASSERT_EQUAL_FATAL(tb_reopen("clock=free"), 0);
	CU_ASSERT_EQUAL_FATAL(abb_mem_size(tb_dev, &mem), 0);
	tb_reg_set(ABB_REG_EVS_CTRL, ABB_EVS_CTRL_CLEAR);
	tb_reg_set(ABB_REG_EVS_SRC, 0x42);
	tb_reg_set(ABB_REG_EVS_SIZE, EV_DWS - 4);
	tb_reg_set(ABB_REG_EVS_GAP, 0);
	tb_reg_set(ABB_REG_EVS_ADDR, (uint32_t)(mem - 16));
	tb_reg_set(ABB_REG_EVS_CTRL, ABB_EVS_CTRL_ENABLE);
	sleep_ms(20); /* the FIFO fills and the source stalls */
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, buf, LEN, &db), 0);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, db, 0, (uint32_t)(mem - 16), LEN,
				     ABB_DMA_FIXED), 0);
	for (uint32_t e = 0; e < LEN / 4 / EV_DWS && !bad; e++) {
		const uint32_t *ev = buf + e * EV_DWS;
		if ((ev[0] & ABB_EVS_HDR_MAGIC) != ABB_EVS_MAGIC || ev[1] != e ||
		    ev[2] != 0x42 || ev[3] != ~e) {
			printf("\n    event %u: %08x %08x %08x %08x ", e, ev[0], ev[1], ev[2], ev[3]);
			bad = 1;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT(tb_reg(ABB_REG_EVS_STALLS) > 0);
	tb_reg_set(ABB_REG_EVS_CTRL, 0);
	abb_dmabuf_unmap(db);
	free(buf);
	tb_reopen(NULL);
}

/* board=N puts the endpoint on bus N: discovery finds 0000:0N:00.0. */
static void test_freerun_board_bus_number(void)
{
	char path[64], bdf[32] = "";
	int fd, rc;

	CU_ASSERT_EQUAL_FATAL(tb_reopen("board=3"), 0);
	snprintf(path, sizeof path, "/tmp/abb-tb-cfg-XXXXXX");
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL(abb_sim_cfg_dump(tb_dev, path), 0);
	rc = abb_vfio_find(NULL, path, bdf, sizeof bdf);
	CU_ASSERT_EQUAL(rc, 1);
	CU_ASSERT_STRING_EQUAL(bdf, "0000:03:00.0");
	unlink(path);
	/* out of range: a clear refusal */
	tb_close();
	CU_ASSERT_NOT_EQUAL(tb_open("board=0"), 0);
	CU_ASSERT(strstr(abb_last_error(), "board") != NULL);
	CU_ASSERT_NOT_EQUAL(tb_open("board=256"), 0);
	CU_ASSERT_NOT_EQUAL(tb_open("clock=fast"), 0);
	CU_ASSERT(strstr(abb_last_error(), "lockstep") != NULL);
	tb_reopen(NULL);
}

static CU_TestInfo freerun_tests[] = {
	TB_SIM_TEST(test_freerun_board_runs_while_host_sleeps),
	TB_SIM_TEST(test_freerun_fifo_dma_in_order),
	TB_SIM_TEST(test_freerun_board_bus_number),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo freerun_suite[] = {
	{ "freerun", tb_suite_open, tb_suite_close, NULL, NULL, freerun_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_freerun(void)
{
	return CU_register_suites(freerun_suite);
}
