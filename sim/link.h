/*
 * link.h - one direction of the PCIe link: a transmit queue, serialisation
 * at lanes x per-lane rate (encoding applied), per-TLP framing/sequence/LCRC,
 * DLLP (ACK/UpdateFC) and SKP ordered-set overhead, a fixed latency, and
 * flow-control credits (posted, non-posted, completion; header and data)
 * that are consumed when a TLP starts and come back a latency after the
 * receiver consumed it. Store and forward: a TLP is delivered whole at
 * (end of serialisation + latency).
 */
#ifndef ABBSIM_LINK_H
#define ABBSIM_LINK_H

#include <cstdint>
#include <deque>
#include <functional>
#include <string>

#include "abbsim.h"
#include "event_queue.h"
#include "tlp.h"

namespace abbsim {

/* Credit limits per class; Infinite = advertised as infinite. */
struct Credits {
	static constexpr int32_t Infinite = -1;
	int32_t hdr[3];
	int32_t data[3];
};

class Link {
public:
	/* Overhead model (per direction):
	 * - one 8-byte DLLP (ACK or UpdateFC) charged after every DllpEvery TLPs;
	 * - SKP ordered sets: Gen1/2 4 symbols per lane every 1180 symbol times,
	 *   Gen3 16 symbols every 370 blocks (5920 symbols), about 0.3 %. */
	static constexpr unsigned DllpEvery = 4, DllpBytes = 8;

	Link(EventQueue &q, const char *name) : q_(q), name_(name) {}
	void reset(const abbsim_params &p, const Credits &limits);
	/* The limits a receiver advertises, from the parameters (0 = infinite). */
	static Credits from_params(const abbsim_credits &c);

	/* Queues a TLP for transmission, ready at time now; started (if set)
	 * is called with the time its transmission starts. */
	void submit(Tlp &&t, uint64_t now, std::function<void(uint64_t)> started = nullptr);
	/* The same without the link-injection tap (the injector's own TLPs). */
	void submit_raw(Tlp &&t, uint64_t now, std::function<void(uint64_t)> started = nullptr);
	/* Link injection: no TLP starts before time until (credit starvation). */
	void starve(uint64_t until);
	/* Link down: drops every queued and in-flight TLP, the credits count
	 * from zero; while down, every submitted TLP is dropped. */
	void flush();
	bool down = false;
	/* A memory read with this tag is queued or in flight. */
	bool holds_read_tag(unsigned tag) const
	{
		for (auto &q : txq_)
			if (q.tlp.kind() == TlpKind::MRd && q.tlp.req_tag() == tag)
				return true;
		for (auto &f : flight_)
			if (f.tlp.kind() == TlpKind::MRd && f.tlp.req_tag() == tag)
				return true;
		return false;
	}
	/* Link injection at the transmitter (sim/inject.h): true = taken. */
	std::function<bool(Tlp &, uint64_t, std::function<void(uint64_t)> &)> tap;
	/* The receiver freed the buffers of a TLP of this class at time now:
	 * its credits are back at the transmitter one latency later. */
	void consumed(FcClass c, unsigned data_credits, uint64_t now);

	size_t unsent_bytes() const { return unsent_; }
	bool quiet() const { return txq_.empty() && flight_.empty(); }
	/* TLPs waiting to start or on the wire */
	size_t pending() const { return txq_.size() + flight_.size(); }
	const struct abbsim_link_stats &stats() const { return stats_; }
	/* Credits the transmitter may still use, per class (the trace's
	 * credit group); Credits::Infinite where the receiver has no limit. */
	Credits credits_free() const
	{
		Credits c;
		for (int i = 0; i < 3; i++) {
			c.hdr[i] = limit_.hdr[i] < 0 ? Credits::Infinite : limit_.hdr[i] - used_.hdr[i];
			c.data[i] = limit_.data[i] < 0 ? Credits::Infinite : limit_.data[i] - used_.data[i];
		}
		return c;
	}

	std::function<void(Tlp &&, uint64_t)> deliver; /* arrival at the receiver */
	std::function<void(uint64_t)> on_drain;          /* transmit queue became empty */
	/* Flow-control assertion failed (a protocol error), at time now. */
	std::function<void(const std::string &, uint64_t)> violation;

private:
	struct Queued {
		Tlp tlp;
		uint64_t ready_ps;
		std::function<void(uint64_t)> started;
	};
	struct InFlight {
		Tlp tlp;
		uint64_t arrive_ps;
	};
	bool have_credits(const Tlp &t) const;
	void try_start(uint64_t now);
	void credit_back(FcClass c, unsigned data_credits, uint64_t now);
	void arrive(uint64_t now);

	void fc_error(uint64_t now, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

	EventQueue &q_;
	const char *name_;
	std::deque<Queued> txq_;
	std::deque<InFlight> flight_;
	size_t unsent_ = 0;
	/* used_: the transmitter's count (consumed at start, back one latency
	 * after the receiver freed them); held_: what sits in the receiver's
	 * buffers (arrived, not yet consumed). Both are asserted against the
	 * limits: held_ independently of the gate in try_start. */
	Credits limit_{}, used_{}, held_{};
	unsigned __int128 free_fs_ = 0; /* serialiser busy until */
	bool wake_pending_ = false, blocked_ = false;
	uint64_t starve_until_ = 0;
	uint64_t gen_ = 0; /* bumped by flush: events of an older generation are void */
	uint64_t fs_per_lane_byte_ = 4000000, lanes_ = 4, latency_ps_ = 0;
	uint64_t skp_interval_ = 1180, skp_len_ = 4; /* per lane, bytes */
	uint64_t bytes_total_ = 0, skp_done_ = 0, tlp_count_ = 0;
	unsigned __int128 busy_fs_ = 0;
	struct abbsim_link_stats stats_{};
};

} // namespace abbsim
#endif
