/*
 * rtl_model.h - the Verilator model of abb_top behind one interface, so the
 * hard IP runs the RTL built for the clock it simulates: ClkNs = 8 (125 MHz,
 * class Vabb_top) or ClkNs = 4 (250 MHz, class Vabb_top250), both verilated
 * from the same sources (sim/sim.mk). The port members are references to
 * the RTL model's own, named as the RTL ports; eval() costs one virtual call.
 * Both are verilated with the wrapper sim/abb_sim_top.sv as top (instance
 * u_abb), which loads abb_top's inputs only when one changed (smp_i); its
 * trace-only inputs (cycle counter, text lanes, credits) are
 * reachable here too, for the waveform writer (sim/trace.h).
 *
 * Each clock's model is built twice (sim/sim.mk): without tracing (classes
 * Vabb_top, Vabb_top250), the one a run gets unless it asks for a waveform,
 * and with --trace-fst (Vabb_top_tr, Vabb_top250_tr, in rtl_model_traced.cpp).
 * Why two: a model verilated with --trace-fst is slower even while nothing
 * is traced (it marks trace activity in every eval() and keeps the
 * wrapper's trace-only logic, which the untraced build drops as dead):
 * 5-10 % of simulation speed (`make trace-cost`). So the cost of tracing
 * that is off is none: the untraced model runs.
 */
#ifndef ABBSIM_RTL_MODEL_H
#define ABBSIM_RTL_MODEL_H

#include <cstdint>
#include <memory>

/* no verilated.h here: the platform's files include SystemC, which it clashes with */
class VerilatedContext;
class VerilatedFstC;

namespace abbsim {

/* Verilator's port types (verilated_types.h) */
using CData = uint8_t;
using SData = uint16_t;
using IData = uint32_t;
using QData = uint64_t;

/* X(type, name) for every port of abb_top (rtl-model/TLP-STREAM.md) */
#define ABBSIM_RTL_PORTS(X)                                                                    \
	X(CData, clk_i) X(CData, rst_ni) X(CData, cfg_bus_master_en_i)                          \
	X(CData, cfg_max_payload_i) X(CData, cfg_max_read_req_i) X(SData, cfg_req_id_i)          \
	X(CData, cfg_msi_en_i) X(CData, cfg_mem_bits_i) X(CData, strict_i) X(CData, rx_valid_i)                     \
	X(CData, rx_ready_o) X(CData, rx_sop_i) X(CData, rx_eop_i) X(QData, rx_data_i)           \
	X(CData, rx_bar_i) X(CData, tx_valid_o) X(CData, tx_ready_i) X(CData, tx_buf_av_i)       \
	X(CData, tx_sop_o) X(CData, tx_eop_o) X(QData, tx_data_o) X(CData, irq_o)                \
	X(CData, idle_o) X(IData, skip_cycles_i) X(QData, board_cfg_i)

/* the wrapper's text lanes: 96 ASCII characters, 24 words each (in the
 * order of sim/trace.h's Lane); the credit vectors: 96 bits, 3 words */
#define ABBSIM_TRACE_LANES(X) \
	X(lane_api_i) X(lane_tlp_down_i) X(lane_tlp_up_i) X(lane_desc_i) X(lane_irq_i) X(lane_err_i)
static constexpr unsigned RtlLaneWords = 24, RtlLaneCount = 6, RtlCreditWords = 3;

class RtlModel {
public:
	virtual ~RtlModel() {}
	virtual void eval() = 0;
	/* Instead of a clock-low eval that would trigger nothing (smp_i low):
	 * clk_i = 0 as that eval leaves it; false: not possible, eval (only
	 * for a deferrable model, sim/hard_ip.cpp) */
	virtual bool clock_low_idle() = 0;
	virtual void final() = 0;
	/* only on a traced model (traced == true); a no-op on the others */
	virtual void trace(VerilatedFstC *tfp, int levels) = 0;

