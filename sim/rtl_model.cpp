/*
 * rtl_model.cpp - the two verilated builds of abb_top behind RtlModel.
 */
#include "rtl_model.h"

#include "Vabb_top.h"
#include "Vabb_top250.h"

namespace abbsim {

namespace {

template <class M> struct Owner {
	std::unique_ptr<M> m;
	Owner(VerilatedContext *ctx, const char *name) : m(new M(ctx, name)) {}
};

/* Owner first: the model exists before RtlModel binds its ports. */
template <class M> class RtlModelT : private Owner<M>, public RtlModel {
public:
	RtlModelT(VerilatedContext *ctx, unsigned ns, const char *name)
		: Owner<M>(ctx, name), RtlModel(ns, *this->m)
	{
	}
	void eval() override { this->m->eval(); }
	void final() override { this->m->final(); }
#ifdef ABBSIM_NO_TRACE
	/* SIM_TRACE=0 (make trace-cost's reference): no trace code in the model */
	void trace(VerilatedFstC *, int) override {}
#else
	void trace(VerilatedFstC *tfp, int levels) override { this->m->trace(tfp, levels); }
#endif
};

} // namespace

unsigned rtl_clk_ns(unsigned clk_mhz) { return clk_mhz >= 188 ? 4 : 8; }

std::unique_ptr<RtlModel> make_rtl_model(VerilatedContext *ctx, unsigned clk_ns, const char *name)
{
	if (clk_ns == 4)
		return std::unique_ptr<RtlModel>(new RtlModelT<Vabb_top250>(ctx, 4, name));
	return std::unique_ptr<RtlModel>(new RtlModelT<Vabb_top>(ctx, 8, name));
}

} // namespace abbsim
