/*
 * test_bad_input.c - the library refuses bad input with a specific errno
 * and no hardware access, and the board works normally afterwards: NULL
 * handles and pointers, lengths, offsets and ranges, stale DMA buffers,
 * unmap while busy, overlapping maps, unknown URIs, a second start on a
 * busy channel, URI options without a value or too long, a buffer's
 * pieces asked for wrongly, abb_dmabuf_map's memory checks without the
 * kernel's PROCMAP_QUERY (the text of /proc/self/maps, in a child); and
 * (simulator) a descriptor that points outside mapped memory, which the
 * board reports as an error without touching host memory, and which a
 * channel reset clears.
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#include "abb_procmap.h" /* host/lib: the kernel request libabb uses */

#define BUFLEN (64u * 1024u)

static uint8_t *buf;        /* BUFLEN bytes, page aligned */
static abb_dmabuf *bufmap;  /* buf, mapped */

static int bad_input_init(void)
{
	if (tb_suite_open() < 0)
		return -1;
	buf = tb_alloc_pages(BUFLEN);
	if (!buf || abb_dmabuf_map(tb_dev, buf, BUFLEN, &bufmap) < 0)
		return -1;
	return 0;
}

static int bad_input_cleanup(void)
{
	if (bufmap && tb_dev)
		(void)abb_dmabuf_unmap(bufmap);
	bufmap = NULL;
	free(buf);
	buf = NULL;
	return tb_suite_close();
}

static size_t mem_size(void)
{
	size_t s = 0;

	CU_ASSERT_EQUAL(abb_mem_size(tb_dev, &s), 0);
	return s;
}

/* A good DMA write and read through the suite's buffer: the board works.
 * Both channels are idle before and after. */
static void good_dma(uint32_t seed)
{
	static uint8_t want[4096];

	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_C2H + ABB_CH_STA) & ABB_STA_BUSY, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_H2C + ABB_CH_STA) & ABB_STA_BUSY, 0);
	tb_fill(want, sizeof(want), seed);
	memcpy(buf, want, sizeof(want));
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, bufmap, 0, 0x6000, sizeof(want), 0), 0);
	memset(buf, 0, sizeof(want));
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, bufmap, 0, 0x6000, sizeof(want), 0), 0);
	CU_ASSERT(tb_same("good DMA after bad input", buf, want, sizeof(want)));
}

/* expr must give exactly err, and leave a message in abb_last_error(). */
#define EXPECT_ERR(expr, err)                                                    \
	do {                                                                     \
		int rc_ = (expr);                                                \
		if (rc_ != (err))                                                \
			printf("\n    %s: got %d, want %d (%s)\n", #expr, rc_, (err), \
			       abb_strerror(err));                               \
		CU_ASSERT_EQUAL(rc_, (err));                                     \
	} while (0)

static void test_bad_input_open(void)
{
	abb_dev *d = (abb_dev *)0x1;

	TB_REQUIRE_DEV();
	EXPECT_ERR(abb_open(NULL, "sim"), -EINVAL);
	EXPECT_ERR(abb_open(&d, "no-such-backend"), -EINVAL);
	EXPECT_ERR(abb_open(&d, "simulator"), -EINVAL);
	EXPECT_ERR(abb_open(&d, "sim:no_such_option=1"), -EINVAL);
	EXPECT_ERR(abb_open(&d, "sim:mem_size=12345"), -EINVAL); /* not a power of 2 */
	CU_ASSERT(abb_last_error()[0] != '\0');
	if (tb_is_sim()) {
		/* the simulated board is a per-process singleton */
		EXPECT_ERR(abb_open(&d, "sim"), -EBUSY);
	}
	good_dma(1);
}

