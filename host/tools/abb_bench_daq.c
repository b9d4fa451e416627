/*
 * abb_bench_daq.c - the DABC measurements of the seed (2008) reproduced on
 * the DAQ layer: the plain library loop against the readout (writer) module
 * with one and with two threads, and concurrent readout + writer.
 *
 *   abb_bench_daq readout     [options]   plain abb_dma_read loop vs readout module
 *   abb_bench_daq writer      [options]   plain abb_dma_write loop vs writer module
 *   abb_bench_daq concurrent  [options]   readout + writer at once: per channel and
 *                                         summed, independent / shared engine,
 *                                         shared / separate pools (not
 *                                         on the reference model: no shared link)
 *   abb_bench_daq all         [options]   the three
 *
 * Bandwidth is in device time (abb_time_ns). For every buffer size:
 *   tau = size x (1/B_module - 1/B_plain)   (the seed's overhead per buffer)
 * and the ratio B_module / B_plain. On the untimed reference model (ABB_DEVICE=model)
 * device time is wall time and tau is the host software's own
 * cost; on the simulator it is only seen with host-time coupling
 * (ABB_SIM_HOSTTIME=1 or --device sim:hosttime=1), otherwise software is
 * free in simulated time; the timed model (model:timed=1) is measured as the
 * simulator is.
 *
 * Options: --device URI, --min SIZE, --max SIZE (1K..1M), --bytes N (per
 * size and run; default 8M), --reps R (best of R interleaved runs; default
 * 25 on the reference model, 3 on the simulator with host-time coupling, 1 in
 * lockstep), --size SIZE
 * (concurrent; 64K), --threads 1|2 (per module, concurrent; 1), --csv,
 * --plot PREFIX (PREFIX-readout.png, ...).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <abb/abb.h>
#include <abb/abb_daq.h>
#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#include "bench_module.h"
#include "tool_args.h"

#define SEED_TAU1_US 0.8 /* DABC 2008: transport and module in one thread */
#define SEED_TAU2_US 1.7 /* two threads */
#define MAX_ROWS 16
/* Buffers the modules' pools hold (the NumBuffers default), and the plain
 * loop cycles through as many: both touch the same amount of host memory,
 * so tau is the software's cost, not a cache-footprint difference (the
 * model backend moves data with memcpy). */
#define NBUF BENCH_MODULE_NBUF

/* --irq: every transfer completes by interrupt; --fixed ADDR: the readout
 * reads board address ADDR as a FIFO (DABC 2008's readout shape; its
 * writer wrote with an incrementing address, so the writer keeps that) */
static int g_irq, g_fixed;
static uint32_t g_fixed_addr;

static void shape_params(struct abb_daq_params *p, int write)
{
	p->irq = g_irq;
	if (!write && g_fixed) {
		p->fifo = 1;
		p->address = g_fixed_addr;
	}
}

struct opts {
	const char *uri;
	size_t min, max, conc_size;
	uint64_t bytes;
	int reps, csv;
	int threads;  /* per module in the concurrent test */
	int model;    /* the reference model backend: no link the two channels share */
	const char *plot;
};

struct row {
	size_t size;
	double plain, m1, m2;  /* MB/s */
	double tau1, tau2;     /* us */
};

static abb_dev *dev;
static abb_daq_device *ddev;

static uint64_t now_ns(void)
{
	uint64_t t = 0;

	if (abb_time_ns(dev, &t))
		t = 0;
	return t;
}

/* A buffer size: 4 bytes .. 4 GiB, a multiple of 4 (tool_args.h; the
 * parser of its own let "-4" through as 2^64-4 and a K/M suffix overflow). */
static int parse_size(const char *what, const char *s, size_t *out)
{
	unsigned long long v;

	if (tool_num(what, s, 4, 1ull << 32, TOOL_NUM_SIZE, &v))
		return -1;
	if (v % 4)
		return tool_error("%s %s: not a multiple of 4 bytes", what, s);
	*out = (size_t)v;
	return 0;
}

