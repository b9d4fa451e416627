/*
 * link.cpp - serialisation, overhead, latency and credits of one direction.
 */
#include "link.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace abbsim {

static const char *const ClassName[3] = {"posted", "non-posted", "completion"};

Credits Link::from_params(const abbsim_credits &c)
{
	auto lim = [](unsigned v) { return v ? (int32_t)v : Credits::Infinite; };
	return Credits{{lim(c.ph), lim(c.nph), lim(c.cplh)}, {lim(c.pd), lim(c.npd), lim(c.cpld)}};
}

void Link::fc_error(uint64_t now, const char *fmt, ...)
{
	char buf[300];
	int n = snprintf(buf, sizeof buf, "flow control (%s link): ", name_);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof buf - n, fmt, ap);
	va_end(ap);
	if (violation)
		violation(buf, now);
}

void Link::reset(const abbsim_params &p, const Credits &limits)
{
	gen_++;
	down = false;
	starve_until_ = 0;
	txq_.clear();
	flight_.clear();
	unsent_ = 0;
	limit_ = limits;
	used_ = held_ = Credits{{0, 0, 0}, {0, 0, 0}};
	free_fs_ = 0;
	wake_pending_ = blocked_ = false;
	/* One byte on one lane: Gen1 10 bits at 2.5 GT/s = 4 ns, Gen2 2 ns,
	 * Gen3 8 bits x 130/128 at 8 GT/s = 1.015625 ns. */
	fs_per_lane_byte_ = p.gen == 1 ? 4000000 : p.gen == 2 ? 2000000 : 1015625;
	skp_interval_ = p.gen == 3 ? 5920 : 1180;
	skp_len_ = p.gen == 3 ? 16 : 4;
	lanes_ = p.lanes;
	latency_ps_ = (uint64_t)p.link_latency_ns * 1000;
	bytes_total_ = skp_done_ = tlp_count_ = 0;
	busy_fs_ = 0;
	stats_ = {};
}

bool Link::have_credits(const Tlp &t) const
{
	unsigned c = t.fc_class();
	if (limit_.hdr[c] != Credits::Infinite && used_.hdr[c] + 1 > limit_.hdr[c])
		return false;
	if (limit_.data[c] != Credits::Infinite &&
	    used_.data[c] + (int32_t)t.data_credits() > limit_.data[c])
		return false;
	return true;
}

void Link::submit(Tlp &&t, uint64_t now, std::function<void(uint64_t)> started)
{
	if (tap && tap(t, now, started))
		return;
	submit_raw(std::move(t), now, std::move(started));
}

void Link::submit_raw(Tlp &&t, uint64_t now, std::function<void(uint64_t)> started)
{
	if (down)
		return;
	unsent_ += t.wire_bytes();
	txq_.push_back(Queued{std::move(t), now, std::move(started)});
	try_start(now);
}

void Link::starve(uint64_t until)
{
	if (until > starve_until_)
		starve_until_ = until;
	uint64_t g = gen_;
	q_.at(until, [this, g](uint64_t t) {
		if (g == gen_)
			try_start(t);
	});
}

void Link::flush()
{
	gen_++;
	txq_.clear();
	flight_.clear();
	unsent_ = 0;
	used_ = held_ = Credits{{0, 0, 0}, {0, 0, 0}};
	wake_pending_ = blocked_ = false;
	starve_until_ = 0;
}

void Link::consumed(FcClass c, unsigned data_credits, uint64_t now)
{
	if (down)
		return; /* a TLP of before the link went down */
	held_.hdr[c] -= 1;
	held_.data[c] -= (int32_t)data_credits;
	if (held_.hdr[c] < 0 || held_.data[c] < 0) {
		fc_error(now, "the receiver freed %s credits (1 header, %u data) for a TLP it never "
			 "received", ClassName[c], data_credits);
		held_.hdr[c] = std::max(held_.hdr[c], 0);
		held_.data[c] = std::max(held_.data[c], 0);
	}
	if (limit_.hdr[c] == Credits::Infinite && limit_.data[c] == Credits::Infinite) {
		/* A class without limits (set only by reset): its count is
		 * read by nothing but the check below (credits_free() says
		 * Infinite, a start takes no limit), and a return cannot
		 * unblock the queue (its head waits on a limited class or a
		 * starvation, each with a wake of its own): back at once, no
		 * event one latency later. */
		credit_back(c, data_credits, now);
		return;
	}
	uint64_t g = gen_;
	q_.at(now + latency_ps_, [this, c, data_credits, g](uint64_t t) {
		if (g != gen_)
			return;
		credit_back(c, data_credits, t);
		if (blocked_)
			try_start(t);
	});
}

