/*
 * test_cover_paths.c - board behaviours the other suites do not reach
 * (found by `make coverage`, testbench/coverage.mk), each checked for its
 * result:
 *  - 64-bit accesses to BAR0 (an 8-byte copy to a mapped register BAR):
 *    the read gets UR, the write is dropped with GER.BAD_TLP;
 *  - MRD_CR.TAG_LIMIT: the DMA-write channel's read tags stay below it;
 *  - bus mastering disabled: a DMA fails with GER.BUS_MASTER, nothing moves;
 *  - the interrupt generator re-armed while armed restarts its count;
 *  - GCR.SOFT_RESET during a transfer: the wait reports it stopped;
 *  - DMA to and from host addresses above 4 GiB: 4-DW headers;
 *  - a chain's data read failing while the next descriptor's fetch is
 *    outstanding: the channel drains the fetch, then reports the error;
 *  - shared engine: a DMA read started while a DMA write runs waits for it;
 *  - libabb's and the DAQ layer's answers to bad arguments (any backend);
 *  - abb_dmabuf_map on a kernel without PROCMAP_QUERY (before Linux 6.11):
 *    the memory checks through the text of /proc/self/maps (any backend).
 * Simulation only, except where a test says otherwise.
 */
#define _GNU_SOURCE
#include "tb.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <abb/abb_daq.h>
#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#include "abb_procmap.h" /* host/lib: the request libabb uses */

#define HOSTLEN  (64u * 1024u)
#define CFG_CMD  0x04
#define CMD_BME  0x4u     /* Command.Bus Master Enable */
#define HIGH_IOVA 0x123400000ull  /* above 4 GiB: 4-DW request headers */

static uint8_t *host;
static abb_dmabuf *map;
static char logpath[64];

static int cover_init(void)
{
	if (tb_suite_open() < 0)
		return -1;
	host = tb_alloc_pages(HOSTLEN);
	if (!host || abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) < 0)
		return -1;
	snprintf(logpath, sizeof logpath, "/tmp/abb_cover_%d.log", (int)getpid());
	return 0;
}

static int cover_cleanup(void)
{
	if (map && tb_dev)
		(void)abb_dmabuf_unmap(map);
	map = NULL;
	free(host);
	host = NULL;
	unlink(logpath);
	return tb_suite_close();
}

/* The simulator's C interface of the library libabb loaded (the same
 * SystemC kernel); NULL (printed) when it is not loaded under that name. */
static void *sim_sym(const char *name)
{
	void *lib = dlopen("libabbsim.so", RTLD_NOW | RTLD_NOLOAD);

	if (!lib) {
		tb_skip("libabbsim.so is not loaded under that name (%s)", dlerror());
		return NULL;
	}
	return dlsym(lib, name);
}

/* Starts a TLP log at logpath (ends the one before). */
static void log_start(void)
{
	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, logpath), 0);
}

/* Ends the TLP log (a log elsewhere, removed), so logpath can be read. */
static void log_stop(void)
{
	char other[80];

	snprintf(other, sizeof other, "%s.2", logpath);
	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, other), 0); /* closes logpath */
	unlink(other);
}

/* Lines of the log with both words; *first and *last (may be NULL) the
 * line numbers of the first and the last of them (0: none). */
static int log_lines(const char *w1, const char *w2, int *first, int *last)
{
	FILE *f = fopen(logpath, "r");
	char line[512];
	int n = 0, no = 0;

	if (first)
		*first = 0;
	if (last)
		*last = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		no++;
		if (strstr(line, w1) && (!w2 || strstr(line, w2))) {
			if (first && !n)
				*first = no;
			if (last)
				*last = no;
			n++;
		}
	}
	fclose(f);
	return n;
}

