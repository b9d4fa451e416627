/*
 * ref_timing_priv.h - what the timed reference model's two halves share:
 * the platform side (ref_timing.c: the two link directions, the root
 * complex and host memory, the host's PIO, the event loop) and the
 * board side (ref_engine.c: the RTL's engine at TLP granularity: RX
 * parser, PIO completer, TX arbiter, the channels' descriptor control,
 * movers and prefetch, the event-source FIFO, the interrupt generator
 * and the hard IP's interrupt messages).
 *
 * Time is integer picoseconds since the open (cycle 0 of the user clock
 * at 0), as the simulator's device time is (sim/device_clock.h). Every
 * RTL action happens at a rising edge of the user clock; link and root
 * complex events between edges, and those at an edge's time run before
 * the edge (sim/platform.cpp, Platform::run_cycles).
 */
#ifndef ABB_REF_TIMING_PRIV_H
#define ABB_REF_TIMING_PRIV_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "abbsim.h"
#include "ref_model.h"
#include "ref_timing.h"

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

#define RT_NEVER UINT64_MAX
#define RT_INF (-1) /* a credit limit: none */

/* TLP kinds and flow-control classes (sim/tlp.h). */
enum rt_kind { RT_MWR, RT_MRD, RT_CPLD, RT_CPL, RT_MSG };
enum rt_fc { RT_FC_P, RT_FC_NP, RT_FC_CPL };

/* What a TLP is for: what its receiver does with it. */
enum rt_origin {
	/* upstream (board to root complex) */
	RT_O_C2H_DATA,  /* DMA-read data: pa, inc, evs; addr = host IOVA */
	RT_O_MSI,       /* MSI write */
	RT_O_INTX,      /* Assert_INTA (arg 1) / Deassert_INTA (arg 0) */
	RT_O_DEV_READ,  /* a read of the engine: tag, addr = IOVA, bytes */
	RT_O_PIO_CPL,   /* completion of a host PIO read: tag, data */
	/* downstream (root complex to board) */
	RT_O_PIO_WR,    /* host PIO write: bar, off, bytes, data */
	RT_O_PIO_RD,    /* host PIO read: bar, off, bytes, tag */
	RT_O_DEV_CPL,   /* completion of an engine read: tag, addr = IOVA of its
			 * first byte, bytes (0: UR), last */
};

#define RT_PIO_MAX 128u /* bytes of one PIO TLP (the root complex's pieces) */

struct rt_tlp {
	uint8_t kind, fc, hdr_dw, origin;
	uint16_t ndw;      /* payload DWs on the wire */
	uint16_t tag;
	uint32_t bytes;    /* bytes meant (PIO, completions, reads) */
	uint32_t pa;       /* board address (C2H data) / BAR offset (PIO) */
	uint8_t bar, inc, evs, last;
	uint32_t arg;
	uint32_t bc;       /* a completion's Byte Count (the TLP log) */
	uint64_t addr;     /* host IOVA */
	uint64_t t;        /* queued: ready time; on the wire: arrival time */
	uint64_t seq;      /* on the wire: when its arrival was scheduled */
	uint8_t data[RT_PIO_MAX];
};

static inline unsigned rt_wire_bytes(const struct rt_tlp *t)
{
	return 8u + 4u * t->hdr_dw + 4u * t->ndw; /* framing+seq+LCRC, header, payload */
}

static inline unsigned rt_data_credits(const struct rt_tlp *t)
{
	return (t->ndw + 3u) / 4u;
}

/* beats of the RTL's stream: two header beats, then the payload
 * (rtl-model/TLP-STREAM.md; sim/tlp.h beat_count) */
static inline unsigned rt_beats(const struct rt_tlp *t)
{
	return 2u + (t->ndw + 1u) / 2u;
}

/* A growing FIFO of TLPs. */
struct rt_ring {
	struct rt_tlp *v;
	size_t cap, head, n; /* cap a power of two */
};

