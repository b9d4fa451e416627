/*
 * device_clock.h - device time and the user clock's grid (README "Time").
 *
 * Integer picoseconds; cycle n of the user clock is at
 * epoch + n * 10^6 / mhz ps (integer division), so no rounding
 * accumulates. epoch is the end of the last open's reset (cycle 0). The
 * cycle loop (platform.cpp) calls these on every edge: they stay inline.
 */
#ifndef ABBSIM_DEVICE_CLOCK_H
#define ABBSIM_DEVICE_CLOCK_H

#include <cstdint>

namespace abbsim {

struct DeviceClock {
	uint64_t now = 0;   /* device time (ps since the process started the platform) */
	uint64_t epoch = 0; /* time of cycle 0 */
	uint64_t cycle = 0; /* the cycle of the last edge run */
	unsigned mhz = 125;
	uint64_t period_ps = 8000; /* 0 when 10^6 / mhz is not whole */

	void set_mhz(unsigned m)
	{
		mhz = m;
		period_ps = 1000000u % m ? 0 : 1000000u / m;
	}

	/* the time of edge n */
	uint64_t edge_time(uint64_t n) const
	{
		if (period_ps) /* the period is a whole number of ps (125 MHz: 8000) */
			return epoch + n * period_ps;
		return epoch + (uint64_t)((unsigned __int128)n * 1000000u / mhz);
	}

	/* the first edge at or after t */
	uint64_t first_edge_at(uint64_t t) const
	{
		if (t <= epoch)
			return 0;
		unsigned __int128 d = t - epoch;
		uint64_t n = (uint64_t)((d * mhz + 999999u) / 1000000u);
		while (edge_time(n) < t)
			n++;
		return n;
	}

	/* the cycle time t falls in */
	uint64_t cycle_of(uint64_t t) const
	{
		if (t <= epoch)
			return 0;
		return (uint64_t)((unsigned __int128)(t - epoch) * mhz / 1000000u);
	}
};

} // namespace abbsim
#endif
