/*
 * test_dma_ctl.c - suite "dma_ctl": a DMA channel's controller
 * (rtl-model/abb_dma_ctl.sv: the channel's register block, the start
 * check, the descriptor chain with the prefetch of the next descriptor,
 * the drain after a reset, the error report, the shared engine), driven
 * by register writes and the simulator's fault injection in corners the
 * library's own call sequences never reach:
 *  - bus mastering disabled: a DMA fails with GER.BUS_MASTER, nothing moves;
 *  - GCR.SOFT_RESET during a transfer: the wait reports it stopped;
 *  - a chain's data read failing while the next descriptor's fetch is
 *    outstanding: the channel drains the fetch, then reports the error;
 *  - shared engine: a DMA read started while a DMA write runs waits for it;
 *  - STA is read-only;
 *  - a channel reset while a chain runs with a descriptor prefetched: the
 *    drain ends, the channel works;
 *  - a descriptor fetch whose completion is malformed (short) or poisoned:
 *    the chain ends in an error after its first piece.
 * The last three were written for RTL mutants that survived the rest of
 * the bench (testbench/MUTATION.md names each one's mutant). Simulation
 * only.
 */
#define _GNU_SOURCE
#include "tb.h"
#include "tb_tlplog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>
#include <abbsim_cfg.h>

#define HOSTLEN  (64u * 1024u)

/* The suite's buffer: HOSTLEN bytes at host, mapped as map. */
static uint8_t *host;
static abb_dmabuf *map;

static int dma_ctl_init(void)
{
	if (tb_suite_open() < 0)
		return -1;
	host = tb_alloc_pages(HOSTLEN);
	if (!host || abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) < 0)
		return -1;
	return 0;
}

static int dma_ctl_cleanup(void)
{
	if (map && tb_dev)
		(void)abb_dmabuf_unmap(map);
	map = NULL;
	free(host);
	host = NULL;
	tb_tlplog_remove();
	return tb_suite_close();
}

/* Reopens the suite's device with sim_opts (tb_reopen): the suite's buffer
 * is unmapped first (a reopen would leave its handle stale) and, if
 * map_after, mapped again on the new device. */
static void dma_ctl_reopen(const char *sim_opts, int map_after)
{
	if (map)
		CU_ASSERT_EQUAL(abb_dmabuf_unmap(map), 0);
	map = NULL;
	CU_ASSERT_FATAL(tb_reopen(sim_opts) == 0);
	if (map_after)
		CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) == 0);
}

/* The soft reset (clears GER, idles both channels), then GER must be 0. */
static void soft_reset(void)
{
	CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_GCR, ABB_GCR_SOFT_RESET), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER), 0);
}

/* A DMA write and read of len bytes through libabb: the right bytes. */
static void dma_round_trip(size_t len, uint32_t board, uint32_t seed)
{
	static uint8_t want[HOSTLEN];
	int rc;

	tb_fill(want, len, seed);
	memcpy(host, want, len);
	rc = abb_dma_write(tb_dev, map, 0, board, len, 0);
	if (rc)
		printf("\n    DMA write: %s\n", abb_last_error());
	CU_ASSERT_EQUAL(rc, 0);
	memset(host, 0, len);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, map, 0, board, len, 0), 0);
	CU_ASSERT(tb_same("DMA round trip", host, want, len));
}

/* Bus mastering off (Command.BME 0): a DMA either way fails with
 * GER.BUS_MASTER, moves no byte; on again, DMA works. */
static void test_dma_ctl_bus_master_disabled(void)
{
	static uint8_t b[4096], pat[4096];
	uint32_t cmd = 0;
	int rc;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_COMMAND, 2, &cmd), 0);
	CU_ASSERT_FATAL(cmd & ABBSIM_CMD_MASTER);
	memset(pat, 0x3c, sizeof pat);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0x30000, pat, sizeof pat), 0);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_COMMAND, 2, cmd & ~ABBSIM_CMD_MASTER), 0);

	tb_fill(host, sizeof b, 811);
	rc = abb_dma_write(tb_dev, map, 0, 0x30000, sizeof b, 0);
	CU_ASSERT_EQUAL(rc, -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "bus mastering disabled"));
	memset(host, 0xee, sizeof b);
	rc = abb_dma_read(tb_dev, map, 0, 0x30000, sizeof b, 0);
	CU_ASSERT_EQUAL(rc, -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "bus mastering disabled"));
	CU_ASSERT(tb_all_byte("host buffer after a DMA read without bus mastering", host, sizeof b,
			      0xee));
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0x30000, b, sizeof b), 0);
	CU_ASSERT(tb_same("board after a DMA write without bus mastering", b, pat, sizeof b));

	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_COMMAND, 2, cmd), 0);
	soft_reset();
	dma_round_trip(sizeof b, 0x30000, 812);
}

