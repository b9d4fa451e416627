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
