/*
 * test_protocol.c - libabb's DMA and interrupt protocol holds on a board
 * that lacks every model-defined side effect (strict mode), and no wait
 * can hang or outlive its device: a DONE left over from the previous
 * transfer does not end a wait; an interrupt taken by another thread, a
 * soft reset or abb_close end an interrupt-mode wait; INT64_MAX timeouts;
 * the device's wait limit (ABB_WAIT_LIMIT_MS); abb_close twice, and while
 * another thread waits; polled waits back off.
 *
 * A transfer that stays running on purpose: a fixed-address DMA read from
 * the event source's address (EVS_ADDR, model-defined) while the source is
 * disabled waits for events until EVS_CTRL.ENABLE is set. Those tests run
 * on the simulator and the reference model only.
 */
#define _GNU_SOURCE
#include "tb.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <abb/abb_regs.h>
#include <abb/abb_sim.h>

#define PLEN (64u * 1024u)
#define STALL_LEN 4096u

static uint8_t *pb[2];
static abb_dmabuf *pm[2];

static int map_bufs(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (!pb[i])
			pb[i] = tb_alloc_pages(PLEN);
		pm[i] = NULL;
		if (!pb[i] || abb_dmabuf_map(tb_dev, pb[i], PLEN, &pm[i]) < 0)
			return -1;
	}
	return 0;
}

static int protocol_init(void)
{
	if (tb_suite_open() < 0)
		return -1;
	return map_bufs();
}

static int protocol_cleanup(void)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (pm[i] && tb_dev)
			(void)abb_dmabuf_unmap(pm[i]);
		pm[i] = NULL;
		free(pb[i]);
		pb[i] = NULL;
	}
	return tb_suite_close();
}

/* Reopens the suite's device (after a test closed it) and maps the buffers. */
static void reopen(void)
{
	tb_close();
	pm[0] = pm[1] = NULL;
	CU_ASSERT_FATAL(tb_open(NULL) == 0);
	CU_ASSERT_FATAL(map_bufs() == 0);
}

/* Device-time budget for "a short while": the simulator counts device ns
 * exactly; the untimed model runs on the host's clock (allow for a slow
 * host). */
static int64_t short_ns(void)
{
	return tb_is_timed() ? 50000 : 2000000;
}

static int64_t long_ns(void)
{
	return tb_is_timed() ? 5000000 : 200000000;
}

static uint32_t evs_addr(void)
{
	size_t mem = 0;

	CU_ASSERT_EQUAL(abb_mem_size(tb_dev, &mem), 0);
	return (uint32_t)(mem - 16);
}

/* Starts a DMA read that stays running: from the disabled event source. */
static int stall_start(unsigned flags)
{
	tb_reg_set(ABB_REG_EVS_CTRL, ABB_EVS_CTRL_CLEAR); /* disabled, empty */
	tb_reg_set(ABB_REG_EVS_ADDR, evs_addr());
	memset(pb[0], 0, STALL_LEN);
	return abb_dma_read_start(tb_dev, pm[0], 0, evs_addr(), STALL_LEN, ABB_DMA_FIXED | flags);
}

/* Lets a stalled read run: events flow. */
static void stall_release(void)
{
	tb_reg_set(ABB_REG_EVS_CTRL, ABB_EVS_CTRL_ENABLE);
}

static void stall_cleanup(void)
{
	tb_reg_set(ABB_REG_EVS_CTRL, 0);
	tb_reg_set(ABB_REG_EVS_ADDR, ABB_REG_EVS_ADDR_RESET);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* 1 if pb[0] starts with an event (DW0 = EVS_MAGIC | size). */
static int has_event(void)
{
	uint32_t dw0 = get_le32(pb[0]);

	if ((dw0 & 0xff000000u) != ABB_EVS_MAGIC)
		printf("\n    DW0 of the read is 0x%08x, not an event header\n", dw0);
	return (dw0 & 0xff000000u) == ABB_EVS_MAGIC;
}

/* A normal DMA read of len bytes with a fresh pattern, checked. */
static void good_read(size_t len, unsigned flags, uint32_t seed)
{
	uint8_t *want = malloc(len);

	CU_ASSERT_FATAL(want != NULL);
	tb_fill(want, len, seed);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0x1000, want, len > 16384 ? 16384 : len), 0);
	if (len > 16384) {
		tb_fill(pb[1], len, seed);
		CU_ASSERT_EQUAL(abb_dma_write(tb_dev, pm[1], 0, 0x1000, len, 0), 0);
	}
	memset(pb[0], 0, len);
	CU_ASSERT_EQUAL(abb_dma_read(tb_dev, pm[0], 0, 0x1000, len, flags), 0);
	CU_ASSERT(tb_same("DMA read", pb[0], want, len));
	free(want);
}

