/*
 * enumerate.h - what the root complex's firmware and Linux do to a new
 * endpoint: identify it, size and assign the BARs, walk the capability
 * list, program MPS/MRRS, the MSI address and data, and enable memory
 * space, bus mastering and MSI. Works only through config accesses.
 */
#ifndef ABBSIM_ENUMERATE_H
#define ABBSIM_ENUMERATE_H

#include <cstdint>
#include <string>

#include "cfg_space.h"

struct abbsim_params;

namespace abbsim {

struct Enumerated {
	uint32_t bar_addr[2] = {0, 0};
	uint32_t bar_size[2] = {0, 0};
	unsigned mps = 0, mrrs = 0;
};

constexpr uint32_t BarWindowBase = 0xf0000000; /* first BAR address */
constexpr uint32_t MsiAddress = 0xfee00000;   /* x86 local APIC window */
constexpr uint16_t MsiData = 0x4041;          /* vector 0x41, edge, fixed */

/* 0 or a negative errno with a message in err. */
int enumerate(CfgSpace &cfg, const abbsim_params &p, Enumerated &out, std::string &err);

} // namespace abbsim
#endif
