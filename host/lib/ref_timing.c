/*
 * ref_timing.c - the timed reference model's platform side (ref_timing.h):
 * the event loop, both link directions, the root complex with host memory,
 * the host's PIO. The board's side is ref_engine.c.
 *
 * Each part is the simulator's own model, ported to C with the same
 * arithmetic, so that the same parameters give the same device time:
 *  - the link: sim/link.cpp (Link::reset, try_start, consumed): one byte
 *    on one lane is 4 ns at Gen1 (10 bits at 2.5 GT/s), 2 ns at Gen2,
 *    1.015625 ns at Gen3 (8 bits x 130/128 at 8 GT/s); 8 bytes of
 *    framing, sequence number and LCRC per TLP plus its real header;
 *    an 8-byte DLLP after every 4th TLP (Link::DllpEvery, DllpBytes);
 *    SKP ordered sets of 4 symbols per lane every 1180 symbol times
 *    (Gen3: 16 every 5920); store and forward: a TLP arrives a latency
 *    after its last byte; credits are taken at the start and come back a
 *    latency after the receiver freed them;
 *  - the root complex: sim/root_complex.cpp (reset, pio_write, pio_read,
 *    pio_issue, dma_read, next_completion, feed): PIO pieces of at most
 *    128 bytes inside a 4 KiB page, writes of min(MPS, 128), at most 32
 *    PIO reads outstanding (PioMaxOutstanding); an engine read waits the
 *    memory latency, then its completions go out one at a time into an
 *    empty transmit queue (the choice among ready reads as late as the
 *    link allows), ending at RCB boundaries (cpl=rcb) or coalesced up to
 *    MPS (cpl=mps), the ready reads in order, at random (splitmix64 of the
 *    seed, sim/rng.h) or round robin;
 *  - the event loop: sim/platform.cpp Platform::run_cycles: link and root
 *    complex events at or before an edge's time run before that edge.
 * The BARs are where the simulator's enumeration puts them
 * (sim/enumerate.cpp: from 0xf0000000, each aligned to its size), below
 * 4 GiB: every PIO TLP has a 3-DW header.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ref_board.h"
#include "ref_engine_priv.h"

/* sim/enumerate.h BarWindowBase; sim/enumerate.cpp's MSI address */
#define RT_BAR_WINDOW 0xf0000000ull
#define RT_MSI_ADDR 0xfee00000ull
/* sim/root_complex.h PioMaxOutstanding */
#define RT_PIO_OUTSTANDING 32u
/* sim/link.h Link::DllpEvery, Link::DllpBytes */
#define RT_DLLP_EVERY 4u
#define RT_DLLP_BYTES 8u

/* --- parameters --------------------------------------------------------- */

unsigned abb_reftime_clk_mhz(const struct abbsim_params *p)
{
	/* sim/params.cpp abbsim_clk_mhz: 125 MHz up to 1 GB/s of raw link
	 * bandwidth, 250 MHz above */
	unsigned lane_mbs = p->gen == 1 ? 250 : p->gen == 2 ? 500 : 985;

	if (p->clk_mhz)
		return p->clk_mhz;
	return p->lanes * lane_mbs > 1000 ? 250 : 125;
}

static int check_credits(const char *dir, const struct abbsim_credits *c, unsigned p_max,
			 unsigned cpl_max, const char *p_why, const char *cpl_why, char *msg,
			 size_t n)
{
	unsigned need_p = (p_max + 15) / 16, need_cpl = (cpl_max + 15) / 16;

	if (c->pd && c->pd < need_p) {
		snprintf(msg, n, "credits: %s.pd=%u is smaller than one posted TLP of %u bytes "
			 "(%s): the link would deadlock; accepted 0 (infinite) or %u..2047", dir, c->pd,
			 p_max, p_why, need_p);
		return -EINVAL;
	}
	if (c->cpld && c->cpld < need_cpl) {
		snprintf(msg, n, "credits: %s.cpld=%u is smaller than one completion of %u bytes "
			 "(%s): the link would deadlock; accepted 0 (infinite) or %u..2047", dir,
			 c->cpld, cpl_max, cpl_why, need_cpl);
		return -EINVAL;
	}
	return 0;
}

int abb_reftime_check(const struct abbsim_params *p, char *msg, size_t n)
{
	/* sim/params.cpp abbsim_params_check: the largest TLP of each class
	 * must fit its data credits (the option table checked the ranges) */
	unsigned cpl_down = p->cpl_rcb ? p->rcb : (p->mps < p->mrrs ? p->mps : p->mrrs);
	char why[80], mps_why[32];
	int rc;

	snprintf(why, sizeof why, "%s, MPS %u, MRRS %u, RCB %u", p->cpl_rcb ? "cpl=rcb" : "cpl=mps",
		 p->mps, p->mrrs, p->rcb);
	snprintf(mps_why, sizeof mps_why, "MPS %u", p->mps);
	rc = rt_board_check(p, abb_reftime_clk_mhz(p), msg, n);
	if (!rc)
		rc = check_credits("up", &p->credits_up, p->mps, 128, mps_why,
				   "a PIO read of 128 bytes", msg, n);
	if (!rc)
		rc = check_credits("down", &p->credits_down, 128, cpl_down,
				   "a PIO write of 128 bytes", why, msg, n);
	return rc;
}

/* --- time ---------------------------------------------------------------- */

/* sim/device_clock.h DeviceClock::edge_time, first_edge_at (epoch 0) */
uint64_t rt_edge_time_frac(const struct abb_reftime *t, uint64_t n)
{
	return (uint64_t)((unsigned __int128)n * 1000000u / t->mhz);
}

uint64_t rt_first_edge_frac(const struct abb_reftime *t, uint64_t ps)
{
	uint64_t n;

	n = (uint64_t)(((unsigned __int128)ps * t->mhz + 999999u) / 1000000u);
	while (rt_edge_time(t, n) < ps)
		n++;
	return n;
}

/* --- a TLP FIFO ----------------------------------------------------------- */

/* A power-of-two ring of size-byte items (*v, *cap, *head, n of them)
 * grown to twice its capacity (64 at first), its items moved to the front
 * in order; false: out of memory, the ring as it was. Growth is rare (the
 * rings keep their size): the items go one memcpy each. */
static bool ring_grow_items(void **v, size_t *cap, size_t *head, size_t n, size_t size)
{
	size_t nc = *cap ? 2 * *cap : 64;
	unsigned char *nv = malloc(nc * size);
	const unsigned char *ov = *v;

	if (!nv)
		return false;
	for (size_t i = 0; i < n; i++)
		memcpy(nv + i * size, ov + ((*head + i) & (*cap - 1)) * size, size);
	free(*v);
	*v = nv;
	*cap = nc;
	*head = 0;
	return true;
}

/* The ring grown (rt_ring_slot, when full): the free slot after the
 * last, NULL: out of memory. */
struct rt_tlp *rt_ring_grow(struct rt_ring *r)
{
	void *v = r->v;