/* The previous transfer leaves DONE in STA (on a strict board a start does
 * not clear it): the next transfer's wait must not end before that one is
 * done, by polling or by interrupt. */
static void leftover_done(unsigned flags)
{
	uint32_t sta;
	int rc;

	good_read(4096, flags, 100 + flags);
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_C2H + ABB_CH_STA) & (ABB_STA_DONE | ABB_STA_BUSY),
			ABB_STA_DONE);
	CU_ASSERT_EQUAL_FATAL(stall_start(flags), 0);
	rc = abb_dma_read_wait(tb_dev, short_ns());
	if (rc != -ETIMEDOUT)
		printf("\n    wait on a running read after a DONE (flags %u): %d (%s)\n", flags, rc,
		       abb_last_error());
	CU_ASSERT_EQUAL(rc, -ETIMEDOUT);
	/* the channel was reset before the start: it reads plain BUSY */
	sta = tb_reg(ABB_BLK_C2H + ABB_CH_STA) & (ABB_STA_DONE | ABB_STA_BUSY);
	CU_ASSERT_EQUAL(sta, ABB_STA_BUSY);
	stall_release();
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, long_ns()), 0);
	CU_ASSERT(has_event());
	stall_cleanup();
	good_read(4096, 0, 110 + flags);
}

static void test_protocol_leftover_done_polled(void)
{
	TB_REQUIRE_DEV();
	leftover_done(0);
}

static void test_protocol_leftover_done_irq(void)
{
	TB_REQUIRE_DEV();
	leftover_done(ABB_DMA_IRQ);
}

/* Another caller of abb_irq_wait takes the DMA's interrupt (it clears the
 * enable bit): the DMA's own wait still ends, by the status it reads. */
static void test_protocol_stolen_interrupt(void)
{
	uint64_t t0 = tb_now_ns();
	int rc;

	TB_REQUIRE_DEV();
	tb_fill(pb[1], 8192, 200);
	CU_ASSERT_EQUAL(abb_mem_write(tb_dev, 0x3000, pb[1], 8192), 0);
	memset(pb[0], 0, 8192);
	CU_ASSERT_EQUAL_FATAL(abb_dma_read_start(tb_dev, pm[0], 0, 0x3000, 8192, ABB_DMA_IRQ), 0);
	/* this thread takes the interrupt first */
	rc = abb_irq_wait(tb_dev, ABB_IRQ_DMA_READ, long_ns());
	CU_ASSERT_EQUAL(rc, (int)ABB_IRQ_DMA_READ);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & ABB_ISR_C2H, 0); /* acknowledged */
	rc = abb_dma_read_wait(tb_dev, long_ns());
	if (rc)
		printf("\n    DMA wait after its interrupt was taken: %d (%s)\n", rc,
		       abb_last_error());
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(tb_same("DMA read whose interrupt was taken", pb[0], pb[1], 8192));
	/* in device time (on the untimed model that is the host's clock: no
	 * bound there; a wait that stalled to its timeout fails its rc) */
	if (tb_is_timed())
		CU_ASSERT(tb_now_ns() - t0 < (uint64_t)long_ns());
}

struct stealer {
	int rc;
	int64_t timeout;
};

static void *steal(void *arg)
{
	struct stealer *s = arg;

	s->rc = abb_irq_wait(tb_dev, ABB_IRQ_DMA_READ, s->timeout);
	return NULL;
}

/* The same with the thief in another thread, waiting before the interrupt
 * comes: whoever reads first, both calls end. */
static void test_protocol_stolen_interrupt_thread(void)
{
	struct stealer s = { 0, 0 };
	pthread_t t;
	int rc;

	TB_REQUIRE_DEV();
	s.timeout = long_ns();
	CU_ASSERT_EQUAL_FATAL(stall_start(ABB_DMA_IRQ), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, steal, &s), 0);
	stall_release();
	rc = abb_dma_read_wait(tb_dev, long_ns());
	pthread_join(t, NULL);
	if (rc)
		printf("\n    DMA wait with a thief thread: %d (%s)\n", rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(has_event());
	CU_ASSERT(s.rc == (int)ABB_IRQ_DMA_READ || s.rc == -ETIMEDOUT);
	stall_cleanup();
	good_read(4096, ABB_DMA_IRQ, 210);
}

