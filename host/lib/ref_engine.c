/*
 * ref_engine.c - the timed reference model's board side: the RTL's DMA
 * engine and the hard IP around it, at TLP granularity, acting at the
 * rising edges of the user clock as the RTL does (ref_timing_priv.h).
 *
 * The device core (ref_model.c) keeps the registers, board memory and the
 * semantics of a descriptor; this file says when each thing happens. A
 * TLP occupies the RTL's 64-bit stream for its beats (two header beats,
 * then two DWs per beat: rtl-model/TLP-STREAM.md), one beat per edge, so
 * only the edges where something starts or ends are evaluated. Register
 * values as the RTL's flops hold them: what an edge changes is seen from
 * the next edge on (every "from" edge below is that next edge).
 *
 * The units and the RTL lines they follow:
 *  - RX (abb_rx.sv): a downstream TLP is taken from the first edge at or
 *    after its arrival at the hard IP (sim/hard_ip.cpp HardIp::edge), a
 *    beat per edge; its effect at its last beat: a register write (a
 *    CTRL write with V starts the channel: StIdle -> StCheck), a BAR1
 *    write, completion data for a mover or a prefetch (the mover frees
 *    the tag at the completion's last beat: abb_h2c_mover.sv out_d). A
 *    read request holds RX (StRdReq, rx_ready_o low) until the PIO
 *    completer takes it (abb_pio_cpl.sv: one edge after, while it is
 *    idle); RX takes the next beat the edge after that.
 *  - PIO completer (abb_pio_cpl.sv): captures the register (or BAR1
 *    bytes) at that edge, offers its completion from the next edge on
 *    (StHdr0), idle again after the completion's last beat.
 *  - TX (abb_tx_arb.sv): while no TLP is in progress the first valid
 *    source after the last winner (round robin, last_q 0 after reset:
 *    0 PIO completer, 1 C2H prefetch, 2 H2C prefetch, 3 C2H mover, 4 H2C
 *    mover) starts a TLP; the hard IP takes its first beat only while
 *    fewer than 2048 bytes wait for the link (sim/hard_ip.h
 *    HardIp::TxBufferBytes, tx_accept); the C2H mover (posted writes) only
 *    while the free 128-byte units the hard IP reported at the edge before
 *    were at least 12 (abb_top.sv TxPostedMinAv, abb_tx_arb.sv
 *    hold_posted_q); the TLP goes to the link at its last beat's edge
 *    (HardIp::tx_tlp).
 *  - Channels (abb_dma_ctl.sv): StCheck the edge after the start (or the
 *    load of the prefetched descriptor): a valid descriptor starts the
 *    mover and, when another follows, the prefetch (one 32-byte read,
 *    tag 0x80 / 0x81, offered from the next edge); the mover's done goes
 *    to StIdle (LAST), StNext (the prefetched descriptor is loaded the
 *    first edge it is there: StCheck again the edge after) or StDrain
 *    (errors, RESET, GCR.SOFT_RESET: idle when the mover and the prefetch
 *    are). Shared engine (abb_top.sv c2h_hold, h2c_hold): a channel waits
 *    in StCheck while the other holds the engine.
 *  - C2H mover (abb_c2h_mover.sv): from the edge after its start a TLP of
 *    min(rem, MPS, to the next 4 KiB) DWs (abb_tlp_pkg.sv chunk_dw) after
 *    another without idle beats; done at the last beat of the last one
 *    (StData); a TLP from the event source waits until the FIFO holds its
 *    payload (fifo_wait).
 *  - H2C mover (abb_h2c_mover.sv): a two-beat read request of min(rem,
 *    MRRS, to 4 KiB) DWs per free tag (16 tags, abb_top.sv NumTags, or
 *    MRD_CR's limit; one for a FIFO port) while data remains; with another
 *    descriptor to follow done once all is requested (StIssue), else done
 *    when the last tag is back (StWait); an error completion stops it.
 *  - Event source (abb_evsrc.sv): while enabled one 64-bit word per edge
 *    into a FIFO of 2048 words, EVS_GAP edges between events; a TLP's
 *    payload is taken from it when the TLP starts.
 *  - Interrupt generator (abb_regs.sv): ISR.IGEN max(1, ceil(IGEN_LAT /
 *    (ClkNs / 4))) edges after the ARM (ClkNs 4 at 188 MHz and above,
 *    else 8: sim/rtl_model.cpp rtl_clk_ns).
 *  - Interrupt messages (sim/hard_ip.cpp irq_update, irq_emit): the hard
 *    IP sees the line the edge after it changed; Assert_INTA when it
 *    rises, Deassert_INTA when it falls (legacy INTx), or one MSI write per
 *    rising edge (msi=1); sent after the TLP the RTL is handing over, if
 *    any.
 * The board's data: a DMA read's payload is read from board memory (or
 * the event source) when the TLP lands at the root complex, a DMA write's
 * from host memory when its completion lands at RX; programs that change
 * either while the transfer runs see the order of those, not the RTL's
 * beat by beat.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <abb/abb_regs.h>

#include "ref_board.h"
#include "ref_engine_priv.h"

static struct eng_chan *C2H(struct rt_engine *e)
{
	return &e->ch[ABB_CH_C2H];
}

static struct eng_chan *H2C(struct rt_engine *e)
{
	return &e->ch[ABB_CH_H2C];
}

static uint64_t umax(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t umin(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint32_t mps_dw(const struct rt_engine *e)
{
	return e->t->p.mps / 4u;
}

static uint32_t mrrs_dw(const struct rt_engine *e)
{
	return e->t->p.mrrs / 4u;
}

static void empty_tlp(struct rt_tlp *m)
{
	memset(m, 0, offsetof(struct rt_tlp, data));
}

/* --- the event source's FIFO (abb_evsrc.sv) ---------------------------- */

static uint32_t evs_total_words(const struct rt_engine *e)
{
	uint32_t s = abb_refmodel_evs_size(e->core);

	return (4u + s + (s & 1u)) / 2u;
}

