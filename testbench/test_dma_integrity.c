/*
 * test_dma_integrity.c - data integrity of DMA write (host to board) and
 * DMA read (board to host): sizes from one word to the whole of BAR1,
 * page-unaligned host buffers, buffer offsets, scattered IOVAs (one
 * descriptor per page), board addresses not aligned to 8, FIFO mode
 * (ABB_DMA_FIXED), and PIO against DMA. Every case checks guard bytes
 * around the destination, on the board (by PIO) and in host memory.
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#define GUARD      64   /* guard bytes on each side of a destination */
#define HOST_GUARD 0xC3 /* value of host guard bytes */
#define BRD_GUARD  0xB7 /* value of board guard bytes */

static size_t mem_size(void)
{
	size_t s = 0;

	if (abb_mem_size(tb_dev, &s) < 0)
		return 0;
	return s;
}

/*
 * One DMA write then DMA read through freshly allocated, mapped host
 * buffers: the mapped region starts mis bytes after a page boundary and is
 * off + len + GUARD bytes long; the DMA uses buffer offset off. Checks the
 * data on the board (PIO, first and last bytes), the board guards, that the
 * DMA write left its source alone, the data read back and the host guards.
 * Returns 1 if all was well.
 */
static int roundtrip(uint32_t addr, size_t len, size_t mis, size_t off, uint32_t seed)
{
	size_t msz = mem_size(), maplen = off + len + GUARD, lo, hi, n;
	uint8_t *sa = NULL, *da = NULL, *s, *d, *want = NULL, *before = NULL;
	uint8_t g[GUARD], pio[64];
	abb_dmabuf *sb = NULL, *db = NULL;
	int ok = 0, rc;

	CU_ASSERT_FATAL(msz > 0);
	if ((size_t)addr + len > msz) {
		printf("\n    roundtrip: 0x%x+%zu is past BAR1 (%zu): test error\n", addr, len, msz);
		CU_FAIL("range past BAR1");
		return 0;
	}
	sa = tb_alloc_pages(mis + maplen);
	da = tb_alloc_pages(mis + maplen);
	want = malloc(len);
	before = malloc(maplen);
	if (!sa || !da || !want || !before) {
		CU_FAIL("out of memory");
		goto out;
	}
	s = sa + mis;
	d = da + mis;

	/* board guards */
	lo = addr < GUARD ? addr : GUARD;
	hi = msz - addr - len < GUARD ? msz - addr - len : GUARD;
	memset(g, BRD_GUARD, sizeof(g));
	if (lo)
		CU_ASSERT_EQUAL(abb_mem_write(tb_dev, addr - lo, g, lo), 0);
	if (hi)
		CU_ASSERT_EQUAL(abb_mem_write(tb_dev, addr + len, g, hi), 0);

	/* host to board */
	tb_fill(s, maplen, seed ^ 0x5555);
	tb_fill(want, len, seed);
	memcpy(s + off, want, len);
	memcpy(before, s, maplen);
	rc = abb_dmabuf_map(tb_dev, s, maplen, &sb);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc < 0)
		goto out;
	rc = abb_dma_write(tb_dev, sb, off, addr, len, 0);
	if (rc < 0)
		printf("\n    abb_dma_write(off %zu, addr 0x%x, len %zu): %d %s\n", off, addr, len,
		       rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, 0);
	if (rc < 0)
		goto out;
	if (!tb_same("DMA write changed its host source", s, before, maplen))
		goto out;

	/* the board holds the data (PIO), the board guards are intact */
	n = len < sizeof(pio) ? len : sizeof(pio);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, addr, pio, n), 0);
	if (!tb_same("board (PIO) after DMA write, head", pio, want, n))
		goto out;
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, addr + len - n, pio, n), 0);
	if (!tb_same("board (PIO) after DMA write, tail", pio, want + len - n, n))
		goto out;
	if (lo) {
		CU_ASSERT_EQUAL(abb_mem_read(tb_dev, addr - lo, pio, lo), 0);
		if (!tb_all_byte("board guard below a DMA write", pio, lo, BRD_GUARD))
			goto out;
	}
	if (hi) {
		CU_ASSERT_EQUAL(abb_mem_read(tb_dev, addr + len, pio, hi), 0);
		if (!tb_all_byte("board guard above a DMA write", pio, hi, BRD_GUARD))
			goto out;
	}

	/* board to host */
	memset(d, HOST_GUARD, maplen);
	rc = abb_dmabuf_map(tb_dev, d, maplen, &db);
	CU_ASSERT_EQUAL(rc, 0);
	if (rc < 0)
		goto out;
	rc = abb_dma_read(tb_dev, db, off, addr, len, 0);
	if (rc < 0)
		printf("\n    abb_dma_read(off %zu, addr 0x%x, len %zu): %d %s\n", off, addr, len,
		       rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, 0);
	if (rc < 0)
		goto out;
	if (!tb_same("DMA read data", d + off, want, len))
		goto out;
	if (!tb_all_byte("host guard below a DMA read", d, off, HOST_GUARD))
		goto out;
	if (!tb_all_byte("host guard above a DMA read", d + off + len, GUARD, HOST_GUARD))
		goto out;
	ok = 1;
