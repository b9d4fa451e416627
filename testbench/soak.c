/*
 * soak.c - a long run of the DAQ layer: a readout and a writer module on
 * one board at the same time, every buffer checked, resident memory and
 * open file descriptors compared between 10 % and 100 % of the run.
 *
 *   build/abb_soak [--device URI] [--buffers N] [--size BYTES] [--threads 1|2]
 *                  [--inject leak|fd|readout|writer]
 *   make soak [SOAK_MODEL_BUFFERS=10000000] [SOAK_SIM_BUFFERS=100000] [SOAK_BUFSIZE=4096]
 *
 * Readout: a regular readout module (Threads, FIFO mode) of the model's
 * front-end event source; this program's main thread consumes its output
 * and checks every buffer with the DAQ suites' checker (test_daq_common.c):
 * header counter +1 per buffer, unique id, and every DW of the event stream
 * across buffer boundaries (a lost, repeated or reordered piece is found at
 * its first DW).
 *
 * Writer: a regular writer module fed by a producer thread. Buffer n holds
 * a pattern made from n (its first two DWs are n) and goes to board slot
 * n mod S (S slots of SIZE bytes, Region = S x SIZE). After the writer has
 * finished buffer n, and before buffer n + S (which overwrites that slot)
 * is handed to it, the producer reads the slot back through BAR1: its first
 * two and its last DW for every buffer (each buffer is where it belongs,
 * in order, none lost or repeated), all of it for every CHECK_ALL_EVERY-th
 * buffer, and every slot in full at the end.
 *
 * Memory: a warm-up pass (WARMUP_BUFFERS, the same code from module
 * creation to end of stream) comes first, then every page of the mapped
 * files is made resident (map_file_pages) and the samplers run once in
 * their threads, so that pages touched for the first time late in the run
 * (code through fault-around, a thread's first printf) are not taken for
 * growth: what can grow between the samples is what the program and the
 * libraries allocate. The main thread prints a line at every 10 % of the
 * soak pass (the slower module's progress) and takes the first sample of
 * VmRSS (/proc/self/status) and of the open descriptors (/proc/self/fd) at
 * 10 %; the second is taken when both modules have finished, before
 * anything is torn down. The run fails when RSS grew by 1 % or more, the
 * descriptor count changed, or any check failed. Exit status: 0 pass,
 * 1 fail, 2 usage. --inject puts one fault into the soak pass, to see the
 * check that must find it fail.
 */
#define _GNU_SOURCE
#include <CUnit/CUnit.h> /* test_daq.h declares the suites' registration */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <abb/abb.h>
#include <abb/abb_daq.h>

#include "test_daq.h"

#define SRC_ID 0x5au
#define EV_PAYLOAD 60u                 /* DWs: 64-DW events, not aligned to buffers */
#define BOARD 3u                       /* BoardNumber: in the unique ids */
#define MAX_SLOTS 16u                  /* board slots of the writer */
#define CHECK_ALL_EVERY 64u            /* writer buffers compared in full: every 64th */
#define WAIT_NS 60000000000ll          /* wall ns one buffer may take before the run fails */
#define RSS_LIMIT_PCT 1.0              /* RSS growth 10 % -> 100 % that fails the run */
#define WARMUP_BUFFERS 1000u           /* buffers of the warm-up pass */

/* Faults --inject puts into the soak pass, to see each check fail */
enum inject { INJECT_NONE, INJECT_LEAK, INJECT_FD, INJECT_READOUT, INJECT_WRITER };
static const char *const inject_names[] = { "none", "leak", "fd", "readout", "writer" };

struct opts {
	const char *device;
	uint64_t buffers;
	uint32_t size;                 /* DMA bytes per buffer */
	int threads;
	enum inject inject;
};

struct sample {
	long rss_kb;                   /* VmRSS */
	long anon_kb, file_kb;         /* its parts: RssAnon (heap, stacks), RssFile (code) */
	long fds;
	double wall_s;
	uint64_t rd, wr;               /* buffers of the readout (checked), writer (written) */
};

struct soak {
	struct opts o;
	abb_daq_device *d;
	abb_dev *dev;
	abb_daq_module *r, *w;
	uint32_t slots;
	uint32_t *back;                /* one slot read back */

