/*
 * daq_util.c - clocks and condition variables of the DAQ layer.
 */
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
