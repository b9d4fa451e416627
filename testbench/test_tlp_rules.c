/*
 * test_tlp_rules.c - (simulator) the TLPs the board sends obey the PCIe
 * rules a real root complex enforces, checked independently of the
 * simulator's own checks, from its decoded TLP log (abb_sim_tlp_log):
 * memory writes carry at most MPS bytes, read requests ask for at most
 * MRRS bytes, no request crosses a 4 KiB boundary, byte enables fit the
 * length, completions to PIO reads carry at most MPS bytes, and the bytes
 * written upstream add up to what the DMA reads moved. Under several link
 * configurations, with unaligned buffers and scattered IOVAs. The board's
 * statistics counters (DIAG_C2H_TLP, DIAG_H2C_RDREQ, DIAG_CPL, DIAG_DESC,
 * DIAG_MSI) equal, exactly, what the same log counts. The DMA write's
 * read requests keep to MRD_CR.TAG_LIMIT's tags; host memory above 4 GiB
 * is addressed with 64-bit addresses (4-DW headers) both ways.
 */
#define _GNU_SOURCE
#include "tb.h"
#include "tb_simlib.h"
#include "tb_tlplog.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#define HBUF (512u * 1024u)

/* What one log says, and what broke a rule. */
struct tlp_stats {
	unsigned mps, mrrs;       /* from the log's header line */
	unsigned long tlps;       /* TLP lines */
	unsigned long long up_mwr_bytes; /* DMA-read data (MSI writes excluded) */
	unsigned long long up_mrd_bytes; /* asked for by DMA writes and descriptor fetches */
	unsigned long bad;        /* rule violations */
	/* what the DIAG_* counters count, from the log */
	unsigned long up_mwr_data; /* MWr upstream, not MSI: DIAG_C2H_TLP */
	unsigned long up_mrd_data; /* MRd upstream with a mover tag (< 0x80): DIAG_H2C_RDREQ */
	unsigned long up_mrd_desc; /* MRd upstream, descriptor fetch tags 0x80/0x81: DIAG_DESC */
	unsigned long down_cpl;    /* Cpl and CplD downstream: DIAG_CPL */
	unsigned long up_irq;      /* Assert_INTA messages and MSI writes upstream: DIAG_MSI */
	char first_bad[256];
};

static void bad(struct tlp_stats *st, const char *why, const char *line)
{
	if (!st->bad)
		snprintf(st->first_bad, sizeof(st->first_bad), "%s: %.200s", why, line);
	st->bad++;
}

/* Parses the log at path and checks every upstream TLP. */
static int check_log(const char *path, struct tlp_stats *st)
{
	char line[512];
	FILE *f = fopen(path, "r");

	memset(st, 0, sizeof(*st));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long cyc, addr = 0;
		double t;
		char dir[8], type[8];
		const char *p;
		unsigned len = 0, fbe = 0, lbe = 0;

		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#') {
			if ((p = strstr(line, "MPS ")))
				st->mps = (unsigned)strtoul(p + 4, NULL, 10);
			if ((p = strstr(line, "MRRS ")))
				st->mrrs = (unsigned)strtoul(p + 5, NULL, 10);
			continue;
		}
		if (sscanf(line, "%llu %lf %7s %7s", &cyc, &t, dir, type) != 4)
			continue;
		st->tlps++;
		if (strcmp(dir, "up") != 0) {
			if (!strcmp(type, "Cpl") || !strcmp(type, "CplD"))
				st->down_cpl++;
			continue; /* the root complex's TLPs are the simulator's business */
		}
		if (!strcmp(type, "Msg") && strstr(line, " Assert_INTA"))
			st->up_irq++;
		if ((p = strstr(line, " len=")))
			len = (unsigned)strtoul(p + 5, NULL, 10);
		if (strcmp(type, "CplD") == 0) {
			if (len * 4 > st->mps)
				bad(st, "completion payload above MPS", line);
			continue;
		}
		if (strcmp(type, "MWr") != 0 && strcmp(type, "MRd") != 0)
			continue;
		if ((p = strstr(line, " addr=")))
			addr = strtoull(p + 6, NULL, 16);
		if ((p = strstr(line, " fbe=")))
			fbe = (unsigned)strtoul(p + 5, NULL, 16);
		if ((p = strstr(line, " lbe=")))
			lbe = (unsigned)strtoul(p + 5, NULL, 16);
		if (len == 0) {
			bad(st, "request without length", line);
			continue;
		}
		if (addr % 4)
			bad(st, "address not DW aligned", line);
		if (addr / 4096 != (addr + (unsigned long long)len * 4 - 1) / 4096)
			bad(st, "request crosses a 4 KiB boundary", line);
		if (fbe == 0 || (len == 1 && lbe != 0) || (len > 1 && lbe == 0))
			bad(st, "byte enables do not fit the length", line);
		if (strcmp(type, "MWr") == 0) {
			if (len * 4 > st->mps)
				bad(st, "memory write above MPS", line);
			if (addr < 0xFEE00000ull || addr > 0xFEEFFFFFull) {
				st->up_mwr_bytes += (unsigned long long)len * 4;
				st->up_mwr_data++;
			} else {
				st->up_irq++;
			}
		} else {
			unsigned tag = (p = strstr(line, " tag=")) ? (unsigned)strtoul(p + 5, NULL, 16) : 0;

			if (tag >= 0x80)
				st->up_mrd_desc++;
			else
				st->up_mrd_data++;
			if (len * 4 > st->mrrs)
				bad(st, "read request above MRRS", line);
			st->up_mrd_bytes += (unsigned long long)len * 4;
		}
	}
	fclose(f);
	return 0;
}

