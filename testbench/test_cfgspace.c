/*
 * test_cfgspace.c - enumeration of the simulated endpoint as the real tools
 * see it: the config space dumped in `lspci -xxxx` format and decoded by
 * pciutils' own lspci (-F), for the default link (legacy INTA, no MSI
 * capability) and for MPS 256 / MRRS 128 with msi=1 (MSI enabled); BAR sizing through config accesses as Linux does it (lspci cannot
 * show sizes from a dump); PIO by the BARs as programmed (a BAR moved or
 * memory decode off: Unsupported Request). Simulation only; without lspci the decoding
 * tests skip with a message.
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>
#include <abbsim_cfg.h>

#define BAR_WINDOW 0xf0000000u /* where enumeration places BAR0 */

static int have_lspci(void)
{
	return system("lspci --version >/dev/null 2>&1") == 0;
}

/* Runs `lspci -F <dump> -vvnn` on the open board's config space; returns
 * its output (malloc'ed) or NULL. */
static char *lspci_of_board(void)
{
	char path[] = "/tmp/abb-tb-cfg-XXXXXX", cmd[128];
	size_t cap = 1 << 16, n = 0;
	char *out;
	FILE *p;
	int fd = mkstemp(path);

	if (fd < 0)
		return NULL;
	close(fd);
	if (abb_sim_cfg_dump(tb_dev, path) != 0) {
		printf("\n    abb_sim_cfg_dump: %s\n", abb_last_error());
		unlink(path);
		return NULL;
	}
	snprintf(cmd, sizeof(cmd), "lspci -F %s -vvnn 2>/dev/null", path);
	out = calloc(1, cap);
	p = popen(cmd, "r");
	if (!out || !p) {
		free(out);
		if (p)
			pclose(p);
		unlink(path);
		return NULL;
	}
	while (n + 1 < cap) {
		size_t k = fread(out + n, 1, cap - 1 - n, p);

		if (!k)
			break;
		n += k;
	}
	pclose(p);
	unlink(path);
	return out;
}

/* 1 if text contains want; else prints what is missing and the text. */
static int has(const char *text, const char *want)
{
	if (strstr(text, want))
		return 1;
	printf("\n    lspci output lacks \"%s\"; it was:\n%s\n", want, text);
	return 0;
}

static uint32_t cfg32(unsigned off)
{
	uint32_t v = 0xdeadbeefu;

	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, off, 4, &v), 0);
	return v;
}

/* The addresses enumeration assigns: BAR0 at the window, BAR1 aligned to
 * its size after it. */
static void expected_bars(uint32_t mem_size, uint32_t *bar0, uint32_t *bar1)
{
	*bar0 = BAR_WINDOW;
	*bar1 = (BAR_WINDOW + (64u << 10) + mem_size - 1) & ~(mem_size - 1);
}

/* Decodes the open board with lspci and checks IDs, BARs, the interrupt
 * (legacy INTA; with msi, the MSI capability enabled and INTx disabled)
 * and the Express capability's MPS/MRRS (mps, mrrs: what should be in
 * effect). */
static void check_lspci(unsigned mps, unsigned mrrs, int msi)
{
	struct abb_sim_link l;
	uint32_t bar0, bar1;
	char want[160], *out;

	CU_ASSERT_EQUAL_FATAL(abb_sim_link_params(tb_dev, &l), 0);
	CU_ASSERT_EQUAL(l.mps, mps);
	CU_ASSERT_EQUAL(l.mrrs, mrrs);
	expected_bars(l.mem_size, &bar0, &bar1);
	CU_ASSERT_EQUAL(cfg32(ABBSIM_CFG_BAR(0)), bar0);
	CU_ASSERT_EQUAL(cfg32(ABBSIM_CFG_BAR(1)), bar1);
	if (!have_lspci()) {
		tb_skip_part("the lspci decoding: lspci not found (apt-get install pciutils)");
		return;
	}
	out = lspci_of_board();
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT(has(out, "[10dc:0153]"));
	snprintf(want, sizeof(want), "Region 0: Memory at %08x (32-bit, non-prefetchable)", bar0);
	CU_ASSERT(has(out, want));
	snprintf(want, sizeof(want), "Region 1: Memory at %08x (32-bit, non-prefetchable)", bar1);
	CU_ASSERT(has(out, want));
	CU_ASSERT(has(out, "Control: I/O- Mem+ BusMaster+"));
	CU_ASSERT(has(out, "Interrupt: pin A"));
	if (msi) {
		CU_ASSERT(has(out, "DisINTx+"));
		CU_ASSERT(has(out, "MSI: Enable+ Count=1/1"));
		CU_ASSERT(has(out, "Address: 00000000fee00000"));
	} else {
		CU_ASSERT(has(out, "DisINTx-"));
		CU_ASSERT(has(out, " INTx-\n")); /* Status: no interrupt pending */
		CU_ASSERT_PTR_NULL(strstr(out, "MSI:"));
	}
	CU_ASSERT(has(out, "Express (v2) Endpoint"));
	/* the device advertises 4096 (the RTL takes any MPS up to it) */
	CU_ASSERT(has(out, "DevCap:\tMaxPayload 4096 bytes"));
	snprintf(want, sizeof(want), "MaxPayload %u bytes, MaxReadReq %u bytes", mps, mrrs);
	CU_ASSERT(has(out, want));
	snprintf(want, sizeof(want), "Width x%u", l.lanes);
	CU_ASSERT(has(out, want));
	free(out);
}