out:
	if (sb)
		CU_ASSERT_EQUAL(abb_dmabuf_unmap(sb), 0);
	if (db)
		CU_ASSERT_EQUAL(abb_dmabuf_unmap(db), 0);
	if (!ok)
		printf("    (roundtrip addr 0x%x len %zu mis %zu off %zu)\n", addr, len, mis, off);
	CU_ASSERT(ok);
	free(sa);
	free(da);
	free(want);
	free(before);
	return ok;
}

static void test_dma_integrity_small_sizes(void)
{
	static const size_t len[] = { 4, 8, 12, 60, 64, 68 };
	size_t i;

	TB_REQUIRE_DEV();
	for (i = 0; i < sizeof(len) / sizeof(len[0]); i++)
		roundtrip(0x1000, len[i], 0, 0, (uint32_t)i + 1);
	/* back to back at neighbouring addresses: earlier data survives */
	for (i = 0; i < sizeof(len) / sizeof(len[0]); i++)
		roundtrip(0x2000 + 0x100 * (uint32_t)i, len[i], 64, 64, (uint32_t)i + 11);
}

static void test_dma_integrity_page_sizes(void)
{
	TB_REQUIRE_DEV();
	roundtrip(0x4000, 4096 - 4, 0, 0, 21);
	roundtrip(0x4000, 4096, 0, 0, 22);
	roundtrip(0x4000, 4096 + 4, 0, 0, 23);
	/* crossing a 4 KiB boundary of the board and of the host */
	roundtrip(0x7F00, 4096 + 4, 0, 0xF00, 24);
}

static void test_dma_integrity_64k(void)
{
	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(mem_size() >= 2 * 65536);
	roundtrip(0x10000, 65536, 0, 0, 31);
}

/* The whole of BAR1 (1 MiB with the simulator's defaults). */
static void test_dma_integrity_1m(void)
{
	size_t msz;

	TB_REQUIRE_DEV();
	msz = mem_size();
	CU_ASSERT_FATAL(msz > 0);
	if (msz < (1u << 20)) {
		printf("\n    BAR1 is %zu bytes: 1 MiB test done with the whole BAR1\n", msz);
		roundtrip(0, msz, 0, 0, 41);
		return;
	}
	roundtrip(0, 1u << 20, 0, 0, 41);
}

/* 4 MiB: on the simulator with a 4 MiB BAR1 (reopen), on a board only if
 * its BAR1 is that large. */
static void test_dma_integrity_4m(void)
{
	size_t msz;

	TB_REQUIRE_DEV();
	if (tb_is_sim()) {
		CU_ASSERT_EQUAL_FATAL(tb_reopen("mem_size=4194304"), 0);
		msz = mem_size();
		CU_ASSERT_EQUAL(msz, 4u << 20);
		if (msz >= (4u << 20))
			roundtrip(0, 4u << 20, 0, 0, 51);
		CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
		return;
	}
	msz = mem_size();
	if (msz < (4u << 20)) {
		tb_skip("BAR1 is %zu bytes, less than 4 MiB", msz);
		return;
	}
	roundtrip(0, 4u << 20, 0, 0, 51);
}

