/*
 * test_stress.c - concurrency of open/close and of DMA and PIO with close
 * (issue 17): 8 threads, every result checked byte for byte.
 *
 * Each round:
 *  A  the 8 threads call abb_open at the same moment (a barrier): on the
 *     reference model every open succeeds (each its own board); on the
 *     simulator exactly one does and the others get -EBUSY with a message
 *     (vfio: only one thread opens; the emulated kernel has one container). Each device that opened does a DMA write and read of
 *     a random size through guard pages and a PIO write and read of board
 *     memory, checked byte for byte, and is closed by its thread while the
 *     others close theirs.
 *  B  the main thread opens one device; the 8 threads map a buffer each
 *     and run DMA writes and reads (polled or by interrupt), register and
 *     board-memory PIO, device time and buffer mapping on it, each thread
 *     in its own part of the board memory, checked byte for byte. After a
 *     random number of calls the main thread closes the device under them
 *     (in every fourth round a worker calls abb_close at the same time).
 *     Until the close began every call returns 0 (a DMA also -EBUSY: another
 *     thread's DMA holds the channel); from then on also -EINVAL (closed,
 *     being closed), -ECANCELED or -EIO (a DMA stopped by the close), each
 *     with a message; once abb_close returned, every call is refused.
 *
 * ABB_STRESS_ROUNDS sets the number of rounds (default 100 on the model,
 * 4 on the simulator: `make test`); `make sanitize` runs 10^4 on the model
 * under ThreadSanitizer and 10^2 on the simulator under AddressSanitizer
 * (testbench/sanitize.mk). The run is bounded by the rounds; a hang is
 * the bench's timeout. A summary line gives the counts.
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#define ST_THREADS 8
#define ST_GUARD 4096u  /* guard bytes on each side of a thread's DMA area */
#define ST_AREA 4096u   /* a thread's DMA area (host) */
#define ST_PIO 256u     /* bytes of one PIO check */
#define ST_GUARD_BYTE 0xA5
#define ST_FILL_BYTE 0x5A
#define ST_AFTER_CLOSE 4 /* calls each thread makes after abb_close returned */
#define ST_DURING_CLOSE 8 /* calls at most while abb_close runs */

/* What the main thread and the workers share. */
struct stress {
	pthread_barrier_t bar;
	const char *uri;         /* NULL: $ABB_DEVICE */
	int model;               /* every concurrent open succeeds */
	int one_opener;          /* vfio: only thread 0 opens in phase A (the emulated
				  * kernel has one container: a second open's
				  * container would reset the first's) */
	unsigned round;
	int quit;
	abb_dev *dev;            /* phase B's device */
	int closing;             /* phase B: set before abb_close begins */
	int closed;              /* phase B: set when abb_close returned */
	int double_close;        /* a worker closes too in this round */
	unsigned quota;          /* phase B: calls of each thread before the close */
	size_t slice;            /* board memory bytes per thread */
};

struct worker {
	struct stress *st;
	unsigned idx;
	pthread_t th;
	uint32_t rnd;
	uint8_t *mem, *area, *want, *extra; /* guard | area | guard; expected bytes; 2nd buffer */
	/* phase A */
	int open_rc;
	/* counts */
	unsigned calls;          /* phase B calls (atomic: the main thread waits for some) */
	unsigned long dmas, pios, refused, busy;
	/* the first wrong result (of the round that failed first) */
	unsigned bad;
	char why[512];
};

static uint32_t w_rnd(struct worker *w)
{
	w->rnd ^= w->rnd << 13;
	w->rnd ^= w->rnd >> 17;
	w->rnd ^= w->rnd << 5;
	return w->rnd;
}

static void nap_us(long us)
{
	struct timespec ts = {0, us * 1000};

	nanosleep(&ts, NULL);
}

/* Records a wrong result (the first one's text is kept). */
static void w_bad(struct worker *w, const char *fmt, const char *what, int rc)
{
	if (!w->bad++)
		snprintf(w->why, sizeof w->why, "round %u thread %u: %s: %s (rc %d %s): %s",
			 w->st->round, w->idx, what, fmt, rc, abb_strerror(rc), abb_last_error());
}

/* Checks the rc of one call of phase B. closed_before: abb_close had
 * returned before the call began. dma: -EBUSY is an answer. Returns 1 if
 * the call succeeded. */
