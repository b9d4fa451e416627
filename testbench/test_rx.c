/*
 * test_rx.c - suite "rx": the board's receiver of downstream TLPs
 * (rtl-model/abb_rx.sv, the parser between the link and the register
 * block, board memory, the PIO completer and the DMA engine), seen from
 * the host in corners the library's own call sequences never reach:
 *  - a reset that cuts the completion stream in the middle of a TLP: the
 *    parser starts clean (registers, GER, DMA both ways);
 *  - BAR0 takes one-DW requests only: a burst write of 4 DWs is dropped
 *    whole (GER.BAD_TLP, no register written, the next TLPs parsed); a
 *    64-bit read gets UR (all-ones, -EIO), a 64-bit write is dropped.
 * The first two were written for RTL mutants that survived the rest of the
 * bench (testbench/MUTATION.md names each one's mutant). Each drives the
 * board through register writes, the simulator's fault injection or its
 * raw MMIO (tb_sim: the simulator's C interface). Simulation only.
 */
#define _GNU_SOURCE
#include "tb.h"
#include "tb_simlib.h"
#include "tb_tlplog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#define RX_LEN   4096u     /* bytes of the transfer */
#define RX_BOARD 0x10000u  /* its board address */

static int rx_cleanup(void)
{
	tb_tlplog_remove();
	return tb_suite_close();
}

/* Kills an RX parser that takes a header beat in StHdr0 on rx_sop_i alone
 * (abb_rx.sv: `beat && rx_sop_i` -> `beat || rx_sop_i`; MUTATION.md m003).
 * rx_sop_i keeps the value of the last beat the hard block presented, and
 * a TLP's last beat never has sop, so only a reset that cuts a TLP after
 * its first beat leaves sop high with valid low: the parser would then
 * take the stale beat for a new header and misparse what follows. A link
 * down fired by the k-th completion of a DMA write (the host's completions
 * stream to the board) cuts the stream at k = 1..RX_CUTS different points;
 * (the window is narrow: on this RTL cut 23 of them hits it)
 * after each the board must answer register reads with their reset values,
 * record no error, and move a DMA both ways intact. */
#define RX_CUTS 48
static void test_rx_reset_cuts_stream(void)
{
	uint8_t *host, *want;
	abb_dmabuf *buf = NULL;
	uint32_t v;
	int k, rc;

	host = tb_alloc_pages(4 * RX_LEN);
	want = malloc(RX_LEN);
	CU_ASSERT_FATAL(host && want);
	CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, host, 4 * RX_LEN, &buf) == 0);
	for (k = 1; k <= RX_CUTS; k++) {
		struct abb_sim_inject_spec s;
		int id;

		memset(&s, 0, sizeof s);
		s.kind = ABB_SIM_INJ_LINK_DOWN;
		s.dir = ABB_SIM_DIR_DOWN;
		s.tlp = ABB_SIM_TLP_CPL;
		s.tag = -1;
		s.nth = (unsigned)k;
		s.ns = 2000;
		tb_fill(host, 4 * RX_LEN, (uint32_t)k);
		id = abb_sim_inject(tb_dev, &s);
		CU_ASSERT_FATAL(id >= 0);
		rc = abb_dma_write(tb_dev, buf, 0, RX_BOARD, 4 * RX_LEN, 0);
		CU_ASSERT_NOT_EQUAL(rc, 0); /* cut by the link down */
		CU_ASSERT_EQUAL(abb_sim_inject_hits(tb_dev, id), 1);
		CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 10000), 0);
		CU_ASSERT_EQUAL(abb_sim_inject_clear(tb_dev), 0);
		/* the channel stayed claimed (it could not be reset while the link
		 * was down): the wait collects it (stopped by the reset) */
		rc = abb_dma_write_wait(tb_dev, 1000000);
		(void)rc;
		v = 0;
		rc = abb_reg_read(tb_dev, ABB_REG_VERSION, &v);
		if (rc != 0 || v != ABB_REG_VERSION_RESET)
			printf("\n    cut %d: VERSION rc %d value 0x%08x: %s\n", k, rc, v, abb_last_error());
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(v, ABB_REG_VERSION_RESET);
		v = ~0u;
		CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_GER, &v), 0);
		if (v != 0)
			printf("\n    cut %d: GER 0x%08x after the reset\n", k, v);
		CU_ASSERT_EQUAL(v, 0);
		/* both channels work again */
		CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_GCR, ABB_GCR_SOFT_RESET), 0);
		tb_fill(want, RX_LEN, 100u + (uint32_t)k);
		memcpy(host, want, RX_LEN);
		CU_ASSERT_EQUAL(abb_dma_write(tb_dev, buf, 0, RX_BOARD, RX_LEN, 0), 0);
		memset(host, 0, RX_LEN);
		CU_ASSERT_EQUAL(abb_dma_read(tb_dev, buf, 0, RX_BOARD, RX_LEN, 0), 0);
		if (!tb_same("data after the cut", host, want, RX_LEN)) {
			printf("    cut %d\n", k);
			CU_FAIL("data after the cut");
		}
	}
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(buf), 0);
	free(host);
	free(want);
}

