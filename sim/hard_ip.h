/*
 * hard_ip.h - the endpoint's PCIe hard block around the RTL: owns the
 * Verilator model of abb_top, feeds it the configuration inputs, delivers
 * downstream TLPs as beats (BAR decode; unsupported requests answered UR
 * here), assembles the RTL's transmit beats into TLPs for the upstream link
 * (with a bounded transmit buffer as back-pressure), turns the irq_o level
 * into legacy INTx messages (Assert_INTA when the level rises, Deassert_INTA
 * when it falls; none while Command.Interrupt Disable is set) or, with MSI
 * enabled, into one MSI write per rising edge; either is posted and ordered
 * after the TLPs already accepted. It mirrors the level into Status.Interrupt
 * Status. One call of edge() is one rising edge of the user clock; while a
 * waveform is written or recorded it calls the waveform writer (tr, owned
 * by the trace control, sim/trace_control.h) around the evals.
 */
#ifndef ABBSIM_HARD_IP_H
#define ABBSIM_HARD_IP_H

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cfg_space.h"
#include "event_queue.h"
#include "link.h"
#include "model_inputs.h"
#include "rtl_model.h"
#include "stim_rec.h"
#include "tlp.h"
#include "trace.h"

class VerilatedContext;

namespace abbsim {

/* abb_top's board_cfg_i from a checked parameter set (params.cpp) */
uint64_t board_cfg_word(const abbsim_params &p);

class HardIp {
public:
	/* Transmit buffer of the hard block: a new TLP from the RTL is taken
	 * only while fewer bytes than this wait for the serialiser. */
	static constexpr size_t TxBufferBytes = 2048;

	HardIp(EventQueue &q, Link &up, Link &down, CfgSpace &cfg);
	~HardIp();

	/* The RTL built for this user clock (rtl_model.h), traced (tracing
	 * compiled in) or not: a new model when the clock needs another build
	 * or the kind changes (before reset(), at open). false: no traced
	 * model in this library (rtl_traced_available()); nothing changed.
	 * A waveform of the old model must be closed first, and the waveform
	 * writer rebound to the new one after (TraceControl::rebind). */
	bool select_model(unsigned clk_mhz, bool traced);
	RtlModel &model() { return *top_; }
	unsigned rtl_clk_ns() const;
	bool rtl_traced() const;

	/* Drops every buffered TLP; the RTL reset is driven by set_reset. */
	void reset();
	/* What the next resets record (abbsim_record): the RTL port record
	 * (stim_rec.h; "" none) and, in a coverage build, where the coverage
	 * counters go ("" keeps the last). */
	void set_record(const std::string &stim_path, const std::string &coverage_base);
	void set_reset(bool active);
	/* Copies command/MPS/MRRS/MSI state from the config space to the RTL;
	 * sends the INTx message a change of Interrupt Disable or MSI enable
	 * calls for (at time now). */
	void apply_cfg(uint64_t now);
	/* Strict mode input of the RTL (abbsim_params.strict). */
	void set_strict(bool on);
	/* board_cfg_i: the board profile's DDR2 timing and endpoint limits
	 * (board_cfg_word, params.cpp); 0 = the default board */
	void set_board_cfg(uint64_t w);

	/* A TLP arrived on the downstream link at time now. */
	void on_downstream(Tlp &&t, uint64_t now);

	/* One rising edge at time t (absolute ps); skip = cycles the platform
	 * skipped before it. */
	void edge(uint64_t t, uint32_t skip);
	/* Nothing to do but count: idle_o, no beat waiting or in transfer. */
	bool idle() const { return idle_o_ && rx_.empty() && !tx_in_tlp_ && !tx_valid_; }

	/* The waveform writer (sim/trace.h), set by the trace control while it
	 * has work per edge, else null (the only cost then). */
	Tracer *tr = nullptr;

	/* stim (abbsim_record): the port record for a replay (stim_rec.h); mark = the
	 * TLP log was opened at this cycle (pub: the
	 * count abbsim_cycles() reads then). */
	void stim_mark(uint64_t cycle, uint64_t pub)
	{
		if (rec_)
			rec_->mark(cycle, pub);
	}
	void stim_close() { rec_.reset(); } /* the board is closed */

	std::function<void(const char *dir, const Tlp &t, uint64_t now)> log; /* may be empty */
	std::function<void(const std::string &)> violation;
	uint64_t half_ps = 4000; /* half a clock period, for the trace */
	uint64_t epoch = 0;      /* trace time 0 (ps) */

private:
	void rx_done(uint64_t now);
	void tx_beat(uint64_t data, bool sop, bool eop, uint64_t now);
	void tx_tlp(uint64_t now);
	/* Interrupt messages, in the order the level asked for them. */
	enum IrqMsg : uint8_t { IrqMsi, IrqAssert, IrqDeassert };
	/* The RTL's interrupt level is now level (or the config changed). */
	void irq_update(bool level, uint64_t now);
	void irq_emit(IrqMsg m, uint64_t now);
	void irq_send(IrqMsg m, uint64_t now);
	bool tx_accept() const;
	/* tx_buf_av_i of the RTL: free 128-byte units of the transmit buffer
	 * (as the trn_tbuf_av of Xilinx endpoint blocks counts free TLP
	 * buffers), at most 63. */
	uint8_t tx_buf_av() const;

	EventQueue &q_;
	Link &up_, &down_;
	CfgSpace &cfg_;
	std::unique_ptr<VerilatedContext> ctx_;
	std::unique_ptr<RtlModel> top_;
	ModelInputs inputs_; // the inputs abb_sim_top holds (model_inputs.h)
	std::unique_ptr<StimRec> rec_;
	std::string stim_path_;
	bool rec_irq_ = false;
	void stim_in();

	std::deque<Tlp> rx_; /* bar set: the BAR hit */
	size_t rx_beat_ = 0;
	std::vector<uint64_t> tx_beats_;
	bool tx_in_tlp_ = false, tx_valid_ = false, idle_o_ = false;
	/* the combinational pass after the last clock edge was left out: the
	 * model's outputs are not the new state's (edge, refresh) */
	bool stale_ = false;
	void refresh();
	std::vector<IrqMsg> irq_after_tlp_; /* wait for the TLP being received from the RTL */
	bool irq_lvl_ = false; /* irq_o at the last edge */
	bool in_reset_ = false; /* rst_ni low: irq_o is not looked at (old state until the first edge) */
	bool intx_on_ = false; /* Assert_INTA sent, Deassert_INTA not yet */
	/* config shadows */
	bool mem_en_ = false, master_ = false, msi_en_ = false, intx_dis_ = false;
	uint32_t bar_lo_[2] = {}, bar_sz_[2] = {};
	uint64_t msi_addr_ = 0;
	uint16_t msi_data_ = 0, bdf_ = 0;
};

} // namespace abbsim
#endif
