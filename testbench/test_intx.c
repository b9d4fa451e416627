/*
 * test_intx.c - the interrupt line as the board's endpoint sends it, the
 * simulator's strict mode at register level, and the IOMMU's mapping
 * permissions (abbsim_iommu_map_at, the entry point of the emulated VFIO
 * kernel).
 *
 * INTx: Interrupt Pin 1 (INTA) in config space, no MSI capability unless
 * the simulator runs with msi=1; the RTL's level |(ISR & IER) becomes
 * Assert_INTA / Deassert_INTA messages (counted in the TLP log), mirrored
 * in Status.Interrupt Status; Command.Interrupt Disable suppresses them.
 * The tests drive the board's registers themselves (IER, the interrupt
 * generator's ARM and ACK words, channel reset), so they hold whatever
 * protocol libabb follows. Simulation only.
 */
#define _GNU_SOURCE
#include "tb.h"
#include "tb_simlib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>
#include <abbsim_cfg.h>


static uint32_t cfg(unsigned off, unsigned size)
{
	uint32_t v = 0xdeadbeefu;

	CU_ASSERT_EQUAL(abb_sim_cfg_read(tb_dev, off, size, &v), 0);
	return v;
}

/* Status.Interrupt Status, after the register writes before it landed
 * (a register read: PCIe keeps it behind them). */
static int int_status(void)
{
	(void)tb_reg(ABB_REG_VERSION);
	return (cfg(ABBSIM_CFG_STATUS, 2) & ABBSIM_STATUS_INT) != 0;
}

/* Offset of the capability with this ID, 0 if the list lacks it. */
static unsigned find_cap(unsigned id)
{
	unsigned ptr = cfg(ABBSIM_CFG_CAP_PTR, 1) & ~3u;

	for (int guard = 0; ptr && guard < 48; guard++) {
		if (cfg(ptr + ABBSIM_CAP_ID, 1) == id)
			return ptr;
		ptr = cfg(ptr + ABBSIM_CAP_NEXT, 1) & ~3u;
	}
	return 0;
}

/* ---- TLP log ---- */

static char log_path[64];

/* Starts a fresh TLP log of the open board. */
static void log_start(void)
{
	int fd;

	strcpy(log_path, "/tmp/abb-tb-intx-XXXXXX");
	fd = mkstemp(log_path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(abb_sim_tlp_log(tb_dev, log_path), 0);
}

struct log_count {
	unsigned assert_, deassert, msi, mwr;
	long first_assert, last_mwr; /* line numbers, -1: none */
};

/* Counts the interrupt messages in the log so far (the simulator flushes
 * the log whenever a host call returns). */
static struct log_count log_read(void)
{
	struct log_count c = {0, 0, 0, 0, -1, -1};
	char line[256];
	long n = 0;
	FILE *f = fopen(log_path, "r");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof line, f)) {
		n++;
		if (strstr(line, " up ") == NULL)
			continue;
		if (strstr(line, "Msg Assert_INTA")) {
			c.assert_++;
			if (c.first_assert < 0)
				c.first_assert = n;
		} else if (strstr(line, "Msg Deassert_INTA")) {
			c.deassert++;
		} else if (strstr(line, "MWr") && strstr(line, "addr=0xfee00000")) {
			c.msi++;
		} else if (strstr(line, "MWr")) {
			c.mwr++;
			c.last_mwr = n;
		}
	}
	fclose(f);
	return c;
}

/* Stops logging (into /dev/null) and removes the log. */
static void log_stop(void)
{
	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, "/dev/null"), 0);
	unlink(log_path);
}

/* Arms the interrupt generator (latency 400 ns) and lets it fire. */
static void igen_fire(void)
{
	tb_reg_set(ABB_REG_IGEN_LAT, 100); /* 4 ns units */
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ARM);
	CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 2000), 0);
	CU_ASSERT(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN);
}

static void igen_ack(void)
{
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ACK);
	(void)tb_reg(ABB_REG_VERSION); /* the posted write has landed */
	CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 1000), 0);
}

