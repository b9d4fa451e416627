/*
 * inject.h - link injection: faults put onto the simulated link on purpose
 * (abbsim_inject_add; "fault" alone means the IOMMU's fault records).
 *
 * Rules sit at the transmit side of each link direction: every TLP a
 * transmitter submits (the root complex downstream, the hard IP upstream)
 * is matched against the rules of its direction, in the order they were
 * added; the first rule that fires decides what happens to it (changed,
 * dropped, held back, sent twice, followed by an unexpected completion,
 * or the link is starved or taken down). Every firing is reported through
 * note (a line of the TLP log).
 */
#ifndef ABBSIM_LINK_INJECT_H
#define ABBSIM_LINK_INJECT_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "abbsim.h"
#include "event_queue.h"
#include "link.h"
#include "tlp.h"

namespace abbsim {

class Injector {
public:
	explicit Injector(EventQueue &q) : q_(q) {}
	/* Checks and adds a rule; its id (>= 0) or -EINVAL with a message. */
	int add(const abb_sim_inject_spec &s, std::string &err);
	void clear() { rules_.clear(); }
	/* How often rule id fired; -ENOENT for an unknown id. */
	int64_t hits(int id) const;

	/* The transmit tap of link dir (0 down, 1 up): true when the TLP was
	 * taken care of here (the link must not queue it). */
	bool on_submit(unsigned dir, Link &link, Tlp &t, uint64_t now,
		       std::function<void(uint64_t)> &started);

	std::function<void(unsigned dir, const std::string &what, uint64_t now)> note;
	/* The link goes down for ns (LINK_DOWN). */
	std::function<void(uint64_t now, uint64_t ns)> link_down;
	/* A tag the receiver of direction dir has no request outstanding for
	 * (UNEXPECTED), near orig. */
	std::function<unsigned(unsigned dir, unsigned orig)> free_tag;
	/* The completer gives the read of tag up (no more completions after an
	 * injected UR/CA), direction dir. */
	std::function<void(unsigned dir, unsigned tag)> end_read;

private:
	struct Rule {
		abb_sim_inject_spec s;
		uint64_t seen = 0, fired = 0, rng = 0;
	};
	bool applies(const Rule &r, unsigned dir, const Tlp &t) const;
	bool fires(Rule &r);

	EventQueue &q_;
	std::vector<Rule> rules_;
};

const char *fault_kind_name(unsigned kind);

} // namespace abbsim
#endif
