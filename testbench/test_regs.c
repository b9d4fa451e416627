/*
 * test_regs.c - BAR0 register map: reset values (from the golden vector
 * vectors/reg_reset.txt), VERSION, read/write, read-only and
 * write-1-to-clear behaviour (model-defined: checked in lenient mode, the
 * strict mode's ignored writes in strict mode, neither on the board),
 * interrupt-enable bits that stay independent (the old library's
 * `IER &= !mask` bug), channel registers; (simulator) the interrupt
 * generator re-armed, the DIAG registers (also on the reference model)
 * and the cycle counter's rate.
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

/* One line of vectors/reg_reset.txt: "OFFSET NAME ACCESS RESET". */
struct regvec {
	uint32_t off;
	char name[40];
	char access[8];
	uint32_t reset;
};

#define REGVEC_MAX 256

static struct regvec regvec[REGVEC_MAX];
static int nregvec;

/* Loads the vector; returns the number of registers or -1 (and says why). */
static int regvec_load(void)
{
	char path[1024], line[512];
	FILE *f;

	nregvec = 0;
	tb_vector_path("reg_reset.txt", path, sizeof(path));
	f = fopen(path, "r");
	if (!f) {
		printf("\n    cannot open the register vector %s (set ABB_VECTORS)\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char off[32], name[40], acc[8], rst[32];
		char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '#' || *p == '\n' || *p == '\0')
			continue;
		if (sscanf(p, "%31s %39s %7s %31s", off, name, acc, rst) != 4) {
			printf("\n    %s: bad line: %s", path, line);
			fclose(f);
			return -1;
		}
		if (nregvec == REGVEC_MAX)
			break;
		regvec[nregvec].off = (uint32_t)strtoul(off, NULL, 0);
		snprintf(regvec[nregvec].name, sizeof(regvec[nregvec].name), "%s", name);
		snprintf(regvec[nregvec].access, sizeof(regvec[nregvec].access), "%s", acc);
		regvec[nregvec].reset = (uint32_t)strtoul(rst, NULL, 0);
		nregvec++;
	}
	fclose(f);
	return nregvec;
}

static int is_diag(const struct regvec *r)
{
	return strncmp(r->name, "DIAG_", 5) == 0;
}

static int access_is(const struct regvec *r, const char *a)
{
	return strcmp(r->access, a) == 0;
}

/* Bits of a register that hold live state set by others than a reset: GSR
 * mirrors the config space that enumeration wrote (bus master, MSI,
 * MPS/MRRS codes). They are excluded from the reset comparison. */
static uint32_t live_mask(const char *name)
{
	if (strcmp(name, "GSR") == 0)
		return ABB_GSR_BME | ABB_GSR_MSI | ABB_GSR_MPS | ABB_GSR_MRRS;
	return 0;
}

static void test_regs_vector_matches_header(void)
{
	int n = regvec_load(), i, seen_version = 0;

	CU_ASSERT_FATAL(n > 0);
	/* The vector and the generated header come from the same source. */
	for (i = 0; i < n; i++) {
		if (strcmp(regvec[i].name, "VERSION") == 0) {
			seen_version = 1;
			CU_ASSERT_EQUAL(regvec[i].off, ABB_REG_VERSION);
			CU_ASSERT_STRING_EQUAL(regvec[i].access, "ro");
			CU_ASSERT_EQUAL(regvec[i].reset, ABB_REG_VERSION_RESET);
		}
		if (strcmp(regvec[i].name, "IER") == 0) {
			CU_ASSERT_EQUAL(regvec[i].off, ABB_REG_IER);
			CU_ASSERT_STRING_EQUAL(regvec[i].access, "rw");
		}
		if (strcmp(regvec[i].name, "ISR") == 0) {
			CU_ASSERT_EQUAL(regvec[i].off, ABB_REG_ISR);
			CU_ASSERT_STRING_EQUAL(regvec[i].access, "w1c");
		}
		CU_ASSERT_EQUAL(regvec[i].off % 4, 0);
		CU_ASSERT(access_is(&regvec[i], "ro") || access_is(&regvec[i], "rov") ||
			  access_is(&regvec[i], "rw") || access_is(&regvec[i], "w1c") ||
			  access_is(&regvec[i], "wo"));
	}
	CU_ASSERT(seen_version);
}

