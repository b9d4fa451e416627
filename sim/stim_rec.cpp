/*
 * stim_rec.cpp - the RTL port recorder (see stim_rec.h).
 */
#include "stim_rec.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace abbsim {

bool StimIn::operator==(const StimIn &o) const
{
	return rst_n == o.rst_n && bm == o.bm && mps == o.mps && mrrs == o.mrrs && msi == o.msi &&
	       membits == o.membits && strict == o.strict && rxv == o.rxv && sop == o.sop &&
	       eop == o.eop && bar == o.bar && txready == o.txready && bufav == o.bufav &&
	       reqid == o.reqid && skip == o.skip && rxdata == o.rxdata;
}

StimRec *StimRec::create(const std::string &path, std::string &err)
{
	if (path.empty())
		return nullptr;
	FILE *f = fopen(path.c_str(), "w");
	if (!f) {
		err = "stim (ABB_SIM_STIM): cannot create " + path + ": " + strerror(errno);
		return nullptr;
	}
	StimRec *r = new StimRec;
	r->f_ = f;
	fprintf(f, "# abbsim RTL port record (sim/stim_rec.h)\n");
	return r;
}

StimRec::~StimRec()
{
	flush_in();
	fprintf(f_, "# end after %llu edges\n", (unsigned long long)edge_);
	fclose(f_);
}

void StimRec::flush_in()
{
	if (!n_)
		return;
	const StimIn &s = cur_;
	fprintf(f_, "I %llu %x %x %x %x %x %x %x %x %x %x %x %x %llx %x %x %x\n",
		(unsigned long long)n_, s.rst_n, s.bm, s.mps, s.mrrs, s.reqid, s.msi, s.membits,
		s.strict, s.rxv, s.sop, s.eop, s.bar, (unsigned long long)s.rxdata, s.txready, s.bufav,
		s.skip);
	n_ = 0;
}

void StimRec::in(const StimIn &s)
{
	edge_++;
	if (n_ && s == cur_) {
		n_++;
		return;
	}
	flush_in();
	cur_ = s;
	n_ = 1;
}

void StimRec::tx(bool sop, bool eop, uint64_t data)
{
	flush_in();
	fprintf(f_, "O %llu %x %x %llx\n", (unsigned long long)edge_, sop, eop,
		(unsigned long long)data);
}

void StimRec::irq(bool level)
{
	flush_in();
	fprintf(f_, "Q %llu %x\n", (unsigned long long)edge_, level);
}

void StimRec::mark(uint64_t cycle, uint64_t pub)
{
	flush_in();
	fprintf(f_, "M %llu %llu %llu\n", (unsigned long long)edge_, (unsigned long long)cycle,
		(unsigned long long)pub);
}

} // namespace abbsim