static uint32_t evs_level(const struct eng_evs *v)
{
	return 2u * v->used - v->half;
}

/* Runs the source's edges up to edge to. */
static void evs_run(const struct rt_engine *e, struct eng_evs *v, uint64_t to)
{
	uint32_t total = evs_total_words(e), gap_i = abb_refmodel_evs_gap(e->core);

	while (v->at < to) {
		uint64_t left = to - v->at;

		if (!v->en) {
			v->at = to;
			break;
		}
		if (v->gap) {
			uint64_t k = umin(left, v->gap);

			v->gap -= (uint32_t)k;
			v->at += k;
			continue;
		}
		if (v->used >= EVS_WORDS) {
			v->at = to; /* full: waits (the gap is 0 already) */
			break;
		}
		{
			/* pushes, one word per edge, up to the event's end or a full FIFO */
			uint64_t k = umin(left, umin(EVS_WORDS - v->used, total - v->pos / 2u));

			v->used += (uint32_t)k;
			v->pos += 2u * (uint32_t)k;
			v->at += k;
			if (v->pos / 2u >= total) {
				v->pos = 0;
				v->gap = gap_i;
			}
		}
	}
}

static void evs_take(struct eng_evs *v, uint32_t dws)
{
	uint32_t lvl = evs_level(v);

	lvl = lvl > dws ? lvl - dws : 0;
	v->used = (lvl + 1u) / 2u;
	v->half = 2u * v->used - lvl;
}

/* The first edge from x on at which the FIFO (as after the edge before)
 * holds need DWs; RT_NEVER if the source is off and it does not. */
static uint64_t evs_ready(struct rt_engine *e, uint64_t x, uint32_t need)
{
	struct eng_evs v = e->evs;

	if (x == 0)
		x = 1;
	if (v.at < x - 1)
		evs_run(e, &v, x - 1);
	while (evs_level(&v) < need) {
		if (!v.en)
			return RT_NEVER;
		evs_run(e, &v, v.at + (v.gap ? v.gap : 1));
	}
	return umax(x, v.at + 1);
}

/* --- interrupts (sim/hard_ip.cpp irq_update, irq_emit, irq_send) -------- */

static void msg_send(struct rt_engine *e, int kind)
{
	struct rt_tlp m;

	empty_tlp(&m);
	m.fc = RT_FC_P;
	if (kind == MSG_MSI) {
		m.kind = RT_MWR;
		m.hdr_dw = 3;
		m.ndw = 1;
		m.origin = RT_O_MSI;
		m.addr = e->t->msi_addr;
	} else {
		m.kind = RT_MSG;
		m.hdr_dw = 4;
		m.origin = RT_O_INTX;
		m.arg = kind == MSG_ASSERT;
	}
	rt_log(e->t, "up", &m);
	rt_up_submit(e->t, &m);
}

/* posted, behind the TLP the RTL is handing over */
static void msg_emit(struct rt_engine *e, int kind, uint64_t n)
{
	if (e->tx_busy && e->tx_end > n) {
		if (e->nafter < sizeof e->after)
			e->after[e->nafter++] = (uint8_t)kind;
	} else {
		msg_send(e, kind);
	}
}

static void irq_update(struct rt_engine *e, bool level, uint64_t n)
{
	bool rise = level && !e->lvl;

	e->lvl = level;
	if (e->t->p.msi) {
		if (e->intx_on) {
			e->intx_on = false;
			msg_emit(e, MSG_DEASSERT, n);
		}
		if (rise)
			msg_emit(e, MSG_MSI, n);
		return;
	}
	if (level != e->intx_on) {
		e->intx_on = level;
		msg_emit(e, level ? MSG_ASSERT : MSG_DEASSERT, n);
	}
}

/* --- channels ------------------------------------------------------------- */

static bool ch_active(const struct eng_chan *c)
{
	return c->st != CH_IDLE && c->st != CH_CHECK;
}

static bool draining(const struct eng_chan *c, uint64_t x)
{
	return c->st == CH_DRAIN && x >= c->drain_from;
}

/* a state change of c at edge n: a channel held by the shared engine looks again */
static void ch_changed(struct rt_engine *e, struct eng_chan *c, uint64_t n)
{
	struct eng_chan *o = &e->ch[c->chn ^ 1];

	if (o->st == CH_CHECK && o->held) {
		o->held = false;
		o->due = n + 1;
	}
}

static bool h2c_mover_busy(const struct eng_chan *c)
{
	return c->mst != M_IDLE || c->out != 0;
}

static void enter_drain(struct rt_engine *e, struct eng_chan *c, bool keep, uint64_t n)
{
	c->keep = keep;
	c->st = CH_DRAIN;
	c->drain_from = n + 1;
	c->due = n + 1;
	if (c->mst == M_GO)
		c->mv_due = umax(c->m_at, n + 1);
	ch_changed(e, c, n);
}

static void mover_start(struct rt_engine *e, struct eng_chan *c, uint64_t n)
{
	c->mst = M_GO;
	c->m_at = n + 1;
	c->mv_due = RT_NEVER;
	c->rem = c->d.len / 4u;
	c->ha = c->d.ha;
	c->pa = c->d.pa;
	c->inc = c->d.inc;
	c->evs = c->d.evs;
	c->more = !c->d.last && c->d.bda_ok;
	if (c->chn == (int)ABB_CH_C2H)
		if (e->ddr)
			rt_board_rd_active(e->board, n, true); /* abb_top.sv rd_active_i: c2h_mv_busy */
	if (c->chn == (int)ABB_CH_H2C) {
		if (!c->open)
			c->err = false; /* a new chain starts clean */
		c->open = true;
	}
}