	if (!ring_grow_items(&v, &r->cap, &r->head, r->n, sizeof *r->v))
		return NULL;
	r->v = v;
	return &r->v[(r->head + r->n) & (r->cap - 1)];
}

static struct rt_tlp *ring_at(struct rt_ring *r, size_t i)
{
	return &r->v[(r->head + i) & (r->cap - 1)];
}

static void ring_pop(struct rt_ring *r)
{
	r->head = (r->head + 1) & (r->cap - 1);
	r->n--;
}

/* (x + 999) / 1000 of femtoseconds, without a 128-bit division while the
 * value fits 64 bits (the first 5 hours of device time) */
static uint64_t fs_to_ps_up(unsigned __int128 x)
{
	if (!(x >> 64))
		return (uint64_t)x / 1000u + ((uint64_t)x % 1000u != 0);
	return (uint64_t)((x + 999) / 1000);
}

/* --- the link (sim/link.cpp) ---------------------------------------------- */

static void link_reset(struct rt_link *l, const struct abbsim_params *p, const struct abbsim_credits *c)
{
	const unsigned hv[3] = {c->ph, c->nph, c->cplh}, dv[3] = {c->pd, c->npd, c->cpld};

	free(l->q.v);
	free(l->ret);
	memset(l, 0, sizeof *l);
	for (int i = 0; i < 3; i++) {
		l->lim_h[i] = hv[i] ? (int32_t)hv[i] : RT_INF;
		l->lim_d[i] = dv[i] ? (int32_t)dv[i] : RT_INF;
	}
	/* Link::reset: one byte on one lane */
	l->fs_per_lane_byte = p->gen == 1 ? 4000000 : p->gen == 2 ? 2000000 : 1015625;
	l->skp_interval = p->gen == 3 ? 5920 : 1180;
	l->skp_len = p->gen == 3 ? 16 : 4;
	l->lanes = p->lanes;
	l->skp_next = l->skp_interval * l->lanes;
	/* the same product without the division when the lanes divide it */
	l->fs_per_byte = l->fs_per_lane_byte % l->lanes ? 0 : l->fs_per_lane_byte / l->lanes;
	l->latency_ps = (uint64_t)p->link_latency_ns * 1000;
	l->wake = RT_NEVER;
}

static void link_hist(struct abb_reftime *t, struct rt_link *l)
{
	l->hist_pos = (l->hist_pos + 1) % 64;
	l->hist[l->hist_pos].t = t->now;
	l->hist[l->hist_pos].unsent = l->unsent;
	l->hist[l->hist_pos].in_edge = t->in_edge;
}

/* Credits back by now (Link::consumed's events, taken when looked at). */
static inline void link_returns(struct rt_link *l, uint64_t now)
{
	while (l->ret_n && l->ret[l->ret_head].t <= now) {
		struct rt_credit_ret *c = &l->ret[l->ret_head];

		l->used_h[c->fc] -= 1;
		l->used_d[c->fc] -= c->data;
		l->ret_head = (l->ret_head + 1) & (l->ret_cap - 1);
		l->ret_n--;
	}
}

static bool link_credits(const struct rt_link *l, const struct rt_tlp *h)
{
	unsigned c = h->fc;

	if (l->lim_h[c] != RT_INF && l->used_h[c] + 1 > l->lim_h[c])
		return false;
	if (l->lim_d[c] != RT_INF && l->used_d[c] + (int32_t)rt_data_credits(h) > l->lim_d[c])
		return false;
	return true;
}

static void rc_feed(struct abb_reftime *t);

#if defined(__GNUC__)
#define RT_INLINE inline __attribute__((always_inline))
#else
#define RT_INLINE inline
#endif

/* The head h of the waiting TLPs starts on l at now (Link::try_start's
 * body): its credits, the serialiser's time with framing, DLLP and SKP
 * overhead, its arrival time and scheduling number. Below 2^63 fs (2.5
 * hours of device time) in 64 bits, the same values as the 128-bit
 * arithmetic after. */
static RT_INLINE void link_start_tlp(struct abb_reftime *t, struct rt_link *l, struct rt_tlp *h,
				     uint64_t now)
{
	uint64_t bytes, skp_due;
	unsigned c = h->fc;

	l->used_h[c] += 1;
	l->used_d[c] += (int32_t)rt_data_credits(h);
	bytes = rt_wire_bytes(h);
	if (++l->tlp_count % RT_DLLP_EVERY == 0)
		bytes += RT_DLLP_BYTES;
	l->bytes_total += bytes;
	if (l->bytes_total >= l->skp_next) { /* skp_due > skp_done, no division before */
		skp_due = l->bytes_total / (l->skp_interval * l->lanes);
		bytes += (skp_due - l->skp_done) * l->skp_len * l->lanes;
		l->skp_done = skp_due;
		l->skp_next = (skp_due + 1) * l->skp_interval * l->lanes;
	}
	if (!(l->free_fs >> 63) && h->t < (1ull << 63) / 1000 && now < (1ull << 63) / 1000 &&
	    l->fs_per_byte) {
		/* dur below 2^50: the sum below 2^64 */
		uint64_t ffs = (uint64_t)l->free_fs, ht = h->t * 1000, start = ffs > ht ? ffs : ht;

		if (l->blocked && start < now * 1000)
			start = now * 1000;
		ffs = start + bytes * l->fs_per_byte;
		l->free_fs = ffs;
		l->free_ps = ffs / 1000u + (ffs % 1000u != 0);
	} else {
		unsigned __int128 start, dur;

		start = l->free_fs > (unsigned __int128)h->t * 1000 ? l->free_fs
								    : (unsigned __int128)h->t * 1000;
		if (l->blocked && start < (unsigned __int128)now * 1000)
			start = (unsigned __int128)now * 1000;
		/* below 2^50: 64-bit */
		dur = l->fs_per_byte ? bytes * l->fs_per_byte : bytes * l->fs_per_lane_byte / l->lanes;
		l->free_fs = start + dur;
		l->free_ps = fs_to_ps_up(l->free_fs);
	}
	l->blocked = false;
	l->tlps++;
	l->unsent -= rt_wire_bytes(h);
	h->t = l->free_ps + l->latency_ps;
	h->seq = t->seq++;
}

/* Link::try_start (up: the up link, a constant where it is inlined) */
static RT_INLINE void link_try_start_in(struct abb_reftime *t, struct rt_link *l, bool up)
{
	uint64_t now = t->now;
	bool started_any = false;

	link_returns(l, now);
	while (l->started < l->q.n) {
		struct rt_tlp *h;

		if (l->free_ps > now) {
			if (l->wake == RT_NEVER) {
				l->wake = l->free_ps;
				l->wake_seq = t->seq++;
			}
			break;
		}
		h = ring_at(&l->q, l->started);
		if (!link_credits(l, h)) {
			l->blocked = true;
			break;
		}
		link_start_tlp(t, l, h, now);
		started_any = true;
		if (up) {
			l->started++;
			link_hist(t, l);
			continue;
		}
		/* the down link: its history is never read (only the hard IP's
		 * transmit buffer is sampled). With the DDR2 arbiter off the
		 * TLP goes to the hard IP now, with its arrival time: RX takes
		 * it from the first edge at or after that either way
		 * (rt_engine_deliver), and no event of the arrival itself
		 * changes anything (its scheduling number is taken as before,
		 * so every other event keeps its number) */
		if (t->early_rx) {
			rt_engine_deliver(t->eng, h);
			ring_pop(&l->q);
		} else {
			l->started++;
		}
		if (l->started == l->q.n)
			rc_feed(t); /* Link::on_drain: the root complex's next completion */
	}
	/* rt_engine_tx_space, its first test inline: only something waiting
	 * for room looks */
	if (started_any && up && (t->eng->tx_full || t->eng->c2h_held))
		rt_engine_tx_space(t->eng);
}

