/*
 * inject.cpp - matching and applying the link-injection rules.
 */
#include "inject.h"
#include "rng.h"

#include <cerrno>
#include <cstdio>

namespace abbsim {

const char *fault_kind_name(unsigned kind)
{
	switch (kind) {
	case ABB_SIM_INJ_UR: return "UR";
	case ABB_SIM_INJ_CA: return "CA";
	case ABB_SIM_INJ_POISON: return "POISON";
	case ABB_SIM_INJ_DROP: return "DROP";
	case ABB_SIM_INJ_DELAY: return "DELAY";
	case ABB_SIM_INJ_DUP: return "DUP";
	case ABB_SIM_INJ_UNEXPECTED: return "UNEXPECTED";
	case ABB_SIM_INJ_MALFORMED: return "MALFORMED";
	case ABB_SIM_INJ_STARVE: return "STARVE";
	case ABB_SIM_INJ_LINK_DOWN: return "LINK_DOWN";
	case ABB_SIM_INJ_TRUNCATED: return "TRUNCATED";
	default: return "?";
	}
}

int Injector::add(const abb_sim_inject_spec &s, std::string &err)
{
	char buf[200];
	if (s.kind < ABB_SIM_INJ_FIRST || s.kind > ABB_SIM_INJ_LAST) {
		snprintf(buf, sizeof buf, "fault kind %u: accepted %u..%u (ABB_SIM_INJ_*)", s.kind,
			 (unsigned)ABB_SIM_INJ_FIRST, (unsigned)ABB_SIM_INJ_LAST);
		err = buf;
		return -EINVAL;
	}
	if (s.dir > 1) {
		err = "fault direction " + std::to_string(s.dir) + ": accepted 0 (down) or 1 (up)";
		return -EINVAL;
	}
	if (s.tlp > ABB_SIM_TLP_MSG) {
		err = "fault TLP class " + std::to_string(s.tlp) + ": accepted 0..4 (ABB_SIM_TLP_*)";
		return -EINVAL;
	}
	if (s.tag < -1 || s.tag > 255) {
		err = "fault tag " + std::to_string(s.tag) + ": accepted -1 (any) or 0..255";
		return -EINVAL;
	}
	if (!(s.prob >= 0.0 && s.prob <= 1.0)) {
		err = "fault probability must be 0..1";
		return -EINVAL;
	}
	if (s.nth == 0 && s.prob == 0.0) {
		err = "fault: choose by count (nth > 0) or by probability (prob > 0)";
		return -EINVAL;
	}
	if (s.nth && s.prob != 0.0) {
		err = "fault: nth and prob are exclusive";
		return -EINVAL;
	}
	if ((s.kind == ABB_SIM_INJ_DELAY || s.kind == ABB_SIM_INJ_STARVE ||
	     s.kind == ABB_SIM_INJ_LINK_DOWN) && (s.ns == 0 || s.ns > 1000000000ull)) {
		snprintf(buf, sizeof buf, "fault %s: ns %llu: accepted 1..1000000000 (1 s)",
			 fault_kind_name(s.kind), (unsigned long long)s.ns);
		err = buf;
		return -EINVAL;
	}
	if (rules_.size() >= 64) {
		err = "fault: at most 64 rules (abbsim_inject_clear removes them)";
		return -ENOSPC;
	}
	Rule r;
	r.s = s;
	r.rng = s.seed;
	rules_.push_back(r);
	return (int)rules_.size() - 1;
}

int64_t Injector::hits(int id) const
{
	if (id < 0 || (size_t)id >= rules_.size())
		return -ENOENT;
	return (int64_t)rules_[id].fired;
}

bool Injector::applies(const Rule &r, unsigned dir, const Tlp &t) const
{
	const abb_sim_inject_spec &s = r.s;
	if (s.dir != dir)
		return false;
	TlpKind k = t.kind();
	bool cpl = k == TlpKind::Cpl || k == TlpKind::CplD;
	switch (s.tlp) {
	case ABB_SIM_TLP_CPL: if (!cpl) return false; break;
	case ABB_SIM_TLP_MRD: if (k != TlpKind::MRd) return false; break;
	case ABB_SIM_TLP_MWR: if (k != TlpKind::MWr) return false; break;
	case ABB_SIM_TLP_MSG: if (k != TlpKind::Msg) return false; break;
	default: break;
	}
	/* what the kind can do to this TLP */
	switch (s.kind) {
	case ABB_SIM_INJ_UR:
	case ABB_SIM_INJ_CA:
	case ABB_SIM_INJ_UNEXPECTED:
		if (!cpl)
			return false;
		break;
	case ABB_SIM_INJ_POISON:
		if (!t.has_data())
			return false;
		break;
	case ABB_SIM_INJ_MALFORMED:
	case ABB_SIM_INJ_TRUNCATED:
		if (t.data.size() < 3)
			return false;
		break;
	default: break;
	}
	if (s.tag >= 0) {
		unsigned tag = cpl ? t.cpl_tag() : (k == TlpKind::MRd || k == TlpKind::MWr) ? t.req_tag() : 256;
		if (tag != (unsigned)s.tag)
			return false;
	}
	if (s.addr_hi > s.addr_lo) {
		uint64_t a, n;
		if (k == TlpKind::MRd || k == TlpKind::MWr) {
			a = t.first_byte_addr();
			n = t.byte_span();
		} else if (cpl && t.host_addr != UINT64_MAX) {
			a = t.host_addr;
			n = t.data.empty() ? 1 : t.payload_bytes();
		} else {
			return false;
		}
		if (a + n <= s.addr_lo || a >= s.addr_hi)
			return false;
	}
	return true;
}

bool Injector::fires(Rule &r)
{
	uint64_t max = r.s.times ? r.s.times : r.s.nth ? 1 : UINT64_MAX;
	r.seen++;
	if (r.fired >= max)
		return false;
	bool f;
	if (r.s.nth)
		f = r.seen >= r.s.nth;
	else
		f = (double)(splitmix(r.rng) >> 11) * 0x1.0p-53 < r.s.prob;
	if (f)
		r.fired++;
	return f;
}

bool Injector::on_submit(unsigned dir, Link &link, Tlp &t, uint64_t now,
		       std::function<void(uint64_t)> &started)
{
	Rule *hit = nullptr;
	for (auto &r : rules_)
		if (applies(r, dir, t) && fires(r)) {
			hit = &r;
			break;
		}
	if (!hit)
		return false;
	const abb_sim_inject_spec &s = hit->s;
	std::string what = std::string(fault_kind_name(s.kind)) + " (rule " +
			   std::to_string(hit - rules_.data()) + ", hit " + std::to_string(hit->fired) + ")";
	char buf[120];
	switch (s.kind) {
	case ABB_SIM_INJ_UR:
	case ABB_SIM_INJ_CA: {
		unsigned st = s.kind == ABB_SIM_INJ_UR ? CplUR : CplCA;
		Tlp c = make_cpl(t.cpl_id(), st, t.byte_count(), t.cpl_req_id(), t.cpl_tag(),
				 t.lower_addr(), nullptr, 0);
		if (note)
			note(dir, what + ": status " + (st == CplUR ? "UR" : "CA") +
				  ", no data, the rest of the read dropped, instead of " + t.describe(), now);
		if (end_read)
			end_read(dir, t.cpl_tag());
		link.submit_raw(std::move(c), now, std::move(started));
		return true;
	}
	case ABB_SIM_INJ_POISON:
		t.h[0] |= 1u << 14;
		if (note)
			note(dir, what + ": EP set on " + t.describe(), now);
		link.submit_raw(std::move(t), now, std::move(started));
		return true;
	case ABB_SIM_INJ_DROP:
		if (note)
			note(dir, what + ": dropped " + t.describe(), now);
		return true;
	case ABB_SIM_INJ_DELAY: {
		if (note) {
			snprintf(buf, sizeof buf, ": held back %llu ns: ", (unsigned long long)s.ns);
			note(dir, what + buf + t.describe(), now);
		}
		auto held = std::make_shared<Tlp>(std::move(t));
		Link *l = &link;
		q_.at(now + s.ns * 1000, [l, held](uint64_t t2) { l->submit_raw(std::move(*held), t2); });
		return true;
	}
	case ABB_SIM_INJ_DUP: {
		Tlp copy = t;
		if (note)
			note(dir, what + ": sent twice: " + t.describe(), now);
		link.submit_raw(std::move(t), now, std::move(started));
		link.submit_raw(std::move(copy), now);
		return true;
	}
	case ABB_SIM_INJ_UNEXPECTED: {
		unsigned tag = free_tag ? free_tag(dir, t.cpl_tag()) : (t.cpl_tag() + 1) % 256;
		uint32_t dw = 0xdeadbeef;
		Tlp u = make_cpl(t.cpl_id(), CplSC, 4, t.cpl_req_id(), (uint8_t)tag, 0, &dw, 1);
		if (note)
			note(dir, what + ": followed by " + u.describe() + " (no request with tag " +
				  std::to_string(tag) + " outstanding)", now);
		link.submit_raw(std::move(t), now, std::move(started));
		link.submit_raw(std::move(u), now);
		return true;
	}
	case ABB_SIM_INJ_MALFORMED: {
		/* two DWs: one beat of the 64-bit stream (TLP-STREAM.md), so the
		 * receiver sees payload beyond the Length */
		unsigned len = (unsigned)t.data.size() - 2;
		t.h[0] = (t.h[0] & ~0x3ffu) | (len & 0x3ff);
		if (note)
			note(dir, what + ": Length 2 DWs short of the payload: " + t.describe(), now);
		link.submit_raw(std::move(t), now, std::move(started));
		return true;
	}
	case ABB_SIM_INJ_TRUNCATED: {
		/* the opposite of MALFORMED: the last beat is not sent, so the
		 * receiver sees the end of the TLP 2 DWs before its Length */
		if (note)
			note(dir, what + ": last 2 DWs not sent (payload 2 DWs short of the Length): " +
				  t.describe(), now);
		t.data.resize(t.data.size() - 2);
		link.submit_raw(std::move(t), now, std::move(started));
		return true;
	}
	case ABB_SIM_INJ_STARVE:
		if (note) {
			snprintf(buf, sizeof buf, ": no flow-control credits for %llu ns, from ",
				 (unsigned long long)s.ns);
			note(dir, what + buf + t.describe(), now);
		}
		link.starve(now + s.ns * 1000);
		link.submit_raw(std::move(t), now, std::move(started));
		return true;
	case ABB_SIM_INJ_LINK_DOWN:
		if (note) {
			snprintf(buf, sizeof buf, ": link down for %llu ns (surprise down, then hot reset), lost: ",
				 (unsigned long long)s.ns);
			note(dir, what + buf + t.describe(), now);
		}
		if (link_down)
			link_down(now, s.ns);
		return true;
	default:
		return false;
	}
}

} // namespace abbsim
