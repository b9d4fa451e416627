/*
 * rtl_model.cpp - the untraced builds of abb_top behind RtlModel, and the
 * choice between them and the traced ones (rtl_model_traced.cpp).
 */
#include "rtl_model_t.h"

#include "Vabb_top.h"
#include "Vabb_top250.h"

/* models edited by sim/defer_comb.py (the default ones; not those of
 * make coverage or mutants) */
#ifndef Vabb_top_DEFER_COMB
#define Vabb_top_DEFER_COMB 0
#endif
#ifndef Vabb_top250_DEFER_COMB
#define Vabb_top250_DEFER_COMB 0
#endif

namespace abbsim {

unsigned rtl_clk_ns(unsigned clk_mhz) { return clk_mhz >= 188 ? 4 : 8; }

bool rtl_traced_available() { return make_traced_rtl_model != nullptr; }

std::unique_ptr<RtlModel> make_rtl_model(VerilatedContext *ctx, unsigned clk_ns, const char *name,
					 bool traced)
{
	if (traced)
		return rtl_traced_available() ? make_traced_rtl_model(ctx, clk_ns, name) : nullptr;
	std::unique_ptr<RtlModel> m;
	if (clk_ns == 4)
		m.reset(new RtlModelT<Vabb_top250, false>(ctx, 4, name));
	else
		m.reset(new RtlModelT<Vabb_top, false>(ctx, 8, name));
	m->deferrable = clk_ns == 4 ? Vabb_top250_DEFER_COMB : Vabb_top_DEFER_COMB;
	return m;
}

} // namespace abbsim