static void test_bad_input_null_handles(void)
{
	abb_dmabuf *b = NULL;
	uint32_t v;
	size_t s;
	uint64_t t;
	uint8_t x[8];

	TB_REQUIRE_DEV();
	EXPECT_ERR(abb_reg_read(NULL, 0, &v), -EINVAL);
	EXPECT_ERR(abb_reg_read(tb_dev, 0, NULL), -EINVAL);
	EXPECT_ERR(abb_reg_write(NULL, ABB_REG_IER, 0), -EINVAL);
	EXPECT_ERR(abb_mem_read(NULL, 0, x, 4), -EINVAL);
	EXPECT_ERR(abb_mem_read(tb_dev, 0, NULL, 4), -EINVAL);
	EXPECT_ERR(abb_mem_write(NULL, 0, x, 4), -EINVAL);
	EXPECT_ERR(abb_mem_write(tb_dev, 0, NULL, 4), -EINVAL);
	EXPECT_ERR(abb_mem_size(NULL, &s), -EINVAL);
	EXPECT_ERR(abb_mem_size(tb_dev, NULL), -EINVAL);
	EXPECT_ERR(abb_time_ns(NULL, &t), -EINVAL);
	EXPECT_ERR(abb_time_ns(tb_dev, NULL), -EINVAL);

	EXPECT_ERR(abb_dmabuf_map(NULL, buf, 4096, &b), -EINVAL);
	EXPECT_ERR(abb_dmabuf_map(tb_dev, NULL, 4096, &b), -EINVAL);
	EXPECT_ERR(abb_dmabuf_map(tb_dev, x, 0, &b), -EINVAL);
	EXPECT_ERR(abb_dmabuf_map(tb_dev, x, sizeof(x), NULL), -EINVAL);
	EXPECT_ERR(abb_dmabuf_unmap(NULL), -EINVAL);

	EXPECT_ERR(abb_dma_read(NULL, bufmap, 0, 0, 4, 0), -EINVAL);
	EXPECT_ERR(abb_dma_read(tb_dev, NULL, 0, 0, 4, 0), -EINVAL);
	EXPECT_ERR(abb_dma_read_start(NULL, bufmap, 0, 0, 4, 0), -EINVAL);
	EXPECT_ERR(abb_dma_read_start(tb_dev, NULL, 0, 0, 4, 0), -EINVAL);
	EXPECT_ERR(abb_dma_write(NULL, bufmap, 0, 0, 4, 0), -EINVAL);
	EXPECT_ERR(abb_dma_write(tb_dev, NULL, 0, 0, 4, 0), -EINVAL);
	EXPECT_ERR(abb_dma_write_start(NULL, bufmap, 0, 0, 4, 0), -EINVAL);
	EXPECT_ERR(abb_dma_write_start(tb_dev, NULL, 0, 0, 4, 0), -EINVAL);
	EXPECT_ERR(abb_dma_read_wait(NULL, 0), -EINVAL);
	EXPECT_ERR(abb_dma_write_wait(NULL, 0), -EINVAL);
	EXPECT_ERR(abb_irq_wait(NULL, ABB_IRQ_GEN, 0), -EINVAL);

	EXPECT_ERR(abb_sim_cycles(NULL, &t), -EINVAL);
	if (tb_is_sim() || tb_is_timed_model())
		EXPECT_ERR(abb_sim_cycles(tb_dev, NULL), -EINVAL);
	else
		EXPECT_ERR(abb_sim_cycles(tb_dev, &t), -ENOTSUP);

	abb_close(NULL); /* ignored */
	CU_ASSERT_PTR_NOT_NULL(abb_strerror(-EINVAL));
	CU_ASSERT(abb_strerror(-EINVAL)[0] != '\0');
	CU_ASSERT_PTR_NOT_NULL(abb_strerror(-123456));
	CU_ASSERT_PTR_NOT_NULL(abb_strerror(0));
	good_dma(2);
}

static void test_bad_input_reg_offsets(void)
{
	uint32_t v;

	TB_REQUIRE_DEV();
	EXPECT_ERR(abb_reg_read(tb_dev, 2, &v), -EINVAL);
	EXPECT_ERR(abb_reg_read(tb_dev, 0x11, &v), -EINVAL);
	EXPECT_ERR(abb_reg_write(tb_dev, ABB_REG_IER + 1, 7), -EINVAL);
	EXPECT_ERR(abb_reg_read(tb_dev, 0xFFFFFFFCu, &v), -EINVAL);
	EXPECT_ERR(abb_reg_write(tb_dev, 0xFFFFFFFCu, 0), -EINVAL);
	/* the refused misaligned write did not reach IER */
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER), 0);
	good_dma(3);
}

