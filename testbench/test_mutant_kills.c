/*
 * test_mutant_kills.c - suite "mutant_kills": checks written for RTL mutants
 * that survived the rest of the bench (testbench/MUTATION.md names the
 * mutant each test kills). Each test drives the board the way some host
 * could, through register writes and the simulator's fault injection, in a
 * corner the library's own call sequences never reach. Simulation only.
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#include "abb_priv.h" /* struct abb_dmabuf: the IOVA pieces of a buffer */

#define MK_LEN   4096u     /* bytes of the transfer */
#define MK_BOARD 0x10000u  /* its board address */

/* Kills an RX parser that takes a header beat in StHdr0 on rx_sop_i alone
 * (abb_rx.sv: `beat && rx_sop_i` -> `beat || rx_sop_i`; MUTATION.md m003).
 * rx_sop_i keeps the value of the last beat the hard block presented, and
 * a TLP's last beat never has sop, so only a reset that cuts a TLP after
 * its first beat leaves sop high with valid low: the parser would then
 * take the stale beat for a new header and misparse what follows. A link
 * down fired by the k-th completion of a DMA write (the host's completions
 * stream to the board) cuts the stream at k = 1..MK_CUTS different points;
 * after each the board must answer register reads with their reset values,
 * record no error, and move a DMA both ways intact. */
#define MK_CUTS 24
static void test_mk_reset_cuts_rx_stream(void)
{
	uint8_t *host, *want;
	abb_dmabuf *buf = NULL;
	uint32_t v;
	int k, rc;

	TB_REQUIRE_SIM();
	host = tb_alloc_pages(4 * MK_LEN);
	want = malloc(MK_LEN);
	CU_ASSERT_FATAL(host && want);
	CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, host, 4 * MK_LEN, &buf) == 0);
	for (k = 1; k <= MK_CUTS; k++) {
		struct abb_sim_inject_spec s;
		int id;

		memset(&s, 0, sizeof s);
		s.kind = ABB_SIM_INJ_LINK_DOWN;
		s.dir = ABB_SIM_DIR_DOWN;
		s.tlp = ABB_SIM_TLP_CPL;
		s.tag = -1;
		s.nth = (unsigned)k;
		s.ns = 2000;
		tb_fill(host, 4 * MK_LEN, (uint32_t)k);
		id = abb_sim_inject(tb_dev, &s);
		CU_ASSERT_FATAL(id >= 0);
		rc = abb_dma_write(tb_dev, buf, 0, MK_BOARD, 4 * MK_LEN, 0);
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
		tb_fill(want, MK_LEN, 100u + (uint32_t)k);
		memcpy(host, want, MK_LEN);
		CU_ASSERT_EQUAL(abb_dma_write(tb_dev, buf, 0, MK_BOARD, MK_LEN, 0), 0);
		memset(host, 0, MK_LEN);
		CU_ASSERT_EQUAL(abb_dma_read(tb_dev, buf, 0, MK_BOARD, MK_LEN, 0), 0);
		if (!tb_same("data after the cut", host, want, MK_LEN)) {
			printf("    cut %d\n", k);
			CU_FAIL("data after the cut");
		}
	}
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(buf), 0);
	free(host);
	free(want);
}

static CU_TestInfo mutant_kills_tests[] = {
	{"test_mk_reset_cuts_rx_stream", test_mk_reset_cuts_rx_stream},
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo mutant_kills_suite[] = {
	{"mutant_kills", tb_suite_open, tb_suite_close, NULL, NULL, mutant_kills_tests},
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_mutant_kills(void)
{
	return CU_register_suites(mutant_kills_suite);
}
