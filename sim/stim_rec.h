/*
 * stim_rec.h - records the RTL's port activity edge by edge, for a replay
 * of the same RTL in another simulator (testbench/icarus/replay_tb.sv).
 * Switched on by abbsim_record.stim (libabb's option stim=, ABB_SIM_STIM):
 * an open records from its hot reset on; `make vectors`
 * writes one file per golden vector, vectors/tlp/<name>.stim.
 *
 * Format (text, one record a line; numbers hex unless said):
 *   # comment
 *   I n rst bm mps mrrs reqid msi membits rxv sop eop bar rxdata txready bufav skip
 *       the inputs of the next n (decimal) rising edges (all the same)
 *   O edge sop eop data   a TX beat moved at that edge (decimal edge number,
 *                         counted from 1 at the first recorded edge)
 *   Q edge level          irq_o changed at that edge
 *   M edge cycle pub      marker: the TLP log was opened at this point
 *                         (cycle decimal, since the end of the hot reset, of
 *                         the last edge; pub: what abbsim_cycles() returned
 *                         then, which the golden vector's cycles count from)
 * Edges are those the platform evaluates; skipped idle cycles show up in
 * skip_cycles_i (the "skip" field) as in the platform.
 */
#ifndef ABBSIM_STIM_REC_H
#define ABBSIM_STIM_REC_H

#include <cstdint>
#include <cstdio>
#include <string>

namespace abbsim {

struct StimIn {
	uint8_t rst_n, bm, mps, mrrs, msi, membits, strict, rxv, sop, eop, bar, txready, bufav;
	uint16_t reqid;
	uint32_t skip;
	uint64_t rxdata;
	bool operator==(const StimIn &o) const;
};

class StimRec {
public:
	/* Opens path (abbsim_record.stim) or returns nullptr when it is empty;
	 * nullptr with err set when it cannot be created. */
	static StimRec *create(const std::string &path, std::string &err);
	~StimRec();
	void in(const StimIn &s);      /* the inputs of the next edge */
	void tx(bool sop, bool eop, uint64_t data);
	void irq(bool level);
	void mark(uint64_t cycle, uint64_t pub);

private:
	void flush_in();
	FILE *f_ = nullptr;
	uint64_t edge_ = 0;            /* edges recorded */
	StimIn cur_{};
	uint64_t n_ = 0;               /* repeat count of cur_ */
};

} // namespace abbsim
#endif
