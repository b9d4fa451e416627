/*
 * tlp.h - one PCIe transaction layer packet as the platform moves it:
 * header DWs in specification bit order, payload as little-endian DWs.
 * Builders for the TLPs the root complex and the hard IP create, the beat
 * format of rtl-model/TLP-STREAM.md, and a one-line decoder for the TLP log.
 */
#ifndef ABBSIM_TLP_H
#define ABBSIM_TLP_H

#include <cstdint>
#include <string>
#include <vector>

namespace abbsim {

enum class TlpKind { MRd, MWr, Cpl, CplD, Msg, Other };
/* Flow-control classes: posted, non-posted, completion. */
enum FcClass { FcP = 0, FcNP = 1, FcCpl = 2 };

/* Completion status codes (DW1[15:13]). */
enum { CplSC = 0, CplUR = 1, CplCRS = 2, CplCA = 4 };

/* Message codes (DW1[7:0]) of the legacy interrupt messages, and the
 * routing of a message (Type[2:0]) the hard IP uses: local, terminate at
 * the receiver. */
enum { MsgAssertIntA = 0x20, MsgDeassertIntA = 0x24, MsgRouteLocal = 4 };

struct Tlp {
	uint32_t h[4] = {0, 0, 0, 0};
	unsigned hdr_dw = 3;
	std::vector<uint32_t> data; /* payload DWs, byte 0 of a DW in [7:0] */
	unsigned bar = 0;           /* BAR hit, set by the hard IP for requests to the RTL */
	/* Host address of the first byte a root-complex completion carries
	 * (link injection matches it); UINT64_MAX when unknown. */
	uint64_t host_addr = UINT64_MAX;
	/* A write the CPU store model made (its arrival is counted). */
	bool cpu_store = false;

	unsigned fmt() const { return h[0] >> 29; }
	unsigned type() const { return (h[0] >> 24) & 0x1f; }
	bool has_data() const { return fmt() & 2; }
	unsigned len_dw() const { unsigned l = h[0] & 0x3ff; return l ? l : 1024; }
	TlpKind kind() const;
	FcClass fc_class() const;
	/* requests */
	uint16_t req_id() const { return h[1] >> 16; }
	uint8_t req_tag() const { return (h[1] >> 8) & 0xff; }
	unsigned fbe() const { return h[1] & 0xf; }
	unsigned lbe() const { return (h[1] >> 4) & 0xf; }
	uint64_t addr() const; /* DW-aligned start address */
	/* First enabled byte address and number of bytes covered (first to last
	 * enabled byte; a 1-DW request with no byte enabled counts 1). */
	uint64_t first_byte_addr() const;
	unsigned byte_span() const;
	/* completions */
	uint16_t cpl_id() const { return h[1] >> 16; }
	unsigned cpl_status() const { return (h[1] >> 13) & 7; }
	unsigned byte_count() const { unsigned b = h[1] & 0xfff; return b ? b : 4096; }
	uint16_t cpl_req_id() const { return h[2] >> 16; }
	uint8_t cpl_tag() const { return (h[2] >> 8) & 0xff; }
	unsigned lower_addr() const { return h[2] & 0x7f; }
	/* messages */
	unsigned msg_code() const { return h[1] & 0xff; }
	unsigned msg_route() const { return type() & 7; }

	/* Bytes on the wire: framing + sequence + LCRC (8), real header, payload. */
	unsigned wire_bytes() const { return 8 + 4 * hdr_dw + 4 * (unsigned)data.size(); }
	unsigned payload_bytes() const { return 4 * (unsigned)data.size(); }
	/* Flow-control data credits (16 bytes each). */
	unsigned data_credits() const { return ((unsigned)data.size() + 3) / 4; }

	std::string describe() const;
};

/* Memory read or write of nbytes at addr (byte granular, must not cross
 * 4 KiB); bytes is the write data (nbytes bytes), ignored for reads. */
Tlp make_mem(bool write, uint64_t addr, unsigned nbytes, uint16_t req_id, uint8_t tag,
	     const uint8_t *bytes);
/* Completion; ndw == 0 and dws == nullptr give a Cpl without data. */
Tlp make_cpl(uint16_t cpl_id, unsigned status, unsigned byte_count, uint16_t req_id,
	     uint8_t tag, unsigned lower_addr, const uint32_t *dws, unsigned ndw);

/* Message without data (4-DW header, Fmt 001, Type 10rrr), e.g. Assert_INTA:
 * make_msg(MsgAssertIntA, MsgRouteLocal, req_id). Posted. */
Tlp make_msg(unsigned code, unsigned route, uint16_t req_id);

/* Beat format of TLP-STREAM.md: two header beats, then payload beats;
 * beat i of t made on the fly (the hard IP feeds the RTL from the TLP). */
inline size_t beat_count(const Tlp &t) { return 2 + (t.data.size() + 1) / 2; }
inline uint64_t beat(const Tlp &t, size_t i)
{
	if (i == 0)
		return ((uint64_t)t.h[1] << 32) | t.h[0];
	if (i == 1)
		return ((uint64_t)(t.hdr_dw == 4 ? t.h[3] : 0) << 32) | t.h[2];
	size_t k = 2 * (i - 2);
	uint64_t hi = k + 1 < t.data.size() ? t.data[k + 1] : 0;
	return (hi << 32) | t.data[k];
}
/* Parses the beats of one TLP; false with a reason on a malformed one. */
bool from_beats(const std::vector<uint64_t> &beats, Tlp &t, std::string &why);

/* Byte enables of a DW-aligned access covering [addr, addr+n). */
void byte_enables(uint64_t addr, unsigned n, unsigned *ndw, unsigned *fbe, unsigned *lbe);

} // namespace abbsim
#endif