static void test_bad_input_pio_ranges(void)
{
	size_t msz = mem_size();
	uint8_t x[16], before[2], after[2];

	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(msz >= 65536);
	EXPECT_ERR(abb_mem_read(tb_dev, 0, x, 0), -EINVAL); /* zero length */
	EXPECT_ERR(abb_mem_write(tb_dev, 0, x, 0), -EINVAL);
	memset(x, 0xEE, sizeof(x));
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, (uint32_t)msz - 2, before, 2), 0);
	EXPECT_ERR(abb_mem_write(tb_dev, (uint32_t)msz - 2, x, 4), -EINVAL);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, (uint32_t)msz - 2, after, 2), 0);
	CU_ASSERT(tb_same("BAR1 end after a refused PIO write", after, before, 2));
	EXPECT_ERR(abb_mem_read(tb_dev, (uint32_t)msz - 2, x, 4), -EINVAL);
	EXPECT_ERR(abb_mem_read(tb_dev, (uint32_t)msz, x, 1), -EINVAL);
	EXPECT_ERR(abb_mem_write(tb_dev, (uint32_t)msz, x, 1), -EINVAL);
	EXPECT_ERR(abb_mem_write(tb_dev, 0xFFFFFFFFu, x, 2), -EINVAL); /* wraps */
	EXPECT_ERR(abb_mem_read(tb_dev, 0, buf, msz + 1), -EINVAL);
	/* the last byte is fine */
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, (uint32_t)msz - 1, x, 1), 0);
	good_dma(4);
}

/* The DMA calls, as one table to try bad arguments on all six. */
typedef int (*dma_fn)(abb_dev *, abb_dmabuf *, size_t, uint32_t, size_t, unsigned);
static const struct {
	const char *name;
	dma_fn fn;
	int is_start, is_read;
} dma_fns[] = {
	{ "abb_dma_read", abb_dma_read, 0, 1 },
	{ "abb_dma_read_start", abb_dma_read_start, 1, 1 },
	{ "abb_dma_write", abb_dma_write, 0, 0 },
	{ "abb_dma_write_start", abb_dma_write_start, 1, 0 },
};
#define NFNS (sizeof(dma_fns) / sizeof(dma_fns[0]))

/* Calls every DMA function with (off, addr, len, flags), expects err and
 * no effect: the host buffer keeps its pattern, the channels stay idle. */
static void dma_expect(size_t off, uint32_t addr, size_t len, unsigned flags, int err)
{
	size_t i;

	for (i = 0; i < NFNS; i++) {
		int rc;

		memset(buf, 0x3C, 256);
		rc = dma_fns[i].fn(tb_dev, bufmap, off, addr, len, flags);
		if (rc != err)
			printf("\n    %s(off %zu, addr 0x%x, len %zu, flags %u): got %d, want %d\n",
			       dma_fns[i].name, off, addr, len, flags, rc, err);
		CU_ASSERT_EQUAL(rc, err);
		if (rc == 0 && dma_fns[i].is_start) {
			/* wrongly accepted: finish it so the next call is clean */
			int w = dma_fns[i].is_read ? abb_dma_read_wait(tb_dev, ABB_WAIT_FOREVER)
						   : abb_dma_write_wait(tb_dev, ABB_WAIT_FOREVER);
			if (w < 0)
				printf("    (collecting it: %d)\n", w);
		}
		CU_ASSERT(tb_all_byte("host buffer after a refused DMA", buf, 256, 0x3C));
	}
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_C2H + ABB_CH_STA) & ABB_STA_BUSY, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_H2C + ABB_CH_STA) & ABB_STA_BUSY, 0);
}

static void test_bad_input_dma_lengths(void)
{
	TB_REQUIRE_DEV();
	dma_expect(0, 0x1000, 0, 0, -EINVAL);  /* zero length */
	dma_expect(0, 0x1000, 6, 0, -EINVAL);  /* not a multiple of 4 */
	dma_expect(0, 0x1000, 1, 0, -EINVAL);
	dma_expect(0, 0x1000, 4095, 0, -EINVAL);
	dma_expect(2, 0x1000, 8, 0, -EINVAL);  /* buffer offset not a multiple of 4 */
	dma_expect(0, 0x1002, 8, 0, -EINVAL);  /* board address not a multiple of 4 */
	dma_expect(0, 0x1001, 8, ABB_DMA_FIXED, -EINVAL);
	dma_expect(0, 0x1000, 0, ABB_DMA_FIXED, -EINVAL);
	dma_expect(0, 0x1000, 4, 0x80000000u, -EINVAL); /* unknown flag */
	good_dma(5);
}

static void test_bad_input_dma_ranges(void)
{
	size_t msz = mem_size();

	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(msz >= 65536);
	/* past the end of BAR1 */
	dma_expect(0, (uint32_t)msz - 4, 8, 0, -EINVAL);
	dma_expect(0, (uint32_t)msz, 4, 0, -EINVAL);
	dma_expect(0, (uint32_t)msz - 4096, 8192, 0, -EINVAL);
	dma_expect(0, 0xFFFFFFFCu, 8, 0, -EINVAL); /* wraps */
	dma_expect(0, (uint32_t)msz, 4, ABB_DMA_FIXED, -EINVAL);
	dma_expect(0, 0, msz + 4, 0, -EINVAL);
	/* past the end of the mapped buffer */
	dma_expect(0, 0, BUFLEN + 4, 0, -EINVAL);
	dma_expect(BUFLEN, 0, 4, 0, -EINVAL);
	dma_expect(BUFLEN - 4, 0, 8, 0, -EINVAL);
	dma_expect((size_t)-4, 0, 8, 0, -EINVAL); /* wraps */
	good_dma(6);
}