static void test_cfgspace_lspci_default(void)
{
	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(tb_reopen("mps=128,mrrs=512,msi=0"), 0);
	check_lspci(128, 512, 0);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

static void test_cfgspace_lspci_mps256_mrrs128(void)
{
	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(tb_reopen("mps=256,mrrs=128,msi=1"), 0);
	check_lspci(256, 128, 1);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

static void test_cfgspace_lspci_mps4096(void)
{
	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(tb_reopen("mps=4096,mrrs=4096,msi=0"), 0);
	check_lspci(4096, 4096, 0);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* Sizes one BAR as Linux's __pci_read_base does: save, write all ones,
 * read the mask, restore. Returns the mask. */
static uint32_t bar_mask(unsigned bar)
{
	unsigned off = ABBSIM_CFG_BAR(bar);
	uint32_t orig = cfg32(off), mask;

	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, off, 4, 0xffffffffu), 0);
	mask = cfg32(off);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, off, 4, orig), 0);
	CU_ASSERT_EQUAL(cfg32(off), orig);
	return mask;
}

static void test_cfgspace_bar_sizing(void)
{
	struct abb_sim_link l;
	uint32_t cmd = 0, m0, m1, m2, v = 0;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(tb_reopen("mem_size=2M"), 0);
	CU_ASSERT_EQUAL_FATAL(abb_sim_link_params(tb_dev, &l), 0);
	CU_ASSERT_EQUAL(l.mem_size, 2u << 20);
	/* decoding off while sizing, as the kernel does */
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_COMMAND, 2, &cmd), 0);
	CU_ASSERT(cmd & ABBSIM_CMD_MEM);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_COMMAND, 2,
					  cmd & ~(ABBSIM_CMD_IO | ABBSIM_CMD_MEM)), 0);
	m0 = bar_mask(0);
	m1 = bar_mask(1);
	m2 = bar_mask(2); /* unimplemented: reads 0 */
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_COMMAND, 2, cmd), 0);
	/* memory BARs (bit 0 clear), 32-bit (bits 2:1 = 00), not prefetchable (bit 3) */
	CU_ASSERT_EQUAL(m0 & ABBSIM_BAR_FLAGS, 0);
	CU_ASSERT_EQUAL(m1 & ABBSIM_BAR_FLAGS, 0);
	CU_ASSERT_EQUAL(~(m0 & ~ABBSIM_BAR_FLAGS) + 1, 64u << 10); /* the board's 64 KiB */
	CU_ASSERT_EQUAL(~(m1 & ~ABBSIM_BAR_FLAGS) + 1, l.mem_size);
	CU_ASSERT_EQUAL(m2, 0);
	/* the board still answers at its BARs */
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, 0, &v), 0);
	CU_ASSERT_EQUAL(v, 0x00020003u);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

static void test_cfgspace_access_checks(void)
{
	uint32_t v = 0;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_VENDOR, 4, &v), 0);
	CU_ASSERT_EQUAL(v, 0x015310dcu);
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_DEVICE, 2, &v), 0);
	CU_ASSERT_EQUAL(v, 0x0153u);
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_VENDOR + 1, 2, &v), -EINVAL); /* misaligned */
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_SIZE, 1, &v), -EINVAL);
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_VENDOR, 3, &v), -EINVAL);
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_VENDOR, 4, NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_DEVICE, 4, 0), -EINVAL);
	/* read-only: the IDs do not change */
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_VENDOR, 4, 0x12345678u), 0);
	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, ABBSIM_CFG_VENDOR, 4, &v), 0);
	CU_ASSERT_EQUAL(v, 0x015310dcu);
}

