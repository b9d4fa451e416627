/*
 * cfg_space.cpp - config space contents and access rules of the endpoint.
 */
#include "cfg_space.h"

#include "abbsim.h"
#include <abb/abb_regs.h>

#include <cstdio>
#include <cstring>

namespace abbsim {

unsigned size_code(unsigned bytes)
{
	unsigned c = 0;
	while ((128u << c) < bytes && c < 5)
		c++;
	return c;
}

unsigned code_size(unsigned code) { return 128u << (code > 5 ? 5 : code); }

void CfgSpace::init8(unsigned off, uint8_t v, uint8_t wmask, uint8_t w1c)
{
	b_[off] = v;
	wmask_[off] = wmask;
	w1c_[off] = w1c;
}

void CfgSpace::init16(unsigned off, uint16_t v, uint16_t wmask, uint16_t w1c)
{
	init8(off, v & 0xff, wmask & 0xff, w1c & 0xff);
	init8(off + 1, v >> 8, wmask >> 8, w1c >> 8);
}

void CfgSpace::init32(unsigned off, uint32_t v, uint32_t wmask, uint32_t w1c)
{
	init16(off, v & 0xffff, wmask & 0xffff, w1c & 0xffff);
	init16(off + 2, v >> 16, wmask >> 16, w1c >> 16);
}

void CfgSpace::reset(const abbsim_params &p, uint16_t bdf)
{
	memset(b_, 0, sizeof b_);
	memset(wmask_, 0, sizeof wmask_);
	memset(w1c_, 0, sizeof w1c_);
	bdf_ = bdf;
	bar1_bytes_ = p.mem_bytes;
	msi_cap_ = p.msi != 0;
	int_status_.store(false);
	ur_detected_.store(false);

	/* Type 0 header. */
	init16(0x00, ABB_VENDOR_ID);             /* vendor: CERN */
	init16(0x02, ABB_DEVICE_ID);             /* device: PCIeABB */
	init16(0x04, 0x0000, 0x0546);            /* command: mem, master, parity, SERR, INTx disable */
	init16(0x06, 0x0010, 0x0000, 0xf900);    /* status: capability list; error bits RW1C */
	init8(0x08, 0x01);                       /* revision */
	init8(0x09, 0x00);                       /* class 0x118000: data acquisition / other */
	init8(0x0a, 0x80);
	init8(0x0b, 0x11);
	init8(0x0c, 0x00, 0xff);                 /* cache line size */
	init8(0x0e, 0x00);                       /* header type 0, single function */
	/* BAR0: 32-bit non-prefetchable memory, 64 KiB; BAR1: board memory. */
	init32(0x10, 0x0, ~(Bar0Bytes - 1) & ~0xfu);
	init32(0x14, 0x0, ~(bar1_bytes_ - 1) & ~0xfu);
	init16(0x2c, ABB_VENDOR_ID);             /* subsystem vendor */
	init16(0x2e, ABB_DEVICE_ID);             /* subsystem id */
	init8(0x34, CfgCapPm);                   /* capability pointer */
	init8(0x3c, 0x00, 0xff);                 /* interrupt line */
	init8(0x3d, 0x01);                       /* interrupt pin INTA */

	/* Power management: version 3, D0 only; PMCSR power state writable,
	 * No_Soft_Reset set. */
	init8(CfgCapPm + 0, 0x01);
	init8(CfgCapPm + 1, msi_cap_ ? CfgCapMsi : CfgCapExp);
	init16(CfgCapPm + 2, 0x0003);
	init16(CfgCapPm + 4, 0x0008, 0x0003);

	/* MSI (msi=1 only; the board's original driver used INTx): 64-bit
	 * address, 1 vector (MMC 0); enable and MME writable. */
	if (msi_cap_) {
		init8(CfgCapMsi + 0, 0x05);
		init8(CfgCapMsi + 1, CfgCapExp);
		init16(CfgCapMsi + 2, 0x0080, 0x0071);
		init32(CfgCapMsi + 4, 0, 0xfffffffc);    /* address low */
		init32(CfgCapMsi + 8, 0, 0xffffffff);    /* address high */
		init16(CfgCapMsi + 12, 0, 0xffff);       /* data */
	}

	/* PCI Express capability, version 2, endpoint. */
	unsigned mpss = size_code(DevMpsMax);
	init8(CfgCapExp + 0, 0x10);
	init8(CfgCapExp + 1, 0x00);
	init16(CfgCapExp + 2, 0x0002);
	/* Device Capabilities: MPS supported, extended (8-bit) tags, L0s/L1
	 * acceptable latency "no limit", role-based error reporting. */
	init32(CfgCapExp + 4, mpss | (1u << 5) | (7u << 6) | (7u << 9) | (1u << 15));
	/* Device Control: error reporting enables, relaxed ordering, MPS,
	 * extended tags, no snoop, MRRS writable; defaults per specification
	 * (RO and NS set, MPS 128, MRRS 512). */
	init16(CfgCapExp + 8, 0x2810, 0x79ff);
	init16(CfgCapExp + 10, 0x0000, 0x0000, 0x000f); /* Device Status, RW1C errors */
	/* Link Capabilities: max speed, max width, port 0. */
	init32(CfgCapExp + 12, (p.gen & 0xf) | ((p.lanes & 0x3f) << 4));
	init16(CfgCapExp + 16, 0x0000, 0x00cb);  /* Link Control: ASPM, RCB, common clock, ext sync */
	/* Link Status: current speed and negotiated width, slot clock. */
	init16(CfgCapExp + 18, (uint16_t)((p.gen & 0xf) | ((p.lanes & 0x3f) << 4) | (1u << 12)));
	init32(CfgCapExp + 36, 0x0000001f);      /* Device Cap 2: completion timeout ranges, disable */
	init16(CfgCapExp + 40, 0x0000, 0x001f);  /* Device Control 2 */
	init32(CfgCapExp + 44, ((1u << p.gen) - 1) << 1); /* Link Cap 2: supported speeds */
	init16(CfgCapExp + 48, (uint16_t)p.gen, 0x000f); /* Link Control 2: target speed */
}

bool CfgSpace::read(unsigned off, unsigned size, uint32_t *val) const
{
	if ((size != 1 && size != 2 && size != 4) || off % size || off >= CfgSize || size > CfgSize - off)
		return false;
	uint32_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint32_t)byte_at(off + i) << (8 * i);
	*val = v;
	return true;
}