/* One direction of the link (sim/link.cpp, ported: the same arithmetic
 * in femtoseconds, DLLP and SKP overhead, latency, credits). */
struct rt_credit_ret {
	uint64_t t, seq;
	uint8_t fc;
	uint16_t data;
};

struct rt_link {
	struct rt_ring q;     /* [0, started) on the wire, [started, n) waiting */
	size_t started;
	uint64_t unsent;      /* wire bytes waiting (sim: Link::unsent_bytes) */
	int32_t lim_h[3], lim_d[3], used_h[3], used_d[3];
	unsigned __int128 free_fs; /* serialiser busy until */
	uint64_t free_ps;     /* free_fs in ps rounded up: free_fs > t * 1000 iff free_ps > t */
	uint64_t wake;        /* the serialiser frees then (RT_NEVER: no wake due) */
	uint64_t wake_seq;
	bool blocked;         /* the head waits for credits */
	uint64_t fs_per_lane_byte, lanes, latency_ps, skp_interval, skp_len;
	uint64_t bytes_total, skp_done, tlp_count;
	uint64_t skp_next;    /* bytes_total at which the next SKP is due */
	uint64_t fs_per_byte; /* fs_per_lane_byte / lanes when whole, else 0 */
	uint64_t tlps;        /* started (abb_reftime_link_tlps) */
	/* credits on their way back (one latency after the receiver freed them) */
	struct rt_credit_ret *ret;
	size_t ret_cap, ret_head, ret_n;
	/* unsent after its last changes, for the hard IP's buffer count as
	 * the RTL sampled it at an earlier edge; in_edge: changed by the
	 * board's own edge (after that edge's sample) */
	struct { uint64_t t; uint64_t unsent; bool in_edge; } hist[64];
	unsigned hist_pos;
};

/* A read of the engine at the root complex (sim/root_complex.cpp DmaRead). */
struct rt_dread {
	uint8_t tag;
	bool first, ur;
	uint64_t next, end; /* IOVA of the next byte to complete, one past the last */
	uint64_t t;         /* memory latency over */
	uint64_t seq;
};

/* A host PIO read in flight (root complex: PioTag). */
struct rt_pio {
	struct abb_reftime_read *req;
	uint32_t off, n; /* into req's buffer */
	bool busy;
};

/* A piece of a PIO read waiting for a tag. */
struct rt_pio_piece {
	struct abb_reftime_read *req;
	uint32_t off, n;
	uint64_t addr; /* BAR offset */
	uint8_t bar;
};

struct rt_engine; /* ref_engine.c */

struct abb_reftime {
	struct abbsim_params p;  /* clk_mhz resolved */
	struct abb_refmodel *core;
	struct abb_reftime_host host;
	uint64_t now;            /* ps */
	uint64_t period_ps;      /* 0: 10^6 / mhz is not whole */
	unsigned mhz;
	bool in_edge;            /* the board's edge is being evaluated */
	bool wake;               /* something a waiter looks for happened */
	bool early_rx;           /* down-link TLPs go to the hard IP as they start
				  * (link_try_start), with their arrival time */
	/* events at the same time run in the order they were scheduled, as
	 * in the simulator's queue (sim/event_queue.h): every scheduled
	 * link, credit and memory event gets the next number */
	uint64_t seq;

	struct rt_link up, down;

