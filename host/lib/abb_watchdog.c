/*
 * abb_watchdog.c - the simulator's wall-clock watchdog in libabb's waits
 * (DMA waits, abb_irq_wait): dev->watchdog_s, set by the sim backend
 * (ABB_SIM_WATCHDOG_S). On the simulator a wait without a device-time
 * limit would otherwise end only when the device does something.
 *
 * A wait fails when the link moved no TLP but the wait's own register
 * reads for watchdog_s seconds (a hung or idle device: nothing it waits
 * for can happen), or after ABB_WATCHDOG_BUSY_FACTOR times that in all (a
 * runaway one). Progress is counted only across the wait's sleeps (the
 * backend's interrupt wait or delay): the status reads between them are
 * the wait's own traffic and would otherwise look like progress forever.
 * A long transfer on a loaded machine keeps the link busy and is not
 * stopped.
 */
#include <errno.h>
#include <time.h>

#include "abb_priv.h"

#define ABB_WATCHDOG_BUSY_FACTOR 10

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void abb_watch_init(struct abb_watch *w)
{
	w->start = w->last_move = wall_s();
	w->tlps = 0;
	w->counted = false;
}

/* The link's TLP count; false when the backend has none. */
static bool link_tlps(abb_dev *dev, uint64_t *n)
{
	return dev->sim && dev->sim->link_tlps(dev, n) == 0;
}

void abb_watch_before_sleep(abb_dev *dev, struct abb_watch *w)
{
	if (dev->watchdog_s)
		w->counted = link_tlps(dev, &w->tlps);
}

void abb_watch_after_sleep(abb_dev *dev, struct abb_watch *w)
{
	uint64_t n;

	if (dev->watchdog_s && w->counted && link_tlps(dev, &n) && n != w->tlps)
		w->last_move = wall_s();
}

int abb_watch_check(abb_dev *dev, const struct abb_watch *w, const char *what)
{
	double now;

	if (!dev->watchdog_s)
		return 0;
	now = wall_s();
	if (now - w->last_move > dev->watchdog_s)
		return abb_err(-ETIME, "%s: no TLP on the link but the wait's own status reads "
			       "for %u s of wall-clock time (simulation watchdog; "
			       "ABB_SIM_WATCHDOG_S)", what, dev->watchdog_s);
	if (now - w->start > (double)dev->watchdog_s * ABB_WATCHDOG_BUSY_FACTOR)
		return abb_err(-ETIME, "%s: still waiting after %u s of wall-clock time although "
			       "the link is busy (simulation watchdog: %u x ABB_SIM_WATCHDOG_S)",
			       what, dev->watchdog_s * ABB_WATCHDOG_BUSY_FACTOR,
			       ABB_WATCHDOG_BUSY_FACTOR);
	return 0;
}