/* Cycles from the ARM write (the last IGEN_CTRL write down the link) to
 * the Assert_INTA it causes, from the log so far; the log's clock (MHz)
 * into *mhz. -1 when the log lacks them. */
static long igen_arm_to_assert(unsigned *mhz)
{
	char line[256];
	long arm = -1, cyc = -1;
	FILE *f = fopen(log_path, "r");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	while (fgets(line, sizeof line, f)) {
		unsigned long long c, addr;
		const char *p;

		if (line[0] == '#') {
			if ((p = strstr(line, " MHz")) != NULL) {
				while (p > line && p[-1] >= '0' && p[-1] <= '9')
					p--;
				*mhz = (unsigned)strtoul(p, NULL, 10);
			}
			continue;
		}
		if (sscanf(line, "%llu", &c) != 1)
			continue;
		if (strstr(line, " down ") && strstr(line, "MWr") && (p = strstr(line, " addr=")) &&
		    ((addr = strtoull(p + 6, NULL, 16)) & 0xFFFFu) == ABB_REG_IGEN_CTRL)
			arm = (long)c;
		else if (strstr(line, " up ") && strstr(line, "Msg Assert_INTA") && arm >= 0)
			cyc = (long)(c - (unsigned long long)arm);
	}
	fclose(f);
	return cyc;
}

/* The generator's latency, exactly: LAT x 4 ns rounded up to whole clock
 * cycles, at least one. LAT 0 and 4 ns fire in the same cycle (one cycle
 * of latency each at 8 ns); LAT 100 (400 ns) 49 cycles later at 125 MHz;
 * LAT 101 one more. The constant path (link, RX, TX) cancels out. */
static void test_intx_generator_latency_exact(void)
{
	static const uint32_t lat[] = { 0, 1, 2, 100, 101, 1000 };
	long cyc[6];
	unsigned mhz = 0, clk_ns, i;

	TB_REQUIRE_DEV();
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	tb_reg_set(ABB_REG_IER, ABB_ISR_IGEN);
	for (i = 0; i < 6; i++) {
		log_start();
		tb_reg_set(ABB_REG_IGEN_LAT, lat[i]);
		tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ARM);
		CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 6000), 0);
		CU_ASSERT(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN);
		cyc[i] = igen_arm_to_assert(&mhz);
		igen_ack();
		log_stop();
		CU_ASSERT(cyc[i] > 0);
	}
	tb_reg_set(ABB_REG_IER, 0);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	CU_ASSERT_FATAL(mhz == 125 || mhz == 250);
	clk_ns = 1000 / mhz;
	for (i = 1; i < 6; i++) {
		/* cycles of latency: ceil(LAT * 4 / clk_ns), at least 1 */
		long want = (long)(((uint64_t)lat[i] * 4 + clk_ns - 1) / clk_ns);
		long base = 1;

		if (want < 1)
			want = 1;
		if (cyc[i] - cyc[0] != want - base)
			printf("\n    IGEN_LAT %u at %u MHz: Assert_INTA %ld cycles after ARM, "
			       "LAT 0: %ld (want a difference of %ld)\n", lat[i], mhz, cyc[i], cyc[0],
			       want - base);
		CU_ASSERT_EQUAL(cyc[i] - cyc[0], want - base);
	}
}

/* ---- INTx ---- */

/* Config space of the default board: INTA, no MSI capability, Interrupt
 * Disable clear after enumeration, no interrupt pending. */
static void test_intx_config_space(void)
{
	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL(cfg(ABBSIM_CFG_INT_PIN, 1), 1);
	CU_ASSERT_EQUAL(find_cap(ABBSIM_CAP_ID_MSI), 0);
	CU_ASSERT_NOT_EQUAL(find_cap(ABBSIM_CAP_ID_EXP), 0);
	CU_ASSERT_EQUAL(cfg(ABBSIM_CFG_COMMAND, 2) & ABBSIM_CMD_INTX_DISABLE, 0);
	CU_ASSERT_EQUAL(int_status(), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GSR) & ABB_GSR_MSI, 0);
}

