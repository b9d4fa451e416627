/*
 * daq_module.c - readout and writer modules (DABC's AbbReadoutModule and
 * AbbWriterModule) with their transport loops, in one or two threads.
 *
 * Readout (board to host), transport loop:
 *
 *     buf = pool_get(); start(buf)        -- DMA n in flight
 *     hand_on(prev)                       -- buffer n-1 to the module
 *     complete(buf); prev = buf
 *
 * hand_on is the module's process step itself (one thread: standalone
 * releases the buffer, regular pushes it to the output queue) or a push
 * into the queue to the module thread (two threads).
 *
 * Writer (host to board), transport loop:
 *
 *     cur = produce(); start(cur)
 *     next = produce()                    -- while DMA n is in flight
 *     complete(cur); release(cur); cur = next
 *
 * produce is the module's step (standalone: a buffer from the pool;
 * regular: the next buffer of the input queue) or a pop from the queue the
 * module thread fills (two threads).
 *
 * Stop: a flag every wait of the threads looks at (daq_priv.h); a DMA wait
 * ends after at most Timeout of device time, and a DMA that is still
 * running when the stop is seen is aborted (channel reset). Whatever a
 * thread holds when it ends goes back to the pool; the output is closed, so
 * a consumer sees end of stream.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daq_priv.h"

enum kind { READOUT, WRITER };

struct abb_daq_module {
	enum kind kind;
	struct abb_daq_params p;
	abb_daq_device *d;
	abb_daq_transport *t;
	size_t hdr; /* header bytes in front of read data (the transport's) */
	abb_daq_pool *pool;
	int own_pool;
	struct daq_spsc *inq; /* between transport and module thread (two threads) */
	abb_daq_queue *port; /* regular mode: readout output / writer input */

	atomic_int stop;
	int running;
	pthread_t th[2];
	int nth;

	pthread_mutex_t lock;
	pthread_cond_t done;
	int nfinished;

	/* statistics: written by the processing thread for every buffer, so on
	 * their own cache line (the transport thread reads stop and the
	 * parameters above all the time) */
	_Alignas(64) atomic_uint_fast64_t buffers;
	atomic_uint_fast64_t bytes, timeouts, skipped;
	atomic_uint_fast64_t t_end;
	atomic_uint_fast64_t t_start; /* set by the transport thread when it begins */
	enum abb_daq_result last;
	int error;
};

static uint64_t dev_now(abb_daq_module *m)
{
	uint64_t t = 0;

	if (abb_time_ns(abb_daq_device_dev(m->d), &t))
		t = 0;
	return t;
}

static void set_error(abb_daq_module *m, int err)
{
	pthread_mutex_lock(&m->lock);
	if (!m->error)
		m->error = err ? err : -EIO;
	pthread_mutex_unlock(&m->lock);
}

/* How the transport loop ended; under the lock, as abb_daq_module_stats
 * reads it (written without it before: a data race ThreadSanitizer found). */
static void set_last(abb_daq_module *m, enum abb_daq_result r)
{
	pthread_mutex_lock(&m->lock);
	m->last = r;
	pthread_mutex_unlock(&m->lock);
}

static bool stopping(abb_daq_module *m)
{
	return atomic_load_explicit(&m->stop, memory_order_relaxed);
}

/* Counts a finished buffer; records the time of the last one. One thread
 * counts (the one that finishes buffers), so no read-modify-write is
 * needed; readers of the statistics load the counters atomically. */
static void count(abb_daq_module *m, uint64_t bytes)
{
	uint64_t n = atomic_load_explicit(&m->buffers, memory_order_relaxed) + 1;

	atomic_store_explicit(&m->buffers, n, memory_order_relaxed);
	atomic_store_explicit(&m->bytes,
			      atomic_load_explicit(&m->bytes, memory_order_relaxed) + bytes,
			      memory_order_relaxed);
	if (m->p.max_buffers && n == m->p.max_buffers)
		atomic_store(&m->t_end, dev_now(m));
}

/* Marks the end of a thread; the last one records the end time. */
static void thread_done(abb_daq_module *m)
{
	pthread_mutex_lock(&m->lock);
	if (atomic_load(&m->t_end) == 0)
		atomic_store(&m->t_end, dev_now(m));
	m->nfinished++;
	pthread_cond_broadcast(&m->done);
	pthread_mutex_unlock(&m->lock);
}

