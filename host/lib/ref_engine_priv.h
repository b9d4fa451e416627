/*
 * ref_engine_priv.h - the timed model's engine state (ref_engine.c), for
 * the C2H stream's edges that ref_timing.c runs in place (stream_edge):
 * the RTL's constants, the units' states, struct rt_engine. Only
 * ref_engine.c and ref_timing.c include it.
 */
#ifndef ABB_REF_ENGINE_PRIV_H
#define ABB_REF_ENGINE_PRIV_H

#include <string.h>

#include <abb/abb_regs.h>

#include "ref_board.h"
#include "ref_timing_priv.h"

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

#define TX_BUFFER_BYTES 2048u /* sim/hard_ip.h HardIp::TxBufferBytes */
#define TX_POSTED_MIN_AV 12u  /* rtl-model/abb_top.sv TxPostedMinAv */
#define NUM_TAGS 16u          /* rtl-model/abb_top.sv NumTags */
#define FETCH_TAG 0x80u       /* abb_top.sv C2hFetchTag; H2cFetchTag is 0x81 */
#define EVS_WORDS 2048u       /* abb_evsrc.sv DepthBits 11 */
#define DESC_BYTES 32u

enum { SRC_PIO, SRC_C2H_FETCH, SRC_H2C_FETCH, SRC_C2H_MV, SRC_H2C_MV, NSRC };
enum { CH_IDLE, CH_CHECK, CH_RUN, CH_NEXT, CH_DRAIN };
enum { F_IDLE, F_HDR, F_SENT, F_WAIT, F_DONE, F_ERR };
enum { M_IDLE, M_GO, M_TX, M_WAIT };
enum { P_IDLE, P_GO, P_TX };
enum { MSG_MSI, MSG_ASSERT, MSG_DEASSERT };

struct eng_chan {
	int chn;
	int st;
	uint64_t due;        /* CHECK/NEXT/DRAIN: the edge it is evaluated at */
	uint64_t drain_from; /* DRAIN: mv_abort_o from this edge */
	bool keep, held;
	struct abb_refmodel_desc d;
	/* prefetch */
	int fst;
	uint64_t f_at;       /* F_HDR: offered from; F_DONE/F_ERR: seen from */
	uint8_t nxt[DESC_BYTES];
	unsigned fdw;
	/* mover */
	int mst;
	uint64_t m_at;       /* M_GO: the next TLP/request from this edge */
	uint64_t mv_due;     /* the mover's own evaluation (done, wait) */
	uint32_t rem;        /* DWs not yet in a TLP or request */
	uint64_t ha;
	uint32_t pa;
	bool inc, evs, more;
	/* H2C: tags */
	uint32_t out;        /* outstanding */
	uint64_t free_at[NUM_TAGS]; /* a cleared tag counts as free from this edge */
	uint32_t ptr[NUM_TAGS], cnt[NUM_TAGS];
	bool tinc[NUM_TAGS];
	bool err, open;
	uint64_t err_from;
};

struct eng_evs {
	bool en;
	uint64_t at;     /* the state after this edge */
	uint32_t used;   /* words */
	uint32_t half;   /* the head word's lower DW is gone */
	uint32_t pos, gap;
};

struct rt_engine {
	uint64_t next;   /* cached: the next edge to evaluate (rt_engine_next_edge) */
	struct abb_reftime *t;
	struct abb_refmodel *core;
	uint64_t last;   /* the last edge evaluated (+1: none yet) */
	bool started;
	bool ddr;        /* the DDR2 arbiter on (rt_board_on: fixed at the open);
			  * off, every rt_board_ call but the tag limit does nothing */

	/* RX */
	struct rt_ring rxq;
	bool rx_cur;
	uint64_t rx_end, rx_free;
	bool rdreq;
	uint64_t rdreq_at;

	/* PIO completer */
	int pst;
	uint64_t p_at, pio_due;
	struct rt_tlp pcpl;

	/* TX */
	bool tx_busy;
	uint64_t tx_end;
	int tx_src, tx_chn;
	unsigned tx_last;
	struct rt_tlp tx;
	uint8_t after[8];
	unsigned nafter;
	bool tx_full;    /* no room at the last try: the link must take bytes first */
	bool c2h_held;   /* the C2H mover waits for the posted-write backlog to shrink */
	uint64_t tx_due; /* a try of the held C2H mover */
	/* tx_candidate as schedule() found it (valid while tx_cand_ok: the
	 * engine's state unchanged since; a later edge up to it finds the same:
	 * each source's readiness is its first ready edge from then on) */
	uint64_t tx_cand;
	bool tx_cand_ok;

	struct eng_chan ch[2];

	/* interrupts */
	bool line;       /* the core's line now */
	bool lvl;        /* the level the hard IP saw last */
	bool intx_on;
	uint64_t irq_due;
	uint64_t ig_due;
	unsigned ig_unit; /* ClkNs / 4 */