static int log_count(const char *w1, const char *w2)
{
	return log_lines(w1, w2, NULL, NULL);
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

/* 64-bit accesses to the register BAR: a BAR0 request must be one DW.
 * The read is answered with a completion without data, status UR (the
 * host reads all-ones, -EIO); the write is dropped (GER.BAD_TLP) and the
 * register keeps its value. */
static void test_cover_bar0_wide_access(void)
{
	typedef int (*mmio_fn)(unsigned, uint64_t, void *, size_t);
	mmio_fn rd, wr;
	uint32_t v[2] = {0, 0}, w[2] = {0x7, 0x7};

	TB_REQUIRE_DEV();
	rd = (mmio_fn)(uintptr_t)sim_sym("abbsim_mmio_read");
	wr = (mmio_fn)(uintptr_t)sim_sym("abbsim_mmio_write");
	if (!rd || !wr)
		return;
	tb_reg_set(ABB_REG_IER, 0);
	log_start();
	CU_ASSERT_EQUAL(rd(0, ABB_REG_VERSION, v, sizeof v), -EIO);
	CU_ASSERT(v[0] == 0xffffffffu && v[1] == 0xffffffffu);
	CU_ASSERT_EQUAL(wr(0, ABB_REG_IER, w, sizeof w), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER) & ABB_GER_BAD_TLP, ABB_GER_BAD_TLP);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_VERSION), ABB_REG_VERSION_RESET); /* one DW: fine */
	log_stop();
	CU_ASSERT_EQUAL(log_count(" up   Cpl ", "st=UR"), 1);
	CU_ASSERT_EQUAL(log_count("down MRd", "len=2"), 1);
	CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), 0);
	soft_reset();
}

/* MRD_CR.TAG_LIMIT n: the DMA write's read requests use tags 0..n-1 only
 * (values above the engine's 16 tags mean all of them), the data arrives. */
static void test_cover_read_tag_limit(void)
{
	static const uint32_t limit[] = {1, 2, 0, 31};

	TB_REQUIRE_DEV();
	for (size_t i = 0; i < sizeof limit / sizeof limit[0]; i++) {
		unsigned n = limit[i] == 0 || limit[i] > 16 ? 16 : limit[i];
		int used = 0, beyond = 0;
		char tag[16];

		tb_reg_set(ABB_REG_MRD_CR, limit[i]);
		CU_ASSERT_EQUAL(tb_reg(ABB_REG_MRD_CR), limit[i]);
		log_start();
		dma_round_trip(32768, 0x10000, 700 + (uint32_t)i);
		log_stop();
		for (unsigned t = 0; t < 0x80; t++) {
			snprintf(tag, sizeof tag, "tag=%02x", t);
			if (log_count(" up   MRd", tag) > 0) {
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
}

/* Bus mastering off (Command.BME 0): a DMA either way fails with
 * GER.BUS_MASTER, moves no byte; on again, DMA works. */
static void test_cover_bus_master_disabled(void)
{
	static uint8_t b[4096], pat[4096];
	uint32_t cmd = 0;
	int rc;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(abb_sim_cfg_read(tb_dev, CFG_CMD, 2, &cmd), 0);
	CU_ASSERT_FATAL(cmd & CMD_BME);
	memset(pat, 0x3c, sizeof pat);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0x30000, pat, sizeof pat), 0);
	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, CFG_CMD, 2, cmd & ~CMD_BME), 0);

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

	CU_ASSERT_EQUAL(abb_sim_cfg_write(tb_dev, CFG_CMD, 2, cmd), 0);
	soft_reset();
	dma_round_trip(sizeof b, 0x30000, 812);
}

/* ARM while armed: the countdown starts again from IGEN_LAT (the first
 * arming never fires), one assertion in all. */
static void test_cover_igen_rearm(void)
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

/* GCR.SOFT_RESET while a transfer runs (each channel): the wait returns
 * -EIO "stopped before it was done", the channel is free again. */
static void test_cover_soft_reset_mid_transfer(void)
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

/* Host memory at an IOVA above 4 GiB (abbsim_iommu_map_at): the board's
 * read requests and its data writes carry 64-bit addresses (4-DW headers),
 * both directions move the right bytes, no PCIe rule is broken. */
