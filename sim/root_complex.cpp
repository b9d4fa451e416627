/*
 * root_complex.cpp - host side of the link: PIO, DMA write landing, DMA read
 * completions, MSI and INTx messages, rule checks.
 */
#include "root_complex.h"
#include "rng.h"

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace abbsim {


void RootComplex::reset(const abbsim_params &p)
{
	mps_ = p.mps;
	mrrs_ = p.mrrs;
	rcb_ = p.rcb;
	mem_latency_ps_ = (uint64_t)p.mem_latency_ns * 1000;
	rc_reads_ = p.rc_reads;
	serving_ = 0;
	/* The completion timeout follows the parameters, so that every
	 * accepted parameter set works: 50 us at 125 MHz and above, scaled up
	 * for a slower user clock (a PIO read waits behind the downstream
	 * traffic the RTL drains at 8 bytes per cycle), plus the round trip of
	 * the link (request down, completion up). A link latency of 25 us or
	 * more, or a clock of 10..15 MHz, made every read time out before. */
	unsigned clk = abbsim_clk_mhz(&p);
	pio_timeout_ps_ = (clk >= 125 ? PioTimeoutPs : PioTimeoutPs * 125 / clk) +
			  2 * (uint64_t)p.link_latency_ns * 1000;
	reorder_ = p.reorder;
	rr_next_ = 0;
	cpl_rcb_ = p.cpl_rcb;
	rng_ = p.seed;
	reads_.clear();
	ready_.clear();
	memset(tag_busy_, 0, sizeof tag_busy_);
	for (auto &pt : pio_)
		pt = PioTag{};
	pio_next_ = pio_pending_ = 0;
	pio_wait_.clear();
	irq_count = 0;
	intx_asserted = false;
	down_now_ = false;
	gen_++;
	reset_gen_++;
	due_ = 0;
	cpu.reset(p);
	cpu.emit = [this](uint64_t addr, const uint8_t *src, unsigned n, uint64_t at) {
		std::vector<uint8_t> d(src, src + n);
		later(at, [this, addr, d = std::move(d)](uint64_t t) { pio_write_now(addr, d.data(), d.size(), t, true); });
	};
}

void RootComplex::link_down(uint64_t now, const std::string &why)
{
	down_now_ = true;
	down_why_ = why;
	gen_++;
	reads_.clear();
	serving_ = 0;
	ready_.clear();
	memset(tag_busy_, 0, sizeof tag_busy_);
	intx_asserted = false;
	while (!pio_wait_.empty()) {
		PioPiece pc = std::move(pio_wait_.front());
		pio_wait_.pop_front();
		if (!pc.req->result) {
			pc.req->result = -ENOLINK;
			pc.req->error = why;
		}
		if (--pc.req->outstanding == 0) {
			pc.req->done = true;
			if (wake)
				wake();
		}
	}
	for (auto &pt : pio_)
		if (pt.busy)
			pio_finish(pt, -ENOLINK, why, now);
}

void RootComplex::end_read(unsigned tag)
{
	for (size_t i = 0; i < ready_.size(); i++)
		if (ready_[i].tag == tag) {
			ready_.erase(ready_.begin() + (long)i);
			tag_busy_[tag & 255] = false;
			return;
		}
}

void RootComplex::bad(uint64_t now, const char *fmt, ...)
{
	char buf[300];
	int n = snprintf(buf, sizeof buf, "cycle %llu: ",
			 (unsigned long long)(cycle_of ? cycle_of(now) : 0));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof buf - n, fmt, ap);
	va_end(ap);
	if (violation)
		violation(buf);
}

/* ---- host PIO ---- */

/* Runs fn at time at (now when at is not later): the store model's
 * accesses issue when the CPU's store path gets to them. */
void RootComplex::later(uint64_t at, std::function<void(uint64_t)> fn)
{
	due_++;
	uint64_t g = reset_gen_;
	q_.at(at, [this, g, fn](uint64_t t) {
		if (g != reset_gen_)
			return; /* reset since (at link down they run: reads fail, writes are lost) */
		due_--;
		fn(t);
	});
}

