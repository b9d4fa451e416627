/*
 * params.cpp - platform parameters: defaults (the ABB in a Gen1 x4 slot),
 * ABB_SIM_* environment variables, and the consistency check.
 */
#include "abbsim.h"
#include "cfg_space.h"
#include "error.h"

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace abbsim {

static thread_local std::string g_last_error;

int fail(int err, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	g_last_error = buf;
	return err;
}

const char *last_error() { return g_last_error.c_str(); }

static bool pow2(uint64_t v) { return v && !(v & (v - 1)); }

/* Parses an unsigned decimal (or 0x hex) number; suffixes K/M (x1024) when
 * allowed. */
static bool parse_num(const char *s, bool suffix, uint64_t *out)
{
	if (!*s || *s == '-' || *s == '+')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || end == s)
		return false;
	if (suffix && (*end == 'K' || *end == 'k')) {
		v <<= 10;
		end++;
	} else if (suffix && (*end == 'M' || *end == 'm')) {
		v <<= 20;
		end++;
	}
	if (*end)
		return false;
	*out = v;
	return true;
}

struct NumVar {
	const char *name;
	const char *accepted;
	bool suffix;
	uint64_t lo, hi;
	bool need_pow2;
};

static int get_num(const NumVar &v, uint64_t *out, bool *set)
{
	const char *s = getenv(v.name);
	*set = false;
	if (!s)
		return 0;
	uint64_t x;
	if (!parse_num(s, v.suffix, &x) || x < v.lo || x > v.hi || (v.need_pow2 && !pow2(x)))
		return fail(-EINVAL, "%s=\"%s\" is invalid: accepted %s", v.name, s, v.accepted);
	*out = x;
	*set = true;
	return 0;
}


/* Credits advertised by the receivers by default. Device -> root complex:
 * the root port's buffers, generous (16 KiB of posted data). Root complex
 * -> device: the hard block's receive buffers. Completions infinite in both
 * directions, as endpoints and root ports advertise them. None of these
 * limits Gen1 x4 throughput (the credits of a direction return within one
 * round trip, ~1 us, far more than the link moves in that time). */
static void default_credits(struct abbsim_params *p)
{
	p->credits_up = abbsim_credits{64, 1024, 64, 64, 0, 0};
	p->credits_down = abbsim_credits{32, 256, 16, 16, 0, 0};
}

/* Credit fields by item name, in struct order. */
static const char *const credit_names[6] = {"ph", "pd", "nph", "npd", "cplh", "cpld"};
static const char *const CreditsAccepted =
	"a list like \"ph=8,pd=64,nph=4,npd=0,cplh=0,cpld=0\" (items separated by ',' ':' or '/'; "
	"\"up.\" or \"down.\" before an item for one direction; header credits 0 (infinite) or "
	"1..127, data credits in 16-byte units 0 (infinite) or 1..2047; \"default\" resets both "
	"directions)";

static unsigned *credit_field(struct abbsim_credits &c, unsigned i)
{
	unsigned *f[6] = {&c.ph, &c.pd, &c.nph, &c.npd, &c.cplh, &c.cpld};
	return f[i];
}

/* Parses a credit list into p (both directions unless prefixed); what names
 * the source in messages ("ABB_SIM_CREDITS", "credits"). */
static int parse_credits(struct abbsim_params *p, const char *what, const char *value)
{
	struct abbsim_params q = *p;
	std::string s = value ? value : "";
	if (s.empty())
		return fail(-EINVAL, "%s=\"\" is invalid: accepted %s", what, CreditsAccepted);
	size_t pos = 0;
	while (pos <= s.size()) {
		size_t end = s.find_first_of(",:/", pos);
		if (end == std::string::npos)
			end = s.size();
		std::string item = s.substr(pos, end - pos);
		pos = end + 1;
		if (item.empty())
			continue;
		if (item == "default") {
			default_credits(&q);
			continue;
		}
		bool up = true, down = true;
		std::string key = item;
		if (!key.compare(0, 3, "up.")) {
			down = false;
			key = key.substr(3);
		} else if (!key.compare(0, 5, "down.")) {
			up = false;
			key = key.substr(5);
		}
		size_t eq = key.find('=');
		std::string name = key.substr(0, eq), val = eq == std::string::npos ? "" : key.substr(eq + 1);
		unsigned idx = 6;
		for (unsigned i = 0; i < 6; i++)
			if (name == credit_names[i])
				idx = i;
		uint64_t v = 0;
		bool ok = idx < 6 && eq != std::string::npos;
		if (ok && (val == "inf" || val == "infinite"))
			v = 0;
		else if (ok)
			ok = parse_num(val.c_str(), false, &v) && v <= (idx % 2 ? 2047u : 127u);
		if (!ok)
			return fail(-EINVAL, "%s=\"%s\" is invalid at \"%s\": accepted %s", what, value,
				    item.c_str(), CreditsAccepted);
		if (up)
			*credit_field(q.credits_up, idx) = (unsigned)v;
		if (down)
			*credit_field(q.credits_down, idx) = (unsigned)v;
	}
	*p = q;
	return 0;
}

