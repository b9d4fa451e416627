/*
 * ref_board.c - the on-board DDR2 buffer's arbiter and the endpoint's read
 * limits for the timed reference model (ref_board.h).
 *
 * The arbiter is rtl-model/abb_ddr2_arb.sv's always_comb block, ported
 * line by line with its registers' widths (ddr_step), stepped edge by edge
 * lazily: the engine calls rt_board_edge at its own edges only, and the
 * edges between (the arbiter works on every edge while the upstream mover
 * is busy) are stepped then; a stretch without reads whose state repeats
 * (the link input's writes, or nothing) is skipped a whole number of
 * periods at once. rt_board_rd_ready steps a copy forward to the edge the
 * read-ahead level first holds a Max_Payload_Size, cached until an input
 * changes.
 *
 * The constants and where they come from:
 *  - DDR_DEPTH 2048 DWs: abb_ddr2_arb.sv parameter Depth (abb_top.sv
 *    instantiates it with the default);
 *  - the register widths (ddr_step's masks): lat_q 11 bits, bus_q 11 bits,
 *    wr_q 16 bits saturating, row_q 16 bits, link_q 4 bits (sixteenths of
 *    a DW), burst_cyc 11 bits: abb_ddr2_arb.sv's declarations (wide
 *    enough since 2026-12-04: a 1024-cycle burst with its turnaround or
 *    row change and latency, at most 1533, wrapped before);
 *  - the cfg fields as sim/params.cpp board_cfg_word packs them: ns in
 *    user-clock cycles rounded up (abbsim_ns_cycles), link_mbps in
 *    sixteenths of a DW per cycle rounded up, at most 63
 *    (abbsim_link_dw16, the cfg field's 6 bits);
 *  - DDR_WR_FORCE 0x1000 DWs waiting: a write burst goes even where it
 *    does not fit a gap (abb_ddr2_arb.sv, wr_d >= 16'h1000);
 *  - NUM_TAGS 16: abb_top.sv NumTags (the endpoint's limits, ep_lim).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_board.h"

#define RT_NEVER UINT64_MAX
#define DDR_DEPTH 2048u    /* abb_ddr2_arb.sv Depth */
#define DDR_WR_FORCE 0x1000u /* abb_ddr2_arb.sv: wr_d >= 16'h1000 */
#define NUM_TAGS 16u       /* abb_top.sv NumTags */
#define MAX_CHG 8u         /* pending input changes per input (a few edges' worth) */
#define MAX_SEG 16u        /* completions whose beats are known (RX: one at a time) */

/* abb_ddr2_arb.sv's registers */
struct ddr_state {
	uint32_t lvl, bus, lat, wr, row, link;
	bool act;
};

/* an input's value from an edge on */
struct chg {
	uint64_t from;
	bool on;
};

/* wr_dw_i over [from, to]: dw a beat, last_dw at to */
struct seg {
	uint64_t from, to;
	uint8_t dw, last_dw;
};

/* where the stepping stands in the inputs */
struct cursor {
	bool act, link;
	unsigned ai, li, si; /* next unapplied change / first live segment */
};

struct rt_board {
	bool en;
	unsigned burst_log2, row_log2;
	uint32_t rd_lat, row_cycles, wr_gap, link_dw16;
	uint32_t burst_dw, burst_cyc, take_dw;
	unsigned ep_lim;

	struct ddr_state s; /* the registers at edge next (after edge next-1) */
	uint64_t next;
	struct cursor c;
	uint64_t take_at;   /* rd_take_i at this edge (RT_NEVER: none pending) */
	struct chg act[MAX_CHG], link[MAX_CHG];
	unsigned nact, nlink;
	struct seg seg[MAX_SEG];
	unsigned nseg;

	uint64_t gen;       /* bumped by every input */
	uint64_t c_gen, c_from, c_ready; /* rt_board_rd_ready's cache */
};

static unsigned log2u(unsigned v)
{
	return v ? 31u - (unsigned)__builtin_clz(v) : 0;
}

/* sim/params.cpp abbsim_ns_cycles: whole user-clock cycles, rounded up */
static unsigned ns_cycles(unsigned ns, unsigned mhz)
{
	return (unsigned)(((uint64_t)ns * mhz + 999) / 1000);
}

