/*
 * event_queue.h - the platform's discrete-event queue in integer
 * picoseconds. Events at the same time run in the order they were
 * scheduled, so a run is deterministic.
 */
#ifndef ABBSIM_EVENT_QUEUE_H
#define ABBSIM_EVENT_QUEUE_H

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <vector>

namespace abbsim {

class EventQueue {
public:
	static constexpr uint64_t Never = UINT64_MAX;

	/* A timer that may become pointless (a timeout whose operation
	 * finished) carries a live flag: once *live is false the event is
	 * dropped unrun, and it no longer counts as "next" (so idle skipping
	 * does not jump to it). */
	using Live = std::shared_ptr<bool>;
	void at(uint64_t t_ps, std::function<void(uint64_t)> fn, Live live = nullptr)
	{
		heap_.push(Ev{t_ps, seq_++, std::move(fn), std::move(live)});
	}
	uint64_t next()
	{
		while (!heap_.empty() && heap_.top().live && !*heap_.top().live)
			heap_.pop();
		return heap_.empty() ? Never : heap_.top().t;
	}
	/* Runs the earliest event; returns its time. */
	uint64_t run_one()
	{
		Ev e = std::move(const_cast<Ev &>(heap_.top()));
		heap_.pop();
		if (!e.live || *e.live)
			e.fn(e.t);
		return e.t;
	}
	void clear() { heap_ = decltype(heap_)(); }

private:
	struct Ev {
		uint64_t t, seq;
		std::function<void(uint64_t)> fn;
		Live live;
		bool operator<(const Ev &o) const { return t != o.t ? t > o.t : seq > o.seq; }
	};
	std::priority_queue<Ev> heap_;
	uint64_t seq_ = 0;
};

} // namespace abbsim
#endif