/* A handle that was unmapped is detected (the test keeps the pointer the
 * library freed and passes it: the library must not trust it). */
static void test_bad_input_stale_buffer(void)
{
	uint8_t *p = tb_alloc_pages(8192);
	abb_dmabuf *b = NULL, *stale;
	size_t i;

	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, p, 8192, &b), 0);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_unmap(b), 0);
	stale = b;
	/* nothing is mapped in between, so the pointer cannot be reused */
	EXPECT_ERR(abb_dmabuf_unmap(stale), -EINVAL);
	memset(p, 0x77, 8192);
	for (i = 0; i < NFNS; i++) {
		int rc = dma_fns[i].fn(tb_dev, stale, 0, 0x1000, 4096, 0);

		if (rc != -EINVAL)
			printf("\n    %s(unmapped buffer): got %d, want %d\n", dma_fns[i].name, rc,
			       -EINVAL);
		CU_ASSERT_EQUAL(rc, -EINVAL);
	}
	CU_ASSERT(tb_all_byte("unmapped buffer after refused DMAs", p, 8192, 0x77));
	/* the memory can be mapped again */
	CU_ASSERT_EQUAL(abb_dmabuf_map(tb_dev, p, 8192, &b), 0);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, b, 0, 0x6000, 4096, 0), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	free(p);
	good_dma(7);
}

static void test_bad_input_unmap_busy(void)
{
	const size_t len = 256 * 1024;
	uint8_t *p = tb_alloc_pages(len), *want = malloc(len);
	abb_dmabuf *b = NULL;

	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(p != NULL && want != NULL);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, p, len, &b), 0);
	/* DMA write running out of it */
	tb_fill(p, len, 8);
	memcpy(want, p, len);
	CU_ASSERT_EQUAL_FATAL(abb_dma_write_start(tb_dev, b, 0, 0x10000, len, 0), 0);
	EXPECT_ERR(abb_dmabuf_unmap(b), -EBUSY);
	CU_ASSERT_EQUAL(abb_dma_write_wait(tb_dev, ABB_WAIT_FOREVER), 0);
	/* DMA read running into it */
	memset(p, 0, len);
	CU_ASSERT_EQUAL_FATAL(abb_dma_read_start(tb_dev, b, 0, 0x10000, len, 0), 0);
	EXPECT_ERR(abb_dmabuf_unmap(b), -EBUSY);
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, ABB_WAIT_FOREVER), 0);
	CU_ASSERT(tb_same("DMA read after a refused unmap", p, want, len));
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	free(p);
	free(want);
	good_dma(9);
}

static void test_bad_input_overlapping_map(void)
{
	size_t pg = tb_page();
	uint8_t *p = tb_alloc_pages(4 * pg);
	abb_dmabuf *a = NULL, *b = NULL, *c = (abb_dmabuf *)0x1;

	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(p != NULL);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, p, 2 * pg, &a), 0);
	EXPECT_ERR(abb_dmabuf_map(tb_dev, p, 2 * pg, &c), -EEXIST);        /* the same */
	EXPECT_ERR(abb_dmabuf_map(tb_dev, p + pg, 2 * pg, &c), -EEXIST);   /* the tail */
	EXPECT_ERR(abb_dmabuf_map(tb_dev, p + 100, 200, &c), -EEXIST);     /* inside */
	EXPECT_ERR(abb_dmabuf_map(tb_dev, p + 2 * pg - 4, 8, &c), -EEXIST); /* last word */
	/* the suite's buffer is mapped too */
	EXPECT_ERR(abb_dmabuf_map(tb_dev, buf + 4096, 4096, &c), -EEXIST);
	/* the next pages are free */
	CU_ASSERT_EQUAL(abb_dmabuf_map(tb_dev, p + 2 * pg, 2 * pg, &b), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(a), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	/* nothing was left registered by the refused maps */
	CU_ASSERT_EQUAL(abb_dmabuf_map(tb_dev, p + pg, 2 * pg, &a), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(a), 0);
	free(p);
	good_dma(10);
}