/* DMAs of many shapes; returns the bytes the DMA reads moved (board to
 * host), or 0 after a failure. */
static unsigned long long traffic(uint8_t *h, abb_dmabuf *b)
{
	static const struct {
		size_t off, len;
		uint32_t addr;
		unsigned flags;
	} x[] = {
		{ 0, 4, 0x1000, 0 },         { 4, 68, 0x1004, 0 },
		{ 0xFFC, 8, 0x2000, 0 },     { 0x7F0, 4100, 0x300C, 0 },
		{ 0x10004, 65536 + 12, 0x10000, 0 },
		{ 0x40000, 256 * 1024, 0x40000, ABB_DMA_IRQ },
		{ 0xFF4, 1024, 0x9004, ABB_DMA_FIXED },
	};
	unsigned long long up = 0;
	size_t i;

	tb_fill(h, HBUF, 77);
	for (i = 0; i < sizeof(x) / sizeof(x[0]); i++) {
		if (abb_dma_write(tb_dev, b, x[i].off, x[i].addr, x[i].len, x[i].flags) < 0 ||
		    abb_dma_read(tb_dev, b, x[i].off, x[i].addr, x[i].len, x[i].flags) < 0) {
			printf("\n    DMA %zu failed: %s\n", i, abb_last_error());
			return 0;
		}
		up += x[i].len;
	}
	/* PIO reads: completions from the board */
	{
		uint8_t pio[512];

		if (abb_mem_read(tb_dev, 0x1001, pio, sizeof(pio)) < 0)
			return 0;
	}
	return up;
}