static void test_cover_dma_above_4g(void)
{
	typedef int (*map_at_fn)(void *, size_t, uint64_t, unsigned);
	typedef int (*unmap_fn)(uint64_t, uint64_t);
	const size_t len = 8192;
	static uint8_t pat[8192], back[8192];
	map_at_fn map_at;
	unmap_fn unmap_iova;
	uint8_t *m;

	TB_REQUIRE_DEV();
	map_at = (map_at_fn)(uintptr_t)sim_sym("abbsim_iommu_map_at");
	unmap_iova = (unmap_fn)(uintptr_t)sim_sym("abbsim_iommu_unmap_iova");
	if (!map_at || !unmap_iova)
		return;
	m = tb_alloc_pages(len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL_FATAL(map_at(m, len, HIGH_IOVA, 0x3), 0); /* device reads and writes */

	tb_fill(pat, len, 4242);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0x50000, pat, len), 0);
	memset(m, 0, len);
	log_start();
	CU_ASSERT_EQUAL(tb_raw_dma(ABB_BLK_C2H, 0x50000, HIGH_IOVA, (uint32_t)len), ABB_STA_DONE);
	CU_ASSERT(tb_same("host memory above 4 GiB after a DMA read", m, pat, len));
	tb_fill(m, len, 4343);
	CU_ASSERT_EQUAL(tb_raw_dma(ABB_BLK_H2C, 0x60000, HIGH_IOVA, (uint32_t)len), ABB_STA_DONE);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0x60000, back, len), 0);
	CU_ASSERT(tb_same("board after a DMA write from above 4 GiB", back, m, len));
	log_stop();
	CU_ASSERT(log_count(" up   MWr", "addr=0x1234") >= (int)(len / 4096)); /* >= 1 per 4 KiB */
	CU_ASSERT(log_count(" up   MRd", "addr=0x1234") >= (int)(len / 4096));
	CU_ASSERT_EQUAL(log_count(" up   MWr", NULL), log_count(" up   MWr", "addr=0x1234"));
	CU_ASSERT_EQUAL(abb_sim_faults(tb_dev, NULL, 0), 0);
	CU_ASSERT_EQUAL(abb_sim_protocol_errors(tb_dev, NULL, 0), 0);
	CU_ASSERT_EQUAL(unmap_iova(HIGH_IOVA, len), 0);
	free(m);
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
static void test_cover_chain_error_drains_fetch(void)
{
	struct abb_sim_inject_spec late = rule(ABB_SIM_INJ_DELAY, 0x81, 8000);
	struct abb_sim_inject_spec ur = rule(ABB_SIM_INJ_UR, 0, 0);
	uint64_t t0 = 0, t1 = 0;
	uint32_t ger;
	int id_late, id_ur, rc;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(map), 0);
	map = NULL;
	CU_ASSERT_FATAL(tb_reopen("iova=scatter") == 0);
	CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) == 0);

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

	CU_ASSERT_EQUAL(abb_dmabuf_unmap(map), 0);
	map = NULL;
	CU_ASSERT_FATAL(tb_reopen(NULL) == 0);
	CU_ASSERT_FATAL(abb_dmabuf_map(tb_dev, host, HOSTLEN, &map) == 0);
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
static void test_cover_shared_engine_read_waits(void)
{
	static uint8_t want[16384], back[16384];
	int last_mrd = 0, first_mwr = 0;

	TB_REQUIRE_DEV();
	tb_fill(want, sizeof want, 1201);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0x70000, want, sizeof want), 0);
	tb_fill(host + 32768, sizeof back, 1202);
	memset(host, 0, sizeof want);
	tb_reg_set(ABB_REG_GCR, ABB_GCR_SHARED_ENGINE);
	log_start();
	CU_ASSERT_EQUAL(abb_dma_write_start(tb_dev, map, 32768, 0x78000, sizeof back, 0), 0);
	CU_ASSERT_EQUAL(abb_dma_read_start(tb_dev, map, 0, 0x70000, sizeof want, 0), 0);
	CU_ASSERT_EQUAL(abb_dma_write_wait(tb_dev, ABB_WAIT_FOREVER), 0);
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, ABB_WAIT_FOREVER), 0);
	log_stop();
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
	CU_ASSERT(log_lines(" up   MRd", NULL, NULL, &last_mrd) >= 4);
	CU_ASSERT(log_lines(" up   MWr", NULL, &first_mwr, NULL) >= 4);
	if (!(first_mwr > last_mrd))
		printf("\n    first DMA-read data write at log line %d, last DMA-write read at %d\n",
		       first_mwr, last_mrd);
	CU_ASSERT(first_mwr > last_mrd);
}

/* A channel's STA is read-only: a write to it while the channel is idle
 * changes no register of the block. */