int rt_board_check(const struct abbsim_params *p, unsigned mhz, char *msg, size_t n)
{
	/* sim/params.cpp abbsim_params_check, the board's lines */
	const unsigned ns[3] = {p->ddr_lat_ns, p->ddr_row_ns, p->ddr_wr_ns};
	const char *const nm[3] = {"ddr_lat_ns", "ddr_row_ns", "ddr_wr_ns"};

	if (p->ddr > 1) {
		snprintf(msg, n, "ddr %u: accepted 0 or 1", p->ddr);
		return -EINVAL;
	}
	if (p->ddr_burst < 8 || p->ddr_burst > 4096 || (p->ddr_burst & (p->ddr_burst - 1))) {
		snprintf(msg, n, "ddr_burst %u: accepted a power of 2 from 8 to 4096", p->ddr_burst);
		return -EINVAL;
	}
	if (p->ddr_width < 4 || p->ddr_width > 32 || (p->ddr_width & (p->ddr_width - 1))) {
		snprintf(msg, n, "ddr_width %u: accepted 4, 8, 16 or 32", p->ddr_width);
		return -EINVAL;
	}
	if (p->ddr_row &&
	    (p->ddr_row < 256 || p->ddr_row > 32768 || (p->ddr_row & (p->ddr_row - 1)))) {
		snprintf(msg, n, "ddr_row %u: accepted 0 or a power of 2 from 256 to 32768",
			 p->ddr_row);
		return -EINVAL;
	}
	for (unsigned i = 0; i < 3; i++)
		if (ns_cycles(ns[i], mhz) > 255) {
			snprintf(msg, n, "%s %u: accepted 0..%u at %u MHz (255 cycles)", nm[i], ns[i],
				 255u * 1000u / mhz, mhz);
			return -EINVAL;
		}
	if (p->ep_reads > 255) {
		snprintf(msg, n, "ep_reads %u: accepted 0 (no limit) or 1..255", p->ep_reads);
		return -EINVAL;
	}
	if (p->ep_rx % 256 || p->ep_rx > 65280) {
		snprintf(msg, n, "ep_rx %u: accepted 0 (no limit) or a multiple of 256 up to 65280",
			 p->ep_rx);
		return -EINVAL;
	}
	if (p->rc_reads > 256) {
		snprintf(msg, n, "rc_reads %u: accepted 0 (no limit) or 1..256", p->rc_reads);
		return -EINVAL;
	}
	return 0;
}

/* abb_top.sv ep_lim: ep_reads (at most NumTags), or the reads of MRRS that
 * fit ep_rx ({ep_rx / 256, 1'b0} >> the MRRS code, at least 1) if fewer */
static unsigned ep_limit(const struct abbsim_params *p)
{
	unsigned code = p->mrrs >= 128 ? log2u(p->mrrs / 128u) : 0;
	unsigned rx_reads = ((p->ep_rx / 256u) << 1) >> code;
	unsigned lim = 0;

	if (p->ep_rx && rx_reads == 0)
		rx_reads = 1;
	if (p->ep_reads)
		lim = p->ep_reads >= NUM_TAGS ? NUM_TAGS : p->ep_reads;
	if (p->ep_rx && rx_reads < NUM_TAGS && (lim == 0 || rx_reads < lim))
		lim = rx_reads;
	return lim;
}

struct rt_board *rt_board_create(const struct abbsim_params *p, unsigned mhz)
{
	struct rt_board *b = calloc(1, sizeof *b);
	unsigned width_log2, dw16;

	if (!b)
		return NULL;
	b->ep_lim = ep_limit(p);
	b->take_at = RT_NEVER;
	b->c_gen = UINT64_MAX;
	b->en = p->ddr != 0;
	if (!b->en)
		return b;
	/* sim/params.cpp board_cfg_word, then abb_ddr2_arb.sv's assigns */
	b->burst_log2 = log2u(p->ddr_burst);
	width_log2 = log2u(p->ddr_width);
	b->rd_lat = ns_cycles(p->ddr_lat_ns, mhz);
	b->row_cycles = ns_cycles(p->ddr_row_ns, mhz);
	b->row_log2 = log2u(p->ddr_row);
	b->wr_gap = ns_cycles(p->ddr_wr_ns, mhz);
	dw16 = (unsigned)(((uint64_t)p->link_mbps * 4 + mhz - 1) / mhz);
	b->link_dw16 = dw16 < 63 ? dw16 : 63;
	b->burst_dw = 1u << (b->burst_log2 - 2);
	b->burst_cyc = (1u << (b->burst_log2 > width_log2 ? b->burst_log2 - width_log2 : 0)) & 0x7ffu;
	b->take_dw = (p->mps / 4u) & 0x7ffu; /* take_dw_i: abb_top's mps_dw */
	return b;
}

void rt_board_destroy(struct rt_board *b)
{
	free(b);
}

