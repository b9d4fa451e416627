/*
 * daq_pool.c - memory pool of fixed-size buffers with ids and reference
 * counts (DABC's MemoryPool, reduced to what the modules need).
 *
 * Buffers are page aligned, allocated one by one, and never move: a pool
 * only grows, so a device's DMA mapping of a buffer stays valid for the life
 * of the pool, and growing bumps the generation that tells devices to map
 * the new ones. Free buffers are a LIFO stack (the most recently used buffer,
 * still in cache, is handed out next) under a mutex that only takers hold.
 * A buffer whose last reference goes is pushed onto a lock-free list of
 * returned buffers (a compare-and-swap; the list is only ever emptied as a
 * whole, with an exchange, so it cannot suffer ABA); a taker that finds the
 * stack empty moves that list onto it. So the releasing thread (a module
 * thread) and the taking thread (a transport) never contend for a lock.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daq_priv.h"

struct abb_daq_pool {
	char name[32];
	size_t bufsize;
	pthread_mutex_t lock;
	pthread_cond_t avail;
	/* touched by releasing threads: on a cache line of its own, away from
	 * the mutex and stack the taking thread works on */
	_Alignas(64) _Atomic(abb_daq_buf *) returned; /* released, not yet on the stack */
	atomic_uint waiters;             /* takers asleep on avail */
	/* 1 for the owner (until abb_daq_pool_destroy or daq_pool_destroy_late)
	 * + 1 per buffer out of the pool; who drops it to 0 frees the pool. A
	 * releaser drops its hold as its very last access to the pool. */
	atomic_uint holds;
	_Alignas(64) char after_returned; /* ends that line */
	abb_daq_buf **bufs;  /* by id */
	unsigned n;
	abb_daq_buf **free;  /* stack */
	unsigned nfree;      /* written under the lock; peeked at without it */
	atomic_uint gen;
	atomic_uint maps;    /* devices that have it mapped (daq_pool_mapped) */
};

/* Moves the returned buffers onto the free stack; lock held. */
static void take_returned(abb_daq_pool *p)
{
	abb_daq_buf *b = atomic_exchange_explicit(&p->returned, NULL, memory_order_acquire);

	while (b) {
		abb_daq_buf *next = b->ret_next;

		p->free[p->nfree] = b;
		__atomic_store_n(&p->nfree, p->nfree + 1, __ATOMIC_RELAXED);
		b = next;
	}
}

/* Free buffers, stacked or returned (a peek, without the lock). */
static int any_free(abb_daq_pool *p)
{
	return __atomic_load_n(&p->nfree, __ATOMIC_RELAXED) ||
	       atomic_load_explicit(&p->returned, memory_order_relaxed);
}

static size_t page_size(void)
{
	long p = sysconf(_SC_PAGESIZE);

	return p > 0 ? (size_t)p : 4096;
}

/* Adds more buffers; called with the lock held (or before the pool is
 * shared). On failure nothing is added. */
static int pool_add(abb_daq_pool *p, unsigned more)
{
	size_t pg = page_size(), bytes;
	unsigned n, i;

	/* overflow-checked: the count (UINT_MAX more wrapped to fewer buffers
	 * and the memmove below ran past the tables; a wrap to 0 made realloc
	 * free them), the tables' byte sizes and the page-rounded buffer size */
	if (more > UINT_MAX - p->n)
		return abb_err(-EOVERFLOW, "DAQ pool %s: %u more buffers than its %u: at most %u "
			       "in all (buffer ids are 32 bits)", p->name, more, p->n, UINT_MAX);
	if (p->bufsize > SIZE_MAX - pg)
		return abb_err(-EOVERFLOW, "DAQ pool %s: buffers of %zu bytes do not round up to "
			       "whole pages", p->name, p->bufsize);
	n = p->n + more;
	if (__builtin_mul_overflow((size_t)n, sizeof(abb_daq_buf *), &bytes))
		return abb_err(-EOVERFLOW, "DAQ pool %s: a table of %u buffers does not fit the "
			       "address space", p->name, n); /* 32-bit size_t */
	bytes = (p->bufsize + pg - 1) / pg * pg;
	abb_daq_buf **bufs = realloc(p->bufs, n * sizeof *bufs);

	if (!bufs)
		return abb_err(-ENOMEM, "DAQ pool %s: no memory for the table of %u buffers",
			       p->name, n);
	p->bufs = bufs;
	abb_daq_buf **fr = realloc(p->free, n * sizeof *fr);
	if (!fr)
		return abb_err(-ENOMEM, "DAQ pool %s: no memory for the table of %u buffers",
			       p->name, n);
	p->free = fr;
	for (i = p->n; i < n; i++) {
		abb_daq_buf *b = calloc(1, sizeof *b);
		void *mem = NULL;

		if (!b || posix_memalign(&mem, pg, bytes)) {
			free(b);
			while (i-- > p->n) {
				free(p->bufs[i]->data);
				free(p->bufs[i]);
			}
			return abb_err(-ENOMEM, "DAQ pool %s: no memory for %u more buffers of %zu "
				       "bytes", p->name, more, p->bufsize);
		}
		memset(mem, 0, bytes);
		b->pool = p;
		b->id = i;
		b->data = mem;
		b->size = p->bufsize;
		p->bufs[i] = b;
	}
	take_returned(p);
	/* new buffers go under the old free ones: reused ones stay on top */
	memmove(&p->free[more], &p->free[0], p->nfree * sizeof p->free[0]);
	for (i = 0; i < more; i++)
		p->free[i] = p->bufs[n - 1 - i];
	p->nfree += more;
	p->n = n;
	atomic_fetch_add(&p->gen, 1);
	return 0;
}

