/*
 * tb_common.c - helpers shared by the test-bench suites (see tb.h).
 */
#define _GNU_SOURCE
#include "tb.h"

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

abb_dev *tb_dev;

/* The URI for sim_opts: NULL (let abb_open read $ABB_DEVICE) when there are
 * no options or the backend is not the simulator. */
static const char *tb_uri(const char *sim_opts, char *buf, size_t n)
{
	const char *env = getenv("ABB_DEVICE");

	if (!sim_opts || !*sim_opts)
		return NULL;
	if (!env || !*env)
		env = "sim";
	if (strncmp(env, "sim", 3) != 0 || (env[3] != '\0' && env[3] != ':'))
		return NULL; /* not the simulator: options do not apply */
	if (env[3] == ':' && env[4] != '\0')
		snprintf(buf, n, "%s,%s", env, sim_opts);
	else
		snprintf(buf, n, "sim:%s", sim_opts);
	return buf;
}

int tb_open(const char *sim_opts)
{
	char buf[512];
	const char *uri = tb_uri(sim_opts, buf, sizeof(buf));
	int rc;

	if (tb_dev)
		return 0;
	rc = abb_open(&tb_dev, uri);
	if (rc < 0) {
		fprintf(stderr, "tb: abb_open(%s) failed: %d %s: %s\n",
			uri ? uri : "$ABB_DEVICE", rc, abb_strerror(rc), abb_last_error());
		tb_dev = NULL;
	}
	return rc;
}

void tb_close(void)
{
	if (tb_dev) {
		abb_close(tb_dev);
		tb_dev = NULL;
	}
}

int tb_reopen(const char *sim_opts)
{
	tb_close();
	return tb_open(sim_opts);
}

int tb_suite_open(void)
{
	return tb_open(NULL) < 0 ? -1 : 0;
}

int tb_suite_close(void)
{
	tb_close();
	return 0;
}

int tb_is_sim(void)
{
	return tb_dev && strcmp(abb_backend(tb_dev), "sim") == 0;
}

int tb_is_timed_model(void)
{
	/* the timed model serves the simulation-only operations it can; the
	 * untimed model has none (-ENOTSUP) */
	return tb_dev && strcmp(abb_backend(tb_dev), "model") == 0 && abb_sim_hosttime(tb_dev) >= 0;
}

int tb_is_timed(void)
{
	return tb_dev && (strcmp(abb_backend(tb_dev), "model") != 0 || tb_is_timed_model());
}

int tb_is_strict(void)
{
	const char *env = getenv("ABB_SIM_STRICT"), *dev = getenv("ABB_DEVICE"), *p;
	int strict = env && strcmp(env, "1") == 0;

	p = dev ? strchr(dev, ':') : NULL;
	while (p && *p) {
		size_t n;

		p++;
		n = strcspn(p, ",");
		if (strncmp(p, "strict=", 7) == 0 && n > 7)
			strict = strtoul(p + 7, NULL, 0) != 0;
		p += n;
	}
	return strict;
}

int tb_is_abb2008(void)
{
	const char *env = getenv("ABB_SIM_PROFILE"), *dev = getenv("ABB_DEVICE"), *p;
	int on = env && strcmp(env, "abb2008") == 0;

	/* the simulator's option and the timed model's (it takes every
	 * parameter of the profile); the other backends have no profile */
	if (dev && strncmp(dev, "sim", 3) != 0 &&
	    (strncmp(dev, "model", 5) != 0 || !tb_is_timed_model()))
		return 0;
	p = dev ? strchr(dev, ':') : NULL;
	while (p && *p) {
		size_t n;

		p++;
		n = strcspn(p, ",");
		if (strncmp(p, "profile=", 8) == 0)
			on = n == 15 && strncmp(p + 8, "abb2008", 7) == 0;
		p += n;
	}
	return on;
}

int tb_is_lenient(void)
{
	return tb_has_evsrc() && !tb_is_strict();
}

int tb_has_evsrc(void)
{
	return tb_dev && (strcmp(abb_backend(tb_dev), "sim") == 0 ||
			  strcmp(abb_backend(tb_dev), "model") == 0 ||
			  (tb_vfio_emu && strcmp(abb_backend(tb_dev), "vfio") == 0));
}

void tb_fill(void *p, size_t n, uint32_t seed)
{
	uint8_t *b = p;
	/* xorshift32; the seed is mixed so that 0 and small seeds differ */
	uint32_t x = seed * 2654435761u ^ 0x9E3779B9u;
	size_t i;

	if (x == 0)
		x = 1;
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (uint8_t)(x >> 11);
	}
}