static void test_cover_channel_sta_read_only(void)
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

/* The model-defined DIAG registers read the same on the simulator and on
 * the reference model: ID, PARAM (16 read tags, board memory 2^MEM_BITS
 * bytes), the cycle counter running, and the counters of one 4 KiB DMA
 * read (by interrupt) and one 4 KiB DMA write: data TLPs of MPS, read
 * requests of MRRS, completions, no descriptor fetch, one interrupt. */
static void test_cover_diag_registers(void)
{
	static const uint32_t reg[5] = {ABB_REG_DIAG_C2H_TLP, ABB_REG_DIAG_H2C_RDREQ,
					ABB_REG_DIAG_CPL, ABB_REG_DIAG_DESC, ABB_REG_DIAG_MSI};
	uint32_t before[5], d[5], param, c0, c1;
	unsigned mps = 128, mrrs = 512;
	size_t mem = 0;

	TB_REQUIRE_DEV();
	if (tb_is_sim()) {
		struct abb_sim_link l;

		CU_ASSERT_EQUAL_FATAL(abb_sim_link_params(tb_dev, &l), 0);
		mps = l.mps;
		mrrs = l.mrrs;
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
}

/* ---- library paths (any backend) ---- */

/* URI options: one without a value, and options longer than the backend
 * takes, are refused with a message; DMA offsets must be 4-byte aligned. */
static void test_cover_uri_and_offset_errors(void)
{
	char uri[400];
	abb_dev *d = NULL;
	abb_dmabuf *om = NULL;
	uint8_t *odd;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL(abb_open(&d, "model:mem_size"), -EINVAL);
	CU_ASSERT_PTR_NULL(d);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "has no value"));
	snprintf(uri, sizeof uri, "model:mem_size=%0300d", 1);
	CU_ASSERT_EQUAL(abb_open(&d, uri), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "options too long"));
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, map, 2, 0, 64, 0), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "buffer offset 0x2 is not a multiple of 4"));
	/* a buffer mapped at an address that is not 4-byte aligned */
	odd = tb_alloc_pages(8192);
	CU_ASSERT_PTR_NOT_NULL_FATAL(odd);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, odd + 2, 4096, &om), 0);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, om, 0, 0, 64, 0), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "not 4-byte aligned; map a 4-byte aligned"));
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(om), 0);
	free(odd);
}

/* The DAQ layer: result names, device open (its own board, closed with
 * it) and the argument checks of a transport and of the device calls. */