/* Waits for the DMA of b; on a stop, aborts it. With Timeout < 0 (no
 * limit) the wait still goes in slices of DAQ_STOP_SLICE_NS of device time
 * (not counted as timeouts), so that a stop is seen within one slice: a
 * DMA that never ends made module_stop wait for the simulator's watchdog
 * and never return on the reference model. */
#define DAQ_STOP_SLICE_NS 1000000 /* 1 ms of device time */
static enum abb_daq_result complete(abb_daq_module *m, abb_daq_buf *b)
{
	int64_t slice = m->p.timeout_ns >= 0 ? m->p.timeout_ns : DAQ_STOP_SLICE_NS;

	for (;;) {
		enum abb_daq_result r = abb_daq_transport_complete(m->t, b, slice);

		if (r != ABB_DAQ_TIMEOUT)
			return r;
		if (m->p.timeout_ns >= 0)
			atomic_fetch_add_explicit(&m->timeouts, 1, memory_order_relaxed);
		if (stopping(m)) {
			abb_daq_transport_abort(m->t);
			return ABB_DAQ_TIMEOUT;
		}
	}
}

/* Gives up the module's reference to b after a failed or aborted DMA,
 * unless the transport could not stop that DMA: then the buffer stays
 * taken (never back in the pool, never freed) and the module reports an
 * error. */
static void drop(abb_daq_module *m, abb_daq_buf *b)
{
	if (daq_transport_stuck(m->t) == b) {
		set_error(m, -EIO);
		return;
	}
	abb_daq_buf_release(b);
}

/* ---- readout ------------------------------------------------------------ */

/* The module's step for a filled buffer. */
static int readout_process(abb_daq_module *m, abb_daq_buf *b)
{
	int rc = 0;

	count(m, b->len > m->hdr ? b->len - m->hdr : 0);
	if (m->p.standalone) {
		abb_daq_buf_release(b);
	} else {
		rc = daq_queue_push(m->port, b, -1, &m->stop, m->p.spin_ns);
		if (rc)
			abb_daq_buf_release(b);
	}
	return rc;
}

static int readout_hand_on(abb_daq_module *m, abb_daq_buf *b)
{
	int rc;

	if (m->p.threads < 2)
		return readout_process(m, b);
	rc = daq_spsc_push(m->inq, b, -1, &m->stop, m->p.spin_ns);
	if (rc)
		abb_daq_buf_release(b);
	return rc;
}

static void *readout_transport(void *arg)
{
	abb_daq_module *m = arg;
	abb_daq_buf *prev = NULL, *b;
	enum abb_daq_result r = ABB_DAQ_OK;
	int rc;

	atomic_store(&m->t_start, dev_now(m));
	while (!stopping(m)) {
		if (abb_daq_transport_size(m->t) == 0) {
			r = ABB_DAQ_EOS;
			break;
		}
		rc = daq_pool_get(m->pool, &b, -1, &m->stop, m->p.spin_ns);
		if (rc)
			break; /* stop */
		rc = abb_daq_transport_start(m->t, b);
		if (rc) {
			abb_daq_buf_release(b);
			set_error(m, rc);
			r = ABB_DAQ_ERROR;
			break;
		}
		if (prev) {
			rc = readout_hand_on(m, prev);
			prev = NULL;
		}
		r = complete(m, b);
		if (r == ABB_DAQ_OK) {
			prev = b;
			if (rc)
				break; /* a stop came while handing on */
			continue;
		}
		drop(m, b);
		if (r == ABB_DAQ_ERROR)
			set_error(m, -EIO);
		break;
	}
	if (prev) {
		if (stopping(m))
			abb_daq_buf_release(prev);
		else
			readout_hand_on(m, prev);
	}
	set_last(m, stopping(m) && r == ABB_DAQ_OK ? ABB_DAQ_EOS : r);
	if (m->p.threads >= 2)
		daq_spsc_close(m->inq);
	else if (m->port)
		abb_daq_queue_close(m->port);
	thread_done(m);
	return NULL;
}

static void *readout_module(void *arg)
{
	abb_daq_module *m = arg;
	abb_daq_buf *b;

	while (daq_spsc_pop(m->inq, &b, -1, &m->stop, m->p.spin_ns) == 0)
		if (readout_process(m, b))
			break;
	if (m->port)
		abb_daq_queue_close(m->port);
	thread_done(m);
	return NULL;
}

