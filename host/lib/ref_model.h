/*
 * ref_model.h - the reference model of the ABB: the device core.
 *
 * The board's BAR0 registers, its BAR1 memory, the descriptor engine of
 * both DMA channels, the event source, the interrupt generator and the
 * interrupt line, with the strict and lenient behaviour of the register
 * side effects, in plain C and untimed (ref_model.c says what it models
 * and how). It is the yardstick the RTL is compared with: the "model"
 * backend of libabb (backend_ref_model.c) is this core plus the glue to
 * abb_backend (host memory mapping, locking, waiting, the clock), and the
 * differential suite and `make regress` run the same programs on the
 * simulator and on it.
 *
 * The core depends on nothing but <abb/abb_regs.h> and the C library: no
 * locks (the caller serialises every call on one model), no clock (the
 * caller tells it the device time with abb_refmodel_advance), no host memory
 * (every DMA access to host memory goes through the host's dma callback).
 */
#ifndef ABB_REF_MODEL_H
#define ABB_REF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Internal to libabb (not exported from the shared library). */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

struct abb_refmodel;

/* What the device is connected to. */
struct abb_refmodel_host {
	/* A DMA access to host memory at IOVA iova: to_host 1 = the device
	 * writes len bytes from buf (board to host, a posted write), 0 = it
	 * reads len bytes into buf (a read request, or a descriptor fetch).
	 * All or nothing: returns 0 when every byte of [iova, iova+len) is
	 * mapped and was accessed, else a negative errno (-EFAULT) with
	 * nothing accessed. Required. */
	int (*dma)(void *ctx, int to_host, uint64_t iova, void *buf, size_t len);
	/* Optional: a rising edge of the interrupt line (one interrupt). */
	void (*irq)(void *ctx);
	void *ctx;
};

struct abb_refmodel_cfg {
	size_t mem_bytes;   /* BAR1: a power of two, 64 KiB .. 16 MiB */
	bool shared_engine; /* GCR.SHARED_ENGINE at reset (stored only) */
	bool strict;        /* no model-defined register side effects */
};

/* A model in its reset state at device time 0; NULL if out of memory or
 * mem_bytes is no power of two. */
struct abb_refmodel *abb_refmodel_create(const struct abb_refmodel_cfg *cfg,
				   const struct abb_refmodel_host *host);
void abb_refmodel_destroy(struct abb_refmodel *m);

/* BAR0: off a byte offset, multiple of 4, below ABB_REFMODEL_BAR0 (others
 * read 0 and ignore writes). A write of CTRL with V runs the transfer to its
 * end (or to a wait for the event source) before it returns. */
#define ABB_REFMODEL_BAR0 0x10000u
uint32_t abb_refmodel_reg_read(struct abb_refmodel *m, uint32_t off);
void abb_refmodel_reg_write(struct abb_refmodel *m, uint32_t off, uint32_t val);
/* BAR1 PIO; [off, off+len) inside BAR1 (checked by the caller). */
void abb_refmodel_mem_read(struct abb_refmodel *m, uint32_t off, void *buf, size_t len);
void abb_refmodel_mem_write(struct abb_refmodel *m, uint32_t off, const void *buf, size_t len);

/* Device time: lets it run to now_ns (never backwards; an earlier value is
 * ignored). The interrupt generator fires when its latency has passed. */
void abb_refmodel_advance(struct abb_refmodel *m, uint64_t now_ns);
/* Device time of the next thing the reference model would do by itself (the armed
 * interrupt generator), UINT64_MAX if none. */
uint64_t abb_refmodel_next_event(const struct abb_refmodel *m);

/* Interrupts: rising edges of the line (ISR & IER) != 0 so far. */
uint64_t abb_refmodel_irq_count(const struct abb_refmodel *m);

/*
 * Timed mode (ref_engine.c: the timing model of the RTL's engine drives
 * the channels). With the hooks set (abb_refmodel_set_timed, before the
 * first register access) a CTRL write with V only starts the channel (STA
 * BUSY) and calls start; the engine then moves the data through the calls
 * below at the device times it models. Untimed (no hooks) the core is as
 * above: a transfer runs to its end inside the CTRL write.
 */