static int parse_cpl(struct abbsim_params *p, const char *what, const char *value)
{
	if (value && !strcmp(value, "rcb"))
		p->cpl_rcb = 1;
	else if (value && !strcmp(value, "mps"))
		p->cpl_rcb = 0;
	else
		return fail(-EINVAL, "%s=\"%s\" is invalid: accepted rcb (completions end at every "
			    "read completion boundary, the default) or mps (coalesced up to MPS)",
			    what, value ? value : "");
	return 0;
}

/* One direction's credit limits against the largest TLP of each class
 * (a data limit below it would stop the link for good). */
static int check_credits(const char *dir, const struct abbsim_credits &c, unsigned p_max,
			 unsigned cpl_max, const char *p_why, const char *cpl_why)
{
	for (unsigned i = 0; i < 6; i++) {
		unsigned v = *credit_field(const_cast<struct abbsim_credits &>(c), i);
		if (v > (i % 2 ? 2047u : 127u))
			return fail(-EINVAL, "ABB_SIM_CREDITS / credits: %s.%s=%u is out of range: "
				    "accepted 0 (infinite) or 1..%u", dir, credit_names[i], v,
				    i % 2 ? 2047u : 127u);
	}
	unsigned need_p = (p_max + 15) / 16, need_cpl = (cpl_max + 15) / 16;
	if (c.pd && c.pd < need_p)
		return fail(-EINVAL, "ABB_SIM_CREDITS / credits: %s.pd=%u is smaller than one posted "
			    "TLP of %u bytes (%s): the link would deadlock; accepted 0 (infinite) or "
			    "%u..2047", dir, c.pd, p_max, p_why, need_p);
	if (c.cpld && c.cpld < need_cpl)
		return fail(-EINVAL, "ABB_SIM_CREDITS / credits: %s.cpld=%u is smaller than one "
			    "completion of %u bytes (%s): the link would deadlock; accepted 0 "
			    "(infinite) or %u..2047", dir, c.cpld, cpl_max, cpl_why, need_cpl);
	return 0;
}

} // namespace abbsim

using namespace abbsim;

extern "C" void abbsim_params_default(struct abbsim_params *p)
{
	if (!p)
		return;
	memset(p, 0, sizeof *p);
	p->gen = 1;
	p->lanes = 4;
	p->mps = 128;
	p->mrrs = 512;
	p->rcb = 64;
	p->clk_mhz = 0; /* auto: abbsim_clk_mhz() */
	p->link_latency_ns = 200;
	p->mem_latency_ns = 300;
	p->reorder = 0;
	p->seed = 1;
	p->mem_bytes = 1u << 20;
	p->iova_scatter = 0;
	p->watchdog_s = 120;
	p->cpl_rcb = 1;
	default_credits(p);
	p->strict = 0;
	p->msi = 0;
}

/* The user clock when none is given: the 64-bit interface of the hard block
 * runs at 125 MHz up to 1 GB/s of raw link bandwidth (Gen1 x4, Gen2 x2)
 * and at 250 MHz above, as Xilinx's 64-bit endpoint blocks do for x8 Gen1
 * and x4 Gen2, so the RTL never limits such a link. */
extern "C" unsigned abbsim_clk_mhz(const struct abbsim_params *p)
{
	if (p->clk_mhz)
		return p->clk_mhz;
	unsigned lane_mbs = p->gen == 1 ? 250 : p->gen == 2 ? 500 : 985;
	return p->lanes * lane_mbs > 1000 ? 250 : 125;
}