static void up_try_start(struct abb_reftime *t)
{
	link_try_start_in(t, &t->up, true);
}

static void down_try_start(struct abb_reftime *t)
{
	link_try_start_in(t, &t->down, false);
}

static void link_try_start(struct abb_reftime *t, struct rt_link *l)
{
	if (l == &t->up)
		up_try_start(t);
	else
		down_try_start(t);
}

/* link_try_start right after a TLP was queued: with the serialiser busy
 * it only takes the credits back by now and sets the wake unless one is
 * due (its loop's first test), inline */
static inline void link_start_or_wake(struct abb_reftime *t, struct rt_link *l)
{
	if (l->free_ps > t->now) {
		link_returns(l, t->now);
		if (l->wake == RT_NEVER) {
			l->wake = l->free_ps;
			l->wake_seq = t->seq++;
		}
	} else {
		link_try_start(t, l);
	}
}

static void link_submit(struct abb_reftime *t, struct rt_link *l, const struct rt_tlp *tlp)
{
	if (rt_ring_push(&l->q, tlp))
		return; /* out of memory: the TLP is lost (as on a link that went down) */
	ring_at(&l->q, l->q.n - 1)->t = t->now;
	l->unsent += rt_wire_bytes(tlp);
	if (l == &t->up)
		link_hist(t, l);
	link_start_or_wake(t, l);
}

/* The receiver freed a TLP's buffers: its credits are back at the
 * transmitter one latency later (Link::consumed). Infinite classes need
 * no return event (rt_link_consumed_unlimited). */
static bool ret_grow(struct rt_link *l)
{
	void *v = l->ret;

	if (!ring_grow_items(&v, &l->ret_cap, &l->ret_head, l->ret_n, sizeof *l->ret))
		return false;
	l->ret = v;
	return true;
}

static inline void link_return_later(struct abb_reftime *t, struct rt_link *l,
				     const struct rt_tlp *tlp)
{
	unsigned c = tlp->fc;

	if (l->ret_n == l->ret_cap && !ret_grow(l))
		return;
	l->ret[(l->ret_head + l->ret_n) & (l->ret_cap - 1)] =
		(struct rt_credit_ret){t->now + l->latency_ps, t->seq++, (uint8_t)c,
				       (uint16_t)rt_data_credits(tlp)};
	l->ret_n++;
}

static inline void link_consumed(struct abb_reftime *t, struct rt_link *l,
				 const struct rt_tlp *tlp)
{
	if (!rt_link_consumed_unlimited(l, tlp))
		link_return_later(t, l, tlp);
}

/* (time, scheduling number) a before b */
static bool ev_before(uint64_t ta, uint64_t sa, uint64_t tb, uint64_t sb)
{
	return ta < tb || (ta == tb && sa < sb);
}

/* The link's next event: the serialiser frees, credits come back to a
 * blocked head, the oldest TLP on the wire arrives; *arrival 1 for the
 * last. */
static inline uint64_t link_next(const struct rt_link *l, uint64_t *seq, bool *arrival)
{
	uint64_t n = l->wake, s = l->wake_seq;

	*arrival = false;
	if (l->blocked && l->ret_n && ev_before(l->ret[l->ret_head].t, l->ret[l->ret_head].seq, n, s))
		n = l->ret[l->ret_head].t, s = l->ret[l->ret_head].seq;
	if (l->started && ev_before(l->q.v[l->q.head].t, l->q.v[l->q.head].seq, n, s)) {
		n = l->q.v[l->q.head].t, s = l->q.v[l->q.head].seq;
		*arrival = true;
	}
	*seq = s;
	return n;
}

uint64_t rt_up_unsent(const struct abb_reftime *t)
{
	return t->up.unsent;
}

/* What the hard IP's buffer count read at the start of the edge at
 * edge_ps: the last change before it, or at its time but not from the
 * board's own edge (sim/hard_ip.cpp HardIp::edge sets tx_buf_av_i before
 * the RTL's evaluation, whose TLP is submitted after it). */
uint64_t rt_up_unsent_at_edge(const struct abb_reftime *t, uint64_t edge_ps)
{
	const struct rt_link *l = &t->up;

	unsigned i = l->hist_pos;

	for (unsigned k = 0; k < 64; k++) {
		i = (l->hist_pos + 64 - k) % 64;
		if (l->hist[i].t < edge_ps || (l->hist[i].t == edge_ps && !l->hist[i].in_edge))
			return l->hist[i].unsent;
	}
	return l->hist[i].unsent; /* older than the history: its oldest entry */
}

/* --- the root complex (sim/root_complex.cpp) ------------------------------ */

