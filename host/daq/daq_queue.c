/*
 * daq_queue.c - bounded queue of buffers between modules, with
 * back-pressure: a push into a full queue waits, nothing is dropped.
 *
 * A ring of buffer pointers with an atomic fill count. Producers serialise
 * on push_lock, consumers on pop_lock, so the producer and the consumer of
 * a module chain never wait for each other's lock; the two sides share only
 * the count and the ring slot (on separate cache lines from each other's
 * index). A thread that finds the queue full (empty) first polls the count
 * for spin_ns of wall time, then sleeps on a condition variable under a
 * third lock, sleep_lock, announced in wait_push (wait_pop); the other side
 * signals only when someone announced itself. The count update and the
 * announcement are sequentially consistent, so one of the two sides always
 * sees the other: no wake-up is lost (and a sleep is cut into slices of
 * DAQ_CANCEL_SLICE_NS anyway, for the stop flag).
 *
 * Why: on a two-core machine a futex wake-up costs several microseconds;
 * a module thread kept busy by a steady flow of buffers never sleeps here,
 * which is what makes the two-thread hand-over cheap (the seed's 1.7 us
 * per buffer were mostly this wake-up).
 */
#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "daq_priv.h"

struct abb_daq_queue {
	abb_daq_buf **ring;
	unsigned cap;
	atomic_int closed;
	pthread_mutex_t sleep_lock;
	pthread_cond_t not_empty, not_full;
	alignas(64) atomic_uint count;
	alignas(64) pthread_mutex_t push_lock;
	unsigned tail;           /* next slot to fill (push_lock) */
	atomic_uint wait_push;   /* producers asleep */
	alignas(64) pthread_mutex_t pop_lock;
	unsigned head;           /* next slot to take (pop_lock) */
	atomic_uint wait_pop;    /* consumers asleep */
};

int abb_daq_queue_create(abb_daq_queue **qp, unsigned capacity)
{
	abb_daq_queue *q;

	if (!qp || capacity == 0)
		return -EINVAL;
	q = aligned_alloc(64, (sizeof *q + 63) / 64 * 64);
	if (!q)
		return -ENOMEM;
	memset(q, 0, sizeof *q);
	q->ring = calloc(capacity, sizeof *q->ring);
	if (!q->ring) {
		free(q);
		return -ENOMEM;
	}
	q->cap = capacity;
	daq_mutex_init(&q->push_lock);
	daq_mutex_init(&q->pop_lock);
	pthread_mutex_init(&q->sleep_lock, NULL);
	daq_cond_init(&q->not_empty);
	daq_cond_init(&q->not_full);
	*qp = q;
	return 0;
}

void abb_daq_queue_destroy(abb_daq_queue *q)
{
	abb_daq_buf *b;

	if (!q)
		return;
	abb_daq_queue_close(q);
	while (daq_queue_pop(q, &b, 0, NULL, 0) == 0)
		abb_daq_buf_release(b);
	pthread_mutex_destroy(&q->push_lock);
	pthread_mutex_destroy(&q->pop_lock);
	pthread_mutex_destroy(&q->sleep_lock);
	pthread_cond_destroy(&q->not_empty);
	pthread_cond_destroy(&q->not_full);
	free(q->ring);
	free(q);
}

static bool ready(abb_daq_queue *q, int want_room)
{
	unsigned c = atomic_load(&q->count);

	return want_room ? c < q->cap : c > 0;
}

/* Polls until the queue is ready, closed, stopped or spin_ns passed. */
static void spin(abb_daq_queue *q, int want_room, const atomic_int *stop, int64_t spin_ns)
{
	uint64_t end = daq_wall_ns() + (uint64_t)spin_ns;

	for (unsigned i = 1;; i++) {
		if (ready(q, want_room) || atomic_load_explicit(&q->closed, memory_order_relaxed))
			return;
		if (stop && atomic_load_explicit(stop, memory_order_relaxed))
			return;
		if (i % 64 == 0 && daq_wall_ns() >= end)
			return;
	}
}

/* Sleeps (one slice at most) until the queue may be ready. 0, -ETIMEDOUT
 * (end passed; end 0: none) or -ECANCELED. */
