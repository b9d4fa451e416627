/*
 * params.cpp - platform parameters: defaults (the ABB in a Gen1 x4 slot),
 * ABB_SIM_* environment variables, and the consistency check.
 */
#include "abbsim.h"
#include "error.h"

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
	p->clk_mhz = 125;
	p->link_latency_ns = 200;
	p->mem_latency_ns = 300;
	p->reorder = 0;
	p->seed = 1;
	p->mem_bytes = 1u << 20;
	p->iova_scatter = 0;
	p->watchdog_s = 120;
}

extern "C" int abbsim_params_check(const struct abbsim_params *p)
{
	if (!p)
		return fail(-EINVAL, "abbsim_params_check: params is NULL");
	if (p->gen < 1 || p->gen > 3)
		return fail(-EINVAL, "gen %u: accepted 1, 2 or 3", p->gen);
	if (p->lanes > 16 || !pow2(p->lanes))
		return fail(-EINVAL, "lanes %u: accepted 1, 2, 4, 8 or 16", p->lanes);
	if (p->mps < 128 || p->mps > 4096 || !pow2(p->mps))
		return fail(-EINVAL, "mps %u: accepted 128, 256, 512, 1024, 2048 or 4096", p->mps);
	if (p->mrrs < 128 || p->mrrs > 4096 || !pow2(p->mrrs))
		return fail(-EINVAL, "mrrs %u: accepted 128, 256, 512, 1024, 2048 or 4096", p->mrrs);
	if (p->rcb != 64 && p->rcb != 128)
		return fail(-EINVAL, "rcb %u: accepted 64 or 128", p->rcb);
	if (p->clk_mhz < 10 || p->clk_mhz > 1000)
		return fail(-EINVAL, "clk_mhz %u: accepted 10..1000", p->clk_mhz);
	if (p->link_latency_ns > 1000000)
		return fail(-EINVAL, "link_latency_ns %u: accepted 0..1000000", p->link_latency_ns);
	if (p->mem_latency_ns > 10000000)
		return fail(-EINVAL, "mem_latency_ns %u: accepted 0..10000000", p->mem_latency_ns);
	if (p->reorder > 1)
		return fail(-EINVAL, "reorder %u: accepted 0 or 1", p->reorder);
	if (p->mem_bytes < (64u << 10) || p->mem_bytes > (16u << 20) || !pow2(p->mem_bytes))
		return fail(-EINVAL, "mem_bytes %u: accepted a power of 2 from 64 KiB to 16 MiB",
			    p->mem_bytes);
	if (p->iova_scatter > 1)
		return fail(-EINVAL, "iova_scatter %u: accepted 0 or 1", p->iova_scatter);
	if (p->watchdog_s < 1 || p->watchdog_s > 86400)
		return fail(-EINVAL, "watchdog_s %u: accepted 1..86400", p->watchdog_s);
	return 0;
}

extern "C" int abbsim_params_from_env(struct abbsim_params *p)
{
	if (!p)
		return fail(-EINVAL, "abbsim_params_from_env: params is NULL");
	static const NumVar vars[] = {
		{"ABB_SIM_GEN", "1, 2 or 3", false, 1, 3, false},
		{"ABB_SIM_LANES", "1, 2, 4, 8 or 16", false, 1, 16, true},
		{"ABB_SIM_MPS", "128, 256, 512, 1024, 2048 or 4096", false, 128, 4096, true},
		{"ABB_SIM_MRRS", "128, 256, 512, 1024, 2048 or 4096", false, 128, 4096, true},
		{"ABB_SIM_RCB", "64 or 128", false, 64, 128, true},
		{"ABB_SIM_CLK_MHZ", "an integer 10..1000", false, 10, 1000, false},
		{"ABB_SIM_LINK_NS", "an integer 0..1000000", false, 0, 1000000, false},
		{"ABB_SIM_MEM_NS", "an integer 0..10000000", false, 0, 10000000, false},
		{"ABB_SIM_REORDER", "0 or 1", false, 0, 1, false},
		{"ABB_SIM_SEED", "an unsigned 64-bit integer", false, 0, UINT64_MAX, false},
		{"ABB_SIM_MEM_SIZE", "a power of 2 from 64K to 16M (bytes, suffix K or M allowed)",
		 true, 64u << 10, 16u << 20, true},
		{"ABB_SIM_WATCHDOG_S", "an integer 1..86400", false, 1, 86400, false},
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