void RootComplex::pio_store(uint64_t addr, const uint8_t *src, size_t n, unsigned width, uint64_t now)
{
	for (size_t o = 0; o < n; o += width)
		cpu.store(addr + o, src + o, width, now);
}

/* A UC write of the program (abbsim_mmio_write): the WC buffers leave
 * first; it issues behind the stores still due, at once when none is. */
void RootComplex::pio_write(uint64_t addr, const uint8_t *src, size_t n, uint64_t now)
{
	uint64_t t = cpu.fence(now);
	if (t <= now && due_ == 0) {
		pio_write_now(addr, src, n, now, false);
		return;
	}
	std::vector<uint8_t> d(src, src + n);
	later(t, [this, addr, d = std::move(d)](uint64_t at) { pio_write_now(addr, d.data(), d.size(), at, false); });
}

/* A read flushes the WC buffers and waits behind every store due (a read
 * does not pass a posted write). */
void RootComplex::pio_read(uint64_t addr, size_t n, std::shared_ptr<PioRead> r, uint64_t now)
{
	uint64_t t = cpu.fence(now);
	if (t <= now && due_ == 0) {
		pio_read_now(addr, n, r, now);
		return;
	}
	later(t, [this, addr, n, r](uint64_t at) { pio_read_now(addr, n, r, at); });
}

void RootComplex::pio_write_now(uint64_t addr, const uint8_t *src, size_t n, uint64_t now, bool store)
{
	if (down_now_)
		return; /* the link is down: the write is lost */
	/* TLPs of at most min(MPS, 128) bytes, none crossing 4 KiB. */
	const uint64_t maxb = std::min<unsigned>(mps_, 128);
	while (n) {
		uint64_t lim = std::min<uint64_t>(maxb - (addr % maxb), 4096 - (addr % 4096));
		unsigned chunk = (unsigned)std::min<uint64_t>(n, lim);
		Tlp t = make_mem(true, addr, chunk, RcId, 0, src);
		t.cpu_store = store;
		down_.submit(std::move(t), now);
		addr += chunk;
		src += chunk;
		n -= chunk;
	}
}

void RootComplex::pio_read_now(uint64_t addr, size_t n, std::shared_ptr<PioRead> r, uint64_t now)
{
	r->data.assign(n, 0xff);
	if (down_now_) {
		r->result = -ENOLINK;
		r->error = down_why_;
		r->done = true;
		if (wake)
			wake();
		return;
	}
	for (size_t off = 0; off < n;) {
		uint64_t a = addr + off;
		uint64_t lim = std::min<uint64_t>(128 - (a % 128), 4096 - (a % 4096));
		unsigned chunk = (unsigned)std::min<uint64_t>(n - off, lim);
		pio_wait_.push_back(PioPiece{r, off, a, chunk});
		r->outstanding++;
		off += chunk;
	}
	if (r->outstanding == 0) {
		r->done = true;
		if (wake)
			wake();
		return;
	}
	pio_issue(now);
}

void RootComplex::pio_issue(uint64_t now)
{
	while (!pio_wait_.empty() && pio_pending_ < PioMaxOutstanding) {
		PioPiece pc = std::move(pio_wait_.front());
		pio_wait_.pop_front();
		unsigned tag = pio_next_;
		while (pio_[tag].busy) /* fewer than 256 in flight: one is free */
			tag = (tag + 1) % 256;
		pio_next_ = (tag + 1) % 256;
		PioTag &pt = pio_[tag];
		pt.req = pc.req;
		pt.off = pc.off;
		pt.addr = pc.addr;
		pt.n = pc.n;
		pt.got = 0;
		pt.live = std::make_shared<bool>(true);
		pt.busy = true;
		pio_pending_++;
		/* The completion timeout runs from the transmission of the
		 * request (it may wait behind posted writes or for credits). */
		EventQueue::Live live = pt.live;
		down_.submit(make_mem(false, pc.addr, pc.n, RcId, (uint8_t)tag, nullptr), now,
			     [this, tag, live](uint64_t start) {
			if (!*live)
				return;
			q_.at(start + pio_timeout_ps_, [this, tag](uint64_t t) {
				PioTag &p = pio_[tag];
				if (p.busy) {
					char why[160];
					snprintf(why, sizeof why,
						 "completion timeout: no completion for PIO read of %u bytes at 0x%llx within %llu ns",
						 p.n, (unsigned long long)p.addr,
						 (unsigned long long)(pio_timeout_ps_ / 1000));
					bad(t, "%s", why);
					pio_finish(p, -EIO, why, t);
				}
			}, live);
		});
	}
}