static unsigned count_for(const struct opts *o, size_t size)
{
	uint64_t n = o->bytes / size;

	return n < 16 ? 16 : n > 1000000 ? 1000000 : (unsigned)n;
}

/* ns per buffer of the plain library loop: NBUF mapped buffers used in
 * turn, blocking DMAs. */
static int plain_run(int write, size_t size, unsigned n, double *ns_per)
{
	void *mem[NBUF] = {0};
	abb_dmabuf *db[NBUF] = {0};
	uint64_t t0, t1;
	int rc = 0;

	for (int i = 0; i < NBUF && !rc; i++) {
		if (posix_memalign(&mem[i], 4096, size)) {
			rc = -ENOMEM;
			break;
		}
		memset(mem[i], 0x5a, size);
		rc = abb_dmabuf_map(dev, mem[i], size, &db[i]);
	}
	t0 = now_ns();
	for (unsigned i = 0; i < n && !rc; i++)
		rc = write ? abb_dma_write(dev, db[i % NBUF], 0, 0, size, g_irq ? ABB_DMA_IRQ : 0)
			   : abb_dma_read(dev, db[i % NBUF], 0, g_fixed ? g_fixed_addr : 0, size,
					  (g_irq ? ABB_DMA_IRQ : 0) | (g_fixed ? ABB_DMA_FIXED : 0));
	t1 = now_ns();
	for (int i = 0; i < NBUF; i++) {
		if (db[i])
			(void)abb_dmabuf_unmap(db[i]);
		free(mem[i]);
	}
	*ns_per = (double)(t1 - t0) / n;
	return rc;
}

/* ns per buffer of a standalone module (bench_module.c). */
static int module_run(int write, size_t size, unsigned n, int threads, double *ns_per)
{
	struct abb_daq_params p;

	bench_module_params(&p, write, size, n, threads, 0);
	shape_params(&p, write);
	return bench_module_run(ddev, write, &p, ns_per);
}

static double mbs(size_t size, double ns)
{
	return ns > 0 ? (double)size / ns * 1e3 : 0.0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_double);
	return n == 0 ? 0.0 : n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void plot_sweep(const char *prefix, const char *what, const struct row *r, size_t n)
{
	char dat[] = "/tmp/abb_bench_daq_XXXXXX", png[512];
	int fd = mkstemp(dat);
	FILE *f, *gp;

	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%zu %.2f %.2f %.2f %.4f %.4f\n", r[i].size, r[i].plain, r[i].m1, r[i].m2,
			r[i].tau1, r[i].tau2);
	fclose(f);
	snprintf(png, sizeof png, "%s-%s.png", prefix, what);
	gp = popen("gnuplot", "w");
	if (gp) {
		fprintf(gp,
			"set terminal png size 1200,500\nset output '%s'\nset multiplot layout 1,2\n"
			"set logscale x 2\nset grid\nset key bottom right\n"
			"set xlabel 'buffer size [bytes]'\nset ylabel 'MB/s (device time)'\n"
			"set title 'ABB DMA %s: plain loop vs module (%s)'\n"
			"plot '%s' u 1:2 w lp t 'plain library loop', '' u 1:3 w lp t 'module, 1 thread',"
			" '' u 1:4 w lp t 'module, 2 threads'\n"
			"set ylabel 'tau [us]'\nset key top right\nunset logscale y\n"
			"set title 'overhead per buffer tau = size (1/B_{module} - 1/B_{plain})'\n"
			"plot '%s' u 1:5 w lp t 'tau, 1 thread', '' u 1:6 w lp t 'tau, 2 threads',"
			" %g w l dt 2 t 'DABC 2008, 1 thread', %g w l dt 2 t 'DABC 2008, 2 threads'\n"
			"unset multiplot\n",
			png, what, abb_backend(dev), dat, dat, SEED_TAU1_US, SEED_TAU2_US);
		tool_plot_done(pclose(gp) != 0, png, 0);
	}
	unlink(dat);
}