/* Kills an RX parser that leaves StDrop at the next beat instead of at the
 * dropped TLP's last one (abb_rx.sv: StDrop's `beat && rx_eop_i` ->
 * `beat || rx_eop_i`; MUTATION.md m022). A TLP is dropped with two or more
 * beats still to come only if it is a memory write of 3 DWs or more to
 * BAR0 (registers take 1-DW writes; the malformed-TLP fault leaves exactly
 * one beat): the library never sends one, the simulator's own MMIO call
 * (abbsim_mmio_write, one TLP of up to 128 bytes) does. The board must drop
 * it whole: GER.BAD_TLP, no register written, the next TLPs parsed (the
 * mutant parses the rest as a new TLP, which the RX assertion "beat
 * without sop" stops in the test build; at the pins the two drop it alike). */
static void test_rx_bar0_burst_write_dropped(void)
{
	const struct abbsim_api *sim = tb_sim();
	uint32_t words[4] = {0x5, 0xffffffffu, 0x12345678u, 0x9abcdef0u};
	uint32_t ier = 0, ger = 0, v = 0;

	if (!sim)
		return;
	CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_GCR, ABB_GCR_SOFT_RESET), 0);
	CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_IER, 0), 0);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_GER, &ger), 0);
	CU_ASSERT_EQUAL(ger, 0);
	/* one MWr of 4 DWs at IER (0x10 .. 0x1f: IER, GER's neighbours) */
	CU_ASSERT_EQUAL(sim->mmio_write(0, ABB_REG_IER, words, sizeof words), 0);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_VERSION, &v), 0);
	CU_ASSERT_EQUAL(v, ABB_REG_VERSION_RESET);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_IER, &ier), 0);
	CU_ASSERT_EQUAL(ier, 0);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_GER, &ger), 0);
	CU_ASSERT_EQUAL(ger, ABB_GER_BAD_TLP);
	/* and single-DW writes still land */
	CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_IER, 0x4), 0);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_IER, &ier), 0);
	CU_ASSERT_EQUAL(ier, 0x4);
	CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_IER, 0), 0);
	CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_GCR, ABB_GCR_SOFT_RESET), 0);
}

/* 64-bit accesses to the register BAR: a BAR0 request must be one DW.
 * The read is answered with a completion without data, status UR (the
 * host reads all-ones, -EIO); the write is dropped (GER.BAD_TLP) and the
 * register keeps its value. */
static void test_rx_bar0_wide_access(void)
{
	const struct abbsim_api *sim;
	__typeof__(abbsim_mmio_read) *rd;
	__typeof__(abbsim_mmio_write) *wr;
	uint32_t v[2] = {0, 0}, w[2] = {0x7, 0x7};

	TB_REQUIRE_DEV();
	sim = tb_sim();
	if (!sim)
		return;
	rd = sim->mmio_read;
	wr = sim->mmio_write;
	tb_reg_set(ABB_REG_IER, 0);
	/* the record of the PCIe rule checks starts here (the link downs of
	 * test_rx_reset_cuts_stream leave cut TLPs in it) */
	CU_ASSERT(abb_sim_protocol_errors(tb_dev, NULL, 0) >= 0);
	tb_tlplog_start();
	CU_ASSERT_EQUAL(rd(0, ABB_REG_VERSION, v, sizeof v), -EIO);
	CU_ASSERT(v[0] == 0xffffffffu && v[1] == 0xffffffffu);
	CU_ASSERT_EQUAL(wr(0, ABB_REG_IER, w, sizeof w), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER) & ABB_GER_BAD_TLP, ABB_GER_BAD_TLP);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_VERSION), ABB_REG_VERSION_RESET); /* one DW: fine */
	tb_tlplog_stop();
	CU_ASSERT_EQUAL(tb_tlplog_count(" up   Cpl ", "st=UR"), 1);
	CU_ASSERT_EQUAL(tb_tlplog_count("down MRd", "len=2"), 1);
	CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), 0);
	/* the soft reset clears GER */
	CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_GCR, ABB_GCR_SOFT_RESET), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER), 0);
}

static CU_TestInfo rx_tests[] = {
	TB_SIM_TEST(test_rx_reset_cuts_stream),
	TB_SIM_TEST(test_rx_bar0_burst_write_dropped),
	TB_SIM_TEST(test_rx_bar0_wide_access),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo rx_suite[] = {
	{"rx", tb_suite_open, rx_cleanup, NULL, NULL, rx_tests},
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_rx(void)
{
	return CU_register_suites(rx_suite);
}
