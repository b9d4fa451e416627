/*
 * rtl_model.cpp - the untraced builds of abb_top behind RtlModel, and the
 * choice between them and the traced ones (rtl_model_traced.cpp).
 */
#include "rtl_model_t.h"

#include "Vabb_top.h"
#include "Vabb_top250.h"

namespace abbsim {

unsigned rtl_clk_ns(unsigned clk_mhz) { return clk_mhz >= 188 ? 4 : 8; }

bool rtl_traced_available() { return make_traced_rtl_model != nullptr; }

std::unique_ptr<RtlModel> make_rtl_model(VerilatedContext *ctx, unsigned clk_ns, const char *name,
					 bool traced)
{
	if (traced)
		return rtl_traced_available() ? make_traced_rtl_model(ctx, clk_ns, name) : nullptr;
	if (clk_ns == 4)
		return std::unique_ptr<RtlModel>(new RtlModelT<Vabb_top250, false>(ctx, 4, name));
	return std::unique_ptr<RtlModel>(new RtlModelT<Vabb_top, false>(ctx, 8, name));
}

} // namespace abbsim