/* The bits of an rw register that store what is written. Registers that
 * are commands rather than storage are left out (mask 0). */
static uint32_t rw_mask(const char *name)
{
	if (strcmp(name, "IER") == 0)
		return ABB_ISR_C2H | ABB_ISR_H2C | ABB_ISR_IGEN;
	if (strcmp(name, "MRD_CR") == 0)
		return 0x1F; /* [4:0] tag limit */
	if (strcmp(name, "GCR") == 0)
		return ~ABB_GCR_SOFT_RESET; /* SOFT_RESET self-clears: tested on its own */
	/* model: the event source's fields ([15:0], [11:0]); its CTRL acts */
	if (strcmp(name, "EVS_CTRL") == 0)
		return 0;
	if (strcmp(name, "EVS_SRC") == 0 || strcmp(name, "EVS_GAP") == 0)
		return 0xFFFF;
	if (strcmp(name, "EVS_SIZE") == 0)
		return 0xFFF;
	return 0xFFFFFFFFu;
}

/* Bits the read-back test must not write (they act). */
static uint32_t rw_never(const char *name)
{
	if (strcmp(name, "GCR") == 0)
		return ABB_GCR_SOFT_RESET;
	return 0;
}

/* Every readable register holds its reset value after open (= reset). */
static void test_regs_reset_values(void)
{
	int i, checked = 0;

	CU_ASSERT_FATAL(regvec_load() > 0);
	/* On the simulator, opening again is a hot reset: leave non-reset
	 * values in the rw registers first, so the check below sees them
	 * reset rather than never written. */
	if (tb_is_sim()) {
		for (i = 0; i < nregvec; i++) {
			const struct regvec *r = &regvec[i];

			if (access_is(r, "rw") && !is_diag(r) && rw_mask(r->name))
				tb_reg_set(r->off, ~r->reset & rw_mask(r->name) &
							   ~rw_never(r->name));
		}
		tb_reg_set(ABB_REG_TXF_DATA, 0x12345678u); /* one word in the RX FIFO */
	}
	CU_ASSERT_EQUAL_FATAL(tb_reopen(NULL), 0);
	for (i = 0; i < nregvec; i++) {
		const struct regvec *r = &regvec[i];
		uint32_t v, mask;

		if (access_is(r, "wo"))
			continue;
		if (is_diag(r) && !(tb_is_sim() && strcmp(r->name, "DIAG_ID") == 0))
			continue; /* model-only counters change; absent on the board */
		/* volatile registers hold their reset value right after a
		 * reset; abb_open hot-resets only the simulated board */
		if (access_is(r, "rov") && !tb_is_sim())
			continue;
		mask = ~live_mask(r->name);
		v = tb_reg(r->off);
		if ((v & mask) != (r->reset & mask))
			printf("\n    %s (0x%04x, %s): read 0x%08x, reset value 0x%08x (mask 0x%08x)\n",
			       r->name, r->off, r->access, v, r->reset, mask);
		CU_ASSERT_EQUAL(v & mask, r->reset & mask);
		checked++;
	}
	CU_ASSERT(checked >= 10);
}

static void test_regs_version(void)
{
	uint32_t v = 0;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL(ABB_VERSION_ID, 0x00020003u);
	CU_ASSERT_EQUAL_FATAL(abb_reg_read(tb_dev, ABB_REG_VERSION, &v), 0);
	CU_ASSERT_EQUAL(v, 0x00020003u);
	/* read-only: a write does not change it */
	CU_ASSERT_EQUAL(abb_reg_write(tb_dev, ABB_REG_VERSION, 0x12345678u), 0);
	CU_ASSERT_EQUAL_FATAL(abb_reg_read(tb_dev, ABB_REG_VERSION, &v), 0);
	CU_ASSERT_EQUAL(v, 0x00020003u);
}