static void test_bad_input_busy_channel(void)
{
	const size_t len = 32 * 1024;

	TB_REQUIRE_DEV();
	tb_fill(buf + len, len, 11);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0x20000, buf + len, len), 0);
	memset(buf, 0, len);
	CU_ASSERT_EQUAL_FATAL(abb_dma_read_start(tb_dev, bufmap, 0, 0x20000, len, 0), 0);
	EXPECT_ERR(abb_dma_read_start(tb_dev, bufmap, 0, 0x30000, 4, 0), -EBUSY);
	EXPECT_ERR(abb_dma_read(tb_dev, bufmap, 0, 0x30000, 4, 0), -EBUSY);
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, ABB_WAIT_FOREVER), 0);
	CU_ASSERT(tb_same("DMA read after refused starts", buf, buf + len, len));

	CU_ASSERT_EQUAL_FATAL(abb_dma_write_start(tb_dev, bufmap, 0, 0x30000, len, 0), 0);
	EXPECT_ERR(abb_dma_write_start(tb_dev, bufmap, 0, 0x40000, 4, 0), -EBUSY);
	EXPECT_ERR(abb_dma_write(tb_dev, bufmap, 0, 0x40000, 4, 0), -EBUSY);
	CU_ASSERT_EQUAL(abb_dma_write_wait(tb_dev, ABB_WAIT_FOREVER), 0);
	good_dma(12);
}

/* A wait with nothing started on that channel. */
static void test_bad_input_wait_without_start(void)
{
	TB_REQUIRE_DEV();
	EXPECT_ERR(abb_dma_read_wait(tb_dev, 1000), -EINVAL);
	EXPECT_ERR(abb_dma_write_wait(tb_dev, ABB_WAIT_FOREVER), -EINVAL);
	/* and after a completed one: it was collected already */
	CU_ASSERT_EQUAL(abb_dma_read_start(tb_dev, bufmap, 0, 0x6000, 64, 0), 0);
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, ABB_WAIT_FOREVER), 0);
	EXPECT_ERR(abb_dma_read_wait(tb_dev, 1000), -EINVAL);
	good_dma(17);
}

/* Simulation-only calls with bad arguments. */
static void test_bad_input_sim_calls(void)
{
	uint64_t c;

	TB_REQUIRE_DEV();
	EXPECT_ERR(abb_sim_advance(tb_dev, -5), -EINVAL);
	EXPECT_ERR(abb_sim_faults(tb_dev, NULL, 4), -EINVAL);
	EXPECT_ERR(abb_sim_trace(tb_dev, NULL, 0, 0), -EINVAL);
	EXPECT_ERR(abb_sim_trace(tb_dev, "/tmp/abb-tb-x.fst", 100, 50), -EINVAL);
	/* a window that has passed would write an empty file: refused */
	CU_ASSERT_EQUAL(abb_sim_cycles(tb_dev, &c), 0);
	CU_ASSERT(c > 1);
	EXPECT_ERR(abb_sim_trace(tb_dev, "/tmp/abb-tb-x.fst", 0, 1), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "has passed"));
	EXPECT_ERR(abb_sim_tlp_log(tb_dev, ""), -EINVAL);
	EXPECT_ERR(abb_sim_cfg_dump(tb_dev, NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_sim_cycles(tb_dev, &c), 0);
	good_dma(18);
}

/* abb_close with a DMA in flight: it waits (bounded) or stops it; the
 * board opens again and works. */
static void test_bad_input_close_while_busy(void)
{
	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(abb_dma_read_start(tb_dev, bufmap, 0, 0, BUFLEN, 0), 0);
	CU_ASSERT_EQUAL_FATAL(abb_dma_write_start(tb_dev, bufmap, 0, 0x80000, BUFLEN, 0), 0);
	tb_close(); /* unmaps bufmap too */
	bufmap = NULL;
	CU_ASSERT_EQUAL_FATAL(tb_open(NULL), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_C2H + ABB_CH_STA) & ABB_STA_BUSY, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_H2C + ABB_CH_STA) & ABB_STA_BUSY, 0);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, buf, BUFLEN, &bufmap), 0);
	good_dma(19);
}

static void test_bad_input_irq_sources(void)
{
	TB_REQUIRE_DEV();
	EXPECT_ERR(abb_irq_wait(tb_dev, 0, 1000), -EINVAL);
	EXPECT_ERR(abb_irq_wait(tb_dev, 0x8, 1000), -EINVAL);
	EXPECT_ERR(abb_irq_wait(tb_dev, ABB_IRQ_GEN | 0x100, 1000), -EINVAL);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & ~7u, 0);
	good_dma(13);
}