/* The interrupt generator: one Assert_INTA when it fires with its IER bit
 * set, one Deassert_INTA on ACK; Status.Interrupt Status follows the level;
 * the board counts one assert and one deassert; DIAG_MSI one event. */
static void test_intx_generator_assert_deassert(void)
{
	struct log_count c;

	TB_REQUIRE_DEV();
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	tb_reg_set(ABB_REG_IER, ABB_ISR_IGEN);
	log_start();
	igen_fire();
	CU_ASSERT_EQUAL(int_status(), 1);
	c = log_read();
	CU_ASSERT_EQUAL(c.assert_, 1);
	CU_ASSERT_EQUAL(c.deassert, 0);
	igen_ack();
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, 0);
	CU_ASSERT_EQUAL(int_status(), 0);
	c = log_read();
	CU_ASSERT_EQUAL(c.assert_, 1);
	CU_ASSERT_EQUAL(c.deassert, 1);
	CU_ASSERT_EQUAL(c.msi, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IGEN_ASSERT), 1);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IGEN_DEASSERT), 1);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_DIAG_MSI), 1);

	/* IER clear: the source fires, the line stays quiet; setting IER
	 * raises it, clearing IER lowers it (the board's acknowledge). */
	tb_reg_set(ABB_REG_IER, 0);
	igen_fire();
	CU_ASSERT_EQUAL(int_status(), 0);
	CU_ASSERT_EQUAL(log_read().assert_, 1);
	tb_reg_set(ABB_REG_IER, ABB_ISR_IGEN);
	CU_ASSERT_EQUAL(int_status(), 1);
	tb_reg_set(ABB_REG_IER, 0);
	CU_ASSERT_EQUAL(int_status(), 0);
	c = log_read();
	CU_ASSERT_EQUAL(c.assert_, 2);
	CU_ASSERT_EQUAL(c.deassert, 2);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR), 0);
	log_stop();
	CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), 0);
}

/* Command.Interrupt Disable: set while asserted sends Deassert_INTA,
 * clear with the level high sends Assert_INTA; while set nothing is sent;
 * Interrupt Status follows the level regardless. */
static void test_intx_interrupt_disable(void)
{
	uint32_t cmd;
	struct log_count c;

	TB_REQUIRE_DEV();
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	tb_reg_set(ABB_REG_IER, ABB_ISR_IGEN);
	cmd = cfg(ABBSIM_CFG_COMMAND, 2);
	log_start();
	igen_fire();
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_COMMAND, 2,
					  cmd | ABBSIM_CMD_INTX_DISABLE), 0);
	(void)tb_reg(ABB_REG_VERSION);
	CU_ASSERT_EQUAL(int_status(), 1);
	c = log_read();
	CU_ASSERT_EQUAL(c.assert_, 1);
	CU_ASSERT_EQUAL(c.deassert, 1);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_COMMAND, 2, cmd), 0);
	(void)tb_reg(ABB_REG_VERSION);
	c = log_read();
	CU_ASSERT_EQUAL(c.assert_, 2);
	CU_ASSERT_EQUAL(c.deassert, 1);
	igen_ack();
	/* disabled: a new interrupt sends nothing, Status still shows it */
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_COMMAND, 2,
					  cmd | ABBSIM_CMD_INTX_DISABLE), 0);
	igen_fire();
	CU_ASSERT_EQUAL(int_status(), 1);
	igen_ack();
	CU_ASSERT_EQUAL(int_status(), 0);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, ABBSIM_CFG_COMMAND, 2, cmd), 0);
	(void)tb_reg(ABB_REG_VERSION);
	c = log_read();
	CU_ASSERT_EQUAL(c.assert_, 2);
	CU_ASSERT_EQUAL(c.deassert, 2);
	tb_reg_set(ABB_REG_IER, 0);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	log_stop();
	CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), 0);
}

/* An interrupt-completed DMA read: Assert_INTA after the last data write
 * (posted ordering), as many Deasserts as Asserts once the call returned
 * and the line low; a polled one sends no interrupt message. */