/* ---- writer ------------------------------------------------------------- */

/* The module's step: the next buffer to send, or NULL (end, stop). */
static abb_daq_buf *writer_produce(abb_daq_module *m)
{
	abb_daq_buf *b;

	if (m->p.standalone) {
		if (daq_pool_get(m->pool, &b, -1, &m->stop, m->p.spin_ns))
			return NULL;
		return b;
	}
	if (daq_queue_pop(m->port, &b, -1, &m->stop, m->p.spin_ns))
		return NULL;
	return b;
}

static abb_daq_buf *writer_next(abb_daq_module *m)
{
	abb_daq_buf *b;

	if (abb_daq_transport_size(m->t) == 0)
		return NULL; /* MaxBuffers */
	if (m->p.threads < 2)
		return writer_produce(m);
	if (daq_spsc_pop(m->inq, &b, -1, &m->stop, m->p.spin_ns))
		return NULL;
	return b;
}

static void *writer_transport(void *arg)
{
	abb_daq_module *m = arg;
	abb_daq_buf *cur, *next = NULL;
	enum abb_daq_result r = ABB_DAQ_EOS;

	atomic_store(&m->t_start, dev_now(m));
	cur = writer_next(m);
	while (cur && !stopping(m)) {
		int rc;

		if (m->p.standalone == 0 && cur->len == 0) {
			/* nothing to send in this one */
			atomic_fetch_add_explicit(&m->skipped, 1, memory_order_relaxed);
			abb_daq_buf_release(cur);
			cur = writer_next(m);
			continue;
		}
		rc = abb_daq_transport_start(m->t, cur);
		if (rc) {
			set_error(m, rc);
			r = ABB_DAQ_ERROR;
			break;
		}
		next = writer_next(m);
		r = complete(m, cur);
		if (r != ABB_DAQ_OK) {
			if (r == ABB_DAQ_ERROR)
				set_error(m, -EIO);
			break;
		}
		count(m, cur->len);
		abb_daq_buf_release(cur);
		cur = next;
		next = NULL;
		r = ABB_DAQ_EOS;
	}
	if (cur)
		drop(m, cur);
	if (next)
		abb_daq_buf_release(next);
	set_last(m, r);
	if (m->p.threads >= 2) {
		/* the module thread stops producing: its next push fails. The
		 * buffers still queued go back to the pool, or a module thread
		 * waiting for a free buffer (standalone) would wait forever. */
		daq_spsc_close(m->inq);
		while (daq_spsc_pop(m->inq, &next, 0, NULL, 0) == 0)
			abb_daq_buf_release(next);
	}
	if (m->port)
		abb_daq_queue_close(m->port);
	thread_done(m);
	return NULL;
}

static void *writer_module(void *arg)
{
	abb_daq_module *m = arg;
	abb_daq_buf *b;

	while ((b = writer_produce(m)) != NULL) {
		if (daq_spsc_push(m->inq, b, -1, &m->stop, m->p.spin_ns)) {
			abb_daq_buf_release(b);
			break;
		}
	}
	daq_spsc_close(m->inq);
	thread_done(m);
	return NULL;
}

/* ---- life cycle --------------------------------------------------------- */

