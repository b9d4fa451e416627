/*
 * test_rtlclk.c - the simulator runs the RTL built for its clock
 * (sim/rtl_model.h): at 250 MHz the RTL is verilated with ClkNs = 4, at
 * 125 MHz with ClkNs = 8. Visible through the interrupt generator, whose
 * latency counts in 4 ns units of real time: the same latency takes twice
 * as many cycles at 250 MHz as at 125 MHz (with RTL built for 125 MHz it
 * would take as many).
 */
#include "tb.h"

#include <CUnit/CUnit.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

/* cycles from ARM until ISR.IGEN is set, latency lat (4 ns units) */
static long long igen_cycles(const char *opts, uint32_t lat)
{
	uint64_t c0 = 0, c1 = 0;
	uint32_t isr = 0;
	int i;

	if (tb_reopen(opts))
		return -1;
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	tb_reg_set(ABB_REG_IGEN_LAT, lat);
	if (abb_sim_cycles(tb_dev, &c0))
		return -1;
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ARM);
	for (i = 0; i < 100000 && !(isr & ABB_ISR_IGEN); i++) {
		isr = tb_reg(ABB_REG_ISR);
		if (abb_sim_advance(tb_dev, 2000))   /* 2 us between polls */
			return -1;
	}
	if (abb_sim_cycles(tb_dev, &c1) || !(isr & ABB_ISR_IGEN))
		return -1;
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	return (long long)(c1 - c0);
}

static void test_rtlclk_igen_latency(void)
{
	const uint32_t lat = 250000; /* 1 ms */
	long long c125, c250;

	TB_REQUIRE_DEV();
	c125 = igen_cycles("clk_mhz=125,hosttime=0", lat);
	c250 = igen_cycles("clk_mhz=250,hosttime=0", lat);
	printf("\n    interrupt generator, 1 ms: %lld cycles at 125 MHz, %lld at 250 MHz ", c125, c250);
	CU_ASSERT_FATAL(c125 > 0 && c250 > 0);
	/* 1 ms = 125000 / 250000 cycles, plus at most one 2 us poll step each */
	CU_ASSERT(c125 >= 125000 && c125 <= 125000 + 2 * 250 + 100);
	CU_ASSERT(c250 >= 250000 && c250 <= 250000 + 2 * 500 + 200);
	tb_reopen(NULL);
}

static CU_TestInfo rtlclk_tests[] = {
	TB_SIM_TEST(test_rtlclk_igen_latency),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo rtlclk_suite[] = {
	{ "rtlclk", tb_suite_open, tb_suite_close, NULL, NULL, rtlclk_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_rtlclk(void)
{
	return CU_register_suites(rtlclk_suite);
}
