/*
 * rtl_model.cpp - the untraced builds of abb_top behind RtlModel, and the
 * choice between them and the traced ones (rtl_model_traced.cpp).
 */
#include "rtl_model_t.h"

#include "Vabb_top.h"
#include "Vabb_top250.h"
#include "Vabb_top250___024root.h"
#include "Vabb_top___024root.h"

/* models edited by sim/defer_comb.py (the default ones; not those of
 * make coverage or mutants) */
#ifndef Vabb_top_DEFER_COMB
#define Vabb_top_DEFER_COMB 0
#endif
#ifndef Vabb_top250_DEFER_COMB
#define Vabb_top250_DEFER_COMB 0
#endif

/* the generated models' evaluation (their __DepSet units; RtlModel::run):
 * _eval_direct where defer_comb.py could add it (the same evaluation
 * without the scheduler's trigger vectors and loops), else _eval */
#ifdef Vabb_top_DIRECT_EVAL
void Vabb_top___024root___eval_direct(Vabb_top___024root *vlSelf);
#define ABB_ROOT_EVAL Vabb_top___024root___eval_direct
#else
void Vabb_top___024root___eval(Vabb_top___024root *vlSelf);
#define ABB_ROOT_EVAL Vabb_top___024root___eval
#endif
#ifdef Vabb_top250_DIRECT_EVAL
void Vabb_top250___024root___eval_direct(Vabb_top250___024root *vlSelf);
#define ABB_ROOT_EVAL250 Vabb_top250___024root___eval_direct
#else
void Vabb_top250___024root___eval(Vabb_top250___024root *vlSelf);
#define ABB_ROOT_EVAL250 Vabb_top250___024root___eval
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
	if (clk_ns == 4) {
		auto *t = new RtlModelT<Vabb_top250, false>(ctx, 4, name);
		m.reset(t);
		m->deferrable = Vabb_top250_DEFER_COMB;
		m->root = t->top().rootp;
		m->root_eval = [](void *r) { ABB_ROOT_EVAL250((Vabb_top250___024root *)r); };
	} else {
		auto *t = new RtlModelT<Vabb_top, false>(ctx, 8, name);
		m.reset(t);
		m->deferrable = Vabb_top_DEFER_COMB;
		m->root = t->top().rootp;
		m->root_eval = [](void *r) { ABB_ROOT_EVAL((Vabb_top___024root *)r); };
	}
	if (!m->deferrable)
		m->root_eval = nullptr;
	return m;
}

} // namespace abbsim