static void test_regs_channels_idle_after_open(void)
{
	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_C2H + ABB_CH_STA) & (ABB_STA_DONE | ABB_STA_BUSY), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_H2C + ABB_CH_STA) & (ABB_STA_DONE | ABB_STA_BUSY), 0);
}

static void test_regs_rw_read_back(void)
{
	static const uint32_t pat[] = { 0xFFFFFFFFu, 0x00000000u, 0xA5A55A5Au,
					0x5A5AA5A5u, 0x00000001u, 0x80000000u };
	int i, checked = 0;
	size_t k;

	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(regvec_load() > 0);
	for (i = 0; i < nregvec; i++) {
		const struct regvec *r = &regvec[i];
		uint32_t m = rw_mask(r->name);

		if (!access_is(r, "rw") || is_diag(r) || m == 0)
			continue;
		for (k = 0; k < sizeof(pat) / sizeof(pat[0]); k++) {
			uint32_t v, w = pat[k] & (m | ~rw_never(r->name));

			tb_reg_set(r->off, w);
			v = tb_reg(r->off);
			if ((v & m) != (w & m))
				printf("\n    %s: wrote 0x%08x, read 0x%08x (mask 0x%08x)\n",
				       r->name, w, v, m);
			CU_ASSERT_EQUAL(v & m, w & m);
		}
		tb_reg_set(r->off, r->reset);
		CU_ASSERT_EQUAL(tb_reg(r->off) & m, r->reset & m);
		checked++;
	}
	CU_ASSERT(checked >= 3); /* IER, MRD_CR, TX_CR, IGEN_LAT at least */
}

static void test_regs_ro_ignore_writes(void)
{
	int i, checked = 0;

	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(regvec_load() > 0);
	for (i = 0; i < nregvec; i++) {
		const struct regvec *r = &regvec[i];
		uint32_t v0, v1;

		if (!access_is(r, "ro") && !access_is(r, "rov"))
			continue;
		if (is_diag(r) && !(tb_is_sim() && strcmp(r->name, "DIAG_ID") == 0))
			continue; /* counters change by themselves */
		if (strcmp(r->name, "IGEN_CTRL") == 0)
			continue; /* a command port: writes act, tested below */
		v0 = tb_reg(r->off);
		tb_reg_set(r->off, ~v0);
		v1 = tb_reg(r->off);
		if (v1 != v0)
			printf("\n    %s (ro): read 0x%08x, wrote 0x%08x, read 0x%08x\n", r->name,
			       v0, ~v0, v1);
		CU_ASSERT_EQUAL(v1, v0);
		checked++;
	}
	CU_ASSERT(checked >= 5);
}

/* Device time passes (on the simulator) while registers are read: polls
 * reg until (value & mask) == want, for at most limit_ns of device time. */
static int poll_reg(uint32_t off, uint32_t mask, uint32_t want, uint64_t limit_ns)
{
	uint64_t t0 = tb_now_ns();
	uint32_t v;
	long n;

	for (n = 0; n < 1000000; n++) {
		if (abb_reg_read(tb_dev, off, &v) < 0)
			return 0;
		if ((v & mask) == want)
			return 1;
		if (tb_now_ns() - t0 > limit_ns)
			return 0;
	}
	return 0;
}

/* GCR.SOFT_RESET self-clears; writing 0 keeps 0. */
static void test_regs_gcr_soft_reset_self_clears(void)
{
	TB_REQUIRE_DEV();
	tb_reg_set(ABB_REG_GCR, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GCR) & ABB_GCR_SOFT_RESET, 0);
	tb_reg_set(ABB_REG_IER, ABB_ISR_IGEN);
	tb_reg_set(ABB_REG_GCR, ABB_GCR_SOFT_RESET);
	CU_ASSERT(poll_reg(ABB_REG_GCR, ABB_GCR_SOFT_RESET, 0, 100000));
	/* a soft reset leaves the board usable: VERSION, idle channels */
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_VERSION), ABB_VERSION_ID);
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_C2H + ABB_CH_STA) & (ABB_STA_DONE | ABB_STA_BUSY), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_H2C + ABB_CH_STA) & (ABB_STA_DONE | ABB_STA_BUSY), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR), 0);
	tb_reg_set(ABB_REG_IER, 0);
}