struct abb_refmodel_timed {
	void (*start)(void *ctx, int chn);    /* a CTRL write with V started chn */
	/* the RESET code, or GCR.SOFT_RESET (soft 1), while chn is busy: the
	 * engine drains it, then calls abb_refmodel_chan_idle */
	void (*reset)(void *ctx, int chn, bool soft);
	/* EVS_CTRL written: the source's ENABLE, and CLEAR (the FIFO emptied) */
	void (*evs_ctrl)(void *ctx, bool enable, bool clear);
	void (*igen_arm)(void *ctx, uint32_t lat); /* IGEN_CTRL ARM: IGEN_LAT 4-ns units */
	void (*igen_stop)(void *ctx);              /* IGEN reset or GCR.SOFT_RESET */
	void (*line)(void *ctx, bool level);  /* the interrupt line changed */
	uint64_t (*cycles)(void *ctx);        /* DIAG_CYC: user-clock cycles */
	/* DIAG_PARAM/GSR: the negotiated MPS and MRRS codes (0 = 128 B) */
	unsigned mps_code, mrrs_code;
	void *ctx;
};
void abb_refmodel_set_timed(struct abb_refmodel *m, const struct abb_refmodel_timed *t);

/* A descriptor as the channel's check (StCheck) sees it. */
struct abb_refmodel_desc {
	uint32_t pa;   /* board byte address: PAL with UPA, else where the chain left off */
	uint64_t ha;   /* host address (IOVA) */
	uint32_t len;  /* bytes */
	uint64_t bda;  /* next descriptor's address */
	uint32_t ctrl;
	bool inc;      /* board address increments (else a FIFO port) */
	bool last;     /* LAST */
	bool bda_ok;   /* next_bda aligned to the descriptor size */
	bool evs;      /* DMA read from the event source (fixed, pa == EVS_ADDR) */
};
/* The descriptor in chn's registers: 0 (valid, *d filled) or -1 (invalid:
 * GER.DESC_ERR is for the caller to raise with abb_refmodel_chan_error). */
int abb_refmodel_desc_check(struct abb_refmodel *m, int chn, struct abb_refmodel_desc *d);
/* The mover finished d: the chain's board address continues after it. */
void abb_refmodel_desc_moved(struct abb_refmodel *m, int chn, const struct abb_refmodel_desc *d);
/* The prefetched descriptor (32 bytes, little-endian words PAH..CTRL)
 * becomes chn's current one. */
void abb_refmodel_desc_load(struct abb_refmodel *m, int chn, const uint8_t *d);
/* The chain ended with its LAST descriptor: STA DONE, ISR with EDI; idle. */
void abb_refmodel_chan_done(struct abb_refmodel *m, int chn);
/* An error: GER |= ger, STA error, ISR if CTRL has a bit of irq_mask; idle
 * 1: the channel is idle now, 0: it drains (abb_refmodel_chan_idle later). */
void abb_refmodel_chan_error(struct abb_refmodel *m, int chn, uint32_t ger, uint32_t irq_mask,
			     bool idle);
/* A drain ended: chn is idle; STA reads idle unless keep (an error). */
void abb_refmodel_chan_idle(struct abb_refmodel *m, int chn, bool keep);
/* n bytes of DMA-read payload from board byte address pa (inc: onward;
 * else every DW from pa; evs: the event source's next DWs). */
void abb_refmodel_c2h_data(struct abb_refmodel *m, uint32_t pa, bool inc, bool evs, uint8_t *buf,
			   uint32_t n);
/* n bytes of DMA-write data into board memory at pa (inc: onward; else
 * the last DW stays at pa). */
void abb_refmodel_h2c_data(struct abb_refmodel *m, uint32_t pa, bool inc, const uint8_t *buf,
			   uint32_t n);
/* The model-only counters (DIAG_*): TLPs as the engine sends them. */
enum abb_refmodel_counter { ABB_REFMODEL_C2H_TLP, ABB_REFMODEL_H2C_REQ, ABB_REFMODEL_CPL,
			    ABB_REFMODEL_DESC };
void abb_refmodel_count(struct abb_refmodel *m, enum abb_refmodel_counter c);
/* The armed interrupt generator fires (ISR.IGEN). */
void abb_refmodel_igen_fire(struct abb_refmodel *m);
/* MRD_CR's tag limit (0: all tags); GCR.SHARED_ENGINE; the channel busy. */
unsigned abb_refmodel_tag_limit(const struct abb_refmodel *m);
bool abb_refmodel_shared_engine(const struct abb_refmodel *m);
bool abb_refmodel_chan_busy(const struct abb_refmodel *m, int chn);
/* EVS_SIZE and EVS_GAP (the source's event size in DWs, the idle cycles
 * between events), EVS_ADDR. */
uint32_t abb_refmodel_evs_size(const struct abb_refmodel *m);
uint32_t abb_refmodel_evs_gap(const struct abb_refmodel *m);
uint32_t abb_refmodel_evs_addr(const struct abb_refmodel *m);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
