/*
 * cpu_store.cpp - the CPU store model: UC stores one write each, WC stores
 * merged in 64-byte buffers (cpu_store.h; figures in doc/pio.md).
 */
#include "cpu_store.h"
#include "rng.h"

#include <cstring>

namespace abbsim {

/* Figures of evidence `model` (doc/pio.md): the UC spacing is what the
 * bench's UC rows need to land near the measurements of such stores on
 * x86 machines of each era; the WC figures keep the store path faster
 * than a Gen1 x4 link, as it is on every x86 of either era. */
static const CpuProfile Profiles[ABBSIM_CPU_COUNT] = {
	/* x86-today: 60 ns per UC store, stores into WC at 2 per ns, a WC
	 * write every 10 ns, 12 buffers (the fill buffers of current cores) */
	{"x86-today", 60000, 500, 10000, 12},
	/* x86-2011: 100 ns per UC store, 1 ns per WC store, a WC write every
	 * 20 ns, 10 buffers (Sandy Bridge's line fill buffers) */
	{"x86-2011", 100000, 1000, 20000, 10},
};

const CpuProfile &cpu_profile(unsigned cpu)
{
	return Profiles[cpu < ABBSIM_CPU_COUNT ? cpu : 0];
}

void CpuStore::reset(const abbsim_params &p)
{
	wc_ = p.pio_wc != 0;
	prof_ = cpu_profile(p.cpu);
	unsigned n = p.wc_buffers ? p.wc_buffers : prof_.wc_buffers;
	bufs_.assign(n, Buf{});
	busy_ = line_busy_ = last_emit_ = 0;
	rng_ = p.seed ? p.seed : 1;
	stores_ = tlps_ = bytes_ = arrived_tlps_ = arrived_bytes_ = 0;
	first_ps_ = last_ps_ = 0;
	any_ = false;
}

uint64_t CpuStore::line_slot(uint64_t t)
{
	uint64_t at = t > line_busy_ ? t : line_busy_;
	line_busy_ = at + prof_.wc_line_ps;
	return at;
}

/* A buffer leaves: a full line as one 16-DW write; a partial one as one
 * write per run of written bytes (PCIe byte enables cover only a write's
 * first and last DW, so a hole inside a line splits it). */
void CpuStore::leave(Buf &b, uint64_t t)
{
	for (unsigned i = 0; i < Line;) {
		if (!(b.mask >> i & 1)) {
			i++;
			continue;
		}
		unsigned j = i;
		while (j < Line && (b.mask >> j & 1))
			j++;
		uint64_t at = line_slot(t);
		if (at > last_emit_)
			last_emit_ = at;
		tlps_++;
		emit(b.line + i, b.data + i, j - i, at);
		i = j;
	}
	b = Buf{};
}

void CpuStore::store(uint64_t addr, const uint8_t *src, unsigned width, uint64_t now)
{
	uint64_t t = now > busy_ ? now : busy_;
	if (!any_) {
		any_ = true;
		first_ps_ = t;
	}
	stores_++;
	bytes_ += width;
	if (!wc_) {
		/* UC: one write per store; wider than 8 bytes (SSE, AVX) the
		 * store leaves as 8-byte writes, as x86 does not promise more
		 * for UC; 64 bytes is MOVDIR64B, one 64-byte write */
		unsigned piece = width == 64 ? 64 : (width > 8 ? 8 : width);
		for (unsigned o = 0; o < width; o += piece) {
			tlps_++;
			emit(addr + o, src + o, piece, t);
			t += prof_.uc_store_ps;
		}
		busy_ = t;
		return;
	}
	busy_ = t + prof_.wc_store_ps;
	uint64_t line = addr & ~(uint64_t)(Line - 1);
	Buf *b = nullptr, *free_b = nullptr;
	for (auto &x : bufs_) {
		if (x.used && x.line == line)
			b = &x;
		else if (!x.used && !free_b)
			free_b = &x;
	}
	if (!b) {
		if (!free_b) {
			/* every buffer holds a line: one of them leaves (which one
			 * is the CPU's business: picked at random, seeded) */
			free_b = &bufs_[splitmix(rng_) % bufs_.size()];
			leave(*free_b, t);
		}
		b = free_b;
		b->used = true;
		b->line = line;
	}
	unsigned o = (unsigned)(addr - line);
	memcpy(b->data + o, src, width);
	b->mask |= (width == 64 ? ~0ull : ((1ull << width) - 1) << o);
	if (b->mask == ~0ull)
		leave(*b, t);
}

uint64_t CpuStore::fence(uint64_t now)
{
	uint64_t t = now > busy_ ? now : busy_;
	/* the buffers leave in buffer order, which is not address order
	 * once buffers were reused */
	for (auto &b : bufs_)
		if (b.used)
			leave(b, t);
	busy_ = t;
	/* what comes next issues behind the last write that left: a read
	 * does not pass a posted write */
	return t > last_emit_ ? t : last_emit_;
}

void CpuStore::arrived(unsigned bytes, uint64_t now)
{
	arrived_tlps_++;
	arrived_bytes_ += bytes;
	last_ps_ = now;
}

void CpuStore::stats(struct abbsim_pio_stats *out, bool clear)
{
	memset(out, 0, sizeof *out);
	out->wc = wc_;
	out->wc_buffers = (unsigned)bufs_.size();
	out->stores = stores_;
	out->store_bytes = bytes_;
	out->tlps = tlps_;
	out->arrived_tlps = arrived_tlps_;
	out->arrived_bytes = arrived_bytes_;
	out->first_store_ps = first_ps_;
	out->last_arrival_ps = last_ps_;
	if (clear) {
		stores_ = tlps_ = bytes_ = arrived_tlps_ = arrived_bytes_ = 0;
		first_ps_ = last_ps_ = 0;
		any_ = false;
	}
}

} // namespace abbsim