struct releaser {
	uint64_t t_rel;
};

/* Releases the stalled read once the read's wait has acknowledged the
 * pending DMA-write interrupt (its IER bit cleared), so the read's
 * completion comes after the acknowledge whatever the host's scheduling
 * (a fixed 5 ms sleep let a loaded machine complete the read before its
 * wait began: one edge only). Gives up after 10 s of wall time (a hang
 * guard: a wait that never acknowledges then fails the edge count). */
static void *release_later(void *arg)
{
	struct releaser *r = arg;
	struct timespec ts = { 0, 100000 };

	uint32_t ier = ABB_ISR_H2C;

	/* abb_reg_read, not tb_reg: CUnit's assertions are not for threads */
	for (unsigned i = 0; i < 100000 && (ier & ABB_ISR_H2C); i++) {
		nanosleep(&ts, NULL);
		if (abb_reg_read(tb_dev, ABB_REG_IER, &ier))
			break;
	}
	r->t_rel = tb_now_ns();
	stall_release();
	return NULL;
}

/* An interrupt nobody collected yet (a DMA write by interrupt whose wait
 * comes later) holds the interrupt line (ISR & IER, a level) high. A DMA
 * read by interrupt started after it must still get an interrupt of its
 * own: its wait acknowledges the other source before it sleeps, so the
 * read's completion is a new rising edge (DIAG_MSI counts both), not
 * noticed only at the end of a 1 ms slice. */
static void test_protocol_pending_other_interrupt(void)
{
	struct releaser r = { 0 };
	uint32_t n0, n1;
	uint64_t t_ret;
	pthread_t t;
	int rc;

	TB_REQUIRE_DEV();
	tb_fill(pb[1], 4096, 800);
	n0 = tb_reg(ABB_REG_DIAG_MSI);
	CU_ASSERT_EQUAL_FATAL(abb_dma_write_start(tb_dev, pm[1], 0, 0x20000, 4096, ABB_DMA_IRQ), 0);
	while (tb_reg(ABB_BLK_H2C + ABB_CH_STA) & ABB_STA_BUSY)
		;
	CU_ASSERT_EQUAL_FATAL(stall_start(ABB_DMA_IRQ), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, release_later, &r), 0);
	rc = abb_dma_read_wait(tb_dev, long_ns());
	t_ret = tb_now_ns();
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(has_event());
	n1 = tb_reg(ABB_REG_DIAG_MSI);
	printf("\n    read done %llu ns after the release; %u interrupts\n",
	       (unsigned long long)(t_ret - r.t_rel), n1 - n0);
	CU_ASSERT(n1 - n0 >= 2);
	CU_ASSERT_EQUAL(abb_dma_write_wait(tb_dev, long_ns()), 0);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & 7u, 0);
	stall_cleanup();
}

/* GCR.SOFT_RESET (model-defined) stops a running transfer without an
 * interrupt: the wait ends with -EIO within its slice, the channel is
 * free, and the next transfer works. */
static void soft_reset_during(unsigned flags)
{
	uint64_t t0;
	int rc;

	CU_ASSERT_EQUAL_FATAL(stall_start(flags), 0);
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, short_ns()), -ETIMEDOUT);
	tb_reg_set(ABB_REG_GCR, ABB_GCR_SOFT_RESET);
	t0 = tb_now_ns();
	rc = abb_dma_read_wait(tb_dev, long_ns());
	if (rc != -EIO)
		printf("\n    wait after a soft reset (flags %u): %d (%s)\n", flags, rc,
		       abb_last_error());
	CU_ASSERT_EQUAL(rc, -EIO);
	if (tb_is_timed()) /* device time; the model's is the host's clock */
		CU_ASSERT(tb_now_ns() - t0 < (uint64_t)long_ns());
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, 0), -EINVAL); /* released */
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & ABB_ISR_C2H, 0);
	stall_cleanup();
	tb_reg_set(ABB_REG_GCR, 0);
	good_read(PLEN, flags, 300 + flags);
}

static void test_protocol_soft_reset_irq(void)
{
	TB_REQUIRE_DEV();
	soft_reset_during(ABB_DMA_IRQ);
}