/* Host buffers that start inside a page (malloc'd, odd multiples of 4). */
static void test_dma_integrity_unaligned_host(void)
{
	static const size_t mis[] = { 4, 12, 0x804, 0xFFC };
	static const size_t len[] = { 4, 64, 4096, 8192 + 12 };
	size_t i, j;

	TB_REQUIRE_DEV();
	for (i = 0; i < sizeof(mis) / sizeof(mis[0]); i++)
		for (j = 0; j < sizeof(len) / sizeof(len[0]); j++)
			roundtrip(0x20000, len[j], mis[i], 0, (uint32_t)(100 + i * 10 + j));
	/* plain malloc memory, whatever its alignment */
	{
		uint8_t *m = malloc(3000 + GUARD + 8), *p;
		abb_dmabuf *b = NULL;
		uint8_t want[3000];

		CU_ASSERT_FATAL(m != NULL);
		p = m + ((4 - ((uintptr_t)m & 3)) & 3); /* 4-byte aligned inside */
		tb_fill(want, sizeof(want), 77);
		memcpy(p, want, sizeof(want));
		CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, p, sizeof(want), &b), 0);
		CU_ASSERT_EQUAL(abb_dma_write(tb_dev, b, 0, 0x30000, sizeof(want), 0), 0);
		memset(p, 0, sizeof(want));
		CU_ASSERT_EQUAL(abb_dma_read(tb_dev, b, 0, 0x30000, sizeof(want), 0), 0);
		CU_ASSERT(tb_same("malloc buffer round trip", p, want, sizeof(want)));
		CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
		free(m);
	}
}

/* The off parameter: the DMA uses a part of a larger mapped buffer. */
static void test_dma_integrity_buffer_offsets(void)
{
	static const size_t off[] = { 4, 60, 64, 4092, 4096, 8200 };
	size_t i;

	TB_REQUIRE_DEV();
	for (i = 0; i < sizeof(off) / sizeof(off[0]); i++)
		roundtrip(0x24000, 4100, 0, off[i], (uint32_t)(200 + i));
	roundtrip(0x24000, 12, 8, 4084, 210); /* ends exactly at a page end */
}

/* Board addresses that are multiples of 4 but not of 8. */
static void test_dma_integrity_board_unaligned(void)
{
	static const uint32_t addr[] = { 0x3004, 0x500C, 0x8FFC, 0xA0F4 };
	static const size_t len[] = { 4, 12, 60, 68, 4100 };
	size_t i, j;

	TB_REQUIRE_DEV();
	for (i = 0; i < sizeof(addr) / sizeof(addr[0]); i++)
		for (j = 0; j < sizeof(len) / sizeof(len[0]); j++)
			roundtrip(addr[i], len[j], 4 * j, 4 * i, (uint32_t)(300 + i * 10 + j));
}

static unsigned pages_spanned(const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, pg = tb_page();

	return (unsigned)((a + len - 1) / pg - a / pg + 1);
}

/* Simulator with scattered IOVAs: every page its own segment, so a buffer
 * of many pages is a chain of descriptors fetched from host memory. */
static void test_dma_integrity_scatter(void)
{
	uint32_t d0, d1;
	unsigned np;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(tb_reopen("iova=scatter"), 0);

	d0 = tb_reg(ABB_REG_DIAG_DESC);
	roundtrip(0x1000, 65536 + 8, 4, 0, 401);
	d1 = tb_reg(ABB_REG_DIAG_DESC);
	/* 17 or more pages; the first descriptor of each direction comes
	 * from the registers, the others from host memory */
	np = pages_spanned((void *)(uintptr_t)(4096 + 4), 65536 + 8);
	if (d1 - d0 < 2 * (np - 1))
		printf("\n    %u descriptors fetched for %u pages each way\n", d1 - d0, np);
	CU_ASSERT(d1 - d0 >= 2 * (np - 1));

	/* a descriptor list longer than one page (more than 64 descriptors) */
	roundtrip(0x20000, 300 * 1024 + 4, 0xFFC, 8, 402);
	/* small pieces across page boundaries */
	roundtrip(0x3004, 8, 4092, 0, 403);
	roundtrip(0x3004, 4100, 4, 4088, 404);

	/* all of a 4 MiB BAR1: a chain of 1025 descriptors (17 pages of them) */
	CU_ASSERT_EQUAL_FATAL(tb_reopen("iova=scatter,mem_size=4194304"), 0);
	roundtrip(0, 4u << 20, 0xFFC, 0, 405);

	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* FIFO mode, DMA read: N words from one fixed address give N copies. */
static void fifo_read(uint32_t f, size_t nwords, uint32_t seed)
{
	uint32_t nb[8], w, *dst;
	size_t i, len = nwords * 4, msz = mem_size();
	uint8_t *alloc;
	abb_dmabuf *b = NULL;
	uint32_t base = f >= 16 ? f - 16 : 0;
	int ok = 1;

	/* neighbours with different values, then the word itself */
	tb_fill(nb, sizeof(nb), seed);
	if (base + sizeof(nb) > msz)
		base = (uint32_t)(msz - sizeof(nb));
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, base, nb, sizeof(nb)), 0);
	w = 0xF1F00000u | seed;
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, f, &w, 4), 0);

	alloc = tb_alloc_pages(len + 2 * GUARD);
	CU_ASSERT_FATAL(alloc != NULL);
	memset(alloc, HOST_GUARD, len + 2 * GUARD);
	dst = (uint32_t *)(alloc + GUARD);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, alloc, len + 2 * GUARD, &b), 0);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, b, GUARD, f, len, ABB_DMA_FIXED), 0);
	for (i = 0; i < nwords && ok; i++) {
		if (dst[i] != w) {
			printf("\n    FIFO read 0x%x x %zu: word %zu is 0x%08x, want 0x%08x\n", f,
			       nwords, i, dst[i], w);
			ok = 0;
		}
	}
	CU_ASSERT(ok);
	CU_ASSERT(tb_all_byte("host guard below a FIFO read", alloc, GUARD, HOST_GUARD));
	CU_ASSERT(tb_all_byte("host guard above a FIFO read", alloc + GUARD + len, GUARD,
			      HOST_GUARD));
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	free(alloc);
}