/* Plain vs module, one and two threads, over the sizes. */
static int sweep(const struct opts *o, int write)
{
	const char *what = write ? "writer" : "readout";
	struct row rows[MAX_ROWS];
	double t1s[MAX_ROWS], t2s[MAX_ROWS];
	size_t n = 0;
	int rc = 0;

	if (o->csv)
		printf("%s,size,plain_mbs,module1_mbs,ratio1,tau1_us,module2_mbs,ratio2,tau2_us\n",
		       what);
	else
		printf("\n%s (%s): backend %s, %s; best of %d; tau = size x (1/B_module - "
		       "1/B_plain)\n%9s | %9s | %9s %6s %8s | %9s %6s %8s | %s\n",
		       what, write ? "host to board" : "board to host", abb_backend(dev),
		       o->uri ? o->uri : "$ABB_DEVICE", o->reps, "size", "plain", "1 thread",
		       "ratio", "tau us", "2 threads", "ratio", "tau us", "DABC 2008 tau 1/2 thr");
	for (size_t size = o->min; size <= o->max && n < MAX_ROWS && !rc; size *= 2) {
		unsigned cnt = count_for(o, size);
		double bp = 1e300, b1 = 1e300, b2 = 1e300, t;
		struct row *r = &rows[n];

		for (int k = 0; k < o->reps && !rc; k++) {
			rc = plain_run(write, size, cnt, &t);
			if (!rc && t < bp)
				bp = t;
			if (!rc)
				rc = module_run(write, size, cnt, 1, &t);
			if (!rc && t < b1)
				b1 = t;
			if (!rc)
				rc = module_run(write, size, cnt, 2, &t);
			if (!rc && t < b2)
				b2 = t;
		}
		if (rc)
			break;
		r->size = size;
		r->plain = mbs(size, bp);
		r->m1 = mbs(size, b1);
		r->m2 = mbs(size, b2);
		r->tau1 = (b1 - bp) / 1e3;
		r->tau2 = (b2 - bp) / 1e3;
		t1s[n] = r->tau1;
		t2s[n] = r->tau2;
		if (o->csv)
			printf("%s,%zu,%.2f,%.2f,%.4f,%.4f,%.2f,%.4f,%.4f\n", what, size, r->plain,
			       r->m1, r->m1 / r->plain, r->tau1, r->m2, r->m2 / r->plain, r->tau2);
		else
			printf("%7zuKi | %9.1f | %9.1f %6.3f %8.3f | %9.1f %6.3f %8.3f | %.1f / %.1f\n",
			       size >> 10, r->plain, r->m1, r->m1 / r->plain, r->tau1, r->m2,
			       r->m2 / r->plain, r->tau2, SEED_TAU1_US, SEED_TAU2_US);
		n++;
	}
	if (rc) {
		fprintf(stderr, "abb_bench_daq %s: %s: %s\n", what, abb_strerror(rc), abb_last_error());
		return rc;
	}
	if (!o->csv) {
		double m1 = median(t1s, n), m2 = median(t2s, n);

		printf("tau (median over sizes): 1 thread %.3f us (DABC 2008: %.1f us), 2 threads "
		       "%.3f us (DABC 2008: %.1f us)\n", m1, SEED_TAU1_US, m2, SEED_TAU2_US);
	}
	if (o->plot)
		plot_sweep(o->plot, what, rows, n);
	return 0;
}

/* ---- concurrent ---------------------------------------------------------- */

struct conc {
	double rd, wr; /* MB/s */
};

