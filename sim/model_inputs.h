/*
 * model_inputs.h - the sample strobe of the verilated top (sim/abb_sim_top.sv).
 *
 * abb_sim_top holds abb_top's data and configuration inputs in registers
 * loaded on a rising edge of smp_i. The cycle loop calls model_sample()
 * after setting a cycle's inputs and before its clock-low eval(), and
 * model_sample_done() after that eval(): when any input differs from the
 * values sampled last, smp_i rises and the registers take the new values;
 * when none does, the clock-low eval() triggers nothing and costs next to
 * nothing (Verilator then does not re-run the combinational logic). Either
 * way abb_top sees, from the clock-low eval() to the rising clock edge,
 * exactly the inputs the loop set (cycle-identical to driving them directly).
 *
 * A model without smp_i (the RTL of an older revision, make sim-speed
 * BASELINE=) is driven directly: both calls do nothing.
 */
#ifndef ABBSIM_MODEL_INPUTS_H
#define ABBSIM_MODEL_INPUTS_H

#include <cstdint>
#include <cstring>

namespace abbsim {

// every input of abb_top except clk_i and rst_ni (rst_ni is not sampled)
struct ModelInputs {
	static constexpr int N = 16;
	uint64_t v[N];
	bool valid = false;
};

// board_cfg_i where the model has it (a baseline RTL of make sim-speed
// BASELINE= older than the board profile has not: the default board, 0)
template <class M> auto board_cfg_of(M &m, int) -> decltype(uint64_t(m.board_cfg_i)) { return m.board_cfg_i; }
template <class M> uint64_t board_cfg_of(M &, long) { return 0; }
template <class M> auto board_cfg_set(M &m, uint64_t v, int) -> decltype(m.board_cfg_i = v, void())
{
	m.board_cfg_i = v;
}
template <class M> void board_cfg_set(M &, uint64_t, long) {}

template <class M> auto sample_impl(M &m, ModelInputs &last, bool force, int) -> decltype(m.smp_i = 1, void())
{
	/* forced: the strobe rises whatever the inputs are, so they are not
	 * compared (the deferred pass forces every busy cycle); the next
	 * unforced sample then finds no record and strobes once more (the
	 * same inputs loaded again change nothing) */
	if (force) {
		last.valid = false;
		m.smp_i = 1;
		return;
	}
	const uint64_t now[ModelInputs::N] = {
		m.cfg_bus_master_en_i, m.cfg_max_payload_i, m.cfg_max_read_req_i, m.cfg_req_id_i,
		m.cfg_msi_en_i, m.cfg_mem_bits_i, m.strict_i, m.rx_valid_i, m.rx_sop_i, m.rx_eop_i,
		m.rx_data_i, m.rx_bar_i, m.tx_ready_i, m.tx_buf_av_i, m.skip_cycles_i,
		board_cfg_of(m, 0),
	};
	// compare first, copy only on a change (this runs every cycle)
	bool same = last.valid && std::memcmp(now, last.v, sizeof now) == 0;
	if (!same) {
		std::memcpy(last.v, now, sizeof now);
		last.valid = true;
	}
	m.smp_i = !same;
}

template <class M> auto done_impl(M &m, int) -> decltype(m.smp_i = 0, void()) { m.smp_i = 0; }

// models without the strobe
template <class M> void sample_impl(M &, ModelInputs &, bool, long) {}
template <class M> void done_impl(M &, long) {}

/* force: raise smp_i even with the inputs unchanged (the combinational
 * logic is to be evaluated: the deferred pass, sim/hard_ip.cpp) */
template <class M> void model_sample(M &m, ModelInputs &last, bool force = false)
{
	sample_impl(m, last, force, 0);
}
template <class M> void model_sample_done(M &m) { done_impl(m, 0); }

} // namespace abbsim

#endif
