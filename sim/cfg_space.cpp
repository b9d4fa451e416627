/*
 * cfg_space.cpp - config space contents and access rules of the endpoint.
 */
#include "cfg_space.h"

#include "abbsim.h"
#include "abbsim_cfg.h"
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
	init16(ABBSIM_CFG_VENDOR, ABB_VENDOR_ID);     /* vendor: CERN */
	init16(ABBSIM_CFG_DEVICE, ABB_DEVICE_ID);     /* device: PCIeABB */
	/* command: memory, master, parity, SERR, INTx disable writable */
	init16(ABBSIM_CFG_COMMAND, 0x0000,
	       ABBSIM_CMD_MEM | ABBSIM_CMD_MASTER | ABBSIM_CMD_PARITY | ABBSIM_CMD_SERR |
		       ABBSIM_CMD_INTX_DISABLE);
	/* status: capability list; error bits RW1C */
	init16(ABBSIM_CFG_STATUS, ABBSIM_STATUS_CAP_LIST, 0x0000, ABBSIM_STATUS_ERRORS);
	init8(ABBSIM_CFG_REVISION, ABBSIM_CFG_REVISION_ID);
	init8(ABBSIM_CFG_CLASS + 0, ABBSIM_CFG_CLASS_CODE & 0xff); /* prog-if */
	init8(ABBSIM_CFG_CLASS + 1, (ABBSIM_CFG_CLASS_CODE >> 8) & 0xff); /* subclass */
	init8(ABBSIM_CFG_CLASS + 2, ABBSIM_CFG_CLASS_CODE >> 16); /* class */
	init8(ABBSIM_CFG_CACHE_LINE, 0x00, 0xff);
	init8(ABBSIM_CFG_HEADER_TYPE, 0x00);          /* header type 0, single function */
	/* BAR0: 32-bit non-prefetchable memory, 64 KiB; BAR1: board memory. */
	init32(ABBSIM_CFG_BAR(0), 0x0, ~(ABBSIM_CFG_BAR0_BYTES - 1) & ~ABBSIM_BAR_FLAGS);
	/* BAR1 prefetchable when the host maps it write-combined (pio=wc:
	 * Linux offers WC mappings of prefetchable BARs only) */
	init32(ABBSIM_CFG_BAR(1), p.pio_wc ? ABBSIM_BAR_PREFETCH : 0x0,
	       ~(bar1_bytes_ - 1) & ~ABBSIM_BAR_FLAGS);
	init16(ABBSIM_CFG_SUBSYS_VENDOR, ABB_VENDOR_ID);
	init16(ABBSIM_CFG_SUBSYS, ABB_DEVICE_ID);
	init8(ABBSIM_CFG_CAP_PTR, ABBSIM_CFG_PM);
	init8(ABBSIM_CFG_INT_LINE, 0x00, 0xff);
	init8(ABBSIM_CFG_INT_PIN, 0x01);              /* INTA */

	/* Power management: version 3, D0 only; PMCSR power state writable,
	 * No_Soft_Reset set. */
	init8(ABBSIM_CFG_PM + ABBSIM_CAP_ID, ABBSIM_CAP_ID_PM);
	init8(ABBSIM_CFG_PM + ABBSIM_CAP_NEXT, msi_cap_ ? ABBSIM_CFG_MSI : ABBSIM_CFG_EXP);
	init16(ABBSIM_CFG_PM + ABBSIM_PM_PMC, 0x0003);
	init16(ABBSIM_CFG_PM + ABBSIM_PM_CSR, ABBSIM_PM_CSR_NO_SOFT_RESET, ABBSIM_PM_CSR_STATE);

	/* MSI (msi=1 only; the board's original driver used INTx): 64-bit
	 * address, 1 vector (MMC 0); enable and MME writable. */
	if (msi_cap_) {
		const unsigned m = ABBSIM_CFG_MSI;

		init8(m + ABBSIM_CAP_ID, ABBSIM_CAP_ID_MSI);
		init8(m + ABBSIM_CAP_NEXT, ABBSIM_CFG_EXP);
		init16(m + ABBSIM_MSI_CTRL, ABBSIM_MSI_CTRL_64BIT,
		       ABBSIM_MSI_CTRL_MME | ABBSIM_MSI_CTRL_ENABLE);
		init32(m + ABBSIM_MSI_ADDR_LO, 0, 0xfffffffc);
		init32(m + ABBSIM_MSI_ADDR_HI, 0, 0xffffffff);
		init16(m + ABBSIM_MSI_DATA_64, 0, 0xffff);
	}

	/* PCI Express capability, version 2, endpoint. */
	const unsigned e = ABBSIM_CFG_EXP;
	unsigned mpss = size_code(DevMpsMax);
	init8(e + ABBSIM_CAP_ID, ABBSIM_CAP_ID_EXP);
	init8(e + ABBSIM_CAP_NEXT, 0x00);
	init16(e + ABBSIM_EXP_FLAGS, 0x0002);
	/* Device Capabilities: MPS supported, extended (8-bit) tags, L0s/L1
	 * acceptable latency "no limit", role-based error reporting. */
	init32(e + ABBSIM_EXP_DEVCAP,
	       mpss | ABBSIM_EXP_DEVCAP_EXT_TAG | (7u << 6) | (7u << 9) | (1u << 15));
	/* Device Control: error reporting enables, relaxed ordering, MPS,
	 * extended tags, no snoop, MRRS writable; defaults per specification
	 * (RO and NS set, MPS 128, MRRS 512). */
	init16(e + ABBSIM_EXP_DEVCTL, 0x2810, 0x79ff);
	init16(e + ABBSIM_EXP_DEVSTA, 0x0000, 0x0000, 0x000f); /* RW1C errors */
	/* Link Capabilities: max speed, max width, port 0. */
	const unsigned lnk = (p.gen & ABBSIM_EXP_LNK_SPEED) |
			     ((p.lanes << ABBSIM_EXP_LNK_WIDTH_SHIFT) & ABBSIM_EXP_LNK_WIDTH);
	init32(e + ABBSIM_EXP_LNKCAP, lnk);
	init16(e + ABBSIM_EXP_LNKCTL, 0x0000, 0x00cb); /* ASPM, RCB, common clock, ext sync */
	/* Link Status: current speed and negotiated width, slot clock. */
	init16(e + ABBSIM_EXP_LNKSTA, (uint16_t)(lnk | ABBSIM_EXP_LNKSTA_SLOT_CLK));
	init32(e + ABBSIM_EXP_DEVCAP2, 0x0000001f); /* completion timeout ranges, disable */
	init16(e + ABBSIM_EXP_DEVCTL2, 0x0000, 0x001f);
	init32(e + ABBSIM_EXP_LNKCAP2, ((1u << p.gen) - 1) << 1); /* supported speeds */
	init16(e + ABBSIM_EXP_LNKCTL2, (uint16_t)p.gen, 0x000f); /* target speed */
}