/* Both at once are measured in device time, the same way on every backend:
 * the main thread samples the two modules' byte counts, each sample with
 * the device time it was taken at (abb_time_ns), every CONC_SAMPLE_US of
 * wall clock until one has ended; a sample is no wait, so it lets no
 * device time pass (a sampler that waited on the device, abb_sim_advance,
 * kept the simulator's time running while the modules' threads computed
 * or waited for a core). A module's rate is taken between the first and
 * the last sample at which its count had grown, inside the span both ran
 * (from the later start to the earlier end), so that neither the time one
 * ran alone (the other's thread started later, the other ended first) nor
 * when the main thread noticed an end counts. Error: the device time
 * between two samples at each end (below 1 us on the simulator, a few us
 * on the timed model, in about 8 ms at the default 8 MiB). */
#define CONC_SAMPLE_US 100

struct sample {
	uint64_t t, bytes[2];
};

/* MB/s of module k over the samples inside [t0, t1] (0 if its count grew at
 * fewer than two of them). */
static double conc_rate(const struct sample *s, size_t n, int k, uint64_t t0, uint64_t t1)
{
	size_t a = n, b = n;

	for (size_t i = 1; i < n; i++) {
		if (s[i - 1].t < t0 || s[i].t > t1 || s[i].bytes[k] == s[i - 1].bytes[k])
			continue;
		if (a == n)
			a = i;
		b = i;
	}
	if (a == n || b == a || s[b].t <= s[a].t)
		return 0;
	return (double)(s[b].bytes[k] - s[a].bytes[k]) / (double)(s[b].t - s[a].t) * 1e3;
}

/* Samples r and w until one has ended: the samples in *out (malloc'd). */
static int conc_sample(abb_daq_module *r, abb_daq_module *w, struct sample **out, size_t *n)
{
	struct abb_daq_stats sr, sw;
	struct sample *s = NULL;
	size_t cap = 0;
	int rc = 0;

	*n = 0;
	for (;;) {
		uint64_t t = now_ns();

		abb_daq_module_stats(r, &sr);
		abb_daq_module_stats(w, &sw);
		if (*n == cap) {
			struct sample *g = realloc(s, (cap ? 2 * cap : 1024) * sizeof *s);

			if (!g) {
				rc = -ENOMEM;
				break;
			}
			s = g;
			cap = cap ? 2 * cap : 1024;
		}
		s[(*n)++] = (struct sample){t, {sr.bytes, sw.bytes}};
		if (sr.finished || sw.finished || sr.error || sw.error)
			break;
		usleep(CONC_SAMPLE_US);
	}
	*out = s;
	return rc;
}

/* One direction alone, or both at once (which < 0), MB/s per channel over
 * the time both ran; threads per module. */
static int conc_run(size_t size, unsigned n, int threads, int which, int shared_pool,
		    struct conc *out)
{
	struct abb_daq_params pr, pw;
	struct abb_daq_stats sr, sw;
	abb_daq_module *r = NULL, *w = NULL;
	abb_daq_pool *pool = NULL;
	struct sample *smp = NULL;
	size_t nsmp = 0;
	uint64_t t0, t1;
	int rc;

