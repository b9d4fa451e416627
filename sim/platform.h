/*
 * platform.h - the simulated board and its time control.
 *
 * One Platform per process (SystemC has one kernel per process). A dedicated
 * simulation pthread owns the SystemC kernel: it constructs the Platform
 * module and calls sc_start() whenever some host thread waits on the
 * device. The Platform's SC_THREAD runs the Verilator model in a tight
 * loop of rising edges and the link/root-complex events (integer
 * picoseconds) between them, loosely timed: SystemC time follows the
 * platform's time only in quanta and at every stop, as with a TLM quantum
 * keeper, so the kernel stays off the per-cycle path. When no host thread
 * waits, the thread calls sc_pause() and time stands still (lockstep); with
 * the free-running clock (clock=free) it runs on while the board is open.
 *
 * Host threads never touch simulation state directly: they post closures
 * to a mailbox (run by the simulation thread, under the platform mutex, in
 * posting order) and block on their own Waiter until its condition holds.
 */
#ifndef ABBSIM_PLATFORM_H
#define ABBSIM_PLATFORM_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <systemc>

#include "abbsim.h"
#include "cfg_space.h"
#include "device_clock.h"
#include "enumerate.h"
#include "event_queue.h"
#include "inject.h"
#include "hard_ip.h"
#include "iommu.h"
#include "link.h"
#include "root_complex.h"
#include "trace_control.h"

namespace abbsim {

/* abbsim_poll_reg's state (simulation thread; abbsim.h has the schedule). */
struct PollState {
	uint64_t addr = 0;     /* host address of the register */
	uint32_t mask = 0, busy = 0;
	uint64_t deadline_ns = UINT64_MAX; /* device time since the epoch */
	unsigned spin = 0, nap_div = 0;
	uint64_t nap = 0, nap_max = 0;     /* the next pause, its cap (ns) */
	uint64_t first_ns = 0;
	uint64_t reads = 0;
	uint32_t value = 0xffffffffu;
	bool napping = false;              /* a pause's timer is set */
	std::shared_ptr<abbsim::PioRead> pio; /* the read in flight */
};

/* A host thread blocked on the device. */
struct Waiter {
	enum Kind { Open, PioRead, Irq, Advance, Idle, Call, Close, Poll } kind;
	explicit Waiter(Kind k) : kind(k) {}
	int64_t timeout_ns = -1;         /* device time; < 0: none */
	bool deadline_hit = false;
	std::shared_ptr<bool> deadline_live; /* cleared when done: the timer is dropped */
	uint64_t irq_seen = 0;
	std::shared_ptr<abbsim::PioRead> pio;
	std::shared_ptr<PollState> poll;
	/* TLPs on the link but the poll's own reads (the watchdog's progress;
	 * Poll only, -1: count all) */
	int64_t foreign_tlps = -1;
	/* result, under the platform mutex */
	bool done = false, abandoned = false;
	int result = 0;
	std::string error;
	std::condition_variable cv;
};

struct OpenArgs {
	abbsim_params p;
	std::string trace_path, log_path;
	uint64_t trace_from = 0, trace_to = 0;
	/* windows by content (sim/trace.h): DMAs dma_from..dma_to (from 1;
	 * 0: none), one test, the flight recorder's K cycles (0: off) */
	uint64_t dma_from = 0, dma_to = 0;
	std::string test;
	uint64_t on_error = 0;
	std::string stim_path, coverage_base; /* abbsim_record.stim, .coverage */
	/* whether this open runs the RTL with tracing compiled in: asked for
	 * (traceable), or a waveform of the real model may be written (a cycle
	 * window or one by content; the flight recorder alone traces its own
	 * shadow model, sim/trace.h) */
	bool traced_model() const
	{
		return p.traceable || (!trace_path.empty() && (dma_from || !test.empty() || !on_error ||
							       trace_from || trace_to));
	}
};

/* The board, the link, the root complex and the time control; the
 * simulation thread's work is split by job: the cycle loop (platform.cpp),
 * the hand-off with host threads (platform_lockstep.cpp), the free-running
 * clock (platform_freerun.cpp), open and close (platform_open_close.cpp), the process-wide instance and its thread
 * (sim_thread.cpp); what is recorded of a run is the trace control's
 * (trace_control.h). */
class Platform : public sc_core::sc_module {
public:
	SC_HAS_PROCESS(Platform);
	explicit Platform(sc_core::sc_module_name name);
	~Platform() override;

	/* --- called by host threads with mu held (platform_lockstep.cpp) --- */
	/* Queues fn for the simulation thread (run in order, mu held). */
	void post(std::function<void()> fn);
	/* Posts fn, registers w, lets time run until w is done (or the
	 * watchdog fires); returns w->result. lk holds mu. */
	int wait_for(std::unique_lock<std::mutex> &lk, std::shared_ptr<Waiter> w,
		     std::function<void()> fn);