static void test_protocol_soft_reset_polled(void)
{
	TB_REQUIRE_DEV();
	soft_reset_during(0);
}

/* INT64_MAX as a timeout means "no limit", not an overflow. */
static void test_protocol_int64_max_timeouts(void)
{
	char errs[256];
	int rc;

	TB_REQUIRE_DEV();
	tb_fill(pb[1], PLEN, 400);
	CU_ASSERT_EQUAL_FATAL(abb_dma_write_start(tb_dev, pm[1], 0, 0x10000, PLEN, ABB_DMA_IRQ), 0);
	CU_ASSERT_EQUAL(abb_dma_write_wait(tb_dev, INT64_MAX), 0);
	memset(pb[0], 0, PLEN);
	CU_ASSERT_EQUAL_FATAL(abb_dma_read_start(tb_dev, pm[0], 0, 0x10000, PLEN, ABB_DMA_IRQ), 0);
	rc = abb_dma_read_wait(tb_dev, INT64_MAX);
	if (rc)
		printf("\n    DMA read wait(INT64_MAX): %d (%s)\n", rc, abb_last_error());
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT(tb_same("DMA read, wait(INT64_MAX)", pb[0], pb[1], PLEN));
	memset(pb[0], 0, PLEN);
	CU_ASSERT_EQUAL_FATAL(abb_dma_read_start(tb_dev, pm[0], 0, 0x10000, PLEN, 0), 0);
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, INT64_MAX), 0);
	CU_ASSERT(tb_same("polled DMA read, wait(INT64_MAX)", pb[0], pb[1], PLEN));

	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	tb_reg_set(ABB_REG_IGEN_LAT, 100);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_ARM);
	CU_ASSERT_EQUAL(abb_irq_wait(tb_dev, ABB_IRQ_GEN, INT64_MAX), (int)ABB_IRQ_GEN);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_ISR) & ABB_ISR_IGEN, 0); /* acknowledged (IGEN_ACK) */
	if (tb_is_sim()) {
		rc = abb_sim_protocol_errors(tb_dev, errs, sizeof(errs));
		if (rc)
			printf("\n    protocol errors: %s\n", errs);
		CU_ASSERT_EQUAL(rc, 0);
	}
}

/* The device's wait limit (ABB_WAIT_LIMIT_MS) ends waits without a limit
 * of their own and blocking calls: -ETIMEDOUT, the channel reset and free. */
static void test_protocol_wait_limit(void)
{
	uint64_t t0, dt;
	int rc;

	TB_REQUIRE_DEV();
	tb_close();
	setenv("ABB_WAIT_LIMIT_MS", "x1", 1);
	rc = tb_open(NULL);
	CU_ASSERT_EQUAL(rc, -EINVAL);
	tb_close();
	setenv("ABB_WAIT_LIMIT_MS", tb_is_timed() ? "2" : "50", 1);
	reopen();
	unsetenv("ABB_WAIT_LIMIT_MS");

	CU_ASSERT_EQUAL_FATAL(stall_start(0), 0);
	t0 = tb_now_ns();
	rc = abb_dma_read_wait(tb_dev, ABB_WAIT_FOREVER);
	dt = tb_now_ns() - t0;
	CU_ASSERT_EQUAL(rc, -ETIMEDOUT);
	CU_ASSERT(dt >= (tb_is_timed() ? 2000000u : 50000000u));
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, 0), -EINVAL); /* released */
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_C2H + ABB_CH_STA) & ABB_STA_BUSY, 0);

	/* a blocking call by interrupt, and INT64_MAX */
	tb_reg_set(ABB_REG_EVS_CTRL, ABB_EVS_CTRL_CLEAR);
	rc = abb_dma_read(tb_dev, pm[0], 0, evs_addr(), STALL_LEN, ABB_DMA_FIXED | ABB_DMA_IRQ);
	CU_ASSERT_EQUAL(rc, -ETIMEDOUT);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & ABB_ISR_C2H, 0);
	CU_ASSERT_EQUAL_FATAL(stall_start(ABB_DMA_IRQ), 0);
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, INT64_MAX), -ETIMEDOUT);
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, 0), -EINVAL);
	/* abb_irq_wait without a limit of its own */
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET);
	CU_ASSERT_EQUAL(abb_irq_wait(tb_dev, ABB_IRQ_GEN, ABB_WAIT_FOREVER), -ETIMEDOUT);
	CU_ASSERT_EQUAL(tb_reg(ABB_REG_IER) & ABB_ISR_IGEN, 0);
	stall_cleanup();
	good_read(PLEN, 0, 500);
	good_read(4096, ABB_DMA_IRQ, 501);
	reopen(); /* back to the default limit */
}

