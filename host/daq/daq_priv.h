/*
 * daq_priv.h - internals shared by the units of the DAQ layer (host/daq/).
 *
 * Blocking inside the modules: every wait of a module thread (a free pool
 * buffer, room in or data from a queue) can be cancelled by the module's
 * stop flag. Waiters sleep on a condition variable in slices of
 * DAQ_CANCEL_SLICE_NS of wall time and look at the flag between slices, so
 * a stop needs no extra wake-up path and can never be lost.
 */
#ifndef ABB_DAQ_PRIV_H
#define ABB_DAQ_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#include <abb/abb_daq.h>

#if defined(__GNUC__)
#define DAQ_HIDDEN __attribute__((visibility("hidden")))
#else
#define DAQ_HIDDEN
#endif

#define DAQ_CANCEL_SLICE_NS 2000000 /* 2 ms */

/* In a polling loop: tells the core this is a spin (x86 PAUSE), so the
 * polled cache line is not pulled from the other core at full speed and a
 * sibling hyper-thread gets the pipeline. */
static inline void daq_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Wall-clock ns (CLOCK_MONOTONIC). */
DAQ_HIDDEN uint64_t daq_wall_ns(void);
/* libabb's error state (abb_error.c), which the layer shares: sets the
 * message abb_last_error() returns, returns err. */
int abb_err(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)))
	__attribute__((visibility("hidden")));
/* Absolute CLOCK_MONOTONIC deadline for pthread_cond_timedwait. */
DAQ_HIDDEN void daq_deadline(struct timespec *ts, uint64_t wall_ns);
/* A condition variable that waits on CLOCK_MONOTONIC. */
DAQ_HIDDEN void daq_cond_init(pthread_cond_t *c);
/* A mutex for short critical sections shared by two busy threads
 * (adaptive: spins before it sleeps, where the C library has that). */
DAQ_HIDDEN void daq_mutex_init(pthread_mutex_t *m);

/* Polls done(arg) for up to spin_ns of wall time (0: not at all), or until
 * *stop is set (stop may be NULL); the first part of every wait. */
DAQ_HIDDEN void daq_spin(int (*done)(void *), void *arg, const atomic_int *stop, int64_t spin_ns);
/* One slice of sleep on c (m held): until woken, DAQ_CANCEL_SLICE_NS or the
 * deadline end (0: none). -ECANCELED when *stop is set, -ETIMEDOUT past end
 * (checked first, without sleeping), else 0. */
DAQ_HIDDEN int daq_nap(pthread_cond_t *c, pthread_mutex_t *m, uint64_t end,
		       const atomic_int *stop);

/* Cancellable forms: stop may be NULL (then only the timeout ends a wait);
 * a set *stop ends the wait with -ECANCELED. timeout_ns < 0: no limit.
 * spin_ns: wall time to poll before sleeping. */
DAQ_HIDDEN int daq_pool_get(abb_daq_pool *p, abb_daq_buf **b, int64_t timeout_ns,
			    const atomic_int *stop, int64_t spin_ns);
DAQ_HIDDEN int daq_queue_push(abb_daq_queue *q, abb_daq_buf *b, int64_t timeout_ns,
			      const atomic_int *stop, int64_t spin_ns);
DAQ_HIDDEN int daq_queue_pop(abb_daq_queue *q, abb_daq_buf **b, int64_t timeout_ns,
			     const atomic_int *stop, int64_t spin_ns);
/* Open again after a close (a module started again); what is queued stays. */
DAQ_HIDDEN void daq_queue_reopen(abb_daq_queue *q);

/* Lets go of the pool for its owner: freed now if every buffer is in it,
 * else by the release of its last buffer out (a consumer may still hold
 * buffers of a destroyed module). The caller must have unmapped it. */
DAQ_HIDDEN void daq_pool_destroy_late(abb_daq_pool *p);
/* A device mapped the pool (+1) or unmapped it (-1): abb_daq_pool_destroy
 * answers -EBUSY while any device has it mapped. */
DAQ_HIDDEN void daq_pool_mapped(abb_daq_pool *p, int delta);
/* A transport uses the device (create) or no longer does (destroy); the
 * device's close waits for the last one (daq_device.c). */
DAQ_HIDDEN void daq_device_hold(abb_daq_device *d);
DAQ_HIDDEN void daq_device_drop(abb_daq_device *d);
/* The buffer whose DMA the transport could not stop (libabb still holds
 * the channel: it may still write it), or NULL. */
DAQ_HIDDEN abb_daq_buf *daq_transport_stuck(const abb_daq_transport *t);

/* The single-producer single-consumer hand-over queue between a module's
 * transport and module thread (daq_spsc.c); same return values as the
 * queue above. pop after close still returns what was queued. */
struct daq_spsc;
DAQ_HIDDEN int daq_spsc_create(struct daq_spsc **q, unsigned capacity);
DAQ_HIDDEN void daq_spsc_destroy(struct daq_spsc *q);
DAQ_HIDDEN void daq_spsc_close(struct daq_spsc *q);
/* Open again after a close; only while neither side uses the queue (the
 * module's threads are joined). */
DAQ_HIDDEN void daq_spsc_reopen(struct daq_spsc *q);
DAQ_HIDDEN int daq_spsc_push(struct daq_spsc *q, abb_daq_buf *b, int64_t timeout_ns,
			     const atomic_int *stop, int64_t spin_ns);
DAQ_HIDDEN int daq_spsc_pop(struct daq_spsc *q, abb_daq_buf **b, int64_t timeout_ns,
			    const atomic_int *stop, int64_t spin_ns);

/* The DMA handle of buf on device d (mapping buf's pool first if needed). */
DAQ_HIDDEN int daq_device_dmabuf(abb_daq_device *d, abb_daq_buf *b, abb_dmabuf **dmabuf);
/* The next event counter of d (post-increment). */
DAQ_HIDDEN uint64_t daq_device_next_event(abb_daq_device *d);
DAQ_HIDDEN unsigned daq_device_board(const abb_daq_device *d);
/* Header bytes in front of the DMA data of a read buffer (0 for a write);
 * fixed for the transport's life, so a module thread keeps a copy instead
 * of reading the transport's busy cache line for every buffer. */
DAQ_HIDDEN size_t daq_transport_header(const abb_daq_transport *t);
/* A new run of the transport (a module started again): MaxBuffers counts
 * from 0, the region walk begins at Address again. Not while a DMA runs. */
DAQ_HIDDEN void daq_transport_rewind(abb_daq_transport *t);

#endif
