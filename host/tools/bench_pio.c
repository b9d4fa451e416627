/*
 * bench_pio.c - `abb_bench --pio`: PIO into BAR1 as a CPU issues it
 * (doc/pio.md). For the mappings uc and wc (pio= at open) and each store
 * width 1..64 bytes: a fill (memset-like: len bytes from BAR1 offset 0 in
 * stores of that width) and a memcpy-shaped copy (to an odd offset: the
 * head in ever wider stores until aligned, the body in stores of the
 * width, the tail in narrower ones, as a copy routine does).
 *
 * Device time: from the first store's issue to the last write's arrival at
 * the board (the simulator's store model statistics, abb_sim_pio_stats); a
 * flush and a read-back end each run, so every write arrived. Backends
 * without the statistics (board, reference model) give the device time
 * (abb_time_ns) from before the first store to after the read-back, and no
 * TLP count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <abb/abb.h>
#include <abb/abb_sim.h>

#include "bench_pio.h"
#include "tool_args.h"

static const unsigned widths[] = {1, 2, 4, 8, 16, 32, 64};
#define NW (sizeof widths / sizeof widths[0])
#define FILL_MAX (1u << 20) /* 1 MiB, or BAR1 if smaller */

struct prow {
	const char *mode;
	unsigned w;
	size_t bytes;
	double mbs;
	long long tlps; /* -1: not known (no store model) */
	unsigned long long stores;
};

/* The memcpy shape: [off, off+len) in stores of at most w bytes, each the
 * widest that is aligned and fits. */
static int copy_shaped(abb_dev *dev, uint32_t off, const uint8_t *src, size_t len, unsigned w)
{
	while (len) {
		unsigned s = w;
		size_t n;
		int rc;

		while (s > 1 && (off % s || len < s))
			s /= 2;
		/* the run of stores of width s: to the end, or to where a wider
		 * one becomes possible or s no longer fits */
		n = s == w ? len - len % w : s;
		rc = abb_pio_write_block(dev, off, src, n, s);
		if (rc)
			return rc;
		off += (uint32_t)n, src += n, len -= n;
	}
	return 0;
}

/* One run: fill (copy 0) or copy; the row's figures. */
static int run_one(abb_dev *dev, int copy, unsigned w, const uint8_t *src, size_t len,
		   struct prow *row)
{
	struct abb_sim_pio_stats s;
	uint64_t t0 = 0, t1 = 0;
	uint32_t off = copy ? 7 : 0, back;
	int have = abb_sim_pio_stats(dev, &s, 1) == 0;
	int rc = have ? 0 : abb_time_ns(dev, &t0);

	if (!rc)
		rc = copy ? copy_shaped(dev, off, src, len, w)
			  : abb_pio_write_block(dev, off, src, len, w);
	if (!rc)
		rc = abb_pio_flush(dev);
	if (!rc)
		rc = abb_mem_read(dev, off, &back, sizeof back);
	if (!rc && !have)
		rc = abb_time_ns(dev, &t1);
	if (!rc && have)
		rc = abb_sim_pio_stats(dev, &s, 1);
	if (rc)
		return rc;
	if (memcmp(&back, src, sizeof back)) {
		fprintf(stderr, "abb_bench: the read-back after the %u-byte stores differs\n", w);
		return -EIO;
	}
	row->w = w;
	row->bytes = len;
	if (have) {
		row->mbs = s.last_arrival_ps > s.first_store_ps
				   ? (double)len / (double)(s.last_arrival_ps - s.first_store_ps) * 1e6
				   : 0.0;
		row->tlps = (long long)s.tlps;
		row->stores = (unsigned long long)s.stores;
	} else {
		row->mbs = t1 > t0 ? (double)len / (double)(t1 - t0) * 1e3 : 0.0;
		row->tlps = -1;
		row->stores = 0;
	}
	return 0;
}

/* uri with pio=uc or pio=wc among its options. */
static void pio_uri(const char *uri, int wc, char *out, size_t n)
{
	const char *base = uri && *uri ? uri : getenv("ABB_DEVICE");

	if (!base || !*base)
		base = "sim";
	snprintf(out, n, "%s%s%s", base, strchr(base, ':') ? "," : ":", wc ? "pio=wc" : "pio=uc");
}