	const unsigned clk_ns; /* the ClkNs the RTL model was verilated with */
	const bool traced;     /* verilated with --trace-fst: trace() writes FST */
	/* edited by sim/defer_comb.py: defer_i = 1 leaves out the
	 * combinational pass of a clock-high eval (sim/hard_ip.cpp) */
	bool deferrable = false;
	/* The cycle loop's eval of a deferrable model: the generated root's
	 * evaluation itself, without eval_step's per-call runtime work (its
	 * initialisation is done by the first eval(); thread-local MTask id
	 * and the message queue of other threads' $display: the model is run
	 * by one thread and has no $display after its initial blocks): its
	 * _eval_direct where sim/defer_comb.py could add one (the NBA region
	 * once, without the scheduler's trigger vectors and loops), else its
	 * _eval; for any other model eval(). */
	void (*root_eval)(void *) = nullptr;
	void *root = nullptr;
	void run()
	{
		if (root_eval)
			root_eval(root);
		else
			eval();
	}
#define ABBSIM_PORT_REF(t, n) t &n;
	ABBSIM_RTL_PORTS(ABBSIM_PORT_REF)
#undef ABBSIM_PORT_REF
	/* trace only (sim/abb_sim_top.sv): nothing of abb_top reads them */
	QData &cycle_i;
	uint32_t *const lane_i[RtlLaneCount];
	uint32_t *const up_credits_i, *const down_credits_i;
	/* the wrapper's input strobe (sim/abb_sim_top.sv, sim/model_inputs.h) */
	CData &smp_i;
	/* the deferred combinational pass (sim/defer_comb.py, HardIp::edge) */
	CData &defer_i, &quiet_o;

	/* Every input 0, the trace-only ones included: a new model's ports are
	 * not initialised (Verilator leaves them; the heap of a model deleted
	 * before may hold anything), and the input sampling compares them all. */
	void zero_inputs()
	{
		clk_i = rst_ni = cfg_bus_master_en_i = cfg_max_payload_i = cfg_max_read_req_i = 0;
		cfg_req_id_i = 0;
		cfg_msi_en_i = cfg_mem_bits_i = strict_i = rx_valid_i = rx_sop_i = rx_eop_i = 0;
		rx_data_i = 0;
		rx_bar_i = tx_ready_i = tx_buf_av_i = smp_i = defer_i = 0;
		skip_cycles_i = 0;
		board_cfg_i = 0;
		cycle_i = 0;
		for (unsigned l = 0; l < RtlLaneCount; l++)
			for (unsigned w = 0; w < RtlLaneWords; w++)
				lane_i[l][w] = 0;
		for (unsigned w = 0; w < RtlCreditWords; w++)
			up_credits_i[w] = down_credits_i[w] = 0;
	}

protected:
#define ABBSIM_PORT_INIT(t, n) , n(m.n)
#define ABBSIM_LANE_INIT(n) m.n.data(),
	template <class M>
	RtlModel(unsigned ns, bool tr, M &m)
		: clk_ns(ns), traced(tr) ABBSIM_RTL_PORTS(ABBSIM_PORT_INIT), cycle_i(m.cycle_i),
		  lane_i{ABBSIM_TRACE_LANES(ABBSIM_LANE_INIT)}, up_credits_i(m.up_credits_i.data()),
		  down_credits_i(m.down_credits_i.data()), smp_i(m.smp_i),
		  defer_i(m.defer_i), quiet_o(m.quiet_o)
	{
	}
#undef ABBSIM_LANE_INIT
#undef ABBSIM_PORT_INIT
};

/* The RTL verilated for this user-clock period: 4 ns (250 MHz) for clocks
 * of 188 MHz and more, else 8 ns (125 MHz), the nearer of the two. */
unsigned rtl_clk_ns(unsigned clk_mhz);
/* name: the RTL model's scope in a waveform ("board": board.abb_sim_top.u_abb).
 * traced: the build with tracing compiled in; nullptr when this library has
 * none (rtl_traced_available()). */
std::unique_ptr<RtlModel> make_rtl_model(VerilatedContext *ctx, unsigned clk_ns,
					 const char *name = "board", bool traced = false);
/* false in a library linked without the traced models (make SIM_TRACE=0,
 * the mutants of make mutate): no waveform can be written */
bool rtl_traced_available();

/* rtl_model_traced.cpp: the traced models; a weak reference, so a library
 * without that unit links and reports tracing as unavailable */
std::unique_ptr<RtlModel> make_traced_rtl_model(VerilatedContext *ctx, unsigned clk_ns,
						const char *name) __attribute__((weak));

} // namespace abbsim
#endif