extern "C" int abbsim_params_check(const struct abbsim_params *p)
{
	if (!p)
		return fail(-EINVAL, "abbsim_params_check: params is NULL");
	if (p->gen < 1 || p->gen > 3)
		return fail(-EINVAL, "gen %u: accepted 1, 2 or 3", p->gen);
	if (p->lanes != 12 && (p->lanes > 16 || !pow2(p->lanes)))
		return fail(-EINVAL, "lanes %u: accepted 1, 2, 4, 8, 12 or 16", p->lanes);
	if (p->mps < 128 || !pow2(p->mps))
		return fail(-EINVAL, "mps %u: accepted 128, 256, 512, 1024, 2048 or 4096", p->mps);
	if (p->mps > DevMpsMax)
		return fail(-EINVAL, "mps %u exceeds the %u bytes the device advertises in Device "
			    "Capabilities: accepted 128, 256, 512, 1024, 2048 or 4096", p->mps, DevMpsMax);
	if (p->mrrs < 128 || p->mrrs > 4096 || !pow2(p->mrrs))
		return fail(-EINVAL, "mrrs %u: accepted 128, 256, 512, 1024, 2048 or 4096", p->mrrs);
	if (p->rcb != 64 && p->rcb != 128)
		return fail(-EINVAL, "rcb %u: accepted 64 or 128", p->rcb);
	if (p->clk_mhz != 0 && (p->clk_mhz < 10 || p->clk_mhz > 1000))
		return fail(-EINVAL, "clk_mhz %u: accepted 0 (auto) or 10..1000", p->clk_mhz);
	if (p->link_latency_ns > 1000000)
		return fail(-EINVAL, "link_latency_ns %u: accepted 0..1000000", p->link_latency_ns);
	if (p->mem_latency_ns > 10000000)
		return fail(-EINVAL, "mem_latency_ns %u: accepted 0..10000000", p->mem_latency_ns);
	if (p->reorder > 2)
		return fail(-EINVAL, "reorder %u: accepted 0 (in order), 1 (random) or 2 (round robin)",
			    p->reorder);
	if (p->mem_bytes < (64u << 10) || p->mem_bytes > (16u << 20) || !pow2(p->mem_bytes))
		return fail(-EINVAL, "mem_bytes %u: accepted a power of 2 from 64 KiB to 16 MiB",
			    p->mem_bytes);
	if (p->iova_scatter > 1)
		return fail(-EINVAL, "iova_scatter %u: accepted 0 or 1", p->iova_scatter);
	if (p->watchdog_s < 1 || p->watchdog_s > 86400)
		return fail(-EINVAL, "watchdog_s %u: accepted 1..86400", p->watchdog_s);
	if (p->cpl_rcb > 1)
		return fail(-EINVAL, "cpl_rcb %u: accepted 1 (ABB_SIM_CPL=rcb) or 0 (mps)", p->cpl_rcb);
	if (p->strict > 1)
		return fail(-EINVAL, "strict %u: accepted 0 (lenient: the model's register side "
			    "effects) or 1 (strict: none of them)", p->strict);
	if (p->msi > 1)
		return fail(-EINVAL, "msi %u: accepted 0 (legacy INTx only) or 1 (MSI capability, "
			    "enabled at enumeration)", p->msi);
	/* Largest TLPs per direction: up, the device's memory writes (MPS) and
	 * its PIO completions (the root complex reads at most 128 bytes); down,
	 * PIO writes (at most 128 bytes) and the read completions (one RCB, or
	 * up to MPS and MRRS when coalesced). Reads carry no data. */
	unsigned cpl_down = p->cpl_rcb ? p->rcb : std::min(p->mps, p->mrrs);
	char why[80];
	snprintf(why, sizeof why, "%s, MPS %u, MRRS %u, RCB %u", p->cpl_rcb ? "cpl=rcb" : "cpl=mps",
		 p->mps, p->mrrs, p->rcb);
	char mps_why[32];
	snprintf(mps_why, sizeof mps_why, "MPS %u", p->mps);
	int rc = check_credits("up", p->credits_up, p->mps, 128, mps_why, "a PIO read of 128 bytes");
	if (!rc)
		rc = check_credits("down", p->credits_down, 128, cpl_down, "a PIO write of 128 bytes", why);
	return rc;
}

extern "C" int abbsim_params_set(struct abbsim_params *p, const char *name, const char *value)
{
	if (!p || !name)
		return fail(-EINVAL, "abbsim_params_set: %s is NULL", p ? "name" : "params");
	if (!strcmp(name, "credits"))
		return parse_credits(p, "credits", value);
	if (!strcmp(name, "cpl"))
		return parse_cpl(p, "cpl", value);
	return fail(-EINVAL, "abbsim_params_set: unknown option \"%s\": accepted credits or cpl", name);
}

