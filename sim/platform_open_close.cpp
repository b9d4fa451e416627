/*
 * platform_open_close.cpp - the board's life cycle on the simulation
 * thread: abbsim_open (every part reset, the RTL for the clock, hot reset,
 * enumeration, the TLP log and waveform windows asked for), abbsim_close
 * (the link drained first, capped, then the board torn down), and the hot
 * reset a surprise link down (link injection) causes.
 */
#include "platform.h"

#include <cerrno>
#include <cstdio>

namespace abbsim {

/* Hot reset: rst_ni low for this many user-clock cycles. */
static constexpr unsigned ResetCycles = 16;

void Platform::do_open(const OpenArgs &a, Waiter &w)
{
	for (auto &o : waiters_)
		finish(*o, -ECANCELED, "the board was reset by abbsim_open");
	waiters_.clear();
	do_close();
	params = a.p;
	params.clk_mhz = abbsim_clk_mhz(&params); /* auto resolved: read back as in effect */
	clk_.set_mhz(params.clk_mhz);
	q_.clear();
	link_gen_++;
	inject_.clear();
	up_.reset(params, Link::from_params(params.credits_up));
	down_.reset(params, Link::from_params(params.credits_down));
	rc.reset(params);
	mmu.reset(params.iova_scatter, params.seed);
	/* the RTL verilated for this clock, with tracing compiled in only when
	 * this open may write a waveform of it (rtl_model.h); a trace file
	 * still open (a DMA or test window) ends with the RTL model it traced */
	bool traced = a.traced_model();
	bool other = hip_.rtl_clk_ns() != rtl_clk_ns(clk_.mhz) || hip_.rtl_traced() != traced;
	if (other && trace_.file_on())
		trace_.file_close("another RTL model: the clock or the tracing changed");
	if (!hip_.select_model(clk_.mhz, traced)) {
		w.result = -ENOTSUP;
		w.error = "this libabbsim has no traced RTL model (built with SIM_TRACE=0)";
		return;
	}
	if (other) /* the flight recorder follows the new model (Tracer::rebind) */
		trace_.rebind();
	hip_.set_record(a.stim_path, a.coverage_base);
	hip_.reset();
	hip_.set_strict(params.strict != 0);
	hip_.set_board_cfg(board_cfg_word(params));
	/* bus/device/function the root complex gives the endpoint: bus
	 * params.board (1 by default: 0x0100), device 0, function 0 */
	cfg.reset(params, (uint16_t)(params.board << 8));
	hip_.apply_cfg(clk_.now);
	hip_.half_ps = 500000u / clk_.mhz;
	trace_.set_half(hip_.half_ps);
	/* the flight recorder: armed before the reset edges (its shadow model
	 * sees every edge the real one does from now on) */
	if (a.on_error && !a.trace_path.empty())
		trace_.arm_recorder(a.on_error, a.trace_path,
				    a.dma_from || !a.test.empty() || a.trace_from || a.trace_to, !ever_opened_);
	ever_opened_ = true;
	/* Hot reset on the new clock grid. */
	clk_.epoch = clk_.now;
	clk_.cycle = 0;
	hip_.set_reset(true);
	for (unsigned i = 1; i <= ResetCycles; i++) {
		hip_.edge(clk_.edge_time(i), 0);
	}
	hip_.set_reset(false);
	clk_.now = clk_.edge_time(ResetCycles);
	clk_.epoch = clk_.now;
	trace_.set_cycle(0);
	hip_.epoch = clk_.epoch;
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
		trace_.content_window(a.trace_path, a.dma_from, a.dma_to, a.test);
	} else if (!a.trace_path.empty() && !a.on_error &&
		   (rc_ = do_trace(a.trace_path, a.trace_from, a.trace_to, err))) {
		w.result = rc_;
		w.error = err;
		return;
	}
	notes_wanted_pub.store(trace_.notes_wanted());
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
				 (unsigned long long)clk_.cycle_of(clk_.now), down_.pending(), up_.pending(),
				 hip_.idle() ? "" : ", the board busy (a DMA running?)");
		else
			snprintf(msg, sizeof msg, "abbsim_close: every TLP delivered, the board still busy "
				 "after %lld ns of device time (cycle %llu; a DMA running or waiting for a "
				 "completion?); closed", (long long)close_drain_ns(),
				 (unsigned long long)clk_.cycle_of(clk_.now));
		/* stderr only when writes were lost */
		if (left)
			fprintf(stderr, "abbsim: %s\n", msg);
		trace_.error_note(msg);
	}
	do_close();
	publish();
}

void Platform::do_close()
{
	trace_.board_closed();
	hip_.stim_close();
	is_open = false;
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
		 (unsigned long long)clk_.cycle_of(now), (unsigned long long)ns,
		 (unsigned long long)clk_.cycle_of(now + ns * 1000));
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
	trace_.fault_note(0, "LINK_UP: link up, the device left reset (config space restored)", now);
}

} // namespace abbsim
