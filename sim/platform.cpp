/*
 * platform.cpp - the simulation thread, the cycle loop, lockstep waiting,
 * hot reset and enumeration, tracing.
 */
#include "platform.h"

#include "error.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <pthread.h>

/* libsystemc wants an sc_main; the platform never uses SystemC's main. */
extern "C" int sc_main(int, char **) { return 0; }

namespace abbsim {

/* Flow-control credit limits: abbsim_params.credits_up / credits_down
 * (defaults in params.cpp). */

/* Non-idle cycles between two looks at the mailbox and the waiters. */
static constexpr uint64_t BatchCycles = 16384;
/* SystemC time is brought up to platform time at least this often (ps). */
static constexpr uint64_t QuantumPs = 100ull * 1000 * 1000;
/* a wait with link traffic may take this many watchdog periods in all */
static constexpr unsigned WatchdogBusyFactor = 10;
/* Hot reset: rst_ni low for this many user-clock cycles. */
static constexpr unsigned ResetCycles = 16;
/* Bus/device/function the root complex gives the endpoint. */
static constexpr uint16_t DeviceBdf = 0x0100;

/* Set by the Verilator fatal/stop hooks (rtl_hooks.cpp). */
extern std::atomic<bool> g_rtl_fatal;
extern std::string rtl_fatal_message();

Platform::Platform(sc_core::sc_module_name name)
	: sc_core::sc_module(name), rc(q_, down_, up_, mmu), up_(q_, "up"), down_(q_, "down"),
	  hip_(q_, up_, down_, cfg)
{
	SC_THREAD(main_thread);
	set_stack_size(16u << 20);
	up_.deliver = [this](Tlp &&t, uint64_t now) { rc.on_upstream(std::move(t), now); };
	down_.deliver = [this](Tlp &&t, uint64_t now) { hip_.on_downstream(std::move(t), now); };
	down_.on_drain = [this](uint64_t now) { rc.feed(now); };
	rc.wake = [this] { wake_ = true; };
	rc.cycle_of = [this](uint64_t t) { return cycle_of(t); };
	rc.violation = [this](const std::string &s) { add_violation("root complex: " + s); };
	hip_.violation = [this](const std::string &s) { add_violation(s); };
	auto fc = [this](const std::string &s, uint64_t t) {
		add_violation("cycle " + std::to_string(cycle_of(t)) + ": " + s);
	};
	up_.violation = fc;
	down_.violation = fc;
	mmu.on_fault = [this](const abbsim_fault &f) {
		if (tr_) {
			char b[160];
			snprintf(b, sizeof b, "IOMMU fault: %s iova 0x%llx len %u (%s)",
				 f.is_write ? "write" : "read", (unsigned long long)f.iova, f.len,
				 f.is_write ? "dropped" : "answered UR");
			tr_->lane(LaneErr, b);
		}
	};
	/* fault injection at both transmitters */
	down_.tap = [this](Tlp &t, uint64_t now, std::function<void(uint64_t)> &st) {
		return faults_.on_submit(0, down_, t, now, st);
	};
	up_.tap = [this](Tlp &t, uint64_t now, std::function<void(uint64_t)> &st) {
		return faults_.on_submit(1, up_, t, now, st);
	};
	faults_.note = [this](unsigned dir, const std::string &w, uint64_t now) { fault_note(dir, w, now); };
	faults_.link_down = [this](uint64_t now, uint64_t ns) { link_down(now, ns); };
	faults_.end_read = [this](unsigned dir, unsigned tag) {
		if (dir == 0)
			rc.end_read(tag);
	};
	faults_.free_tag = [this](unsigned dir, unsigned orig) -> unsigned {
		/* downstream: a tag of the DMA engine's data reads (0..NumTags-1,
		 * NumTags = 16, the RTL default) with no read outstanding at the
		 * root complex or on its way there; else one outside every range
		 * the RTL uses. Upstream: a PIO tag with no read outstanding. */
		for (unsigned i = 1; i <= 256; i++) {
			unsigned t = (orig + i) % 256;
			if (dir == 0 && t < 16 && !rc.dev_tag_busy(t) && !up_.holds_read_tag(t))
				return t;
			if (dir == 1 && !rc.pio_tag_busy(t))
				return t;
		}
		return 0x7f;
	};
}

void Platform::fault_note(unsigned dir, const std::string &what, uint64_t now)
{
	if (tr_)
		tr_->lane(LaneErr, std::string("FAULT ") + (dir ? "up " : "down ") + what);
	if (!tlp_log_)
		return;
	uint64_t rel = now > epoch_ ? now - epoch_ : 0;
	fprintf(tlp_log_, "%10llu %10llu.%03llu %-4s FAULT %s\n", (unsigned long long)cycle_of(now),
		(unsigned long long)(rel / 1000), (unsigned long long)(rel % 1000), dir ? "up" : "down",
		what.c_str());
}

/* Surprise down: everything on the link is lost, the root complex fails
 * the PIO reads outstanding (-ENOLINK) and forgets the device's reads; the
 * device is held in reset while the link is down (DL_Down resets the
 * function, as a hot reset does). At link up the RTL leaves reset with its
 * reset state; the config space keeps what enumeration set (as the OS
 * restores it after a reset), so the BARs and bus mastering are back. */
void Platform::link_down(uint64_t now, uint64_t ns)
{
	char why[200];
	snprintf(why, sizeof why, "link down (fault injected at cycle %llu for %llu ns: surprise "
		 "down, the device is hot reset; back up at cycle %llu)",
		 (unsigned long long)cycle_of(now), (unsigned long long)ns,
		 (unsigned long long)cycle_of(now + ns * 1000));
	rc.link_down(now, why);
	up_.flush();
	down_.flush();
	up_.down = down_.down = true;
	hip_.reset();
	hip_.set_reset(true);
	uint64_t g = link_gen_;
	q_.at(now + ns * 1000, [this, g](uint64_t t) {
		if (g == link_gen_)
			link_up(t);
	});
	wake_ = true;
}

void Platform::link_up(uint64_t now)
{
	up_.down = down_.down = false;
	rc.link_up();
	hip_.reset(); /* what the RTL put out while in reset is no TLP */
	hip_.set_reset(false);
	hip_.apply_cfg(now);
	fault_note(0, "LINK_UP: link up, the device left reset (config space restored)", now);
}

Platform::~Platform()
{
	finish_traces();
	if (tlp_log_)
		fclose(tlp_log_);
}

/* ---------- time ---------- */

uint64_t Platform::edge_time(uint64_t n) const
{
	if (period_ps_) /* the period is a whole number of ps (125 MHz: 8000) */
		return epoch_ + n * period_ps_;
	return epoch_ + (uint64_t)((unsigned __int128)n * 1000000u / clk_mhz_);
}

uint64_t Platform::first_edge_at(uint64_t t) const
{
	if (t <= epoch_)
		return 0;
	unsigned __int128 d = t - epoch_;
	uint64_t n = (uint64_t)((d * clk_mhz_ + 999999u) / 1000000u);
	while (edge_time(n) < t)
		n++;
	return n;
}

uint64_t Platform::cycle_of(uint64_t t) const
{
	if (t <= epoch_)
		return 0;
	return (uint64_t)((unsigned __int128)(t - epoch_) * clk_mhz_ / 1000000u);
}

void Platform::sync_sc_time()
{
	sc_core::sc_time target = sc_core::sc_time::from_value(now_);
	sc_core::sc_time cur = sc_core::sc_time_stamp();
	if (target > cur)
		wait(target - cur);
}

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
	uint64_t seen = stats_pub[0].tlps + stats_pub[1].tlps;
	while (!w->done) {
		if (w->cv.wait_until(lk, deadline) == std::cv_status::timeout && !w->done) {
			uint64_t tlps = stats_pub[0].tlps + stats_pub[1].tlps;
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
	 * the wall-clock watchdog bounds the wait (now_ + ns * 1000 wrapped and
	 * set a deadline in the past before). An advance by such a span is
	 * refused: time must not wrap (it went backwards before). */
	if (w->kind == Waiter::Advance && w->timeout_ns >= 0 &&
	    (uint64_t)w->timeout_ns > (UINT64_MAX - now_) / 1000) {
		char msg[256];
		snprintf(msg, sizeof msg, "abbsim_advance: %lld ns would run device time past the "
			 "end of its 64-bit picosecond clock: accepted at most %llu ns from now "
			 "(device time %llu ns)", (long long)w->timeout_ns,
			 (unsigned long long)((UINT64_MAX - now_) / 1000),
			 (unsigned long long)((now_ - epoch_) / 1000));
		finish(*w, -EINVAL, msg);
		return;
	}
	if (w->timeout_ns >= 0 && (uint64_t)w->timeout_ns <= (UINT64_MAX - now_) / 1000) {
		uint64_t when = now_ + (uint64_t)w->timeout_ns * 1000;
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
	waiters_.push_back(w);
}

bool Platform::quiet() const
{
	return hip_.idle() && up_.quiet() && down_.quiet() && rc.quiet();
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
	now_pub.store(now_ - epoch_);
	cycles_pub.store(cycle_of(now_));
	irq_pub.store(rc.irq_count);
	intx_pub.store(rc.intx_asserted);
	if (tlp_log_)
		fflush(tlp_log_);
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
		if (now_ > sc_core::sc_time_stamp().value() + QuantumPs)
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

void Platform::edge(uint64_t n, uint64_t t)
{
	if (tr_) {
		Credits u = up_.credits_free(), d = down_.credits_free();
		int32_t cu[6] = {u.hdr[0], u.data[0], u.hdr[1], u.data[1], u.hdr[2], u.data[2]};
		int32_t cd[6] = {d.hdr[0], d.data[0], d.hdr[1], d.data[1], d.hdr[2], d.data[2]};
		tr_->credits(cu, cd);
	}
	hip_.edge(t, (uint32_t)(n - cycle_ - 1));
	cycle_ = n;
	now_ = t;
}

bool Platform::run_cycles()
{
	wake_ = false;
	const uint64_t batch_end = cycle_ + BatchCycles;
	while (!wake_ && !mail_flag_.load(std::memory_order_relaxed)) {
		uint64_t n = cycle_ + 1;
		if (!hip_.idle()) {
			idle_run_ = 0;
		} else {
			/* Quiet RTL: jump to the first edge at or after the next
			 * event (or the trace window switch). */
			uint64_t ne = q_.next();
			uint64_t m;
			if (ne == EventQueue::Never) {
				if (trace_switch_ == UINT64_MAX || idle_waiters_)
					return idle_waiters_ ? (wake_ = true) : false;
				m = trace_switch_;
			} else {
				m = first_edge_at(ne);
			}
			if (trace_switch_ > cycle_ && m > trace_switch_)
				m = trace_switch_;
			/* traced: the first Tracer::IdleDraw cycles of a quiet
			 * stretch are real edges (the clock and the cycle
			 * counter keep going in the picture); then it jumps */
			if (tr_ && m > n && idle_run_ < Tracer::IdleDraw) {
				m = n;
				idle_run_++;
			}
			if (m - cycle_ - 1 > UINT32_MAX)
				m = cycle_ + 1 + UINT32_MAX;
			if (m > n)
				n = m;
		}
		uint64_t t = edge_time(n);
		while (q_.next() <= t) {
			now_ = q_.next();
			q_.run_one();
			if (wake_)
				return true;
		}
		edge(n, t);
		if (n >= trace_switch_)
			trace_switch();
		if (idle_waiters_ && quiet())
			wake_ = true;
		if (n >= batch_end)
			break;
	}
	return true;
}

/* ---------- open / close / tracing ---------- */

void Platform::do_open(const OpenArgs &a, Waiter &w)
{
	for (auto &o : waiters_)
		finish(*o, -ECANCELED, "the board was reset by abbsim_open");
	waiters_.clear();
	do_close();
	params = a.p;
	params.clk_mhz = abbsim_clk_mhz(&params); /* auto resolved: read back as in effect */
	clk_mhz_ = params.clk_mhz;
	period_ps_ = 1000000u % clk_mhz_ ? 0 : 1000000u / clk_mhz_;
	q_.clear();
	link_gen_++;
	faults_.clear();
	up_.reset(params, Link::from_params(params.credits_up));
	down_.reset(params, Link::from_params(params.credits_down));
	rc.reset(params);
	mmu.reset(params.iova_scatter, params.seed);
	/* the RTL verilated for this clock, with tracing compiled in only when
	 * this open may write a waveform of it (rtl_model.h); a trace file
	 * still open (a DMA or test window) ends with the model it traced */
	bool traced = a.traced_model();
	if ((hip_.rtl_clk_ns() != rtl_clk_ns(clk_mhz_) || hip_.rtl_traced() != traced) &&
	    hip_.tracer().file_on())
		trace_file_close("another RTL model: the clock or the tracing changed");
	if (!hip_.select_model(clk_mhz_, traced)) {
		w.result = -ENOTSUP;
		w.error = "this libabbsim has no traced RTL model (built with SIM_TRACE=0)";
		return;
	}
	hip_.set_record(a.stim_path, a.coverage_base);
	hip_.reset();
	hip_.set_strict(params.strict != 0);
	cfg.reset(params, DeviceBdf);
	hip_.apply_cfg(now_);
	hip_.half_ps = 500000u / clk_mhz_;
	hip_.tracer().set_half(hip_.half_ps);
	/* the flight recorder: armed before the reset edges (its shadow model
	 * sees every edge the real one does from now on) */
	if (a.on_error && !a.trace_path.empty()) {
		std::string rp = a.trace_path;
		if (a.dma_from || !a.test.empty() || a.trace_from || a.trace_to) {
			size_t dot = rp.rfind(".fst");
			rp = (dot == std::string::npos ? rp : rp.substr(0, dot)) + "-error.fst";
		}
		hip_.tracer().rec_arm(a.on_error, rp, !ever_opened_);
		trace_update();
	}
	ever_opened_ = true;
	/* Hot reset on the new clock grid. */
	epoch_ = now_;
	cycle_ = 0;
	hip_.set_reset(true);
	for (unsigned i = 1; i <= ResetCycles; i++) {
		hip_.edge(edge_time(i), 0);
	}
	hip_.set_reset(false);
	now_ = edge_time(ResetCycles);
	epoch_ = now_;
	hip_.tracer().set_cycle(0);
	hip_.epoch = epoch_;
	violations_.clear();
	violation_count_ = 0;
	violations_pub.clear();
	violation_count_pub = 0;
	violations_printed_ = 0;

	std::string err;
	int rc_ = enumerate(cfg, params, bars, err);
	if (rc_) {
		w.result = rc_;
		w.error = err;
		return;
	}
	cfg_changed();
	if (!a.log_path.empty() && (rc_ = do_tlp_log(a.log_path, err))) {
		w.result = rc_;
		w.error = err;
		return;
	}
	if (!a.trace_path.empty() && (a.dma_from || !a.test.empty())) {
		/* a window by content: kept across opens (a test may reopen) */
		std::string key = a.trace_path + "|" + std::to_string(a.dma_from) + "-" +
				  std::to_string(a.dma_to) + "|" + a.test;
		if (key != win_key_) {
			if (hip_.tracer().file_on())
				trace_file_close("window changed");
			win_key_ = key;
			win_ = a.dma_from ? WinDma : WinTest;
			trace_path_ = a.trace_path;
			win_dma_from_ = a.dma_from;
			win_dma_to_ = a.dma_to;
			win_test_ = a.test;
			dma_count_ = 0;
			win_done_ = false;
		}
	} else if (!a.trace_path.empty() && !a.on_error &&
		   (rc_ = do_trace(a.trace_path, a.trace_from, a.trace_to, err))) {
		w.result = rc_;
		w.error = err;
		return;
	}
	notes_wanted_pub.store(win_ != WinCycles || hip_.tracer().rec_on() || tr_ != nullptr);
	is_open = true;
	publish();
}

/* The cap of the drain at close: what the slowest accepted link and clock
 * take for a few round trips (the last posted writes, the board's answer),
 * with room for flow-control credits that come back late. */
int64_t Platform::close_drain_ns() const
{
	unsigned mhz = params.clk_mhz ? params.clk_mhz : 125;
	return 100000 + 4 * (int64_t)params.link_latency_ns + 2000 * 1000 / (int64_t)mhz;
}

/* abbsim_close, on the simulation thread: the link has drained (the board
 * and both link directions quiet), or the cap was hit (a board that never
 * returns credits, a DMA still running, or the watchdog ended the wait):
 * then what was left is said in the TLP log and the waveform's error lane,
 * and on stderr when TLPs were left on the link. Then the board is torn
 * down. */
void Platform::close_drained(bool cap_hit)
{
	if (cap_hit) {
		char msg[400];
		size_t left = down_.pending() + up_.pending();
		if (left)
			snprintf(msg, sizeof msg, "abbsim_close: the link did not drain within %lld ns of "
				 "device time (cycle %llu): down %zu TLPs, up %zu TLPs not delivered%s; "
				 "closed anyway, those are lost", (long long)close_drain_ns(),
				 (unsigned long long)cycle_of(now_), down_.pending(), up_.pending(),
				 hip_.idle() ? "" : ", the board busy (a DMA running?)");
		else
			snprintf(msg, sizeof msg, "abbsim_close: every TLP delivered, the board still busy "
				 "after %lld ns of device time (cycle %llu; a DMA running or waiting for a "
				 "completion?); closed", (long long)close_drain_ns(),
				 (unsigned long long)cycle_of(now_));
		/* stderr only when writes were lost */
		if (left)
			fprintf(stderr, "abbsim: %s\n", msg);
		if (tlp_log_)
			fprintf(tlp_log_, "# %s\n", msg);
		if (tr_)
			tr_->lane(LaneErr, msg);
	}
	do_close();
	publish();
}

void Platform::do_close()
{
	if (win_ == WinCycles && hip_.tracer().file_on())
		trace_file_close("closed");
	hip_.stim_close();
	trace_switch_ = UINT64_MAX;
	if (tlp_log_) {
		fclose(tlp_log_);
		tlp_log_ = nullptr;
		trace_update();
	}
	is_open = false;
}

int Platform::do_trace(const std::string &path, uint64_t from, uint64_t to, std::string &err)
{
	if (to && to <= from) {
		err = "trace window is empty: to_cycle must be 0 or greater than from_cycle";
		return -EINVAL;
	}
	if (to && to <= cycle_) {
		err = "trace window [" + std::to_string(from) + ", " + std::to_string(to) +
		      ") has passed: the board is at cycle " + std::to_string(cycle_) +
		      " (cycles count from the open; to_cycle 0: until close)";
		return -EINVAL;
	}
	if (!hip_.rtl_traced()) {
		err = rtl_traced_available()
			      ? "the board was opened with the RTL model without tracing (the faster "
				"one): to start a waveform during a run, open it with "
				"ABB_SIM_TRACEABLE=1 (URI option traceable=1), or ask for the "
				"waveform at open (ABB_TRACE=file.fst or the URI option trace=)"
			      : "this libabbsim has no traced RTL model (built with SIM_TRACE=0)";
		return -ENOTSUP;
	}
	if (hip_.tracer().file_on())
		trace_file_close("a new trace");
	win_ = WinCycles;
	win_key_.clear();
	trace_path_ = path;
	trace_from_ = from;
	trace_to_ = to;
	if (from <= cycle_) {
		if (hip_.tracer().file_open(path, epoch_, err))
			return -EIO;
		win_t0_ = std::chrono::steady_clock::now();
		hip_.tracer().set_cycle(cycle_);
		trace_update();
		trace_switch_ = to ? to : UINT64_MAX;
	} else {
		trace_switch_ = from;
	}
	notes_wanted_pub.store(true);
	return 0;
}

void Platform::trace_switch()
{
	if (!hip_.tracer().file_on()) {
		trace_file_open("cycle window");
		trace_switch_ = trace_to_ ? trace_to_ : UINT64_MAX;
	} else {
		trace_file_close("cycle window end");
		trace_switch_ = UINT64_MAX;
	}
}

void Platform::trace_update()
{
	Tracer &T = hip_.tracer();
	tr_ = T.active() ? &T : nullptr;
	hip_.tr = tr_;
	if (tlp_log_ || tr_)
		hip_.log = [this](const char *dir, const Tlp &t, uint64_t now) { log_tlp(dir, t, now); };
	else
		hip_.log = nullptr;
}

void Platform::trace_file_open(const char *why)
{
	std::string err;
	Tracer &T = hip_.tracer();
	if (T.file_on())
		return;
	if (T.file_open(trace_path_, epoch_, err)) {
		add_violation("trace: " + err);
		return;
	}
	win_t0_ = std::chrono::steady_clock::now();
	win_c0_ = cycle_;
	T.set_cycle(cycle_);
	trace_update();
	(void)why;
}

void Platform::trace_file_close(const char *why)
{
	Tracer &T = hip_.tracer();
	if (!T.file_on())
		return;
	std::string sum = T.file_close();
	double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - win_t0_).count();
	FILE *f = fopen(trace_path_.c_str(), "rb");
	long size = -1;
	if (f && !fseek(f, 0, SEEK_END))
		size = ftell(f);
	if (f)
		fclose(f);
	fprintf(stderr, "abbsim: trace (%s): wrote %s: %ld bytes, cycles %llu..%llu, %s, "
		"%.3f s of wall-clock time while the window was open\n", why, trace_path_.c_str(), size,
		(unsigned long long)win_c0_, (unsigned long long)cycle_, sum.c_str(), s);
	if (win_ != WinCycles)
		win_done_ = true;
	trace_update();
}

void Platform::rec_trigger(const std::string &why)
{
	Tracer &T = hip_.tracer();
	if (!T.rec_on() || rec_dumps_ >= 8)
		return;
	rec_dumps_++;
	auto t0 = std::chrono::steady_clock::now();
	std::string s = T.rec_dump(why, now_);
	double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	fprintf(stderr, "abbsim: %s; %.3f s to write\n", s.c_str(), sec);
}

void Platform::finish_traces()
{
	if (hip_.tracer().file_on())
		trace_file_close("finished");
}

void Platform::do_note(unsigned kind, unsigned channel, const std::string &text)
{
	Tracer &T = hip_.tracer();
	switch (kind) {
	case ABB_SIM_NOTE_DMA_START:
		dma_count_++;
		dma_num_[channel] = dma_count_;
		if (win_ == WinDma && !win_done_ && dma_count_ == win_dma_from_)
			trace_file_open("DMA window");
		if (tr_) {
			tr_->lane(LaneApi, text);
			tr_->mark("DMA " + std::to_string(dma_count_) + " start: " + text, now_);
		}
		break;
	case ABB_SIM_NOTE_DMA_DONE:
	case ABB_SIM_NOTE_DMA_ERROR: {
		/* which DMA ended: the last started on its channel (a failing
		 * call that started none: the last of the run) */
		auto it = dma_num_.find(channel);
		uint64_t num = it != dma_num_.end() ? it->second : dma_count_;
		if (tr_) {
			tr_->lane(LaneApi, text);
			tr_->mark("DMA " + std::to_string(num) + " end: " + text, now_);
		}
		if (kind == ABB_SIM_NOTE_DMA_ERROR)
			rec_trigger("DMA error: " + text);
		if (win_ == WinDma && T.file_on() && num >= win_dma_to_)
			trace_file_close("DMA window end");
		break;
	}
	case ABB_SIM_NOTE_TEST_BEGIN:
		if (win_ == WinTest && !win_done_ && text == win_test_)
			trace_file_open("test");
		if (tr_) {
			tr_->lane(LaneApi, "test " + text);
			tr_->mark("test " + text, now_);
		}
		break;
	case ABB_SIM_NOTE_TEST_PASS:
	case ABB_SIM_NOTE_TEST_FAIL:
		if (tr_) {
			std::string s = (kind == ABB_SIM_NOTE_TEST_FAIL ? "FAILED test " : "passed test ") + text;
			tr_->lane(LaneApi, s);
			tr_->mark(s, now_);
		}
		if (kind == ABB_SIM_NOTE_TEST_FAIL)
			rec_trigger("test failed: " + text);
		if (win_ == WinTest && T.file_on() && text == win_test_)
			trace_file_close("test end");
		break;
	default:
		if (tr_)
			tr_->lane(LaneApi, text);
	}
}

int Platform::do_tlp_log(const std::string &path, std::string &err)
{
	if (tlp_log_)
		fclose(tlp_log_);
	tlp_log_ = fopen(path.c_str(), "w");
	if (!tlp_log_) {
		err = "cannot open TLP log " + path + ": " + strerror(errno);
		trace_update();
		return -errno;
	}
	fprintf(tlp_log_, "# cycle time_ns dir TLP (gen %u x%u, MPS %u, MRRS %u, RCB %u, cpl=%s, %u MHz)\n",
		params.gen, params.lanes, bars.mps, bars.mrrs, params.rcb,
		params.cpl_rcb ? "rcb" : "mps", params.clk_mhz);
	trace_update();
	hip_.stim_mark(cycle_, cycle_of(now_));
	return 0;
}

void Platform::lane_tlp(const char *dir, const Tlp &t)
{
	bool up = dir[0] == 'u';
	std::string d = t.describe();
	TlpKind k = t.kind();
	tr_->lane(up ? LaneTlpUp : LaneTlpDown, d);
	char b[200];
	if (up && k == TlpKind::MRd && (t.req_tag() == 0x80 || t.req_tag() == 0x81)) {
		snprintf(b, sizeof b, "%s fetches the descriptor at 0x%llx",
			 t.req_tag() == 0x80 ? "C2H (DMA read)" : "H2C (DMA write)",
			 (unsigned long long)t.addr());
		tr_->lane(LaneDesc, b);
	} else if (!up && (k == TlpKind::Cpl || k == TlpKind::CplD) &&
		   (t.cpl_tag() == 0x80 || t.cpl_tag() == 0x81)) {
		const char *ch = t.cpl_tag() == 0x80 ? "C2H" : "H2C";
		if (t.cpl_status() != CplSC || t.data.size() < 8) {
			snprintf(b, sizeof b, "%s descriptor fetch failed: %s", ch, d.c_str());
		} else {
			const auto &w = t.data; /* PAH PAL HAH HAL BDAH BDAL LENG CTRL */
			snprintf(b, sizeof b, "%s descriptor: board 0x%x host 0x%llx len %u next 0x%llx ctrl 0x%x",
				 ch, (unsigned)w[1], (unsigned long long)(((uint64_t)w[2] << 32) | w[3]),
				 (unsigned)w[6], (unsigned long long)(((uint64_t)w[4] << 32) | w[5]),
				 (unsigned)w[7]);
		}
		tr_->lane(LaneDesc, b);
	}
	if (up && k == TlpKind::Msg)
		tr_->lane(LaneIrq, d);
	else if (up && k == TlpKind::MWr && cfg.msi_enabled() && t.addr() == (cfg.msi_addr() & ~3ull))
		tr_->lane(LaneIrq, "MSI " + d);
}

void Platform::log_tlp(const char *dir, const Tlp &t, uint64_t now)
{
	if (tr_)
		lane_tlp(dir, t);
	if (!tlp_log_)
		return;
	uint64_t rel = now - epoch_;
	fprintf(tlp_log_, "%10llu %10llu.%03llu %-4s %s\n", (unsigned long long)cycle_of(now),
		(unsigned long long)(rel / 1000), (unsigned long long)(rel % 1000), dir,
		t.describe().c_str());
}

void Platform::add_violation(const std::string &s)
{
	violation_count_++;
	if (violations_.size() < 256)
		violations_.push_back(s);
	if (violations_printed_ < 10) {
		violations_printed_++;
		fprintf(stderr, "abbsim: %s\n", s.c_str());
	}
	if (tlp_log_)
		fprintf(tlp_log_, "# violation: %s\n", s.c_str());
	if (tr_) {
		tr_->lane(LaneErr, s);
		rec_trigger("protocol error: " + s);
	}
}

void Platform::cfg_changed()
{
	hip_.apply_cfg(now_);
	rc.set_limits(code_size(cfg.mps_code()), code_size(cfg.mrrs_code()));
}

/* ---------- the process-wide instance ---------- */

static std::mutex g_start_mu;
static std::condition_variable g_start_cv;
static Platform *g_plat = nullptr;
static int g_start_rc = 0;
static std::string g_start_err;
static bool g_starting = false;

static void *sim_thread(void *)
{
	Platform *p = nullptr;
	try {
		setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
		p = new Platform("abb_platform");
	} catch (const std::exception &e) {
		std::lock_guard<std::mutex> g(g_start_mu);
		g_start_rc = -EIO;
		g_start_err = std::string("cannot build the simulated board: ") + e.what();
		g_start_cv.notify_all();
		return nullptr;
	}
	{
		std::lock_guard<std::mutex> g(g_start_mu);
		g_plat = p;
		g_start_cv.notify_all();
	}
	for (;;) {
		{
			std::unique_lock<std::mutex> lk(p->mu);
			p->cv_sim.wait(lk, [p] { return p->want_run; });
		}
		try {
			sc_core::sc_start();
		} catch (const std::exception &e) {
			std::lock_guard<std::mutex> lk(p->mu);
			p->broken = true;
			p->broken_why = std::string("SystemC: ") + e.what();
			p->want_run = false;
		}
		std::lock_guard<std::mutex> lk(p->mu);
		if (p->broken && p->want_run) {
			/* The kernel cannot run again: fail whoever waits. */
			p->want_run = false;
		}
		if (p->broken)
			break;
	}
	/* Broken: answer posted work with errors forever. */
	for (;;) {
		std::unique_lock<std::mutex> lk(p->mu);
		p->cv_sim.wait(lk, [p] { return p->want_run; });
		p->want_run = false;
	}
	return nullptr;
}

/* At process exit, finish the FST and TLP log files of a program that never
 * called abbsim_close, if the simulation thread is parked (it then touches
 * nothing). */
static void close_at_exit()
{
	Platform *p = g_plat;
	if (!p || !p->mu.try_lock())
		return;
	if (!p->want_run && p->is_open)
		p->do_close();
	if (!p->want_run)
		p->finish_traces();
	p->mu.unlock();
}

int platform_get(Platform **out)
{
	std::unique_lock<std::mutex> lk(g_start_mu);
	if (!g_plat && !g_start_rc && !g_starting) {
		g_starting = true;
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_t th;
		int e = pthread_create(&th, &attr, sim_thread, nullptr);
		pthread_attr_destroy(&attr);
		if (!e)
			atexit(close_at_exit);
		if (e) {
			g_start_rc = -e;
			g_start_err = std::string("cannot start the simulation thread: ") + strerror(e);
		}
	}
	g_start_cv.wait(lk, [] { return g_plat || g_start_rc; });
	if (g_start_rc)
		return fail(g_start_rc, "%s", g_start_err.c_str());
	*out = g_plat;
	return 0;
}

} // namespace abbsim