/* Polls STA of a channel until it is not plain BUSY (simulator: register
 * reads let device time run); returns the last DONE/BUSY bits. */
static uint32_t wait_not_busy(uint32_t blk)
{
	uint64_t t0 = tb_now_ns();
	uint32_t s = ABB_STA_BUSY;

	while (tb_now_ns() - t0 < 1000000) {
		s = tb_reg(blk + ABB_CH_STA) & (ABB_STA_DONE | ABB_STA_BUSY);
		if (s != ABB_STA_BUSY)
			break;
	}
	return s;
}

static int has_fault(const struct abb_sim_fault *f, int n, uint64_t iova, uint32_t is_write)
{
	int i;

	for (i = 0; i < n; i++)
		if (f[i].iova == iova && f[i].is_write == is_write && f[i].len > 0)
			return 1;
	return 0;
}

/* Clears GER and ISR, checking the model-defined write-1-to-clear on the
 * way (lenient mode), or that strict mode ignores the writes (GER is then
 * sticky until GCR.SOFT_RESET, an ISR bit until its channel's reset). */
static void clear_errors(uint32_t ger)
{
	uint32_t isr = tb_reg(ABB_REG_ISR);

	tb_reg_set(ABB_REG_GER, 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER), ger); /* writing 0 clears nothing */
	tb_reg_set(ABB_REG_GER, ger);
	tb_reg_set(ABB_REG_ISR, 0xFFFFFFFFu);
	if (tb_is_lenient()) {
		CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER), 0);
		CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR), 0);
	} else if (tb_is_strict()) {
		CU_ASSERT_EQUAL(tb_reg(ABB_REG_GER), ger);
		CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR), isr);
	}
}

static void channel_reset(uint32_t blk)
{
	tb_reg_set(blk + ABB_CH_CTRL, ABB_CTRL_RESET_CODE | ABB_CTRL_V | ABB_CTRL_BAR);
	CU_ASSERT_EQUAL(wait_not_busy(blk), 0);
}

#define BAD_IOVA 0x70000000u

/* Simulator: the upstream channel, programmed by hand, follows next_bda to
 * an IOVA nothing is mapped at. */
static void test_bad_input_descriptor_outside_mapped(void)
{
	struct abb_sim_fault f[32];
	uint8_t *guard;
	abb_dmabuf *gm = NULL;
	uint32_t s, ger;
	int n;

	TB_REQUIRE_DEV();
	guard = tb_alloc_pages(BUFLEN); /* after the checks: a skipped test leaks nothing */
	CU_ASSERT_FATAL(guard != NULL);
	memset(guard, 0x5C, BUFLEN);
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, guard, BUFLEN, &gm), 0);
	CU_ASSERT(abb_sim_faults(tb_dev, f, 0) >= 0); /* forget older faults */
	tb_reg_set(ABB_REG_IER, 0);
	tb_reg_set(ABB_REG_ISR, 0xFFFFFFFFu);
	tb_reg_set(ABB_REG_GER, 0xFFFFFFFFu);

	/* first descriptor in the registers: 64 bytes from board 0x1000 to an
	 * unmapped host address, then the next descriptor from BAD_IOVA; the
	 * channel reset first (strict: a start keeps an old DONE) */
	channel_reset(ABB_BLK_C2H);
	tb_reg_set(ABB_BLK_C2H + ABB_CH_PAH, 0);
	tb_reg_set(ABB_BLK_C2H + ABB_CH_PAL, 0x1000);
	tb_reg_set(ABB_BLK_C2H + ABB_CH_HAH, 0);
	tb_reg_set(ABB_BLK_C2H + ABB_CH_HAL, BAD_IOVA + 0x1000);
	tb_reg_set(ABB_BLK_C2H + ABB_CH_BDAH, 0);
	tb_reg_set(ABB_BLK_C2H + ABB_CH_BDAL, BAD_IOVA);
	tb_reg_set(ABB_BLK_C2H + ABB_CH_LENG, 64);
	tb_reg_set(ABB_BLK_C2H + ABB_CH_CTRL, ABB_CTRL_V | ABB_CTRL_BAR | ABB_CTRL_UPA |
						      ABB_CTRL_INC | ABB_CTRL_EEI);
	s = wait_not_busy(ABB_BLK_C2H);
	if (s != (ABB_STA_DONE | ABB_STA_BUSY))
		printf("\n    STA after a bad next_bda: 0x%x, want DONE|BUSY (error)\n", s);
	CU_ASSERT_EQUAL(s, ABB_STA_DONE | ABB_STA_BUSY);
	ger = tb_reg(ABB_REG_GER);
	CU_ASSERT(ger & (ABB_GER_CPL_ERR | ABB_GER_DESC_ERR));
	CU_ASSERT(tb_reg(ABB_REG_ISR) & ABB_ISR_C2H); /* EEI */

	n = abb_sim_faults(tb_dev, f, 32);
	CU_ASSERT(n >= 1);
	if (n > 32)
		n = 32;
	if (!has_fault(f, n, BAD_IOVA, 0))
		printf("\n    no read fault at 0x%x among %d faults\n", BAD_IOVA, n);
	CU_ASSERT(has_fault(f, n, BAD_IOVA, 0));
	CU_ASSERT(tb_all_byte("mapped guard memory after a bad descriptor", guard, BUFLEN, 0x5C));

	clear_errors(ger);
	channel_reset(ABB_BLK_C2H);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(gm), 0);
	free(guard);
	good_dma(14);
	CU_ASSERT_EQUAL(abb_sim_faults(tb_dev, f, 32), 0); /* the good DMA made none */
}