int abb_daq_pool_create(abb_daq_pool **pool, const char *name, size_t bufsize, unsigned nbufs)
{
	abb_daq_pool *p;
	int rc;

	if (!pool)
		return abb_err(-EINVAL, "abb_daq_pool_create: pool is NULL");
	*pool = NULL;
	if (bufsize == 0 || bufsize % 4 || nbufs == 0)
		return abb_err(-EINVAL, "abb_daq_pool_create: %zu buffers of %zu bytes: the size "
			       "must be a non-zero multiple of 4, the count non-zero", (size_t)nbufs,
			       bufsize);
	p = aligned_alloc(64, (sizeof *p + 63) / 64 * 64);
	if (p)
		memset(p, 0, sizeof *p);
	if (!p)
		return abb_err(-ENOMEM, "abb_daq_pool_create: no memory");
	snprintf(p->name, sizeof p->name, "%s", name ? name : "pool");
	p->bufsize = bufsize;
	atomic_init(&p->holds, 1);
	daq_mutex_init(&p->lock);
	daq_cond_init(&p->avail);
	rc = pool_add(p, nbufs);
	if (rc) {
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->avail);
		free(p->bufs);
		free(p->free);
		free(p);
		return rc;
	}
	*pool = p;
	return 0;
}

int abb_daq_pool_grow(abb_daq_pool *p, unsigned more)
{
	int rc;

	if (!p || more == 0)
		return abb_err(-EINVAL, "abb_daq_pool_grow: %s", !p ? "pool is NULL"
			       : "0 more buffers; at least 1");
	pthread_mutex_lock(&p->lock);
	rc = pool_add(p, more);
	if (!rc && p->waiters)
		pthread_cond_broadcast(&p->avail);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

static void pool_free(abb_daq_pool *p)
{
	for (unsigned i = 0; i < p->n; i++) {
		free(p->bufs[i]->data);
		free(p->bufs[i]);
	}
	free(p->bufs);
	free(p->free);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->avail);
	free(p);
}

int abb_daq_pool_destroy(abb_daq_pool *p)
{
	if (!p)
		return 0;
	pthread_mutex_lock(&p->lock);
	take_returned(p);
	/* holds: a releaser that returned the last buffer may still be in
	 * abb_daq_buf_release */
	/* mapped: a device would keep DMA mappings of the freed memory */
	if (p->nfree != p->n || atomic_load(&p->holds) != 1 || atomic_load(&p->maps)) {
		unsigned out = p->n - p->nfree;

		pthread_mutex_unlock(&p->lock);
		return atomic_load(&p->maps)
			       ? abb_err(-EBUSY, "abb_daq_pool_destroy: pool %s is mapped on a device: "
					 "abb_daq_device_unmap_pool (or close the device) first", p->name)
			       : abb_err(-EBUSY, "abb_daq_pool_destroy: %u buffer(s) of pool %s are "
					 "taken: release them first", out, p->name);
	}
	pthread_mutex_unlock(&p->lock);
	pool_free(p);
	return 0;
}

