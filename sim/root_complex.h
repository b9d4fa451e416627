/*
 * root_complex.h - the root complex and host memory: turns host PIO into
 * MWr/MRd TLPs to the BARs and collects the device's completions; lands
 * device memory writes in host memory through the IOMMU; answers device
 * memory reads after the memory latency with completions split at the
 * read-completion boundary and MPS, optionally interleaved across tags;
 * counts interrupt events (MSI writes and Assert_INTA messages) and tracks
 * the INTx line; checks the PCIe rules a real root complex enforces.
 */
#ifndef ABBSIM_ROOT_COMPLEX_H
#define ABBSIM_ROOT_COMPLEX_H

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "abbsim.h"
#include "cpu_store.h"
#include "event_queue.h"
#include "iommu.h"
#include "link.h"
#include "tlp.h"

namespace abbsim {

/* One host PIO read: the buffer the completions fill, and its result. The
 * engine completes the waiting host thread when done is set. */
struct PioRead {
	std::vector<uint8_t> data;
	unsigned outstanding = 0;
	int result = 0;
	bool done = false;
	std::string error;
};

class RootComplex {
public:
	static constexpr uint16_t RcId = 0x0000;
	static constexpr uint64_t MsiLo = 0xfee00000, MsiHi = 0xfef00000;
	/* The PIO completion timeout at the default clock and latency (50 us,
	 * the low end of PCIe's default range A, 50 us..10 ms). */
	static constexpr uint64_t PioTimeoutPs = 50ull * 1000 * 1000;

	RootComplex(EventQueue &q, Link &down, Link &up, Iommu &mmu) : q_(q), down_(down), up_(up), mmu_(mmu) {}
	void reset(const abbsim_params &p);
	/* MPS and MRRS as programmed in Device Control (bytes). */
	void set_limits(unsigned mps, unsigned mrrs) { mps_ = mps; mrrs_ = mrrs; }

	/* Host PIO at device address addr (BAR base + offset). */
	void pio_write(uint64_t addr, const uint8_t *src, size_t n, uint64_t now);
	void pio_read(uint64_t addr, size_t n, std::shared_ptr<PioRead> r, uint64_t now);
	/* The CPU store model (cpu_store.h): stores to BAR1 at host address
	 * addr, and the fence. pio_write and pio_read fence first and issue
	 * behind the stores still due. */
	void pio_store(uint64_t addr, const uint8_t *src, size_t n, unsigned width, uint64_t now);
	void pio_fence(uint64_t now) { cpu.fence(now); }
	/* Writes and reads the store model scheduled that have not issued. */
	unsigned pio_due() const { return due_; }
	CpuStore cpu;

	/* A TLP from the device arrived (upstream link delivery). */
	void on_upstream(Tlp &&t, uint64_t now);
	/* The downstream link can take the next completion. */
	void feed(uint64_t now);
	bool quiet() const
	{
		return reads_.empty() && ready_.empty() && pio_pending_ == 0 && pio_wait_.empty() &&
		       due_ == 0;
	}

	/* Link injection: the link went down at now (every read outstanding
	 * either way is lost: PIO reads fail with -ENOLINK, device reads are
	 * forgotten); while down a PIO read fails at once, a write is dropped. */
	void link_down(uint64_t now, const std::string &why);
	void link_up() { down_now_ = false; }
	bool link_is_down() const { return down_now_; }
	/* Gives the device read of tag up (no further completions). */
	void end_read(unsigned tag);
	/* A tag with no device read outstanding here (below limit if any). */
	bool dev_tag_busy(unsigned tag) const { return tag_busy_[tag & 255]; }
	bool pio_tag_busy(unsigned tag) const { return pio_[tag & 255].busy; }

	std::function<void()> wake;                 /* a PIO read finished or an interrupt came */
	std::function<uint64_t(uint64_t)> cycle_of; /* time -> user-clock cycle */
	std::function<void(const std::string &)> violation;
	uint64_t irq_count = 0;  /* MSI writes + Assert_INTA messages */
	bool intx_asserted = false; /* Assert_INTA received, Deassert_INTA not yet */

private:
	struct DmaRead {
		uint16_t req_id;
		uint8_t tag;
		uint64_t next;   /* address of the next byte to complete */
		uint64_t end;    /* one past the last byte */
		bool first = true;
		bool ur = false;
		std::vector<uint8_t> bytes; /* snapshot of host memory from next..end */
		size_t taken = 0;
	};
	struct PioTag {
		std::shared_ptr<PioRead> req;
		size_t off = 0;         /* in req->data */
		uint64_t addr = 0;      /* first byte */
		unsigned n = 0, got = 0;
		EventQueue::Live live;  /* its timeout event, cleared when done */
		bool busy = false;
	};
	void host_write(const Tlp &t, uint64_t now);
	void message(const Tlp &t, uint64_t now);
	void dma_read(Tlp &&t, uint64_t now);
	void pio_completion(const Tlp &t, uint64_t now);
	void pio_finish(PioTag &pt, int result, const std::string &why, uint64_t now);
	/* A piece of a PIO read (at most 128 bytes, inside one 4 KiB page) that
	 * waits for a tag: like a CPU, the root complex keeps at most
	 * PioMaxOutstanding reads in flight and sends the rest as they finish. */
	struct PioPiece {
		std::shared_ptr<PioRead> req;
		size_t off;
		uint64_t addr;
		unsigned n;
	};
	static constexpr unsigned PioMaxOutstanding = 32;
	void pio_issue(uint64_t now);
	Tlp next_completion(DmaRead &r);
	void bad(uint64_t now, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

	EventQueue &q_;
	Link &down_, &up_;
	Iommu &mmu_;
	unsigned mps_ = 128, mrrs_ = 512, rcb_ = 64;
	uint64_t pio_timeout_ps_ = PioTimeoutPs; /* reset(): follows the clock and the link latency */
	uint64_t mem_latency_ps_ = 0;
	unsigned reorder_ = 0;   /* abbsim_params.reorder */
	size_t rr_next_ = 0;     /* reorder 2: the ready read whose turn is next */
	bool cpl_rcb_ = true; /* every completion ends at an RCB boundary */
	uint64_t rng_ = 1;
	std::deque<DmaRead> reads_;  /* waiting for the memory latency */
	/* rc_reads (0: no limit): reads whose memory latency runs at once;
	 * the reads_ behind the first serving_ wait for a free slot */
	unsigned rc_reads_ = 0, serving_ = 0;
	void serve(uint64_t now);
	std::vector<DmaRead> ready_; /* being completed */
	bool tag_busy_[256] = {}; /* device read tags outstanding */
	PioTag pio_[256];
	unsigned pio_next_ = 0, pio_pending_ = 0;
	std::deque<PioPiece> pio_wait_;
	bool down_now_ = false;
	std::string down_why_;
	uint64_t gen_ = 0; /* bumped at link down: memory-latency events of before are void */
	uint64_t reset_gen_ = 0;
	unsigned due_ = 0; /* PIO writes and reads the store model has scheduled, not issued yet */
	void pio_read_now(uint64_t addr, size_t n, std::shared_ptr<PioRead> r, uint64_t now);
	void pio_write_now(uint64_t addr, const uint8_t *src, size_t n, uint64_t now, bool store);
	void later(uint64_t at, std::function<void(uint64_t)> fn);
};

} // namespace abbsim
#endif