static void test_intx_dma_read(void)
{
	const size_t len = 16384;
	uint8_t *hb;
	abb_dmabuf *hm = NULL;
	struct log_count c;

	TB_REQUIRE_DEV();
	hb = tb_alloc_pages(len); /* after the skips: no leak on the model */
	CU_ASSERT_PTR_NOT_NULL_FATAL(hb);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, hb, len, &hm), 0);
	log_start();
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, hm, 0, 0, len, 0), 0);
	c = log_read();
	CU_ASSERT(c.mwr > 0);
	CU_ASSERT_EQUAL(c.assert_, 0);
	CU_ASSERT_EQUAL(c.deassert, 0);
	log_stop();

	log_start();
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, hm, 0, 0, len, ABB_DMA_IRQ), 0);
	CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 2000), 0);
	c = log_read();
	CU_ASSERT(c.assert_ >= 1);
	CU_ASSERT_EQUAL(c.deassert, c.assert_);
	CU_ASSERT(c.first_assert > c.last_mwr);
	CU_ASSERT_EQUAL(int_status(), 0);
	log_stop();
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(hm), 0);
	free(hb);
	CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), 0);
}

/* msi=1: the MSI capability is there and enabled by enumeration (INTx
 * disabled); the generator sends one MSI write per rising edge and no INTx
 * message. */
static void test_intx_msi_only_with_msi(void)
{
	unsigned msi;
	struct log_count c;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(tb_reopen("msi=1"), 0);
	msi = find_cap(ABBSIM_CAP_ID_MSI);
	CU_ASSERT_NOT_EQUAL(msi, 0);
	if (msi)
		CU_ASSERT(cfg(msi + ABBSIM_MSI_CTRL, 2) & ABBSIM_MSI_CTRL_ENABLE);
	CU_ASSERT(cfg(ABBSIM_CFG_COMMAND, 2) & ABBSIM_CMD_INTX_DISABLE);
	CU_ASSERT(tb_reg(ABB_REG_GSR) & ABB_GSR_MSI);
	tb_reg_set(ABB_REG_IER, ABB_ISR_IGEN);
	log_start();
	igen_fire();
	CU_ASSERT_EQUAL(int_status(), 1);
	igen_ack();
	igen_fire();
	igen_ack();
	c = log_read();
	CU_ASSERT_EQUAL(c.msi, 2);
	CU_ASSERT_EQUAL(c.assert_, 0);
	CU_ASSERT_EQUAL(c.deassert, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_DIAG_MSI), 2);
	log_stop();
	tb_reg_set(ABB_REG_IER, 0);
	CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), 0);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* ---- strict mode ---- */

/* Reopens the board in strict (1) or lenient (0) mode. */
static int reopen_mode(int strict)
{
	return tb_reopen(strict ? "strict=1" : "strict=0");
}

/* ISR: write 1 to clear only when lenient; the generator's ACK clears its
 * bit in both modes. */
static void isr_write(int strict)
{
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	igen_fire();
	tb_reg_set(ABB_REG_ISR, ABB_ISR_IGEN);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, strict ? ABB_ISR_IGEN : 0);
	igen_ack();
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, 0);
}

/* A descriptor error on the downstream channel sets GER.DESC_ERR. */
static void make_desc_error(void)
{
	tb_reg_set(ABB_BLK_H2C + ABB_CH_CTRL, ABB_CTRL_RESET_CODE | ABB_CTRL_V | ABB_CTRL_BAR);
	tb_reg_set(ABB_BLK_H2C + ABB_CH_LENG, 0);
	tb_reg_set(ABB_BLK_H2C + ABB_CH_CTRL, ABB_CTRL_V | ABB_CTRL_BAR | ABB_CTRL_LAST);
	CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 2000), 0);
	CU_ASSERT(tb_reg(ABB_REG_GER) & ABB_GER_DESC_ERR);
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_H2C + ABB_CH_STA), ABB_STA_DONE | ABB_STA_BUSY);
	/* the channel reset clears STA in both modes */
	tb_reg_set(ABB_BLK_H2C + ABB_CH_CTRL, ABB_CTRL_RESET_CODE | ABB_CTRL_V | ABB_CTRL_BAR);
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_H2C + ABB_CH_STA), 0);
}

