/*
 * trace.h - the waveform writer: FST of the RTL with text lanes in the
 * same file, and the flight recorder (its windows and triggers: the trace
 * control, sim/trace_control.h).
 *
 * One file to open: the Verilator top (sim/abb_sim_top.sv) has trace-only
 * inputs next to abb_top: a cycle counter and text lanes (wide vectors
 * holding ASCII; the saved view shows them with GTKWave's ASCII format).
 * The trace control (sim/trace_control.h), which owns the Tracer, writes
 * the lanes (Tracer::lane) only while a waveform is being written or
 * recorded; the hot path of a run without tracing sees a
 * null pointer test per edge (HardIp::edge), as before.
 *
 * The RTL model is whichever the platform opened (sim/rtl_model.h: the RTL
 * built for 125 or 250 MHz, each with the wrapper as top).
 *
 * Idle-cycle skipping stays, but while a waveform is written or recorded
 * the first IdleDraw quiet cycles of a stretch are run edge by edge, so
 * the clock and the cycle counter read continuously; only longer idle
 * stretches jump (cycle_i shows the jump).
 *
 * Flight recorder (ABB_TRACE_ON_ERROR=K): a second model of abb_sim_top
 * (the shadow) runs K cycles behind the real one on the recorded inputs of
 * every edge. On a trigger (a DMA that ends in error, a protocol error, a
 * failed test) the shadow replays the last K cycles with tracing into the
 * FST: cost while armed is about one more model evaluation per edge (no
 * FST writing), the FST cost is paid only for the K cycles of a trigger.
 * Armed at the first open of the process the shadow is exact; armed later
 * it starts from a reset model (board memory contents may differ).
 *
 * Each FST gets a GTKWave save file next to it (x.fst -> x.gtkw): signal
 * groups, ASCII lanes, and named markers at the start and end of each DMA
 * in the window (GTKWave has 26: the first 13 DMAs), and the trigger.
 */
#ifndef ABBSIM_TRACE_H
#define ABBSIM_TRACE_H

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

class VerilatedContext;
class VerilatedFstC;

namespace abbsim {

class RtlModel;

enum Lane { LaneApi, LaneTlpDown, LaneTlpUp, LaneDesc, LaneIrq, LaneErr, LaneCount };

class Tracer {
public:
	/* While traced, the platform runs at most this many quiet cycles of a
	 * stretch one by one (the clock and cycle counter keep going in the
	 * picture); the rest of a longer stretch is skipped (a jump in time). */
	static constexpr uint64_t IdleDraw = 20000;

	Tracer(RtlModel &main, uint64_t half_ps);
	~Tracer();

	/* The platform replaced the RTL model (another clock): trace that one.
	 * A file must be closed before; the flight recorder's shadow becomes
	 * a model of the new kind (not exact: armed after the first open). */
	void rebind(RtlModel &main);

	/* Anything to do per edge (HardIp::edge calls edge_pre and dump only
	 * then). */
	bool active() const { return tfp_ || rec_; }

	/* --- the file trace (of the real model) --- */
	int file_open(const std::string &path, uint64_t origin_ps, std::string &err);
	/* Finishes the FST and writes its save file; returns a one-line
	 * summary ("" if no file was open). */
	std::string file_close();
	bool file_on() const { return tfp_ != nullptr; }

	/* --- the flight recorder --- */
	void rec_arm(uint64_t cycles, const std::string &path, bool exact);
	bool rec_on() const { return rec_ != nullptr; }
	/* Writes the recorded cycles (the window up to now) with a marker
	 * naming why; returns a one-line summary. */
	std::string rec_dump(const std::string &why, uint64_t now_ps);

	/* --- per edge, only while active() --- */
	void set_half(uint64_t half_ps) { half_ps_ = half_ps; }
	void set_cycle(uint64_t c) { cycle_ = c; } /* the platform's cycle of the last edge */
	/* The inputs of the edge at t are set, skip cycles were skipped before
	 * it: records them, draws the idle gap. */
	void edge_pre(uint64_t t, uint32_t skip);
	void dump(uint64_t t);

	/* --- content --- */
	/* Free credits (p_hdr p_data np_hdr np_data cpl_hdr cpl_data; < 0: no
	 * limit) of both links, before an edge. */
	void credits(const int32_t up[6], const int32_t down[6]);
	void lane(Lane l, const std::string &text);
	/* Named marker at time now_ps (absolute). */
	void mark(const std::string &name, uint64_t now_ps);

	struct In; /* the inputs of one edge (the recorder's ring) */

private:
	struct LaneEv {
		uint64_t edge;
		unsigned lane;
		std::string text;
	};
	struct Mark {
		uint64_t t;
		std::string name;
	};
	void set_lane_bits(RtlModel &m, unsigned l, const std::string &text);
	void shadow_new();
	void shadow_step(const In &in);
	void write_gtkw(const std::string &fst, const std::vector<Mark> &marks, uint64_t origin,
			uint64_t t_end);

	RtlModel *main_;
	uint64_t half_ps_;
	uint64_t cycle_ = 0;
	uint64_t edge_no_ = 0; /* edges seen while active */
	/* file */
	VerilatedFstC *tfp_ = nullptr;
	std::string path_;
	uint64_t origin_ = 0, last_t_ = 0, dumped_ = 0;
	std::vector<Mark> marks_;
	/* recorder */
	struct Rec;
	std::unique_ptr<Rec> rec_;
};

} // namespace abbsim
#endif