static int w_result(struct worker *w, const char *what, int rc, int closed_before, int dma)
{
	int closing = __atomic_load_n(&w->st->closing, __ATOMIC_ACQUIRE);

	if (rc == 0) {
		if (closed_before)
			w_bad(w, "succeeded after abb_close returned", what, rc);
		return !closed_before;
	}
	if (rc == -EBUSY && dma) {
		w->busy++;
		return 0;
	}
	if (closing && (rc == -EINVAL || (dma && (rc == -ECANCELED || rc == -EIO)))) {
		w->refused++;
		if (!*abb_last_error())
			w_bad(w, "refused without a message", what, rc);
		return 0;
	}
	w_bad(w, closing ? "not an answer while the device closes" :
		  "failed before the close began", what, rc);
	return 0;
}

/* A DMA call, again while another thread's DMA holds the channel (and
 * the device is not closing). */
static int w_dma(struct worker *w, abb_dev *d, abb_dmabuf *b, int write, uint32_t board,
		 size_t len, unsigned flags)
{
	int rc;

	for (;;) {
		rc = write ? abb_dma_write(d, b, 0, board, len, flags) :
			     abb_dma_read(d, b, 0, board, len, flags);
		if (rc != -EBUSY || __atomic_load_n(&w->st->closing, __ATOMIC_ACQUIRE))
			return rc;
		w->busy++;
		__atomic_add_fetch(&w->calls, 1, __ATOMIC_RELEASE);
		nap_us(20);
	}
}

/* The guards and the area outside [0, len) are untouched. */
static int w_guards_ok(struct worker *w, size_t len)
{
	for (size_t i = 0; i < ST_GUARD; i++)
		if (w->mem[i] != ST_GUARD_BYTE || w->area[ST_AREA + i] != ST_GUARD_BYTE)
			return 0;
	for (size_t i = len; i < ST_AREA; i++)
		if (w->area[i] != ST_FILL_BYTE)
			return 0;
	return 1;
}

/* A DMA write of random bytes to the thread's part of the board and a
 * DMA read back: the bytes are right, nothing outside them changed.
 * strict: every call must succeed (a device of its own). */
static void w_dma_roundtrip(struct worker *w, abb_dev *d, abb_dmabuf *b, int strict)
{
	size_t half = w->st->slice / 2, len = ((w_rnd(w) % ST_AREA) & ~(size_t)3) + 4;
	uint32_t board = (uint32_t)(w->idx * w->st->slice) +
			 ((w_rnd(w) % (uint32_t)(half - len + 4)) & ~3u);
	unsigned flags = w_rnd(w) & 1 ? ABB_DMA_IRQ : 0;
	int closed = __atomic_load_n(&w->st->closed, __ATOMIC_ACQUIRE), rc;

	tb_fill(w->want, len, w_rnd(w));
	memset(w->area, ST_FILL_BYTE, ST_AREA);
	memcpy(w->area, w->want, len);
	rc = w_dma(w, d, b, 1, board, len, flags);
	if (strict ? rc != 0 : !w_result(w, "DMA write", rc, closed, 1)) {
		if (strict)
			w_bad(w, "failed on a device of its own", "DMA write", rc);
		return;
	}
	memset(w->area, ST_FILL_BYTE, ST_AREA);
	closed = __atomic_load_n(&w->st->closed, __ATOMIC_ACQUIRE);
	rc = w_dma(w, d, b, 0, board, len, w_rnd(w) & 1 ? ABB_DMA_IRQ : 0);
	if (strict ? rc != 0 : !w_result(w, "DMA read", rc, closed, 1)) {
		if (strict)
			w_bad(w, "failed on a device of its own", "DMA read", rc);
		return;
	}
	w->dmas++;
	if (memcmp(w->area, w->want, len))
		w_bad(w, "wrong bytes", "DMA read", 0);
	else if (!w_guards_ok(w, len))
		w_bad(w, "a guard byte or a byte past the transfer changed", "DMA read", 0);
}