void RootComplex::pio_finish(PioTag &pt, int result, const std::string &why, uint64_t now)
{
	auto r = pt.req;
	if (result) {
		std::fill(r->data.begin() + pt.off, r->data.begin() + pt.off + pt.n, 0xff);
		if (!r->result) {
			r->result = result;
			r->error = why;
		}
	}
	pt.busy = false;
	*pt.live = false;
	pt.live.reset();
	pt.req.reset();
	pio_pending_--;
	if (--r->outstanding == 0) {
		r->done = true;
		if (wake)
			wake();
	}
	pio_issue(now);
}

void RootComplex::pio_completion(const Tlp &t, uint64_t now)
{
	unsigned tag = t.cpl_tag();
	PioTag &pt = pio_[tag];
	if (t.cpl_req_id() != RcId || !pt.busy) {
		bad(now, "unexpected completion (no PIO read with this tag outstanding): %s",
		    t.describe().c_str());
		return;
	}
	if (t.cpl_status() != CplSC) {
		pio_finish(pt, -EIO, "PIO read completed with status " + t.describe(), now);
		return;
	}
	if (t.h[0] & (1u << 14)) {
		pio_finish(pt, -EIO, "PIO read completed with poisoned data (EP): " + t.describe(), now);
		return;
	}
	if (t.kind() != TlpKind::CplD) {
		bad(now, "successful completion without data for a PIO read: %s", t.describe().c_str());
		pio_finish(pt, -EIO, "PIO read completed without data", now);
		return;
	}
	uint64_t want = pt.addr + pt.got;
	unsigned remain = pt.n - pt.got;
	if (t.lower_addr() != (want & 0x7f) || t.byte_count() != remain) {
		bad(now, "PIO read completion fields wrong: lower address %02x byte count %u, expected %02x %u: %s",
		    t.lower_addr(), t.byte_count(), (unsigned)(want & 0x7f), remain, t.describe().c_str());
		pio_finish(pt, -EIO, "malformed PIO read completion", now);
		return;
	}
	unsigned skip = (unsigned)(want & 3);
	unsigned avail = t.payload_bytes() > skip ? t.payload_bytes() - skip : 0;
	unsigned take = std::min(avail, remain);
	const uint8_t *p = (const uint8_t *)t.data.data() + skip;
	memcpy(pt.req->data.data() + pt.off + pt.got, p, take);
	pt.got += take;
	if (pt.got >= pt.n)
		pio_finish(pt, 0, "", now);
}

/* ---- device requests ---- */

void RootComplex::on_upstream(Tlp &&t, uint64_t now)
{
	up_.consumed(t.fc_class(), t.data_credits(), now);
	if (t.has_data() && t.len_dw() != t.data.size()) {
		bad(now, "malformed TLP dropped (Length %u DW, payload %zu DW): %s", t.len_dw(),
		    t.data.size(), t.describe().c_str());
		return;
	}
	if (t.kind() == TlpKind::MWr && (t.h[0] & (1u << 14)) && !(t.addr() >= MsiLo && t.addr() < MsiHi)) {
		bad(now, "poisoned memory write (EP) dropped: %s", t.describe().c_str());
		return;
	}
	switch (t.kind()) {
	case TlpKind::MWr:
		host_write(t, now);
		break;
	case TlpKind::MRd:
		dma_read(std::move(t), now);
		break;
	case TlpKind::Cpl:
	case TlpKind::CplD:
		pio_completion(t, now);
		break;
	case TlpKind::Msg:
		message(t, now);
		break;
	default:
		bad(now, "unsupported TLP from the device dropped: %s", t.describe().c_str());
	}
}