static void test_tlp_rules_link_configs(void)
{
	static const char *const cfg[] = {
		"mps=128,mrrs=512",
		"mps=256,mrrs=128",
		"mps=512,mrrs=4096,rcb=128",
		"mps=128,mrrs=256,iova=scatter",
		"mps=1024,mrrs=1024,reorder=1,seed=3",
	};
	char path[64];
	uint8_t *h;
	size_t i;
	int fd;

	TB_REQUIRE_DEV();
	h = tb_alloc_pages(HBUF); /* after the checks: a skipped test leaks nothing */
	CU_ASSERT_FATAL(h != NULL);
	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		struct tlp_stats st;
		abb_dmabuf *b = NULL;
		unsigned long long up;

		snprintf(path, sizeof(path), "/tmp/abb-tb-tlp-XXXXXX");
		fd = mkstemp(path);
		CU_ASSERT_FATAL(fd >= 0);
		close(fd);
		CU_ASSERT_EQUAL_FATAL(tb_reopen(cfg[i]), 0);
		CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, path), 0);
		CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, h, HBUF, &b), 0);
		up = traffic(h, b);
		CU_ASSERT(up > 0);
		tb_close(); /* ends the log */
		CU_ASSERT_EQUAL(check_log(path, &st), 0);
		if (st.bad)
			printf("\n    %s: %lu of %lu TLPs break a rule; first: %s\n", cfg[i], st.bad,
			       st.tlps, st.first_bad);
		CU_ASSERT(st.tlps > 100);
		CU_ASSERT(st.mps >= 128 && st.mrrs >= 128);
		CU_ASSERT_EQUAL(st.bad, 0);
		/* every byte of the DMA reads went up once, nothing more */
		if (st.up_mwr_bytes != up)
			printf("\n    %s: %llu bytes written upstream, DMA reads moved %llu\n", cfg[i],
			       st.up_mwr_bytes, up);
		CU_ASSERT_EQUAL(st.up_mwr_bytes, up);
		/* the DMA writes were read, plus descriptors */
		CU_ASSERT(st.up_mrd_bytes >= up);
		unlink(path);
	}
	free(h);
	CU_ASSERT_EQUAL(tb_open(NULL), 0);
}

/* The statistics counters against the TLP log, exactly: DMA reads and
 * writes of many shapes (one completed by interrupt), chains over scattered
 * IOVAs, completions split at the RCB and reordered, MSI instead of INTx. */
static void test_tlp_rules_diag_counters(void)
{
	static const char *const cfg[] = {
		"mps=128,mrrs=512",
		"mps=256,mrrs=128,rcb=128,iova=scatter",
		"mps=512,mrrs=1024,cpl=rcb,reorder=1,seed=5,msi=1",
	};
	static const uint32_t reg[5] = {
		ABB_REG_DIAG_C2H_TLP, ABB_REG_DIAG_H2C_RDREQ, ABB_REG_DIAG_DESC,
		ABB_REG_DIAG_CPL, ABB_REG_DIAG_MSI,
	};
	static const char *const name[5] = { "C2H_TLP", "H2C_RDREQ", "DESC", "CPL", "MSI" };
	char path[64];
	uint8_t *h;
	size_t i, k;
	int fd;

	TB_REQUIRE_DEV();
	h = tb_alloc_pages(HBUF); /* after the checks: a skipped test leaks nothing */
	CU_ASSERT_FATAL(h != NULL);
	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		struct tlp_stats st;
		abb_dmabuf *b = NULL;
		uint32_t before[5], after[5];
		unsigned long want[5];

		snprintf(path, sizeof(path), "/tmp/abb-tb-tlp-XXXXXX");
		fd = mkstemp(path);
		CU_ASSERT_FATAL(fd >= 0);
		close(fd);
		CU_ASSERT_EQUAL_FATAL(tb_reopen(cfg[i]), 0);
		for (k = 0; k < 5; k++)
			before[k] = tb_reg(reg[k]);
		CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, path), 0);
		CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, h, HBUF, &b), 0);
		CU_ASSERT(traffic(h, b) > 0);
		CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 20000), 0); /* let posted messages out */
		for (k = 0; k < 5; k++)
			after[k] = tb_reg(reg[k]);
		tb_close(); /* ends the log */
		CU_ASSERT_EQUAL(check_log(path, &st), 0);
		want[0] = st.up_mwr_data;
		want[1] = st.up_mrd_data;
		want[2] = st.up_mrd_desc;
		want[3] = st.down_cpl;
		want[4] = st.up_irq;
		for (k = 0; k < 5; k++) {
			if ((unsigned long)(after[k] - before[k]) != want[k])
				printf("\n    %s: DIAG_%s counted %u, the TLP log %lu\n", cfg[i], name[k],
				       after[k] - before[k], want[k]);
			CU_ASSERT_EQUAL((unsigned long)(after[k] - before[k]), want[k]);
		}
		CU_ASSERT(st.up_mwr_data > 0 && st.up_mrd_data > 0 && st.down_cpl > 0 && st.up_irq > 0);
		if (strstr(cfg[i], "scatter"))
			CU_ASSERT(st.up_mrd_desc > 0);
		unlink(path);
	}
	free(h);
	CU_ASSERT_EQUAL(tb_open(NULL), 0);
}

