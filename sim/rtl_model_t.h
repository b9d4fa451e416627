/*
 * rtl_model_t.h - RtlModel over one verilated class M (rtl_model.cpp: the
 * untraced builds, rtl_model_traced.cpp: the traced ones; bare_bench.cpp
 * takes low_idle). Only for units that include a generated class's header.
 */
#ifndef ABBSIM_RTL_MODEL_T_H
#define ABBSIM_RTL_MODEL_T_H

#include "rtl_model.h"

namespace abbsim {

template <class M> struct RtlOwner {
	std::unique_ptr<M> m;
	RtlOwner(VerilatedContext *ctx, const char *name) : m(new M(ctx, name)) {}
};

/* Owner first: the RTL model exists before RtlModel binds its ports.
 * Traced: M was verilated with --trace-fst (it has trace()). */
/* The clock-low eval of a cycle that triggers nothing (clk_i falls, smp_i
 * stays low; the wrapper has no negedge logic and no input-combinational
 * region): all it does is remember clk_i = 0 for the next edge test, which
 * this does without the eval (Verilator 5's trigger memory; a model
 * without it, another Verilator, gets the eval). */
template <class M> auto low_idle(M &m, int) -> decltype(m.rootp->__Vtrigrprev__TOP__clk_i = 0, true)
{
	m.clk_i = 0;
	m.rootp->__Vtrigrprev__TOP__clk_i = 0;
	return true;
}
template <class M> bool low_idle(M &, long) { return false; }

template <class M, bool Traced> class RtlModelT : private RtlOwner<M>, public RtlModel {
public:
	RtlModelT(VerilatedContext *ctx, unsigned ns, const char *name)
		: RtlOwner<M>(ctx, name), RtlModel(ns, Traced, *this->m)
	{
	}
	void eval() override { this->m->eval(); }
	M &top() { return *this->m; }
	bool clock_low_idle() override { return low_idle(*this->m, 0); }
	void final() override { this->m->final(); }
	void trace(VerilatedFstC *tfp, int levels) override
	{
		if constexpr (Traced)
			this->m->trace(tfp, levels);
		else
			(void)tfp, (void)levels;
	}
};

} // namespace abbsim
#endif