void RootComplex::host_write(const Tlp &t, uint64_t now)
{
	uint64_t a = t.addr();
	unsigned bytes = 4 * t.len_dw();
	if (a >= MsiLo && a < MsiHi) {
		irq_count++;
		if (wake)
			wake();
		return;
	}
	if (bytes > mps_) {
		bad(now, "memory write payload %u bytes exceeds MPS %u, dropped: %s", bytes, mps_,
		    t.describe().c_str());
		return;
	}
	if ((a % 4096) + bytes > 4096) {
		bad(now, "memory write crosses a 4 KiB boundary, dropped: %s", t.describe().c_str());
		return;
	}
	if (t.len_dw() > 1 && (t.fbe() == 0 || t.lbe() == 0)) {
		bad(now, "memory write of more than 1 DW with a zero byte enable: %s", t.describe().c_str());
		return;
	}
	/* Write each run of enabled bytes (normally exactly one). */
	const uint8_t *src = (const uint8_t *)t.data.data();
	unsigned n = t.len_dw();
	auto enabled = [&](unsigned b) {
		unsigned dw = b / 4, bit = 1u << (b % 4);
		if (dw == 0)
			return (t.fbe() & bit) != 0;
		if (dw == n - 1)
			return (t.lbe() & bit) != 0;
		return true;
	};
	uint64_t cyc = cycle_of ? cycle_of(now) : 0;
	for (unsigned b = 0; b < bytes;) {
		if (!enabled(b)) {
			b++;
			continue;
		}
		unsigned e = b;
		while (e < bytes && enabled(e))
			e = (e >= 4 && e < 4 * (n - 1)) ? 4 * (n - 1) : e + 1;
		mmu_.dev_write(a + b, src + b, e - b, cyc);
		b = e;
	}
}

/* Legacy INTx: Assert_INTA / Deassert_INTA from the device (routed local:
 * the root port takes them as the wire would). Each Assert is an interrupt
 * event; the line state is checked against the protocol: a Deassert without
 * Assert or a second Assert is an error (the state is taken as the message
 * says). */
void RootComplex::message(const Tlp &t, uint64_t now)
{
	unsigned code = t.msg_code();
	if (code != MsgAssertIntA && code != MsgDeassertIntA) {
		bad(now, "unsupported message from the device dropped: %s", t.describe().c_str());
		return;
	}
	if (t.msg_route() != MsgRouteLocal || t.has_data())
		bad(now, "INTx message must be routed local and carry no data: %s", t.describe().c_str());
	if (code == MsgAssertIntA) {
		if (intx_asserted)
			bad(now, "Assert_INTA while INTA is already asserted: %s", t.describe().c_str());
		intx_asserted = true;
		irq_count++;
		if (wake)
			wake();
	} else {
		if (!intx_asserted)
			bad(now, "Deassert_INTA while INTA is not asserted: %s", t.describe().c_str());
		intx_asserted = false;
	}
}

void RootComplex::dma_read(Tlp &&t, uint64_t now)
{
	unsigned tag = t.req_tag();
	unsigned bytes = 4 * t.len_dw();
	uint64_t a = t.addr();
	bool ok = true;
	if (bytes > mrrs_) {
		bad(now, "memory read of %u bytes exceeds MRRS %u: %s", bytes, mrrs_, t.describe().c_str());
		ok = false;
	}
	if ((a % 4096) + bytes > 4096) {
		bad(now, "memory read crosses a 4 KiB boundary: %s", t.describe().c_str());
		ok = false;
	}
	if (tag_busy_[tag]) {
		bad(now, "memory read reuses tag %02x that is still outstanding: %s", tag, t.describe().c_str());
		ok = false;
	}
	DmaRead r;
	r.req_id = t.req_id();
	r.tag = (uint8_t)tag;
	r.next = t.first_byte_addr();
	r.end = r.next + t.byte_span();
	r.ur = !ok;
	tag_busy_[tag] = true;
	reads_.push_back(std::move(r));
	if (!rc_reads_ || serving_ < rc_reads_)
		serve(now);
}

