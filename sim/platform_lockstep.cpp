/*
 * platform_lockstep.cpp - the hand-off between host threads and the
 * simulation thread (lockstep): host calls post closures to a mailbox and
 * block on a Waiter; the simulation thread runs the mailbox, lets time run
 * only while a waiter exists, stops at the event that satisfies the last
 * one and publishes what the host reads; the wall-clock watchdog of a wait.
 */
#include "platform.h"

#include "error.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>

namespace abbsim {

/* SystemC time is brought up to platform time at least this often (ps). */
static constexpr uint64_t QuantumPs = 100ull * 1000 * 1000;
/* a wait with link traffic may take this many watchdog periods in all */
static constexpr unsigned WatchdogBusyFactor = 10;

/* Set by the Verilator fatal/stop hooks (rtl_hooks.cpp). */
extern std::atomic<bool> g_rtl_fatal;
extern std::string rtl_fatal_message();

/* ---------- host side ---------- */

void Platform::post(std::function<void()> fn)
{
	mail_.push_back(std::move(fn));
	mail_flag_.store(true, std::memory_order_release);
	/* a simulation thread asleep in run() (nothing scheduled) looks again */
	cv_sim.notify_all();
}

int Platform::wait_for(std::unique_lock<std::mutex> &lk, std::shared_ptr<Waiter> w,
		       std::function<void()> fn)
{
	if (broken)
		return fail(-EIO, "simulator stopped: %s", broken_why.c_str());
	post([this, w, fn] {
		if (fn)
			fn();
		if (w->kind == Waiter::Open || w->kind == Waiter::Call) {
			if (!w->done)
				finish(*w, w->result, w->error);
		} else {
			register_waiter(w);
		}
	});
	want_run = true;
	cv_sim.notify_all();
	/* The watchdog turns a hung simulation into an error: it fires when a
	 * wait saw no TLP on the link for wd seconds of wall-clock time, or
	 * when it took WatchdogBusyFactor * wd seconds in all (a runaway
	 * device that keeps the link busy). A long transfer on a loaded
	 * machine keeps moving TLPs and is not stopped after wd seconds. */
	unsigned wd = params.watchdog_s ? params.watchdog_s : 120;
	auto start = std::chrono::steady_clock::now();
	auto deadline = start + std::chrono::seconds(wd);
	auto hard = start + std::chrono::seconds((uint64_t)wd * WatchdogBusyFactor);
	/* a poll's own reads are no progress (abbsim_poll_reg) */
	auto traffic = [this, &w] {
		return w->foreign_tlps >= 0 ? (uint64_t)w->foreign_tlps : stats_pub[0].tlps + stats_pub[1].tlps;
	};
	uint64_t seen = traffic();
	while (!w->done) {
		if (w->cv.wait_until(lk, deadline) == std::cv_status::timeout && !w->done) {
			uint64_t tlps = traffic();
			auto now = std::chrono::steady_clock::now();
			if (tlps != seen && now < hard) {
				seen = tlps;
				deadline = std::min(now + std::chrono::seconds(wd), hard);
				continue;
			}
			w->abandoned = true;
			cv_sim.notify_all();
			unsigned secs = (unsigned)std::chrono::duration_cast<std::chrono::seconds>(now - start).count();
			if (tlps != seen)
				return fail(-ETIME,
					    "watchdog: the wait did not finish within %u s of wall-clock time although the "
					    "link was busy (device time %llu ns, cycle %llu); a runaway device, or raise "
					    "ABB_SIM_WATCHDOG_S (the limit is %u x it) if the run is just long",
					    secs, (unsigned long long)(now_pub.load() / 1000),
					    (unsigned long long)cycles_pub.load(), WatchdogBusyFactor);
			return fail(-ETIME,
				    "watchdog: the wait saw no link traffic for %u s of wall-clock time "
				    "(device time %llu ns, cycle %llu); a hung device, or raise ABB_SIM_WATCHDOG_S "
				    "if the run is just long",
				    wd, (unsigned long long)(now_pub.load() / 1000),
				    (unsigned long long)cycles_pub.load());
		}
	}
	if (w->result < 0)
		return fail(w->result, "%s", w->error.c_str());
	return w->result;
}

/* ---------- simulation thread ---------- */

void Platform::finish(Waiter &w, int result, const std::string &err)
{
	w.done = true;
	if (w.deadline_live)
		*w.deadline_live = false;
	w.result = result;
	if (result < 0 && !err.empty())
		w.error = err;
	w.cv.notify_all();
}

void Platform::register_waiter(const std::shared_ptr<Waiter> &w)
{
	/* A timeout past the end of the 64-bit picosecond clock (above about
	 * 1.8e16 ns from now, INT64_MAX included) is no device-time limit: only
	 * the wall-clock watchdog bounds the wait (now + ns * 1000 wrapped and
	 * set a deadline in the past before). An advance by such a span is
	 * refused: time must not wrap (it went backwards before). */
	if (w->kind == Waiter::Advance && w->timeout_ns >= 0 &&
	    (uint64_t)w->timeout_ns > (UINT64_MAX - clk_.now) / 1000) {
		char msg[256];
		snprintf(msg, sizeof msg, "abbsim_advance: %lld ns would run device time past the "
			 "end of its 64-bit picosecond clock: accepted at most %llu ns from now "
			 "(device time %llu ns)", (long long)w->timeout_ns,
			 (unsigned long long)((UINT64_MAX - clk_.now) / 1000),
			 (unsigned long long)((clk_.now - clk_.epoch) / 1000));
		finish(*w, -EINVAL, msg);
		return;
	}
	if (w->timeout_ns >= 0 && (uint64_t)w->timeout_ns <= (UINT64_MAX - clk_.now) / 1000) {
		uint64_t when = clk_.now + (uint64_t)w->timeout_ns * 1000;
		/* weak: a waiter that finished early is gone and its timer dropped */
		std::weak_ptr<Waiter> weak = w;
		w->deadline_live = std::make_shared<bool>(true);
		q_.at(when, [this, weak](uint64_t) {
			if (auto sw = weak.lock()) {
				sw->deadline_hit = true;
				wake_ = true;
			}
		}, w->deadline_live);
	}
	if (w->kind == Waiter::Poll) {
		PollState &s = *w->poll;
		if (s.first_ns) {
			poll_timer(w, s.first_ns);
		} else {
			s.pio = std::make_shared<PioRead>();
			rc.pio_read(s.addr, 4, s.pio, clk_.now);
		}
	}
	waiters_.push_back(w);
}

/* A pause of a poll: ns of device time from now (as abbsim_advance's
 * timer: the waiter's deadline flag, dropped when it is done). */
void Platform::poll_timer(const std::shared_ptr<Waiter> &w, uint64_t ns)
{
	std::weak_ptr<Waiter> weak = w;
	w->poll->napping = true;
	w->deadline_hit = false;
	w->deadline_live = std::make_shared<bool>(true);
	q_.at(clk_.now + ns * 1000, [this, weak](uint64_t) {
		if (auto sw = weak.lock()) {
			sw->deadline_hit = true;
			wake_ = true;
		}
	}, w->deadline_live);
}

/* One step of abbsim_poll_reg where the host's loop would have been
 * handed back control: a pause over (read now) or a read completed (test,
 * deadline, then read again at once or pause). Each read is issued at the
 * device time and in the order the host's next call would have issued it,
 * so the link sees what the host loop would have made it see. */
bool Platform::poll_step(const std::shared_ptr<Waiter> &w)
{
	PollState &s = *w->poll;
	auto issue = [&] {
		s.pio = std::make_shared<PioRead>();
		rc.pio_read(s.addr, 4, s.pio, clk_.now);
	};
	/* the watchdog's progress, counted while none of the poll's reads is
	 * on its way (each has put two TLPs on the link once done) */
	auto foreign = [&] {
		uint64_t all = down_.stats().tlps + up_.stats().tlps;
		w->foreign_tlps = all > 2 * s.reads ? (int64_t)(all - 2 * s.reads) : 0;
	};
	if (s.napping) {
		foreign();
		if (!w->deadline_hit)
			return false;
		s.napping = false;
		w->deadline_hit = false;
		issue();
		return false;
	}
	if (!s.pio || !s.pio->done)
		return false;
	std::shared_ptr<PioRead> r = std::move(s.pio);
	s.reads++;
	foreign();
	if (r->result < 0) {
		finish(*w, r->result, "abbsim_poll_reg: register read failed: " + r->error);
		return true;
	}
	s.value = r->data.size() == 4 ? (uint32_t)r->data[0] | (uint32_t)r->data[1] << 8 |
						(uint32_t)r->data[2] << 16 | (uint32_t)r->data[3] << 24
				      : 0xffffffffu;
	if ((s.value & s.mask) != s.busy) {
		finish(*w, 0);
		return true;
	}
	uint64_t now_ns = (clk_.now - clk_.epoch) / 1000;
	if (now_ns >= s.deadline_ns) {
		finish(*w, -ETIMEDOUT, "abbsim_poll_reg: the register did not change within the deadline "
				       "(device time)");
		return true;
	}
	if (s.reads > s.spin && s.nap) {
		uint64_t ns = std::min(s.deadline_ns - now_ns, s.nap);
		if (s.nap_div)
			s.nap += s.nap / s.nap_div;
		if (s.nap > s.nap_max)
			s.nap = s.nap_max;
		poll_timer(w, ns);
	} else {
		issue();
	}
	return false;
}

void Platform::settle_waiters()
{
	idle_waiters_ = false;
	for (auto it = waiters_.begin(); it != waiters_.end();) {
		Waiter &w = **it;
		bool fin = false;
		int res = 0;
		std::string err;
		if (w.abandoned) {
			if (w.kind == Waiter::Close && is_open)
				close_drained(true); /* the watchdog ended the drain: close anyway */
			it = waiters_.erase(it);
			continue;
		}
		switch (w.kind) {
		case Waiter::PioRead:
			if (w.pio->done) {
				fin = true;
				res = w.pio->result;
				err = w.pio->error;
			}
			break;
		case Waiter::Irq:
			if (rc.irq_count > w.irq_seen) {
				fin = true;
			} else if (w.deadline_hit) {
				fin = true;
				res = -ETIMEDOUT;
				err = "no interrupt within the device-time timeout";
			}
			w.irq_seen = rc.irq_count;
			break;
		case Waiter::Advance:
			fin = w.deadline_hit;
			break;
		case Waiter::Poll:
			if (broken)
				break; /* ends below */
			if (poll_step(*it))
				it = waiters_.erase(it);
			else
				++it;
			continue;
		case Waiter::Close:
			/* nothing can arrive over a link that is down */
			if (quiet() || rc.link_is_down()) {
				fin = true;
				close_drained(false);
			} else if (w.deadline_hit) {
				fin = true;
				close_drained(true);
			}
			break;
		case Waiter::Idle:
			if (quiet()) {
				fin = true;
			} else if (w.deadline_hit) {
				fin = true;
				res = -ETIMEDOUT;
				err = "device not idle within the device-time timeout";
			}
			break;
		default:
			fin = true;
		}
		if (!fin && broken) {
			fin = true;
			res = -EIO;
			err = "simulator stopped: " + broken_why;
		}
		if (fin) {
			finish(w, res, err);
			it = waiters_.erase(it);
		} else {
			if (w.kind == Waiter::Idle || w.kind == Waiter::Close)
				idle_waiters_ = true;
			++it;
		}
	}
}

void Platform::publish()
{
	stats_pub[0] = down_.stats();
	stats_pub[1] = up_.stats();
	for (auto &v : violations_)
		if (violations_pub.size() < 256)
			violations_pub.push_back(std::move(v));
	violations_.clear();
	violation_count_pub += violation_count_;
	violation_count_ = 0;
	now_pub.store(clk_.now - clk_.epoch);
	cycles_pub.store(clk_.cycle_of(clk_.now));
	irq_pub.store(rc.irq_count);
	intx_pub.store(rc.intx_asserted);
	trace_.flush_log();
}

void Platform::sync_sc_time()
{
	sc_core::sc_time target = sc_core::sc_time::from_value(clk_.now);
	sc_core::sc_time cur = sc_core::sc_time_stamp();
	if (target > cur)
		wait(target - cur);
}

void Platform::main_thread()
{
	for (;;) {
		run();
		sync_sc_time();
		sc_core::sc_pause();
		wait(sc_core::SC_ZERO_TIME);
	}
}

void Platform::run()
{
	std::unique_lock<std::mutex> lk(mu);
	for (;;) {
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
		if (free_running()) {
			run_free(lk); /* until the board is closed (platform_freerun.cpp) */
			continue;
		}
		if (waiters_.empty()) {
			want_run = false;
			return;
		}
		lk.unlock();
		bool alive;
		try {
			alive = run_cycles();
		} catch (const std::exception &e) {
			lk.lock();
			broken = true;
			broken_why = std::string("exception in the simulation: ") + e.what();
			continue;
		}
		if (clk_.now > sc_core::sc_time_stamp().value() + QuantumPs)
			sync_sc_time();
		lk.lock();
		if (!alive && mail_.empty()) {
			/* Nothing can happen until a host thread posts something:
			 * time stands still; the waiters' watchdogs still run. */
			publish();
			cv_sim.wait_for(lk, std::chrono::milliseconds(20), [this] { return !mail_.empty(); });
		}
	}
}

} // namespace abbsim