	/* the writer's board region is apart from the readout's */
	bench_module_params(&pr, 0, size, n, threads, 0);
	bench_module_params(&pw, 1, size, n, threads, 0x80000);
	shape_params(&pr, 0);
	shape_params(&pw, 1);
	if (shared_pool) {
		/* as many buffers as the two separate pools together */
		rc = abb_daq_pool_create(&pool, "shared", size + ABB_DAQ_HEADER_BYTES, 2 * NBUF);
		if (rc)
			return rc;
	}
	rc = which != 1 ? abb_daq_readout_create(&r, ddev, pool, &pr) : 0;
	if (!rc && which != 0)
		rc = abb_daq_writer_create(&w, ddev, pool, &pw);
	if (!rc && r)
		rc = abb_daq_module_start(r);
	if (!rc && w)
		rc = abb_daq_module_start(w);
	if (rc)
		goto out;
	if (r && w) {
		rc = conc_sample(r, w, &smp, &nsmp);
		abb_daq_module_stats(r, &sr);
		abb_daq_module_stats(w, &sw);
		t0 = sr.t_start > sw.t_start ? sr.t_start : sw.t_start;
		t1 = sr.finished && (!sw.finished || sr.t_end < sw.t_end) ? sr.t_end : sw.t_end;
		out->rd = conc_rate(smp, nsmp, 0, t0, t1);
		out->wr = conc_rate(smp, nsmp, 1, t0, t1);
		if (!rc && !sr.error && !sw.error && (out->rd == 0 || out->wr == 0)) {
			fprintf(stderr, "abb_bench_daq concurrent: the readout and the writer ran at "
				"once for too short a time to be measured; give each more data "
				"(--bytes)\n");
			rc = -EAGAIN;
		}
	} else {
		abb_daq_module *m = r ? r : w;
		struct abb_daq_stats *st = r ? &sr : &sw;

		rc = abb_daq_module_wait(m, -1);
		abb_daq_module_stats(m, st);
		t0 = st->t_start;
		t1 = st->t_end;
		out->rd = r && t1 > t0 ? (double)st->bytes / (double)(t1 - t0) * 1e3 : 0;
		out->wr = w && t1 > t0 ? (double)st->bytes / (double)(t1 - t0) * 1e3 : 0;
	}
	if (!rc && ((r && sr.error) || (w && sw.error)))
		rc = -EIO;
out:
	free(smp);
	abb_daq_module_destroy(r);
	abb_daq_module_destroy(w);
	if (pool) {
		abb_daq_device_unmap_pool(ddev, pool);
		abb_daq_pool_destroy(pool);
	}
	return rc;
}