/* abb_dma_ctl.sv StRun, mv_done_i at edge n */
static void chan_mv_done(struct rt_engine *e, struct eng_chan *c, bool err, uint64_t n)
{
	abb_refmodel_desc_moved(e->core, c->chn, &c->d);
	if (err) {
		abb_refmodel_chan_error(e->core, c->chn, ABB_GER_CPL_ERR,
					ABB_CTRL_EEI | ABB_CTRL_ESEI, false);
		enter_drain(e, c, true, n);
	} else if (c->d.last) {
		abb_refmodel_chan_done(e->core, c->chn);
		c->st = CH_IDLE;
		ch_changed(e, c, n);
	} else if (!c->d.bda_ok) {
		abb_refmodel_chan_error(e->core, c->chn, ABB_GER_DESC_ERR, ABB_CTRL_EEI, true);
		c->st = CH_IDLE;
		ch_changed(e, c, n);
	} else {
		c->st = CH_NEXT;
		c->due = c->fst == F_DONE || c->fst == F_ERR ? umax(n + 1, c->f_at) : RT_NEVER;
	}
}

static void mover_done(struct rt_engine *e, struct eng_chan *c, bool err, uint64_t n)
{
	c->mst = M_IDLE;
	c->mv_due = RT_NEVER;
	if (c->chn == (int)ABB_CH_C2H && e->ddr)
		rt_board_rd_active(e->board, n, false);
	if (c->chn == (int)ABB_CH_H2C && !c->more)
		c->open = false;
	if (c->st == CH_RUN)
		chan_mv_done(e, c, err, n);
	else if (c->st == CH_DRAIN)
		c->due = umax(c->drain_from, n + 1);
}

/* abb_h2c_mover.sv StIssue / StWait at edge n (the cases without a request) */
static void h2c_mover_eval(struct rt_engine *e, struct eng_chan *c, uint64_t n)
{
	bool abort = draining(c, n), err = c->err && c->err_from <= n;

	c->mv_due = RT_NEVER;
	if (c->mst == M_GO) {
		if (c->rem == 0 && c->more && !abort && !err) {
			mover_done(e, c, false, n);
		} else if (c->rem == 0 || abort || err) {
			c->mst = M_WAIT;
			c->mv_due = n + 1;
		}
		return;
	}
	if (c->mst == M_WAIT) {
		uint64_t back = 0;

		if (c->out) {
			c->mv_due = RT_NEVER; /* a completion's landing looks again */
			return;
		}
		for (unsigned i = 0; i < NUM_TAGS; i++)
			back = umax(back, c->free_at[i]);
		if (back > n) {
			c->mv_due = back;
			return;
		}
		mover_done(e, c, err, n);
	}
}

static void c2h_mover_eval(struct rt_engine *e, struct eng_chan *c, uint64_t n)
{
	c->mv_due = RT_NEVER;
	if (c->mst == M_GO && (draining(c, n) || c->rem == 0))
		mover_done(e, c, false, n);
}

/* abb_dma_ctl.sv StCheck, StNext, StDrain at edge n; hold: the shared
 * engine as the edge before left it */
static void chan_eval(struct rt_engine *e, struct eng_chan *c, uint64_t n, bool hold)
{
	c->due = RT_NEVER;
	switch (c->st) {
	case CH_CHECK:
		if (hold) {
			c->held = true; /* the other channel's change looks again */
			return;
		}
		if (abb_refmodel_desc_check(e->core, c->chn, &c->d)) {
			abb_refmodel_chan_error(e->core, c->chn, ABB_GER_DESC_ERR, ABB_CTRL_EEI, false);
			enter_drain(e, c, true, n);
			return;
		}
		mover_start(e, c, n);
		if (c->more) {
			c->fst = F_HDR;
			c->f_at = n + 1;
			c->fdw = 0;
		}
		c->st = CH_RUN;
		ch_changed(e, c, n);
		return;
	case CH_NEXT:
		if (c->fst == F_DONE && c->f_at <= n) {
			abb_refmodel_desc_load(e->core, c->chn, c->nxt);
			c->fst = F_IDLE;
			c->st = CH_CHECK;
			c->due = n + 1;
			ch_changed(e, c, n);
		} else if (c->fst == F_ERR && c->f_at <= n) {
			abb_refmodel_chan_error(e->core, c->chn, ABB_GER_CPL_ERR,
						ABB_CTRL_EEI | ABB_CTRL_ESEI, false);
			c->fst = F_IDLE;
			enter_drain(e, c, true, n);
		} else if (c->fst == F_DONE || c->fst == F_ERR) {
			c->due = c->f_at;
		}
		return;
	case CH_DRAIN: {
		bool mv_busy = c->chn == (int)ABB_CH_H2C ? h2c_mover_busy(c) : c->mst != M_IDLE;

		if (c->fst == F_HDR)
			c->fst = F_IDLE; /* never sent: nothing to collect */
		if (mv_busy || c->fst == F_SENT || c->fst == F_WAIT)
			return; /* the mover's done, a landing or the prefetch looks again */
		if ((c->fst == F_DONE || c->fst == F_ERR) && c->f_at > n) {
			c->due = c->f_at;
			return;
		}
		if (c->chn == (int)ABB_CH_H2C) {
			uint64_t back = 0;

			for (unsigned i = 0; i < NUM_TAGS; i++)
				back = umax(back, c->free_at[i]);
			if (back > n) {
				c->due = back;
				return;
			}
			c->open = false;
			c->err = false;
		}
		abb_refmodel_chan_idle(e->core, c->chn, c->keep);
		c->keep = false;
		c->fst = F_IDLE;
		c->st = CH_IDLE;
		ch_changed(e, c, n);
		return;
	}
	default:
		return;
	}
}

/* --- RX and the PIO completer ---------------------------------------------- */


static void rx_pop(struct rt_engine *e)
{
	e->rxq.head = (e->rxq.head + 1) & (e->rxq.cap - 1);
	e->rxq.n--;
}

