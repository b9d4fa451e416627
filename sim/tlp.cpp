/*
 * tlp.cpp - TLP builders, the RTL beat format and the log decoder.
 */
#include "tlp.h"

#include <cstdio>

namespace abbsim {

TlpKind Tlp::kind() const
{
	unsigned f = fmt(), t = type();
	if (t == 0x00 && (f == 0 || f == 1))
		return TlpKind::MRd;
	if (t == 0x00 && (f == 2 || f == 3))
		return TlpKind::MWr;
	if (t == 0x0a && f == 0)
		return TlpKind::Cpl;
	if (t == 0x0a && f == 2)
		return TlpKind::CplD;
	if ((t & 0x18) == 0x10 && (f == 1 || f == 3))
		return TlpKind::Msg;
	return TlpKind::Other;
}

FcClass Tlp::fc_class() const
{
	switch (kind()) {
	case TlpKind::MWr:
	case TlpKind::Msg: return FcP;
	case TlpKind::Cpl:
	case TlpKind::CplD: return FcCpl;
	default: return FcNP;
	}
}

uint64_t Tlp::addr() const
{
	if (hdr_dw == 4)
		return ((uint64_t)h[2] << 32) | (h[3] & ~3u);
	return h[2] & ~3u;
}

static unsigned low_bit(unsigned be) { return be ? (unsigned)__builtin_ctz(be) : 0; }
static unsigned high_bit(unsigned be) { return be ? 31u - (unsigned)__builtin_clz(be) : 0; }

uint64_t Tlp::first_byte_addr() const { return addr() + low_bit(fbe()); }

unsigned Tlp::byte_span() const
{
	unsigned n = len_dw();
	if (n == 1)
		return fbe() ? high_bit(fbe()) - low_bit(fbe()) + 1 : 1;
	return 4 * n - low_bit(fbe()) - (3 - high_bit(lbe()));
}

void byte_enables(uint64_t addr, unsigned n, unsigned *ndw, unsigned *fbe, unsigned *lbe)
{
	uint64_t start = addr & ~3ull, end = (addr + n + 3) & ~3ull;
	*ndw = (unsigned)((end - start) / 4);
	unsigned first = (0xfu << (addr & 3)) & 0xf;
	unsigned tail = (unsigned)((addr + n) & 3);
	unsigned last = tail ? (1u << tail) - 1 : 0xf;
	if (*ndw == 1) {
		*fbe = first & last;
		*lbe = 0;
	} else {
		*fbe = first;
		*lbe = last;
	}
}

Tlp make_mem(bool write, uint64_t addr, unsigned nbytes, uint16_t req_id, uint8_t tag,
	     const uint8_t *bytes)
{
	Tlp t;
	unsigned ndw, fbe, lbe;
	byte_enables(addr, nbytes, &ndw, &fbe, &lbe);
	bool wide = addr >> 32;
	t.hdr_dw = wide ? 4 : 3;
	unsigned fmt = (write ? 2u : 0u) | (wide ? 1u : 0u);
	t.h[0] = (fmt << 29) | (ndw & 0x3ff);
	t.h[1] = ((uint32_t)req_id << 16) | ((uint32_t)tag << 8) | (lbe << 4) | fbe;
	if (wide) {
		t.h[2] = (uint32_t)(addr >> 32);
		t.h[3] = (uint32_t)addr & ~3u;
	} else {
		t.h[2] = (uint32_t)addr & ~3u;
	}
	if (write) {
		t.data.assign(ndw, 0);
		unsigned off = (unsigned)(addr & 3);
		for (unsigned i = 0; i < nbytes; i++) {
			unsigned b = off + i;
			t.data[b / 4] |= (uint32_t)bytes[i] << (8 * (b % 4));
		}
	}
	return t;
}

Tlp make_cpl(uint16_t cpl_id, unsigned status, unsigned byte_count, uint16_t req_id,
	     uint8_t tag, unsigned lower_addr, const uint32_t *dws, unsigned ndw)
{
	Tlp t;
	t.hdr_dw = 3;
	t.h[0] = ((ndw ? 2u : 0u) << 29) | (0x0au << 24) | (ndw & 0x3ff);
	t.h[1] = ((uint32_t)cpl_id << 16) | ((status & 7) << 13) | (byte_count & 0xfff);
	t.h[2] = ((uint32_t)req_id << 16) | ((uint32_t)tag << 8) | (lower_addr & 0x7f);
	if (dws)
		t.data.assign(dws, dws + ndw);
	else
		t.data.assign(ndw, 0);
	return t;
}

Tlp make_msg(unsigned code, unsigned route, uint16_t req_id)
{
	Tlp t;
	t.hdr_dw = 4;
	t.h[0] = (1u << 29) | ((0x10u | (route & 7)) << 24);
	t.h[1] = ((uint32_t)req_id << 16) | (code & 0xff);
	return t;
}

bool from_beats(const std::vector<uint64_t> &beats, Tlp &t, std::string &why)
{
	if (beats.size() < 2) {
		why = "TLP shorter than its two header beats";
		return false;
	}
	t.h[0] = (uint32_t)beats[0];
	t.h[1] = (uint32_t)(beats[0] >> 32);
	t.h[2] = (uint32_t)beats[1];
	t.hdr_dw = (t.fmt() & 1) ? 4 : 3;
	t.h[3] = t.hdr_dw == 4 ? (uint32_t)(beats[1] >> 32) : 0;
	t.data.clear();
	size_t want = 2;
	if (t.has_data())
		want += (t.len_dw() + 1) / 2;
	if (beats.size() != want) {
		char buf[96];
		snprintf(buf, sizeof buf, "TLP has %zu beats, its header (length %u DW) needs %zu",
			 beats.size(), t.has_data() ? t.len_dw() : 0, want);
		why = buf;
		return false;
	}
	/* rtl-model/TLP-STREAM.md: the unused upper half of beat 1 (3-DW
	 * header) and of the last beat (odd payload) is 0 */
	if (t.hdr_dw == 3 && (beats[1] >> 32) != 0) {
		why = "3-DW header with a non-zero upper half of beat 1";
		return false;
	}
	if (t.has_data()) {
		unsigned n = t.len_dw();
		t.data.resize(n);
		for (unsigned i = 0; i < n; i++)
			t.data[i] = (uint32_t)(beats[2 + i / 2] >> (32 * (i % 2)));
		if ((n % 2) && (beats.back() >> 32) != 0) {
			why = "odd payload with a non-zero upper half of its last beat";
			return false;
		}
	}
	return true;
}

std::string Tlp::describe() const
{
	static const char *const st[8] = {"SC", "UR", "CRS", "rsv3", "CA", "rsv5", "rsv6", "rsv7"};
	char buf[160];
	switch (kind()) {
	case TlpKind::MRd:
	case TlpKind::MWr:
		snprintf(buf, sizeof buf, "%-4s req=%04x tag=%02x addr=0x%08llx len=%u fbe=%x lbe=%x%s",
			 kind() == TlpKind::MRd ? "MRd" : "MWr", req_id(), req_tag(),
			 (unsigned long long)addr(), len_dw(), fbe(), lbe(),
			 hdr_dw == 4 ? " 4dw" : "");
		break;
	case TlpKind::Cpl:
	case TlpKind::CplD:
		snprintf(buf, sizeof buf, "%-4s req=%04x tag=%02x cpl=%04x st=%s bc=%u la=%02x len=%u",
			 kind() == TlpKind::Cpl ? "Cpl" : "CplD", cpl_req_id(), cpl_tag(), cpl_id(),
			 st[cpl_status()], byte_count(), lower_addr(), has_data() ? len_dw() : 0);
		break;
	case TlpKind::Msg: {
		static const char *const route[8] = {"to-rc", "addr", "id", "broadcast", "local",
						     "gather", "rsv6", "rsv7"};
		const char *name = msg_code() == MsgAssertIntA	 ? "Assert_INTA"
				 : msg_code() == MsgDeassertIntA ? "Deassert_INTA"
								 : nullptr;
		if (name)
			snprintf(buf, sizeof buf, "Msg %s req=%04x route=%s%s", name, req_id(),
				 route[msg_route()], has_data() ? " with data" : "");
		else
			snprintf(buf, sizeof buf, "Msg code=%02x req=%04x route=%s%s", msg_code(),
				 req_id(), route[msg_route()], has_data() ? " with data" : "");
		break;
	}
	default:
		snprintf(buf, sizeof buf, "?    fmt=%u type=%02x dw0=%08x dw1=%08x dw2=%08x", fmt(),
			 type(), h[0], h[1], h[2]);
	}
	if (h[0] & (1u << 14)) /* poisoned (link injection) */
		return std::string(buf) + " EP";
	return buf;
}

} // namespace abbsim