/* GCR.SOFT_RESET while a transfer runs (each channel): the wait returns
 * -EIO "stopped before it was done", the channel is free again. */
static void test_dma_ctl_soft_reset_mid_transfer(void)
{
	TB_REQUIRE_DEV();
	for (int dir = 0; dir < 2; dir++) {
		uint32_t blk = dir ? ABB_BLK_C2H : ABB_BLK_H2C;
		int rc;

		CU_ASSERT_EQUAL_FATAL(dir ? abb_dma_read_start(tb_dev, map, 0, 0, HOSTLEN, 0)
					  : abb_dma_write_start(tb_dev, map, 0, 0, HOSTLEN, 0), 0);
		CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 3000), 0);
		CU_ASSERT_EQUAL(tb_reg(blk + ABB_CH_STA) & ABB_STA_BUSY, ABB_STA_BUSY);
		tb_reg_set(ABB_REG_GCR, ABB_GCR_SOFT_RESET);
		rc = dir ? abb_dma_read_wait(tb_dev, 1000000000) : abb_dma_write_wait(tb_dev, 1000000000);
		if (rc != -EIO)
			printf("\n    wait after a soft reset: rc %d: %s\n", rc, abb_last_error());
		CU_ASSERT_EQUAL(rc, -EIO);
		CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "stopped before it was done"));
		CU_ASSERT_EQUAL(tb_reg(blk + ABB_CH_STA), 0);
		CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER), 0);
		/* Known issue: after the soft reset STA reads 0 while the channel
		 * still drains its outstanding reads (StDrain), and a DMA started
		 * then is ignored (libabb reports it stopped). Seen with
		 * ABB_SIM_MPS=256 ABB_SIM_MRRS=1024; give the drain 50 us. */
		CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 50000), 0);
	}
	dma_round_trip(8192, 0x40000, 901);
}

static struct abb_sim_inject_spec rule(unsigned kind, int tag, uint64_t ns)
{
	struct abb_sim_inject_spec s;

	memset(&s, 0, sizeof s);
	s.kind = kind;
	s.dir = ABB_SIM_DIR_DOWN;
	s.tlp = ABB_SIM_TLP_CPL;
	s.tag = tag;
	s.nth = 1;
	s.ns = ns;
	return s;
}

/* A chain (every page its own IOVA: one descriptor per page): the first
 * descriptor's data read fails (UR) while the fetch of the next descriptor
 * (tag 0x81) is held back 8 us. The channel waits for that fetch before it
 * reports the error (no completion arrives for a channel already idle:
 * no unexpected-completion error), then works again. */
static void test_dma_ctl_chain_error_drains_fetch(void)
{
	struct abb_sim_inject_spec late = rule(ABB_SIM_INJ_DELAY, 0x81, 8000);
	struct abb_sim_inject_spec ur = rule(ABB_SIM_INJ_UR, 0, 0);
	uint64_t t0 = 0, t1 = 0;
	uint32_t ger;
	int id_late, id_ur, rc;

	TB_REQUIRE_DEV();
	dma_ctl_reopen("iova=scatter", 1);

	id_late = abb_sim_inject(tb_dev, &late);
	id_ur = abb_sim_inject(tb_dev, &ur);
	CU_ASSERT_FATAL(id_late >= 0 && id_ur >= 0);
	tb_fill(host, 3 * 4096, 1001);
	CU_ASSERT_EQUAL(abb_time_ns(tb_dev, &t0), 0);
	rc = abb_dma_write(tb_dev, map, 0, 0x20000, 3 * 4096, 0);
	CU_ASSERT_EQUAL(abb_time_ns(tb_dev, &t1), 0);
	CU_ASSERT_EQUAL(rc, -EIO);
	CU_ASSERT_EQUAL(abb_sim_inject_hits(tb_dev, id_late), 1);
	CU_ASSERT_EQUAL(abb_sim_inject_hits(tb_dev, id_ur), 1);
	CU_ASSERT(t1 - t0 >= 8000); /* the error waited for the held-back fetch */
	ger = (uint32_t)strtoul(strstr(abb_last_error(), "GER 0x") ? strstr(abb_last_error(), "GER 0x") + 6
								    : "0", NULL, 16);
	CU_ASSERT_EQUAL(ger & (ABB_GER_CPL_ERR | ABB_GER_CPL_TAG), ABB_GER_CPL_ERR);
	CU_ASSERT_EQUAL(abb_sim_inject_clear(tb_dev), 0);
	soft_reset();
	dma_round_trip(3 * 4096, 0x20000, 1002);

	dma_ctl_reopen(NULL, 1);
}