static void test_dma_integrity_fifo_read(void)
{
	static const size_t n[] = { 1, 2, 3, 17, 1024, 2049 };
	size_t i;

	TB_REQUIRE_DEV();
	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		fifo_read(0x8000, n[i], (uint32_t)(500 + i));
		fifo_read(0x8804, n[i], (uint32_t)(510 + i));
	}
	/* the last word of BAR1: only the 4 bytes at board_addr must be inside */
	fifo_read((uint32_t)mem_size() - 4, 64, 520);
}

/* The event FIFO drained exactly: the source writes some events and is
 * stopped, then a fixed-address DMA read at EVS_ADDR of exactly the DWs in
 * the FIFO completes (every TLP waits only for its own DWs, not for more
 * than the FIFO will ever hold), starts with an event header and leaves
 * the FIFO empty. Sizes below and above one TLP (MPS 128 bytes).
 * Simulator: the level is watched in device time while the source runs. */
static void test_dma_integrity_evsrc_drain_exact(void)
{
	static const uint32_t want_min[] = { 24, 300 };
	const uint32_t fa = 0x10000;
	size_t i;

	TB_REQUIRE_DEV();
	for (i = 0; i < sizeof(want_min) / sizeof(want_min[0]); i++) {
		uint32_t level = 0, *h;
		abb_dmabuf *b = NULL;
		int n;

		tb_reg_set(ABB_REG_EVS_CTRL, ABB_EVS_CTRL_CLEAR);
		tb_reg_set(ABB_REG_EVS_ADDR, fa);
		tb_reg_set(ABB_REG_EVS_SIZE, 12);
		tb_reg_set(ABB_REG_EVS_GAP, 4);
		tb_reg_set(ABB_REG_EVS_CTRL, ABB_EVS_CTRL_ENABLE);
		for (n = 0; n < 100000 && level < want_min[i]; n++)
			level = tb_reg(ABB_REG_EVS_LEVEL);
		tb_reg_set(ABB_REG_EVS_CTRL, 0);
		level = tb_reg(ABB_REG_EVS_LEVEL);
		/* stopped early: less than a TLP plus half the FIFO's depth */
		CU_ASSERT_FATAL(level >= want_min[i] && level < 2048);
		h = (uint32_t *)tb_alloc_pages(level * 4);
		CU_ASSERT_FATAL(h != NULL);
		memset(h, 0, level * 4);
		CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, h, level * 4, &b), 0);
		if (abb_dma_read(tb_dev, b, 0, fa, level * 4, ABB_DMA_FIXED) != 0)
			printf("\n    draining %u DWs of the event FIFO: %s\n", level, abb_last_error());
		CU_ASSERT_EQUAL(tb_reg(ABB_REG_EVS_LEVEL), 0);
		CU_ASSERT_EQUAL(h[0] & ABB_EVS_HDR_MAGIC, ABB_EVS_MAGIC & ABB_EVS_HDR_MAGIC);
		CU_ASSERT_EQUAL(h[0] & ABB_EVS_HDR_DWS, 16);
		CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
		free(h);
	}
	tb_reg_set(ABB_REG_EVS_CTRL, ABB_EVS_CTRL_CLEAR);
	tb_reg_set(ABB_REG_EVS_ADDR, 0xFFFFFFFCu);
	tb_reg_set(ABB_REG_EVS_SIZE, 0x3C);
	tb_reg_set(ABB_REG_EVS_GAP, 0);
}

