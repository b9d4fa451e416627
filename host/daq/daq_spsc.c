/*
 * daq_spsc.c - the hand-over queue between a module's transport thread and
 * its module thread (two-thread operation): exactly one producer and one
 * consumer, so it needs no lock on the way through.
 *
 * A ring indexed by two free-running counters, each written by one side
 * only (tail by the producer, head by the consumer) and kept on its own
 * cache line beside that side's copy of the other counter: a side reads
 * the other's line only when its copy says full (empty), so a hand-over
 * moves the lines it must and nothing else. A side that finds the ring
 * full (empty) polls for spin_ns of wall
 * time, then sleeps on a condition variable in slices (so a stop request is
 * seen). The other side wakes it only when somebody sleeps: it publishes
 * its index, then (after a full fence) reads the sleeper count; a sleeper
 * raises the count, then re-reads the index before it waits. One of the
 * two always sees the other, so no wake-up is lost.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daq_priv.h"

struct daq_spsc {
	_Alignas(64) atomic_uint head; /* next slot to pop (consumer) */
	unsigned tail_seen;            /* consumer's copy of tail */
	_Alignas(64) atomic_uint tail; /* next slot to push (producer) */
	unsigned head_seen;            /* producer's copy of head */
	_Alignas(64) atomic_int sleepers;
	atomic_int closed;
	unsigned cap;
	abb_daq_buf **ring;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

int daq_spsc_create(struct daq_spsc **qp, unsigned capacity)
{
	struct daq_spsc *q;

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
	daq_mutex_init(&q->lock);
	daq_cond_init(&q->cond);
	*qp = q;
	return 0;
}

void daq_spsc_destroy(struct daq_spsc *q)
{
	abb_daq_buf *b;

	if (!q)
		return;
	while (daq_spsc_pop(q, &b, 0, NULL, 0) == 0)
		abb_daq_buf_release(b);
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->cond);
	free(q->ring);
	free(q);
}

static void wake(struct daq_spsc *q)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&q->sleepers, memory_order_relaxed)) {
		pthread_mutex_lock(&q->lock);
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
	}
}

void daq_spsc_close(struct daq_spsc *q)
{
	atomic_store(&q->closed, 1);
	pthread_mutex_lock(&q->lock);
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
}

void daq_spsc_reopen(struct daq_spsc *q)
{
	atomic_store(&q->closed, 0);
}

/* Can the side go on: the producer when there is room, the consumer when
 * there is a buffer. Looks at the other side's counter only when the copy
 * of it does not already say yes. */
static int ready(struct daq_spsc *q, int producer)
{
	if (producer) {
		unsigned t = atomic_load_explicit(&q->tail, memory_order_relaxed);

		if (t - q->head_seen < q->cap)
			return 1;
		q->head_seen = atomic_load_explicit(&q->head, memory_order_acquire);
		return t - q->head_seen < q->cap;
	}
	unsigned h = atomic_load_explicit(&q->head, memory_order_relaxed);

	if (q->tail_seen != h)
		return 1;
	q->tail_seen = atomic_load_explicit(&q->tail, memory_order_acquire);
	return q->tail_seen != h;
}

/* Waits until ready(), the queue is closed or *stop is set: polls for
 * spin_ns, then sleeps in slices. 0 when ready; -EPIPE closed; -ECANCELED
 * stop; -EAGAIN with timeout_ns == 0; -ETIMEDOUT. */
static int wait_for(struct daq_spsc *q, int producer, int64_t timeout_ns, const atomic_int *stop,
		    int64_t spin_ns)
{
	uint64_t now, end = 0, spin_end = 0;
	unsigned i = 0;

	/* the common case first: no clock read */
	if (ready(q, producer) && !atomic_load_explicit(&q->closed, memory_order_relaxed))
		return 0;
	for (;;) {
		/* after a close nothing goes in; a consumer still takes what
		 * is queued */
		if (atomic_load_explicit(&q->closed, memory_order_acquire))
			return !producer && ready(q, 0) ? 0 : -EPIPE;
		if (ready(q, producer))
			return 0;
		if (stop && atomic_load_explicit(stop, memory_order_relaxed))
			return -ECANCELED;
		if (timeout_ns == 0)
			return -EAGAIN;
		if (i == 0) {
			now = daq_wall_ns();
			end = timeout_ns > 0 ? now + (uint64_t)timeout_ns : 0;
			spin_end = now + (uint64_t)(spin_ns > 0 ? spin_ns : 0);
		}
		if (++i % 64 == 0) {
			now = daq_wall_ns();
			if (end && now >= end)
				return -ETIMEDOUT;
			if (now >= spin_end) {
				struct timespec ts;
				uint64_t wake_at = now + DAQ_CANCEL_SLICE_NS;

				if (end && end < wake_at)
					wake_at = end;
				daq_deadline(&ts, wake_at);
				pthread_mutex_lock(&q->lock);
				atomic_fetch_add(&q->sleepers, 1); /* seq_cst: see wake() */
				if (!ready(q, producer) && !atomic_load(&q->closed) &&
				    !(stop && atomic_load(stop)))
					pthread_cond_timedwait(&q->cond, &q->lock, &ts);
				atomic_fetch_sub(&q->sleepers, 1);
				pthread_mutex_unlock(&q->lock);
			}
		}
		daq_cpu_relax();
	}
}

int daq_spsc_push(struct daq_spsc *q, abb_daq_buf *b, int64_t timeout_ns, const atomic_int *stop,
		  int64_t spin_ns)
{
	unsigned t;
	int rc;

	rc = wait_for(q, 1, timeout_ns, stop, spin_ns);
	if (rc)
		return rc;
	t = atomic_load_explicit(&q->tail, memory_order_relaxed);
	q->ring[t % q->cap] = b;
	atomic_store_explicit(&q->tail, t + 1, memory_order_release);
	wake(q);
	return 0;
}

int daq_spsc_pop(struct daq_spsc *q, abb_daq_buf **b, int64_t timeout_ns, const atomic_int *stop,
		 int64_t spin_ns)
{
	unsigned h;
	int rc = wait_for(q, 0, timeout_ns, stop, spin_ns);

	if (rc)
		return rc;
	h = atomic_load_explicit(&q->head, memory_order_relaxed);
	*b = q->ring[h % q->cap];
	atomic_store_explicit(&q->head, h + 1, memory_order_release);
	wake(q);
	return 0;
}