/* 1 unless the simulator maps every page at its own IOVA (descriptor
 * chains, fetches in the TLP log). */
static int contiguous(void)
{
	struct abb_sim_link l;

	return abb_sim_link_params(tb_dev, &l) == 0 && !l.iova_scatter;
}

/* GCR.SHARED_ENGINE: a DMA read started while a DMA write runs waits for
 * it: its first data write goes up after the write's last read request. */
static void test_dma_ctl_shared_engine_read_waits(void)
{
	static uint8_t want[16384], back[16384];
	int last_mrd = 0, first_mwr = 0;

	TB_REQUIRE_DEV();
	tb_fill(want, sizeof want, 1201);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0x70000, want, sizeof want), 0);
	tb_fill(host + 32768, sizeof back, 1202);
	memset(host, 0, sizeof want);
	tb_reg_set(ABB_REG_GCR, ABB_GCR_SHARED_ENGINE);
	tb_tlplog_start();
	CU_ASSERT_EQUAL(abb_dma_write_start(tb_dev, map, 32768, 0x78000, sizeof back, 0), 0);
	CU_ASSERT_EQUAL(abb_dma_read_start(tb_dev, map, 0, 0x70000, sizeof want, 0), 0);
	CU_ASSERT_EQUAL(abb_dma_write_wait(tb_dev, ABB_WAIT_FOREVER), 0);
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, ABB_WAIT_FOREVER), 0);
	tb_tlplog_stop();
	tb_reg_set(ABB_REG_GCR, 0);
	CU_ASSERT(tb_same("DMA read under the shared engine", host, want, sizeof want));
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0x78000, back, sizeof back), 0);
	CU_ASSERT(tb_same("DMA write under the shared engine", back, host + 32768, sizeof back));
	/* contiguous memory (no descriptor fetches), no interrupt: every MRd
	 * up is a data read of the write, every MWr up a data write of the read */
	if (!contiguous()) {
		tb_skip_part("the order is not checked with iova=scatter (descriptor fetches)");
		return;
	}
	CU_ASSERT(tb_tlplog_lines(" up   MRd", NULL, NULL, &last_mrd) >= 4);
	CU_ASSERT(tb_tlplog_lines(" up   MWr", NULL, &first_mwr, NULL) >= 4);
	if (!(first_mwr > last_mrd))
		printf("\n    first DMA-read data write at log line %d, last DMA-write read at %d\n",
		       first_mwr, last_mrd);
	CU_ASSERT(first_mwr > last_mrd);
}

/* A channel's STA is read-only: a write to it while the channel is idle
 * changes no register of the block. */
static void test_dma_ctl_sta_read_only(void)
{
	static const uint32_t blk[2] = {ABB_BLK_H2C, ABB_BLK_C2H};

	TB_REQUIRE_DEV();
	for (int c = 0; c < 2; c++) {
		uint32_t before[9], after;

		tb_reg_set(blk[c] + ABB_CH_CTRL, ABB_CTRL_RESET_CODE | ABB_CTRL_V | ABB_CTRL_BAR);
		tb_reg_set(blk[c] + ABB_CH_PAL, 0x1230 + (uint32_t)c);
		tb_reg_set(blk[c] + ABB_CH_LENG, 0x40);
		for (int r = 0; r < 9; r++)
			before[r] = tb_reg(blk[c] + 4u * (uint32_t)r);
		tb_reg_set(blk[c] + ABB_CH_STA, 0xffffffffu);
		for (int r = 0; r < 9; r++) {
			after = tb_reg(blk[c] + 4u * (uint32_t)r);
			if (after != before[r])
				printf("\n    channel %d register 0x%02x: 0x%08x, was 0x%08x\n", c, 4 * r,
				       after, before[r]);
			CU_ASSERT_EQUAL(after, before[r]);
		}
		CU_ASSERT_EQUAL(before[ABB_CH_PAL / 4], 0x1230u + (uint32_t)c);
		CU_ASSERT_EQUAL(before[ABB_CH_STA / 4], 0);
	}
}

/* ---- descriptor chains over scattered pages ---- */

#define CHAIN_PIECE 4096u     /* bytes of a chain's piece: one page */
#define CHAIN_BOARD 0x10000u  /* the chain's board address */