/* FIFO mode, DMA write: the fixed address ends up with the last word; the
 * neighbours keep theirs. */
static void fifo_write(uint32_t f, size_t nwords, uint32_t seed)
{
	uint8_t bg[128], got[128];
	uint32_t *src, last;
	size_t len = nwords * 4, msz = mem_size();
	uint32_t base = f >= 64 ? f - 64 : 0;
	abb_dmabuf *b = NULL;

	if (base + sizeof(bg) > msz)
		base = (uint32_t)(msz - sizeof(bg));
	tb_fill(bg, sizeof(bg), seed ^ 0xAAAA);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, base, bg, sizeof(bg)), 0);

	src = (uint32_t *)tb_alloc_pages(len);
	CU_ASSERT_FATAL(src != NULL);
	tb_fill(src, len, seed);
	last = src[nwords - 1];
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, src, len, &b), 0);
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, b, 0, f, len, ABB_DMA_FIXED), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);

	memcpy(bg + (f - base), &last, 4);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, base, got, sizeof(got)), 0);
	if (!tb_same("board around a FIFO write", got, bg, sizeof(got)))
		printf("    (FIFO write to 0x%x of %zu words; window starts at 0x%x)\n", f,
		       nwords, base);
	CU_ASSERT(memcmp(got, bg, sizeof(got)) == 0);
	free(src);
}

static void test_dma_integrity_fifo_write(void)
{
	static const size_t n[] = { 1, 2, 5, 64, 1025 };
	size_t i;

	TB_REQUIRE_DEV();
	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		fifo_write(0x9000, n[i], (uint32_t)(600 + i));
		fifo_write(0x9804, n[i], (uint32_t)(610 + i));
	}
	fifo_write((uint32_t)mem_size() - 4, 16, 620);
}

/* The bytes of two pages outside the four buffers p[] (1000 bytes each)
 * still hold HOST_GUARD. */
static void sharing_gaps_intact(const uint8_t *page, uint8_t *const p[4])
{
	size_t o, i;

	for (o = 0; o < 2 * 4096; o++) {
		int inside = 0;

		for (i = 0; i < 4; i++)
			if (page + o >= p[i] && page + o < p[i] + 1000)
				inside = 1;
		if (!inside && page[o] != HOST_GUARD) {
			printf("\n    byte %zu outside the page-sharing buffers is %02x\n", o,
			       page[o]);
			CU_FAIL("a DMA wrote outside its buffer");
			return;
		}
	}
}

/* Small buffers that share a page (a pool of small buffers, as DABC maps
 * them): each is its own DMA buffer; unmapping one leaves the others
 * working, and no DMA touches a neighbour. */
