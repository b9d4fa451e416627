/*
 * platform_freerun.cpp - the free-running clock (option clock=free): while
 * the board is open the simulation thread runs cycles whether or not a host
 * thread waits, so the board behaves as hardware does while its host is
 * busy elsewhere (the event source fills the FIFO, then stalls).
 *
 * Pace: a busy board (the RTL not idle, link or root-complex events due)
 * runs as fast as the simulation computes, which is slower than the wall
 * clock; a quiet board (the RTL idle, nothing due within one slice) lets
 * device time follow the wall clock: the thread sleeps up to one slice (a
 * posted call wakes it), then moves device time by the wall time that
 * passed, through a timer event the cycle loop jumps to (skipped cycles are
 * counted by the RTL's cycle counter as in lockstep). So a host that
 * blocks for a millisecond finds a millisecond of device time gone, and an
 * idle farm does not burn the CPU.
 *
 * Host calls are served as in lockstep (platform_lockstep.cpp): a posted
 * closure, a Waiter settled between batches of cycles, the same watchdog.
 */
#include "platform.h"

#include <chrono>

namespace abbsim {

/* Longest sleep of a quiet board, and the longest device-time jump it
 * makes at once (wall time of a descheduled thread is not all made up). */
static constexpr auto QuietSlice = std::chrono::milliseconds(1);
static constexpr uint64_t QuietSlicePs = 1000ull * 1000 * 1000;
/* SystemC time is brought up to platform time at least this often (ps), as
 * in lockstep. */
static constexpr uint64_t FreeQuantumPs = 100ull * 1000 * 1000;

extern std::atomic<bool> g_rtl_fatal;
extern std::string rtl_fatal_message();

void Platform::run_free(std::unique_lock<std::mutex> &lk)
{
	auto wall_last = std::chrono::steady_clock::now();
	while (free_running()) {
		while (!mail_.empty()) {
			std::vector<std::function<void()>> m;
			m.swap(mail_);
			mail_flag_.store(false, std::memory_order_relaxed);
			for (auto &f : m)
				f();
		}
		if (g_rtl_fatal.load() && !broken) {
			broken = true;
			broken_why = "RTL model fatal error: " + rtl_fatal_message();
		}
		settle_waiters();
		publish();
		if (!free_running())
			break;
		/* the previous pacing timer is void: a quiet board gets a new one */
		if (free_tick_live_)
			*free_tick_live_ = false;
		free_tick_live_.reset();
		uint64_t next = q_.next();
		if (hip_.idle() && (next == EventQueue::Never || next > clk_.now + QuietSlicePs)) {
			cv_sim.wait_for(lk, QuietSlice, [this] { return !mail_.empty(); });
			auto wall = std::chrono::steady_clock::now();
			uint64_t ps = (uint64_t)std::chrono::duration_cast<std::chrono::nanoseconds>(
					      wall - wall_last).count() * 1000u;
			wall_last = wall;
			if (ps > QuietSlicePs)
				ps = QuietSlicePs;
			if (!mail_.empty() || ps == 0)
				continue;
			free_tick_live_ = std::make_shared<bool>(true);
			q_.at(clk_.now + ps, [this](uint64_t) { wake_ = true; }, free_tick_live_);
		} else {
			wall_last = std::chrono::steady_clock::now();
		}
		lk.unlock();
		try {
			run_cycles();
		} catch (const std::exception &e) {
			lk.lock();
			broken = true;
			broken_why = std::string("exception in the simulation: ") + e.what();
			continue;
		}
		if (clk_.now > sc_core::sc_time_stamp().value() + FreeQuantumPs)
			sync_sc_time();
		lk.lock();
	}
	if (free_tick_live_)
		*free_tick_live_ = false;
	free_tick_live_.reset();
}

} // namespace abbsim