void daq_pool_mapped(abb_daq_pool *p, int delta)
{
	if (delta > 0)
		atomic_fetch_add(&p->maps, 1);
	else
		atomic_fetch_sub(&p->maps, 1);
}

void daq_pool_destroy_late(abb_daq_pool *p)
{
	if (p && atomic_fetch_sub(&p->holds, 1) == 1)
		pool_free(p);
}

static int any_free_cb(void *p)
{
	return any_free(p);
}

int daq_pool_get(abb_daq_pool *p, abb_daq_buf **out, int64_t timeout_ns, const atomic_int *stop,
		 int64_t spin_ns)
{
	uint64_t end = timeout_ns > 0 ? daq_wall_ns() + (uint64_t)timeout_ns : 0;
	int rc = 0;

	if (timeout_ns != 0 && !any_free(p))
		daq_spin(any_free_cb, p, stop, spin_ns);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		if (p->nfree == 0)
			take_returned(p);
		if (p->nfree)
			break;
		if (stop && atomic_load_explicit(stop, memory_order_relaxed)) {
			rc = -ECANCELED;
			break;
		}
		if (timeout_ns == 0) {
			rc = -EAGAIN;
			break;
		}
		/* seq_cst: a release either sees this waiter or its buffer is
		 * seen by the check below (see abb_daq_buf_release) */
		atomic_fetch_add(&p->waiters, 1);
		if (!atomic_load(&p->returned))
			rc = daq_nap(&p->avail, &p->lock, end, stop);
		atomic_fetch_sub(&p->waiters, 1);
		if (rc)
			break;
	}
	if (!rc) {
		abb_daq_buf *b = p->free[p->nfree - 1];

		__atomic_store_n(&p->nfree, p->nfree - 1, __ATOMIC_RELAXED);
		atomic_fetch_add_explicit(&p->holds, 1, memory_order_relaxed);
		b->refs = 1;
		b->len = 0;
		b->seq = 0;
		*out = b;
	}
	pthread_mutex_unlock(&p->lock);
	return rc;
}

int abb_daq_pool_get(abb_daq_pool *p, abb_daq_buf **b, int64_t timeout_ns)
{
	if (!p || !b)
		return -EINVAL;
	return daq_pool_get(p, b, timeout_ns, NULL, 0);
}

void abb_daq_buf_ref(abb_daq_buf *b)
{
	if (!b)
		return; /* as abb_daq_buf_release(NULL) */
	__atomic_add_fetch(&b->refs, 1, __ATOMIC_RELAXED);
}

void abb_daq_buf_release(abb_daq_buf *b)
{
	abb_daq_pool *p;

	if (!b || __atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	p = b->pool;
	abb_daq_buf *head = atomic_load_explicit(&p->returned, memory_order_relaxed);
	do
		b->ret_next = head;
	while (!atomic_compare_exchange_weak_explicit(&p->returned, &head, b, memory_order_release,
						      memory_order_relaxed));
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&p->waiters, memory_order_relaxed)) {
		pthread_mutex_lock(&p->lock);
		pthread_cond_signal(&p->avail);
		pthread_mutex_unlock(&p->lock);
	}
	/* the last access to p: a pool whose owner let go (a module destroyed
	 * while a consumer held this buffer) is freed by its last buffer */
	if (atomic_fetch_sub_explicit(&p->holds, 1, memory_order_acq_rel) == 1)
		pool_free(p);
}

unsigned abb_daq_pool_size(const abb_daq_pool *p)
{
	return p ? p->n : 0;
}

unsigned abb_daq_pool_free(abb_daq_pool *p)
{
	unsigned n;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->lock);
	take_returned(p);
	n = p->nfree;
	pthread_mutex_unlock(&p->lock);
	return n;
}

size_t abb_daq_pool_bufsize(const abb_daq_pool *p)
{
	return p ? p->bufsize : 0;
}

const char *abb_daq_pool_name(const abb_daq_pool *p)
{
	return p ? p->name : "";
}

unsigned abb_daq_pool_generation(abb_daq_pool *p)
{
	return p ? atomic_load(&p->gen) : 0;
}

abb_daq_buf *abb_daq_pool_buf(abb_daq_pool *p, uint32_t id)
{
	abb_daq_buf *b = NULL;

	if (!p)
		return NULL;
	pthread_mutex_lock(&p->lock);
	if (id < p->n)
		b = p->bufs[id];
	pthread_mutex_unlock(&p->lock);
	return b;
}