	/* the pass that runs: the warm-up or the soak */
	uint64_t n;                    /* buffers each module moves */
	int measured;                  /* the soak: progress lines, samples */
	uint64_t t0;                   /* wall ns at its start */
	uint64_t warm_n;               /* buffers of the warm-up pass */
	double warm_s;                 /* its wall time */

	uint64_t rd_checked;           /* readout buffers the main thread checked */
	atomic_int failed;
	unsigned next_mark;            /* the next progress line, % */
	pthread_mutex_t lock;
	char why[512];                 /* the first failure */

	struct sample at10, at100;
	int have10;
	uint64_t events;               /* complete events of the stream checked */
	uint64_t wr_checked_full;      /* writer buffers compared in full */
	double rd_wall_s, wr_wall_s;   /* wall time until each module finished */

	void *leaked;                  /* --inject leak: a list of 64-byte blocks */
	int leaked_fd;                 /* --inject fd */
};

/* The fault of --inject, in the measured pass only. */
static int injecting(const struct soak *s, enum inject what)
{
	return s->measured && s->o.inject == what;
}

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static double since_s(const struct soak *s)
{
	return (double)(wall_ns() - s->t0) / 1e9;
}

/* Records the first failure (later ones are consequences, mostly). */
static void fail(struct soak *s, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&s->lock);
	if (!atomic_load(&s->failed)) {
		va_start(ap, fmt);
		vsnprintf(s->why, sizeof s->why, fmt, ap);
		va_end(ap);
		atomic_store(&s->failed, 1);
	}
	pthread_mutex_unlock(&s->lock);
}

/* ---- what the process holds ---------------------------------------------- */

/* VmRSS, RssAnon and RssFile of /proc/self/status (-1: not there). */
static void read_rss(struct sample *x)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];

	x->rss_kb = x->anon_kb = x->file_kb = -1;
	if (!f)
		return;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "VmRSS: %ld kB", &x->rss_kb) != 1 &&
		    sscanf(line, "RssAnon: %ld kB", &x->anon_kb) != 1)
			(void)sscanf(line, "RssFile: %ld kB", &x->file_kb);
	fclose(f);
}

/* Maps every page of the regular files the process has mapped (code, read-
 * only data of the program and its libraries) by reading one byte of each.
 * Done once before the soak pass: then RssFile stays as it is, and VmRSS
 * grows only by what the program allocates. Otherwise a path run for the
 * first time late in the run (a wait that sleeps only under load) maps
 * its code then, and the kernel maps 16 pages around each such fault
 * (fault-around, 64 KiB): on the model's 3 MB of RSS more than the 1 %.
 * Device files (the BARs of the board on vfio) are not touched, nor pages
 * past the end of a file (SIGBUS). */
static void map_file_pages(void)
{
	const long page = sysconf(_SC_PAGESIZE);
	FILE *f = fopen("/proc/self/maps", "r");
	char line[1024];

	if (!f || page <= 0) {
		if (f)
			fclose(f);
		return;
	}
	while (fgets(line, sizeof line, f)) {
		unsigned long start, end, off;
		char perms[8], path[768];
		struct stat st;

		path[0] = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %767[^\n]", &start, &end, perms, &off,
			   path) < 4 || perms[0] != 'r' || path[0] != '/' ||
		    strstr(path, " (deleted)") || stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		for (unsigned long a = start; a < end; a += (unsigned long)page) {
			if ((off_t)(off + (a - start)) >= st.st_size)
				break;
			(void)*(volatile const char *)a;
		}
	}
	fclose(f);
}

