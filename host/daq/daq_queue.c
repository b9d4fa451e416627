/*
 * daq_queue.c - bounded queue of buffers between modules, with
 * back-pressure: a push into a full queue waits, nothing is dropped.
 *
 * A ring of buffer pointers under one mutex, two condition variables (not
 * empty, not full). Signals are sent only when a thread sleeps on the other
 * side, and a waiter first polls the (atomic) fill level for spin_ns of wall
 * time before it sleeps: a module thread that is kept busy by a steady flow
 * of buffers then never needs a futex wake-up, which is what makes the
 * two-thread hand-over cheap (the seed's 1.7 us were mostly this wake-up).
 */
#include <errno.h>
#include <stdlib.h>

#include "daq_priv.h"

struct abb_daq_queue {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	unsigned cap, head;
	atomic_uint count;
	unsigned wait_pop, wait_push;
	atomic_int closed;
	abb_daq_buf **ring;
};

int abb_daq_queue_create(abb_daq_queue **qp, unsigned capacity)
{
	abb_daq_queue *q;

	if (!qp || capacity == 0)
		return -EINVAL;
	q = calloc(1, sizeof *q);
	if (!q || !(q->ring = calloc(capacity, sizeof *q->ring))) {
		free(q);
		return -ENOMEM;
	}
	q->cap = capacity;
	daq_mutex_init(&q->lock);
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
	pthread_mutex_destroy(&q->lock);
	pthread_cond_destroy(&q->not_empty);
	pthread_cond_destroy(&q->not_full);
	free(q->ring);
	free(q);
}

/* daq_spin conditions: room (or closed), a buffer (or closed). */
static int can_push(void *arg)
{
	abb_daq_queue *q = arg;

	return atomic_load_explicit(&q->count, memory_order_relaxed) < q->cap ||
	       atomic_load_explicit(&q->closed, memory_order_relaxed);
}

static int can_pop(void *arg)
{
	abb_daq_queue *q = arg;

	return atomic_load_explicit(&q->count, memory_order_relaxed) > 0 ||
	       atomic_load_explicit(&q->closed, memory_order_relaxed);
}

int daq_queue_push(abb_daq_queue *q, abb_daq_buf *b, int64_t timeout_ns, const atomic_int *stop,
		   int64_t spin_ns)
{
	uint64_t end = timeout_ns > 0 ? daq_wall_ns() + (uint64_t)timeout_ns : 0;
	int rc = 0;

	if (atomic_load_explicit(&q->count, memory_order_relaxed) >= q->cap && timeout_ns != 0)
		daq_spin(can_push, q, stop, spin_ns);
	pthread_mutex_lock(&q->lock);
	for (;;) {
		if (atomic_load_explicit(&q->closed, memory_order_relaxed)) {
			rc = -EPIPE;
			break;
		}
		if (atomic_load_explicit(&q->count, memory_order_relaxed) < q->cap)
			break;
		if (timeout_ns == 0) {
			rc = -EAGAIN;
			break;
		}
		q->wait_push++;
		rc = daq_nap(&q->not_full, &q->lock, end, stop);
		q->wait_push--;
		if (rc)
			break;
	}
	if (!rc) {
		unsigned c = atomic_load_explicit(&q->count, memory_order_relaxed);

		q->ring[(q->head + c) % q->cap] = b;
		atomic_store_explicit(&q->count, c + 1, memory_order_release);
		if (q->wait_pop)
			pthread_cond_signal(&q->not_empty);
	}
	pthread_mutex_unlock(&q->lock);
	return rc;
}

int daq_queue_pop(abb_daq_queue *q, abb_daq_buf **b, int64_t timeout_ns, const atomic_int *stop,
		  int64_t spin_ns)
{
	uint64_t end = timeout_ns > 0 ? daq_wall_ns() + (uint64_t)timeout_ns : 0;
	int rc = 0;

	if (atomic_load_explicit(&q->count, memory_order_relaxed) == 0 && timeout_ns != 0)
		daq_spin(can_pop, q, stop, spin_ns);
	pthread_mutex_lock(&q->lock);
	for (;;) {
		if (atomic_load_explicit(&q->count, memory_order_relaxed) > 0)
			break;
		if (atomic_load_explicit(&q->closed, memory_order_relaxed)) {
			rc = -EPIPE;
			break;
		}
		if (timeout_ns == 0) {
			rc = -EAGAIN;
			break;
		}
		q->wait_pop++;
		rc = daq_nap(&q->not_empty, &q->lock, end, stop);
		q->wait_pop--;
		if (rc)
			break;
	}
	if (!rc) {
		unsigned c = atomic_load_explicit(&q->count, memory_order_relaxed);

		*b = q->ring[q->head];
		q->head = (q->head + 1) % q->cap;
		atomic_store_explicit(&q->count, c - 1, memory_order_release);
		if (q->wait_push)
			pthread_cond_signal(&q->not_full);
	}
	pthread_mutex_unlock(&q->lock);
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
	pthread_mutex_lock(&q->lock);
	atomic_store(&q->closed, 1);
	pthread_cond_broadcast(&q->not_empty);
	pthread_cond_broadcast(&q->not_full);
	pthread_mutex_unlock(&q->lock);
}

void daq_queue_reopen(abb_daq_queue *q)
{
	pthread_mutex_lock(&q->lock);
	atomic_store(&q->closed, 0);
	pthread_mutex_unlock(&q->lock);
}

unsigned abb_daq_queue_count(abb_daq_queue *q)
{
	return q ? atomic_load(&q->count) : 0;
}