int tb_same(const char *what, const void *got, const void *want, size_t n)
{
	const uint8_t *g = got, *w = want;
	size_t i, bad = 0, first = 0;

	for (i = 0; i < n; i++) {
		if (g[i] != w[i]) {
			if (!bad)
				first = i;
			bad++;
		}
	}
	if (!bad)
		return 1;
	printf("\n    %s: %zu of %zu bytes differ, first at offset %zu (0x%zx):"
	       " got %02x, want %02x\n",
	       what, bad, n, first, first, g[first], w[first]);
	printf("      got :");
	for (i = first; i < n && i < first + 16; i++)
		printf(" %02x", g[i]);
	printf("\n      want:");
	for (i = first; i < n && i < first + 16; i++)
		printf(" %02x", w[i]);
	printf("\n");
	return 0;
}

int tb_all_byte(const char *what, const void *p, size_t n, uint8_t v)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++) {
		if (b[i] != v) {
			printf("\n    %s: byte %zu of %zu is %02x, want %02x\n", what, i, n,
			       b[i], v);
			return 0;
		}
	}
	return 1;
}

size_t tb_page(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

void *tb_alloc_pages(size_t n)
{
	void *p = NULL;
	size_t pg = tb_page();

	if (posix_memalign(&p, pg, (n + pg - 1) / pg * pg) != 0)
		return NULL;
	memset(p, 0, (n + pg - 1) / pg * pg);
	return p;
}

uint64_t tb_now_ns(void)
{
	uint64_t t = 0;

	if (!tb_dev || abb_time_ns(tb_dev, &t) < 0)
		return 0;
	return t;
}

uint32_t tb_reg(uint32_t off)
{
	uint32_t v = 0xDEADBEEF;
	int rc = abb_reg_read(tb_dev, off, &v);

	if (rc < 0)
		printf("\n    abb_reg_read(0x%04x) failed: %d %s\n", off, rc, abb_strerror(rc));
	CU_ASSERT_EQUAL(rc, 0);
	return rc < 0 ? 0xDEADBEEF : v;
}

void tb_reg_set(uint32_t off, uint32_t val)
{
	int rc = abb_reg_write(tb_dev, off, val);

	if (rc < 0)
		printf("\n    abb_reg_write(0x%04x, 0x%08x) failed: %d %s\n", off, val, rc,
		       abb_strerror(rc));
	CU_ASSERT_EQUAL(rc, 0);
}

const char *tb_vector_path(const char *name, char *buf, size_t n)
{
	const char *env = getenv("ABB_VECTORS");
	struct stat st;

	if (env && *env) {
		if (stat(env, &st) == 0 && S_ISREG(st.st_mode))
			snprintf(buf, n, "%s", env);
		else
			snprintf(buf, n, "%s/%s", env, name);
		return buf;
	}
#ifdef TB_VECTORS_DIR
	snprintf(buf, n, "%s/%s", TB_VECTORS_DIR, name);
	if (stat(buf, &st) == 0)
		return buf;
#endif
	snprintf(buf, n, "vectors/%s", name);
	return buf;
}

/* One transfer by the board's registers at an IOVA, without libabb:
 * channel reset, descriptor, CTRL last, then wait (simulated time, up to
 * 2 ms) until BUSY clears; returns STA. */
uint32_t tb_raw_dma(uint32_t ch, uint32_t board, uint64_t iova, uint32_t len)
{
	uint32_t sta = 0;

	tb_reg_set(ch + ABB_CH_CTRL, ABB_CTRL_RESET_CODE | ABB_CTRL_V | ABB_CTRL_BAR);
	tb_reg_set(ch + ABB_CH_PAH, 0);
	tb_reg_set(ch + ABB_CH_PAL, board);
	tb_reg_set(ch + ABB_CH_HAH, (uint32_t)(iova >> 32));
	tb_reg_set(ch + ABB_CH_HAL, (uint32_t)iova);
	tb_reg_set(ch + ABB_CH_BDAH, 0);
	tb_reg_set(ch + ABB_CH_BDAL, 0);
	tb_reg_set(ch + ABB_CH_LENG, len);
	tb_reg_set(ch + ABB_CH_CTRL, ABB_CTRL_V | ABB_CTRL_BAR | ABB_CTRL_LAST | ABB_CTRL_INC |
					     ABB_CTRL_UPA);
	for (int i = 0; i < 1000; i++) {
		sta = tb_reg(ch + ABB_CH_STA);
		if (!(sta & ABB_STA_BUSY) || sta == (ABB_STA_DONE | ABB_STA_BUSY))
			break;
		CU_ASSERT_EQUAL(abb_sim_advance(tb_dev, 2000), 0);
	}
	return sta;
}
