/*
 * event_queue.h - the platform's discrete-event queue in integer
 * picoseconds. Events at the same time run in the order they were
 * scheduled, so a run is deterministic.
 *
 * The heap orders small keys (time, sequence number, slot); an event's
 * closure and live flag stay in a slot of their own until it runs, so a
 * push or pop moves 24 bytes per level instead of a std::function and a
 * shared_ptr (the queue takes several events per TLP, sim/README.md).
 */
#ifndef ABBSIM_EVENT_QUEUE_H
#define ABBSIM_EVENT_QUEUE_H

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
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
		uint32_t s;
		if (free_.empty()) {
			s = (uint32_t)slots_.size();
			slots_.push_back(Slot{std::move(fn), std::move(live)});
		} else {
			s = free_.back();
			free_.pop_back();
			slots_[s].fn = std::move(fn);
			slots_[s].live = std::move(live);
		}
		heap_.push_back(Key{t_ps, seq_++, s});
		std::push_heap(heap_.begin(), heap_.end(), Later());
	}
	uint64_t next()
	{
		while (!heap_.empty()) {
			const Slot &s = slots_[heap_.front().slot];
			if (!s.live || *s.live)
				return heap_.front().t;
			drop_top();
		}
		return Never;
	}
	/* Runs the earliest event; returns its time. */
	uint64_t run_one()
	{
		Key k = heap_.front();
		std::pop_heap(heap_.begin(), heap_.end(), Later());
		heap_.pop_back();
		Slot &s = slots_[k.slot];
		std::function<void(uint64_t)> fn = std::move(s.fn);
		bool run = !s.live || *s.live;
		s.fn = nullptr;
		s.live.reset();
		free_.push_back(k.slot); // before fn: it may schedule into the slot
		if (run)
			fn(k.t);
		return k.t;
	}
	void clear()
	{
		heap_.clear();
		slots_.clear();
		free_.clear();
	}

private:
	struct Key {
		uint64_t t, seq;
		uint32_t slot;
	};
	struct Slot {
		std::function<void(uint64_t)> fn;
		Live live;
	};
	/* the heap's order: the earliest time first, then the first scheduled
	 * (a type, not a function pointer: the heap's sifting inlines it) */
	struct Later {
		bool operator()(const Key &a, const Key &b) const
		{
			return a.t != b.t ? a.t > b.t : a.seq > b.seq;
		}
	};
	void drop_top()
	{
		uint32_t s = heap_.front().slot;
		std::pop_heap(heap_.begin(), heap_.end(), Later());
		heap_.pop_back();
		slots_[s].fn = nullptr;
		slots_[s].live.reset();
		free_.push_back(s);
	}
	std::vector<Key> heap_;
	std::vector<Slot> slots_;
	std::vector<uint32_t> free_;
	uint64_t seq_ = 0;
};

} // namespace abbsim
#endif
