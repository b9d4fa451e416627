/*
 * rtl_model_traced.cpp - the builds of abb_top with tracing compiled in
 * (--trace-fst: classes Vabb_top_tr, Vabb_top250_tr) behind RtlModel. A
 * library without this unit has no waveforms (rtl_model.h).
 */
#include "rtl_model_t.h"

#include "Vabb_top250_tr.h"
#include "Vabb_top_tr.h"

namespace abbsim {

std::unique_ptr<RtlModel> make_traced_rtl_model(VerilatedContext *ctx, unsigned clk_ns,
						const char *name)
{
	if (clk_ns == 4)
		return std::unique_ptr<RtlModel>(new RtlModelT<Vabb_top250_tr, true>(ctx, 4, name));
	return std::unique_ptr<RtlModel>(new RtlModelT<Vabb_top_tr, true>(ctx, 8, name));
}

} // namespace abbsim