/* Simulator: the downstream channel reads host memory at an unmapped
 * address: the board reports a completion error and keeps its memory. */
static void test_bad_input_host_address_outside_mapped(void)
{
	struct abb_sim_fault f[32];
	uint8_t before[64], after[64];
	uint32_t s, ger;
	int n;

	TB_REQUIRE_DEV();
	CU_ASSERT(abb_sim_faults(tb_dev, f, 0) >= 0);
	tb_fill(before, sizeof(before), 15);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0x2000, before, sizeof(before)), 0);
	tb_reg_set(ABB_REG_IER, 0);
	tb_reg_set(ABB_REG_ISR, 0xFFFFFFFFu);
	tb_reg_set(ABB_REG_GER, 0xFFFFFFFFu);

	tb_reg_set(ABB_BLK_H2C + ABB_CH_PAH, 0);
	tb_reg_set(ABB_BLK_H2C + ABB_CH_PAL, 0x2000);
	tb_reg_set(ABB_BLK_H2C + ABB_CH_HAH, 0);
	tb_reg_set(ABB_BLK_H2C + ABB_CH_HAL, BAD_IOVA + 0x2000);
	tb_reg_set(ABB_BLK_H2C + ABB_CH_BDAH, 0);
	tb_reg_set(ABB_BLK_H2C + ABB_CH_BDAL, 0);
	tb_reg_set(ABB_BLK_H2C + ABB_CH_LENG, 64);
	tb_reg_set(ABB_BLK_H2C + ABB_CH_CTRL, ABB_CTRL_V | ABB_CTRL_BAR | ABB_CTRL_UPA |
						      ABB_CTRL_INC | ABB_CTRL_LAST | ABB_CTRL_EEI);
	s = wait_not_busy(ABB_BLK_H2C);
	CU_ASSERT_EQUAL(s, ABB_STA_DONE | ABB_STA_BUSY);
	ger = tb_reg(ABB_REG_GER);
	CU_ASSERT(ger & ABB_GER_CPL_ERR);
	CU_ASSERT(tb_reg(ABB_REG_ISR) & ABB_ISR_H2C);
	n = abb_sim_faults(tb_dev, f, 32);
	if (n > 32)
		n = 32;
	CU_ASSERT(has_fault(f, n, BAD_IOVA + 0x2000, 0));
	/* no data came with the unsupported-request completion */
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0x2000, after, sizeof(after)), 0);
	CU_ASSERT(tb_same("board memory after a failed DMA write", after, before, sizeof(after)));

	clear_errors(ger);
	channel_reset(ABB_BLK_H2C);
	good_dma(16);
}

/* URI options: one without a value, and options longer than the backend
 * takes, are refused with a message; DMA offsets must be 4-byte aligned. */
static void test_bad_input_uri_and_offset_errors(void)
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
	CU_ASSERT_EQUAL(abb_dma_write(tb_dev, bufmap, 2, 0, 64, 0), -EINVAL);
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

/* A buffer's pieces (abb_dmabuf_pieces / _piece): one to three for a
 * buffer that touches three pages, their lengths add up to the buffer's,
 * the first starts at the buffer's offset inside its page and the others
 * at a page; bad arguments, an index past the last piece and an unmapped
 * buffer are refused with a message (a refused piece leaves its outputs
 * alone, a refused count reads 0). That the addresses are the ones the
 * board uses, the scoreboard shows: its raw descriptor chains take them
 * (tb_scoreboard.c). */
