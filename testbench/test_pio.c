/*
 * test_pio.c - suite "pio": PIO as a CPU issues it (abb_pio_write_block,
 * abb_pio_flush, abb_pio_mapping; doc/pio.md), on any backend.
 *
 * Data: every store width, UC and WC (pio=wc; on the vfio backend WC where
 * the kernel offers it, else the UC fallback, whose data must be the
 * same), partial lines and lines with holes over a known background, a
 * flush then a read-back; board memory must hold the bytes exactly. Bad
 * input: -EINVAL with a message and nothing stored. The mapping query.
 * On the simulator also the shapes the store model gives the writes (its
 * statistics). The emulated kernel's WC choices (resource1_wc missing,
 * refused, working): suite "vfio".
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb_sim.h>

static const unsigned widths[] = {1, 2, 4, 8, 16, 32, 64};
#define NW (sizeof widths / sizeof widths[0])

/* Opens tb_dev with pio=uc or pio=wc added to $ABB_DEVICE's options (sim,
 * model, vfio; on vfio also ABB_SIM_PIO, which the emulated kernel's board
 * reads: its BAR1 is then prefetchable). 0 or the error (printed). */
static int open_pio(int wc)
{
	const char *env = getenv("ABB_DEVICE");
	char uri[512];
	int rc;

	if (!env || !*env)
		env = "sim";
	tb_close();
	if (!strncmp(env, "vfio", 4))
		setenv("ABB_SIM_PIO", wc ? "wc" : "uc", 1);
	snprintf(uri, sizeof uri, "%s%s%s", env, strchr(env, ':') ? "," : ":",
		 wc ? "pio=wc" : "pio=uc");
	rc = abb_open(&tb_dev, uri);
	if (rc) {
		printf("\n    abb_open(%s): %d %s\n", uri, rc, abb_last_error());
		tb_dev = NULL;
	}
	return rc;
}

/* Back to the suite's device ($ABB_DEVICE as it is). */
static void open_default(void)
{
	const char *env = getenv("ABB_DEVICE");

	if (env && !strncmp(env, "vfio", 4))
		unsetenv("ABB_SIM_PIO");
	tb_reopen(NULL);
}

static int pio_init(void)
{
	return tb_open(NULL) < 0 ? -1 : 0;
}

static int pio_cleanup(void)
{
	open_default();
	tb_close();
	return 0;
}

/* A store the CPU lacks (AVX, MOVDIR64B on the board): skipped part. */
static int lacks(int rc, unsigned w)
{
	if (rc != -ENOTSUP)
		return 0;
	tb_skip_part("%u-byte stores: %s", w, abb_last_error());
	return 1;
}

/* Background bg everywhere in [0, n) of BAR1, by abb_mem_write. */
static void background(size_t n, uint8_t bg)
{
	uint8_t *b = malloc(n);

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	memset(b, bg, n);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0, b, n), 0);
	free(b);
}

/* For every width: a block of 1 KiB + one line at an odd line offset (a
 * partial first line for the narrow stores), flushed, read back; the
 * bytes around it keep the background. */
static void widths_check(const char *mode)
{
	enum { SPAN = 8192, LEN = 1024 + 64 };
	uint8_t *w = malloc(LEN), *r = malloc(SPAN), *want = malloc(SPAN);
	char what[64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_NOT_NULL_FATAL(want);
	for (size_t i = 0; i < NW; i++) {
		unsigned st = widths[i];
		uint32_t off = 1024 + 64 * (uint32_t)i + (st < 64 ? st : 0);
		size_t len = LEN - (st < 64 ? st : 0);
		int rc;

		background(SPAN, 0x5a);
		tb_fill(w, len, 100 + st);
		rc = abb_pio_write_block(tb_dev, off, w, len, st);
		if (lacks(rc, st))
			continue;
		if (rc)
			printf("\n    %s, %u-byte stores: %s\n", mode, st, abb_last_error());
		CU_ASSERT_EQUAL(rc, 0);
		CU_ASSERT_EQUAL(abb_pio_flush(tb_dev), 0);
		CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0, r, SPAN), 0);
		memset(want, 0x5a, SPAN);
		memcpy(want + off, w, len);
		snprintf(what, sizeof what, "%s, %u-byte stores", mode, st);
		CU_ASSERT(tb_same(what, r, want, SPAN));
	}
	free(w);
	free(r);
	free(want);
}