extern "C" int abbsim_params_from_env(struct abbsim_params *p)
{
	if (!p)
		return fail(-EINVAL, "abbsim_params_from_env: params is NULL");
	static const NumVar vars[] = {
		{"ABB_SIM_GEN", "1, 2 or 3", false, 1, 3, false},
		{"ABB_SIM_LANES", "1, 2, 4, 8, 12 or 16", false, 1, 16, false},
		{"ABB_SIM_MPS", "128, 256, 512, 1024, 2048 or 4096", false, 128, 4096, true},
		{"ABB_SIM_MRRS", "128, 256, 512, 1024, 2048 or 4096", false, 128, 4096, true},
		{"ABB_SIM_RCB", "64 or 128", false, 64, 128, true},
		{"ABB_SIM_CLK_MHZ", "0 (auto) or an integer 10..1000", false, 0, 1000, false},
		{"ABB_SIM_LINK_NS", "an integer 0..1000000", false, 0, 1000000, false},
		{"ABB_SIM_MEM_NS", "an integer 0..10000000", false, 0, 10000000, false},
		{"ABB_SIM_REORDER", "0 (in order), 1 (random) or 2 (round robin)", false, 0, 2, false},
		{"ABB_SIM_SEED", "an unsigned 64-bit integer", false, 0, UINT64_MAX, false},
		{"ABB_SIM_MEM_SIZE", "a power of 2 from 64K to 16M (bytes, suffix K or M allowed)",
		 true, 64u << 10, 16u << 20, true},
		{"ABB_SIM_WATCHDOG_S", "an integer 1..86400", false, 1, 86400, false},
		{"ABB_SIM_STRICT", "0 (lenient) or 1 (strict: no model-defined register side effects)",
		 false, 0, 1, false},
		{"ABB_SIM_MSI", "0 (legacy INTx only) or 1 (MSI capability, enabled at enumeration)",
		 false, 0, 1, false},
	};
	struct abbsim_params q = *p;
	uint64_t v[sizeof vars / sizeof vars[0]];
	bool set[sizeof vars / sizeof vars[0]];
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		int rc = get_num(vars[i], &v[i], &set[i]);
		if (rc)
			return rc;
	}
	if (set[0]) q.gen = (unsigned)v[0];
	if (set[1]) q.lanes = (unsigned)v[1];
	if (set[2]) q.mps = (unsigned)v[2];
	if (set[3]) q.mrrs = (unsigned)v[3];
	if (set[4]) q.rcb = (unsigned)v[4];
	if (set[5]) q.clk_mhz = (unsigned)v[5];
	if (set[6]) q.link_latency_ns = (unsigned)v[6];
	if (set[7]) q.mem_latency_ns = (unsigned)v[7];
	if (set[8]) q.reorder = (unsigned)v[8];
	if (set[9]) q.seed = v[9];
	if (set[10]) q.mem_bytes = (unsigned)v[10];
	if (set[11]) q.watchdog_s = (unsigned)v[11];
	if (set[12]) q.strict = (unsigned)v[12];
	if (set[13]) q.msi = (unsigned)v[13];
	if (set[1] && q.lanes != 12 && !pow2(q.lanes))
		return fail(-EINVAL, "ABB_SIM_LANES=\"%s\" is invalid: accepted %s", getenv("ABB_SIM_LANES"),
			    vars[1].accepted);
	if (const char *s = getenv("ABB_SIM_CREDITS")) {
		int rc = parse_credits(&q, "ABB_SIM_CREDITS", s);
		if (rc)
			return rc;
	}
	if (const char *s = getenv("ABB_SIM_CPL")) {
		int rc = parse_cpl(&q, "ABB_SIM_CPL", s);
		if (rc)
			return rc;
	}
	if (const char *s = getenv("ABB_SIM_IOVA")) {
		if (!strcmp(s, "contiguous"))
			q.iova_scatter = 0;
		else if (!strcmp(s, "scatter"))
			q.iova_scatter = 1;
		else
			return fail(-EINVAL, "ABB_SIM_IOVA=\"%s\" is invalid: accepted contiguous or scatter", s);
	}
	int rc = abbsim_params_check(&q);
	if (rc)
		return rc;
	*p = q;
	return 0;
}
