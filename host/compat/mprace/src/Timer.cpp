/*
 * Timer.cpp - util::Timer on libabb's device clock.
 */
#include "mprace/util/Timer.h"

#include <cerrno>
#include <iostream>
#include <time.h>

#include <abb/abb.h>
#include <abb/abb_sim.h>

#include "mprace_priv.h"

namespace mprace {

static abb_dev *clock_dev;

namespace priv {

void clock_attach(abb_dev *dev)
{
	clock_dev = dev;
}

void clock_detach(abb_dev *dev)
{
	if (clock_dev == dev)
		clock_dev = nullptr;
}

} /* namespace priv */

namespace util {

clkticks_t Timer::ticks_per_ms = 1000000ull;

static clkticks_t host_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (clkticks_t)ts.tv_sec * 1000000000ull + (clkticks_t)ts.tv_nsec;
}

clkticks_t Timer::now()
{
	uint64_t ns;

	if (clock_dev && abb_time_ns(clock_dev, &ns) == 0)
		return ns;
	return host_ns();
}

void Timer::calibrate()
{
	ticks_per_ms = 1000000ull;
}

void Timer::printCalInfo()
{
	std::cout << "Timer: " << (clock_dev ? "device time of the open ABB (abb_time_ns)"
					     : "CLOCK_MONOTONIC (no ABB open)")
		  << ", " << ticks_per_ms << " ticks per ms" << std::endl;
}

void Timer::wait(float seconds)
{
	if (!(seconds > 0))
		return;
	int64_t ns = (int64_t)((double)seconds * 1e9);

	/* The simulator: let simulated time run. The board: abb_sim_advance
	 * is -ENOTSUP and the device clock is CLOCK_MONOTONIC. */
	if (clock_dev && abb_sim_advance(clock_dev, ns) == 0)
		return;
	clkticks_t end = now() + (clkticks_t)ns;
	while (now() < end)
		;
}

float Timer::asMillis()
{
	return (float)((double)(stopTime - startTime) / (double)ticks_per_ms);
}

float Timer::asSeconds()
{
	return asMillis() / 1000.0f;
}

} /* namespace util */
} /* namespace mprace */
