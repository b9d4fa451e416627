/*
 * rtl_model.h - the Verilator model of abb_top behind one interface, so the
 * hard IP runs the RTL built for the clock it simulates: ClkNs = 8 (125 MHz,
 * class Vabb_top) or ClkNs = 4 (250 MHz, class Vabb_top250), both verilated
 * from the same sources (sim/sim.mk) under the top sim/abb_sim_top.sv. The
 * port members are references to the model's own, named as the RTL ports;
 * eval() costs one virtual call.
 */
#ifndef ABBSIM_RTL_MODEL_H
#define ABBSIM_RTL_MODEL_H

#include <cstdint>
#include <memory>

/* no verilated.h here: platform.cpp includes SystemC, which it clashes with */
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
	X(CData, idle_o) X(IData, skip_cycles_i)

class RtlModel {
public:
	virtual ~RtlModel() {}
	virtual void eval() = 0;
	virtual void final() = 0;
	virtual void trace(VerilatedFstC *tfp, int levels) = 0;

	const unsigned clk_ns; /* the ClkNs the model was verilated with */
#define ABBSIM_PORT_REF(t, n) t &n;
	ABBSIM_RTL_PORTS(ABBSIM_PORT_REF)
#undef ABBSIM_PORT_REF
	CData &smp_i; /* abb_sim_top's input strobe (sim/model_inputs.h) */

protected:
#define ABBSIM_PORT_INIT(t, n) , n(m.n)
	template <class M>
	RtlModel(unsigned ns, M &m) : clk_ns(ns) ABBSIM_RTL_PORTS(ABBSIM_PORT_INIT), smp_i(m.smp_i)
	{
	}
#undef ABBSIM_PORT_INIT
};

/* The RTL verilated for this user-clock period: 4 ns (250 MHz) for clocks
 * of 188 MHz and more, else 8 ns (125 MHz), the nearer of the two. */
unsigned rtl_clk_ns(unsigned clk_mhz);
std::unique_ptr<RtlModel> make_rtl_model(VerilatedContext *ctx, unsigned clk_ns);

} // namespace abbsim
#endif