/* GER: write 1 to clear only when lenient; GCR.SOFT_RESET clears it in both. */
static void ger_write(int strict)
{
	make_desc_error();
	tb_reg_set(ABB_REG_GER, ~0u);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER) & ABB_GER_DESC_ERR, strict ? ABB_GER_DESC_ERR : 0);
	make_desc_error();
	tb_reg_set(ABB_REG_GCR, tb_reg(ABB_REG_GCR) | ABB_GCR_SOFT_RESET);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER), 0);
}

/* DONE and the channel's ISR bit after a start: lenient, the start clears
 * both; strict, both stay (STA reads DONE|BUSY while the channel runs)
 * until the channel reset, which clears them in both modes. The transfer
 * restarted is the last descriptor of a DMA read, still in the registers. */
static void done_and_isr(int strict)
{
	const size_t len = 65536;
	const uint32_t ch = ABB_BLK_C2H;
	uint8_t *hb = tb_alloc_pages(len);
	abb_dmabuf *hm = NULL;
	uint32_t ctrl, sta;

	CU_ASSERT_PTR_NOT_NULL_FATAL(hb);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, hb, len, &hm), 0);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, hm, 0, 0, len, 0), 0);
	CU_ASSERT_EQUAL(tb_reg(ch + ABB_CH_STA), ABB_STA_DONE);
	ctrl = tb_reg(ch + ABB_CH_CTRL);
	CU_ASSERT(ctrl & ABB_CTRL_LAST);
	/* once more, with an interrupt (ISR bit) on done; IER stays clear */
	tb_reg_set(ch + ABB_CH_CTRL, ctrl | ABB_CTRL_EDI);
	sta = tb_reg(ch + ABB_CH_STA);
	CU_ASSERT_EQUAL(sta, strict ? (ABB_STA_DONE | ABB_STA_BUSY) : ABB_STA_BUSY);
	CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 200000), 0);
	CU_ASSERT_EQUAL(tb_reg(ch + ABB_CH_STA), ABB_STA_DONE);
	CU_ASSERT(tb_reg(ABB_REG_ISR) & ABB_ISR_C2H);
	/* a start without EDI: lenient clears the ISR bit, strict keeps it */
	tb_reg_set(ch + ABB_CH_CTRL, ctrl & ~ABB_CTRL_EDI);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_C2H, strict ? ABB_ISR_C2H : 0);
	CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 200000), 0);
	CU_ASSERT_EQUAL(tb_reg(ch + ABB_CH_STA), ABB_STA_DONE);
	/* the channel reset clears STA and the ISR bit */
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	tb_reg_set(ch + ABB_CH_CTRL, ABB_CTRL_RESET_CODE | ABB_CTRL_V | ABB_CTRL_BAR);
	CU_ASSERT_EQUAL(tb_reg(ch + ABB_CH_STA), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_C2H, 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(hm), 0);
	free(hb);
}