/* abb_close twice: the second is refused with a message, no crash; calls
 * on the closed handle are refused. */
static void test_protocol_double_close(void)
{
	abb_dev *d = NULL;
	uint32_t v;

	TB_REQUIRE_DEV();
	tb_close();
	pm[0] = pm[1] = NULL;
	CU_ASSERT_EQUAL_FATAL(abb_open(&d, NULL), 0);
	abb_close(d);
	abb_close(d);
	CU_ASSERT(strstr(abb_last_error(), "not an open device") != NULL);
	CU_ASSERT_EQUAL(abb_reg_read(d, ABB_REG_VERSION, &v), -EINVAL);
	CU_ASSERT_EQUAL(abb_dma_read_wait(d, 0), -EINVAL);
	CU_ASSERT_EQUAL(abb_irq_wait(d, ABB_IRQ_GEN, 0), -EINVAL);
	reopen();
	/* the simulation-only calls refuse it too, also once another handle
	 * has opened the (one) simulated board again: they must not act on it */
	{
		uint64_t c = 0;
		struct abb_sim_link l;

		CU_ASSERT_EQUAL(abb_sim_cycles(d, &c), -EINVAL);
		CU_ASSERT(strstr(abb_last_error(), "not an open device") != NULL);
		CU_ASSERT_EQUAL(abb_sim_advance(d, 1000), -EINVAL);
		CU_ASSERT_EQUAL(abb_sim_link_params(d, &l), -EINVAL);
		CU_ASSERT_EQUAL(abb_sim_hosttime(d), -EINVAL);
		CU_ASSERT_EQUAL(abb_sim_inject_clear(d), -EINVAL);
		CU_ASSERT_EQUAL(abb_sim_protocol_errors(d, NULL, 0), -EINVAL);
		abb_sim_note(d, ABB_SIM_NOTE_TEXT, "ignored");
	}
	good_read(4096, 0, 600);
}

struct waiter {
	unsigned flags;
	int started, rc;
};

static void *wait_forever(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	w->rc = abb_dma_read_wait(tb_dev, ABB_WAIT_FOREVER);
	return NULL;
}

static void *irq_wait_forever(void *arg)
{
	struct waiter *w = arg;

	__atomic_store_n(&w->started, 1, __ATOMIC_RELEASE);
	w->rc = abb_irq_wait(tb_dev, ABB_IRQ_GEN, ABB_WAIT_FOREVER);
	return NULL;
}

static void *close_dev(void *arg)
{
	abb_close(arg);
	return NULL;
}

/* abb_close while another thread waits for a DMA that does not end (and,
 * with interrupts, a third one in abb_irq_wait): the close stops the
 * channel, the waiters return an error, then the device is freed. Nothing
 * blocks for ever (model included). */
static void close_while_waiting(unsigned flags)
{
	struct waiter w = { flags, 0, 0 }, iw = { 0, 0, 0 };
	struct timespec ts = { 0, 20000000 }, until;
	abb_dev *d = tb_dev;
	pthread_t wt, it, ct;
	int rc;

	CU_ASSERT_EQUAL_FATAL(stall_start(flags), 0);
	tb_reg_set(ABB_REG_IGEN_CTRL, ABB_IGEN_RESET); /* the generator stays quiet */
	CU_ASSERT_EQUAL_FATAL(pthread_create(&wt, NULL, wait_forever, &w), 0);
	if (flags & ABB_DMA_IRQ) {
		CU_ASSERT_EQUAL_FATAL(pthread_create(&it, NULL, irq_wait_forever, &iw), 0);
	} else {
		iw.started = 1;
	}
	while (!__atomic_load_n(&w.started, __ATOMIC_ACQUIRE) ||
	       !__atomic_load_n(&iw.started, __ATOMIC_ACQUIRE))
		nanosleep(&ts, NULL);
	nanosleep(&ts, NULL); /* the waiter is inside its wait now (most likely) */
	CU_ASSERT_EQUAL_FATAL(pthread_create(&ct, NULL, close_dev, d), 0);
	/* a hang guard far above the milliseconds a close takes */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 60;
	rc = pthread_timedjoin_np(ct, NULL, &until);
	CU_ASSERT_EQUAL_FATAL(rc, 0); /* abb_close returned */
	CU_ASSERT_EQUAL_FATAL(pthread_timedjoin_np(wt, NULL, &until), 0);
	if (w.rc != -ECANCELED && w.rc != -EIO)
		printf("\n    waiter ended with %d\n", w.rc);
	CU_ASSERT(w.rc == -ECANCELED || w.rc == -EIO);
	if (flags & ABB_DMA_IRQ) {
		CU_ASSERT_EQUAL_FATAL(pthread_timedjoin_np(it, NULL, &until), 0);
		CU_ASSERT(iw.rc == -ECANCELED || iw.rc == -EINVAL);
	}
	tb_dev = NULL;
	pm[0] = pm[1] = NULL;
	reopen();
	CU_ASSERT_EQUAL(tb_reg(ABB_BLK_C2H + ABB_CH_STA) & ABB_STA_BUSY, 0);
	stall_cleanup();
	good_read(4096, flags, 700 + flags);
}