static void test_dma_integrity_buffers_sharing_a_page(void)
{
	enum { NB = 4, BL = 1000 }; /* four 1000-byte buffers, 24 bytes apart */
	uint8_t *page = tb_alloc_pages(2 * 4096), *p[NB], want[BL], got[BL];
	abb_dmabuf *b[NB] = { 0 };
	size_t i, k;

	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(page != NULL);
	memset(page, HOST_GUARD, 2 * 4096);
	for (i = 0; i < NB; i++) {
		/* 24, 1048, 2072 in the first page; the last one crosses into
		 * the second page */
		p[i] = page + 24 + i * (BL + 24);
		if (i == NB - 1)
			p[i] = page + 4096 - 500;
		CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, p[i], BL, &b[i]), 0);
	}
	/* board to host into each, neighbours untouched */
	for (i = 0; i < NB; i++) {
		tb_fill(want, BL, (uint32_t)(900 + i));
		CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0x30000 + (uint32_t)i * 0x1000, want, BL), 0);
		CU_ASSERT_EQUAL(abb_dma_read(tb_dev, b[i], 0, 0x30000 + (uint32_t)i * 0x1000, BL, 0),
				0);
		CU_ASSERT(tb_same("DMA read into a buffer sharing a page", p[i], want, BL));
	}
	sharing_gaps_intact(page, p);
	/* unmap the first two; the others keep working both ways */
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b[0]), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b[1]), 0);
	b[0] = b[1] = NULL;
	for (i = 2; i < NB; i++) {
		tb_fill(p[i], BL, (uint32_t)(950 + i));
		memcpy(want, p[i], BL);
		CU_ASSERT_EQUAL(abb_dma_write(tb_dev, b[i], 0, 0x38000, BL, 0), 0);
		CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0x38000, got, BL), 0);
		CU_ASSERT(tb_same("DMA write from a buffer sharing a page (after unmaps)", got,
				  want, BL));
		memset(p[i], 0, BL);
		CU_ASSERT_EQUAL(abb_dma_read(tb_dev, b[i], 0, 0x38000, BL, 0), 0);
		CU_ASSERT(tb_same("DMA read into a buffer sharing a page (after unmaps)", p[i],
				  want, BL));
	}
	sharing_gaps_intact(page, p);
	for (k = 0; k < NB; k++)
		if (b[k])
			CU_ASSERT_EQUAL(abb_dmabuf_unmap(b[k]), 0);
	free(page);
}

/* Simulator: the same transfers under other link parameters (payload and
 * read-request sizes, completion boundary, reordered completions, lanes),
 * which change how every transfer is cut into TLPs. */
static void test_dma_integrity_link_configs(void)
{
	static const char *const cfg[] = {
		"mps=256,mrrs=128",
		"mps=512,mrrs=4096,rcb=128",
		"reorder=1,seed=7",
		"reorder=1,seed=12345,mrrs=1024,iova=scatter",
		"reorder=2,mrrs=256,iova=scatter",
		"gen=2,lanes=8,mps=1024",
		"lanes=1,link_ns=2000,mem_ns=1500",
	};
	size_t i;

	TB_REQUIRE_DEV();
	for (i = 0; i < sizeof(cfg) / sizeof(cfg[0]); i++) {
		int rc = tb_reopen(cfg[i]);

		if (rc < 0)
			printf("\n    cannot open the simulator with %s\n", cfg[i]);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		if (!roundtrip(0x1004, 68, 4, 0, (uint32_t)(1100 + i * 10)) ||
		    !roundtrip(0x3000, 4100, 0xFFC, 8, (uint32_t)(1101 + i * 10)) ||
		    !roundtrip(0x10004, 65536 + 12, 12, 4, (uint32_t)(1102 + i * 10)) ||
		    !roundtrip(0x40000, 256 * 1024, 0, 0, (uint32_t)(1103 + i * 10)))
			printf("    (link parameters %s)\n", cfg[i]);
		fifo_read(0x8004, 300, (uint32_t)(1104 + i * 10));
		/* FIFO writes with reordered completions: a test of their own */
		if (!strstr(cfg[i], "reorder=1"))
			fifo_write(0x9004, 300, (uint32_t)(1105 + i * 10));
	}
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* Simulator: a FIFO-mode DMA write (host to board) whose read completions
 * come back reordered across tags must still deliver the words in stream
 * order, so the last word of the buffer is what stays at the fixed
 * address (the mover keeps one read outstanding in FIFO mode). */
static void test_dma_integrity_fifo_write_reordered(void)
{
	static const size_t n[] = { 129, 300, 1025 };
	size_t i;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(tb_reopen("reorder=1,seed=7"), 0);
	for (i = 0; i < sizeof(n) / sizeof(n[0]); i++)
		fifo_write(0x9004, n[i], (uint32_t)(1200 + i));
	CU_ASSERT_EQUAL(tb_reopen(NULL), 0);
}

/* A board window for the PIO/DMA comparison, and its expected contents. */
#define WIN_LEN 8192
static uint8_t shadow[WIN_LEN];

static uint32_t win_base(void)
{
	size_t msz = mem_size();

	return msz >= 0x40000 + WIN_LEN ? 0x40000 : (uint32_t)(msz - WIN_LEN);
}

/* Reads the whole window by DMA and compares it with the shadow. */
static void check_window_by_dma(const char *what)
{
	uint8_t *h = tb_alloc_pages(WIN_LEN);
	abb_dmabuf *b = NULL;

	CU_ASSERT_FATAL(h != NULL);
	memset(h, HOST_GUARD, WIN_LEN);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, h, WIN_LEN, &b), 0);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, b, 0, win_base(), WIN_LEN, 0), 0);
	CU_ASSERT(tb_same(what, h, shadow, WIN_LEN));
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	free(h);
}