	/* root complex */
	struct rt_dread *reads;  /* waiting for the memory latency (FIFO) */
	size_t reads_cap, reads_head, reads_n;
	struct rt_dread ready[64]; /* being completed */
	size_t nready, rr_next;
	uint64_t rng;
	uint64_t irq_count;
	bool intx;
	struct rt_pio pio[256];
	unsigned pio_next, pio_pending;
	struct rt_pio_piece *pio_wait;
	size_t pw_cap, pw_head, pw_n;
	uint64_t bar_base[2];
	uint64_t msi_addr;
	uint8_t *scratch;        /* a completion's bytes on their way */
	/* DMA-read payloads not yet copied (rc_c2h_arrive): contiguous TLPs
	 * inside one host page, n bytes from board address pa to IOVA addr,
	 * len[] the TLPs' sizes (a refused batch goes again TLP by TLP) */
	struct {
		uint64_t addr;
		uint32_t pa, n;
		unsigned k;
		uint16_t len[32];
	} pend;
	/* a DMA write's completion payloads not yet in board memory
	 * (rt_h2c_defer): contiguous completions inside one host page, n
	 * bytes from IOVA addr to board address pa, len[] their sizes */
	struct {
		uint64_t addr;
		uint32_t pa, n;
		unsigned k;
		uint16_t len[64];
	} hpend;
	uint8_t *hbuf;           /* hpend's bytes on their way (4 KiB) */
	FILE *log;               /* the TLP log (abb_reftime_tlp_log), NULL: none */

	struct rt_engine *eng;
};

/* --- ref_timing.c, for the engine --- */
/* edges: the time of edge n, the first edge at or after t */
uint64_t rt_edge_time_frac(const struct abb_reftime *t, uint64_t n);
static inline uint64_t rt_edge_time(const struct abb_reftime *t, uint64_t n)
{
	if (t->period_ps)
		return n * t->period_ps;
	return rt_edge_time_frac(t, n);
}
uint64_t rt_first_edge_frac(const struct abb_reftime *t, uint64_t ps);
static inline uint64_t rt_first_edge(const struct abb_reftime *t, uint64_t ps)
{
	if (ps == 0)
		return 0;
	if (t->period_ps)
		return (ps + t->period_ps - 1) / t->period_ps;
	return rt_first_edge_frac(t, ps);
}
/* the board sends a TLP upstream at its edge's time (the hard IP) */
void rt_up_submit(struct abb_reftime *t, const struct rt_tlp *tlp);
/* The receiver freed a TLP's buffers (Link::consumed): a class without a
 * limit needs no return event, its count drops now (true); a limited one
 * (false) gets its credits back one latency later (link_consumed). */
static inline bool rt_link_consumed_unlimited(struct rt_link *l, const struct rt_tlp *tlp)
{
	unsigned c = tlp->fc;

	if (l->lim_h[c] != RT_INF || l->lim_d[c] != RT_INF)
		return false;
	l->used_h[c] -= 1;
	l->used_d[c] -= (int32_t)rt_data_credits(tlp);
	return true;
}

/* the board took a downstream TLP: its credits go back (inline for a class
 * without a limit, the per-completion case) */
void rt_down_consumed_ret(struct abb_reftime *t, const struct rt_tlp *tlp);
static inline void rt_down_consumed(struct abb_reftime *t, const struct rt_tlp *tlp)
{
	if (!rt_link_consumed_unlimited(&t->down, tlp))
		rt_down_consumed_ret(t, tlp);
}
/* unsent bytes of the upstream link: now, and as sampled at the start of
 * the edge at time edge_ps */
uint64_t rt_up_unsent(const struct abb_reftime *t);
uint64_t rt_up_unsent_at_edge(const struct abb_reftime *t, uint64_t edge_ps);
/* The free slot after the last (the ring grown when full; NULL: out of
 * memory), for a TLP built in place: r->n++ once it is filled. */
struct rt_tlp *rt_ring_grow(struct rt_ring *r);
static inline struct rt_tlp *rt_ring_slot(struct rt_ring *r)
{
	if (r->n == r->cap)
		return rt_ring_grow(r);
	return &r->v[(r->head + r->n) & (r->cap - 1)];
}

/* A copy of tlp at the ring's end (0, or -ENOMEM): the header at its
 * constant size (moves, no call), the payload only for the TLPs that carry
 * their data (host writes, PIO completions). */
