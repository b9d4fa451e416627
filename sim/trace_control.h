/*
 * trace_control.h - what the platform records of a run, and when: owns the
 * waveform writer (Tracer, sim/trace.h) and the TLP log, opens and closes
 * the waveform's windows (by cycle, by DMA, by test), fires the flight
 * recorder's triggers (a DMA that ends in error, a failed test, a protocol
 * error) and writes the text lanes: the host's notes (abbsim_trace_note),
 * decoded TLPs, descriptors, interrupts, faults, errors.
 *
 * Every call runs on the simulation thread. The cycle loop looks at two
 * things per cycle, both inline: active() (the Tracer that has work per
 * edge, else null) and switch_cycle() (the edge at which a cycle window
 * opens or closes, else UINT64_MAX). The same Tracer pointer is handed to
 * the hard IP (HardIp::tr), which calls it per edge.
 */
#ifndef ABBSIM_TRACE_CONTROL_H
#define ABBSIM_TRACE_CONTROL_H

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "abbsim.h"
#include "cfg_space.h"
#include "device_clock.h"
#include "enumerate.h"
#include "hard_ip.h"
#include "tlp.h"
#include "trace.h"

namespace abbsim {

class TraceControl {
public:
	/* Builds the waveform writer for hip's current model. */
	TraceControl(HardIp &hip, const CfgSpace &cfg, const DeviceClock &clk);
	/* Finishes a waveform still open and the TLP log. */
	~TraceControl();

	/* --- per cycle (inline) --- */
	Tracer *active() const { return tr_; }
	uint64_t switch_cycle() const { return switch_; }
	/* The edge switch_cycle() has been run: opens or closes the cycle window. */
	void switch_window();

	/* --- around a change of the RTL model (at open) --- */
	bool file_on() const { return tracer_->file_on(); }
	/* Ends the waveform being written (a summary line on stderr); before
	 * a new model, the old one's. */
	void file_close(const char *why);
	/* hip replaced its model (HardIp::select_model): trace the new one. */
	void rebind() { tracer_->rebind(hip_.model()); }
	void set_half(uint64_t half_ps) { tracer_->set_half(half_ps); }
	void set_cycle(uint64_t c) { tracer_->set_cycle(c); }

	/* --- set up at open (platform_open_close.cpp) or by the host --- */
	/* The flight recorder of K cycles, into the trace path (with
	 * "-error" before ".fst" when a window writes that path too); exact:
	 * this is the first open of the process. */
	void arm_recorder(uint64_t k, const std::string &trace_path, bool with_window, bool exact);
	/* A window by content (DMAs dma_from..dma_to, or test): kept across
	 * opens (a test may reopen), so only a changed one starts anew. */
	void content_window(const std::string &path, uint64_t dma_from, uint64_t dma_to,
			    const std::string &test);
	/* abbsim_trace_fst: the cycle window [from, to) (to 0: until close). */
	int cycle_window(const std::string &path, uint64_t from, uint64_t to, std::string &err);
	/* abbsim_tlp_log: the TLP log (its header line names the link and the
	 * clock); marks the port record (HardIp::stim_mark). */
	int log_open(const std::string &path, const abbsim_params &p, const Enumerated &bars,
		     std::string &err);
	/* Whether abbsim_trace_note has something to do. */
	bool notes_wanted() const { return win_ != WinCycles || tracer_->rec_on() || tr_ != nullptr; }

	/* --- at close and exit --- */
	/* The board is closed: a cycle window ends, the TLP log is closed (a
	 * window by content stays for the next open). */
	void board_closed();
	/* Finishes every waveform (process exit). */
	void finish();
	void flush_log()
	{
		if (tlp_log_)
			fflush(tlp_log_);
	}

	/* --- content --- */
	/* A note from the host (abbsim_trace_note): a text lane entry, a DMA
	 * or test boundary (window, markers, recorder trigger). */
	void note(unsigned kind, unsigned channel, const std::string &text);
	/* A protocol error (already counted and printed by the platform):
	 * TLP log, error lane, recorder trigger. */
	void violation(const std::string &s);
	/* A link injection or link event (sim/inject.h) at time now. */
	void fault_note(unsigned dir, const std::string &what, uint64_t now);
	void iommu_fault(const abbsim_fault &f);
	/* A line for the TLP log ("# msg") and the error lane. */
	void error_note(const std::string &msg);

	/* A failure of the trace itself (a file that cannot be opened). */
	std::function<void(const std::string &)> on_error;

private:
	void update();
	void file_open(const char *why);
	void rec_trigger(const std::string &why);
	void log_tlp(const char *dir, const Tlp &t, uint64_t now);
	void lane_tlp(const char *dir, const Tlp &t);

	HardIp &hip_;
	const CfgSpace &cfg_;
	const DeviceClock &clk_;
	std::unique_ptr<Tracer> tracer_;
	Tracer *tr_ = nullptr; /* tracer_ while it has something to do per edge */
	FILE *tlp_log_ = nullptr;
	std::string path_;
	uint64_t from_ = 0, to_ = 0;    /* the cycle window */
	uint64_t switch_ = UINT64_MAX; /* cycle at which to open/close it */
	enum { WinCycles, WinDma, WinTest } win_ = WinCycles;
	std::string win_key_; /* the content window in effect (kept across opens) */
	uint64_t win_dma_from_ = 0, win_dma_to_ = 0, dma_count_ = 0;
	std::string win_test_;
	std::map<unsigned, uint64_t> dma_num_; /* channel -> number of its last DMA */
	bool win_done_ = false;
	std::chrono::steady_clock::time_point win_t0_;
	uint64_t win_c0_ = 0;
	unsigned rec_dumps_ = 0;
};

} // namespace abbsim
#endif