static void test_strict_isr_write_ignored(void)
{
	TB_REQUIRE_DEV();
	for (int strict = 0; strict < 2; strict++) {
		CU_ASSERT_EQUAL_FATAL(reopen_mode(strict), 0);
		isr_write(strict);
	}
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

static void test_strict_ger_write_ignored(void)
{
	TB_REQUIRE_DEV();
	for (int strict = 0; strict < 2; strict++) {
		CU_ASSERT_EQUAL_FATAL(reopen_mode(strict), 0);
		ger_write(strict);
	}
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

static void test_strict_done_survives_start(void)
{
	TB_REQUIRE_DEV();
	for (int strict = 0; strict < 2; strict++) {
		CU_ASSERT_EQUAL_FATAL(reopen_mode(strict), 0);
		done_and_isr(strict);
	}
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* strict accepts only 0 and 1 */
static void test_strict_option_checked(void)
{
	abb_dev *d = NULL;

	TB_REQUIRE_DEV();
	tb_close();
	CU_ASSERT_EQUAL(abb_open(&d, "sim:strict=2"), -EINVAL);
	CU_ASSERT_EQUAL(abb_open(&d, "sim:msi=2"), -EINVAL);
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* ---- IOMMU permissions (abbsim_iommu_map_at) ---- */


#define DMA_READ ABBSIM_DMA_READ   /* the device may read (host to board) */
#define DMA_WRITE ABBSIM_DMA_WRITE /* the device may write (board to host) */
#define IOVA 0x08000000ull /* below the library's IOVA window */

static void test_iommu_map_at_permissions(void)
{
	const size_t pg = 4096;
	uint8_t *m, *pat, *back;
	const struct abbsim_api *lib;
	__typeof__(abbsim_iommu_map_at) *map_at;
	__typeof__(abbsim_iommu_unmap_iova) *unmap_iova;
	char why[512];
	struct abb_sim_fault f[4];

	TB_REQUIRE_DEV();
	/* after the skips: no leak on the model */
	m = tb_alloc_pages(3 * pg), pat = malloc(pg), back = malloc(pg);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pat);
	CU_ASSERT_PTR_NOT_NULL_FATAL(back);
	/* the simulator libabb loaded */
	lib = tb_simlib(why, sizeof why);
	if (!lib) {
		tb_skip("libabbsim.so is not loaded under that name (%s)", why);
		free(m), free(pat), free(back);
		return;
	}
	map_at = lib->iommu_map_at;
	unmap_iova = lib->iommu_unmap_iova;

	/* argument rules */
	CU_ASSERT_EQUAL(map_at(m + 1, pg, IOVA, DMA_READ), -EINVAL);
	CU_ASSERT_EQUAL(map_at(m, pg + 1, IOVA, DMA_READ), -EINVAL);
	CU_ASSERT_EQUAL(map_at(m, pg, IOVA + 8, DMA_READ), -EINVAL);
	CU_ASSERT_EQUAL(map_at(m, pg, IOVA, 0), -EINVAL);
	CU_ASSERT_EQUAL(map_at(m, pg, IOVA, 0x4), -EINVAL);
	CU_ASSERT_EQUAL(map_at(m, pg, 0xfee00000ull, DMA_READ), -EINVAL);
	/* page 0 READ (host to board only), page 1 WRITE, page 2 both */
	CU_ASSERT_EQUAL_FATAL(map_at(m, pg, IOVA, DMA_READ), 0);
	CU_ASSERT_EQUAL_FATAL(map_at(m + pg, pg, IOVA + pg, DMA_WRITE), 0);
	CU_ASSERT_EQUAL_FATAL(map_at(m + 2 * pg, pg, IOVA + 2 * pg, DMA_READ | DMA_WRITE), 0);
	CU_ASSERT_EQUAL(map_at(m, 2 * pg, IOVA + pg, DMA_READ), -EEXIST);
	CU_ASSERT_EQUAL(unmap_iova(IOVA, 2 * pg), -ENOENT);
	CU_ASSERT(abb_sim_faults(tb_dev, NULL, 0) >= 0);
	CU_ASSERT(abb_sim_protocol_errors(tb_dev, NULL, 0) >= 0);

	/* board memory 0x10000.. holds a pattern */
	tb_fill(pat, pg, 0x5a5a);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0x10000, pat, pg), 0);

	/* DMA read (board to host) into the READ-only page: dropped, faulted */
	memset(m, 0xee, 3 * pg);
	CU_ASSERT_EQUAL(tb_raw_dma(ABB_BLK_C2H, 0x10000, IOVA, pg), ABB_STA_DONE);
	CU_ASSERT(tb_all_byte("READ-only page after a DMA read", m, pg, 0xee));
	CU_ASSERT(abb_sim_faults(tb_dev, f, 4) > 0 && f[0].is_write == 1 &&
		  f[0].iova >= IOVA && f[0].iova < IOVA + pg);
	/* into the WRITE page and the READ|WRITE page: the data lands */
	CU_ASSERT_EQUAL(tb_raw_dma(ABB_BLK_C2H, 0x10000, IOVA + pg, pg), ABB_STA_DONE);
	CU_ASSERT(tb_same("WRITE page after a DMA read", m + pg, pat, pg));
	CU_ASSERT_EQUAL(tb_raw_dma(ABB_BLK_C2H, 0x10000, IOVA + 2 * pg, pg), ABB_STA_DONE);
	CU_ASSERT(tb_same("READ|WRITE page after a DMA read", m + 2 * pg, pat, pg));
	CU_ASSERT_EQUAL(abb_sim_faults(tb_dev, NULL, 0), 0);

	/* DMA write (host to board) from the WRITE-only page: UR, an error */
	tb_fill(m, pg, 0x1234);
	CU_ASSERT_EQUAL(tb_raw_dma(ABB_BLK_H2C, 0x20000, IOVA + pg, pg),
			ABB_STA_DONE | ABB_STA_BUSY);
	CU_ASSERT(tb_reg(ABB_REG_GER) & ABB_GER_CPL_ERR);
	CU_ASSERT(abb_sim_faults(tb_dev, f, 4) > 0 && f[0].is_write == 0 &&
		  f[0].iova >= IOVA + pg && f[0].iova < IOVA + 2 * pg);
	tb_reg_set(ABB_REG_GCR, tb_reg(ABB_REG_GCR) | ABB_GCR_SOFT_RESET);
	/* from the READ-only page: the board gets the data */
	CU_ASSERT_EQUAL(tb_raw_dma(ABB_BLK_H2C, 0x20000, IOVA, pg), ABB_STA_DONE);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0x20000, back, pg), 0);
	CU_ASSERT(tb_same("board after a DMA write from a READ page", back, m, pg));
	CU_ASSERT_EQUAL(abb_sim_faults(tb_dev, NULL, 0), 0);

	/* unmapped: the same IOVA faults */
	CU_ASSERT_EQUAL(unmap_iova(IOVA + pg, pg), 0);
	CU_ASSERT_EQUAL(unmap_iova(IOVA + pg, pg), -ENOENT);
	CU_ASSERT_EQUAL(tb_raw_dma(ABB_BLK_C2H, 0x10000, IOVA + pg, pg), ABB_STA_DONE);
	CU_ASSERT(abb_sim_faults(tb_dev, NULL, 0) > 0);
	CU_ASSERT_EQUAL(unmap_iova(IOVA, pg), 0);
	CU_ASSERT_EQUAL(unmap_iova(IOVA + 2 * pg, pg), 0);
	tb_reg_set(ABB_BLK_C2H + ABB_CH_CTRL, ABB_CTRL_RESET_CODE | ABB_CTRL_V | ABB_CTRL_BAR);
	tb_reg_set(ABB_BLK_H2C + ABB_CH_CTRL, ABB_CTRL_RESET_CODE | ABB_CTRL_V | ABB_CTRL_BAR);
	CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), 0);
	free(m), free(pat), free(back);
}

static CU_TestInfo tests[] = {
	TB_SIM_TEST(test_intx_config_space),
	TB_SIM_TEST(test_intx_generator_assert_deassert),
	TB_SIM_TEST(test_intx_generator_latency_exact),
	TB_SIM_TEST(test_intx_interrupt_disable),
	TB_SIM_TEST(test_intx_dma_read),
	TB_SIM_TEST(test_intx_msi_only_with_msi),
	TB_SIM_TEST(test_strict_isr_write_ignored),
	TB_SIM_TEST(test_strict_ger_write_ignored),
	TB_SIM_TEST(test_strict_done_survives_start),
	TB_SIM_TEST(test_strict_option_checked),
	TB_SIM_TEST(test_iommu_map_at_permissions),
	CU_TEST_INFO_NULL,
};

CU_ErrorCode tb_register_intx(void)
{
	CU_SuiteInfo suites[] = {
		{"intx", tb_suite_open, tb_suite_close, NULL, NULL, tests},
		CU_SUITE_INFO_NULL,
	};

	return CU_register_suites(suites);
}
