/*
 * enumerate.cpp - Linux-like enumeration of the endpoint at open.
 */
#include "enumerate.h"

#include "abbsim.h"
#include "abbsim_cfg.h"
#include <abb/abb_regs.h>

#include <cerrno>
#include <cstdio>

namespace abbsim {

namespace {
struct Acc {
	CfgSpace &c;
	uint32_t r32(unsigned o) { uint32_t v = 0; c.read(o, 4, &v); return v; }
	uint16_t r16(unsigned o) { uint32_t v = 0; c.read(o, 2, &v); return (uint16_t)v; }
	uint8_t r8(unsigned o) { uint32_t v = 0; c.read(o, 1, &v); return (uint8_t)v; }
	void w32(unsigned o, uint32_t v) { c.write(o, 4, v); }
	void w16(unsigned o, uint16_t v) { c.write(o, 2, v); }
};
} // namespace

int enumerate(CfgSpace &cfg, const abbsim_params &p, Enumerated &out, std::string &err)
{
	Acc a{cfg};
	char buf[160];
	uint32_t id = a.r32(ABBSIM_CFG_VENDOR);
	if (id != (ABB_DEVICE_ID << 16 | ABB_VENDOR_ID)) {
		snprintf(buf, sizeof buf, "enumeration: unexpected vendor/device 0x%08x", id);
		err = buf;
		return -ENODEV;
	}
	if ((a.r8(ABBSIM_CFG_HEADER_TYPE) & ABBSIM_HEADER_LAYOUT) != 0) {
		err = "enumeration: not a type 0 header";
		return -ENODEV;
	}
	/* Size the BARs with decoding off, as pci_read_bases() does. */
	uint16_t cmd = a.r16(ABBSIM_CFG_COMMAND);
	a.w16(ABBSIM_CFG_COMMAND, cmd & ~(ABBSIM_CMD_IO | ABBSIM_CMD_MEM));
	uint32_t next = BarWindowBase;
	for (unsigned i = 0; i < 6; i++) {
		unsigned off = ABBSIM_CFG_BAR(i);
		uint32_t orig = a.r32(off);
		a.w32(off, 0xffffffffu);
		uint32_t mask = a.r32(off);
		a.w32(off, orig);
		if (!mask)
			continue;
		if (mask & ABBSIM_BAR_IO) {
			err = "enumeration: I/O BAR not expected";
			return -ENODEV;
		}
		if ((mask & ABBSIM_BAR_TYPE) == ABBSIM_BAR_TYPE_64) {
			err = "enumeration: 64-bit BAR not expected";
			return -ENODEV;
		}
		uint32_t size = ~(mask & ~ABBSIM_BAR_FLAGS) + 1;
		next = (next + size - 1) & ~(size - 1);
		a.w32(off, next);
		if (i < 2) {
			out.bar_addr[i] = next;
			out.bar_size[i] = size;
		}
		next += size;
	}
	/* Capabilities. */
	unsigned pm = 0, msi = 0, exp = 0;
	if (a.r16(ABBSIM_CFG_STATUS) & ABBSIM_STATUS_CAP_LIST) {
		unsigned ptr = a.r8(ABBSIM_CFG_CAP_PTR) & ~3u;
		for (int guard = 0; ptr && guard < 48; guard++) {
			unsigned idc = a.r8(ptr + ABBSIM_CAP_ID);
			if (idc == ABBSIM_CAP_ID_PM) pm = ptr;
			if (idc == ABBSIM_CAP_ID_MSI) msi = ptr;
			if (idc == ABBSIM_CAP_ID_EXP) exp = ptr;
			ptr = a.r8(ptr + ABBSIM_CAP_NEXT) & ~3u;
		}
	}
	if (!exp) {
		err = "enumeration: PCI Express capability missing";
		return -ENODEV;
	}
	if (pm)
		a.w16(pm + ABBSIM_PM_CSR, a.r16(pm + ABBSIM_PM_CSR) & ~ABBSIM_PM_CSR_STATE); /* D0 */
	/* MPS: the smaller of what the device supports and what the platform
	 * (root port) is set to; MRRS as configured; extended tags if
	 * supported; RCB of the root port in Link Control. */
	uint32_t devcap = a.r32(exp + ABBSIM_EXP_DEVCAP);
	unsigned mps_code = size_code(p.mps);
	if (mps_code > (devcap & ABBSIM_EXP_DEVCAP_MPSS))
		mps_code = devcap & ABBSIM_EXP_DEVCAP_MPSS;
	uint16_t devctl = a.r16(exp + ABBSIM_EXP_DEVCTL);
	devctl = (uint16_t)((devctl & ~ABBSIM_EXP_DEVCTL_MPS & ~ABBSIM_EXP_DEVCTL_MRRS) |
			    (mps_code << ABBSIM_EXP_DEVCTL_MPS_SHIFT) |
			    (size_code(p.mrrs) << ABBSIM_EXP_DEVCTL_MRRS_SHIFT));
	if (devcap & ABBSIM_EXP_DEVCAP_EXT_TAG)
		devctl |= ABBSIM_EXP_DEVCTL_EXT_TAG;
	a.w16(exp + ABBSIM_EXP_DEVCTL, devctl);
	uint16_t lnkctl = a.r16(exp + ABBSIM_EXP_LNKCTL);
	a.w16(exp + ABBSIM_EXP_LNKCTL,
	      p.rcb == 128 ? (lnkctl | ABBSIM_EXP_LNKCTL_RCB) : (lnkctl & ~ABBSIM_EXP_LNKCTL_RCB));
	devctl = a.r16(exp + ABBSIM_EXP_DEVCTL);
	out.mps = code_size((devctl & ABBSIM_EXP_DEVCTL_MPS) >> ABBSIM_EXP_DEVCTL_MPS_SHIFT);
	out.mrrs = code_size((devctl & ABBSIM_EXP_DEVCTL_MRRS) >> ABBSIM_EXP_DEVCTL_MRRS_SHIFT);
	/* MSI when the device has it (msi=1): address, data, one vector,
	 * enable, and INTx disabled as Linux does when MSI is in use. Else
	 * legacy INTx (Interrupt Disable clear). */
	uint16_t intx_off = 0;
	if (msi) {
		uint16_t mc = a.r16(msi + ABBSIM_MSI_CTRL);
		a.w32(msi + ABBSIM_MSI_ADDR_LO, MsiAddress);
		unsigned data_off = msi + ABBSIM_MSI_DATA_32;
		if (mc & ABBSIM_MSI_CTRL_64BIT) {
			a.w32(msi + ABBSIM_MSI_ADDR_HI, 0);
			data_off = msi + ABBSIM_MSI_DATA_64;
		}
		a.w16(data_off, MsiData);
		a.w16(msi + ABBSIM_MSI_CTRL,
		      (uint16_t)((mc & ~ABBSIM_MSI_CTRL_MME) | ABBSIM_MSI_CTRL_ENABLE));
		intx_off = ABBSIM_CMD_INTX_DISABLE;
	}
	/* Memory space, bus master. */
	a.w16(ABBSIM_CFG_COMMAND, (uint16_t)((cmd & ~ABBSIM_CMD_INTX_DISABLE) | ABBSIM_CMD_MEM |
					      ABBSIM_CMD_MASTER | intx_off));
	a.c.write(ABBSIM_CFG_INT_LINE, 1, 0xff);
	return 0;
}

} // namespace abbsim