/* issue 17 finding 13: PIO goes where the host's mapping points (the BAR
 * addresses enumeration assigned at open) and the board answers only what
 * its BARs decode as programmed now. A BAR moved away leaves the host's
 * address decoded by nothing: reads get Unsupported Request (-EIO, all
 * ones), writes are dropped; Command.MEM off likewise. Before the fix the
 * host followed the BAR and reads at the old address still reached the
 * board. */
#define DEV_CTL_STA (ABBSIM_CFG_EXP + ABBSIM_EXP_DEVCTL) /* Device Control, Status */
#define DEV_STA (ABBSIM_CFG_EXP + ABBSIM_EXP_DEVSTA)
#define URD ABBSIM_EXP_DEVSTA_URD /* Device Status: Unsupported Request Detected */

static void test_cfgspace_bar_moved(void)
{
	static const uint8_t pattern[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint32_t bar0, bar1, cmd, v = 0, ier = 0;
	uint8_t got[8];
	const uint32_t away = 0xe0000000u; /* below the BAR window: nothing there */

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(tb_reopen(NULL), 0);
	bar0 = cfg32(ABBSIM_CFG_BAR(0));
	bar1 = cfg32(ABBSIM_CFG_BAR(1));
	cmd = cfg32(ABBSIM_CFG_COMMAND) & 0xffff;
	CU_ASSERT_EQUAL(bar0, BAR_WINDOW);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0, pattern, sizeof pattern), 0);
	CU_ASSERT_EQUAL(cfg32(DEV_CTL_STA) >> 16 & URD, 0);

	/* BAR0 moved: register reads fail with UR, a register write is lost */
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_BAR(0), 4, away), 0);
	CU_ASSERT_EQUAL(cfg32(ABBSIM_CFG_BAR(0)), away);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_VERSION, &v), -EIO);
	CU_ASSERT_EQUAL(v, 0xffffffffu);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "Unsupported Request"));
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "BAR0"));
	CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_IER, 0x7), 0);
	/* BAR1 still decodes */
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0, got, sizeof got), 0);
	CU_ASSERT_EQUAL(memcmp(got, pattern, sizeof got), 0);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_BAR(0), 4, bar0), 0);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_VERSION, &v), 0);
	CU_ASSERT_EQUAL(v, 0x00020003u);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_IER, &ier), 0);
	CU_ASSERT_EQUAL(ier, 0); /* the write while BAR0 was away never arrived */
	/* Device Status: Unsupported Request Detected, write 1 to clear */
	CU_ASSERT_EQUAL(cfg32(DEV_CTL_STA) >> 16 & URD, URD);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, DEV_STA, 2, URD), 0);
	CU_ASSERT_EQUAL(cfg32(DEV_CTL_STA) >> 16 & URD, 0);

	/* BAR1 moved: board memory reads fail with UR (all ones), writes lost */
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_BAR(1), 4, away), 0);
	memset(got, 0, sizeof got);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0, got, sizeof got), -EIO);
	CU_ASSERT(tb_all_byte("BAR1 read while moved", got, sizeof got, 0xff));
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "BAR1"));
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0, "\xee\xee\xee\xee", 4), 0);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_VERSION, &v), 0);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_BAR(1), 4, bar1), 0);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0, got, sizeof got), 0);
	CU_ASSERT_EQUAL(memcmp(got, pattern, sizeof got), 0);

	/* memory decode off: nothing decodes */
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_COMMAND, 2, cmd & ~ABBSIM_CMD_MEM), 0);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_VERSION, &v), -EIO);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "memory decode"));
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0, got, sizeof got), -EIO);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_COMMAND, 2, cmd), 0);
	CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_VERSION, &v), 0);
	CU_ASSERT_EQUAL(v, 0x00020003u);
	CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), 0);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

static CU_TestInfo cfgspace_tests[] = {
	TB_SIM_TEST(test_cfgspace_lspci_default),
	TB_SIM_TEST(test_cfgspace_lspci_mps256_mrrs128),
	TB_SIM_TEST(test_cfgspace_lspci_mps4096),
	TB_SIM_TEST(test_cfgspace_bar_sizing),
	TB_SIM_TEST(test_cfgspace_access_checks),
	TB_SIM_TEST(test_cfgspace_bar_moved),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo cfgspace_suite[] = {
	{ "cfgspace", tb_suite_open, tb_suite_close, NULL, NULL, cfgspace_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_cfgspace(void)
{
	return CU_register_suites(cfgspace_suite);
}
