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

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