static void test_pio_uc_widths(void)
{
	char why[256];

	CU_ASSERT_EQUAL_FATAL(open_pio(0), 0);
	CU_ASSERT_EQUAL(abb_pio_mapping(tb_dev, why, sizeof why), ABB_PIO_UC);
	widths_check("uc");
	open_default();
}

/* WC where the backend has it; the vfio backend's UC fallback (the
 * emulated kernel refuses the mapping) must store the same. */
static void test_pio_wc_widths(void)
{
	char why[256];
	int map;

	CU_ASSERT_EQUAL_FATAL(open_pio(1), 0);
	map = abb_pio_mapping(tb_dev, why, sizeof why);
	if (!strcmp(abb_backend(tb_dev), "vfio")) {
		CU_ASSERT(map == ABB_PIO_WC || map == ABB_PIO_UC);
		if (map == ABB_PIO_UC) {
			CU_ASSERT_PTR_NOT_NULL(strstr(why, "fell back"));
		}
	} else {
		CU_ASSERT_EQUAL(map, ABB_PIO_WC);
	}
	widths_check(map == ABB_PIO_WC ? "wc" : "wc asked, uc");
	open_default();
}

/* WC lines with holes (every other 4-byte word, then every other byte
 * with 1-byte stores) and a line's last 8 bytes alone: the holes keep the
 * background, the written bytes are exact. */
static void test_pio_partial_lines(void)
{
	uint8_t r[512], want[512], w[8];

	CU_ASSERT_EQUAL_FATAL(open_pio(1), 0);
	background(sizeof r, 0xa5);
	memset(want, 0xa5, sizeof want);
	for (uint32_t o = 0; o < 64; o += 8) {
		tb_fill(w, 4, o);
		CU_ASSERT_EQUAL(abb_pio_write_block(tb_dev, 64 + o, w, 4, 4), 0);
		memcpy(want + 64 + o, w, 4);
	}
	for (uint32_t o = 0; o < 64; o += 2) {
		w[0] = (uint8_t)(0x10 + o);
		CU_ASSERT_EQUAL(abb_pio_write_block(tb_dev, 192 + o, w, 1, 1), 0);
		want[192 + o] = w[0];
	}
	tb_fill(w, 8, 77);
	CU_ASSERT_EQUAL(abb_pio_write_block(tb_dev, 320 + 56, w, 8, 8), 0);
	memcpy(want + 320 + 56, w, 8);
	CU_ASSERT_EQUAL(abb_pio_flush(tb_dev), 0);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0, r, sizeof r), 0);
	CU_ASSERT(tb_same("WC lines with holes", r, want, sizeof r));
	open_default();
}

/* A read-back without a flush sees the stores too (a read fences, on
 * every backend), and a flush with nothing pending is harmless. */
static void test_pio_read_fences(void)
{
	uint8_t w[100], r[100];

	CU_ASSERT_EQUAL_FATAL(open_pio(1), 0);
	CU_ASSERT_EQUAL(abb_pio_flush(tb_dev), 0);
	tb_fill(w, sizeof w, 5);
	CU_ASSERT_EQUAL(abb_pio_write_block(tb_dev, 4096, w, sizeof w, 4), 0);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 4096, r, sizeof r), 0);
	CU_ASSERT(tb_same("read after WC stores, no flush", r, w, sizeof w));
	CU_ASSERT_EQUAL(abb_pio_flush(tb_dev), 0);
	CU_ASSERT_EQUAL(abb_pio_flush(tb_dev), 0);
	open_default();
}

/* One call refused with -EINVAL and a message naming the function. */
#define REFUSED(call)                                                             \
	do {                                                                      \
		CU_ASSERT_EQUAL((call), -EINVAL);                                 \
		CU_ASSERT_PTR_NOT_NULL(strstr(abb_last_error(), "abb_pio_"));      \
	} while (0)