static void test_protocol_close_while_waiting_polled(void)
{
	TB_REQUIRE_DEV();
	close_while_waiting(0);
}

static void test_protocol_close_while_waiting_irq(void)
{
	TB_REQUIRE_DEV();
	close_while_waiting(ABB_DMA_IRQ);
}

/* Simulator: a polled wait does not read STA flat out. 2 ms of device
 * time on a read that does not end: after a few reads back to back the
 * reads are spaced up to 100 us (flat out they come every ~0.5 us). */
static void test_protocol_polled_wait_backs_off(void)
{
	char path[] = "/tmp/abb_tb_backoff_XXXXXX", line[512], sta[32];
	int fd, reads = 0;
	FILE *f;

	TB_REQUIRE_DEV();
	fd = mkstemp(path);
	CU_ASSERT_FATAL(fd >= 0);
	close(fd);
	CU_ASSERT_EQUAL_FATAL(stall_start(0), 0);
	CU_ASSERT_EQUAL_FATAL(abb_sim_tlp_log(tb_dev, path), 0);
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, 2000000), -ETIMEDOUT);
	CU_ASSERT_EQUAL(abb_sim_tlp_log(tb_dev, "/dev/null"), 0);
	f = fopen(path, "r");
	CU_ASSERT_FATAL(f != NULL);
	snprintf(sta, sizeof(sta), "%x len=1", ABB_BLK_C2H + ABB_CH_STA);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, " MRd ") && strstr(line, sta))
			reads++;
	fclose(f);
	unlink(path);
	printf("\n    %d STA reads in 2 ms of a polled wait\n", reads);
	CU_ASSERT(reads >= 10 && reads <= 100);
	stall_release();
	CU_ASSERT_EQUAL(abb_dma_read_wait(tb_dev, long_ns()), 0);
	stall_cleanup();
}

static CU_TestInfo protocol_tests[] = {
	TB_EVSRC_TEST(test_protocol_leftover_done_polled),
	TB_EVSRC_TEST(test_protocol_leftover_done_irq),
	{ "test_protocol_stolen_interrupt", test_protocol_stolen_interrupt },
	TB_EVSRC_TEST(test_protocol_stolen_interrupt_thread),
	TB_EVSRC_TEST(test_protocol_pending_other_interrupt),
	TB_EVSRC_TEST(test_protocol_soft_reset_irq),
	TB_EVSRC_TEST(test_protocol_soft_reset_polled),
	{ "test_protocol_int64_max_timeouts", test_protocol_int64_max_timeouts },
	TB_SIM_TEST(test_protocol_polled_wait_backs_off),
	TB_EVSRC_TEST(test_protocol_wait_limit),
	{ "test_protocol_double_close", test_protocol_double_close },
	TB_EVSRC_TEST(test_protocol_close_while_waiting_polled),
	TB_EVSRC_TEST(test_protocol_close_while_waiting_irq),
	CU_TEST_INFO_NULL,
};

static CU_SuiteInfo protocol_suite[] = {
	{ "protocol", protocol_init, protocol_cleanup, NULL, NULL, protocol_tests },
	CU_SUITE_INFO_NULL,
};

CU_ErrorCode tb_register_protocol(void)
{
	return CU_register_suites(protocol_suite);
}