/* Fires the interrupt generator after lat 4-ns units and waits (by
 * register polling) until ISR shows it. */
static int igen_fire_and_poll(uint32_t lat)
{
	tb_reg_set(ABB_REG_IGEN_LAT, lat);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ARM);
	return poll_reg(ABB_REG_ISR, ABB_ISR_IGEN, ABB_ISR_IGEN, (uint64_t)lat * 4 + 1000000);
}

/* ISR: model-defined write-1-to-clear (lenient), writes ignored (strict);
 * in both modes IGEN_ACK clears the generator's bit (board evidence). On
 * the board only the acknowledge is checked. */
static void test_regs_isr_write_one_to_clear(void)
{
	uint32_t v;

	TB_REQUIRE_DEV();
	tb_reg_set(ABB_REG_IER, 0); /* no interrupt, only the status bit */
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	tb_reg_set(ABB_REG_ISR, 0xFFFFFFFFu);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, 0);

	CU_ASSERT_FATAL(igen_fire_and_poll(100));
	v = tb_reg(ABB_REG_ISR);
	CU_ASSERT_EQUAL(v & ABB_ISR_IGEN, ABB_ISR_IGEN);
	/* writing 0, or 1s to other bits, leaves the bit set */
	tb_reg_set(ABB_REG_ISR, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, ABB_ISR_IGEN);
	tb_reg_set(ABB_REG_ISR, ~ABB_ISR_IGEN);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, ABB_ISR_IGEN);
	if (tb_is_lenient()) {
		/* writing 1 clears it */
		tb_reg_set(ABB_REG_ISR, ABB_ISR_IGEN);
		CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR), 0);
	} else if (tb_is_strict()) {
		/* strict: ISR ignores writes */
		tb_reg_set(ABB_REG_ISR, ABB_ISR_IGEN);
		CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, ABB_ISR_IGEN);
	}
	/* the acknowledge clears it in every mode */
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ACK);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, 0);
}

/* The interrupt generator counts asserts and deasserts. */
static void test_regs_igen_counters(void)
{
	uint32_t a0, d0;

	TB_REQUIRE_DEV();
	tb_reg_set(ABB_REG_IER, 0);
	a0 = tb_reg(ABB_REG_IGEN_ASSERT);
	d0 = tb_reg(ABB_REG_IGEN_DEASSERT);
	CU_ASSERT_FATAL(igen_fire_and_poll(50));
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IGEN_ASSERT), a0 + 1);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ACK);
	tb_reg_set(ABB_REG_ISR, ABB_ISR_IGEN);
	CU_ASSERT(poll_reg(ABB_REG_IGEN_DEASSERT, 0xFFFFFFFFu, d0 + 1, 100000));
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IGEN_ASSERT), a0 + 1);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, 0);
}

/* IGEN_CTRL = RESET disarms a pending generator and clears its counts;
 * IGEN_CTRL reads 1 only while armed. */
static void test_regs_igen_reset_disarms(void)
{
	uint64_t t0;
	/* 100 us of device time; the untimed model counts wall-clock time, so
	 * there 1 s, or a slow host (valgrind) lets it fire before the check */
	uint32_t lat = tb_is_timed() ? 25000 : 250000000;
	int64_t after = tb_is_timed() ? 200000 : 10000000;

	TB_REQUIRE_DEV();
	tb_reg_set(ABB_REG_IER, 0);
	tb_reg_set(ABB_REG_ISR, 0xFFFFFFFFu);
	CU_ASSERT_FATAL(igen_fire_and_poll(10)); /* counts are not zero now */
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ACK);
	tb_reg_set(ABB_REG_IGEN_LAT, lat);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ARM);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IGEN_CTRL) & 1u, 1u);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IGEN_CTRL) & 1u, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IGEN_ASSERT), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IGEN_DEASSERT), 0);
	/* nothing fires after the latency (on the model: within 10 ms) */
	t0 = tb_now_ns();
	CU_ASSERT_EQUAL(abb_irq_wait(tb_dev, ABB_IRQ_GEN, after), -ETIMEDOUT);
	CU_ASSERT(tb_now_ns() - t0 >= (uint64_t)after);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IGEN_ASSERT), 0);
	/* the timed-out wait gave back the enable bit it set */
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & ABB_ISR_IGEN, 0);
}