unsigned rt_board_tag_limit(const struct rt_board *b, unsigned lim)
{
	/* abb_top.sv tag_lim_eff */
	return b->ep_lim && (lim == 0 || lim > b->ep_lim) ? b->ep_lim : lim;
}

/* abb_ddr2_arb.sv always_comb, one edge: s from the _q values to the _d */
static void ddr_step(const struct rt_board *b, struct ddr_state *s, bool rd_active, bool take,
		     unsigned wr_dw, bool link_en)
{
	struct ddr_state d = *s;
	uint32_t link_sum = (link_en ? b->link_dw16 : 0) + s->link;
	uint32_t wsum = s->wr + wr_dw + (link_sum >> 4);

	d.act = rd_active;
	d.link = link_sum & 15u;
	d.wr = wsum > 0xffffu ? 0xffffu : wsum;
	if (s->lat)
		d.lat = s->lat - 1;
	if (rd_active && !s->act)
		d.lat = b->rd_lat; /* first access latency */
	if (!rd_active)
		d.lvl = 0;
	else if (take)
		d.lvl = s->lvl > b->take_dw ? s->lvl - b->take_dw : 0;
	if (s->bus) {
		d.bus = s->bus - 1;
	} else if (rd_active && s->act && s->lat == 0 && d.lvl + b->burst_dw <= DDR_DEPTH) {
		/* a read burst: its data now, the next one after the latency */
		uint32_t rsum = s->row + (1u << b->burst_log2);

		d.lvl += b->burst_dw;
		d.bus = (b->burst_cyc - 1u) & 0x7ffu;
		d.lat = (b->burst_cyc + b->rd_lat - 1u) & 0x7ffu;
		d.row = rsum & 0xffffu;
		if (b->row_log2 && rsum >= (1u << b->row_log2)) {
			d.row = 0;
			d.bus = (d.bus + b->row_cycles) & 0x7ffu;
			d.lat = (d.lat + b->row_cycles) & 0x7ffu;
		}
	} else if ((d.wr >= b->burst_dw || (d.wr && !rd_active)) &&
		   (!rd_active || !s->act || d.wr >= DDR_WR_FORCE ||
		    d.lat >= ((b->burst_cyc + b->wr_gap) & 0x7ffu))) {
		/* a write burst (partial when no read runs), in a gap it ends inside */
		d.wr = d.wr > b->burst_dw ? d.wr - b->burst_dw : 0;
		d.bus = (b->burst_cyc - 1u + b->wr_gap) & 0x7ffu;
	}
	*s = d;
}

static bool same(const struct ddr_state *a, const struct ddr_state *b)
{
	return a->lvl == b->lvl && a->bus == b->bus && a->lat == b->lat && a->wr == b->wr &&
	       a->row == b->row && a->link == b->link && a->act == b->act;
}

/* the edge the inputs change next from k on (k: at k, or a completion's
 * beats run at k; RT_NEVER: they stay); segs 0: completion beats left out */
static uint64_t next_change_of(const struct rt_board *b, const struct cursor *c, uint64_t k,
			       bool segs)
{
	uint64_t n = RT_NEVER;

	if (c->ai < b->nact)
		n = b->act[c->ai].from;
	if (c->li < b->nlink && b->link[c->li].from < n)
		n = b->link[c->li].from;
	if (segs && c->si < b->nseg && b->seg[c->si].from < n)
		n = b->seg[c->si].from;
	if (b->take_at != RT_NEVER && b->take_at >= k && b->take_at < n)
		n = b->take_at;
	return n < k ? k : n;
}

static uint64_t next_change(const struct rt_board *b, const struct cursor *c, uint64_t k)
{
	return next_change_of(b, c, k, true);
}

/* wr_dw_i at edge k and the edge it may change next */
static unsigned seg_dw(const struct rt_board *b, struct cursor *c, uint64_t k, uint64_t *until)
{
	unsigned i;

	while (c->si < b->nseg && b->seg[c->si].to < k)
		c->si++; /* (passed) */
	i = c->si;
	if (i == b->nseg) {
		*until = RT_NEVER;
		return 0;
	}
	if (b->seg[i].from > k) {
		*until = b->seg[i].from;
		return 0;
	}
	if (k == b->seg[i].to) {
		*until = k + 1;
		return b->seg[i].last_dw;
	}
	*until = b->seg[i].to;
	return b->seg[i].dw;
}