	/* --- state the host reads with mu held (published at boundaries) --- */
	bool is_open = false;
	bool opening = false; /* an abbsim_open is under way (claimed under mu) */
	bool broken = false;
	std::string broken_why;
	abbsim_params params{};
	Enumerated bars;
	CfgSpace cfg;
	Iommu mmu;
	struct abbsim_link_stats stats_pub[2] = {};
	std::vector<std::string> violations_pub;
	uint64_t violation_count_pub = 0;
	std::atomic<uint64_t> now_pub{0}, cycles_pub{0}, irq_pub{0};
	std::atomic<bool> intx_pub{false};
	std::atomic<bool> notes_wanted_pub{false}; /* abbsim_trace_note has something to do */
	uint64_t pio_stores_unchecked = 0; /* abbsim_pio_store: stores posted since the backlog check */

	/* --- simulation thread only (via posted closures) --- */
	/* open and close (platform_open_close.cpp) */
	void do_open(const OpenArgs &a, Waiter &w);
	void do_close();
	/* abbsim_close: the device time the link may take to drain first */
	int64_t close_drain_ns() const;
	/* the config space was written: its state to the hard IP and the
	 * root complex (platform.cpp) */
	void cfg_changed();
	/* tracing (trace_control.h) */
	int do_trace(const std::string &path, uint64_t from, uint64_t to, std::string &err)
	{
		int r = trace_.cycle_window(path, from, to, err);
		if (!r)
			notes_wanted_pub.store(true);
		return r;
	}
	int do_tlp_log(const std::string &path, std::string &err)
	{
		return trace_.log_open(path, params, bars, err);
	}
	/* A note from the host (abbsim_trace_note): a text lane entry, a DMA
	 * or test boundary (window, markers, recorder trigger). */
	void do_note(unsigned kind, unsigned channel, const std::string &text)
	{
		trace_.note(kind, channel, text);
	}
	/* Finishes every waveform (process exit). */
	void finish_traces() { trace_.finish(); }
	/* link injection (sim/inject.h) */
	int inject_add(const abb_sim_inject_spec &s, std::string &err) { return inject_.add(s, err); }
	void inject_clear() { inject_.clear(); }
	int64_t inject_hits(int id) const { return inject_.hits(id); }

	RootComplex rc;
	uint64_t abs_now() const { return clk_.now; }

	/* Synchronisation shared with the simulation pthread. */
	std::mutex mu;
	std::condition_variable cv_sim;
	bool want_run = false;

private:
	/* the cycle loop (platform.cpp) */
	bool run_cycles();
	void edge(uint64_t n, uint64_t t);
	bool quiet() const { return hip_.idle() && up_.quiet() && down_.quiet() && rc.quiet(); }
	void add_violation(const std::string &s);
	/* lockstep (platform_lockstep.cpp) */
	void main_thread(); /* SC_THREAD */
	void run();
	void sync_sc_time();
	void settle_waiters();
	void publish();
	void register_waiter(const std::shared_ptr<Waiter> &w);
	/* abbsim_poll_reg (platform_lockstep.cpp): the next step of a poll;
	 * true when it is finished */
	bool poll_step(const std::shared_ptr<Waiter> &w);
	void poll_timer(const std::shared_ptr<Waiter> &w, uint64_t ns);
	void finish(Waiter &w, int result, const std::string &err = "");
	/* the free-running clock (platform_freerun.cpp): run() hands over to
	 * run_free while the open board has clock=free */
	bool free_running() const { return is_open && params.clock_free && !broken; }
	void run_free(std::unique_lock<std::mutex> &lk);
	std::shared_ptr<bool> free_tick_live_; /* the pacing timer of a quiet board */
	/* open and close (platform_open_close.cpp) */
	void close_drained(bool cap_hit);
	void link_down(uint64_t now, uint64_t ns);
	void link_up(uint64_t now);

	EventQueue q_;
	Link up_, down_;
	HardIp hip_;
	Injector inject_{q_};
	DeviceClock clk_;
	TraceControl trace_{hip_, cfg, clk_};
	uint64_t link_gen_ = 0; /* a link-up event of before a reopen is void */
	std::vector<std::function<void()>> mail_;
	std::atomic<bool> mail_flag_{false};
	std::list<std::shared_ptr<Waiter>> waiters_;
	bool wake_ = false;
	bool idle_waiters_ = false;
	uint64_t idle_run_ = 0; /* quiet cycles run one by one while traced */
	bool ever_opened_ = false;
	std::vector<std::string> violations_;
	uint64_t violation_count_ = 0;
	unsigned violations_printed_ = 0;
};

/* The process-wide platform; started on first use (0 or -errno). */
int platform_get(Platform **out);

} // namespace abbsim
#endif