/* ARM while armed: the countdown starts again from IGEN_LAT (the first
 * arming never fires), one assertion in all. (Simulator: device time
 * advanced by abb_sim_advance.) */
static void test_regs_igen_rearm(void)
{
	TB_REQUIRE_DEV();
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	tb_reg_set(ABB_REG_IGEN_LAT, 25000); /* 4 ns units: 100 us */
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ARM);
	CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 60000), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IGEN_CTRL) & ABB_IGEN_CTRL_ARMED, ABB_IGEN_CTRL_ARMED);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ARM); /* again, 60 us in */
	CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 60000), 0); /* 120 us after the first */
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, 0);
	CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 45000), 0); /* 105 us after the second */
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, ABB_ISR_IGEN);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IGEN_CTRL) & ABB_IGEN_CTRL_ARMED, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IGEN_ASSERT), 1);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, 0);
}

/* Enabling or disabling one interrupt source leaves the other IER bits
 * alone: the register itself, abb_irq_wait, and the DMA completion by
 * interrupt. */
static void test_regs_ier_bits_independent(void)
{
	static uint8_t host[256];
	abb_dmabuf *b = NULL;
	int rc;

	TB_REQUIRE_DEV();
	/* the register: each write sets exactly what was written */
	tb_reg_set(ABB_REG_IER, ABB_ISR_C2H);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & 7u, ABB_ISR_C2H);
	tb_reg_set(ABB_REG_IER, ABB_ISR_C2H | ABB_ISR_IGEN);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & 7u, ABB_ISR_C2H | ABB_ISR_IGEN);

	/* abb_irq_wait(GEN) enables and then disables only the GEN bit (the
	 * channels' ISR bits clear, by their resets or write-1-to-clear: a
	 * pending channel source would be acknowledged by the wait) */
	tb_reg_set(ABB_BLK_C2H + ABB_CH_CTRL, ABB_CTRL_RESET_CODE | ABB_CTRL_V | ABB_CTRL_BAR);
	tb_reg_set(ABB_BLK_H2C + ABB_CH_CTRL, ABB_CTRL_RESET_CODE | ABB_CTRL_V | ABB_CTRL_BAR);
	tb_reg_set(ABB_REG_ISR, 0xFFFFFFFFu);
	tb_reg_set(ABB_REG_IER, ABB_ISR_C2H | ABB_ISR_H2C);
	tb_reg_set(ABB_REG_IGEN_LAT, 250);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ARM);
	rc = abb_irq_wait(tb_dev, ABB_IRQ_GEN, 10000000);
	CU_ASSERT_EQUAL(rc, (int)ABB_IRQ_GEN);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & 7u, ABB_ISR_C2H | ABB_ISR_H2C);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, 0);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ACK);

	/* a DMA completed by interrupt leaves the generator's enable bit set */
	tb_reg_set(ABB_REG_IER, ABB_ISR_IGEN);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, host, sizeof(host), &b), 0);
	tb_fill(host, sizeof(host), 7);
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, b, 0, 0x100, sizeof(host), ABB_DMA_IRQ), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & 7u, ABB_ISR_IGEN);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, b, 0, 0x100, sizeof(host), ABB_DMA_IRQ), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & 7u, ABB_ISR_IGEN);

	/* a polled DMA clears its own channel's enable bit (it takes no
	 * interrupt) and no other */
	tb_reg_set(ABB_REG_IER, ABB_ISR_C2H | ABB_ISR_H2C | ABB_ISR_IGEN);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, b, 0, 0x100, sizeof(host), 0), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & 7u, ABB_ISR_H2C | ABB_ISR_IGEN);
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, b, 0, 0x100, sizeof(host), 0), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & 7u, ABB_ISR_IGEN);
	/* a DMA by interrupt while the other channel's bit is set */
	tb_reg_set(ABB_REG_IER, ABB_ISR_H2C);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, b, 0, 0x100, sizeof(host), ABB_DMA_IRQ), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & 7u, ABB_ISR_H2C);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	tb_reg_set(ABB_REG_IER, 0);
}