/* PIO write and read of the thread's PIO part of the board: right bytes. */
static void w_pio_mem(struct worker *w, abb_dev *d, int strict)
{
	uint8_t out[ST_PIO], in[ST_PIO];
	uint32_t off = (uint32_t)(w->idx * w->st->slice + w->st->slice / 2);
	int closed = __atomic_load_n(&w->st->closed, __ATOMIC_ACQUIRE), rc;

	tb_fill(out, sizeof out, w_rnd(w));
	rc = abb_mem_write(d, off, out, sizeof out);
	if (strict ? rc != 0 : !w_result(w, "abb_mem_write", rc, closed, 0)) {
		if (strict)
			w_bad(w, "failed on a device of its own", "abb_mem_write", rc);
		return;
	}
	memset(in, 0, sizeof in);
	closed = __atomic_load_n(&w->st->closed, __ATOMIC_ACQUIRE);
	rc = abb_mem_read(d, off, in, sizeof in);
	if (strict ? rc != 0 : !w_result(w, "abb_mem_read", rc, closed, 0)) {
		if (strict)
			w_bad(w, "failed on a device of its own", "abb_mem_read", rc);
		return;
	}
	w->pios++;
	if (memcmp(in, out, sizeof in))
		w_bad(w, "wrong bytes", "abb_mem_read", 0);
}

/* Phase A: open at the same moment as the others; check the device. */
static void w_phase_open(struct worker *w)
{
	abb_dev *d = NULL;
	abb_dmabuf *b = NULL;
	int rc;

	pthread_barrier_wait(&w->st->bar);
	if (w->st->one_opener && w->idx) {
		w->open_rc = -EBUSY;
		pthread_barrier_wait(&w->st->bar);
		return;
	}
	w->open_rc = abb_open(&d, w->st->uri);
	if (w->open_rc && w->open_rc != -EBUSY)
		w_bad(w, "concurrent open", "abb_open", w->open_rc);
	else if (w->open_rc && !*abb_last_error())
		w_bad(w, "-EBUSY without a message", "abb_open", w->open_rc);
	pthread_barrier_wait(&w->st->bar); /* every open was tried */
	if (!d)
		return;
	rc = abb_dmabuf_map(d, w->area, ST_AREA, &b);
	if (rc) {
		w_bad(w, "failed on a device of its own", "abb_dmabuf_map", rc);
	} else {
		w_dma_roundtrip(w, d, b, 1);
		w_pio_mem(w, d, 1);
		if ((rc = abb_dmabuf_unmap(b)) != 0)
			w_bad(w, "failed on a device of its own", "abb_dmabuf_unmap", rc);
	}
	abb_close(d);
}

