/*
 * mprace/util/Timer.h - time measurement of the mprace compatibility layer.
 *
 * Device time: while an ABB is open, a Timer reads libabb's device clock
 * (abb_time_ns: simulated time on the simulator, CLOCK_MONOTONIC on the
 * board), so bandwidth measured with it is device-time bandwidth, and
 * wait() lets device time pass (abb_sim_advance on the simulator) instead
 * of sleeping. With no board open: CLOCK_MONOTONIC. Ticks are ns.
 */
#ifndef MPRACE_UTIL_TIMER_H_
#define MPRACE_UTIL_TIMER_H_

#include <ctime>

namespace mprace {
namespace util {

/* 64 bits (ns). long long is C++11 and C99; C++98 compilers have it as
 * an extension (-pedantic warns of it there, not here). */
#if defined(__GNUC__) && __cplusplus < 201103L
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wlong-long"
typedef unsigned long long clkticks_t;
#pragma GCC diagnostic pop
#else
typedef unsigned long long clkticks_t;
#endif

class Timer {
public:
	Timer() : startTime(0), stopTime(0) {}

	/* Nothing to calibrate: ticks are ns of the device clock. */
	static void calibrate();
	static void printCalInfo();
	/* Lets seconds of device time pass. */
	static void wait(float seconds);

	void start() { startTime = now(); }
	void stop() { stopTime = now(); }
	float asSeconds();
	float asMillis();

	/* Extension of the layer: the clock in ns. */
	static clkticks_t now();

protected:
	static clkticks_t ticks_per_ms;
	clkticks_t startTime;
	clkticks_t stopTime;
};

} /* namespace util */
} /* namespace mprace */

#endif