/* The same sequence after a hot reset gives the same TLP log, line for
 * line (cycles included). */
static void test_tlp_rules_log_reproducible(void)
{
	char path[2][64];
	uint8_t *h;
	int k, fd, same = 0;

	TB_REQUIRE_DEV();
	h = tb_alloc_pages(HBUF); /* after the checks: a skipped test leaks nothing */
	CU_ASSERT_FATAL(h != NULL);
	for (k = 0; k < 2; k++) {
		abb_dmabuf *b = NULL;

		snprintf(path[k], sizeof(path[k]), "/tmp/abb-tb-tlp-XXXXXX");
		fd = mkstemp(path[k]);
		CU_ASSERT_FATAL(fd >= 0);
		close(fd);
		CU_ASSERT_EQUAL_FATAL(tb_reopen(NULL), 0);
		CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, path[k]), 0);
		CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, h, HBUF, &b), 0);
		CU_ASSERT(traffic(h, b) > 0);
		tb_close();
	}
	{
		FILE *a = fopen(path[0], "r"), *b = fopen(path[1], "r");
		char la[512], lb[512];
		long n = 0;

		CU_ASSERT_FATAL(a && b);
		same = 1;
		for (;;) {
			char *ra = fgets(la, sizeof(la), a), *rb = fgets(lb, sizeof(lb), b);

			if (!ra && !rb)
				break;
			n++;
			if (!ra || !rb || strcmp(la, lb) != 0) {
				printf("\n    TLP logs differ at line %ld:\n      %s      %s", n,
				       ra ? la : "(end)\n", rb ? lb : "(end)\n");
				same = 0;
				break;
			}
		}
		fclose(a);
		fclose(b);
		CU_ASSERT(n > 100);
	}
	CU_ASSERT(same);
	unlink(path[0]);
	unlink(path[1]);
	free(h);
	CU_ASSERT_EQUAL(tb_open(NULL), 0);
}

/* MRD_CR.TAG_LIMIT n: the DMA write's read requests use tags 0..n-1 only
 * (values above the engine's 16 tags mean all of them), the data arrives.
 * On profile abb2008 the endpoint's limits (ep_reads 8, ep_rx 4 KiB / MRRS
 * 512) cap them at 8. */
