/*
 * abb_sim.h - simulation-only extras of libabb.
 *
 * Every function here returns -ENOTSUP on a backend other than "sim", so a
 * program may call them unconditionally and still run on the board, with
 * one exception: the timed reference model ("model:timed=1") has device
 * time and serves abb_sim_cycles, abb_sim_advance, abb_sim_link_params
 * (the parameters it was opened with, the simulator's option rows),
 * abb_sim_tlp_log (the simulator's format) and abb_sim_hosttime; the rest
 * (waveforms, IOMMU faults, config space, PCIe rule checks, link
 * injection) return -ENOTSUP there too, and abb_sim_note does nothing.
 * The link and platform parameters are taken from ABB_SIM_* environment
 * variables at abb_open() (see doc/options.md); the URI "sim" accepts the same
 * as options: "sim:mem_size=4194304,mps=256,cpl=mps,credits=ph=1:pd=8".
 */
#ifndef ABB_ABB_SIM_H
#define ABB_ABB_SIM_H

#include <stdio.h>

#include <abb/abb.h>
#include <abbsim_inject.h>
#include <abbsim_note.h>

#ifdef __cplusplus
extern "C" {
#endif

/* User-clock cycles since the board was opened (reset). */
ABB_MUST_USE int abb_sim_cycles(abb_dev *dev, uint64_t *cycles);
/* Lets device time run for ns (nothing else happens on the host side). */
ABB_MUST_USE int abb_sim_advance(abb_dev *dev, int64_t ns);
/* FST waveform of cycles [from, to) (to == 0: until close) to path. Needs
 * the RTL model with tracing compiled in, which runs only when the board
 * was opened with the URI option traceable=1 (ABB_SIM_TRACEABLE=1) or
 * trace=, or ABB_TRACE set: -ENOTSUP otherwise (the default model is the
 * faster one without tracing). */
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
/* Config-space access of the endpoint, as the OS would do it: off a byte
 * offset below 4096, size 1, 2 or 4, naturally aligned (-EINVAL if not).
 * Writes honour the write masks (BAR sizing, read-only and RW1C fields)
 * and take effect at once (BARs, MPS/MRRS, bus master, MSI). The layout
 * (registers, capabilities, bits) by name: the simulator's <abbsim_cfg.h>. */
ABB_MUST_USE int abb_sim_cfg_read(abb_dev *dev, unsigned off, unsigned size, uint32_t *val);
ABB_MUST_USE int abb_sim_cfg_write(abb_dev *dev, unsigned off, unsigned size, uint32_t val);

/* Flow-control credit limits one receiver advertises: header credits count
 * TLPs, data credits 16-byte units; 0 = infinite. */
struct abb_sim_credits {
	unsigned ph, pd, nph, npd, cplh, cpld;
};
/* The simulated link as it is in effect after enumeration (mps and mrrs as
 * Device Control holds them now). */
struct abb_sim_link {
	unsigned gen, lanes;       /* PCIe generation 1..3, lanes */
	unsigned mps, mrrs, rcb;   /* bytes */
	unsigned clk_mhz;          /* user clock of the RTL */
	unsigned cpl_rcb;          /* 1: read completions end at every RCB boundary; 0: up to MPS */
	unsigned link_ns, mem_ns;  /* one-way link latency, host memory read latency */
	unsigned reorder;          /* completions of the ready reads: 0 oldest read first, whole;
				    * 1 one completion of a random one at a time; 2 round robin */
	uint64_t seed;
	unsigned mem_size;         /* BAR1 bytes */
	unsigned iova_scatter;     /* 1: every mapped page its own IOVA */
	struct abb_sim_credits up;   /* device -> root complex (root port's limits) */
	struct abb_sim_credits down; /* root complex -> device (hard block's limits) */
};
/* Fills out from the open simulated board. */
ABB_MUST_USE int abb_sim_link_params(abb_dev *dev, struct abb_sim_link *out);

/* What the simulator's CPU store model did (doc/pio.md) since open or the
 * last call with clear: the mapping (wc 1: write-combined), its WC
 * buffers, the stores of abb_pio_write_block and their bytes, the writes
 * (TLPs) they became and those of them that reached the board with their
 * bytes, the device time (ps) the first store issued and the last write
 * arrived. A read-back after abb_pio_flush makes every write arrive. */
struct abb_sim_pio_stats {
	unsigned wc, wc_buffers;
	uint64_t stores, store_bytes;
	uint64_t tlps;
	uint64_t arrived_tlps, arrived_bytes;
	uint64_t first_store_ps, last_arrival_ps;
};
/* Fills out; clear non-zero starts the counts anew. The simulator only
 * (the timed model has no CPU store model: -ENOTSUP). */
ABB_MUST_USE int abb_sim_pio_stats(abb_dev *dev, struct abb_sim_pio_stats *out, int clear);

/* 1 when the simulated board runs with host-time coupling (ABB_SIM_HOSTTIME=1
 * or the URI option hosttime=1: device time includes the host threads' CPU
 * time between device calls), 0 in lockstep. */
ABB_MUST_USE int abb_sim_hosttime(abb_dev *dev);

/* PCIe rule violations the simulator saw since the last call (payload >
 * MPS, read > MRRS, 4 KiB crossing, flow-control credits exceeded, tag
 * reuse, malformed TLPs, ...): returns how many, copies their messages one
 * per line into buf (NUL terminated, truncated to len; buf may be NULL)
 * and clears the record. */
ABB_MUST_USE int abb_sim_protocol_errors(abb_dev *dev, char *buf, size_t len);

/* A note for the simulator's waveform (make wave): text in its API lane
 * and, by kind, a test boundary that opens and closes the window
 * ABB_TRACE_TEST=suite/test and triggers the flight recorder on a failed
 * test (ABB_TRACE_ON_ERROR). dev NULL: the simulator of this process, if
 * one was opened. Does nothing on other backends or when nothing is traced.
 * libabb itself notes its DMA calls. The kinds (ABB_SIM_NOTE_TEXT,
 * _TEST_BEGIN, _TEST_PASS, _TEST_FAIL; the DMA kinds are libabb's) are
 * the simulator's, <abbsim_note.h> (installed next to abbsim.h). */
void abb_sim_note(abb_dev *dev, unsigned kind, const char *text);

/* Link injection (sim/README.md, "Link injection"): a rule (struct
 * abb_sim_inject_spec) with its kind (enum abb_sim_inject_kind:
 * ABB_SIM_INJ_UR, _CA, _POISON, _DROP, _DELAY, _DUP, _UNEXPECTED,
 * _MALFORMED, _STARVE, _LINK_DOWN, _TRUNCATED), direction (ABB_SIM_DIR_*)
 * and TLP class (ABB_SIM_TLP_*) is defined once, in the simulator's C
 * interface <abbsim_inject.h> (installed next to abbsim.h; the rules and
 * the meaning of each kind are documented there): libabb hands the rule to
 * the simulator as it is. What the board and libabb make of each:
 * doc/injection.md. */
/* Adds a rule; returns its id (>= 0), -EINVAL (bad spec, with a message),
 * -ENOSPC (64 rules). Rules last until abb_sim_inject_clear or the next
 * abb_open of the simulator. */
ABB_MUST_USE int abb_sim_inject(abb_dev *dev, const struct abb_sim_inject_spec *spec);
/* Removes every rule. */
ABB_MUST_USE int abb_sim_inject_clear(abb_dev *dev);
/* How often rule id fired; -ENOENT for an unknown id. */
ABB_MUST_USE int abb_sim_inject_hits(abb_dev *dev, int id);

/* Prints the options of the simulator and the reference model (one table: variable,
 * URI name, backends, default, accepted values, meaning) to f: markdown 0
 * for a terminal, 1 the Markdown table of doc/options.md. Needs no device.
 * -EINVAL if f is NULL. */
int abb_sim_options(FILE *f, int markdown);

/* The simulator's parameters and what a run records, as the sim backend
 * opens the board with them: the defaults, the ABB_SIM_* and ABB_TRACE*
 * variables, then options (the text after "sim:" in a URI, e.g.
 * "mem_size=4M,strict=1"; NULL or "": none). For programs that drive
 * libabbsim through its own C interface (abbsim.h, which defines the two
 * structures; the test bench's emulated VFIO kernel), so that they take
 * the same options with the same parser. 0, or -EINVAL with a message
 * (abb_last_error) naming the option; -ENOMEM. The structures stay valid
 * until abb_sim_config_free. */
struct abbsim_params;
struct abbsim_record;
typedef struct abb_sim_config abb_sim_config;
ABB_MUST_USE int abb_sim_config_new(abb_sim_config **cfg, const char *options);
const struct abbsim_params *abb_sim_config_params(const abb_sim_config *cfg);
const struct abbsim_record *abb_sim_config_record(const abb_sim_config *cfg);
/* The option sim_lib (ABB_SIM_LIB): the simulator library to load, "" when
 * not given. */
const char *abb_sim_config_lib(const abb_sim_config *cfg);
void abb_sim_config_free(abb_sim_config *cfg);

#ifdef __cplusplus
}
#endif
#endif