static int plot(const char *png, const struct prow *rows, size_t n)
{
	char dat[] = "/tmp/abb_bench_pio_XXXXXX";
	int fd = mkstemp(dat), rc;
	FILE *f, *gp;

	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(dat);
		return -errno;
	}
	/* a gnuplot data block per mode, in the order of the rows */
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%u %.1f\n", i && rows[i].mode != rows[i - 1].mode ? "\n\n" : "",
			rows[i].w, rows[i].mbs);
	fclose(f);
	gp = popen("gnuplot", "w");
	if (!gp) {
		unlink(dat);
		return -errno;
	}
	fprintf(gp,
		"set terminal png size 900,600\nset output '%s'\n"
		"set logscale x 2\nset logscale y 10\nset xrange [0.8:80]\nset xtics (1,2,4,8,16,32,64)\n"
		"set xlabel 'store width (bytes)'\nset ylabel 'MB/s (device time, first store to last arrival)'\n"
		"set key bottom right\nset grid\nset title 'PIO into BAR1: 1 MiB, CPU store model'\n"
		"plot '%s' index 0 u 1:2 w lp t 'uc fill', '' index 1 u 1:2 w lp t 'uc memcpy',"
		" '' index 2 u 1:2 w lp t 'wc fill', '' index 3 u 1:2 w lp t 'wc memcpy'\n",
		png, dat);
	rc = pclose(gp);
	unlink(dat);
	return rc == 0 ? 0 : -EIO;
}

int bench_pio(const char *uri, int csv, const char *png)
{
	static const char *const modes[4] = {"uc", "uc-memcpy", "wc", "wc-memcpy"};
	struct prow rows[4 * NW];
	size_t nrows = 0, len = FILL_MAX, bar1;
	uint8_t *fill = NULL, *src = NULL;
	int rc = 0;

	if (csv)
		printf("mode,store_bytes,bytes,device_MB_per_s,tlps\n");
	for (int wc = 0; wc < 2 && !rc; wc++) {
		char u[512], why[256];
		abb_dev *dev;

		pio_uri(uri, wc, u, sizeof u);
		rc = abb_open(&dev, u);
		if (rc) {
			fprintf(stderr, "abb_bench: cannot open %s: %s\n", u, abb_last_error());
			break;
		}
		rc = abb_mem_size(dev, &bar1);
		if (!rc && bar1 < len)
			len = bar1;
		if (!rc && !fill) {
			fill = malloc(len);
			src = malloc(len);
			if (!fill || !src)
				rc = -ENOMEM;
			else {
				memset(fill, 0xa5, len);
				for (size_t i = 0; i < len; i++)
					src[i] = (uint8_t)(i * 131u + 17u);
			}
		}
		if (!rc && abb_pio_mapping(dev, why, sizeof why) != (wc ? ABB_PIO_WC : ABB_PIO_UC))
			fprintf(stderr, "abb_bench: %s: BAR1 is mapped %s\n", u, why);
		if (!rc && !csv && !wc)
			printf("PIO into BAR1, backend %s; MB/s in device time from the first store to "
			       "the last write's arrival (flush and read-back end each run)\n"
			       "%-10s %6s %8s %10s %8s %9s\n", abb_backend(dev), "mode", "store", "bytes",
			       "MB/s", "TLPs", "TLP/store");
		for (int copy = 0; copy < 2 && !rc; copy++) {
			for (size_t i = 0; i < NW && !rc; i++) {
				struct prow *r = &rows[nrows];

				/* the copy (to offset 7) is 64 bytes short of the fill */
				rc = run_one(dev, copy, widths[i], copy ? src : fill, copy ? len - 64 : len,
					     r);
				if (rc) {
					fprintf(stderr, "abb_bench: %s, %u-byte stores: %s\n",
						modes[2 * wc + copy], widths[i], abb_last_error());
					break;
				}
				r->mode = modes[2 * wc + copy];
				nrows++;
				if (csv && r->tlps >= 0)
					printf("%s,%u,%zu,%.1f,%lld\n", r->mode, r->w, r->bytes, r->mbs,
					       r->tlps);
				else if (csv)
					printf("%s,%u,%zu,%.1f,\n", r->mode, r->w, r->bytes, r->mbs);
				else if (r->tlps >= 0)
					printf("%-10s %6u %8zu %10.1f %8lld %9.3f\n", r->mode, r->w, r->bytes,
					       r->mbs, r->tlps, r->stores ? (double)r->tlps / (double)r->stores : 0.0);
				else
					printf("%-10s %6u %8zu %10.1f %8s %9s\n", r->mode, r->w, r->bytes,
					       r->mbs, "-", "-");
				fflush(stdout);
			}
		}
		abb_close(dev);
	}
	if (!rc && png)
		tool_plot_done(plot(png, rows, nrows) != 0, png, csv);
	free(fill);
	free(src);
	return rc ? 1 : 0;
}