static void test_tlp_rules_read_tag_limit(void)
{
	static const uint32_t limit[] = {1, 2, 0, 31};
	static uint8_t want[32768];
	const size_t len = sizeof want;
	abb_dmabuf *map = NULL;
	uint8_t *host;

	TB_REQUIRE_DEV();
	host = tb_alloc_pages(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(host);
	if (abb_dmabuf_map(tb_dev, host, len, &map)) {
		free(host);
		CU_FAIL_FATAL("abb_dmabuf_map");
	}
	for (size_t i = 0; i < sizeof limit / sizeof limit[0]; i++) {
		unsigned cap = tb_is_abb2008() ? 8 : 16;
		unsigned n = limit[i] == 0 || limit[i] > cap ? cap : limit[i];
		int used = 0, beyond = 0, rc;
		char tag[16];

		tb_reg_set(ABB_REG_MRD_CR, limit[i]);
		CU_ASSERT_EQUAL(tb_reg(ABB_REG_MRD_CR), limit[i]);
		tb_tlplog_start();
		/* a DMA write and read of 32 KiB: the right bytes */
		tb_fill(want, len, 700 + (uint32_t)i);
		memcpy(host, want, len);
		rc = abb_dma_write(tb_dev, map, 0, 0x10000, len, 0);
		if (rc)
			printf("\n    DMA write: %s\n", abb_last_error());
		CU_ASSERT_EQUAL(rc, 0);
		memset(host, 0, len);
		CU_ASSERT_EQUAL(abb_dma_read(tb_dev, map, 0, 0x10000, len, 0), 0);
		CU_ASSERT(tb_same("DMA round trip", host, want, len));
		tb_tlplog_stop();
		for (unsigned t = 0; t < 0x80; t++) {
			snprintf(tag, sizeof tag, "tag=%02x", t);
			if (tb_tlplog_count(" up   MRd", tag) > 0) {
				used += t < n;
				beyond += t >= n;
			}
		}
		if (beyond || used != (int)n)
			printf("\n    TAG_LIMIT %u: %d tags below the limit used, %d above\n", limit[i],
			       used, beyond);
		CU_ASSERT_EQUAL(beyond, 0);
		CU_ASSERT_EQUAL(used, (int)n); /* 32 KiB in 512-byte reads: each tag used */
	}
	tb_reg_set(ABB_REG_MRD_CR, 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(map), 0);
	free(host);
}

/* Host memory at an IOVA above 4 GiB (abbsim_iommu_map_at): the board's
 * read requests and its data writes carry 64-bit addresses (4-DW headers),
 * both directions move the right bytes, no PCIe rule is broken. */
#define HIGH_IOVA 0x123400000ull  /* above 4 GiB: 4-DW request headers */
static void test_tlp_rules_dma_above_4g(void)
{
	const struct abbsim_api *sim;
	const size_t len = 8192;
	static uint8_t pat[8192], back[8192];
	__typeof__(abbsim_iommu_map_at) *map_at;
	__typeof__(abbsim_iommu_unmap_iova) *unmap_iova;
	uint8_t *m;

	TB_REQUIRE_DEV();
	sim = tb_sim();
	if (!sim)
		return;
	map_at = sim->iommu_map_at;
	unmap_iova = sim->iommu_unmap_iova;
	m = tb_alloc_pages(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL_FATAL(map_at(m, len, HIGH_IOVA, 0x3), 0); /* device reads and writes */

	tb_fill(pat, len, 4242);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0x50000, pat, len), 0);
	memset(m, 0, len);
	tb_tlplog_start();
	CU_ASSERT_EQUAL(tb_raw_dma(ABB_BLK_C2H, 0x50000, HIGH_IOVA, (uint32_t)len), ABB_STA_DONE);
	CU_ASSERT(tb_same("host memory above 4 GiB after a DMA read", m, pat, len));
	tb_fill(m, len, 4343);
	CU_ASSERT_EQUAL(tb_raw_dma(ABB_BLK_H2C, 0x60000, HIGH_IOVA, (uint32_t)len), ABB_STA_DONE);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0x60000, back, len), 0);
	CU_ASSERT(tb_same("board after a DMA write from above 4 GiB", back, m, len));
	tb_tlplog_stop();
	CU_ASSERT(tb_tlplog_count(" up   MWr", "addr=0x1234") >= (int)(len / 4096)); /* >= 1 per 4 KiB */
	CU_ASSERT(tb_tlplog_count(" up   MRd", "addr=0x1234") >= (int)(len / 4096));
	CU_ASSERT_EQUAL(tb_tlplog_count(" up   MWr", NULL), tb_tlplog_count(" up   MWr", "addr=0x1234"));
	CU_ASSERT_EQUAL(abb_sim_faults(tb_dev, NULL, 0), 0);
	CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), 0);
	CU_ASSERT_EQUAL(unmap_iova(HIGH_IOVA, len), 0);
	free(m);
}

static int tlp_rules_cleanup(void)
{
	tb_tlplog_remove();
	return tb_suite_close();
}

static CU_TestInfo tlp_rules_tests[] = {
	TB_SIM_TEST(test_tlp_rules_link_configs),
	TB_SIM_TEST(test_tlp_rules_log_reproducible),
	TB_SIM_TEST(test_tlp_rules_diag_counters),
	TB_SIM_TEST(test_tlp_rules_read_tag_limit),
	TB_SIM_TEST(test_tlp_rules_dma_above_4g),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo tlp_rules_suite[] = {
	{ "tlp_rules", tb_suite_open, tlp_rules_cleanup, NULL, NULL, tlp_rules_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_tlp_rules(void)
{
	return CU_register_suites(tlp_rules_suite);
}