/* A C2H chain over scattered pages (iova=scatter: one descriptor per
 * page): the board holds want (tb_fill seed) at CHAIN_BOARD, host is
 * mapped as buf. The device is opened anew for it (the suite's buffer
 * unmapped): the chain is the first mapping. chain_close unmaps, frees,
 * reopens the suite's device and maps the suite's buffer again. */
struct chain {
	size_t len;
	uint8_t *host, *want;
	abb_dmabuf *buf;
};

static void chain_open(struct chain *c, unsigned seed)
{
	c->len = 4 * CHAIN_PIECE;
	c->buf = NULL;
	dma_ctl_reopen("iova=scatter", 0);
	c->host = tb_alloc_pages(c->len);
	c->want = malloc(c->len);
	CU_ASSERT_FATAL(c->host && c->want);
	CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, c->host, c->len, &c->buf) == 0);
	tb_fill(c->want, c->len, seed);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, CHAIN_BOARD, c->want, c->len), 0);
}

static void chain_close(struct chain *c)
{
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(c->buf), 0);
	free(c->host);
	free(c->want);
	dma_ctl_reopen(NULL, 1);
}

/* Kills a channel whose drain after a reset waits for the prefetch unit to
 * be idle only (abb_dma_ctl.sv StDrain: `fst_q == FIdle || fst_q == FDone
 * || fst_q == FErr` -> `... FDone && fst_q == FErr`; MUTATION.md m014).
 * A channel reset (CTRL = RESET code) while a chain runs sends the channel
 * to StDrain, which must end once the mover is idle and the prefetch of the
 * next descriptor has come back (FDone) or failed (FErr): nothing else ever
 * takes the prefetch unit out of those states, so a drain that waits for
 * FIdle never ends, STA stays BUSY and the channel is lost until a hot
 * reset. The library resets a channel only before a start (then nothing is
 * prefetched); here a host resets a running C2H chain (every page its own
 * IOVA: one descriptor per page, the next one prefetched while the current
 * page moves) at RESET_POINTS moments, and after each the channel must
 * read not busy within 10 us and then move a whole chain intact. */
#define RESET_POINTS 8
static void test_dma_ctl_reset_during_prefetched_chain(void)
{
	struct chain c;
	uint32_t sta = 0;
	int k, i, rc;

	chain_open(&c, 7u);
	for (k = 0; k < RESET_POINTS; k++) {
		CU_ASSERT_EQUAL_FATAL(abb_dma_read_start(tb_dev, c.buf, 0, CHAIN_BOARD, c.len, 0), 0);
		CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 300 + 400 * k), 0);
		CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_BLK_C2H + ABB_CH_CTRL,
					      (ABB_CTRL_RESET_CODE & ABB_CTRL_RESET) | ABB_CTRL_V |
					      ABB_CTRL_BAR), 0);
		for (i = 0; i < 100; i++) {
			CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_BLK_C2H + ABB_CH_STA, &sta), 0);
			if (!(sta & ABB_STA_BUSY))
				break;
			CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 100), 0);
		}
		if (sta & ABB_STA_BUSY)
			printf("\n    reset %d ns into the chain: STA 0x%08x after 10 us\n", 300 + 400 * k, sta);
		CU_ASSERT_EQUAL(sta & ABB_STA_BUSY, 0);
		rc = abb_dma_read_wait(tb_dev, 1000000); /* collects it (stopped by the reset, or done) */
		(void)rc;
		memset(c.host, 0, c.len);
		rc = abb_dma_read(tb_dev, c.buf, 0, CHAIN_BOARD, c.len, 0);
		if (rc != 0)
			printf("\n    reset %d ns into the chain, the next DMA: %s\n", 300 + 400 * k, abb_last_error());
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT(tb_same("a chain after a reset of a running chain", c.host, c.want, c.len));
		if (rc != 0)
			break;
	}
	chain_close(&c);
}

/* A C2H chain whose 1st completion to the board (the fetch of descriptor
 * 2: a C2H chain, every page its own IOVA, has only descriptor fetches as
 * completions to the board) gets the fault `kind`: the chain ends in -EIO
 * with exactly the GER causes `want_ger` after its first piece, and no
 * byte of the later pieces reaches the host. */