static inline int rt_ring_push(struct rt_ring *r, const struct rt_tlp *tlp)
{
	struct rt_tlp *d = rt_ring_slot(r);

	if (!d)
		return -ENOMEM;
	memcpy(d, tlp, offsetof(struct rt_tlp, data));
	if (tlp->origin == RT_O_PIO_WR || tlp->origin == RT_O_PIO_CPL)
		memcpy(d->data, tlp->data, tlp->bytes < RT_PIO_MAX ? tlp->bytes : RT_PIO_MAX);
	r->n++;
	return 0;
}
/* a line of the TLP log (when one is written): dir "up" or "down", at now */
void rt_log_line(struct abb_reftime *t, const char *dir, const struct rt_tlp *tlp);
static inline void rt_log(struct abb_reftime *t, const char *dir, const struct rt_tlp *tlp)
{
	if (t->log)
		rt_log_line(t, dir, tlp);
}

/* Payloads deferred and copied a host page at a time: a DMA read's TLPs
 * (board memory to host memory, rc_c2h_arrive: t->pend) and a DMA write's
 * completions (host memory to board memory, rt_h2c_defer: t->hpend), each
 * while it continues its batch, the other batch flushed before it takes
 * one (so the copies keep the events' order). Exact as long as nothing else
 * reads or writes board or host memory before rt_mem_flush: every such
 * place flushes first (a descriptor's completion, a BAR1 PIO read or write,
 * a FIFO port's completion, an event-source TLP), and abb_reftime_run
 * flushes before it returns. */
void rt_h2c_defer_new(struct abb_reftime *t, uint64_t addr, uint32_t pa, uint32_t bytes);
void rt_h2c_flush_now(struct abb_reftime *t);
void rt_mem_flush_now(struct abb_reftime *t);
static inline void rt_mem_flush(struct abb_reftime *t)
{
	if (t->pend.n || t->hpend.n)
		rt_mem_flush_now(t);
}

/* inline while it continues the batch (contiguous, the same host page),
 * else the batch is flushed and a new one begun (rt_h2c_defer_new) */
static inline void rt_h2c_defer(struct abb_reftime *t, uint64_t addr, uint32_t pa, uint32_t bytes)
{
	/* (t->hpend.n: t->pend empty) */
	if (t->hpend.n && addr == t->hpend.addr + t->hpend.n && pa == t->hpend.pa + t->hpend.n &&
	    ((addr + bytes - 1) ^ t->hpend.addr) < 4096 && t->hpend.k < 64) {
		t->hpend.len[t->hpend.k++] = (uint16_t)bytes;
		t->hpend.n += bytes;
		return;
	}
	rt_h2c_defer_new(t, addr, pa, bytes);
}

/* --- ref_engine.c, for the platform side --- */
struct rt_engine *rt_engine_create(struct abb_reftime *t);
void rt_engine_destroy(struct rt_engine *e);
/* a downstream TLP arrived at the hard IP (copied): rt_engine_deliver,
 * ref_engine_priv.h */
/* the edge the engine needs next: rt_engine_next_edge (ref_engine_priv.h,
 * inline for the event loop); running it */
void rt_engine_edge(struct rt_engine *e, uint64_t n);
/* the upstream link started a TLP (its buffer count fell) */
void rt_engine_tx_space(struct rt_engine *e);
bool rt_engine_idle(const struct rt_engine *e);
/* the engine may be handed a downstream TLP before its arrival (its
 * arrival time in tlp->t): nothing it does depends on when it got it */
bool rt_engine_early_rx(const struct rt_engine *e);
/* the C2H stream's engine side: ref_engine_priv.h (run in ref_timing.c) */
/* the H2C stream (ref_timing.c h2c_stream_run): one edge that only ends a
 * mover's completion at RX or only moves the H2C mover's read request in
 * TX (1; 2: a TLP went to the up link; 0: nothing done, rt_engine_edge
 * must run it); its condition, rt_engine_h2c_ok, in ref_engine_priv.h */
int rt_engine_h2c_edge(struct rt_engine *e, uint64_t n);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
