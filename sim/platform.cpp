/*
 * platform.cpp - the Platform object and its cycle loop: the parts wired
 * together, the edges of the user clock with the link and root-complex
 * events between them, idle-cycle skipping, protocol errors.
 */
#include "platform.h"

namespace abbsim {

/* Non-idle cycles between two looks at the mailbox and the waiters. */
static constexpr uint64_t BatchCycles = 16384;

Platform::Platform(sc_core::sc_module_name name)
	: sc_core::sc_module(name), rc(q_, down_, up_, mmu), up_(q_, "up"), down_(q_, "down"),
	  hip_(q_, up_, down_, cfg)
{
	SC_THREAD(main_thread);
	set_stack_size(16u << 20);
	up_.deliver = [this](Tlp &&t, uint64_t now) { rc.on_upstream(std::move(t), now); };
	down_.deliver = [this](Tlp &&t, uint64_t now) {
		if (t.cpu_store)
			rc.cpu.arrived(t.payload_bytes(), now);
		hip_.on_downstream(std::move(t), now);
	};
	down_.on_drain = [this](uint64_t now) { rc.feed(now); };
	rc.wake = [this] { wake_ = true; };
	rc.cycle_of = [this](uint64_t t) { return clk_.cycle_of(t); };
	rc.violation = [this](const std::string &s) { add_violation("root complex: " + s); };
	hip_.violation = [this](const std::string &s) { add_violation(s); };
	auto fc = [this](const std::string &s, uint64_t t) {
		add_violation("cycle " + std::to_string(clk_.cycle_of(t)) + ": " + s);
	};
	up_.violation = fc;
	down_.violation = fc;
	mmu.on_fault = [this](const abbsim_fault &f) { trace_.iommu_fault(f); };
	trace_.on_error = [this](const std::string &s) { add_violation(s); };
	/* link injection at both transmitters */
	down_.tap = [this](Tlp &t, uint64_t now, std::function<void(uint64_t)> &st) {
		return inject_.on_submit(0, down_, t, now, st);
	};
	up_.tap = [this](Tlp &t, uint64_t now, std::function<void(uint64_t)> &st) {
		return inject_.on_submit(1, up_, t, now, st);
	};
	inject_.note = [this](unsigned dir, const std::string &w, uint64_t now) {
		trace_.fault_note(dir, w, now);
	};
	inject_.link_down = [this](uint64_t now, uint64_t ns) { link_down(now, ns); };
	inject_.end_read = [this](unsigned dir, unsigned tag) {
		if (dir == 0)
			rc.end_read(tag);
	};
	inject_.free_tag = [this](unsigned dir, unsigned orig) -> unsigned {
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

/* (the trace control finishes the waveform and the TLP log) */
Platform::~Platform() {}

void Platform::edge(uint64_t n, uint64_t t)
{
	if (Tracer *tr = trace_.active()) {
		Credits u = up_.credits_free(), d = down_.credits_free();
		int32_t cu[6] = {u.hdr[0], u.data[0], u.hdr[1], u.data[1], u.hdr[2], u.data[2]};
		int32_t cd[6] = {d.hdr[0], d.data[0], d.hdr[1], d.data[1], d.hdr[2], d.data[2]};
		tr->credits(cu, cd);
	}
	hip_.edge(t, (uint32_t)(n - clk_.cycle - 1));
	clk_.cycle = n;
	clk_.now = t;
}

bool Platform::run_cycles()
{
	wake_ = false;
	const uint64_t batch_end = clk_.cycle + BatchCycles;
	uint64_t n = clk_.cycle + 1;
	/* A jump over quiet cycles that an event woke from before its edge
	 * (below: return with wake_) left device time past the edges it
	 * skipped: they stay skipped (the RTL was idle and nothing arrived
	 * before the event); the next edge is the first one not before
	 * device time, never one in the past (which showed the RTL a TLP
	 * before it arrived). Only on entry: after an edge, device time is
	 * that edge's. */
	if (clk_.now > clk_.edge_time(n))
		n = clk_.first_edge_at(clk_.now);
	while (!wake_ && !mail_flag_.load(std::memory_order_relaxed)) {
		if (!hip_.idle()) {
			idle_run_ = 0;
		} else {
			/* Quiet RTL: jump to the first edge at or after the next
			 * event (or the trace window switch). */
			uint64_t ne = q_.next();
			uint64_t m;
			if (ne == EventQueue::Never) {
				if (trace_.switch_cycle() == UINT64_MAX || idle_waiters_)
					return idle_waiters_ ? (wake_ = true) : false;
				m = trace_.switch_cycle();
			} else {
				m = clk_.first_edge_at(ne);
			}
			if (trace_.switch_cycle() > clk_.cycle && m > trace_.switch_cycle())
				m = trace_.switch_cycle();
			/* traced: the first Tracer::IdleDraw cycles of a quiet
			 * stretch are real edges (the clock and the cycle
			 * counter keep going in the picture); then it jumps */
			if (trace_.active() && m > n && idle_run_ < Tracer::IdleDraw) {
				m = n;
				idle_run_++;
			}
			if (m - clk_.cycle - 1 > UINT32_MAX)
				m = clk_.cycle + 1 + UINT32_MAX;
			if (m > n)
				n = m;
		}
		uint64_t t = clk_.edge_time(n);
		while (q_.next() <= t) {
			clk_.now = q_.next();
			q_.run_one();
			if (wake_)
				return true;
		}
		edge(n, t);
		if (n >= trace_.switch_cycle())
			trace_.switch_window();
		if (idle_waiters_ && quiet())
			wake_ = true;
		if (n >= batch_end)
			break;
		n = clk_.cycle + 1;
	}
	return true;
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
	trace_.violation(s);
}

void Platform::cfg_changed()
{
	hip_.apply_cfg(clk_.now);
	rc.set_limits(code_size(cfg.mps_code()), code_size(cfg.mrrs_code()));
}

} // namespace abbsim