static void test_bad_input_dmabuf_pieces(void)
{
	size_t pg = tb_page(), n = 0, i;
	uint8_t *p = tb_alloc_pages(3 * pg);
	abb_dmabuf *b = NULL;
	uint64_t addr = 0, len = 0, sum = 0;

	TB_REQUIRE_DEV();
	CU_ASSERT_FATAL(p != NULL);
	/* 2 pages from an offset of 100 bytes: touches 3 pages */
	CU_ASSERT_EQUAL_FATAL(abb_dmabuf_map(tb_dev, p + 100, 2 * pg, &b), 0);
	CU_ASSERT_EQUAL(abb_dmabuf_pieces(b, &n), 0);
	CU_ASSERT(n >= 1 && n <= 3);
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(abb_dmabuf_piece(b, i, &addr, &len), 0);
		CU_ASSERT(len > 0);
		/* the first from the buffer's offset inside its page */
		CU_ASSERT_EQUAL(addr % pg, i == 0 ? 100 : 0);
		sum += len;
	}
	CU_ASSERT_EQUAL(sum, 2 * pg);
	addr = len = 0x5a5a;
	EXPECT_ERR(abb_dmabuf_piece(b, n, &addr, &len), -ERANGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "abb_dmabuf_piece: piece"));
	CU_ASSERT(addr == 0x5a5a && len == 0x5a5a);
	EXPECT_ERR(abb_dmabuf_piece(b, 0, NULL, &len), -EINVAL);
	EXPECT_ERR(abb_dmabuf_piece(b, 0, &addr, NULL), -EINVAL);
	EXPECT_ERR(abb_dmabuf_pieces(b, NULL), -EINVAL);
	EXPECT_ERR(abb_dmabuf_pieces(NULL, &n), -EINVAL);
	CU_ASSERT_EQUAL(n, 0);
	EXPECT_ERR(abb_dmabuf_piece(NULL, 0, &addr, &len), -EINVAL);
	CU_ASSERT_EQUAL(abb_dmabuf_unmap(b), 0);
	n = 7;
	EXPECT_ERR(abb_dmabuf_pieces(b, &n), -EINVAL); /* unmapped */
	CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "was unmapped"));
	CU_ASSERT_EQUAL(n, 0);
	EXPECT_ERR(abb_dmabuf_piece(b, 0, &addr, &len), -EINVAL);
	free(p);
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

/* abb_dmabuf_map on a kernel without PROCMAP_QUERY (before Linux 6.11):
 * the memory checks through the text of /proc/self/maps, the checks above
 * in a child (the filter stays with it); any backend. */
static void test_bad_input_dmabuf_map_without_procmap_query(void)
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

static CU_TestInfo bad_input_tests[] = {
	{ "test_bad_input_open", test_bad_input_open },
	{ "test_bad_input_null_handles", test_bad_input_null_handles },
	{ "test_bad_input_reg_offsets", test_bad_input_reg_offsets },
	{ "test_bad_input_pio_ranges", test_bad_input_pio_ranges },
	{ "test_bad_input_dma_lengths", test_bad_input_dma_lengths },
	{ "test_bad_input_dma_ranges", test_bad_input_dma_ranges },
	{ "test_bad_input_stale_buffer", test_bad_input_stale_buffer },
	{ "test_bad_input_unmap_busy", test_bad_input_unmap_busy },
	{ "test_bad_input_overlapping_map", test_bad_input_overlapping_map },
	{ "test_bad_input_busy_channel", test_bad_input_busy_channel },
	{ "test_bad_input_irq_sources", test_bad_input_irq_sources },
	{ "test_bad_input_wait_without_start", test_bad_input_wait_without_start },
	TB_SIM_TEST(test_bad_input_sim_calls),
	TB_SIM_TEST(test_bad_input_descriptor_outside_mapped),
	TB_SIM_TEST(test_bad_input_host_address_outside_mapped),
	{ "test_bad_input_close_while_busy", test_bad_input_close_while_busy },
	TB_TEST(test_bad_input_uri_and_offset_errors),
	TB_TEST(test_bad_input_dmabuf_pieces),
	TB_TEST(test_bad_input_dmabuf_map_without_procmap_query),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo bad_input_suite[] = {
	{ "bad_input", bad_input_init, bad_input_cleanup, NULL, NULL, bad_input_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_bad_input(void)
{
	return CU_register_suites(bad_input_suite);
}