/* Bad widths, misaligned offsets and lengths, ranges past BAR1 (and
 * off + len wrapping), NULL buf, len 0, a NULL or closed device: -EINVAL
 * with a message, nothing stored (the memory keeps its background). */
static void test_pio_bad_input(void)
{
	uint8_t w[128], r[256];
	size_t size;
	abb_dev *closed = NULL;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL_FATAL(abb_mem_size(tb_dev, &size), 0);
	memset(w, 0xee, sizeof w);
	background(sizeof r, 0x33);
	REFUSED(abb_pio_write_block(tb_dev, 0, w, 8, 0));
	REFUSED(abb_pio_write_block(tb_dev, 0, w, 6, 3));
	REFUSED(abb_pio_write_block(tb_dev, 0, w, 128, 128));
	REFUSED(abb_pio_write_block(tb_dev, 0, w, 96, 48));
	REFUSED(abb_pio_write_block(tb_dev, 0, w, 8, UINT32_MAX));
	REFUSED(abb_pio_write_block(tb_dev, 2, w, 8, 4));
	REFUSED(abb_pio_write_block(tb_dev, 32, w, 64, 64));
	REFUSED(abb_pio_write_block(tb_dev, 8, w, 12, 8));
	REFUSED(abb_pio_write_block(tb_dev, 0, w, 1, 2));
	REFUSED(abb_pio_write_block(tb_dev, 0, NULL, 8, 4));
	REFUSED(abb_pio_write_block(tb_dev, 0, w, 0, 4));
	REFUSED(abb_pio_write_block(tb_dev, (uint32_t)size, w, 4, 4));
	REFUSED(abb_pio_write_block(tb_dev, (uint32_t)size - 4, w, 8, 4));
	REFUSED(abb_pio_write_block(tb_dev, 0xfffffff0u, w, 32, 4));
	REFUSED(abb_pio_write_block(tb_dev, 64, w, SIZE_MAX - 63, 64));
	CU_ASSERT_EQUAL(abb_pio_write_block(NULL, 0, w, 4, 4), -EINVAL);
	CU_ASSERT_EQUAL(abb_pio_flush(NULL), -EINVAL);
	CU_ASSERT_EQUAL(abb_pio_mapping(NULL, NULL, 0), -EINVAL);
	REFUSED(abb_pio_mapping(tb_dev, (char *)r, 0));
	CU_ASSERT_EQUAL(abb_pio_flush(tb_dev), 0);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0, r, sizeof r), 0);
	CU_ASSERT(tb_all_byte("BAR1 after refused stores", r, sizeof r, 0x33));
	/* a closed handle: refused (abb.h), nothing reaches a board */
	tb_close();
	CU_ASSERT_EQUAL(abb_open(&closed, NULL), 0);
	if (closed) {
		abb_close(closed);
		CU_ASSERT_EQUAL(abb_pio_write_block(closed, 0, w, 4, 4), -EINVAL);
		CU_ASSERT_EQUAL(abb_pio_flush(closed), -EINVAL);
		CU_ASSERT_EQUAL(abb_pio_mapping(closed, NULL, 0), -EINVAL);
	}
	tb_open(NULL);
}

/* The mapping: UC by default, a line saying so; why may be NULL; a short
 * buffer is truncated and terminated. */
static void test_pio_mapping(void)
{
	char why[256], tiny[8];

	TB_REQUIRE_DEV();
	memset(tiny, 'x', sizeof tiny);
	CU_ASSERT_EQUAL(abb_pio_mapping(tb_dev, why, sizeof why), getenv("ABB_SIM_PIO") &&
			!strcmp(getenv("ABB_SIM_PIO"), "wc") ? ABB_PIO_WC : ABB_PIO_UC);
	CU_ASSERT(strlen(why) > 8);
	CU_ASSERT(abb_pio_mapping(tb_dev, NULL, 0) >= 0);
	CU_ASSERT(abb_pio_mapping(tb_dev, tiny, sizeof tiny) >= 0);
	CU_ASSERT_EQUAL(tiny[sizeof tiny - 1], 0);
	CU_ASSERT_EQUAL(strncmp(tiny, why, sizeof tiny - 1), 0);
	CU_ASSERT_EQUAL_FATAL(open_pio(1), 0);
	if (abb_pio_mapping(tb_dev, why, sizeof why) == ABB_PIO_WC) {
		CU_ASSERT_PTR_NOT_NULL(strstr(why, "write-combined"));
	} else { /* the vfio backend, where the kernel has no WC mapping for it */
		CU_ASSERT(!strcmp(abb_backend(tb_dev), "vfio") && strstr(why, "fell back"));
	}
	open_default();
}