static void pio_capture(struct rt_engine *e, uint64_t n)
{
	struct rt_tlp *r = &e->rxq.v[e->rxq.head];
	struct rt_tlp *c = &e->pcpl;

	empty_tlp(c);
	c->kind = RT_CPLD;
	c->fc = RT_FC_CPL;
	c->hdr_dw = 3;
	c->origin = RT_O_PIO_CPL;
	c->tag = r->tag;
	c->ndw = (uint16_t)r->arg;
	c->bytes = r->bytes;
	c->bar = r->bar;
	c->pa = r->pa;
	if (r->bar == 0) {
		uint32_t v = abb_refmodel_reg_read(e->core, r->pa & ~3u);

		c->data[0] = (uint8_t)v;
		c->data[1] = (uint8_t)(v >> 8);
		c->data[2] = (uint8_t)(v >> 16);
		c->data[3] = (uint8_t)(v >> 24);
	} else {
		rt_mem_flush(e->t);
		abb_refmodel_mem_read(e->core, r->pa, c->data, r->bytes);
	}
	e->pst = P_GO;
	e->p_at = n + 1;
	e->pio_due = RT_NEVER;
	e->rdreq = false;
	rx_pop(e);
	e->rx_free = n + 1;
	rx_next(e);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A completion for the engine at its last beat (edge n). True when it
 * changed nothing the TX arbiter looks at (a mover's completion that
 * frees no tag: only the tag's pointer and count move). */
static bool cpl_land(struct rt_engine *e, const struct rt_tlp *tlp, uint64_t n)
{
	unsigned tag = tlp->tag;

	abb_refmodel_count(e->core, ABB_REFMODEL_CPL);
	if (tag == FETCH_TAG || tag == FETCH_TAG + 1) {
		struct eng_chan *c = tag == FETCH_TAG ? C2H(e) : H2C(e);

		if (c->fst != F_WAIT)
			return true;
		if (tlp->kind == RT_CPL) {
			c->fst = F_ERR;
			c->f_at = n + 1;
		} else {
			uint32_t off = 4u * c->fdw, take = tlp->bytes;

			if (off < DESC_BYTES) {
				if (take > DESC_BYTES - off)
					take = DESC_BYTES - off;
				rt_mem_flush(e->t); /* host memory read */
				if (e->t->host.dma(e->t->host.ctx, 0, tlp->addr, c->nxt + off, take))
					memset(c->nxt + off, 0, take);
			}
			c->fdw += tlp->ndw;
			if (tlp->last && c->fdw >= DESC_BYTES / 4u) {
				c->fst = F_DONE;
				c->f_at = n + 1;
				abb_refmodel_count(e->core, ABB_REFMODEL_DESC);
			}
		}
		if (c->fst == F_DONE || c->fst == F_ERR)
			c->due = umin(c->due, c->st == CH_NEXT || c->st == CH_DRAIN ? n + 1 : RT_NEVER);
		return false;
	}
	if (tag < NUM_TAGS) {
		struct eng_chan *c = H2C(e);
		uint32_t bit = 1u << tag;
		bool err_q = c->err && c->err_from <= n;

		if (!(c->out & bit))
			return true;
		if (tlp->kind == RT_CPL) {
			if (!c->err)
				c->err_from = n + 1;
			c->err = true;
			c->out &= ~bit;
			c->free_at[tag] = n + 1;
		} else {
			if (err_q || !tlp->bytes) {
				/* nothing written */
			} else if (c->tinc[tag]) {
				rt_h2c_defer(e->t, tlp->addr, c->ptr[tag], tlp->bytes);
			} else {
				rt_mem_flush(e->t);
				if (!e->t->host.dma(e->t->host.ctx, 0, tlp->addr, e->buf, tlp->bytes))
					abb_refmodel_h2c_data(e->core, c->ptr[tag], false, e->buf,
							      tlp->bytes);
			}
			if (c->tinc[tag])
				c->ptr[tag] += tlp->bytes;
			c->cnt[tag] = c->cnt[tag] > tlp->ndw ? c->cnt[tag] - tlp->ndw : 0;
			if (c->cnt[tag] == 0) {
				c->out &= ~bit;
				c->free_at[tag] = n + 1;
			}
		}
		if (c->mst == M_WAIT && !c->out)
			c->mv_due = n + 1;
		if (c->mst == M_GO && c->err)
			c->mv_due = umax(c->m_at, c->err_from);
		if (c->st == CH_DRAIN)
			c->due = umax(c->drain_from, n + 1);
		return (c->out & bit) != 0;
	}
	return true;
}

/* RX: the last beat of the TLP at its head, edge n; true when the TX
 * arbiter's inputs are as before (cpl_land) */
static bool rx_end(struct rt_engine *e, uint64_t n)
{
	struct rt_tlp *h = &e->rxq.v[e->rxq.head];

	e->rx_cur = false;
	rt_log(e->t, "down", h);
	rt_down_consumed(e->t, h);
	switch (h->origin) {
	case RT_O_PIO_WR:
		if (h->bar == 0) {
			if (h->bytes == 4 && h->pa % 4 == 0)
				abb_refmodel_reg_write(e->core, h->pa, le32(h->data));
		} else {
			rt_mem_flush(e->t);
			abb_refmodel_mem_write(e->core, h->pa, h->data, h->bytes);
		}
		break;
	case RT_O_PIO_RD:
		e->rdreq = true;
		e->rdreq_at = n;
		if (e->pst == P_IDLE)
			e->pio_due = n + 1;
		return false; /* RX waits in StRdReq */
	case RT_O_DEV_CPL: {
		bool same;

		/* popped first (RX is free from n + 1 for cpl_land's evaluation);
		 * the slot stays as it is until the next hand-over, which
		 * cpl_land never makes */
		rx_pop(e);
		e->rx_free = n + 1;
		same = cpl_land(e, h, n);
		rx_next(e);
		return same;
	}
	default:
		break;
	}
	rx_pop(e);
	e->rx_free = n + 1;
	rx_next(e);
	return false;
}

/* --- TX --------------------------------------------------------------------- */

static int h2c_free_tag(const struct eng_chan *c, unsigned limit, uint64_t x)
{
	uint32_t avail = ~c->out & ((1u << limit) - 1u);

	while (avail) {
		unsigned i = (unsigned)__builtin_ctz(avail);

		if (c->free_at[i] <= x)
			return (int)i;
		avail &= avail - 1;
	}
	return -1;
}

static unsigned h2c_limit(const struct rt_engine *e, const struct eng_chan *c)
{
	unsigned lim = abb_refmodel_tag_limit(e->core);

	lim = rt_board_tag_limit(e->board, lim); /* abb_top.sv tag_lim_eff */
	if (!c->inc)
		return 1;
	return lim == 0 || lim > NUM_TAGS ? NUM_TAGS : lim;
}

/* The first edge from x on at which source s may offer a TLP (as far as
 * known now; RT_NEVER: an event must come first). */
static uint64_t src_ready(struct rt_engine *e, int s, uint64_t x)
{
	struct eng_chan *c;

	switch (s) {
	case SRC_PIO:
		return e->pst == P_GO ? umax(x, e->p_at) : RT_NEVER;
	case SRC_C2H_FETCH:
	case SRC_H2C_FETCH:
		c = s == SRC_C2H_FETCH ? C2H(e) : H2C(e);
		if (c->fst != F_HDR)
			return RT_NEVER;
		x = umax(x, c->f_at);
		return draining(c, x) ? RT_NEVER : x; /* abb_dma_ctl.sv: not offered in StDrain */
	case SRC_C2H_MV:
		c = C2H(e);
		if (c->mst != M_GO || c->rem == 0)
			return RT_NEVER;
		x = umax(x, c->m_at);
		if (draining(c, x))
			return RT_NEVER;
		if (c->evs)
			x = evs_ready(e, x, chunk_dw(mps_dw(e), c->ha, c->rem));
		/* abb_top.sv c2h_gate: the DDR2 read-ahead holds the TLP's start */
		x = x == RT_NEVER || !e->ddr ? x : rt_board_rd_ready(e->board, x);
		return x == RT_NEVER || draining(c, x) ? RT_NEVER : x;
	case SRC_H2C_MV: {
		uint64_t best = RT_NEVER;
		unsigned lim;

		c = H2C(e);
		if (c->mst != M_GO || c->rem == 0)
			return RT_NEVER;
		x = umax(x, c->m_at);
		if (draining(c, x) || (c->err && c->err_from <= x))
			return RT_NEVER;
		lim = h2c_limit(e, c);
		/* the lowest free tag below the limit, or the one freed earliest */
		for (uint32_t avail = ~c->out & ((1u << lim) - 1u); avail; avail &= avail - 1) {
			unsigned i = (unsigned)__builtin_ctz(avail);

			if (c->free_at[i] <= x)
				return x;
			best = umin(best, c->free_at[i]);
		}
		return best;
	}
	default:
		return RT_NEVER;
	}
}

/* src_ready's first tests: false when it would say RT_NEVER at once */
static bool src_may(struct rt_engine *e, int s)
{
	switch (s) {
	case SRC_PIO:
		return e->pst == P_GO;
	case SRC_C2H_FETCH:
		return C2H(e)->fst == F_HDR;
	case SRC_H2C_FETCH:
		return H2C(e)->fst == F_HDR;
	case SRC_C2H_MV:
		return C2H(e)->mst == M_GO && C2H(e)->rem;
	case SRC_H2C_MV:
		return H2C(e)->mst == M_GO && H2C(e)->rem;
	default:
		return false;
	}
}

static bool src_valid(struct rt_engine *e, int s, uint64_t x)
{
	return src_may(e, s) && src_ready(e, s, x) == x;
}

/* The source's TLP, started at edge x. */
static void src_start(struct rt_engine *e, int s, uint64_t x)
{
	struct rt_tlp *m = &e->tx;
	struct eng_chan *c;

	switch (s) {
	case SRC_PIO:
		*m = e->pcpl;
		e->pst = P_TX;
		return;
	case SRC_C2H_FETCH:
	case SRC_H2C_FETCH:
		c = s == SRC_C2H_FETCH ? C2H(e) : H2C(e);
		empty_tlp(m);
		m->kind = RT_MRD;
		m->fc = RT_FC_NP;
		m->hdr_dw = c->d.bda >> 32 ? 4 : 3;
		m->origin = RT_O_DEV_READ;
		m->tag = (uint16_t)(s == SRC_C2H_FETCH ? FETCH_TAG : FETCH_TAG + 1);
		m->addr = c->d.bda;
		m->bytes = DESC_BYTES;
		c->fst = F_SENT;
		e->tx_chn = c->chn;
		return;
	case SRC_C2H_MV: {
		uint32_t k;

		c = C2H(e);
		k = chunk_dw(mps_dw(e), c->ha, c->rem);
		if (e->ddr)
			rt_board_take(e->board, x); /* abb_top.sv rd_take_i: c2h_tlp */
		if (c->evs) {
			evs_run(e, &e->evs, x);
			evs_take(&e->evs, k);
		}
		rt_c2h_mwr(m, c, k);
		c->mst = M_TX;
		abb_refmodel_count(e->core, ABB_REFMODEL_C2H_TLP);
		e->tx_chn = c->chn;
		return;
	}
	case SRC_H2C_MV: {
		uint32_t k;
		int tag;

		c = H2C(e);
		tag = h2c_free_tag(c, h2c_limit(e, c), x);
		k = chunk_dw(mrrs_dw(e), c->ha, c->rem);
		empty_tlp(m);
		m->kind = RT_MRD;
		m->fc = RT_FC_NP;
		m->hdr_dw = c->ha >> 32 ? 4 : 3;
		m->origin = RT_O_DEV_READ;
		m->tag = (uint16_t)tag;
		m->addr = c->ha;
		m->bytes = 4u * k;
		m->arg = (uint32_t)tag;
		c->ptr[tag] = c->pa;
		c->cnt[tag] = k;
		c->tinc[tag] = c->inc;
		c->ha += 4u * k;
		c->rem -= k;
		if (c->inc)
			c->pa += 4u * k;
		c->mst = M_TX;
		abb_refmodel_count(e->core, ABB_REFMODEL_H2C_REQ);
		e->tx_chn = c->chn;
		return;
	}
	default:
		return;
	}
}

/* TX at edge x: the arbiter picks, the hard IP takes the first beat. */
static void tx_decide(struct rt_engine *e, uint64_t x)
{
	bool valid[NSRC], any = false, held = false, hold;
	uint64_t sampled = x ? rt_up_unsent_at_edge(e->t, rt_edge_time(e->t, x - 1)) : 0;
	unsigned av, pick = NSRC;

	e->tx_due = RT_NEVER;
	e->c2h_held = false;
	/* the free 128-byte units the hard IP reported at the edge before
	 * (HardIp::tx_buf_av, at most 63), registered by the arbiter */
	av = (unsigned)((TX_BUFFER_BYTES - umin(sampled, TX_BUFFER_BYTES)) / 128u);
	hold = umin(av, 63) < TX_POSTED_MIN_AV;
	for (int s = 0; s < NSRC; s++) {
		valid[s] = src_valid(e, s, x);
		if (valid[s] && s == SRC_C2H_MV && hold) {
			valid[s] = false;
			held = true;
		}
		any |= valid[s];
	}
	if (!any) {
		/* posted hold: the unit count this edge samples allows it at the
		 * next, or the link must take bytes first */
		if (held && rt_up_unsent(e->t) <= TX_BUFFER_BYTES - 128u * TX_POSTED_MIN_AV)
			e->tx_due = x + 1;
		else if (held)
			e->c2h_held = true;
		return;
	}
	for (unsigned k = 1; k <= NSRC; k++) {
		unsigned s = (e->tx_last + k) % NSRC;

		if (valid[s]) {
			pick = s;
			break;
		}
	}
	/* HardIp::tx_accept: a new TLP only while the buffer has room */
	if (rt_up_unsent(e->t) >= TX_BUFFER_BYTES) {
		e->tx_full = true;
		return;
	}
	e->tx_last = pick;
	e->tx_src = (int)pick;
	src_start(e, (int)pick, x);
	e->tx_busy = true;
	e->tx_end = x + rt_beats(&e->tx) - 1;
}

/* TX at the last beat of its TLP, edge n: the hard IP hands it to the link. */
static void tx_finish(struct rt_engine *e, uint64_t n)
{
	struct eng_chan *c;

	e->tx_busy = false;
	rt_log(e->t, "up", &e->tx);
	rt_up_submit(e->t, &e->tx);
	switch (e->tx_src) {
	case SRC_PIO:
		e->pst = P_IDLE;
		if (e->rdreq)
			e->pio_due = umax(n + 1, e->rdreq_at + 1);
		break;
	case SRC_C2H_FETCH:
	case SRC_H2C_FETCH:
		c = &e->ch[e->tx_chn];
		if (c->fst == F_SENT)
			c->fst = F_WAIT;
		break;
	case SRC_C2H_MV:
		c = C2H(e);
		if (c->rem == 0 || draining(c, n)) {
			mover_done(e, c, false, n);
		} else {
			c->mst = M_GO;
			c->m_at = n + 1;
			if (c->st == CH_DRAIN)
				c->mv_due = umax(n + 1, c->drain_from);
		}
		break;
	case SRC_H2C_MV: {
		unsigned tag = e->tx.arg;

		c = H2C(e);
		c->out |= 1u << tag;
		c->mst = M_GO;
		c->m_at = n + 1;
		if (c->rem == 0 || c->st == CH_DRAIN || c->err)
			c->mv_due = n + 1;
		break;
	}
	default:
		break;
	}
	for (unsigned i = 0; i < e->nafter; i++)
		msg_send(e, e->after[i]);
	e->nafter = 0;
}

static uint64_t tx_candidate(struct rt_engine *e, uint64_t from)
{
	uint64_t best = RT_NEVER;

	if (e->tx_busy)
		return e->tx_end;
	if (e->tx_full)
		return RT_NEVER;
	if (e->tx_due != RT_NEVER)
		best = umax(e->tx_due, from);
	/* only the sources src_ready could find ready (src_may, unrolled) */
	if (e->pst == P_GO)
		best = umin(best, src_ready(e, SRC_PIO, from));
	if (C2H(e)->fst == F_HDR)
		best = umin(best, src_ready(e, SRC_C2H_FETCH, from));
	if (H2C(e)->fst == F_HDR)
		best = umin(best, src_ready(e, SRC_H2C_FETCH, from));
	if (!e->c2h_held && C2H(e)->mst == M_GO && C2H(e)->rem)
		best = umin(best, src_ready(e, SRC_C2H_MV, from));
	if (H2C(e)->mst == M_GO && H2C(e)->rem)
		best = umin(best, src_ready(e, SRC_H2C_MV, from));
	return best;
}

/* --- the engine's schedule ------------------------------------------------- */

/* keep: the TX arbiter's inputs are as when the candidate was found, and
 * it is at or after from: it stands (src_ready's first ready edge from
 * then on is the same from any edge up to it) */
static inline void schedule_keep(struct rt_engine *e, uint64_t from, bool keep)
{
	uint64_t n = RT_NEVER;

	if (e->rx_cur)
		n = umin(n, e->rx_end);
	n = umin(n, e->pio_due);
	if (!keep || e->tx_cand < from)
		e->tx_cand = tx_candidate(e, from);
	e->tx_cand_ok = true;
	n = umin(n, e->tx_cand);
	for (int i = 0; i < 2; i++) {
		n = umin(n, e->ch[i].due);
		n = umin(n, e->ch[i].mv_due);
	}
	n = umin(n, e->irq_due);
	n = umin(n, e->ig_due);
	e->next = n == RT_NEVER ? RT_NEVER : umax(n, from);
}

static void schedule(struct rt_engine *e, uint64_t from)
{
	schedule_keep(e, from, false);
}


void rt_engine_edge(struct rt_engine *e, uint64_t n)
{
	struct eng_chan *c2h = C2H(e), *h2c = H2C(e);
	bool sample = e->irq_due == n, level = e->line;
	/* the shared engine as the edge before left it (abb_top.sv), for a
	 * channel's evaluation only: worked out when one is due at n (nothing
	 * during the edge makes a channel due at n: every due set is n + 1 on) */
	bool shared = (c2h->due == n || h2c->due == n) && abb_refmodel_shared_engine(e->core);
	bool c2h_hold = shared && ch_active(h2c);
	bool h2c_hold = shared && (ch_active(c2h) || (c2h->st != CH_IDLE && !c2h_hold));
	bool fresh = e->tx_cand_ok; /* nothing changed since schedule() */
	bool keep; /* and nothing the TX arbiter looks at changes at this edge */

	if (e->ddr)
		rt_board_edge(e->board, n);
	e->last = n;
	e->started = true;
	e->tx_cand_ok = false;
	if (sample)
		e->irq_due = RT_NEVER;
	if (e->pio_due == n) {
		pio_capture(e, n);
		fresh = false;
	}
	if (e->rx_cur && e->rx_end == n && !rx_end(e, n))
		fresh = false;
	/* the DDR2 arbiter's read-ahead moves at every edge */
	keep = fresh && !e->ddr;
	if (e->tx_busy && e->tx_end == n) {
		tx_finish(e, n);
		keep = false;
	} else if (!e->tx_busy && (fresh ? e->tx_cand == n : tx_candidate(e, n) == n)) {
		tx_decide(e, n);
		keep = false;
	}
	if (h2c->mv_due == n) {
		h2c_mover_eval(e, h2c, n);
		keep = false;
	}
	if (c2h->mv_due == n) {
		c2h_mover_eval(e, c2h, n);
		keep = false;
	}
	if (c2h->due == n) {
		chan_eval(e, c2h, n, c2h_hold);
		keep = false;
	}
	if (h2c->due == n) {
		chan_eval(e, h2c, n, h2c_hold);
		keep = false;
	}
	if (e->ig_due == n) {
		e->ig_due = RT_NEVER;
		abb_refmodel_igen_fire(e->core);
		keep = false;
	}
	if (sample && level != e->lvl) {
		irq_update(e, level, n);
		keep = false;
	}
	schedule_keep(e, n + 1, keep);
}


void rt_engine_tx_space(struct rt_engine *e)
{
	uint64_t at;

	if (!e->tx_full && !e->c2h_held)
		return; /* nothing waits for room (the edge's time not worked out) */
	at = e->t->in_edge ? e->last + 1 : lower_bound(e);
	if (e->tx_full) {
		e->tx_full = false;
		e->tx_due = umin(e->tx_due, at);
	} else if (e->c2h_held && rt_up_unsent(e->t) <= TX_BUFFER_BYTES - 128u * TX_POSTED_MIN_AV) {
		e->c2h_held = false;
		e->tx_due = umin(e->tx_due, at);
	} else {
		return;
	}
	if (!e->t->in_edge)
		schedule(e, lower_bound(e));
}

/* --- the H2C stream (ref_timing.c h2c_stream_run) --------------------------
 *
 * An edge at which only RX ends a mover's completion with data (an
 * outstanding tag, no error on the channel, the DDR2 arbiter off) and
 * nothing else of the engine is due, schedule()'s candidate current:
 * rt_engine_edge would run rx_end (its DEV_CPL case and cpl_land's mover
 * case, here in place) and then schedule(n + 1), the candidate kept while
 * the tag stays out (cpl_land changed nothing the arbiter looks at). A tag
 * freed counts as free from n + 1 (free_at), so no source is newly ready
 * at n and rt_engine_edge's test tx_candidate(e, n) == n fails: the kept
 * candidate is at n + 1 or later (it is at or after the edge and not n),
 * the first ready edge of every other source. Such an edge touches
 * neither link (the completion's credits have no limit, the stream's
 * condition) nor the root complex. */
/* An edge at which only TX acts and only for the H2C mover (nothing else
 * due, the candidate current): its read request's decide (the mover the
 * only source that can be ready: tx_decide's pick without a choice, the
 * posted hold concerns the C2H mover only; a full buffer is left to
 * rt_engine_edge) or its last beat (tx_finish's SRC_H2C_MV case, no
 * message behind it), then schedule(n + 1) as rt_engine_edge does. 1, 2
 * (done, a TLP handed to the up link), or 0 (nothing done). */
static int h2c_tx_edge(struct rt_engine *e, uint64_t n)
{
	struct eng_chan *c = H2C(e), *d = C2H(e);

	if ((e->rx_cur && e->rx_end == n) || e->irq_due == n || e->pio_due == n ||
	    e->ig_due == n || c->due == n || c->mv_due == n || d->due == n || d->mv_due == n)
		return 0;
	if (e->tx_busy) {
		if (e->tx_end != n || e->tx_src != SRC_H2C_MV || e->nafter)
			return 0;
		e->last = n;
		e->started = true;
		e->tx_cand_ok = false;
		tx_finish(e, n); /* its SRC_H2C_MV case, no message behind it */
		schedule(e, n + 1);
		return 2;
	}
	if (e->tx_cand != n || e->tx_due != RT_NEVER || e->tx_full || e->pst == P_GO ||
	    d->fst == F_HDR || c->fst == F_HDR || (d->mst == M_GO && d->rem) ||
	    !src_valid(e, SRC_H2C_MV, n) || rt_up_unsent(e->t) >= TX_BUFFER_BYTES)
		return 0;
	e->last = n;
	e->started = true;
	e->tx_cand_ok = false;
	/* tx_decide, the H2C mover the only valid source */
	e->tx_due = RT_NEVER;
	e->c2h_held = false;
	e->tx_last = SRC_H2C_MV;
	e->tx_src = SRC_H2C_MV;
	src_start(e, SRC_H2C_MV, n);
	e->tx_busy = true;
	e->tx_end = n + rt_beats(&e->tx) - 1;
	schedule(e, n + 1);
	return 1;
}

int rt_engine_h2c_edge(struct rt_engine *e, uint64_t n)
{
	struct eng_chan *c = H2C(e);
	const struct rt_tlp *h;
	bool same;

	if (!e->tx_cand_ok)
		return 0;
	if (!e->rx_cur || e->rx_end != n)
		return h2c_tx_edge(e, n);
	if (e->irq_due == n ||
	    e->pio_due == n || e->ig_due == n || (e->tx_busy ? e->tx_end == n : e->tx_cand == n) ||
	    c->due == n || c->mv_due == n || e->ch[ABB_CH_C2H].due == n ||
	    e->ch[ABB_CH_C2H].mv_due == n)
		return 0;
	h = &e->rxq.v[e->rxq.head];
	if (h->origin != RT_O_DEV_CPL || h->kind != RT_CPLD || h->tag >= NUM_TAGS ||
	    !(c->out >> h->tag & 1u) || c->err)
		return 0;
	/* rt_engine_edge with only RX's end due: rx_end, a mover's completion
	 * with data and no error (cpl_land's tag case) */
	e->last = n;
	e->started = true;
	e->tx_cand_ok = false;
	same = rx_end(e, n);
	schedule_keep(e, n + 1, same);
	return 1;
}

/* RX starts a TLP at the first edge at or after its arrival that it is
 * free (rx_next), whenever it was handed over; only the DDR2 arbiter's
 * write of the payload beats (rt_board_write, at the board's own edges)
 * needs the hand-over in time order. */
bool rt_engine_early_rx(const struct rt_engine *e)
{
	return !e->ddr;
}

bool rt_engine_idle(const struct rt_engine *e)
{
	return e->next == RT_NEVER;
}

/* --- the core's hooks (ref_model.h abb_refmodel_timed) -------------------- */

/* every hook: the engine's state may change (schedule() looks again) */
static struct rt_engine *E(void *ctx)
{
	struct rt_engine *e = ctx;

	e->tx_cand_ok = false;
	return e;
}

/* the edge being evaluated (every hook comes from a register write at an
 * RX edge, or from the engine's own edge) */
static uint64_t cur(const struct rt_engine *e)
{
	return e->last;
}

static void hk_start(void *ctx, int chn)
{
	struct rt_engine *e = E(ctx);
	struct eng_chan *c = &e->ch[chn];

	c->st = CH_CHECK;
	c->held = false;
	c->due = cur(e) + 1;
	ch_changed(e, c, cur(e));
}

static void hk_reset(void *ctx, int chn, bool soft)
{
	struct rt_engine *e = E(ctx);
	struct eng_chan *c = &e->ch[chn];

	(void)soft;
	if (c->st == CH_IDLE)
		return;
	if (c->st == CH_DRAIN) {
		c->keep = false;
		return;
	}
	enter_drain(e, c, false, cur(e));
}

static void hk_evs_ctrl(void *ctx, bool enable, bool clear)
{
	struct rt_engine *e = E(ctx);
	uint64_t w = cur(e);

	/* the write's edge runs with the old enable; CLEAR empties the FIFO at it */
	evs_run(e, &e->evs, w);
	if (clear) {
		e->evs.used = e->evs.half = e->evs.pos = e->evs.gap = 0;
	}
	e->evs.en = enable;
	rt_board_link(e->board, w, enable); /* abb_top.sv link_en_i: evs_enable */
}

static void hk_igen_arm(void *ctx, uint32_t lat)
{
	struct rt_engine *e = E(ctx);
	uint64_t k = (lat + e->ig_unit - 1) / e->ig_unit;

	e->ig_due = cur(e) + (k ? k : 1);
}

static void hk_igen_stop(void *ctx)
{
	E(ctx)->ig_due = RT_NEVER;
}

static void hk_line(void *ctx, bool level)
{
	struct rt_engine *e = E(ctx);

	e->line = level;
	e->irq_due = umin(e->irq_due, cur(e) + 1);
}

static uint64_t hk_cycles(void *ctx)
{
	struct rt_engine *e = E(ctx);

	/* DIAG_CYC as the PIO completer captures it: the count after the edge before */
	return e->last ? e->last - 1 : 0;
}

static unsigned size_code(unsigned bytes)
{
	unsigned c = 0;

	while (c < 5 && (128u << c) < bytes)
		c++;
	return c;
}

struct rt_engine *rt_engine_create(struct abb_reftime *t)
{
	struct rt_engine *e = calloc(1, sizeof *e);
	struct abb_refmodel_timed hooks = {
		.start = hk_start,
		.reset = hk_reset,
		.evs_ctrl = hk_evs_ctrl,
		.igen_arm = hk_igen_arm,
		.igen_stop = hk_igen_stop,
		.line = hk_line,
		.cycles = hk_cycles,
	};

	if (!e)
		return NULL;
	e->buf = malloc(4096);
	e->board = rt_board_create(&t->p, t->mhz);
	if (!e->buf || !e->board) {
		free(e->buf);
		rt_board_destroy(e->board);
		free(e);
		return NULL;
	}
	e->t = t;
	e->core = t->core;
	e->ddr = rt_board_on(e->board);
	e->next = RT_NEVER;
	e->pio_due = e->tx_due = e->irq_due = e->ig_due = RT_NEVER;
	for (int i = 0; i < 2; i++) {
		e->ch[i].chn = i;
		e->ch[i].due = e->ch[i].mv_due = RT_NEVER;
		e->ch[i].drain_from = RT_NEVER;
	}
	/* sim/rtl_model.cpp rtl_clk_ns: the RTL's ClkNs; the generator counts
	 * ClkNs / 4 units per edge (abb_regs.sv) */
	e->ig_unit = (t->mhz >= 188 ? 4u : 8u) / 4u;
	hooks.mps_code = size_code(t->p.mps);
	hooks.mrrs_code = size_code(t->p.mrrs);
	hooks.ctx = e;
	abb_refmodel_set_timed(t->core, &hooks);
	return e;
}

void rt_engine_destroy(struct rt_engine *e)
{
	if (!e)
		return;
	free(e->rxq.v);
	free(e->buf);
	rt_board_destroy(e->board);
	free(e);
}