/* one edge k with the inputs at it */
static void step_edge(const struct rt_board *b, struct ddr_state *s, struct cursor *c, uint64_t k)
{
	unsigned wr = 0;

	while (c->ai < b->nact && b->act[c->ai].from <= k)
		c->act = b->act[c->ai++].on;
	while (c->li < b->nlink && b->link[c->li].from <= k)
		c->link = b->link[c->li++].on;
	while (c->si < b->nseg && b->seg[c->si].to < k)
		c->si++;
	if (c->si < b->nseg && b->seg[c->si].from <= k)
		wr = k == b->seg[c->si].to ? b->seg[c->si].last_dw : b->seg[c->si].dw;
	ddr_step(b, s, c->act, b->take_at == k, wr, c->link);
}

/* Edges [*k, lim) with constant inputs (no take, no completion beats, no
 * change) and nothing to write (wr_q 0, no link input): only the counters
 * run down and reads start, so the edges between are jumped over; stops
 * early once a read burst brought lvl to until_lvl. Exact: every edge
 * skipped is one where abb_ddr2_arb.sv only decrements bus_q and lat_q. */
static void run_quiet(const struct rt_board *b, struct ddr_state *s, struct cursor *c, uint64_t *k,
		      uint64_t lim, uint32_t until_lvl)
{
	while (*k < lim && s->lvl < until_lvl) {
		uint64_t m;

		if (c->act != s->act || (c->act && s->bus == 0 && s->lat == 0 &&
					 s->lvl + b->burst_dw <= DDR_DEPTH)) {
			step_edge(b, s, c, *k); /* the first edge of a change, or a read */
			(*k)++;
			continue;
		}
		/* bus_q and lat_q count down; with both 0 (no read: the mover
		 * idle or the FIFO full) nothing changes until lim */
		m = s->bus > s->lat ? s->bus : s->lat;
		if (m == 0 || m > lim - *k)
			m = lim - *k;
		s->bus = s->bus > m ? s->bus - (uint32_t)m : 0;
		s->lat = s->lat > m ? s->lat - (uint32_t)m : 0;
		if (!c->act)
			s->lvl = 0;
		*k += m;
	}
}

/* Edges [*k, to) without reads (the mover idle, act_q low) and without
 * the link input: only the downstream mover's completion beats write.
 * While bus_q runs down the beats only add to wr_q: jumped over; an edge
 * with bus_q 0 and something to write starts a (partial) write burst
 * (stepped); with nothing to write the counters run down. Returns at the
 * first input change other than the beats. */
static void run_writes(const struct rt_board *b, struct ddr_state *s, struct cursor *c,
		       uint64_t *k, uint64_t to)
{
	while (*k < to) {
		uint64_t lim = next_change_of(b, c, *k, false), until, end, m;
		unsigned dw;

		if (lim == *k)
			return;
		dw = seg_dw(b, c, *k, &until);
		end = lim < until ? lim : until;
		if (end > to)
			end = to;
		if (s->bus == 0 && (s->wr != 0 || dw != 0)) {
			step_edge(b, s, c, *k); /* a write burst starts */
			(*k)++;
			continue;
		}
		m = s->bus ? s->bus : end - *k;
		if (m > end - *k)
			m = end - *k;
		{
			uint64_t w = s->wr + (uint64_t)dw * m;

			s->wr = w > 0xffffu ? 0xffffu : (uint32_t)w;
		}
		s->bus -= s->bus ? (uint32_t)m : 0;
		s->lat = s->lat > m ? s->lat - (uint32_t)m : 0;
		*k += m;
	}
}

/* Steps s from edge *k up to (not including) edge to, or (until_lvl) to
 * the first edge whose lvl_q is at least until_lvl. A stretch without
 * writes is jumped over (run_quiet); one without reads and input changes
 * whose state repeats (the link input's writes) is skipped by whole
 * periods after a settling run. */