bool CfgSpace::read(unsigned off, unsigned size, uint32_t *val) const
{
	if ((size != 1 && size != 2 && size != 4) || off % size || off >= ABBSIM_CFG_SIZE ||
	    size > ABBSIM_CFG_SIZE - off)
		return false;
	uint32_t v = 0;
	for (unsigned i = 0; i < size; i++)
		v |= (uint32_t)byte_at(off + i) << (8 * i);
	*val = v;
	return true;
}

bool CfgSpace::write(unsigned off, unsigned size, uint32_t val)
{
	if ((size != 1 && size != 2 && size != 4) || off % size || off >= ABBSIM_CFG_SIZE ||
	    size > ABBSIM_CFG_SIZE - off)
		return false;
	for (unsigned i = 0; i < size; i++) {
		uint8_t v = (uint8_t)(val >> (8 * i));
		unsigned o = off + i;
		b_[o] = (uint8_t)((b_[o] & ~wmask_[o]) | (v & wmask_[o]));
		b_[o] &= (uint8_t)~(v & w1c_[o]);
		if (o == ABBSIM_CFG_EXP + ABBSIM_EXP_DEVSTA && (v & ABBSIM_EXP_DEVSTA_URD))
			ur_detected_.store(false, std::memory_order_relaxed);
	}
	return true;
}

std::string CfgSpace::dump() const
{
	std::string s;
	char line[80];
	snprintf(line, sizeof line, "%02x:%02x.%x Class %02x%02x: Device %04x:%04x (rev %02x)\n",
		 bdf_ >> 8, (bdf_ >> 3) & 0x1f, bdf_ & 7, b_[ABBSIM_CFG_CLASS + 2],
		 b_[ABBSIM_CFG_CLASS + 1], rd16(ABBSIM_CFG_VENDOR), rd16(ABBSIM_CFG_DEVICE),
		 b_[ABBSIM_CFG_REVISION]);
	s += line;
	for (unsigned i = 0; i < ABBSIM_CFG_SIZE; i += 16) {
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