/* Starts the memory latency of the first read not yet served (reads are
 * served in arrival order, each for the same latency, so they finish in
 * that order too: the front of reads_ is always the next to finish). */
void RootComplex::serve(uint64_t now)
{
	uint64_t g = gen_;
	serving_++;
	q_.at(now + mem_latency_ps_, [this, g](uint64_t t2) {
		if (g != gen_)
			return; /* the link went down */
		DmaRead d = std::move(reads_.front());
		reads_.pop_front();
		serving_--;
		if (reads_.size() > serving_)
			serve(t2); /* a read waited for this slot */
		if (!d.ur) {
			/* Host memory is read now, in one piece, through the IOMMU. */
			d.bytes.resize(d.end - d.next);
			if (!mmu_.dev_read(d.next, d.bytes.data(), d.bytes.size(),
							cycle_of ? cycle_of(t2) : 0))
				d.ur = true;
		}
		ready_.push_back(std::move(d));
		feed(t2);
	});
}

Tlp RootComplex::next_completion(DmaRead &r)
{
	unsigned bc = (unsigned)(r.end - r.next);
	if (r.ur) {
		Tlp c = make_cpl(RcId, CplUR, bc, r.req_id, r.tag, (unsigned)(r.next & 0x7f), nullptr, 0);
		c.host_addr = r.next;
		r.next = r.end;
		return c;
	}
	/* cpl_rcb: every completion ends at the next RCB boundary (or the end),
	 * as Intel root complexes answer. Else: the first completion up to the
	 * next RCB boundary (when the start is not aligned); then the largest
	 * RCB multiple that fits MPS; the last one takes the rest. */
	uint64_t dw = r.next & ~3ull;
	uint64_t stop;
	if (cpl_rcb_) {
		stop = std::min<uint64_t>(r.end, (r.next | (rcb_ - 1)) + 1);
	} else if (r.first && (r.next % rcb_)) {
		stop = std::min<uint64_t>(r.end, (r.next | (rcb_ - 1)) + 1);
		if (stop - dw > mps_)
			stop = dw + mps_;
	} else {
		uint64_t lim = dw + mps_;
		stop = lim >= r.end ? r.end : lim & ~(uint64_t)(rcb_ - 1);
	}
	r.first = false;
	unsigned ndw = (unsigned)(((stop + 3) & ~3ull) - dw) / 4;
	Tlp c = make_cpl(RcId, CplSC, bc, r.req_id, r.tag, (unsigned)(r.next & 0x7f), nullptr, ndw);
	c.host_addr = r.next;
	memcpy((uint8_t *)c.data.data() + (r.next & 3), r.bytes.data() + r.taken, stop - r.next);
	r.taken += stop - r.next;
	r.next = stop;
	return c;
}

void RootComplex::feed(uint64_t now)
{
	/* One completion at a time into an empty transmit queue, so the choice
	 * among ready reads is made as late as the link allows. */
	while (!ready_.empty() && down_.unsent_bytes() == 0) {
		size_t i = reorder_ == 1 ? (size_t)(splitmix(rng_) % ready_.size())
			 : reorder_ == 2 ? rr_next_ % ready_.size() : 0;
		DmaRead &r = ready_[i];
		Tlp c = next_completion(r);
		if (r.next >= r.end) {
			tag_busy_[r.tag] = false;
			ready_.erase(ready_.begin() + (long)i);
			rr_next_ = i; /* the one after it moved into its place */
		} else {
			rr_next_ = i + 1;
		}
		down_.submit(std::move(c), now);
	}
}

} // namespace abbsim