static uint64_t splitmix(uint64_t *s)
{
	/* sim/rng.h splitmix */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* DWs a byte range spans (sim/tlp.cpp byte_enables) */
static unsigned span_dw(uint64_t addr, uint32_t n)
{
	return (unsigned)((((addr + n + 3) & ~3ull) - (addr & ~3ull)) / 4);
}

/* RootComplex::next_completion: the next completion of ready read r */
static void rc_completion(struct abb_reftime *t, struct rt_dread *r, struct rt_tlp *c)
{
	const struct abbsim_params *p = &t->p;
	uint64_t dw = r->next & ~3ull, stop;

	memset(c, 0, offsetof(struct rt_tlp, data));
	c->hdr_dw = 3;
	c->fc = RT_FC_CPL;
	c->origin = RT_O_DEV_CPL;
	c->tag = r->tag;
	c->addr = r->next;
	c->bc = (uint32_t)(r->end - r->next) & 0xfff;
	if (c->bc == 0)
		c->bc = 4096;
	if (r->ur) {
		c->kind = RT_CPL;
		c->bytes = 0;
		c->last = 1;
		r->next = r->end;
		return;
	}
	if (p->cpl_rcb) {
		stop = (r->next | (p->rcb - 1)) + 1;
		if (stop > r->end)
			stop = r->end;
	} else if (r->first && (r->next % p->rcb)) {
		stop = (r->next | (p->rcb - 1)) + 1;
		if (stop > r->end)
			stop = r->end;
		if (stop - dw > p->mps)
			stop = dw + p->mps;
	} else {
		uint64_t lim = dw + p->mps;

		stop = lim >= r->end ? r->end : lim & ~(uint64_t)(p->rcb - 1);
	}
	r->first = false;
	c->kind = RT_CPLD;
	c->ndw = (uint16_t)((((stop + 3) & ~3ull) - dw) / 4);
	c->bytes = (uint32_t)(stop - r->next);
	r->next = stop;
	c->last = r->next >= r->end;
}

/* RootComplex::feed: one completion at a time into an empty transmit queue */
static void rc_feed(struct abb_reftime *t)
{
	while (t->nready && t->down.unsent == 0) {
		size_t i = t->p.reorder == 1 ? (size_t)(splitmix(&t->rng) % t->nready)
			 : t->p.reorder == 2 ? t->rr_next % t->nready : 0;
		struct rt_dread *r = &t->ready[i];
		struct rt_link *l = &t->down;
		/* built in the down link's queue (link_submit without the copy) */
		struct rt_tlp *c = rt_ring_slot(&l->q), lost;

		rc_completion(t, r, c ? c : &lost);
		if (r->next >= r->end) {
			memmove(&t->ready[i], &t->ready[i + 1], (t->nready - i - 1) * sizeof t->ready[0]);
			t->nready--;
			t->rr_next = i;
		} else {
			t->rr_next = i + 1;
		}
		if (!c)
			continue; /* out of memory: lost, as link_submit loses it */
		l->q.n++;
		c->t = t->now;
		l->unsent += rt_wire_bytes(c);
		link_start_or_wake(t, l);
	}
}

/* RootComplex::dma_read: the read waits the memory latency */
static void rc_dma_read(struct abb_reftime *t, const struct rt_tlp *tlp)
{
	struct rt_dread r = {(uint8_t)tlp->tag, true, false, tlp->addr, tlp->addr + tlp->bytes,
			     RT_NEVER, 0};

	/* RootComplex::serve: rc_reads (0: no limit) latencies run at once, a
	 * read behind them waits for a slot (rc_read_ready) */
	if (!t->p.rc_reads || t->reads_n < t->p.rc_reads) {
		r.t = t->now + (uint64_t)t->p.mem_latency_ns * 1000;
		r.seq = t->seq++;
	}
	if (t->reads_n == t->reads_cap) {
		size_t cap = t->reads_cap ? 2 * t->reads_cap : 64;
		struct rt_dread *v = malloc(cap * sizeof *v);

		if (!v)
			return;
		for (size_t i = 0; i < t->reads_n; i++)
			v[i] = t->reads[(t->reads_head + i) & (t->reads_cap - 1)];
		free(t->reads);
		t->reads = v;
		t->reads_cap = cap;
		t->reads_head = 0;
	}
	t->reads[(t->reads_head + t->reads_n) & (t->reads_cap - 1)] = r;
	t->reads_n++;
}

/* The memory latency of the oldest read is over: host memory is looked at
 * now (the IOMMU refuses: UR), the read is ready to be completed. */
static void rc_read_ready(struct abb_reftime *t)
{
	struct rt_dread r = t->reads[t->reads_head];

	t->reads_head = (t->reads_head + 1) & (t->reads_cap - 1);
	t->reads_n--;
	if (t->p.rc_reads && t->reads_n >= t->p.rc_reads) {
		/* a read waited for this slot: its latency starts now */
		struct rt_dread *w =
			&t->reads[(t->reads_head + t->p.rc_reads - 1) & (t->reads_cap - 1)];

		w->t = t->now + (uint64_t)t->p.mem_latency_ns * 1000;
		w->seq = t->seq++;
	}
	if (!t->host.mapped(t->host.ctx, 0, r.next, (size_t)(r.end - r.next)))
		r.ur = true;
	if (t->nready < sizeof t->ready / sizeof t->ready[0])
		t->ready[t->nready++] = r;
	rc_feed(t);
}

static void pio_issue(struct abb_reftime *t);

/* RootComplex::pio_completion (the board answers every read in one
 * completion with the bytes asked for) */
static void rc_pio_completion(struct abb_reftime *t, const struct rt_tlp *tlp)
{
	struct rt_pio *pt = &t->pio[tlp->tag & 255];

	if (!pt->busy)
		return;
	memcpy(pt->req->buf + pt->off, tlp->data, pt->n);
	pt->busy = false;
	t->pio_pending--;
	if ((pt->req->left -= pt->n) == 0) {
		pt->req->done = true;
		t->wake = true;
	}
	pt->req = NULL;
	pio_issue(t);
}

/* The deferred DMA-read payloads (t->pend) to host memory, as rc_upstream
 * copied them TLP by TLP (board memory and host memory unchanged since:
 * rt_mem_flush's contract); a batch the IOMMU refuses goes again TLP by
 * TLP, each all or nothing as before. */
static void c2h_flush_now(struct abb_reftime *t)
{
	uint64_t addr = t->pend.addr;

	abb_refmodel_c2h_data(t->core, t->pend.pa, true, false, t->scratch, t->pend.n);
	if (t->host.dma(t->host.ctx, 1, addr, t->scratch, t->pend.n)) {
		for (unsigned i = 0; i < t->pend.k; i++) {
			(void)t->host.dma(t->host.ctx, 1, addr, t->scratch + (addr - t->pend.addr),
					  t->pend.len[i]);
			addr += t->pend.len[i];
		}
	}
	t->pend.n = 0;
	t->pend.k = 0;
}

void rt_mem_flush_now(struct abb_reftime *t)
{
	/* at most one of the two holds anything (each flushes the other
	 * before it takes a payload): the order of the events */
	if (t->pend.n)
		c2h_flush_now(t);
	if (t->hpend.n)
		rt_h2c_flush_now(t);
}

/* RootComplex::host_write of a DMA read's TLP as it lands: the payload
 * deferred while it continues the batch (board memory, inside one host
 * page), else the batch flushed first; no write's completions deferred
 * (rc_c2h_arrive flushes them) */
static RT_INLINE void rc_c2h_arrive_in(struct abb_reftime *t, const struct rt_tlp *tlp)
{
	link_consumed(t, &t->up, tlp);
	if (!tlp->inc || tlp->evs) {
		if (t->pend.n)
			c2h_flush_now(t);
		abb_refmodel_c2h_data(t->core, tlp->pa, tlp->inc, tlp->evs, t->scratch, tlp->bytes);
		(void)t->host.dma(t->host.ctx, 1, tlp->addr, t->scratch, tlp->bytes);
		return;
	}
	if (t->pend.n && (tlp->addr != t->pend.addr + t->pend.n || tlp->pa != t->pend.pa + t->pend.n ||
			  ((tlp->addr + tlp->bytes - 1) ^ t->pend.addr) >= 4096 || t->pend.k == 32))
		c2h_flush_now(t);
	if (!t->pend.n) {
		if ((tlp->addr % 4096) + tlp->bytes > 4096) {
			/* not inside one page (never: chunk_dw stops TLPs at 4 KiB) */
			abb_refmodel_c2h_data(t->core, tlp->pa, true, false, t->scratch, tlp->bytes);
			(void)t->host.dma(t->host.ctx, 1, tlp->addr, t->scratch, tlp->bytes);
			return;
		}
		t->pend.addr = tlp->addr;
		t->pend.pa = tlp->pa;
	}
	t->pend.len[t->pend.k++] = (uint16_t)tlp->bytes;
	t->pend.n += tlp->bytes;
}

static void rc_c2h_arrive(struct abb_reftime *t, const struct rt_tlp *tlp)
{
	if (t->hpend.n)
		rt_h2c_flush_now(t); /* host memory read before, board memory written */
	rc_c2h_arrive_in(t, tlp);
}

void rt_h2c_flush_now(struct abb_reftime *t)
{
	uint64_t addr = t->hpend.addr;
	uint32_t pa = t->hpend.pa;

	if (!t->host.dma(t->host.ctx, 0, addr, t->hbuf, t->hpend.n)) {
		abb_refmodel_h2c_data(t->core, pa, true, t->hbuf, t->hpend.n);
	} else {
		/* refused: completion by completion, each all or nothing */
		for (unsigned i = 0; i < t->hpend.k; i++) {
			uint32_t n = t->hpend.len[i];

			if (!t->host.dma(t->host.ctx, 0, addr, t->hbuf, n))
				abb_refmodel_h2c_data(t->core, pa, true, t->hbuf, n);
			addr += n;
			pa += n;
		}
	}
	t->hpend.n = 0;
	t->hpend.k = 0;
}

void rt_h2c_defer_new(struct abb_reftime *t, uint64_t addr, uint32_t pa, uint32_t bytes)
{
	rt_mem_flush(t);
	if ((addr % 4096) + bytes > 4096) {
		/* not inside one page (a completion is inside an RCB): at once */
		if (!t->host.dma(t->host.ctx, 0, addr, t->hbuf, bytes))
			abb_refmodel_h2c_data(t->core, pa, true, t->hbuf, bytes);
		return;
	}
	if (!t->hpend.n) {
		t->hpend.addr = addr;
		t->hpend.pa = pa;
	}
	t->hpend.len[t->hpend.k++] = (uint16_t)bytes;
	t->hpend.n += bytes;
}

/* RootComplex::on_upstream */
static void rc_upstream(struct abb_reftime *t, const struct rt_tlp *tlp)
{
	if (tlp->origin == RT_O_C2H_DATA) {
		/* host_write: the payload is the board's as the TLP lands (board
		 * memory, a FIFO port's word, the event source's next DWs); a
		 * write the IOMMU refuses is dropped */
		rc_c2h_arrive(t, tlp);
		return;
	}
	link_consumed(t, &t->up, tlp);
	switch (tlp->origin) {
	case RT_O_MSI:
		t->irq_count++;
		t->wake = true;
		break;
	case RT_O_INTX:
		if (tlp->arg) {
			t->intx = true;
			t->irq_count++;
			t->wake = true;
		} else {
			t->intx = false;
		}
		break;
	case RT_O_DEV_READ:
		rc_dma_read(t, tlp);
		break;
	case RT_O_PIO_CPL:
		rc_pio_completion(t, tlp);
		break;
	default:
		break;
	}
}

/* RootComplex::pio_issue */
static void pio_issue(struct abb_reftime *t)
{
	while (t->pw_n && t->pio_pending < RT_PIO_OUTSTANDING) {
		struct rt_pio_piece pc = t->pio_wait[t->pw_head];
		unsigned tag = t->pio_next;
		struct rt_tlp m;

		t->pw_head = (t->pw_head + 1) & (t->pw_cap - 1);
		t->pw_n--;
		while (t->pio[tag].busy)
			tag = (tag + 1) % 256;
		t->pio_next = (tag + 1) % 256;
		t->pio[tag] = (struct rt_pio){pc.req, pc.off, pc.n, true};
		t->pio_pending++;
		memset(&m, 0, offsetof(struct rt_tlp, data));
		m.kind = RT_MRD;
		m.fc = RT_FC_NP;
		m.hdr_dw = 3;
		m.origin = RT_O_PIO_RD;
		m.bar = pc.bar;
		m.pa = (uint32_t)pc.addr;
		m.bytes = pc.n;
		m.tag = (uint16_t)tag;
		m.ndw = 0;
		m.arg = span_dw(t->bar_base[pc.bar] + pc.addr, pc.n); /* the request's Length */
		link_submit(t, &t->down, &m);
	}
}

void abb_reftime_pio_write(struct abb_reftime *t, unsigned bar, uint32_t off, const void *buf,
			   size_t len)
{
	/* RootComplex::pio_write: TLPs of at most min(MPS, 128) bytes, none
	 * crossing 4 KiB */
	const uint64_t maxb = t->p.mps < 128 ? t->p.mps : 128;
	const uint8_t *src = buf;
	uint64_t addr = t->bar_base[bar & 1] + off;

	while (len) {
		uint64_t lim = maxb - (addr % maxb);
		unsigned chunk;
		struct rt_tlp m;

		if (4096 - (addr % 4096) < lim)
			lim = 4096 - (addr % 4096);
		chunk = (unsigned)(len < lim ? len : lim);
		memset(&m, 0, offsetof(struct rt_tlp, data));
		m.kind = RT_MWR;
		m.fc = RT_FC_P;
		m.hdr_dw = 3;
		m.origin = RT_O_PIO_WR;
		m.bar = (uint8_t)(bar & 1);
		m.pa = (uint32_t)(addr - t->bar_base[bar & 1]);
		m.bytes = chunk;
		m.ndw = (uint16_t)span_dw(addr, chunk);
		memcpy(m.data, src, chunk);
		link_submit(t, &t->down, &m);
		addr += chunk;
		src += chunk;
		len -= chunk;
	}
}

void abb_reftime_pio_read(struct abb_reftime *t, unsigned bar, uint32_t off,
			  struct abb_reftime_read *r)
{
	uint64_t base = t->bar_base[bar & 1];

	r->done = false;
	r->left = r->len;
	/* RootComplex::pio_read: pieces of at most 128 bytes inside a page */
	for (uint32_t o = 0; o < r->len;) {
		uint64_t a = base + off + o;
		uint64_t lim = 128 - (a % 128);
		uint32_t chunk;

		if (4096 - (a % 4096) < lim)
			lim = 4096 - (a % 4096);
		chunk = (uint32_t)(r->len - o < lim ? r->len - o : lim);
		if (t->pw_n == t->pw_cap) {
			size_t cap = t->pw_cap ? 2 * t->pw_cap : 64;
			struct rt_pio_piece *v = malloc(cap * sizeof *v);

			if (!v)
				return;
			for (size_t i = 0; i < t->pw_n; i++)
				v[i] = t->pio_wait[(t->pw_head + i) & (t->pw_cap - 1)];
			free(t->pio_wait);
			t->pio_wait = v;
			t->pw_cap = cap;
			t->pw_head = 0;
		}
		t->pio_wait[(t->pw_head + t->pw_n) & (t->pw_cap - 1)] =
			(struct rt_pio_piece){r, o, chunk, off + o, (uint8_t)(bar & 1)};
		t->pw_n++;
		o += chunk;
	}
	if (r->len == 0) {
		r->done = true;
		return;
	}
	pio_issue(t);
}

/* --- the TLP log (sim/trace_control.cpp log_tlp, sim/tlp.cpp describe) --- */

/* The device's requester id (sim/platform_open_close.cpp DeviceBdf) and
 * the root complex's (sim/root_complex.h RcId). */
#define RT_BDF 0x0100u
#define RT_RC_ID 0x0000u

static void byte_enables(uint64_t addr, uint32_t n, unsigned *fbe, unsigned *lbe)
{
	unsigned ndw = span_dw(addr, n);
	unsigned first = (0xfu << (addr & 3)) & 0xf;
	unsigned tail = (unsigned)((addr + n) & 3);
	unsigned last = tail ? (1u << tail) - 1 : 0xf;

	if (ndw == 1) {
		*fbe = first & last;
		*lbe = 0;
	} else {
		*fbe = first;
		*lbe = last;
	}
}

void rt_log_line(struct abb_reftime *t, const char *dir, const struct rt_tlp *m)
{
	char d[200];
	uint64_t a;
	unsigned fbe = 0xf, lbe = 0xf, len;

	if (!t->log)
		return;
	switch (m->origin) {
	case RT_O_PIO_WR:
	case RT_O_PIO_RD:
		a = t->bar_base[m->bar] + m->pa;
		byte_enables(a, m->bytes, &fbe, &lbe);
		snprintf(d, sizeof d, "%-4s req=%04x tag=%02x addr=0x%08llx len=%u fbe=%x lbe=%x",
			 m->origin == RT_O_PIO_WR ? "MWr" : "MRd", RT_RC_ID, m->tag,
			 (unsigned long long)(a & ~3ull), span_dw(a, m->bytes), fbe, lbe);
		break;
	case RT_O_C2H_DATA:
	case RT_O_DEV_READ:
	case RT_O_MSI:
		len = m->origin == RT_O_DEV_READ ? m->bytes / 4u : m->ndw;
		snprintf(d, sizeof d, "%-4s req=%04x tag=%02x addr=0x%08llx len=%u fbe=f lbe=%x%s",
			 m->kind == RT_MRD ? "MRd" : "MWr", RT_BDF, m->tag,
			 (unsigned long long)m->addr, len, len == 1 ? 0 : 0xf,
			 m->hdr_dw == 4 ? " 4dw" : "");
		break;
	case RT_O_PIO_CPL:
		snprintf(d, sizeof d, "CplD req=%04x tag=%02x cpl=%04x st=SC bc=%u la=%02x len=%u",
			 RT_RC_ID, m->tag, RT_BDF, m->bytes,
			 (unsigned)((t->bar_base[m->bar] + m->pa) & 0x7f), m->ndw);
		break;
	case RT_O_DEV_CPL:
		snprintf(d, sizeof d, "%-4s req=%04x tag=%02x cpl=%04x st=%s bc=%u la=%02x len=%u",
			 m->kind == RT_CPL ? "Cpl" : "CplD", RT_BDF, m->tag, RT_RC_ID,
			 m->kind == RT_CPL ? "UR" : "SC", m->bc, (unsigned)(m->addr & 0x7f), m->ndw);
		break;
	case RT_O_INTX:
		snprintf(d, sizeof d, "Msg %s req=%04x route=local",
			 m->arg ? "Assert_INTA" : "Deassert_INTA", RT_BDF);
		break;
	default:
		snprintf(d, sizeof d, "?");
	}
	fprintf(t->log, "%10llu %10llu.%03llu %-4s %s\n",
		(unsigned long long)((unsigned __int128)t->now * t->mhz / 1000000u),
		(unsigned long long)(t->now / 1000), (unsigned long long)(t->now % 1000), dir, d);
}

int abb_reftime_tlp_log(struct abb_reftime *t, const char *path)
{
	FILE *f = NULL;

	if (path && *path) {
		f = fopen(path, "w");
		if (!f)
			return -errno;
	}
	if (t->log)
		fclose(t->log);
	t->log = f;
	return 0;
}

/* --- the board's calls ---------------------------------------------------- */

void rt_up_submit(struct abb_reftime *t, const struct rt_tlp *tlp)
{
	link_submit(t, &t->up, tlp);
}

void rt_down_consumed_ret(struct abb_reftime *t, const struct rt_tlp *tlp)
{
	link_return_later(t, &t->down, tlp);
}

/* --- the event loop (sim/platform.cpp run_cycles) ------------------------- */

enum { EV_NONE, EV_UP, EV_UP_ARRIVE, EV_DOWN, EV_DOWN_ARRIVE, EV_RC, EV_EDGE };

static RT_INLINE uint64_t next_event(const struct abb_reftime *t, int *which, uint64_t *edge,
			   uint64_t *seq)
{
	uint64_t best = RT_NEVER, bs = UINT64_MAX, n, s, e;
	bool arr;

	*which = EV_NONE;
	/* a link with nothing on the wire, no wake and no blocked head has no event */
	if (t->up.started || t->up.wake != RT_NEVER || t->up.blocked) {
		n = link_next(&t->up, &s, &arr);
		if (n != RT_NEVER && ev_before(n, s, best, bs))
			best = n, bs = s, *which = arr ? EV_UP_ARRIVE : EV_UP;
	}
	if (t->down.started || t->down.wake != RT_NEVER || t->down.blocked) {
		n = link_next(&t->down, &s, &arr);
		if (n != RT_NEVER && ev_before(n, s, best, bs))
			best = n, bs = s, *which = arr ? EV_DOWN_ARRIVE : EV_DOWN;
	}
	if (t->reads_n && ev_before(t->reads[t->reads_head].t, t->reads[t->reads_head].seq, best, bs))
		best = t->reads[t->reads_head].t, bs = t->reads[t->reads_head].seq, *which = EV_RC;
	*seq = bs;
	e = rt_engine_next_edge(t->eng);
	if (e != RT_NEVER) {
		n = rt_edge_time(t, e);
		/* events at the edge's time run before it */
		if (n < best) {
			best = n;
			*which = EV_EDGE;
			*edge = e;
		}
	}
	return best;
}

/* One link event at now: the oldest TLP on the wire arrives, or (arrival
 * 0) the serialiser is free or credits are back. */
static void link_event(struct abb_reftime *t, struct rt_link *l, bool arrival)
{
	if (arrival) {
		/* handled in place (the receiver queues nothing on this ring) */
		const struct rt_tlp *tlp = &l->q.v[l->q.head];

		if (l == &t->up)
			rc_upstream(t, tlp);
		else
			rt_engine_deliver(t->eng, tlp);
		ring_pop(&l->q);
		l->started--;
		return;
	}
	if (l->wake <= t->now)
		l->wake = RT_NEVER;
	link_try_start(t, l);
}

struct abb_reftime_deadline abb_reftime_deadline(struct abb_reftime *t, uint64_t ps)
{
	struct abb_reftime_deadline d = {ps, t->seq++};

	return d;
}

/* --- the C2H stream (doc/time.md, "Speed work, second round") ----------
 *
 * While one DMA read runs alone (rt_engine_stream_ok) and the rest of the
 * platform has nothing to do (the down link empty with no wake, no read
 * at the root complex, no PIO piece waiting), the only events are the up
 * link's (its serialiser's wake, credits back to a blocked head, an
 * arrival) and the engine's edges, which rt_engine_stream_edge runs
 * without the general evaluation. The events are chosen as next_event
 * chooses them (the up link's by time and scheduling number, an edge only
 * before every link event at its time) and each leaves the state exactly
 * as the general loop would, so the loop may stop at any event: it hands
 * back (-1) the first one it does not run (an arrival that is not a C2H
 * write, an edge rt_engine_stream_edge refuses) to the general loop. */
static bool stream_ok(const struct abb_reftime *t)
{
	return t->down.q.n == 0 && t->down.wake == RT_NEVER && !t->down.blocked &&
	       t->reads_n == 0 && t->nready == 0 && t->pw_n == 0 && rt_engine_stream_ok(t->eng);
}

static int stream_loop(struct abb_reftime *t, struct abb_reftime_deadline d, unsigned *k,
		       unsigned max_events);

static int stream_run(struct abb_reftime *t, struct abb_reftime_deadline d, unsigned *k,
		      unsigned max_events)
{
	/* the stream's arrivals (rc_c2h_arrive_in) defer with no write's
	 * completions deferred, and the stream defers none */
	if (t->hpend.n)
		rt_h2c_flush_now(t);
	return stream_loop(t, d, k, max_events);
}

static int stream_loop(struct abb_reftime *t, struct abb_reftime_deadline d, unsigned *k,
		       unsigned max_events)
{
	struct rt_link *up = &t->up;

	for (; *k < max_events; (*k)++) {
		uint64_t nt = up->wake, seq = up->wake_seq, e;
		bool arr = false, edge = false;

		/* link_next of the up link, in place (RT_NEVER: none) */
		if (up->blocked && up->ret_n &&
		    ev_before(up->ret[up->ret_head].t, up->ret[up->ret_head].seq, nt, seq))
			nt = up->ret[up->ret_head].t, seq = up->ret[up->ret_head].seq;
		if (up->started && ev_before(up->q.v[up->q.head].t, up->q.v[up->q.head].seq, nt, seq)) {
			nt = up->q.v[up->q.head].t, seq = up->q.v[up->q.head].seq;
			arr = true;
		}
		e = rt_engine_next_edge(t->eng);
		if (e != RT_NEVER) {
			uint64_t et = rt_edge_time(t, e);

			if (et < nt) {
				nt = et;
				edge = true;
			}
		}
		if (nt == RT_NEVER || !ev_before(nt, edge ? UINT64_MAX : seq, d.ps, d.seq)) {
			if (d.ps != RT_NEVER && d.ps > t->now)
				t->now = d.ps;
			return 0;
		}
		if (edge) {
			uint64_t was = t->now;

			if (nt > t->now)
				t->now = nt;
			t->in_edge = true;
			if (!rt_engine_stream_edge(t->eng, e)) {
				t->in_edge = false;
				t->now = was;
				return -1;
			}
			t->in_edge = false;
		} else {
			if (arr && up->q.v[up->q.head].origin != RT_O_C2H_DATA)
				return -1;
			if (nt > t->now)
				t->now = nt;
			/* link_event of the up link */
			if (arr) {
				rc_c2h_arrive_in(t, &up->q.v[up->q.head]);
				ring_pop(&up->q);
				up->started--;
			} else {
				if (up->wake <= t->now)
					up->wake = RT_NEVER;
				up_try_start(t);
			}
		}
		if (t->wake) {
			t->wake = false;
			(*k)++;
			return 1;
		}
	}
	return 2;
}

static int run_events(struct abb_reftime *t, struct abb_reftime_deadline d, unsigned max_events);

/* The event loops' stop: the next event (nt, of kind which, sequence seq;
 * an edge runs after every event at its time) is not before the deadline
 * d, or there is none: time moved on to d (where d is later), false; else
 * time moved to the event's, true (run it). */
static inline bool event_due(struct abb_reftime *t, uint64_t nt, int which, uint64_t seq,
			     struct abb_reftime_deadline d)
{
	if (which == EV_NONE || !ev_before(nt, which == EV_EDGE ? UINT64_MAX : seq, d.ps, d.seq)) {
		if (d.ps != RT_NEVER && d.ps > t->now)
			t->now = d.ps;
		return false;
	}
	if (nt > t->now)
		t->now = nt;
	return true;
}

int abb_reftime_run(struct abb_reftime *t, struct abb_reftime_deadline d, unsigned max_events)
{
	int r = run_events(t, d, max_events);

	rt_mem_flush(t); /* board and host memory as the caller may look at them */
	return r;
}

/* --- the H2C stream (doc/time.md, "Speed work, third round") ------------
 *
 * While a DMA write's completions stream down (the down link busy with
 * the root complex's completions, one waiting behind the one on the wire,
 * early RX, completions without a credit limit), two kinds of event make
 * up most of it: the down link's wake (the serialiser frees: the next
 * completion starts, goes to the hard IP, the root complex feeds the one
 * after it) and the engine's edge that only ends a mover's completion at
 * RX or only moves the H2C mover's read request in TX
 * (rt_engine_h2c_edge). Neither changes the up link or the root complex's
 * reads (but for a request's last beat, which hands it to the up link), so
 * their next event (time, scheduling number) is worked out once and again
 * only after an event that may change it. The loop picks among the down
 * link's wake, the engine's edge and that event as next_event does (the
 * down link has no other event while nothing is on its wire and it is not
 * blocked: checked before each event) and runs the wake as link_event
 * does, the two kinds of edge in place, everything else with the general
 * handlers: the same state after each as the general loop leaves. */
static bool h2c_stream_ok(const struct abb_reftime *t)
{
	const struct rt_link *l = &t->down;

	return t->early_rx && l->wake != RT_NEVER && !l->started && !l->blocked &&
	       l->lim_h[RT_FC_CPL] == RT_INF && l->lim_d[RT_FC_CPL] == RT_INF &&
	       rt_engine_h2c_ok(t->eng);
}

/* next_event's up link and reads (time, scheduling number, which) */
static inline void h2c_other(const struct abb_reftime *t, uint64_t *ot, uint64_t *os, int *ow)
{
	*ot = RT_NEVER, *os = UINT64_MAX, *ow = EV_NONE;
	if (t->up.started || t->up.wake != RT_NEVER || t->up.blocked) {
		uint64_t s, n;
		bool arr;

		n = link_next(&t->up, &s, &arr);
		if (n != RT_NEVER)
			*ot = n, *os = s, *ow = arr ? EV_UP_ARRIVE : EV_UP;
	}
	if (t->reads_n && ev_before(t->reads[t->reads_head].t, t->reads[t->reads_head].seq, *ot, *os))
		*ot = t->reads[t->reads_head].t, *os = t->reads[t->reads_head].seq, *ow = EV_RC;
}

static int h2c_stream_run(struct abb_reftime *t, struct abb_reftime_deadline d, unsigned *k,
			  unsigned max_events)
{
	struct rt_link *l = &t->down;
	uint64_t ot, os;
	int ow;

	/* unchanged by the stream's own two kinds of event; worked out again
	 * after any other */
	h2c_other(t, &ot, &os, &ow);
	for (; *k < max_events; (*k)++) {
		uint64_t nt = ot, ns = os, e = rt_engine_next_edge(t->eng);
		int which = ow;

		if (l->started || l->blocked)
			return -1; /* the down link has other events now (a PIO TLP's credits) */

		/* the down link: only its wake (not blocked, nothing on the wire) */
		if (l->wake != RT_NEVER && ev_before(l->wake, l->wake_seq, nt, ns))
			nt = l->wake, ns = l->wake_seq, which = EV_DOWN;
		if (e != RT_NEVER && rt_edge_time(t, e) < nt)
			nt = rt_edge_time(t, e), which = EV_EDGE;
		if (!event_due(t, nt, which, ns, d))
			return 0;
		switch (which) {
		case EV_EDGE:
			t->in_edge = true;
			switch (rt_engine_h2c_edge(t->eng, e)) {
			case 0:
				/* any other edge as the general loop runs it */
				rt_engine_edge(t->eng, e);
				h2c_other(t, &ot, &os, &ow);
				break;
			case 2:
				h2c_other(t, &ot, &os, &ow); /* a TLP on the up link */
				break;
			}
			t->in_edge = false;
			break;
		case EV_DOWN:
			/* link_event of the down link (with early RX it only ever
			 * starts TLPs: the hard IP takes them, the root complex feeds) */
			if (l->wake <= t->now)
				l->wake = RT_NEVER;
			down_try_start(t);
			break;
		case EV_UP:
		case EV_UP_ARRIVE:
			link_event(t, &t->up, which == EV_UP_ARRIVE);
			h2c_other(t, &ot, &os, &ow);
			break;
		case EV_RC:
			rc_read_ready(t);
			h2c_other(t, &ot, &os, &ow);
			break;
		}
		if (t->wake) {
			t->wake = false;
			(*k)++;
			return 1;
		}
	}
	return 2;
}

static int run_events(struct abb_reftime *t, struct abb_reftime_deadline d, unsigned max_events)
{
	for (unsigned k = 0; k < max_events; k++) {
		uint64_t edge = 0, seq = 0;
		int which;
		uint64_t nt;

		if (stream_ok(t)) {
			int r = stream_run(t, d, &k, max_events);

			if (r >= 0)
				return r;
		} else if (h2c_stream_ok(t)) {
			int r = h2c_stream_run(t, d, &k, max_events);

			if (r >= 0)
				return r;
		}
		nt = next_event(t, &which, &edge, &seq);

		/* an edge runs after every event at its time */
		if (!event_due(t, nt, which, seq, d))
			return 0;
		switch (which) {
		case EV_UP:
		case EV_UP_ARRIVE:
			link_event(t, &t->up, which == EV_UP_ARRIVE);
			break;
		case EV_DOWN:
		case EV_DOWN_ARRIVE:
			link_event(t, &t->down, which == EV_DOWN_ARRIVE);
			break;
		case EV_RC:
			rc_read_ready(t);
			break;
		case EV_EDGE:
			t->in_edge = true;
			rt_engine_edge(t->eng, edge);
			t->in_edge = false;
			break;
		}
		if (t->wake) {
			t->wake = false;
			return 1;
		}
	}
	return 2;
}

/* --- the interface -------------------------------------------------------- */

struct abb_reftime *abb_reftime_create(const struct abbsim_params *p,
				       const struct abb_refmodel_cfg *cfg,
				       const struct abb_reftime_host *host)
{
	struct abb_reftime *t = calloc(1, sizeof *t);
	struct abb_refmodel_host ch = {host->dma, NULL, host->ctx};
	uint64_t bar1;

	if (!t)
		return NULL;
	t->p = *p;
	t->p.clk_mhz = abb_reftime_clk_mhz(p);
	t->mhz = t->p.clk_mhz;
	t->period_ps = 1000000u % t->mhz ? 0 : 1000000u / t->mhz;
	t->host = *host;
	t->rng = p->seed;
	link_reset(&t->up, &t->p, &t->p.credits_up);
	link_reset(&t->down, &t->p, &t->p.credits_down);
	/* sim/enumerate.cpp: BAR0 (64 KiB) at the window's base, BAR1 next,
	 * aligned to its size */
	t->bar_base[0] = RT_BAR_WINDOW;
	bar1 = RT_BAR_WINDOW + ABB_REFMODEL_BAR0;
	bar1 = (bar1 + cfg->mem_bytes - 1) & ~(uint64_t)(cfg->mem_bytes - 1);
	t->bar_base[1] = bar1;
	t->msi_addr = RT_MSI_ADDR;
	t->scratch = malloc(4096);
	t->hbuf = malloc(4096);
	t->core = abb_refmodel_create(cfg, &ch);
	if (t->scratch && t->hbuf && t->core)
		t->eng = rt_engine_create(t);
	t->early_rx = t->eng && rt_engine_early_rx(t->eng);
	if (!t->eng) {
		abb_reftime_destroy(t);
		return NULL;
	}
	return t;
}

void abb_reftime_destroy(struct abb_reftime *t)
{
	if (!t)
		return;
	rt_engine_destroy(t->eng);
	abb_refmodel_destroy(t->core);
	free(t->up.q.v);
	free(t->up.ret);
	free(t->down.q.v);
	free(t->down.ret);
	free(t->reads);
	free(t->pio_wait);
	free(t->scratch);
	free(t->hbuf);
	if (t->log)
		fclose(t->log);
	free(t);
}

uint64_t abb_reftime_now(const struct abb_reftime *t)
{
	return t->now;
}

uint64_t abb_reftime_cycles(const struct abb_reftime *t)
{
	/* DeviceClock::cycle_of */
	return (uint64_t)((unsigned __int128)t->now * t->mhz / 1000000u);
}

uint64_t abb_reftime_next(const struct abb_reftime *t)
{
	int which;
	uint64_t edge, seq;

	return next_event(t, &which, &edge, &seq);
}

uint64_t abb_reftime_irq_count(const struct abb_reftime *t)
{
	return t->irq_count;
}

uint64_t abb_reftime_link_tlps(const struct abb_reftime *t)
{
	return t->up.tlps + t->down.tlps;
}

const struct abbsim_params *abb_reftime_params(const struct abb_reftime *t)
{
	return &t->p;
}

struct abb_refmodel *abb_reftime_core(struct abb_reftime *t)
{
	return t->core;
}