/* Fills the window by DMA with pattern seed. */
static void fill_window_by_dma(uint32_t seed)
{
	uint8_t *h = tb_alloc_pages(WIN_LEN);
	abb_dmabuf *b = NULL;

	CU_ASSERT_FATAL(h != NULL);
	tb_fill(shadow, WIN_LEN, seed);
	memcpy(h, shadow, WIN_LEN);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, h, WIN_LEN, &b), 0);
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, b, 0, win_base(), WIN_LEN, 0), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	free(h);
}

/* Odd (offset, length) pieces of the window. */
static const struct {
	uint32_t off;
	uint32_t len;
} pieces[] = {
	{ 1, 1 },     { 3, 5 },      { 0x101, 13 },  { 0x203, 257 }, { 0x7FF, 2 },
	{ 0xFFD, 7 }, { 0x1002, 3000 }, { 0x1E01, 511 }, { 0x1FFF, 1 },
};

static void test_dma_integrity_pio_write_dma_read(void)
{
	uint8_t piece[3000];
	size_t i;

	TB_REQUIRE_DEV();
	fill_window_by_dma(700);
	check_window_by_dma("window after a DMA write");
	for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		tb_fill(piece, pieces[i].len, (uint32_t)(710 + i));
		CU_ASSERT_EQUAL(abb_mem_write(tb_dev, win_base() + pieces[i].off, piece,
					      pieces[i].len), 0);
		memcpy(shadow + pieces[i].off, piece, pieces[i].len);
	}
	check_window_by_dma("window by DMA after PIO writes at odd offsets");
}

static void test_dma_integrity_dma_write_pio_read(void)
{
	uint8_t piece[3000];
	size_t i;

	TB_REQUIRE_DEV();
	fill_window_by_dma(800);
	for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		memset(piece, 0, sizeof(piece));
		CU_ASSERT_EQUAL(abb_mem_read(tb_dev, win_base() + pieces[i].off, piece,
					     pieces[i].len), 0);
		if (!tb_same("PIO read after a DMA write", piece, shadow + pieces[i].off,
			     pieces[i].len))
			printf("    (piece at 0x%x, %u bytes)\n", pieces[i].off, pieces[i].len);
	}
	/* and the whole window by PIO */
	{
		static uint8_t all[WIN_LEN];

		CU_ASSERT_EQUAL(abb_mem_read(tb_dev, win_base(), all, WIN_LEN), 0);
		CU_ASSERT(tb_same("whole window by PIO", all, shadow, WIN_LEN));
	}
}

/* PIO of large ranges (any length within BAR1 is allowed) agrees with
 * DMA: 24 KiB, 64 KiB, and the whole of BAR1 (the simulator's root
 * complex keeps a bounded number of 128-byte reads in flight, as a CPU). */
static void test_dma_integrity_pio_large(void)
{
	static const size_t len[] = { 24 * 1024, 65536, 0 /* all of BAR1 */ };
	size_t i, msz = mem_size();
	uint8_t *h, *pio;
	abb_dmabuf *b = NULL;

	TB_REQUIRE_DEV();
	h = tb_alloc_pages(msz);
	pio = malloc(msz);
	CU_ASSERT_FATAL(h != NULL && pio != NULL);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, h, msz, &b), 0);
	for (i = 0; i < sizeof(len) / sizeof(len[0]); i++) {
		size_t n = len[i] ? len[i] : msz;
		uint32_t addr = len[i] ? 0x10000 : 0;
		int rc;

		/* PIO write, DMA read */
		tb_fill(pio, n, (uint32_t)(1300 + i));
		CU_ASSERT_EQUAL(abb_mem_write(tb_dev, addr, pio, n), 0);
		memset(h, 0, n);
		CU_ASSERT_EQUAL(abb_dma_read(tb_dev, b, 0, addr, n, 0), 0);
		CU_ASSERT(tb_same("DMA read after a large PIO write", h, pio, n));
		/* DMA write, PIO read */
		tb_fill(h, n, (uint32_t)(1310 + i));
		CU_ASSERT_EQUAL(abb_dma_write(tb_dev, b, 0, addr, n, 0), 0);
		memset(pio, 0, n);
		rc = abb_mem_read(tb_dev, addr, pio, n);
		if (rc < 0)
			printf("\n    abb_mem_read(0x%x, %zu): %d %s\n", addr, n, rc,
			       abb_last_error());
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT(tb_same("large PIO read after a DMA write", pio, h, n));
	}
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	free(h);
	free(pio);
}