/* The simulator's shapes: UC 4-byte stores one write each; WC full lines
 * one 16-DW write each, a partial line waits in its buffer until the
 * flush; every write arrives once a read-back followed the flush. */
static void test_pio_sim_shapes(void)
{
	struct abb_sim_pio_stats s;
	uint8_t w[256], r[4];

	CU_ASSERT_EQUAL_FATAL(open_pio(0), 0);
	tb_fill(w, sizeof w, 9);
	CU_ASSERT_EQUAL(abb_sim_pio_stats(tb_dev, &s, 1), 0);
	CU_ASSERT_EQUAL(abb_pio_write_block(tb_dev, 0, w, sizeof w, 4), 0);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0, r, 4), 0);
	CU_ASSERT_EQUAL(abb_sim_pio_stats(tb_dev, &s, 1), 0);
	CU_ASSERT_EQUAL(s.wc, 0);
	CU_ASSERT_EQUAL(s.stores, 64);
	CU_ASSERT_EQUAL(s.tlps, 64);
	CU_ASSERT_EQUAL(s.arrived_tlps, 64);
	CU_ASSERT_EQUAL(s.arrived_bytes, 256);
	CU_ASSERT(s.last_arrival_ps > s.first_store_ps);

	CU_ASSERT_EQUAL_FATAL(open_pio(1), 0);
	CU_ASSERT_EQUAL(abb_pio_write_block(tb_dev, 0, w, sizeof w, 4), 0);
	CU_ASSERT_EQUAL(abb_pio_write_block(tb_dev, 1024, w, 16, 4), 0);
	CU_ASSERT_EQUAL(abb_sim_pio_stats(tb_dev, &s, 0), 0);
	CU_ASSERT_EQUAL(s.wc, 1);
	CU_ASSERT_EQUAL(s.stores, 68);
	CU_ASSERT_EQUAL(s.tlps, 4); /* the partial line still in its buffer */
	CU_ASSERT_EQUAL(abb_pio_flush(tb_dev), 0);
	CU_ASSERT_EQUAL(abb_mem_read(tb_dev, 0, r, 4), 0);
	CU_ASSERT_EQUAL(abb_sim_pio_stats(tb_dev, &s, 0), 0);
	CU_ASSERT_EQUAL(s.tlps, 5);
	CU_ASSERT_EQUAL(s.arrived_tlps, 5);
	CU_ASSERT_EQUAL(s.arrived_bytes, 256 + 16);
	CU_ASSERT_EQUAL(abb_sim_pio_stats(tb_dev, NULL, 0), -EINVAL);
	open_default();
}

/* What the other backends answer for the store model's statistics. */
static void test_pio_stats_elsewhere(void)
{
	struct abb_sim_pio_stats s;

	TB_REQUIRE_DEV();
	CU_ASSERT_EQUAL(abb_sim_pio_stats(tb_dev, &s, 0), -ENOTSUP);
	CU_ASSERT(strlen(abb_last_error()) > 0);
}

static CU_TestInfo pio_tests[] = {
	TB_TEST(test_pio_uc_widths),
	TB_TEST(test_pio_wc_widths),
	TB_TEST(test_pio_partial_lines),
	TB_TEST(test_pio_read_fences),
	TB_TEST(test_pio_bad_input),
	TB_TEST(test_pio_mapping),
	TB_SIM_TEST(test_pio_sim_shapes),
	TB_NOSIM_TEST(test_pio_stats_elsewhere),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo pio_suite[] = {
	{ "pio", pio_init, pio_cleanup, NULL, NULL, pio_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_pio(void)
{
	return CU_register_suites(pio_suite);
}