static int sleep_until_ready(abb_daq_queue *q, int want_room, uint64_t end,
			     const atomic_int *stop)
{
	atomic_uint *waiters = want_room ? &q->wait_push : &q->wait_pop;
	pthread_cond_t *c = want_room ? &q->not_full : &q->not_empty;
	uint64_t now = daq_wall_ns(), wake = now + DAQ_CANCEL_SLICE_NS;
	struct timespec ts;

	if (stop && atomic_load_explicit(stop, memory_order_relaxed))
		return -ECANCELED;
	if (end && now >= end)
		return -ETIMEDOUT;
	if (end && end < wake)
		wake = end;
	daq_deadline(&ts, wake);
	pthread_mutex_lock(&q->sleep_lock);
	atomic_fetch_add(waiters, 1); /* seq_cst: the other side sees it or we see its count */
	if (!ready(q, want_room) && !atomic_load(&q->closed))
		pthread_cond_timedwait(c, &q->sleep_lock, &ts);
	atomic_fetch_sub(waiters, 1);
	pthread_mutex_unlock(&q->sleep_lock);
	return 0;
}

static void wake(abb_daq_queue *q, atomic_uint *waiters, pthread_cond_t *c)
{
	if (atomic_load(waiters)) {
		pthread_mutex_lock(&q->sleep_lock);
		pthread_cond_broadcast(c);
		pthread_mutex_unlock(&q->sleep_lock);
	}
}

/* Waits (under the caller's side lock) until the queue is ready. */
static int wait_ready(abb_daq_queue *q, int want_room, int64_t timeout_ns,
		      const atomic_int *stop, int64_t spin_ns)
{
	uint64_t end = timeout_ns > 0 ? daq_wall_ns() + (uint64_t)timeout_ns : 0;
	bool spun = false;

	for (;;) {
		int rc;

		if (want_room && atomic_load(&q->closed))
			return -EPIPE;
		if (ready(q, want_room))
			return 0;
		if (!want_room && atomic_load(&q->closed))
			return -EPIPE;
		if (timeout_ns == 0)
			return -EAGAIN;
		if (!spun && spin_ns > 0) {
			spin(q, want_room, stop, spin_ns);
			spun = true;
			continue;
		}
		rc = sleep_until_ready(q, want_room, end, stop);
		if (rc)
			return rc;
	}
}

int daq_queue_push(abb_daq_queue *q, abb_daq_buf *b, int64_t timeout_ns, const atomic_int *stop,
		   int64_t spin_ns)
{
	int rc;

	pthread_mutex_lock(&q->push_lock);
	rc = wait_ready(q, 1, timeout_ns, stop, spin_ns);
	if (!rc) {
		q->ring[q->tail] = b;
		q->tail = (q->tail + 1) % q->cap;
		atomic_fetch_add(&q->count, 1); /* publishes the slot */
	}
	pthread_mutex_unlock(&q->push_lock);
	if (!rc)
		wake(q, &q->wait_pop, &q->not_empty);
	return rc;
}

int daq_queue_pop(abb_daq_queue *q, abb_daq_buf **b, int64_t timeout_ns, const atomic_int *stop,
		  int64_t spin_ns)
{
	int rc;

	pthread_mutex_lock(&q->pop_lock);
	rc = wait_ready(q, 0, timeout_ns, stop, spin_ns);
	if (!rc) {
		*b = q->ring[q->head];
		q->head = (q->head + 1) % q->cap;
		atomic_fetch_sub(&q->count, 1); /* frees the slot */
	}
	pthread_mutex_unlock(&q->pop_lock);
	if (!rc)
		wake(q, &q->wait_push, &q->not_full);
	return rc;
}

int abb_daq_queue_push(abb_daq_queue *q, abb_daq_buf *b, int64_t timeout_ns)
{
	if (!q || !b)
		return -EINVAL;
	return daq_queue_push(q, b, timeout_ns, NULL, 0);
}

int abb_daq_queue_pop(abb_daq_queue *q, abb_daq_buf **b, int64_t timeout_ns)
{
	if (!q || !b)
		return -EINVAL;
	return daq_queue_pop(q, b, timeout_ns, NULL, 0);
}

void abb_daq_queue_close(abb_daq_queue *q)
{
	if (!q)
		return;
	atomic_store(&q->closed, 1);
	pthread_mutex_lock(&q->sleep_lock);
	pthread_cond_broadcast(&q->not_empty);
	pthread_cond_broadcast(&q->not_full);
	pthread_mutex_unlock(&q->sleep_lock);
}

unsigned abb_daq_queue_count(abb_daq_queue *q)
{
	return q ? atomic_load(&q->count) : 0;
}