/* Phase B: traffic on the shared device until it is closed under it. */
static void w_phase_shared(struct worker *w)
{
	struct stress *st = w->st;
	abb_dev *d = st->dev;
	abb_dmabuf *b = NULL, *x;
	unsigned after = 0, during = 0;
	int closed, rc, closed_too = 0;
	uint32_t v;
	uint64_t t;

	closed = __atomic_load_n(&st->closed, __ATOMIC_ACQUIRE);
	rc = abb_dmabuf_map(d, w->area, ST_AREA, &b);
	if (!w_result(w, "abb_dmabuf_map", rc, closed, 0))
		b = NULL;
	__atomic_add_fetch(&w->calls, 1, __ATOMIC_RELEASE);
	while (after < ST_AFTER_CLOSE) {
		closed = __atomic_load_n(&st->closed, __ATOMIC_ACQUIRE);
		after += closed;
		/* past its quota the thread slows down, so that the main thread
		 * gets the CPU to close; a few calls while the close runs, then
		 * it waits for the close to end */
		if (!closed && __atomic_load_n(&st->closing, __ATOMIC_ACQUIRE)) {
			if (++during > ST_DURING_CLOSE) {
				nap_us(50);
				continue;
			}
		} else if (!closed && w->calls >= st->quota) {
			nap_us(20);
		}
		if (st->double_close && w->idx == 0 && !closed_too &&
		    __atomic_load_n(&st->closing, __ATOMIC_ACQUIRE)) {
			abb_close(d); /* races the main thread's: one closes, one gets a message */
			closed_too = 1;
		}
		switch (w_rnd(w) % 8) {
		case 0:
		case 1:
		case 2:
			if (b)
				w_dma_roundtrip(w, d, b, 0);
			else
				w_pio_mem(w, d, 0);
			break;
		case 3:
			v = 0;
			rc = abb_reg_read(d, ABB_REG_VERSION, &v);
			if (w_result(w, "abb_reg_read", rc, closed, 0) && v != ABB_VERSION_ID)
				w_bad(w, "VERSION read wrong", "abb_reg_read", 0);
			break;
		case 4:
			w_pio_mem(w, d, 0);
			break;
		case 5:
			rc = abb_time_ns(d, &t);
			w_result(w, "abb_time_ns", rc, closed, 0);
			break;
		case 6:
			rc = abb_dmabuf_map(d, w->extra, 64, &x);
			if (w_result(w, "abb_dmabuf_map", rc, closed, 0)) {
				closed = __atomic_load_n(&st->closed, __ATOMIC_ACQUIRE);
				rc = abb_dmabuf_unmap(x);
				/* abb_close may have unmapped it meanwhile */
				if (rc && !(rc == -EINVAL &&
					    __atomic_load_n(&st->closing, __ATOMIC_ACQUIRE)))
					w_bad(w, "unmap of a buffer just mapped", "abb_dmabuf_unmap", rc);
			}
			break;
		default:
			rc = abb_reg_write(d, ABB_REG_IGEN_LAT, w_rnd(w) & 0xffff);
			w_result(w, "abb_reg_write", rc, closed, 0);
			break;
		}
		__atomic_add_fetch(&w->calls, 1, __ATOMIC_RELEASE);
	}
	/* abb_close unmapped it: the handle is refused */
	if (b && (rc = abb_dmabuf_unmap(b)) != -EINVAL)
		w_bad(w, "unmap after abb_close", "abb_dmabuf_unmap", rc);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	for (;;) {
		pthread_barrier_wait(&w->st->bar); /* round start */
		if (__atomic_load_n(&w->st->quit, __ATOMIC_ACQUIRE))
			return NULL;
		w->rnd = (w->st->round + 1) * 2654435761u + w->idx * 40503u + 1;
		w_phase_open(w);
		pthread_barrier_wait(&w->st->bar); /* phase A done */
		pthread_barrier_wait(&w->st->bar); /* phase B's device open */
		if (w->st->dev)
			w_phase_shared(w);
		pthread_barrier_wait(&w->st->bar); /* phase B done */
	}
}

/* Rounds: ABB_STRESS_ROUNDS, else dflt. */
static unsigned stress_rounds(unsigned dflt)
{
	const char *s = getenv("ABB_STRESS_ROUNDS");
	char *end;
	unsigned long n;

	if (!s || !*s)
		return dflt;
	n = strtoul(s, &end, 10);
	if (*end || n == 0 || n > 10000000) {
		printf("\n    ABB_STRESS_ROUNDS=\"%s\": use 1..10000000; %u rounds\n", s, dflt);
		return dflt;
	}
	return (unsigned)n;
}