/* An UpdateFC reaching the transmitter. */
void Link::credit_back(FcClass c, unsigned data_credits, uint64_t now)
{
	used_.hdr[c] -= 1;
	used_.data[c] -= (int32_t)data_credits;
	if (used_.hdr[c] < 0 || used_.data[c] < 0) {
		fc_error(now, "UpdateFC returned more %s credits than were consumed", ClassName[c]);
		used_.hdr[c] = std::max(used_.hdr[c], 0);
		used_.data[c] = std::max(used_.data[c], 0);
	}
}

void Link::try_start(uint64_t now)
{
	while (!txq_.empty()) {
		if (now < starve_until_) {
			blocked_ = true; /* starts at the end, not at its ready time */
			return;          /* starve() wakes us at its end */
		}
		if (free_fs_ > (unsigned __int128)now * 1000) {
			if (!wake_pending_) {
				wake_pending_ = true;
				uint64_t wake = (uint64_t)((free_fs_ + 999) / 1000);
				uint64_t g = gen_;
				q_.at(wake, [this, g](uint64_t t) {
					if (g != gen_)
						return;
					wake_pending_ = false;
					try_start(t);
				});
			}
			return;
		}
		Queued &h = txq_.front();
		if (!have_credits(h.tlp)) {
			blocked_ = true;
			return;
		}
		unsigned __int128 start = std::max(free_fs_, (unsigned __int128)h.ready_ps * 1000);
		if (blocked_)
			start = std::max(start, (unsigned __int128)now * 1000);
		blocked_ = false;
		unsigned c = h.tlp.fc_class();
		used_.hdr[c] += 1;
		used_.data[c] += (int32_t)h.tlp.data_credits();
		if ((limit_.hdr[c] != Credits::Infinite && used_.hdr[c] > limit_.hdr[c]) ||
		    (limit_.data[c] != Credits::Infinite && used_.data[c] > limit_.data[c]))
			fc_error(now, "transmitter exceeds the %s credits (%d/%d header, %d/%d data) "
				 "with %s", ClassName[c], used_.hdr[c], limit_.hdr[c], used_.data[c],
				 limit_.data[c], h.tlp.describe().c_str());

		uint64_t bytes = h.tlp.wire_bytes();
		if (++tlp_count_ % DllpEvery == 0)
			bytes += DllpBytes;
		bytes_total_ += bytes;
		uint64_t skp_due = bytes_total_ / (skp_interval_ * lanes_);
		if (skp_due > skp_done_) {
			bytes += (skp_due - skp_done_) * skp_len_ * lanes_;
			skp_done_ = skp_due;
		}
		unsigned __int128 dur = (unsigned __int128)bytes * fs_per_lane_byte_ / lanes_;
		free_fs_ = start + dur;
		busy_fs_ += dur;
		stats_.tlps++;
		stats_.payload_bytes += h.tlp.payload_bytes();
		stats_.wire_bytes += bytes;
		stats_.busy_ps = (uint64_t)(busy_fs_ / 1000);

		if (h.started)
			h.started((uint64_t)((start + 999) / 1000));
		uint64_t at = (uint64_t)((free_fs_ + 999) / 1000) + latency_ps_;
		unsent_ -= h.tlp.wire_bytes();
		flight_.push_back(InFlight{std::move(h.tlp), at});
		txq_.pop_front();
		uint64_t g = gen_;
		q_.at(at, [this, g](uint64_t t) {
			if (g == gen_)
				arrive(t);
		});
		if (txq_.empty() && on_drain)
			on_drain(now);
	}
}

void Link::arrive(uint64_t now)
{
	InFlight f = std::move(flight_.front());
	flight_.pop_front();
	/* The receiver's buffers: what arrived and was not yet consumed must
	 * fit the limits it advertised. */
	unsigned c = f.tlp.fc_class();
	held_.hdr[c] += 1;
	held_.data[c] += (int32_t)f.tlp.data_credits();
	if ((limit_.hdr[c] != Credits::Infinite && held_.hdr[c] > limit_.hdr[c]) ||
	    (limit_.data[c] != Credits::Infinite && held_.data[c] > limit_.data[c]))
		fc_error(now, "receiver buffers overflow: %d/%d %s header and %d/%d data credits "
			 "held with %s", held_.hdr[c], limit_.hdr[c], ClassName[c], held_.data[c],
			 limit_.data[c], f.tlp.describe().c_str());
	deliver(std::move(f.tlp), now);
}

} // namespace abbsim
