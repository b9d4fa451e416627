/*
 * cpu_store.h - the CPU's store path to a mapped BAR, as the root complex
 * sees it: uncached (UC) stores leave one by one, spaced by the store
 * path's issue time; write-combined (WC) stores merge in a few 64-byte
 * buffers that leave as one write when a line is full, on a fence and on
 * eviction, a partial line as one write per run of written bytes. The
 * profiles' figures and what is known of them: doc/pio.md.
 *
 * The model decides when and in which shape the writes leave; the root
 * complex puts them on the link (emit). Times are device picoseconds.
 */
#ifndef ABBSIM_CPU_STORE_H
#define ABBSIM_CPU_STORE_H

#include <cstdint>
#include <functional>
#include <vector>

#include "abbsim.h"

namespace abbsim {

/* One CPU profile (abbsim_params.cpu indexes ABBSIM_CPU_*). */
struct CpuProfile {
	const char *name;
	uint64_t uc_store_ps;  /* a UC store to the next one */
	uint64_t wc_store_ps;  /* a store into a WC buffer to the next one */
	uint64_t wc_line_ps;   /* a WC write leaving to the next one */
	unsigned wc_buffers;   /* 64-byte WC buffers */
};
const CpuProfile &cpu_profile(unsigned cpu);

class CpuStore {
public:
	static constexpr unsigned Line = 64;
	/* Puts one write of n bytes at addr on the link at time at. */
	std::function<void(uint64_t addr, const uint8_t *src, unsigned n, uint64_t at)> emit;

	void reset(const abbsim_params &p);
	/* One store of width bytes (1,2,4,8,16,32,64; addr aligned to it),
	 * issued no earlier than now. */
	void store(uint64_t addr, const uint8_t *src, unsigned width, uint64_t now);
	/* Every WC buffer leaves (SFENCE, a UC access, a read, close); the
	 * time from which the next access may issue. */
	uint64_t fence(uint64_t now);
	/* A write of the store model arrived at the board. */
	void arrived(unsigned bytes, uint64_t now);
	void stats(struct abbsim_pio_stats *out, bool clear);
	bool wc() const { return wc_; }
	/* When the store path has issued everything it was given (and the
	 * last WC write has left). */
	uint64_t idle_at() const
	{
		uint64_t t = busy_ > line_busy_ ? busy_ : line_busy_;
		return t > last_emit_ ? t : last_emit_;
	}

private:
	struct Buf {
		bool used = false;
		uint64_t line = 0;
		uint64_t mask = 0; /* bit i: byte i written */
		uint8_t data[Line] = {};
	};
	void leave(Buf &b, uint64_t t);
	uint64_t line_slot(uint64_t t);

	bool wc_ = false;
	CpuProfile prof_{};
	std::vector<Buf> bufs_;
	uint64_t busy_ = 0;      /* the store path is free from here */
	uint64_t line_busy_ = 0; /* the next WC write may leave from here */
	uint64_t last_emit_ = 0; /* the last WC write leaves then */
	uint64_t rng_ = 1;
	/* statistics since the last clear */
	uint64_t stores_ = 0, tlps_ = 0, bytes_ = 0, arrived_tlps_ = 0, arrived_bytes_ = 0;
	uint64_t first_ps_ = 0, last_ps_ = 0;
	bool any_ = false;
};

} // namespace abbsim
#endif