static int concurrent(const struct opts *o)
{
	size_t size = o->conc_size;
	unsigned n = count_for(o, size);
	int rc = 0;

	/* The test is about two channels sharing one link and one engine; the
	 * model has neither (each DMA is a memcpy on the caller's thread), and
	 * a module there often ends before the other one starts. */
	if (o->model) {
		fprintf(o->csv ? stderr : stdout,
			"\nconcurrent: not measured on the reference model backend: it has no link or engine "
			"for the two channels to share; run it on the simulator (-d sim)\n");
		return 0;
	}

	if (o->csv)
		printf("concurrent,size,engine,pools,read_alone,write_alone,read,write,sum,"
		       "sum_over_read,sum_over_write,sum_over_mean,read_keep,write_keep\n");
	else
		printf("\nconcurrent readout + writer (each in its own thread%s), %zu KiB buffers, "
		       "backend %s, %s\n%-12s %-9s | %9s %9s | %9s %9s %9s | %-22s | %s\n",
		       o->threads > 1 ? "s: transport + module" : "", size >> 10,
		       abb_backend(dev), o->uri ? o->uri : "$ABB_DEVICE", "engine", "pools",
		       "rd alone", "wr alone", "rd", "wr", "sum", "sum / rd   wr    mean",
		       "keep rd  wr");
	for (int shared_engine = 0; shared_engine <= 1 && !rc; shared_engine++) {
		struct conc alone_r, alone_w;

		rc = abb_daq_shared_engine(ddev, shared_engine);
		if (!rc)
			rc = conc_run(size, n, o->threads, 0, 0, &alone_r);
		if (!rc)
			rc = conc_run(size, n, o->threads, 1, 0, &alone_w);
		for (int sp = 1; sp >= 0 && !rc; sp--) {
			struct conc c;
			double mean, sum;

			rc = conc_run(size, n, o->threads, -1, sp, &c);
			if (rc)
				break;
			/* "one direction": each single-direction rate, and their
			 * mean (DMA write is the slower one when its data comes
			 * back in RCB-sized completions) */
			mean = (alone_r.rd + alone_w.wr) / 2;
			sum = c.rd + c.wr;
			if (o->csv)
				printf("concurrent,%zu,%s,%s,%.1f,%.1f,%.1f,%.1f,%.1f,%.3f,%.3f,%.3f,"
				       "%.3f,%.3f\n",
				       size, shared_engine ? "shared" : "independent",
				       sp ? "shared" : "separate", alone_r.rd, alone_w.wr, c.rd,
				       c.wr, sum, sum / alone_r.rd, sum / alone_w.wr, sum / mean,
				       c.rd / alone_r.rd, c.wr / alone_w.wr);
			else
				printf("%-12s %-9s | %9.1f %9.1f | %9.1f %9.1f %9.1f | %5.3f %5.3f %5.3f "
				       "   | %4.0f%% %4.0f%%\n",
				       shared_engine ? "shared" : "independent",
				       sp ? "shared" : "separate", alone_r.rd, alone_w.wr, c.rd, c.wr,
				       sum, sum / alone_r.rd, sum / alone_w.wr, sum / mean,
				       100 * c.rd / alone_r.rd, 100 * c.wr / alone_w.wr);
		}
	}
	if (!rc)
		rc = abb_daq_shared_engine(ddev, 0);
	if (rc && rc != -EAGAIN)
		fprintf(stderr, "abb_bench_daq concurrent: %s: %s\n", abb_strerror(rc),
			abb_last_error());
	else if (!o->csv)
		printf("sum / rd, wr: over DMA read, DMA write alone; mean: over their mean. "
		       "Targets: independent sum >= 1.8 x one direction, shared engine sum within "
		       "10 %% of it\n");
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: abb_bench_daq readout|writer|concurrent|all [options]\n"
		"  -d, --device URI   board (default $ABB_DEVICE; model: host cost only;\n"
		"                     sim:hosttime=1: simulator with host-time coupling)\n"
		"      --min SIZE     smallest buffer (1K; sizes: multiples of 4 up to 4G,\n"
		"                     decimal or 0x hex, suffix K, M, G)\n"
		"      --max SIZE     largest buffer (1M)\n"
		"  -b, --bytes N      bytes per size and run (8M, at most 64G)\n"
		"  -r, --reps R       best of R interleaved runs, 1..1000 (25 on the reference model, 3 with\n"
		"                     host-time coupling, 1 in lockstep: sim, model:timed=1)\n"
		"      --size SIZE    buffer size of the concurrent test (64K; not run on the reference model)\n"
		"  -t, --threads 1|2  threads per module in the concurrent test (1)\n"
		"      --irq          complete every transfer by interrupt (default: polling)\n"
		"      --fixed ADDR   the readout reads board address ADDR as a FIFO (DABC 2008's\n"
		"                     readout; the writer keeps its incrementing address)\n"
		"      --csv          CSV instead of tables\n"
		"      --plot PREFIX  gnuplot PNGs PREFIX-readout.png, PREFIX-writer.png\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{"device", required_argument, 0, 'd'}, {"min", required_argument, 0, 1},
		{"max", required_argument, 0, 2},      {"bytes", required_argument, 0, 'b'},
		{"reps", required_argument, 0, 'r'},   {"size", required_argument, 0, 3},
		{"csv", no_argument, 0, 4},            {"plot", required_argument, 0, 5},
		{"threads", required_argument, 0, 't'}, {"help", no_argument, 0, 'h'},
		{"irq", no_argument, 0, 6},            {"fixed", required_argument, 0, 7},
		{0, 0, 0, 0}};
	struct opts o = {.min = 1024, .max = 1 << 20, .conc_size = 64 << 10, .threads = 1};
	unsigned long long bytes = 0, v;
	const char *mode;
	int c, rc = 0, model;

	tool_begin(argv[0]);
	setvbuf(stdout, NULL, _IOLBF, 0); /* progress when redirected */
	while ((c = getopt_long(argc, argv, "d:b:r:t:h", lopts, NULL)) != -1) {
		switch (c) {
		case 'd': o.uri = optarg; break;
		case 1: if (parse_size("--min", optarg, &o.min)) goto bad; break;
		case 2: if (parse_size("--max", optarg, &o.max)) goto bad; break;
		case 'b':
			/* bytes per size and run: at most 64 GiB (-4 ran as 2^64-4) */
			if (tool_num("--bytes", optarg, 1, 64ull << 30, TOOL_NUM_SIZE, &v))
				goto bad;
			bytes = v;
			break;
		case 'r':
			if (tool_num("--reps", optarg, 1, 1000, 0, &v))
				goto bad;
			o.reps = (int)v;
			break;
		case 3: if (parse_size("--size", optarg, &o.conc_size)) goto bad; break;
		case 4: o.csv = 1; break;
		case 't':
			if (tool_num("--threads", optarg, 1, 2, 0, &v))
				goto bad;
			o.threads = (int)v;
			break;
		case 5: o.plot = optarg; break;
		case 6: g_irq = 1; break;
		case 7:
			if (tool_num("--fixed", optarg, 0, 0xfffffffcull, 0, &v) || v % 4) {
				tool_error("--fixed %s: a board address, a multiple of 4", optarg);
				goto bad;
			}
			g_fixed = 1;
			g_fixed_addr = (uint32_t)v;
			break;
		case 'h': usage(stdout); return 0;
		default: goto bad;
		}
	}
	if (optind != argc - 1) {
		if (optind < argc)
			tool_error("one test, readout|writer|concurrent|all, not %d words",
				   argc - optind);
		else
			tool_error("which test: readout|writer|concurrent|all");
		goto bad;
	}
	mode = argv[optind];
	if (strcmp(mode, "readout") && strcmp(mode, "writer") && strcmp(mode, "concurrent") &&
	    strcmp(mode, "all")) {
		tool_error("no test \"%s\" (readout|writer|concurrent|all)", mode);
		goto bad;
	}
	if (o.max < o.min) {
		tool_error("--min %zu is larger than --max %zu", o.min, o.max);
		goto bad;
	}

	rc = abb_open(&dev, o.uri);
	if (rc) {
		fprintf(stderr, "abb_bench_daq: %s\n", abb_last_error());
		return 1;
	}
	rc = abb_daq_device_attach(&ddev, dev, 0);
	if (rc) {
		fprintf(stderr, "abb_bench_daq: %s\n", abb_last_error());
		abb_close(dev);
		return 1;
	}
	/* the untimed model (the timed one, model:timed=1, has device time in
	 * lockstep as the simulator: abb_sim_hosttime answers) */
	model = strcmp(abb_backend(dev), "model") == 0 && abb_sim_hosttime(dev) < 0;
	o.model = model;
	/* On the reference model, wall time is device time and the machine's noise
	 * (other processes, a hypervisor taking a CPU away) only ever adds:
	 * many short runs and the best of them measure the software's own
	 * cost; one long run would average the noise in. With host-time
	 * coupling device time holds the host threads' CPU time, so the best
	 * of a few runs counts; lockstep is deterministic. */
	o.bytes = bytes ? bytes : 8u << 20;
	if (o.reps <= 0)
		o.reps = model ? 25 : abb_sim_hosttime(dev) == 1 ? 3 : 1;

	if (strcmp(mode, "readout") == 0 || strcmp(mode, "all") == 0)
		rc = sweep(&o, 0);
	if (!rc && (strcmp(mode, "writer") == 0 || strcmp(mode, "all") == 0))
		rc = sweep(&o, 1);
	if (!rc && (strcmp(mode, "concurrent") == 0 || strcmp(mode, "all") == 0))
		rc = concurrent(&o);
	abb_daq_device_close(ddev);
	abb_close(dev);
	return rc ? 1 : 0;
bad:
	usage(stderr);
	return 2;
}
