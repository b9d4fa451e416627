/*
 * sim_ops.h - the simulation-only operations of a libabb device.
 *
 * The backend table (backend.h) holds only what every backend has, in the
 * manner of libpci's struct pci_methods; what only a simulated board can
 * do (the calls of <abb/abb_sim.h>, the waveform notes, the link's TLP
 * count of the wall-clock watchdog) is this second table. The sim backend
 * registers it on the device at open (dev->sim, abb_priv.h), and so does
 * the timed reference model (backend_ref_timed.c) for what it serves:
 * cycles, advance, link_params, tlp_log, link_tlps and hosttime; its other
 * members answer -ENOTSUP with a message naming what the model lacks, its
 * note does nothing. The board and the untimed model leave dev->sim NULL,
 * and abb_sim_api.c then answers -ENOTSUP with "only the simulator has
 * this".
 *
 * The same contract as the backend table: abb_sim_api.c checks every
 * argument first and calls an operation inside abb_pio_enter/_leave;
 * int operations return 0 (or a count) or a negative errno with a message
 * (abb_err). Every member is set (an operation a backend lacks answers
 * -ENOTSUP itself).
 */
#ifndef ABB_SIM_OPS_H
#define ABB_SIM_OPS_H

#include <stddef.h>
#include <stdint.h>

#include <abb/abb.h>

struct abb_sim_fault;
struct abb_sim_pio_stats;
struct abb_sim_link;
struct abb_sim_inject_spec;

struct abb_sim_ops {
	/* 1: device time includes the host threads' CPU time (host-time
	 * coupling, abb_sim_hosttime); 0: lockstep */
	unsigned hosttime;

	int (*cycles)(abb_dev *dev, uint64_t *cycles);
	/* TLPs moved on the link so far, both directions: the core's
	 * wall-clock watchdog (dev->watchdog_s) fires only when it stands
	 * still (abb_watchdog.c) */
	int (*link_tlps)(abb_dev *dev, uint64_t *n);
	int (*advance)(abb_dev *dev, int64_t ns);
	int (*trace)(abb_dev *dev, const char *path, uint64_t from_cycle, uint64_t to_cycle);
	int (*tlp_log)(abb_dev *dev, const char *path);
	int (*faults)(abb_dev *dev, struct abb_sim_fault *out, size_t max);
	int (*cfg_dump)(abb_dev *dev, const char *path);
	int (*cfg_read)(abb_dev *dev, unsigned off, unsigned size, uint32_t *val);
	int (*cfg_write)(abb_dev *dev, unsigned off, unsigned size, uint32_t val);
	int (*link_params)(abb_dev *dev, struct abb_sim_link *out);
	int (*protocol_errors)(abb_dev *dev, char *buf, size_t len);
	int (*inject)(abb_dev *dev, const struct abb_sim_inject_spec *spec);
	int (*inject_clear)(abb_dev *dev);
	int (*inject_hits)(abb_dev *dev, int id);
	/* the CPU store model's statistics (abb_sim_pio_stats) */
	int (*pio_stats)(abb_dev *dev, struct abb_sim_pio_stats *out, int clear);
	/* A note for the simulator's waveform (abbsim_trace_note:
	 * ABBSIM_NOTE_* kinds; the libabb call being served, DMA boundaries,
	 * abb_note). Does nothing when nothing is traced; NULL: a backend
	 * with no waveform (the note is not even formatted). */
	void (*note)(abb_dev *dev, unsigned kind, unsigned channel, const char *text);
};

#endif