static void fetch_fault(unsigned kind, uint32_t want_ger, unsigned seed)
{
	struct abb_sim_inject_spec s;
	struct chain c;
	uint32_t ger;
	int id, rc;

	chain_open(&c, seed);
	/* a clean chain first: the fetch registers hold a valid descriptor */
	memset(c.host, 0, c.len);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, c.buf, 0, CHAIN_BOARD, c.len, 0), 0);
	CU_ASSERT(tb_same("a clean chain", c.host, c.want, c.len));
	memset(c.host, 0xa5, c.len);
	memset(&s, 0, sizeof s);
	s.kind = kind;
	s.dir = ABB_SIM_DIR_DOWN;
	s.tlp = ABB_SIM_TLP_CPL;
	s.tag = -1;
	s.nth = 1;
	id = abb_sim_inject(tb_dev, &s);
	CU_ASSERT_FATAL(id >= 0);
	rc = abb_dma_read(tb_dev, c.buf, 0, CHAIN_BOARD, c.len, 0);
	CU_ASSERT_EQUAL(abb_sim_inject_hits(tb_dev, id), 1);
	CU_ASSERT_EQUAL(abb_sim_inject_clear(tb_dev), 0);
	ger = 0; /* the causes the library read before it reset the channel */
	if (strstr(abb_last_error(), "GER 0x"))
		ger = (uint32_t)strtoul(strstr(abb_last_error(), "GER 0x") + 4, NULL, 16);
	if (rc != -EIO || ger != want_ger)
		printf("\n    rc %d GER 0x%08x: %s\n", rc, ger, abb_last_error());
	CU_ASSERT_EQUAL(rc, -EIO);
	CU_ASSERT_EQUAL(ger, want_ger);
	CU_ASSERT(tb_same("the first piece of the chain", c.host, c.want, CHAIN_PIECE));
	CU_ASSERT(tb_all_byte("the pieces after the faulty descriptor", c.host + CHAIN_PIECE,
			      c.len - CHAIN_PIECE, 0xa5));
	CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_GCR, ABB_GCR_SOFT_RESET), 0);
	chain_close(&c);
}

/* Kills a descriptor fetch that ends before its 8th DW (abb_dma_ctl.sv:
 * `fdw_q + {2'b00, cpl_dw_i} >= 8` -> `{2'b01, cpl_dw_i}`; MUTATION.md
 * m031: the fetch ends at the last beat of a completion that brings the
 * count to 4 or more). A descriptor (32 bytes, 32-byte aligned) comes in
 * one completion, whose last beat is the 8th DW, unless the completion is
 * malformed: with a Length 2 DWs short of its payload the RX ends it after
 * 6 DWs (and drops the last beat, BAD_TLP). The board must not take those
 * 6 DWs as a descriptor (its length and control words did not come): the
 * fetch waits for the rest, the completion timeout ends the chain with an
 * error after its first piece, and no byte of the later pieces reaches
 * the host. The mutant runs the next piece with stale length/control. */
static void test_dma_ctl_short_descriptor_completion(void)
{
	fetch_fault(ABB_SIM_INJ_MALFORMED, ABB_GER_BAD_TLP | ABB_GER_CPL_ERR | ABB_GER_CPL_TIMEOUT,
		    11u);
}

/* A descriptor fetch whose one completion is poisoned: the chain ends in
 * -EIO with GER.POISONED and CPL_ERR after its first piece, and nothing
 * of the later pieces reaches the host. Written for m014 of the
 * field-width draw (abb_dma_ctl.sv `cpl_poison_i && !fpois_q` ->
 * `&& fpois_q`), which it does not kill: GER.POISONED still comes out
 * right with that mutant (why is not analysed yet, testbench/MUTATION.md). */
static void test_dma_ctl_poisoned_descriptor_fetch(void)
{
	fetch_fault(ABB_SIM_INJ_POISON, ABB_GER_POISONED | ABB_GER_CPL_ERR, 13u);
}

static CU_TestInfo dma_ctl_tests[] = {
	TB_SIM_TEST(test_dma_ctl_bus_master_disabled),
	TB_SIM_TEST(test_dma_ctl_soft_reset_mid_transfer),
	TB_SIM_TEST(test_dma_ctl_chain_error_drains_fetch),
	TB_SIM_TEST(test_dma_ctl_shared_engine_read_waits),
	TB_SIM_TEST(test_dma_ctl_sta_read_only),
	TB_SIM_TEST(test_dma_ctl_reset_during_prefetched_chain),
	TB_SIM_TEST(test_dma_ctl_short_descriptor_completion),
	TB_SIM_TEST(test_dma_ctl_poisoned_descriptor_fetch),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo dma_ctl_suite[] = {
	{"dma_ctl", dma_ctl_init, dma_ctl_cleanup, NULL, NULL, dma_ctl_tests},
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_dma_ctl(void)
{
	return CU_register_suites(dma_ctl_suite);
}