/* The nine registers of a channel block: the first descriptor's fields
 * read back what was written (CTRL is not written: it would start). */
static void test_regs_channel_read_back(void)
{
	static const uint32_t blk[2] = { ABB_BLK_C2H, ABB_BLK_H2C };
	static const uint32_t off[7] = { ABB_CH_PAH, ABB_CH_PAL, ABB_CH_HAH, ABB_CH_HAL,
					 ABB_CH_BDAH, ABB_CH_BDAL, ABB_CH_LENG };
	static const uint32_t val[2][7] = {
		{ 0x00000005u, 0x00012344u, 0x00000001u, 0x89ABCDC0u, 0x00000002u,
		  0x13572440u, 0x00012340u },
		/* PAH nonzero: the first register of a block is decoded as the block's */
		{ 0xA5000001u, 0x00003ff8u, 0x00000003u, 0x0246ACE4u, 0x00000000u,
		  0x7654C0C0u, 0x00000104u },
	};
	int c, i;

	TB_REQUIRE_DEV();
	/* STA keeps DONE of an earlier transfer: reset to idle first */
	for (c = 0; c < 2; c++) {
		tb_reg_set(blk[c] + ABB_CH_CTRL, ABB_CTRL_RESET_CODE | ABB_CTRL_V | ABB_CTRL_BAR);
		CU_ASSERT_EQUAL(tb_reg(blk[c] + ABB_CH_STA) & (ABB_STA_DONE | ABB_STA_BUSY), 0);
	}
	for (c = 0; c < 2; c++)
		for (i = 0; i < 7; i++)
			tb_reg_set(blk[c] + off[i], val[c][i]);
	for (c = 0; c < 2; c++) {
		for (i = 0; i < 7; i++) {
			uint32_t v = tb_reg(blk[c] + off[i]);

			if (v != val[c][i])
				printf("\n    channel %s reg +0x%02x: wrote 0x%08x read 0x%08x\n",
				       c ? "H2C" : "C2H", off[i], val[c][i], v);
			CU_ASSERT_EQUAL(v, val[c][i]);
		}
		/* nothing started */
		CU_ASSERT_EQUAL(tb_reg(blk[c] + ABB_CH_STA) & (ABB_STA_DONE | ABB_STA_BUSY), 0);
	}
	/* and again: reset leaves the channels idle */
	for (c = 0; c < 2; c++) {
		tb_reg_set(blk[c] + ABB_CH_CTRL, ABB_CTRL_RESET_CODE | ABB_CTRL_V | ABB_CTRL_BAR);
		CU_ASSERT_EQUAL(tb_reg(blk[c] + ABB_CH_STA) & (ABB_STA_DONE | ABB_STA_BUSY), 0);
	}
}

/* Model-defined: TX FIFO data is looped back into the RX FIFO. */
static void test_regs_fifo_loopback(void)
{
	static const uint32_t w[3] = { 0x11223344u, 0xCAFEF00Du, 0x00000005u };
	uint32_t free0;
	int i;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_RXF_CSR) & 0xFFFFu, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_RXF_DATA), 0); /* empty reads 0 */
	free0 = tb_reg(ABB_REG_TXF_CSR) & 0xFFFFu;
	CU_ASSERT(free0 >= 3);
	for (i = 0; i < 3; i++)
		tb_reg_set(ABB_REG_TXF_DATA, w[i]);
	CU_ASSERT_FATAL(poll_reg(ABB_REG_RXF_CSR, 0xFFFFu, 3, 1000000));
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(tb_reg(ABB_REG_RXF_DATA), w[i]);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_RXF_CSR) & 0xFFFFu, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_RXF_DATA), 0);
	CU_ASSERT(poll_reg(ABB_REG_TXF_CSR, 0xFFFFu, free0, 1000000));
}

