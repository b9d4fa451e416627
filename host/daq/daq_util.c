/*
 * daq_util.c - clocks, condition variables and the spin-then-sleep waits of
 * the DAQ layer.
 */
#include <errno.h>
#include <time.h>

#include "daq_priv.h"

uint64_t daq_wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void daq_deadline(struct timespec *ts, uint64_t wall_ns)
{
	ts->tv_sec = (time_t)(wall_ns / 1000000000u);
	ts->tv_nsec = (long)(wall_ns % 1000000000u);
}

void daq_cond_init(pthread_cond_t *c)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
}

void daq_mutex_init(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
	/* spins briefly before it sleeps: the two module threads hold these
	 * locks for a few instructions at a time */
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ADAPTIVE_NP);
#endif
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

void daq_spin(int (*done)(void *), void *arg, const atomic_int *stop, int64_t spin_ns)
{
	uint64_t end;

	if (spin_ns <= 0)
		return;
	end = daq_wall_ns() + (uint64_t)spin_ns;
	for (unsigned i = 1;; i++) {
		if (done(arg))
			return;
		if (stop && atomic_load_explicit(stop, memory_order_relaxed))
			return;
		if (i % 64 == 0 && daq_wall_ns() >= end)
			return;
		daq_cpu_relax();
	}
}

int daq_nap(pthread_cond_t *c, pthread_mutex_t *m, uint64_t end, const atomic_int *stop)
{
	uint64_t now = daq_wall_ns(), wake = now + DAQ_CANCEL_SLICE_NS;
	struct timespec ts;

	if (stop && atomic_load_explicit(stop, memory_order_relaxed))
		return -ECANCELED;
	if (end && now >= end)
		return -ETIMEDOUT;
	if (end && end < wake)
		wake = end;
	daq_deadline(&ts, wake);
	pthread_cond_timedwait(c, m, &ts);
	return 0;
}
