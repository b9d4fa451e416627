/*
 * cfg_space.h - the endpoint's configuration space (the "hard IP" model):
 * type 0 header, BAR0 (registers, 64 KiB) and BAR1 (board memory), PM, MSI
 * (only with abbsim_params.msi) and PCI Express capabilities, with per-bit
 * write masks so that BAR sizing, read-only and write-1-to-clear fields
 * behave as on hardware. Interrupt Pin is 1 (INTA); Status bit 3 (Interrupt
 * Status) follows the RTL's interrupt level (set by the hard IP). The
 * layout and the values it presents: abbsim_cfg.h.
 */
#ifndef ABBSIM_CFG_SPACE_H
#define ABBSIM_CFG_SPACE_H

#include <atomic>
#include <cstdint>
#include <string>

#include "abbsim_cfg.h"

struct abbsim_params;

namespace abbsim {

enum : unsigned {
	/* Max payload the device advertises in Device Capabilities: the RTL
	 * takes any MPS up to 4096 (abbsim_params_check refuses more). */
	DevMpsMax = ABBSIM_CFG_MPS_MAX,
};

class CfgSpace {
public:
	/* Power-on / hot-reset contents for these parameters. */
	void reset(const abbsim_params &p, uint16_t bdf);

	/* size 1, 2 or 4, naturally aligned; false if not. */
	bool read(unsigned off, unsigned size, uint32_t *val) const;
	bool write(unsigned off, unsigned size, uint32_t val);

	/* Text in `lspci -xxxx` format. */
	std::string dump() const;

	/* Derived state the hard IP needs. */
	uint16_t bdf() const { return bdf_; }
	bool mem_enabled() const { return rd16(ABBSIM_CFG_COMMAND) & ABBSIM_CMD_MEM; }
	bool bus_master() const { return rd16(ABBSIM_CFG_COMMAND) & ABBSIM_CMD_MASTER; }
	/* Command bit 10: the function must not assert INTx. */
	bool intx_disabled() const { return rd16(ABBSIM_CFG_COMMAND) & ABBSIM_CMD_INTX_DISABLE; }
	/* Status bit 3 (Interrupt Status): the hard IP sets it from the RTL's
	 * interrupt level (simulation thread); config reads see it at once. */
	void set_int_status(bool on) { int_status_.store(on, std::memory_order_relaxed); }
	/* Device Status bit 3 (Unsupported Request Detected): the hard IP sets
	 * it when a request reaches no BAR (simulation thread); RW1C. */
	void set_ur_detected() { ur_detected_.store(true, std::memory_order_relaxed); }
	uint32_t bar_addr(unsigned i) const { return rd32(ABBSIM_CFG_BAR(i)) & ~ABBSIM_BAR_FLAGS; }
	uint32_t bar_size(unsigned i) const { return i == 0 ? ABBSIM_CFG_BAR0_BYTES : bar1_bytes_; }
	/* Device Control MPS / MRRS encodings (0 = 128 B .. 5 = 4096 B). */
	unsigned mps_code() const
	{
		return (rd16(ABBSIM_CFG_EXP + ABBSIM_EXP_DEVCTL) & ABBSIM_EXP_DEVCTL_MPS) >>
		       ABBSIM_EXP_DEVCTL_MPS_SHIFT;
	}
	unsigned mrrs_code() const
	{
		return (rd16(ABBSIM_CFG_EXP + ABBSIM_EXP_DEVCTL) & ABBSIM_EXP_DEVCTL_MRRS) >>
		       ABBSIM_EXP_DEVCTL_MRRS_SHIFT;
	}
	bool msi_enabled() const
	{
		return msi_cap_ && (rd16(ABBSIM_CFG_MSI + ABBSIM_MSI_CTRL) & ABBSIM_MSI_CTRL_ENABLE);
	}
	uint64_t msi_addr() const
	{
		return ((uint64_t)rd32(ABBSIM_CFG_MSI + ABBSIM_MSI_ADDR_HI) << 32) |
		       (rd32(ABBSIM_CFG_MSI + ABBSIM_MSI_ADDR_LO) & ~3u);
	}
	uint16_t msi_data() const { return rd16(ABBSIM_CFG_MSI + ABBSIM_MSI_DATA_64); }

	uint32_t rd32(unsigned off) const
	{
		return b_[off] | (b_[off + 1] << 8) | (b_[off + 2] << 16) | ((uint32_t)b_[off + 3] << 24);
	}
	uint16_t rd16(unsigned off) const { return (uint16_t)(b_[off] | (b_[off + 1] << 8)); }

private:
	void init8(unsigned off, uint8_t v, uint8_t wmask = 0, uint8_t w1c = 0);
	void init16(unsigned off, uint16_t v, uint16_t wmask = 0, uint16_t w1c = 0);
	void init32(unsigned off, uint32_t v, uint32_t wmask = 0, uint32_t w1c = 0);

	uint8_t b_[ABBSIM_CFG_SIZE] = {};
	uint8_t wmask_[ABBSIM_CFG_SIZE] = {};
	uint8_t w1c_[ABBSIM_CFG_SIZE] = {};
	/* Byte of config space at off as a read sees it (Interrupt Status). */
	uint8_t byte_at(unsigned off) const
	{
		if (off == ABBSIM_CFG_STATUS && int_status_.load(std::memory_order_relaxed))
			return (uint8_t)(b_[off] | ABBSIM_STATUS_INT);
		if (off == ABBSIM_CFG_EXP + ABBSIM_EXP_DEVSTA &&
		    ur_detected_.load(std::memory_order_relaxed))
			return (uint8_t)(b_[off] | ABBSIM_EXP_DEVSTA_URD);
		return b_[off];
	}

	uint32_t bar1_bytes_ = 0;
	uint16_t bdf_ = 0;
	bool msi_cap_ = false;
	std::atomic<bool> int_status_{false};
	std::atomic<bool> ur_detected_{false};
};

/* PCIe size encodings. */
unsigned size_code(unsigned bytes); /* 128 -> 0 .. 4096 -> 5 */
unsigned code_size(unsigned code);  /* inverse; codes > 5 read as 4096 */

} // namespace abbsim
#endif