/* Model-defined: ICAP reads 0 and ignores writes; DIAG_ID reads "ABBM". */
static void test_regs_model_constants(void)
{
	TB_REQUIRE_DEV();
	tb_reg_set(ABB_REG_ICAP, 0xFFFFFFFFu);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ICAP), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_DIAG_ID), 0x4D424241u);
}

/* The model-defined DIAG registers read the same on the simulator and on
 * the reference model: ID, PARAM (16 read tags, board memory 2^MEM_BITS
 * bytes), the cycle counter running, and the counters of one 4 KiB DMA
 * read (by interrupt) and one 4 KiB DMA write: data TLPs of MPS, read
 * requests of MRRS, completions, no descriptor fetch, one interrupt. */
static void test_regs_diag_registers(void)
{
	static const uint32_t reg[5] = {ABB_REG_DIAG_C2H_TLP, ABB_REG_DIAG_H2C_RDREQ,
					ABB_REG_DIAG_CPL, ABB_REG_DIAG_DESC, ABB_REG_DIAG_MSI};
	uint32_t before[5], d[5], param, c0, c1;
	unsigned mps = 128, mrrs = 512;
	size_t mem = 0;
	uint8_t *host;
	abb_dmabuf *map = NULL;

	TB_REQUIRE_DEV();
	if (tb_is_sim()) {
		struct abb_sim_link l;

		CU_ASSERT_EQUAL_FATAL(abb_sim_link_params(tb_dev, &l), 0);
		mps = l.mps;
		mrrs = l.mrrs;
	}
	host = tb_alloc_pages(4096);
	CU_ASSERT_PTR_NOT_NULL_FATAL(host);
	if (abb_dmabuf_map(tb_dev, host, 4096, &map)) {
		free(host);
		CU_FAIL_FATAL("abb_dmabuf_map of one page");
	}
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_DIAG_ID), ABB_REG_DIAG_ID_RESET);
	param = tb_reg(ABB_REG_DIAG_PARAM);
	CU_ASSERT_EQUAL(abb_mem_size(tb_dev, &mem), 0);
	CU_ASSERT_EQUAL((param & ABB_DIAG_PARAM_TAGS) >> ABB_DIAG_PARAM_TAGS_SHIFT, 16);
	CU_ASSERT_EQUAL((size_t)1 << (param & ABB_DIAG_PARAM_MEM_BITS), mem);
	c0 = tb_reg(ABB_REG_DIAG_CYC_LO);
	for (int k = 0; k < 5; k++)
		before[k] = tb_reg(reg[k]);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, map, 0, 0, 4096, ABB_DMA_IRQ), 0);
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, map, 0, 0, 4096, 0), 0);
	for (int k = 0; k < 5; k++)
		d[k] = tb_reg(reg[k]) - before[k];
	c1 = tb_reg(ABB_REG_DIAG_CYC_LO);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_DIAG_CYC_HI), 0); /* within 2^32 cycles of reset */
	printf("\n    %s: C2H_TLP +%u H2C_RDREQ +%u CPL +%u DESC +%u MSI +%u, %u cycles\n",
	       abb_backend(tb_dev), d[0], d[1], d[2], d[3], d[4], c1 - c0);
	CU_ASSERT(c1 > c0);
	CU_ASSERT_EQUAL(d[0], 4096 / mps);
	CU_ASSERT_EQUAL(d[1], 4096 / mrrs);
	CU_ASSERT(d[2] >= d[1]);
	CU_ASSERT_EQUAL(d[3], 0);
	CU_ASSERT_EQUAL(d[4], 1);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(map), 0);
	free(host);
}

/* DIAG_CYC_LO/HI is the board's 64-bit clock-cycle counter (reading LO
 * latches HI): between two readings it must advance by the user-clock
 * cycles of the simulated time between them (clk_mhz of the link
 * parameters; at most 2000 more for the register accesses' rounding),
 * with HI unchanged (far from a 2^32 wrap). Written for an RTL mutant
 * that survived the rest of the bench, a cycle counter that counts in its
 * upper half (abb_regs.sv: `cyc_q + 1 + {32'h0, skip}` -> `{32'h1, skip}`;
 * MUTATION.md m030): it adds 2^32 a cycle. */