static void run(const struct rt_board *b, struct ddr_state *s, struct cursor *c, uint64_t *k,
		uint64_t to, uint32_t until_lvl)
{
	while (*k < to && s->lvl < until_lvl) {
		uint64_t lim = next_change(b, c, *k);

		if (lim > to)
			lim = to;
		if (lim == *k && (c->act || s->act || (c->link && b->link_dw16) ||
				  next_change_of(b, c, *k, false) == *k)) {
			step_edge(b, s, c, *k); /* an input changes at *k */
			(*k)++;
			continue;
		}
		if (s->wr == 0 && (!c->link || b->link_dw16 == 0) && lim > *k) {
			run_quiet(b, s, c, k, lim, until_lvl);
			continue;
		}
		if (!c->act && !s->act && (!c->link || b->link_dw16 == 0) &&
		    next_change_of(b, c, *k, false) > *k) {
			run_writes(b, s, c, k, to);
			continue;
		}
		if (!c->act && !s->act && lim - *k > 8192) {
			struct ddr_state mark;
			uint64_t p = 0;

			/* (lim - *k > 8192: the settling and the search stay before lim) */
			for (unsigned i = 0; i < 64; i++, (*k)++)
				step_edge(b, s, c, *k);
			mark = *s;
			while (p < 4096) {
				step_edge(b, s, c, *k);
				(*k)++;
				p++;
				if (same(s, &mark))
					break;
			}
			if (same(s, &mark) && lim > *k)
				*k += (lim - *k) / p * p;
			continue;
		}
		while (*k < lim && s->lvl < until_lvl) {
			step_edge(b, s, c, *k);
			(*k)++;
		}
	}
}

/* The registers through edge n-1, for good; the inputs used up are dropped. */
static void sync(struct rt_board *b, uint64_t n)
{
	if (!b->en || b->next >= n)
		return;
	run(b, &b->s, &b->c, &b->next, n, UINT32_MAX);
	while (b->c.si < b->nseg && b->seg[b->c.si].to < b->next)
		b->c.si++;
	memmove(b->act, b->act + b->c.ai, (b->nact - b->c.ai) * sizeof b->act[0]);
	b->nact -= b->c.ai;
	memmove(b->link, b->link + b->c.li, (b->nlink - b->c.li) * sizeof b->link[0]);
	b->nlink -= b->c.li;
	memmove(b->seg, b->seg + b->c.si, (b->nseg - b->c.si) * sizeof b->seg[0]);
	b->nseg -= b->c.si;
	b->c.ai = b->c.li = b->c.si = 0;
	if (b->take_at != RT_NEVER && b->take_at < b->next)
		b->take_at = RT_NEVER;
}

bool rt_board_on(const struct rt_board *b)
{
	return b->en;
}

void rt_board_edge(struct rt_board *b, uint64_t n)
{
	sync(b, n);
}

static void add_chg(struct rt_board *b, struct chg *v, unsigned *nv, uint64_t from, bool on)
{
	if (*nv == MAX_CHG)
		sync(b, v[0].from + 1); /* (not reached: changes are a few edges apart) */
	if (*nv < MAX_CHG)
		v[(*nv)++] = (struct chg){from, on};
	b->gen++;
}

void rt_board_rd_active(struct rt_board *b, uint64_t n, bool on)
{
	if (b->en)
		add_chg(b, b->act, &b->nact, n + 1, on);
}

void rt_board_link(struct rt_board *b, uint64_t n, bool on)
{
	if (b->en)
		add_chg(b, b->link, &b->nlink, n + 1, on);
}

void rt_board_take(struct rt_board *b, uint64_t n)
{
	if (!b->en)
		return;
	sync(b, n);
	b->take_at = n;
	b->gen++;
}

void rt_board_write(struct rt_board *b, uint64_t first, unsigned ndw, bool inc)
{
	struct seg g;

	if (!b->en || ndw == 0)
		return;
	g.from = first;
	g.to = first + (ndw + 1) / 2 - 1;
	g.dw = inc ? 2 : 1;
	g.last_dw = inc && ndw % 2 == 0 ? 2 : 1;
	if (b->nseg == MAX_SEG)
		sync(b, b->seg[0].to + 1); /* (not reached: RX takes one TLP at a time) */
	if (b->nseg < MAX_SEG)
		b->seg[b->nseg++] = g;
	b->gen++;
}

uint64_t rt_board_rd_ready(struct rt_board *b, uint64_t x)
{
	struct ddr_state s;
	struct cursor c;
	uint64_t k, r;

	if (!b->en)
		return x;
	if (b->c_gen == b->gen && x >= b->c_from)
		return b->c_ready == RT_NEVER || b->c_ready > x ? b->c_ready : x;
	s = b->s;
	c = b->c;
	k = b->next;
	if (k < x)
		run(b, &s, &c, &k, x, UINT32_MAX);
	/* rd_wait_o at edge k: lvl_q < take_dw_i; reads only while the mover
	 * is busy (within a FIFO's worth of bursts of reads, at most 2^20
	 * edges with writes forced between: bounded) */
	run(b, &s, &c, &k, k + (1u << 20), b->take_dw);
	r = s.lvl >= b->take_dw ? k : RT_NEVER;
	b->c_gen = b->gen;
	b->c_from = x;
	b->c_ready = r;
	return r;
}