/* Random shapes from a fixed seed (reproducible): board address, length,
 * host misalignment and buffer offset, all multiples of 4; also FIFO mode.
 * TB_RANDOM_N sets the count (default 150), TB_RANDOM_SEED the seed. */
static void test_dma_integrity_random(void)
{
	const char *e = getenv("TB_RANDOM_N");
	unsigned n = e ? (unsigned)strtoul(e, NULL, 0) : 150, i;
	uint32_t x = getenv("TB_RANDOM_SEED") ? (uint32_t)strtoul(getenv("TB_RANDOM_SEED"), NULL, 0)
					      : 20260101u;
	size_t msz;

	TB_REQUIRE_DEV();
	msz = mem_size();
	CU_ASSERT_FATAL(msz >= 65536);
	for (i = 0; i < n; i++) {
		uint32_t r[5], addr;
		size_t len, mis, off;
		int k;

		for (k = 0; k < 5; k++) {
			x ^= x << 13;
			x ^= x >> 17;
			x ^= x << 5;
			r[k] = x;
		}
		/* mostly small, sometimes up to 128 KiB */
		len = 4 * (1 + (r[0] % 8 == 0 ? r[1] % 32768 : r[1] % 600));
		if (len > msz)
			len = msz;
		addr = (uint32_t)(4 * (r[2] % ((msz - len) / 4 + 1)));
		mis = 4 * (r[3] % 1024);
		off = 4 * (r[4] % 2048);
		if (r[0] % 16 == 1) {
			fifo_read(addr & ~3u, len / 4 > 600 ? 600 : len / 4, x);
			continue;
		}
		if (!roundtrip(addr, len, mis, off, x)) {
			printf("    (random case %u of seed %s)\n", i,
			       getenv("TB_RANDOM_SEED") ? getenv("TB_RANDOM_SEED") : "default");
			break;
		}
	}
}

static CU_TestInfo dma_integrity_tests[] = {
	{ "test_dma_integrity_small_sizes", test_dma_integrity_small_sizes },
	TB_SIM_TEST(test_dma_integrity_evsrc_drain_exact),
	{ "test_dma_integrity_page_sizes", test_dma_integrity_page_sizes },
	{ "test_dma_integrity_64k", test_dma_integrity_64k },
	{ "test_dma_integrity_1m", test_dma_integrity_1m },
	{ "test_dma_integrity_4m", test_dma_integrity_4m },
	{ "test_dma_integrity_unaligned_host", test_dma_integrity_unaligned_host },
	{ "test_dma_integrity_buffer_offsets", test_dma_integrity_buffer_offsets },
	{ "test_dma_integrity_board_unaligned", test_dma_integrity_board_unaligned },
	TB_SIM_TEST(test_dma_integrity_scatter),
	{ "test_dma_integrity_fifo_read", test_dma_integrity_fifo_read },
	{ "test_dma_integrity_fifo_write", test_dma_integrity_fifo_write },
	{ "test_dma_integrity_buffers_sharing_a_page", test_dma_integrity_buffers_sharing_a_page },
	TB_SIM_TEST(test_dma_integrity_link_configs),
	TB_SIM_TEST(test_dma_integrity_fifo_write_reordered),
	{ "test_dma_integrity_pio_write_dma_read", test_dma_integrity_pio_write_dma_read },
	{ "test_dma_integrity_dma_write_pio_read", test_dma_integrity_dma_write_pio_read },
	{ "test_dma_integrity_pio_large", test_dma_integrity_pio_large },
	{ "test_dma_integrity_random", test_dma_integrity_random },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo dma_integrity_suite[] = {
	{ "dma_integrity", tb_suite_open, tb_suite_close, NULL, NULL, dma_integrity_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_dma_integrity(void)
{
	return CU_register_suites(dma_integrity_suite);
}