static void test_cover_daq_bad_input(void)
{
	struct abb_daq_params p, q;
	abb_daq_device *dd = NULL, *own = NULL;
	abb_daq_transport *t = NULL;
	abb_daq_pool *pool = NULL;
	abb_daq_buf *b = NULL;
	size_t mem = 0;

	TB_REQUIRE_DEV();
	CU_ASSERT_STRING_EQUAL(abb_daq_result_name(ABB_DAQ_OK), "ok");
	CU_ASSERT_STRING_EQUAL(abb_daq_result_name(ABB_DAQ_SKIP), "skip");
	CU_ASSERT_STRING_EQUAL(abb_daq_result_name(ABB_DAQ_EOS), "end of stream");
	CU_ASSERT_STRING_EQUAL(abb_daq_result_name(ABB_DAQ_TIMEOUT), "timeout");
	CU_ASSERT_STRING_EQUAL(abb_daq_result_name(ABB_DAQ_ERROR), "error");
	CU_ASSERT_STRING_EQUAL(abb_daq_result_name((enum abb_daq_result)99), "?");

	abb_daq_params_default(&p);
	CU_ASSERT_EQUAL(abb_daq_device_open(NULL, &p), -EINVAL);
	q = p;
	q.bar = 0;
	CU_ASSERT_EQUAL(abb_daq_device_open(&own, &q), -EINVAL);
	CU_ASSERT_PTR_NULL(own);
	q = p;
	snprintf(q.device, sizeof q.device, "model:mem_size=64K");
	CU_ASSERT_EQUAL_FATAL(abb_daq_device_open(&own, &q), 0);
	CU_ASSERT_STRING_EQUAL(abb_backend(abb_daq_device_dev(own)), "model");
	CU_ASSERT_EQUAL(abb_mem_size(abb_daq_device_dev(own), &mem), 0);
	CU_ASSERT_EQUAL(mem, 64u << 10);
	abb_daq_device_close(own); /* closes the board it opened */
	CU_ASSERT_EQUAL(abb_daq_device_attach(NULL, tb_dev, 0), -EINVAL);

	CU_ASSERT_EQUAL_FATAL(abb_daq_device_attach(&dd, tb_dev, 5), 0);
	CU_ASSERT_EQUAL_FATAL(abb_daq_pool_create(&pool, "cover", 4096, 2), 0);
	CU_ASSERT_EQUAL(abb_mem_size(tb_dev, &mem), 0);
	p.address = 0;
	p.length = 0;
	p.region = 0;
	p.header = 1;
	CU_ASSERT_EQUAL(abb_daq_transport_create(NULL, dd, ABB_DAQ_READ, pool, &p), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, (enum abb_daq_dir)7, pool, &p), -EINVAL);
	q = p, q.bar = 0;
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	q = p, q.length = 6;                     /* not whole DWs */
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	q = p, q.address = 2;
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	q = p, q.length = 4096;                  /* header + length > buffer */
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	q = p, q.fifo = 1, q.address = (uint32_t)mem;
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	q = p, q.length = 1024, q.region = 1500; /* not a multiple of the length */
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	q = p, q.length = 1024, q.region = (uint32_t)mem + 1024;
	CU_ASSERT_EQUAL(abb_daq_transport_create(&t, dd, ABB_DAQ_READ, pool, &q), -EINVAL);
	CU_ASSERT_PTR_NULL(t);

	/* a write transport: buffers of len not whole DWs are refused */
	q = p, q.length = 1024, q.header = 0;
	CU_ASSERT_EQUAL_FATAL(abb_daq_transport_create(&t, dd, ABB_DAQ_WRITE, pool, &q), 0);
	CU_ASSERT_EQUAL(abb_daq_transport_size(t), 1024);
	CU_ASSERT_EQUAL(abb_daq_transport_start(t, NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_transport_start(NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(abb_daq_pool_get(pool, &b, 0), 0);
	b->len = 6;
	CU_ASSERT_EQUAL(abb_daq_transport_start(t, b), -EMSGSIZE);
	b->len = 2048;                           /* more than Length */
	CU_ASSERT_EQUAL(abb_daq_transport_start(t, b), -EMSGSIZE);
	abb_daq_buf_release(b);
	abb_daq_transport_destroy(t);
	abb_daq_transport_destroy(NULL);

	CU_ASSERT_EQUAL(abb_daq_evs_start(dd, 1, 0x1000, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_evs_start(dd, 1, 4, 0x10000, NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_evs_start(NULL, 1, 4, 0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_evs_stop(NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_daq_shared_engine(NULL, 1), -EINVAL);
	abb_daq_device_close(dd);                /* attached: tb_dev stays open */
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_VERSION), ABB_REG_VERSION_RESET);
	CU_ASSERT_EQUAL(abb_daq_pool_destroy(pool), 0);
}

/* ---- abb_dmabuf_map without PROCMAP_QUERY ---- */


#ifdef ABB_COVERAGE
/* Writes the gcov counters of every instrumented object of the process
 * (libabb's too); the child's _exit skips the dump at exit. */
extern void __gcov_dump(void);
#endif

#define CHILD_CHECK(cond)                                                      \
	do {                                                                   \
		if (!(cond)) {                                                 \
			printf("\n    child: %s:%d: %s (%s)\n", __FILE__, __LINE__, #cond, \
			       abb_last_error());                             \
			fails++;                                               \
		}                                                              \
	} while (0)

/* In a child process: PROCMAP_QUERY fails with ENOTTY (a seccomp filter,
 * as on an older kernel), so abb_dmabuf_map reads /proc/self/maps as text.
 * Returns the number of failed checks. */
static int maps_text_child(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_ioctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)ABB_PROCMAP_QUERY, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOTTY),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof f / sizeof f[0], .filter = f};
	struct abb_procmap_query q = {.size = sizeof q};
	size_t pg = tb_page();
	abb_dmabuf *b = NULL;
	abb_dev *d = NULL;
	uint8_t *m;
	int fails = 0, fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		printf("\n    child: no seccomp filter: %s\n", strerror(errno));
		return 1;
	}
	fd = open("/proc/self/maps", O_RDONLY);
	q.query_addr = (uintptr_t)&q;
	CHILD_CHECK(fd >= 0 && ioctl(fd, ABB_PROCMAP_QUERY, &q) < 0 && errno == ENOTTY);
	if (fd >= 0)
		close(fd);
	CHILD_CHECK(abb_open(&d, "model") == 0);
	if (!d)
		return fails + 1;
	/* four pages: read-write, read-only, PROT_NONE, unmapped (a hole) */
	m = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHILD_CHECK(m != MAP_FAILED);
	if (m == MAP_FAILED)
		return fails;
	memset(m, 0x11, 2 * pg);
	CHILD_CHECK(mprotect(m + pg, pg, PROT_READ) == 0);
	CHILD_CHECK(mprotect(m + 2 * pg, pg, PROT_NONE) == 0);
	CHILD_CHECK(munmap(m + 3 * pg, pg) == 0);

	CHILD_CHECK(abb_dmabuf_map(d, m, pg, &b) == 0); /* read-write: both ways */
	CHILD_CHECK(abb_dma_write(d, b, 0, 0, pg, 0) == 0);
	CHILD_CHECK(abb_dma_read(d, b, 0, 0, pg, 0) == 0);
	CHILD_CHECK(abb_dmabuf_unmap(b) == 0);
	CHILD_CHECK(abb_dmabuf_map(d, m, 2 * pg, &b) == 0); /* rw + ro: the board may read */
	CHILD_CHECK(abb_dma_write(d, b, pg, 0, pg, 0) == 0);
	CHILD_CHECK(abb_dma_read(d, b, 0, 0, pg, 0) == -EACCES);
	CHILD_CHECK(strstr(abb_last_error(), "read-only memory") != NULL);
	CHILD_CHECK(abb_dmabuf_unmap(b) == 0);
	CHILD_CHECK(abb_dmabuf_map(d, m + pg, 2 * pg, &b) == -EFAULT); /* into PROT_NONE */
	CHILD_CHECK(strstr(abb_last_error(), "not all readable memory") != NULL);
	CHILD_CHECK(abb_dmabuf_map(d, m + 3 * pg, pg, &b) == -EFAULT); /* the hole */
	CHILD_CHECK(abb_dmabuf_map(d, m, 4 * pg, &b) == -EFAULT);
	abb_close(d);
	munmap(m, 3 * pg);
	return fails;
}

