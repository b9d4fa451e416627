/*
 * abb_sim.h - simulation-only extras of libabb.
 *
 * Every function here returns -ENOTSUP on a backend other than "sim", so a
 * program may call them unconditionally and still run on the board.
 * The link and platform parameters are taken from ABB_SIM_* environment
 * variables at abb_open() (see README.md); the URI "sim" accepts the same
 * as options: "sim:mem_size=4194304,mps=256".
 */
#ifndef ABB_ABB_SIM_H
#define ABB_ABB_SIM_H

#include <abb/abb.h>

#ifdef __cplusplus
extern "C" {
#endif

/* User-clock cycles since the board was opened (reset). */
ABB_MUST_USE int abb_sim_cycles(abb_dev *dev, uint64_t *cycles);
/* Lets device time run for ns (nothing else happens on the host side). */
ABB_MUST_USE int abb_sim_advance(abb_dev *dev, int64_t ns);
/* FST waveform of cycles [from, to) (to == 0: until close) to path. */
ABB_MUST_USE int abb_sim_trace(abb_dev *dev, const char *path, uint64_t from_cycle,
			       uint64_t to_cycle);
/* Decoded log of every TLP with its cycle, to path. */
ABB_MUST_USE int abb_sim_tlp_log(abb_dev *dev, const char *path);

/* IOMMU faults: device accesses to memory that was not mapped. */
struct abb_sim_fault {
	uint64_t iova;
	uint32_t len;
	uint32_t is_write; /* 1: a write was dropped; 0: a read was answered UR */
	uint64_t cycle;
};
/* Copies up to max faults recorded since the last call, returns how many
 * were recorded (may exceed max), clears the record. */
ABB_MUST_USE int abb_sim_faults(abb_dev *dev, struct abb_sim_fault *out, size_t max);

/* Writes the endpoint's config space in `lspci -xxxx` text format. */
ABB_MUST_USE int abb_sim_cfg_dump(abb_dev *dev, const char *path);

#ifdef __cplusplus
}
#endif
#endif