static void test_stress_open_close_dma_pio(void)
{
	static struct worker w[ST_THREADS];
	const char *env = getenv("ABB_DEVICE");
	struct stress st = {0};
	char uri[256];
	unsigned rounds, round, started = 0, bad = 0;
	unsigned long opens = 0, dmas = 0, pios = 0, refused = 0, busy = 0;
	size_t bar1 = 0;
	abb_dev *probe = NULL;

	if (!env || !*env)
		env = "sim";
	st.model = !strncmp(env, "model", 5) && (env[5] == 0 || env[5] == ':');
	if (st.model) {
		/* small boards: 8 of them open at once, 10^4 rounds */
		snprintf(uri, sizeof uri, "%s%smem_size=64K", env, env[5] ? "," : ":");
		st.uri = uri;
	}
	st.one_opener = !st.model && strncmp(env, "sim", 3);
	rounds = stress_rounds(st.model ? 100 : 4);
	tb_close();
	CU_ASSERT_EQUAL_FATAL(abb_open(&probe, st.uri), 0);
	CU_ASSERT_EQUAL(abb_mem_size(probe, &bar1), 0);
	abb_close(probe);
	st.slice = bar1 / ST_THREADS;
	CU_ASSERT_FATAL(st.slice >= 2 * ST_AREA && st.slice / 2 >= ST_PIO);
	CU_ASSERT_EQUAL_FATAL(pthread_barrier_init(&st.bar, NULL, ST_THREADS + 1), 0);
	for (unsigned i = 0; i < ST_THREADS; i++) {
		w[i] = (struct worker){.st = &st, .idx = i};
		w[i].mem = tb_alloc_pages(ST_GUARD + ST_AREA + ST_GUARD);
		w[i].want = malloc(ST_AREA);
		w[i].extra = tb_alloc_pages(64);
		CU_ASSERT_FATAL(w[i].mem && w[i].want && w[i].extra);
		w[i].area = w[i].mem + ST_GUARD;
		memset(w[i].mem, ST_GUARD_BYTE, ST_GUARD + ST_AREA + ST_GUARD);
	}
	for (unsigned i = 0; i < ST_THREADS; i++)
		if (pthread_create(&w[i].th, NULL, worker_main, &w[i]) == 0)
			started++;
	CU_ASSERT_EQUAL_FATAL(started, ST_THREADS);

	for (round = 0; round < rounds && !bad; round++) {
		unsigned ok = 0;
		int rc;

		st.round = round;
		st.dev = NULL;
		st.closing = st.closed = 0;
		st.double_close = round % 4 == 3;
		st.quota = 1 + (unsigned)(((round + 1) * 2654435761u) >> 8) % 40;
		for (unsigned i = 0; i < ST_THREADS; i++)
			w[i].calls = 0;
		pthread_barrier_wait(&st.bar); /* round start */
		pthread_barrier_wait(&st.bar); /* phase A: the opens begin */
		pthread_barrier_wait(&st.bar); /* every open was tried */
		pthread_barrier_wait(&st.bar); /* phase A done */
		for (unsigned i = 0; i < ST_THREADS; i++)
			ok += w[i].open_rc == 0;
		opens += ok;
		if (ok != (st.model ? ST_THREADS : 1u)) {
			printf("\n    round %u: %u of %d concurrent opens succeeded (want %d)\n", round,
			       ok, ST_THREADS, st.model ? ST_THREADS : 1);
			bad++;
		}

		/* phase B */
		rc = abb_open(&st.dev, st.uri);
		if (rc) {
			printf("\n    round %u: abb_open: %d %s\n", round, rc, abb_last_error());
			st.dev = NULL;
			bad++;
		}
		pthread_barrier_wait(&st.bar); /* the device is open */
		if (st.dev) {
			for (unsigned i = 0; i < ST_THREADS; i++)
				while (__atomic_load_n(&w[i].calls, __ATOMIC_ACQUIRE) < st.quota)
					sched_yield();
			__atomic_store_n(&st.closing, 1, __ATOMIC_RELEASE);
			abb_close(st.dev);
			__atomic_store_n(&st.closed, 1, __ATOMIC_RELEASE);
		}
		pthread_barrier_wait(&st.bar); /* phase B done */
		for (unsigned i = 0; i < ST_THREADS; i++)
			bad += w[i].bad;
	}
	__atomic_store_n(&st.quit, 1, __ATOMIC_RELEASE);
	pthread_barrier_wait(&st.bar);
	for (unsigned i = 0; i < ST_THREADS; i++) {
		pthread_join(w[i].th, NULL);
		if (w[i].bad)
			printf("\n    %u wrong results; the first: %s\n", w[i].bad, w[i].why);
		CU_ASSERT_EQUAL(w[i].bad, 0);
		dmas += w[i].dmas;
		pios += w[i].pios;
		refused += w[i].refused;
		busy += w[i].busy;
		free(w[i].mem);
		free(w[i].want);
		free(w[i].extra);
	}
	pthread_barrier_destroy(&st.bar);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(round, rounds);
	printf("\n    stress: %u rounds on %s, %d threads: %lu concurrent opens succeeded, %lu "
	       "DMA round trips and %lu PIO checks right, %lu calls refused by a close, %lu "
	       "-EBUSY (channel taken)\n", round, env, ST_THREADS, opens, dmas, pios, refused,
	       busy);
	/* the device works afterwards */
	CU_ASSERT_EQUAL(tb_open(NULL), 0);
	if (tb_dev) {
		uint32_t v = 0;

		CU_ASSERT_EQUAL(abb_reg_read(tb_dev, ABB_REG_VERSION, &v), 0);
		CU_ASSERT_EQUAL(v, ABB_VERSION_ID);
	}
}

static CU_TestInfo stress_tests[] = {
	{ "test_stress_open_close_dma_pio", test_stress_open_close_dma_pio },
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo stress_suites[] = {
	{ "stress", NULL, tb_suite_close, NULL, NULL, stress_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_stress(void)
{
	return CU_register_suites(stress_suites);
}
