/*
 * params.cpp - platform parameters: the defaults (abbsim.h's) and the
 * consistency check. Parsing options is libabb's (its option table).
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

/* ns at mhz in whole user-clock cycles, rounded up (never kinder) */
static unsigned abbsim_ns_cycles(unsigned ns, unsigned mhz)
{
	return (unsigned)(((uint64_t)ns * mhz + 999) / 1000);
}

/* link_mbps as sixteenths of a DW per cycle, rounded up */
static unsigned abbsim_link_dw16(unsigned mbps, unsigned mhz)
{
	return (unsigned)(((uint64_t)mbps * 4 + mhz - 1) / mhz);
}

static unsigned log2u(unsigned v) { return v ? 31u - (unsigned)__builtin_clz(v) : 0; }

/* abb_top's board_cfg_i (rtl-model/abb_ddr2_arb.sv has the fields) from a
 * checked parameter set: 0 when everything is off (the default board). */
uint64_t board_cfg_word(const abbsim_params &p)
{
	unsigned mhz = abbsim_clk_mhz(&p);
	uint64_t w = 0;
	if (p.ddr) {
		w |= 1;
		w |= (uint64_t)log2u(p.ddr_burst) << 4;
		w |= (uint64_t)log2u(p.ddr_width) << 8;
		w |= (uint64_t)abbsim_ns_cycles(p.ddr_lat_ns, mhz) << 12;
		w |= (uint64_t)abbsim_ns_cycles(p.ddr_row_ns, mhz) << 20;
		w |= (uint64_t)log2u(p.ddr_row) << 28;
		w |= (uint64_t)abbsim_ns_cycles(p.ddr_wr_ns, mhz) << 32;
		/* at most 63/16 DW per cycle: a slow user clock (10 MHz: 157 MB/s)
		 * caps the link input (doc/board-profile.md) */
		w |= (uint64_t)std::min(abbsim_link_dw16(p.link_mbps, mhz), 63u) << 40;
	}
	w |= (uint64_t)p.ep_reads << 48;
	w |= (uint64_t)(p.ep_rx / 256) << 56;
	return w;
}

/* One direction's credit limits against the largest TLP of each class
 * (a data limit below it would stop the link for good). */
static int check_credits(const char *dir, const struct abbsim_credits &c, unsigned p_max,
			 unsigned cpl_max, const char *p_why, const char *cpl_why)
{
	struct abbsim_credits cc = c;
	for (unsigned i = 0; i < ABBSIM_CREDIT_ITEMS; i++) {
		unsigned v = *abbsim_credit_field(&cc, i);
		if (v > ABBSIM_CREDIT_MAX(i))
			return fail(-EINVAL, "ABB_SIM_CREDITS / credits: %s.%s=%u is out of range: "
				    "accepted 0 (infinite) or 1..%u", dir, abbsim_credit_name(i), v,
				    ABBSIM_CREDIT_MAX(i));
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

/* The defaults are abbsim.h's (libabb's option table shows the same). */
extern "C" void abbsim_params_default(struct abbsim_params *p)
{
	if (p)
		abbsim_params_defaults_fill(p);
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
	if (p->strict > 1 || p->msi > 1)
		return fail(-EINVAL, "%s %u: accepted 0 or 1", p->strict > 1 ? "strict" : "msi",
			    p->strict > 1 ? p->strict : p->msi);
	if (p->traceable > 1)
		return fail(-EINVAL, "traceable %u: accepted 0 or 1", p->traceable);
	if (p->clock_free > 1)
		return fail(-EINVAL, "clock_free %u: accepted 0 (lockstep) or 1 (free)", p->clock_free);
	if (p->board < 1 || p->board > 255)
		return fail(-EINVAL, "board %u: accepted 1..255 (the endpoint's PCI bus number)", p->board);
	if (p->pio_wc > 1)
		return fail(-EINVAL, "pio_wc %u: accepted 0 (uc) or 1 (wc)", p->pio_wc);
	if (p->cpu >= ABBSIM_CPU_COUNT)
		return fail(-EINVAL, "cpu %u: accepted 0 (x86-today) or 1 (x86-2011)", p->cpu);
	if (p->wc_buffers > 64)
		return fail(-EINVAL, "wc_buffers %u: accepted 0 (the CPU profile's) or 1..64",
			    p->wc_buffers);
	if (p->ddr > 1)
		return fail(-EINVAL, "ddr %u: accepted 0 or 1", p->ddr);
	if (p->ddr_burst < 8 || p->ddr_burst > 4096 || !pow2(p->ddr_burst))
		return fail(-EINVAL, "ddr_burst %u: accepted a power of 2 from 8 to 4096", p->ddr_burst);
	if (p->ddr_width < 4 || p->ddr_width > 32 || !pow2(p->ddr_width))
		return fail(-EINVAL, "ddr_width %u: accepted 4, 8, 16 or 32", p->ddr_width);
	if (p->ddr_row && (p->ddr_row < 256 || p->ddr_row > 32768 || !pow2(p->ddr_row)))
		return fail(-EINVAL, "ddr_row %u: accepted 0 or a power of 2 from 256 to 32768",
			    p->ddr_row);
	{
		unsigned mhz = abbsim_clk_mhz(p);
		const unsigned ns[3] = {p->ddr_lat_ns, p->ddr_row_ns, p->ddr_wr_ns};
		const char *const nm[3] = {"ddr_lat_ns", "ddr_row_ns", "ddr_wr_ns"};
		for (unsigned i = 0; i < 3; i++)
			if (abbsim_ns_cycles(ns[i], mhz) > 255)
				return fail(-EINVAL, "%s %u: accepted 0..%u at %u MHz (255 cycles)", nm[i],
					    ns[i], 255u * 1000u / mhz, mhz);
	}
	if (p->ep_reads > 255)
		return fail(-EINVAL, "ep_reads %u: accepted 0 (no limit) or 1..255", p->ep_reads);
	if (p->ep_rx % 256 || p->ep_rx > 65280)
		return fail(-EINVAL, "ep_rx %u: accepted 0 (no limit) or a multiple of 256 up to 65280",
			    p->ep_rx);
	if (p->rc_reads > 256)
		return fail(-EINVAL, "rc_reads %u: accepted 0 (no limit) or 1..256", p->rc_reads);
	if (p->cpl_rcb > 1)
		return fail(-EINVAL, "cpl_rcb %u: accepted 1 (ABB_SIM_CPL=rcb) or 0 (mps)", p->cpl_rcb);
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