	struct eng_evs evs;
	uint8_t *buf;    /* completion bytes on their way */
	struct rt_board *board; /* DDR2 arbiter, endpoint limits (ref_board.h) */
};

/* the edge the engine needs next (RT_NEVER: none), read by the event loop */
static inline uint64_t rt_engine_next_edge(const struct rt_engine *e)
{
	return e->next;
}

/* abb_tlp_pkg.sv chunk_dw */
static inline uint32_t chunk_dw(uint32_t max_dw, uint64_t addr, uint32_t rem)
{
	uint32_t to4k = 1024u - (uint32_t)((addr >> 2) & 1023u);
	uint32_t c = max_dw < to4k ? max_dw : to4k;

	return rem < c ? rem : c;
}

/* The upstream mover's memory write of k DWs at channel c's host and board
 * addresses (abb_c2h_mover.sv StHdr0), c advanced past it: src_start and
 * the C2H stream build it alike (the event source's take is the
 * caller's). */
static inline void rt_c2h_mwr(struct rt_tlp *m, struct eng_chan *c, uint32_t k)
{
	memset(m, 0, offsetof(struct rt_tlp, data));
	m->kind = RT_MWR;
	m->fc = RT_FC_P;
	m->hdr_dw = c->ha >> 32 ? 4 : 3;
	m->origin = RT_O_C2H_DATA;
	m->ndw = (uint16_t)k;
	m->bytes = 4u * k;
	m->addr = c->ha;
	m->pa = c->pa;
	m->inc = c->inc;
	m->evs = c->evs;
	c->ha += 4u * k;
	c->rem -= k;
	if (c->inc)
		c->pa += 4u * k;
}

/* RX takes the TLP at its head from the first edge at or after its arrival
 * that it is free (RX in StRdReq waits for the PIO completer) */
static inline void rx_next(struct rt_engine *e)
{
	struct rt_tlp *h;
	uint64_t start;

	if (e->rx_cur || e->rdreq || e->rxq.n == 0)
		return;
	h = &e->rxq.v[e->rxq.head];
	start = rt_first_edge(e->t, h->t);
	if (start < e->rx_free)
		start = e->rx_free;
	if (e->started && start < e->last + 1)
		start = e->last + 1;
	e->rx_end = start + rt_beats(h) - 1;
	e->rx_cur = true;
	if (h->origin == RT_O_DEV_CPL && h->kind == RT_CPLD && h->tag < NUM_TAGS) {
		/* abb_top.sv wr_dw_i: the downstream mover writes the payload beats
		 * of a completion it takes (abb_h2c_mover.sv cpl_ok, mem_we_o) */
		struct eng_chan *c = &e->ch[ABB_CH_H2C];

		if (e->ddr && (c->out >> h->tag & 1u) && !(c->err && c->err_from <= start + 2))
			rt_board_write(e->board, start + 2, h->ndw, c->tinc[h->tag]);
	}
}

/* the first edge the engine may evaluate now */
static inline uint64_t lower_bound(const struct rt_engine *e)
{
	uint64_t f = rt_first_edge(e->t, e->t->now);

	return e->started && e->last + 1 > f ? e->last + 1 : f;
}

/* a downstream TLP arrived at the hard IP (copied; ref_timing_priv.h) */
static inline void rt_engine_deliver(struct rt_engine *e, const struct rt_tlp *tlp)
{
	bool idle = !e->rx_cur;

	if (rt_ring_push(&e->rxq, tlp))
		return;
	rx_next(e);
	/* only RX changed: its last beat may come before what was next */
	if (idle && e->rx_cur) {
		uint64_t lb = lower_bound(e), x = e->rx_end > lb ? e->rx_end : lb;

		if (x < e->next)
			e->next = x;
	}
}

/* the H2C stream (ref_timing.c h2c_stream_run): the engine may have edges
 * that only end a mover's completion at RX (tags out, the DDR2 arbiter off) */
static inline bool rt_engine_h2c_ok(const struct rt_engine *e)
{
	return !e->ddr && e->ch[ABB_CH_H2C].out != 0;
}

/* --- the C2H stream (ref_timing.c stream_run), run there in place ----------
 *
 * One DMA read in its steady state: the C2H channel runs (StRun, its mover
 * in M_GO or M_TX, not from the event source, its prefetch idle or done,
 * nothing of its own due), everything else of the engine is idle (H2C
 * channel, RX, the PIO completer, interrupts, the generator, the DDR2
 * arbiter off) and schedule()'s candidate is current. Then an edge of the
 * engine is one of two, and rt_engine_stream_edge does exactly what
 * rt_engine_edge would (the same state after it, field by field) without
 * the general unit-by-unit evaluation:
 *  - the decide (tx_decide with only the C2H mover valid: the posted hold
 *    and the buffer test, then src_start; held, a try at the next edge or
 *    when the link takes bytes, rt_engine_tx_space), or
 *  - the finish (tx_finish of a C2H TLP that is not the mover's last);
 * schedule() after either has only the TX candidate to look at: the TLP's
 * last beat, or the next edge (no idle beats between the mover's TLPs).
 * Anything else (a full buffer, the last TLP) it leaves to rt_engine_edge,
 * before changing anything. */
