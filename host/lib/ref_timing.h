/*
 * ref_timing.h - the timed reference model: the device core (ref_model.h)
 * inside a discrete-event model of the platform the simulator has, at TLP
 * granularity: both directions of the PCIe link (serialisation at gen x
 * lanes with 8b/10b or 128b/130b, per-TLP framing, DLLP and SKP overhead,
 * latency, flow-control credits), the root complex (PIO, memory latency,
 * completions split at RCB or MPS, reordering), the hard IP (its transmit
 * buffer, INTx messages or MSI writes) and the RTL's engine
 * (ref_engine.c: RX parser, PIO completer, TX arbiter, descriptor control
 * with prefetch, movers with their tags, event-source FIFO, interrupt
 * generator) at the clock edges the RTL acts on.
 *
 * It takes the simulator's parameters (struct abbsim_params, from the same
 * option rows) and answers with the simulator's device time: every
 * constant of ref_timing.c and ref_engine.c names the line of sim/ or
 * rtl-model/ (or the golden vector) it comes from.
 *
 * Lockstep as the simulator: time moves only inside abb_reftime_run; a
 * register write is posted (queued on the link at now), a register read
 * is a PIO read the caller runs the model for until it is done. No locks:
 * the caller serialises every call (backend_ref_timed.c).
 */
#ifndef ABB_REF_TIMING_H
#define ABB_REF_TIMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "abbsim.h"
#include "ref_model.h"

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

struct abb_reftime;

/* Host memory as the root complex reaches it through the IOMMU. */
struct abb_reftime_host {
	/* as abb_refmodel_host.dma: all or nothing, 0 or -EFAULT */
	int (*dma)(void *ctx, int to_host, uint64_t iova, void *buf, size_t len);
	/* 1 if every byte of [iova, iova+len) is reachable (to_host: for a
	 * device write) */
	bool (*mapped)(void *ctx, int to_host, uint64_t iova, size_t len);
	void *ctx;
};

/* A host PIO read: the caller sets buf and len and runs the model until
 * done (abb_reftime_run stops when it is). */
struct abb_reftime_read {
	uint8_t *buf;
	uint32_t len, left;
	bool done;
};

/* The user clock a parameter set runs at (sim/params.cpp abbsim_clk_mhz). */
unsigned abb_reftime_clk_mhz(const struct abbsim_params *p);
/* The combinations the simulator refuses (sim/params.cpp
 * abbsim_params_check, after the option table checked each value): 0 or
 * -EINVAL with msg. */
int abb_reftime_check(const struct abbsim_params *p, char *msg, size_t n);

/* A board in its reset state at device time 0 (cycle 0), as the
 * simulator's after its hot reset and enumeration; NULL if out of memory
 * (cfg as abb_refmodel_create's; p checked by abb_reftime_check). */
struct abb_reftime *abb_reftime_create(const struct abbsim_params *p,
				       const struct abb_refmodel_cfg *cfg,
				       const struct abb_reftime_host *host);
void abb_reftime_destroy(struct abb_reftime *t);

/* The host's PIO at device time now: a write is posted; a read is queued
 * (r->done once its completions arrived). bar 0 or 1, [off, off+len)
 * inside it. */
void abb_reftime_pio_write(struct abb_reftime *t, unsigned bar, uint32_t off, const void *buf,
			   size_t len);
void abb_reftime_pio_read(struct abb_reftime *t, unsigned bar, uint32_t off,
			  struct abb_reftime_read *r);

/* A decoded line per TLP to path (sim/trace_control.cpp's format: cycle,
 * device time, direction, the TLP as sim/tlp.cpp describes it; "down" when
 * the board took it, "up" when it handed it over); "" or NULL: none.
 * 0 or a negative errno (the file cannot be written). */
int abb_reftime_tlp_log(struct abb_reftime *t, const char *path);

/* A deadline at device time ps, taken now: events at ps scheduled before
 * this call run before it, later ones and the edge at ps after it, as the
 * simulator's deadline event orders (sim/event_queue.h, Platform::
 * register_waiter). */
struct abb_reftime_deadline {
	uint64_t ps, seq;
};
struct abb_reftime_deadline abb_reftime_deadline(struct abb_reftime *t, uint64_t ps);

/* Runs the model in time order up to the deadline d (d.ps UINT64_MAX:
 * none). Returns 1 right after an event a waiter may look for (a PIO read
 * done, an interrupt message arrived), with now at its time; 0 when the
 * deadline comes first (now is d.ps then, unless none: then nothing is
 * left to happen); 2 after max_events events (now at the last). */
int abb_reftime_run(struct abb_reftime *t, struct abb_reftime_deadline d, unsigned max_events);

/* Device time (ps since open), user-clock cycles since open, the time of
 * the next event (UINT64_MAX: none: nothing happens until the host acts). */
uint64_t abb_reftime_now(const struct abb_reftime *t);
uint64_t abb_reftime_cycles(const struct abb_reftime *t);
uint64_t abb_reftime_next(const struct abb_reftime *t);
/* Interrupts the root complex counted (Assert_INTA messages, MSI writes). */
uint64_t abb_reftime_irq_count(const struct abb_reftime *t);
/* TLPs moved on the link so far, both directions (the watchdog's count). */
uint64_t abb_reftime_link_tlps(const struct abb_reftime *t);
/* The parameters in effect (clk_mhz resolved). */
const struct abbsim_params *abb_reftime_params(const struct abb_reftime *t);
/* The device core (board memory for BAR1 access by the caller's tests). */
struct abb_refmodel *abb_reftime_core(struct abb_reftime *t);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
