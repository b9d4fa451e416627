/*
 * vfio_time.c - device time of the vfio backend: clock_gettime
 * (CLOCK_MONOTONIC) and nanosleep of the system-call seam, so that the
 * test bench's emulated kernel runs them in simulated time.
 */
#include <errno.h>
#include <time.h>

#include "vfio_priv.h"

uint64_t vfio_mono_ns(struct vfio *v)
{
	struct timespec ts = {0, 0};

	v->sys.clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int vfio_now_ns(abb_dev *dev, uint64_t *ns)
{
	*ns = vfio_mono_ns(V(dev));
	return 0;
}

int vfio_delay_ns(abb_dev *dev, int64_t ns)
{
	struct vfio *v = V(dev);
	struct timespec req = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)}, rem;

	if (ns <= 0)
		return 0;
	while (v->sys.nanosleep(&req, &rem) && errno == EINTR)
		req = rem;
	return 0;
}
