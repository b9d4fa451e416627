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
	explicit Owner(VerilatedContext *ctx) : m(new M(ctx, "abb_top")) {}
};

/* Owner first: the model exists before RtlModel binds its ports. */
template <class M> class RtlModelT : private Owner<M>, public RtlModel {
public:
	RtlModelT(VerilatedContext *ctx, unsigned ns) : Owner<M>(ctx), RtlModel(ns, *this->m) {}
	void eval() override { this->m->eval(); }
	void final() override { this->m->final(); }
	void trace(VerilatedFstC *tfp, int levels) override { this->m->trace(tfp, levels); }
};

} // namespace

unsigned rtl_clk_ns(unsigned clk_mhz) { return clk_mhz >= 188 ? 4 : 8; }

std::unique_ptr<RtlModel> make_rtl_model(VerilatedContext *ctx, unsigned clk_ns)
{
	if (clk_ns == 4)
		return std::unique_ptr<RtlModel>(new RtlModelT<Vabb_top250>(ctx, 4));
	return std::unique_ptr<RtlModel>(new RtlModelT<Vabb_top>(ctx, 8));
}

} // namespace abbsim