/* The checks above in a child (the filter stays with it); any backend. */
static void test_cover_dmabuf_map_without_procmap_query(void)
{
	int status = 0;
	pid_t pid;

	TB_REQUIRE_DEV();
	fflush(stdout);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int fails = maps_text_child();

		fflush(stdout);
#ifdef ABB_COVERAGE
		__gcov_dump();
#endif
		_exit(fails ? 1 : 0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static CU_TestInfo cover_tests[] = {
	TB_SIM_TEST(test_cover_bar0_wide_access),
	TB_SIM_TEST(test_cover_read_tag_limit),
	TB_SIM_TEST(test_cover_bus_master_disabled),
	TB_SIM_TEST(test_cover_igen_rearm),
	TB_SIM_TEST(test_cover_soft_reset_mid_transfer),
	TB_SIM_TEST(test_cover_dma_above_4g),
	TB_SIM_TEST(test_cover_chain_error_drains_fetch),
	TB_SIM_TEST(test_cover_shared_engine_read_waits),
	TB_SIM_TEST(test_cover_channel_sta_read_only),
	TB_NOVFIO_TEST(test_cover_diag_registers),
	{ "test_cover_uri_and_offset_errors", test_cover_uri_and_offset_errors },
	{ "test_cover_daq_bad_input", test_cover_daq_bad_input },
	{ "test_cover_dmabuf_map_without_procmap_query", test_cover_dmabuf_map_without_procmap_query },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo cover_suite[] = {
	{ "cover_paths", cover_init, cover_cleanup, NULL, NULL, cover_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_cover_paths(void)
{
	return CU_register_suites(cover_suite);
}
