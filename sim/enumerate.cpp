/*
 * enumerate.cpp - Linux-like enumeration of the endpoint at open.
 */
#include "enumerate.h"

#include "abbsim.h"
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
	uint32_t id = a.r32(0x00);
	if (id != (ABB_DEVICE_ID << 16 | ABB_VENDOR_ID)) {
		snprintf(buf, sizeof buf, "enumeration: unexpected vendor/device 0x%08x", id);
		err = buf;
		return -ENODEV;
	}
	if ((a.r8(0x0e) & 0x7f) != 0) {
		err = "enumeration: not a type 0 header";
		return -ENODEV;
	}
	/* Size the BARs with decoding off, as pci_read_bases() does. */
	uint16_t cmd = a.r16(0x04);
	a.w16(0x04, cmd & ~0x3);
	uint32_t next = BarWindowBase;
	for (unsigned i = 0; i < 6; i++) {
		unsigned off = 0x10 + 4 * i;
		uint32_t orig = a.r32(off);
		a.w32(off, 0xffffffffu);
		uint32_t mask = a.r32(off);
		a.w32(off, orig);
		if (!mask)
			continue;
		if (mask & 1) {
			err = "enumeration: I/O BAR not expected";
			return -ENODEV;
		}
		if (((mask >> 1) & 3) == 2) {
			err = "enumeration: 64-bit BAR not expected";
			return -ENODEV;
		}
		uint32_t size = ~(mask & ~0xfu) + 1;
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
	if (a.r16(0x06) & 0x10) {
		unsigned ptr = a.r8(0x34) & ~3u;
		for (int guard = 0; ptr && guard < 48; guard++) {
			unsigned idc = a.r8(ptr);
			if (idc == 0x01) pm = ptr;
			if (idc == 0x05) msi = ptr;
			if (idc == 0x10) exp = ptr;
			ptr = a.r8(ptr + 1) & ~3u;
		}
	}
	if (!exp) {
		err = "enumeration: PCI Express capability missing";
		return -ENODEV;
	}
	if (pm)
		a.w16(pm + 4, a.r16(pm + 4) & ~3); /* D0 */
	/* MPS: the smaller of what the device supports and what the platform
	 * (root port) is set to; MRRS as configured; extended tags if
	 * supported; RCB of the root port in Link Control. */
	uint32_t devcap = a.r32(exp + 4);
	unsigned mps_code = size_code(p.mps);
	if (mps_code > (devcap & 7))
		mps_code = devcap & 7;
	uint16_t devctl = a.r16(exp + 8);
	devctl = (uint16_t)((devctl & ~(7u << 5) & ~(7u << 12)) | (mps_code << 5) |
			    (size_code(p.mrrs) << 12));
	if (devcap & (1u << 5))
		devctl |= 1u << 8;
	a.w16(exp + 8, devctl);
	uint16_t lnkctl = a.r16(exp + 16);
	a.w16(exp + 16, p.rcb == 128 ? (lnkctl | 0x8) : (lnkctl & ~0x8));
	devctl = a.r16(exp + 8);
	out.mps = code_size((devctl >> 5) & 7);
	out.mrrs = code_size((devctl >> 12) & 7);
	/* MSI when the device has it (msi=1): address, data, one vector,
	 * enable, and INTx disabled as Linux does when MSI is in use. Else
	 * legacy INTx (Interrupt Disable clear). */
	uint16_t intx_off = 0;
	if (msi) {
		uint16_t mc = a.r16(msi + 2);
		a.w32(msi + 4, MsiAddress);
		unsigned data_off = msi + 8;
		if (mc & 0x80) {
			a.w32(msi + 8, 0);
			data_off = msi + 12;
		}
		a.w16(data_off, MsiData);
		a.w16(msi + 2, (uint16_t)((mc & ~0x70) | 1));
		intx_off = 0x400;
	}
	/* Memory space, bus master. */
	a.w16(0x04, (uint16_t)((cmd & ~0x400) | 0x2 | 0x4 | intx_off));
	a.c.write(0x3c, 1, 0xff);
	return 0;
}

} // namespace abbsim