static int module_create(abb_daq_module **out, enum kind kind, abb_daq_device *d,
			 abb_daq_pool *pool, const struct abb_daq_params *p)
{
	abb_daq_module *m;
	int rc;

	if (!out || !d)
		return abb_err(-EINVAL, "DAQ module create: %s is NULL", !out ? "out" : "device");
	*out = NULL;
	if (p && p->queue_length == 0)
		return abb_err(-EINVAL, "DAQ module create: QueueLength=0; at least 1");
	if (p && (p->threads < 1 || p->threads > 2))
		return abb_err(-EINVAL, "DAQ module create: Threads=%d; 1 or 2", p->threads);
	if (p && (p->standalone < 0 || p->standalone > 1))
		return abb_err(-EINVAL, "DAQ module create: Standalone=%d; 0 or 1", p->standalone);
	/* double buffering: one buffer in the DMA while the previous one is
	 * handed on (NumBuffers=1 was accepted and the module never finished) */
	if ((pool ? abb_daq_pool_size(pool) : p ? p->num_buffers : 2) < 2)
		return abb_err(-EINVAL, "DAQ module create: %s has %u buffer(s); at least 2 "
			       "(double buffering)", pool ? "the pool" : "NumBuffers",
			       pool ? abb_daq_pool_size(pool) : p->num_buffers);
	m = aligned_alloc(64, (sizeof *m + 63) / 64 * 64);
	if (m)
		memset(m, 0, sizeof *m);
	if (!m)
		return -ENOMEM;
	if (p)
		m->p = *p;
	else
		abb_daq_params_default(&m->p);
	m->kind = kind;
	m->d = d;
	pthread_mutex_init(&m->lock, NULL);
	daq_cond_init(&m->done);
	if (!pool) {
		rc = abb_daq_pool_create(&pool, m->p.pool, m->p.buffer_size, m->p.num_buffers);
		if (rc)
			goto fail;
		m->own_pool = 1;
	}
	m->pool = pool;
	rc = abb_daq_transport_create(&m->t, d, kind == READOUT ? ABB_DAQ_READ : ABB_DAQ_WRITE,
				      pool, &m->p);
	if (!rc)
		m->hdr = daq_transport_header(m->t);
	if (!rc && m->p.threads >= 2)
		rc = daq_spsc_create(&m->inq, m->p.queue_length);
	if (!rc && !m->p.standalone)
		rc = abb_daq_queue_create(&m->port, m->p.queue_length);
	if (!rc)
		rc = abb_daq_device_map_pool(d, pool); /* all buffers, before the first DMA */
	if (rc)
		goto fail;
	*out = m;
	return 0;
fail:
	abb_daq_module_destroy(m);
	return rc;
}

int abb_daq_readout_create(abb_daq_module **m, abb_daq_device *d, abb_daq_pool *pool,
			   const struct abb_daq_params *p)
{
	return module_create(m, READOUT, d, pool, p);
}

int abb_daq_writer_create(abb_daq_module **m, abb_daq_device *d, abb_daq_pool *pool,
			  const struct abb_daq_params *p)
{
	return module_create(m, WRITER, d, pool, p);
}

int abb_daq_module_start(abb_daq_module *m)
{
	void *(*tr)(void *), *(*mod)(void *);
	int rc;

	if (!m)
		return -EINVAL;
	if (m->running)
		return abb_err(-EALREADY, "abb_daq_module_start: the module runs (abb_daq_module_stop "
			       "it first)");
	if (daq_transport_stuck(m->t))
		return abb_err(-EIO, "abb_daq_module_start: a DMA of the last run could not be "
			       "stopped and may still write its buffer: destroy the module");
	tr = m->kind == READOUT ? readout_transport : writer_transport;
	mod = m->kind == READOUT ? readout_module : writer_module;
	/* Every start is a new run (the first, or one after module_stop,
	 * whose threads are joined): the queues the last run closed are open
	 * again (the two-thread hand-over stayed closed, and a restarted
	 * two-thread module ended at once and moved nothing), MaxBuffers and
	 * the statistics count from 0, the event counter goes on (the
	 * device's; abb_daq_device_cleanup resets it). */
	if (m->inq)
		daq_spsc_reopen(m->inq);
	if (m->port)
		daq_queue_reopen(m->port);
	daq_transport_rewind(m->t);
	atomic_store(&m->buffers, 0);
	atomic_store(&m->bytes, 0);
	atomic_store(&m->timeouts, 0);
	atomic_store(&m->skipped, 0);
	pthread_mutex_lock(&m->lock);
	m->last = ABB_DAQ_OK;
	m->error = 0;
	pthread_mutex_unlock(&m->lock);
	atomic_store(&m->stop, 0);
	m->nfinished = 0;
	m->nth = 0;
	atomic_store(&m->t_start, dev_now(m));
	atomic_store(&m->t_end, 0);
	rc = -pthread_create(&m->th[0], NULL, tr, m);
	if (!rc) {
		m->nth = 1;
		/* names for top -H, perf and gdb (15 characters at most) */
		(void)pthread_setname_np(m->th[0], m->kind == READOUT ? "abb-rd-transp" : "abb-wr-transp");
		if (m->p.threads >= 2) {
			rc = -pthread_create(&m->th[1], NULL, mod, m);
			if (!rc) {
				m->nth = 2;
				(void)pthread_setname_np(m->th[1], m->kind == READOUT ? "abb-rd-module"
										 : "abb-wr-module");
			}
		}
	}
	m->running = m->nth > 0;
	if (rc)
		abb_daq_module_stop(m);
	return rc;
}