static uint64_t diag_cycles(void)
{
	uint32_t lo = tb_reg(ABB_REG_DIAG_CYC_LO);

	return ((uint64_t)tb_reg(ABB_REG_DIAG_CYC_HI) << 32) | lo;
}

static void test_regs_cycle_counter_rate(void)
{
	struct abb_sim_link lp;

	CU_ASSERT_EQUAL_FATAL(abb_sim_link_params(tb_dev, &lp), 0);
	CU_ASSERT_FATAL(lp.clk_mhz > 0);
	/* intervals a cycle apart with 0..4 register reads in them: the
	 * counter must be right whatever the number of cycles and of the
	 * platform's evaluation steps (a counter that adds 2^63 per step,
	 * abb_regs.sv `{32'h0, skip}` -> `{32'h80000000, skip}`, looks right
	 * over an even number of them) */
	for (unsigned k = 0; k < 5; k++) {
		uint64_t c0, c1, t0 = 0, t1 = 0, want;
		int64_t ns = 100000 + (int64_t)((k * 1000 + lp.clk_mhz - 1) / lp.clk_mhz);

		c0 = diag_cycles();
		CU_ASSERT_EQUAL(abb_time_ns(tb_dev, &t0), 0);
		CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, ns), 0);
		for (unsigned r = 0; r < k; r++)
			CU_ASSERT_EQUAL(tb_reg(ABB_REG_VERSION), ABB_VERSION_ID);
		CU_ASSERT_EQUAL(abb_time_ns(tb_dev, &t1), 0);
		c1 = diag_cycles();
		want = (t1 - t0) * lp.clk_mhz / 1000; /* cycles between the two time readings */
		if (c1 - c0 + 1 < want || c1 - c0 > want + 2000 || c1 >> 32 != c0 >> 32)
			printf("\n    DIAG_CYC 0x%016llx -> 0x%016llx over %llu ns at %u MHz\n",
			       (unsigned long long)c0, (unsigned long long)c1,
			       (unsigned long long)(t1 - t0), lp.clk_mhz);
		CU_ASSERT(t1 - t0 >= (uint64_t)ns);
		CU_ASSERT(c1 - c0 + 1 >= want);
		CU_ASSERT(c1 - c0 <= want + 2000);
		CU_ASSERT_EQUAL(c1 >> 32, c0 >> 32);
	}
}

static CU_TestInfo regs_tests[] = {
	{ "test_regs_vector_matches_header", test_regs_vector_matches_header },
	{ "test_regs_reset_values", test_regs_reset_values },
	{ "test_regs_version", test_regs_version },
	{ "test_regs_channels_idle_after_open", test_regs_channels_idle_after_open },
	{ "test_regs_rw_read_back", test_regs_rw_read_back },
	{ "test_regs_ro_ignore_writes", test_regs_ro_ignore_writes },
	{ "test_regs_gcr_soft_reset_self_clears", test_regs_gcr_soft_reset_self_clears },
	{ "test_regs_isr_write_one_to_clear", test_regs_isr_write_one_to_clear },
	{ "test_regs_igen_counters", test_regs_igen_counters },
	{ "test_regs_igen_reset_disarms", test_regs_igen_reset_disarms },
	{ "test_regs_ier_bits_independent", test_regs_ier_bits_independent },
	{ "test_regs_channel_read_back", test_regs_channel_read_back },
	TB_SIM_TEST(test_regs_fifo_loopback),
	TB_SIM_TEST(test_regs_model_constants),
	TB_SIM_TEST(test_regs_igen_rearm),
	TB_SIM_TEST(test_regs_cycle_counter_rate),
	TB_NOVFIO_TEST(test_regs_diag_registers),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo regs_suite[] = {
	{ "regs", tb_suite_open, tb_suite_close, NULL, NULL, regs_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_regs(void)
{
	return CU_register_suites(regs_suite);
}