/* Open descriptors, not counting the one that reads the directory. */
static long open_fds(void)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	if (!dir)
		return -1;
	while ((e = readdir(dir)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(dir);
	return n - 1;
}

static void take_sample(struct soak *s, struct sample *x)
{
	read_rss(x);
	x->fds = open_fds();
	x->wall_s = since_s(s);
	x->rd = s->rd_checked;
	x->wr = 0;
	if (s->w) {
		struct abb_daq_stats st;

		abb_daq_module_stats(s->w, &st);
		x->wr = st.buffers;
	}
}

static double mib(uint64_t buffers, uint32_t size)
{
	return (double)buffers * size / (1024.0 * 1024.0);
}

static void print_progress(const struct soak *s, unsigned pct, const struct sample *x)
{
	double t = x->wall_s > 0 ? x->wall_s : 1e-9;

	printf("soak %s %3u %%  readout %" PRIu64 " buffers %.0f MiB %.0f buffers/s  "
	       "writer %" PRIu64 " buffers %.0f MiB %.0f buffers/s  RSS %ld kB (anon %ld, file %ld)  "
	       "fds %ld  %.1f s\n",
	       s->o.device, pct, x->rd, mib(x->rd, s->o.size), (double)x->rd / t, x->wr,
	       mib(x->wr, s->o.size), (double)x->wr / t, x->rss_kb, x->anon_kb, x->file_kb, x->fds,
	       x->wall_s);
	fflush(stdout);
}

/* Called by the main thread after every readout buffer it checked and
 * while it waits for the writer: a progress line at every 10 % of the
 * slower module, the first sample at 10 %. Cheap until a mark is near. */
static void progress(struct soak *s)
{
	struct abb_daq_stats st;
	uint64_t rd = s->rd_checked, slow;
	struct sample x;

	if (!s->measured || s->next_mark >= 100 || rd * 100 < (uint64_t)s->next_mark * s->n)
		return;
	abb_daq_module_stats(s->w, &st);
	slow = rd < st.buffers ? rd : st.buffers;
	if (slow * 100 < (uint64_t)s->next_mark * s->n)
		return;
	take_sample(s, &x);
	if (s->next_mark == 10) {
		s->at10 = x;
		s->have10 = 1;
	}
	print_progress(s, s->next_mark, &x);
	while (s->next_mark < 100 && slow * 100 >= (uint64_t)s->next_mark * s->n)
		s->next_mark += 10;
}

/* ---- writer: pattern, producer, read-back --------------------------------- */

/* DW i of writer buffer n: the first two are n, every other one depends on
 * n and i (a DW of an older buffer in the slot is found). */
static uint32_t wr_dw(uint64_t n, uint32_t i)
{
	if (i == 0)
		return (uint32_t)n;
	if (i == 1)
		return (uint32_t)(n >> 32);
	return ((uint32_t)n * 0x9e3779b1u) ^ (i * 0x85ebca77u) ^ 0x50a4b0c5u;
}

static void wr_fill(uint32_t *p, uint32_t dws, uint64_t n)
{
	for (uint32_t i = 0; i < dws; i++)
		p[i] = wr_dw(n, i);
}

/* Waits until the writer has finished at least `n` buffers. */
static int wait_written(struct soak *s, uint64_t n)
{
	uint64_t end = wall_ns() + WAIT_NS;
	struct abb_daq_stats st;

	for (;;) {
		abb_daq_module_stats(s->w, &st);
		if (st.buffers >= n)
			return 0;
		if (st.finished || st.error) {
			fail(s, "writer: finished after %" PRIu64 " buffers (error %d: %s), "
			     "%" PRIu64 " expected", st.buffers, st.error,
			     st.error ? abb_strerror(st.error) : "none", n);
			return -1;
		}
		if (atomic_load(&s->failed))
			return -1;
		if (wall_ns() > end) {
			fail(s, "writer: buffer %" PRIu64 " not written after %lld s", n - 1,
			     WAIT_NS / 1000000000ll);
			return -1;
		}
		daq_sleep_us(20);
	}
}

/* Reads back the slot of writer buffer n (finished, not yet overwritten):
 * its first two and last DW, or all of it. */
static int wr_check(struct soak *s, uint64_t n, int all)
{
	const uint32_t dws = s->o.size / 4, slot = (uint32_t)(n % s->slots);
	const uint32_t off = slot * s->o.size;
	int rc;

	if (all) {
		rc = abb_mem_read(s->dev, off, s->back, s->o.size);
	} else {
		rc = abb_mem_read(s->dev, off, s->back, 8);
		if (!rc)
			rc = abb_mem_read(s->dev, off + s->o.size - 4, &s->back[dws - 1], 4);
	}
	if (rc) {
		fail(s, "writer: read-back of buffer %" PRIu64 " (slot %u): %s: %s", n, slot,
		     abb_strerror(rc), abb_last_error());
		return -1;
	}
	for (uint32_t i = 0; i < dws; i++) {
		if (!all && i == 2)
			i = dws - 1;
		if (s->back[i] != wr_dw(n, i)) {
			uint64_t found = (uint64_t)s->back[1] << 32 | s->back[0];

			fail(s, "writer: buffer %" PRIu64 " at board 0x%x (slot %u), DW %u: got "
			     "0x%08x, want 0x%08x (the slot holds buffer %" PRIu64 ")", n,
			     off + 4 * i, slot, i, s->back[i], wr_dw(n, i), found);
			return -1;
		}
	}
	if (all)
		s->wr_checked_full++;
	return 0;
}

static void *producer(void *arg)
{
	struct soak *s = arg;
	abb_daq_pool *pool = abb_daq_module_pool(s->w);
	abb_daq_queue *in = abb_daq_module_input(s->w);
	const uint64_t n_all = s->n;
	abb_daq_buf *b;
	int rc;

	for (uint64_t n = 0; n < n_all && !atomic_load(&s->failed); n++) {
		/* buffer n overwrites the slot of n - S: check that one first */
		if (n >= s->slots) {
			uint64_t old = n - s->slots;

			if (wait_written(s, old + 1) ||
			    wr_check(s, old, old % CHECK_ALL_EVERY == 0))
				break;
		}
		rc = abb_daq_pool_get(pool, &b, WAIT_NS);
		if (rc) {
			fail(s, "writer: no free buffer for buffer %" PRIu64 ": %s", n,
			     abb_strerror(rc));
			break;
		}
		/* --inject writer: the middle buffer carries the next one's data */
		wr_fill(b->data, s->o.size / 4,
			n + (n == n_all / 2 && injecting(s, INJECT_WRITER)));
		b->len = s->o.size;
		rc = abb_daq_queue_push(in, b, WAIT_NS);
		if (rc) {
			abb_daq_buf_release(b);
			fail(s, "writer: buffer %" PRIu64 " not taken: %s", n, abb_strerror(rc));
			break;
		}
	}
	abb_daq_queue_close(in); /* end of stream for the writer */
	return NULL;
}

/* At the end: every slot in full (the last S buffers). */
static void wr_check_last(struct soak *s)
{
	uint64_t n_all = s->n, first = n_all > s->slots ? n_all - s->slots : 0;

	for (uint64_t n = first; n < n_all && !atomic_load(&s->failed); n++)
		if (wr_check(s, n, 1))
			break;
}

/* ---- readout: the consumer ----------------------------------------------- */

static void consume(struct soak *s)
{
	abb_daq_queue *out = abb_daq_module_output(s->r);
	struct evcheck ev;
	abb_daq_buf *b;
	uint64_t seq = 0, got = 0;
	int rc, ok = 1;

	evcheck_init(&ev, SRC_ID, EV_PAYLOAD);
	while ((rc = abb_daq_queue_pop(out, &b, WAIT_NS)) == 0) {
		if (injecting(s, INJECT_LEAK)) {
			void **blk = malloc(64);

			if (blk) {
				memset(blk, 0x5a, 64);
				*blk = s->leaked;
				s->leaked = blk;
			}
		}
		if (got == s->n / 2 && injecting(s, INJECT_FD))
			s->leaked_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (got == s->n / 2 && injecting(s, INJECT_READOUT) && b->len >= 4 * ABB_DAQ_HEADER_BYTES)
			((uint32_t *)b->data)[ABB_DAQ_HEADER_BYTES / 4 + 5] ^= 0x100u;
		if (ok && b->len != ABB_DAQ_HEADER_BYTES + s->o.size) {
			fail(s, "readout: buffer %" PRIu64 " has %zu bytes, want %zu", got, b->len,
			     (size_t)(ABB_DAQ_HEADER_BYTES + s->o.size));
			ok = 0;
		}
		if (ok && !daq_check_buffer(b, &seq, BOARD, &ev)) {
			fail(s, "readout: buffer %" PRIu64 ": %s", got,
			     ev.errors ? ev.first : "header counter or unique id out of sequence");
			ok = 0;
		}
		got++;
		abb_daq_buf_release(b);
		if (ok)
			s->rd_checked = got;
		progress(s);
		if (!ok || atomic_load(&s->failed))
			break;
	}
	s->events = ev.cnt;
	if (rc && rc != -EPIPE)
		fail(s, "readout: no buffer for %lld s after buffer %" PRIu64 " (%s)",
		     WAIT_NS / 1000000000ll, got, abb_strerror(rc));
	else if (!rc)
		return; /* a failure: the caller stops the modules */
	if (got != s->n)
		fail(s, "readout: end of stream after %" PRIu64 " buffers, want %" PRIu64, got,
		     s->n);
	s->rd_wall_s = since_s(s);
}

/* ---- set-up, passes, result ---------------------------------------------- */

static int open_device(struct soak *s)
{
	struct abb_daq_params pd;
	size_t mem = 0;
	int rc;

	abb_daq_params_default(&pd);
	snprintf(pd.device, sizeof pd.device, "%s", s->o.device);
	pd.board = BOARD;
	rc = abb_daq_device_open(&s->d, &pd);
	if (rc) {
		fprintf(stderr, "abb_soak: cannot open %s: %s: %s\n", s->o.device, abb_strerror(rc),
			abb_last_error());
		return rc;
	}
	s->dev = abb_daq_device_dev(s->d);
	rc = abb_mem_size(s->dev, &mem);
	if (rc) {
		fprintf(stderr, "abb_soak: BAR1 size of %s: %s: %s\n", s->o.device,
			abb_strerror(rc), abb_last_error());
		return rc;
	}
	/* the writer's slots below the event source's FIFO window (the last
	 * 16 bytes of BAR1); at least 2 for its double buffering */
	s->slots = (uint32_t)((mem - 16) / s->o.size);
	if (s->slots > MAX_SLOTS)
		s->slots = MAX_SLOTS;
	if (s->slots < 2) {
		fprintf(stderr, "abb_soak: --size %u: two buffers must fit in BAR1 (%zu bytes) "
			"below the event source's window; at most %zu\n", s->o.size, mem,
			(mem - 16) / 2 / 4 * 4);
		return -EINVAL;
	}
	s->back = malloc(s->o.size);
	return s->back ? 0 : -ENOMEM;
}

/* The event source from event 0, the event counter from 0, both modules. */
static int create_modules(struct soak *s)
{
	struct abb_daq_params pr, pw;
	uint32_t evaddr = 0;
	int rc;

	abb_daq_device_cleanup(s->d);
	rc = abb_daq_evs_start(s->d, SRC_ID, EV_PAYLOAD, 0, &evaddr);
	if (rc) {
		fail(s, "event source start: %s: %s", abb_strerror(rc), abb_last_error());
		return rc;
	}
	abb_daq_params_default(&pr);
	pr.board = BOARD;
	pr.fifo = 1;
	pr.address = evaddr;
	pr.standalone = 0;
	pr.threads = s->o.threads;
	pr.buffer_size = ABB_DAQ_HEADER_BYTES + s->o.size;
	pr.max_buffers = s->n;
	snprintf(pr.pool, sizeof pr.pool, "soak-readout");
	abb_daq_params_default(&pw);
	pw.board = BOARD;
	pw.address = 0;
	pw.length = s->o.size;
	pw.region = s->slots * s->o.size;
	pw.standalone = 0;
	pw.threads = s->o.threads;
	pw.buffer_size = s->o.size;
	pw.max_buffers = s->n;
	snprintf(pw.pool, sizeof pw.pool, "soak-writer");
	rc = abb_daq_readout_create(&s->r, s->d, NULL, &pr);
	if (!rc)
		rc = abb_daq_writer_create(&s->w, s->d, NULL, &pw);
	if (rc)
		fail(s, "module create: %s: %s", abb_strerror(rc), abb_last_error());
	return rc;
}

static void destroy_modules(struct soak *s)
{
	(void)abb_daq_module_stop(s->r);
	(void)abb_daq_module_stop(s->w);
	abb_daq_module_destroy(s->r);
	abb_daq_module_destroy(s->w);
	s->r = s->w = NULL;
	(void)!abb_daq_evs_stop(s->d);
}

/* Both modules: ended by themselves, every buffer moved, no error, every
 * buffer back in its pool. */
static void check_module(struct soak *s, abb_daq_module *m, const char *what)
{
	abb_daq_pool *pool = abb_daq_module_pool(m);
	struct abb_daq_stats st;

	abb_daq_module_stats(m, &st);
	if (st.error)
		fail(s, "%s: module error %d (%s): %s", what, st.error, abb_strerror(st.error),
		     abb_last_error());
	else if (st.buffers != s->n || st.bytes != s->n * s->o.size)
		fail(s, "%s: %" PRIu64 " buffers, %" PRIu64 " bytes; want %" PRIu64 " and %" PRIu64,
		     what, st.buffers, st.bytes, s->n, s->n * s->o.size);
	else if (st.last != ABB_DAQ_EOS)
		fail(s, "%s: ended by \"%s\", not by end of stream", what,
		     abb_daq_result_name(st.last));
	else if (abb_daq_pool_free(pool) != abb_daq_pool_size(pool))
		fail(s, "%s: %u of %u buffers back in the pool", what, abb_daq_pool_free(pool),
		     abb_daq_pool_size(pool));
}

static double growth_pct(const struct soak *s)
{
	if (!s->have10 || s->at10.rss_kb <= 0)
		return 0;
	return 100.0 * (double)(s->at100.rss_kb - s->at10.rss_kb) / (double)s->at10.rss_kb;
}

static void print_table(const struct soak *s, const struct abb_daq_stats *sr,
			const struct abb_daq_stats *sw, int stopped)
{
	printf("\nsoak %s: readout and writer at the same time, %u bytes per DMA (readout "
	       "buffers %u with the header), %d thread(s) per module, writer over %u board slots\n",
	       s->o.device, s->o.size, ABB_DAQ_HEADER_BYTES + s->o.size, s->o.threads, s->slots);
	printf("  %-22s %16s %16s\n", "", "readout", "writer");
	printf("  %-22s %16" PRIu64 " %16" PRIu64 "\n", "buffers", sr->buffers, sw->buffers);
	printf("  %-22s %16" PRIu64 " %16s\n", "events (64 DWs)", s->events, "-");
	printf("  %-22s %16" PRIu64 " %16" PRIu64 "\n", "bytes (DMA)", sr->bytes, sw->bytes);
	printf("  %-22s %16.1f %16.1f\n", "MiB", mib(sr->buffers, s->o.size),
	       mib(sw->buffers, s->o.size));
	printf("  %-22s %16.1f %16.1f\n", "wall time s", s->rd_wall_s, s->wr_wall_s);
	printf("  %-22s %16.0f %16.0f\n", "buffers / wall s",
	       s->rd_wall_s > 0 ? (double)sr->buffers / s->rd_wall_s : 0,
	       s->wr_wall_s > 0 ? (double)sw->buffers / s->wr_wall_s : 0);
	printf("  %-22s %16.3f %16.3f\n", "device time s", (double)(sr->t_end - sr->t_start) / 1e9,
	       (double)(sw->t_end - sw->t_start) / 1e9);
	printf("  %-22s %16s %16" PRIu64 "\n", "read back in full", "-", s->wr_checked_full);
	printf("  %-22s %16.1f\n", "run wall time s", s->at100.wall_s);
	printf("  %-22s %13ld kB (at %.1f s)\n", "RSS at 10 %", s->at10.rss_kb, s->at10.wall_s);
	printf("  %-22s %13ld kB\n", stopped ? "RSS at the stop" : "RSS at 100 %",
	       s->at100.rss_kb);
	printf("  %-22s %+14.3f %% (fails at +%.0f %% or more)\n", "RSS growth", growth_pct(s),
	       RSS_LIMIT_PCT);
	printf("  %-22s %16ld\n", "fds at 10 %", s->at10.fds);
	printf("  %-22s %16ld\n", stopped ? "fds at the stop" : "fds at 100 %", s->at100.fds);
}

/* One pass of n buffers each way: both modules from creation to their
 * end, every buffer checked. The measured pass prints progress and takes
 * the samples; the last one is taken when both modules have finished,
 * before anything is torn down. */
static void pass(struct soak *s, uint64_t n, int measured)
{
	struct abb_daq_stats sr, sw;
	pthread_t th_prod;
	int have_prod = 0, rc;

	s->n = n;
	s->measured = measured;
	s->rd_checked = 0;
	s->next_mark = 10;
	s->have10 = 0;
	s->events = s->wr_checked_full = 0;
	s->rd_wall_s = s->wr_wall_s = 0;
	if (create_modules(s)) {
		destroy_modules(s);
		return;
	}
	if (measured) {
		struct sample x;

		/* the sampling and a printf of a double once before the 10 %
		 * sample: their first use takes memory (a stdio buffer, the
		 * DIR of opendir, stack) that would count as growth */
		take_sample(s, &x);
		printf("soak %s: warm-up of %" PRIu64 " buffers each way passed in %.2f s; the "
		       "soak pass reports every 10 %% of the slower module\n", s->o.device,
		       s->warm_n, s->warm_s);
		fflush(stdout);
	}
	s->t0 = wall_ns();
	rc = abb_daq_module_start(s->r);
	if (!rc)
		rc = abb_daq_module_start(s->w);
	if (rc) {
		fail(s, "module start: %s: %s", abb_strerror(rc), abb_last_error());
	} else {
		have_prod = pthread_create(&th_prod, NULL, producer, s) == 0;
		if (!have_prod)
			fail(s, "cannot start the producer thread");
	}
	if (!atomic_load(&s->failed))
		consume(s);
	if (have_prod && !atomic_load(&s->failed)) {
		/* the writer's last buffers; progress lines go on */
		uint64_t end = wall_ns() + WAIT_NS;

		while (abb_daq_module_wait(s->w, 1) != 0 && !atomic_load(&s->failed)) {
			progress(s);
			if (wall_ns() > end) {
				fail(s, "writer: not finished %lld s after the readout",
				     WAIT_NS / 1000000000ll);
				break;
			}
		}
		s->wr_wall_s = since_s(s);
	}
	if (atomic_load(&s->failed)) {
		/* ends the producer's and the consumer's waits */
		(void)abb_daq_module_stop(s->w);
		(void)abb_daq_module_stop(s->r);
	}
	if (have_prod)
		pthread_join(th_prod, NULL);
	if (!atomic_load(&s->failed) && abb_daq_module_wait(s->r, WAIT_NS / 1000000) != 0)
		fail(s, "readout: its threads did not end after end of stream");

	if (measured)
		take_sample(s, &s->at100);
	if (!atomic_load(&s->failed)) {
		wr_check_last(s); /* the last S buffers, every slot in full */
		check_module(s, s->r, "readout");
		check_module(s, s->w, "writer");
	}
	if (measured) {
		abb_daq_module_stats(s->r, &sr);
		abb_daq_module_stats(s->w, &sw);
		if (!atomic_load(&s->failed))
			print_progress(s, 100, &s->at100);
		if (!s->have10)
			fail(s, "no sample at 10 %% of the run");
		print_table(s, &sr, &sw, atomic_load(&s->failed));
		if (s->have10 && growth_pct(s) >= RSS_LIMIT_PCT)
			fail(s, "resident memory grew by %.3f %% between 10 %% and 100 %% of the "
			     "run (%ld kB -> %ld kB), the limit is %.0f %%", growth_pct(s),
			     s->at10.rss_kb, s->at100.rss_kb, RSS_LIMIT_PCT);
		if (s->have10 && s->at10.fds != s->at100.fds)
			fail(s, "open file descriptors changed between 10 %% and 100 %% of the "
			     "run: %ld -> %ld", s->at10.fds, s->at100.fds);
	}
	while (s->leaked) {
		void **blk = s->leaked;

		s->leaked = *blk;
		free(blk);
	}
	if (s->leaked_fd >= 0)
		close(s->leaked_fd);
	s->leaked_fd = -1;
	destroy_modules(s);
}

/* A warm-up pass first (the same code from start to end of stream, so
 * that every page the start and the end of a pass touch, code and data,
 * is resident before the 10 % sample), then the soak. */
static int run(struct soak *s)
{
	uint64_t warm = s->o.buffers < WARMUP_BUFFERS ? s->o.buffers : WARMUP_BUFFERS;

	if (open_device(s)) {
		abb_daq_device_close(s->d);
		return 1;
	}
	printf("soak %s: %" PRIu64 " buffers of %u bytes each way, readout and writer at once "
	       "(after a warm-up of %" PRIu64 ")\n", s->o.device, s->o.buffers, s->o.size, warm);
	fflush(stdout);
	pass(s, warm, 0);
	s->warm_n = warm;
	s->warm_s = since_s(s);
	map_file_pages();
	if (!atomic_load(&s->failed))
		pass(s, s->o.buffers, 1);
	abb_daq_device_close(s->d);
	free(s->back);
	if (atomic_load(&s->failed)) {
		printf("soak %s: FAIL: %s\n", s->o.device, s->why);
		return 1;
	}
	printf("soak %s: PASS\n", s->o.device);
	return 0;
}

/* ---- options ------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: abb_soak [--device URI] [--buffers N] [--size BYTES] [--threads 1|2] [--inject F]\n"
		   "  --device URI   board (default: $ABB_DEVICE, else sim)\n"
		   "  --buffers N    buffers each module moves (default 100000, at least 10)\n"
		   "  --size BYTES   DMA bytes per buffer, a multiple of 4, at least 16 "
		   "(default 4096; readout buffers have 16 more for the header)\n"
		   "  --threads T    threads per module: 1 or 2 (default 2)\n"
		   "  --inject F     a fault, to see the checks fail: leak (64 bytes per readout\n"
		   "                 buffer), fd (one opened at 50 %%), readout (a DW of the middle\n"
		   "                 buffer flipped), writer (the middle buffer gets the next one's data)\n"
		   "Numbers: decimal or 0x hex.\n");
}

/* Decimal or 0x hex, no sign, no suffix, within [min, max]. */
static int parse_u64(const char *name, const char *text, uint64_t min, uint64_t max,
		     uint64_t *out)
{
	const char *digits = text;
	int base = 10;
	char *end;
	uint64_t v;

	if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		base = 16;
		digits = text + 2;
	}
	if (!*digits || !((*digits >= '0' && *digits <= '9') ||
			  (base == 16 && strchr("abcdefABCDEF", *digits)))) {
		fprintf(stderr, "abb_soak: %s '%s': not a number (decimal or 0x hex)\n", name, text);
		return -1;
	}
	errno = 0;
	v = strtoull(digits, &end, base);
	if (*end || errno == ERANGE || v < min || v > max) {
		fprintf(stderr, "abb_soak: %s '%s': %s; %" PRIu64 " .. %" PRIu64 "\n", name, text,
			*end ? "not a number" : "out of range", min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	const char *env = getenv("ABB_DEVICE");
	uint64_t v;

	o->device = env && *env ? env : "sim";
	o->buffers = 100000;
	o->size = 4096;
	o->threads = 2;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			exit(0);
		}
		if (i + 1 >= argc || strncmp(a, "--", 2)) {
			fprintf(stderr, "abb_soak: %s: %s\n", a,
				strncmp(a, "--", 2) ? "unknown argument" : "needs a value");
			return -1;
		}
		if (!strcmp(a, "--device")) {
			o->device = argv[++i];
			if (!*o->device) {
				fprintf(stderr, "abb_soak: --device: empty URI\n");
				return -1;
			}
		} else if (!strcmp(a, "--buffers")) {
			if (parse_u64(a, argv[++i], 10, UINT64_MAX / UINT32_MAX, &v))
				return -1;
			o->buffers = v;
		} else if (!strcmp(a, "--size")) {
			if (parse_u64(a, argv[++i], 16, UINT32_MAX - ABB_DAQ_HEADER_BYTES, &v))
				return -1;
			if (v % 4) {
				fprintf(stderr, "abb_soak: --size %" PRIu64 ": not a multiple of 4\n", v);
				return -1;
			}
			o->size = (uint32_t)v;
		} else if (!strcmp(a, "--inject")) {
			const char *w = argv[++i];
			unsigned k;

			for (k = 0; k < sizeof inject_names / sizeof inject_names[0]; k++)
				if (!strcmp(w, inject_names[k]))
					break;
			if (k == sizeof inject_names / sizeof inject_names[0]) {
				fprintf(stderr, "abb_soak: --inject '%s': none, leak, fd, readout or "
					"writer\n", w);
				return -1;
			}
			o->inject = (enum inject)k;
		} else if (!strcmp(a, "--threads")) {
			if (parse_u64(a, argv[++i], 1, 2, &v))
				return -1;
			o->threads = (int)v;
		} else {
			fprintf(stderr, "abb_soak: %s: unknown option\n", a);
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct soak s;

	if (parse_opts(argc, argv, &s.o)) {
		usage(stderr);
		return 2;
	}
	pthread_mutex_init(&s.lock, NULL);
	s.leaked_fd = -1;
	return run(&s);
}