bool CfgSpace::write(unsigned off, unsigned size, uint32_t val)
{
	if ((size != 1 && size != 2 && size != 4) || off % size || off >= CfgSize || size > CfgSize - off)
		return false;
	for (unsigned i = 0; i < size; i++) {
		uint8_t v = (uint8_t)(val >> (8 * i));
		unsigned o = off + i;
		b_[o] = (uint8_t)((b_[o] & ~wmask_[o]) | (v & wmask_[o]));
		b_[o] &= (uint8_t)~(v & w1c_[o]);
		if (o == CfgCapExp + 10 && (v & 0x08))
			ur_detected_.store(false, std::memory_order_relaxed);
	}
	return true;
}

std::string CfgSpace::dump() const
{
	std::string s;
	char line[80];
	snprintf(line, sizeof line, "%02x:%02x.%x Class %02x%02x: Device %04x:%04x (rev %02x)\n",
		 bdf_ >> 8, (bdf_ >> 3) & 0x1f, bdf_ & 7, b_[0x0b], b_[0x0a], rd16(0), rd16(2),
		 b_[8]);
	s += line;
	for (unsigned i = 0; i < CfgSize; i += 16) {
		int n = snprintf(line, sizeof line, "%02x:", i);
		for (unsigned j = 0; j < 16; j++)
			n += snprintf(line + n, sizeof line - n, " %02x", byte_at(i + j));
		s += line;
		s += '\n';
	}
	s += '\n';
	return s;
}

} // namespace abbsim