int abb_daq_module_wait(abb_daq_module *m, int64_t timeout_ms)
{
	uint64_t now = daq_wall_ns(), end = 0;
	int rc = 0;

	/* a timeout past the end of the clock (INT64_MAX ms wrapped) is none */
	if (timeout_ms >= 0 && (uint64_t)timeout_ms <= (UINT64_MAX - now) / 1000000u)
		end = now + (uint64_t)timeout_ms * 1000000u;

	if (!m)
		return -EINVAL;
	pthread_mutex_lock(&m->lock);
	while (m->running && m->nfinished < m->nth) {
		struct timespec ts;

		if (!end) {
			pthread_cond_wait(&m->done, &m->lock);
			continue;
		}
		if (daq_wall_ns() >= end) {
			rc = -ETIMEDOUT;
			break;
		}
		daq_deadline(&ts, end);
		pthread_cond_timedwait(&m->done, &m->lock, &ts);
	}
	pthread_mutex_unlock(&m->lock);
	return rc;
}

int abb_daq_module_stop(abb_daq_module *m)
{
	abb_daq_buf *b;

	if (!m)
		return -EINVAL;
	if (m->running) {
		atomic_store(&m->stop, 1);
		for (int i = 0; i < m->nth; i++)
			pthread_join(m->th[i], NULL);
		m->running = 0;
	}
	/* what the threads left between them goes back to the pool */
	if (m->inq)
		while (daq_spsc_pop(m->inq, &b, 0, NULL, 0) == 0)
			abb_daq_buf_release(b);
	if (m->port)
		abb_daq_queue_close(m->port);
	abb_daq_transport_abort(m->t);
	return m->error;
}

void abb_daq_module_destroy(abb_daq_module *m)
{
	bool stuck;

	if (!m)
		return;
	/* the device stays until the pool is unmapped below, also when it was
	 * closed first (its close waits for its users; the transport is one
	 * until destroyed just below) */
	daq_device_hold(m->d);
	abb_daq_module_stop(m);
	stuck = daq_transport_stuck(m->t) != NULL;
	abb_daq_transport_destroy(m->t);
	daq_spsc_destroy(m->inq);
	abb_daq_queue_destroy(m->port);
	/* The own pool goes only when no DMA can write it any more: its
	 * transfer was collected and every buffer unmapped (an unmap error was
	 * ignored before and memory still mapped and targeted was freed). Its
	 * memory is freed when the last buffer a consumer still holds comes
	 * back (it leaked before). Otherwise it stays allocated: a leak, not
	 * a DMA into freed memory. */
	if (m->own_pool && !stuck && abb_daq_device_unmap_pool(m->d, m->pool) == 0)
		daq_pool_destroy_late(m->pool);
	daq_device_drop(m->d);
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->done);
	free(m);
}

abb_daq_queue *abb_daq_module_output(abb_daq_module *m)
{
	return m && m->kind == READOUT ? m->port : NULL;
}

abb_daq_queue *abb_daq_module_input(abb_daq_module *m)
{
	return m && m->kind == WRITER ? m->port : NULL;
}

abb_daq_pool *abb_daq_module_pool(abb_daq_module *m)
{
	return m ? m->pool : NULL;
}

void abb_daq_module_stats(abb_daq_module *m, struct abb_daq_stats *s)
{
	if (!m || !s)
		return;
	memset(s, 0, sizeof *s);
	s->buffers = atomic_load(&m->buffers);
	s->bytes = atomic_load(&m->bytes);
	s->timeouts = atomic_load(&m->timeouts);
	s->skipped = atomic_load(&m->skipped);
	s->t_start = atomic_load(&m->t_start);
	s->t_end = atomic_load(&m->t_end);
	pthread_mutex_lock(&m->lock);
	s->last = m->last;
	s->error = m->error;
	s->finished = m->running ? m->nfinished >= m->nth : 1;
	pthread_mutex_unlock(&m->lock);
}