static inline bool rt_engine_stream_ok(const struct rt_engine *e)
{
	const struct eng_chan *c = &e->ch[ABB_CH_C2H], *h = &e->ch[ABB_CH_H2C];

	/* the tests that fail most often (a PIO read during the poll) first */
	return c->st == CH_RUN && !e->rx_cur && !e->rxq.n && !e->rdreq && e->pst == P_IDLE &&
	       (c->mst == M_GO || c->mst == M_TX) && !c->evs &&
	       (c->fst == F_IDLE || c->fst == F_DONE) && c->due == RT_NEVER &&
	       c->mv_due == RT_NEVER && h->st == CH_IDLE && h->mst == M_IDLE && !h->out &&
	       h->fst == F_IDLE && h->due == RT_NEVER && h->mv_due == RT_NEVER &&
	       e->pio_due == RT_NEVER && e->irq_due == RT_NEVER && e->ig_due == RT_NEVER &&
	       !e->nafter && !e->tx_full && e->started &&
	       e->tx_cand_ok && (!e->tx_busy || e->tx_src == SRC_C2H_MV) && !e->ddr;
}

/* Edge n (= e->next) in the stream: 1 done as rt_engine_edge would, 0
 * nothing changed (rt_engine_edge must run it). */
static inline int rt_engine_stream_edge(struct rt_engine *e, uint64_t n)
{
	struct eng_chan *c = &e->ch[ABB_CH_C2H];

	if (e->tx_busy) {
		if (e->tx_end != n || c->rem == 0)
			return 0; /* the last TLP: the mover's done */
		e->last = n;
		e->tx_cand_ok = false;
		/* tx_finish, SRC_C2H_MV, not the last; no messages behind it */
		e->tx_busy = false;
		rt_log(e->t, "up", &e->tx);
		rt_up_submit(e->t, &e->tx);
		c->mst = M_GO;
		c->m_at = n + 1;
		/* schedule(n + 1): the mover's next TLP (src_ready: m_at, no
		 * event source, the arbiter off) */
		e->tx_cand = n + 1;
	} else {
		uint64_t sampled;
		unsigned av;
		bool hold;

		if (e->tx_cand != n || c->mst != M_GO || c->m_at > n)
			return 0;
		/* tx_decide: the units the hard IP reported at the edge before */
		sampled = n ? rt_up_unsent_at_edge(e->t, rt_edge_time(e->t, n - 1)) : 0;
		av = (unsigned)((TX_BUFFER_BYTES - (sampled < TX_BUFFER_BYTES ? sampled : TX_BUFFER_BYTES)) / 128u);
		hold = (av < 63 ? av : 63) < TX_POSTED_MIN_AV;
		if (!hold && rt_up_unsent(e->t) >= TX_BUFFER_BYTES)
			return 0; /* a full buffer */
		e->last = n;
		e->tx_cand_ok = false;
		e->tx_due = RT_NEVER;
		e->c2h_held = false;
		if (hold) {
			/* tx_decide, the mover the only source ready and held: it
			 * tries again at n + 1 if the count this edge samples allows
			 * it, else when the link takes bytes (rt_engine_tx_space);
			 * schedule(n + 1) finds tx_due (the mover ready then too) or
			 * nothing (the held mover not asked) */
			if (rt_up_unsent(e->t) <= TX_BUFFER_BYTES - 128u * TX_POSTED_MIN_AV) {
				e->tx_due = n + 1;
				e->tx_cand = n + 1;
			} else {
				e->c2h_held = true;
				e->tx_cand = RT_NEVER;
			}
			e->tx_cand_ok = true;
			e->next = e->tx_cand;
			return 1;
		}
		e->tx_last = SRC_C2H_MV;
		e->tx_src = SRC_C2H_MV;
		/* src_start, SRC_C2H_MV, without the event source and the DDR2
		 * arbiter (the stream's condition) */
		{
			rt_c2h_mwr(&e->tx, c, chunk_dw(e->t->p.mps / 4u, c->ha, c->rem));
			c->mst = M_TX;
			abb_refmodel_count(e->core, ABB_REFMODEL_C2H_TLP);
			e->tx_chn = c->chn;
		}
		e->tx_busy = true;
		e->tx_end = n + rt_beats(&e->tx) - 1;
		/* schedule(n + 1): the TLP's last beat */
		e->tx_cand = e->tx_end;
	}
	e->tx_cand_ok = true;
	e->next = e->tx_cand;
	return 1;
}

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
