/*
 * abb_priv.h - internals shared by the units of libabb (not installed).
 *
 * Locking: the buffer registry lock (abb_dmabuf.c) is taken before a
 * channel lock, never the other way round. Locks are held only for short
 * bookkeeping, never while waiting for the board.
 *
 * Lifetime of a device: the threads inside a DMA start, a DMA wait or
 * abb_irq_wait are counted (abb_dev_enter / abb_dev_leave), and so are
 * the PIO calls (registers, board memory, device time, buffer mapping,
 * abb_sim_*: abb_pio_enter / abb_pio_leave, one atomic counter, no lock).
 * abb_close marks the device closing (new calls are refused, running waits
 * end within one slice), stops the channels, waits until both counts are
 * 0, then frees the backend. The abb_dev itself is never returned to the allocator: it is
 * marked dead and kept (abb_core.c), so a closed handle is recognised.
 */
#ifndef ABB_PRIV_H
#define ABB_PRIV_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <abb/abb.h>
#include <abb/abb_regs.h>
#include <abbsim_note.h>

#include "backend.h"
#include "sim_ops.h"

#if defined(__GNUC__)
#define ABB_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define ABB_HIDDEN __attribute__((visibility("hidden")))
#else
#define ABB_PRINTF(a, b)
#define ABB_HIDDEN
#endif

/* Descriptor words, in the order of the channel register block. */
enum {
	ABB_DW_PAH,
	ABB_DW_PAL,
	ABB_DW_HAH,
	ABB_DW_HAL,
	ABB_DW_BDAH,
	ABB_DW_BDAL,
	ABB_DW_LENG,
	ABB_DW_CTRL,
	ABB_DESC_WORDS
};

/* One DMA channel. Index = the board's channel number: ABB_CH_H2C (0,
 * DMA write) and ABB_CH_C2H (1, DMA read). */
struct abb_chan {
	pthread_mutex_t lock;  /* guards the fields below */
	const char *what;      /* "DMA read" / "DMA write", for messages */
	uint32_t base;         /* ABB_BLK_C2H / ABB_BLK_H2C */
	uint32_t irq_bit;      /* ABB_ISR_C2H / ABB_ISR_H2C */
	bool busy;             /* started, completion not yet collected */
	bool waiting;          /* a thread is inside _wait */
	unsigned flags;        /* ABB_DMA_* of the running transfer */
	struct abb_dmabuf *buf;/* buffer of the running transfer (pinned) */
	uint64_t irq_seen;     /* interrupt count before the start */
	size_t len;            /* bytes of the running transfer */
	uint64_t t_start_ns;   /* device time when its CTRL write was sent */
	/* Fastest device time per byte seen on this channel for a transfer of
	 * at least ABB_POLL_LEARN bytes, in ps (0: none yet). A polled wait of
	 * such a transfer sleeps 7/8 of the time it would take at that rate
	 * before its first STA read, so status reads do not steal link
	 * bandwidth from the data (their completions share the upstream
	 * direction with DMA-read data). Only large transfers teach and use
	 * it: their fixed start/finish overhead is a few per cent, inside the
	 * 1/8 margin, so the first STA read never comes after the end. */
	uint64_t ps_per_byte;

	/* Descriptor area in host memory (page aligned, mapped for the
	 * device) for descriptors 2..n; grows when a transfer needs more. */
	void *desc_mem;
	size_t desc_bytes;
	struct abb_seg *desc_segs;
	size_t desc_nsegs;
};

struct abb_dev {
	uint32_t magic;           /* ABB_DEV_LIVE, ABB_DEV_CLOSING or ABB_DEV_DEAD */
	const struct abb_backend *be;
	void *be_priv;
	const struct abb_sim_ops *sim; /* simulation-only operations: set by the sim backend's
					* and the timed model's open, NULL on every other
					* backend (sim_ops.h) */
	size_t bar0_size;
	size_t bar1_size;
	unsigned watchdog_s;      /* wall-clock limit of a wait, 0: none (set by the sim backend
				   * and the timed model) */
	/* Longest wait for a DMA or an interrupt, device time in ns (0: none):
	 * ABB_WAIT_LIMIT_MS, else 10 s without a wall-clock watchdog. A DMA
	 * wait that reaches it stops the transfer (-ETIMEDOUT, channel reset). */
	uint64_t wait_limit_ns;
	pthread_mutex_t irq_lock; /* IER read-modify-write, GER clearing */
	pthread_mutex_t life_lock;/* active, closing */
	pthread_cond_t life_cond; /* broadcast when active drops to 0 */
	unsigned active;          /* threads inside a start, a wait or abb_irq_wait */
	int closing;              /* abb_close began (read with abb_dev_closing) */
	unsigned pio;             /* threads inside a PIO call (atomic, abb_pio_enter) */
	struct abb_chan chan[2];
	struct abb_dmabuf *bufs;  /* live buffers; registry lock */
	struct abb_dev *dead_next;/* FIFO of closed devices (abb_core.c) */
};

#define ABB_DEV_LIVE 0x56454441u    /* "ADEV" */
#define ABB_DEV_CLOSING 0x534f4c43u /* "CLOS" */
#define ABB_DEV_DEAD 0x44414544u    /* "DEAD" */

/* Interrupt-mode waits re-read the status at least this often (device
 * time), whether or not an interrupt came: an interrupt taken by another
 * thread, a soft reset or abb_close cannot make them sleep for ever. */
#define ABB_IRQ_SLICE_NS 1000000

/* A mapped buffer. Handles live in slabs that are never returned to the
 * allocator while the library is loaded, so a stale handle can be checked
 * without touching freed memory (abb_dmabuf.c). */
struct abb_dmabuf {
	uint32_t magic;          /* ABB_DMABUF_LIVE or ABB_DMABUF_DEAD */
	abb_dev *dev;
	void *ptr;
	size_t len;
	struct abb_seg *segs;
	size_t nsegs;
	unsigned users;          /* running DMAs using it */
	unsigned access;         /* ABB_ACCESS_*: what the device may do with it */
	struct abb_dmabuf *next; /* device list (live) */
	struct abb_dmabuf *prev;
};

/* What a mapped buffer's memory allows (abb_dmabuf_map looks at the
 * process's mappings): the device may read it (host-to-board DMA, "DMA
 * write") if readable, write it (board-to-host, "DMA read") if also
 * writable. */
#define ABB_ACCESS_DEV_READ  0x1u
#define ABB_ACCESS_DEV_WRITE 0x2u
/* abb_dmabuf.c: 0 if the device may write buf (dev_writes: a DMA read into
 * it) or read it; else -EACCES with a message (a read-only buffer). Called
 * with the registry lock held, after abb_dmabuf_check_locked. */
ABB_HIDDEN int abb_dmabuf_can(const char *fn, const abb_dmabuf *buf, bool dev_writes);

/* abb_error.c: sets the calling thread's message, returns err. */
ABB_HIDDEN int abb_err(int err, const char *fmt, ...) ABB_PRINTF(2, 3);
/* A note for the simulator's waveform (sim op note; nothing elsewhere):
 * kind ABB_SIM_NOTE_* and the DMA's channel (ABB_SIM_NOTE_NO_CHANNEL for
 * text), <abbsim_note.h>. */
ABB_HIDDEN void abb_note(abb_dev *dev, unsigned kind, unsigned channel, const char *fmt, ...)
	ABB_PRINTF(4, 5);
/* Prefixes the current message with "what: " (keeps err). */
ABB_HIDDEN int abb_err_prefix(int err, const char *what);
/* Splits the URI options "key=value,key=value" (at most maxlen - 1
 * characters, maxlen <= 512) and calls fn for each in order; stops at the
 * first non-zero return. -EINVAL naming the backend when the text is too
 * long or an option has no value. */
ABB_HIDDEN int abb_opt_each(const char *backend, const char *args, size_t maxlen,
			    int (*fn)(void *ctx, const char *key, const char *val), void *ctx);

/* abb_dmabuf.c */
ABB_HIDDEN void abb_registry_lock(void);
ABB_HIDDEN void abb_registry_unlock(void);
/* With the registry locked: 0 if buf is a live buffer of dev, else a
 * negative errno with a message naming fn. */
ABB_HIDDEN int abb_dmabuf_check_locked(const char *fn, abb_dev *dev, const abb_dmabuf *buf);
/* Unmaps every buffer of dev (abb_close). */
ABB_HIDDEN void abb_dmabuf_close_all(abb_dev *dev);
/* Device-visible address of byte off of a segment list; *contig gets how
 * many bytes from there on are contiguous. -ERANGE if off is outside. */
ABB_HIDDEN int abb_seg_iova(const struct abb_seg *segs, size_t nsegs, uint64_t off,
			    uint64_t *iova, uint64_t *contig);

/* abb_dma.c */
ABB_HIDDEN void abb_dma_init(abb_dev *dev);
/* Resets both channels (abb_open). */
ABB_HIDDEN int abb_dma_reset_all(abb_dev *dev);
/* abb_close, with dev->closing set: resets the channels a thread waits
 * on, so that the waiters end at once (polling) or within a slice. */
ABB_HIDDEN void abb_dma_stop_waiters(abb_dev *dev);
/* Waits (bounded) for running DMAs nobody waits for, resets busy
 * channels, frees the descriptor areas (abb_close, after every waiter
 * left). */
ABB_HIDDEN void abb_dma_fini(abb_dev *dev);

/* abb_core.c: device lifetime (see the top of this file). abb_dev_check:
 * 0 if dev is an open device, else -EINVAL with a message naming fn (NULL,
 * closed, or being closed). abb_dev_enter: the same check, then counts the
 * calling thread as active; every 0 return is paired with abb_dev_leave. */
ABB_HIDDEN int abb_dev_check(const char *fn, const abb_dev *dev);
ABB_HIDDEN int abb_dev_enter(const char *fn, abb_dev *dev);
ABB_HIDDEN void abb_dev_leave(abb_dev *dev);
/* The same for a short call (PIO): dev passed abb_dev_check already; counts
 * the thread without a lock and refuses (-EINVAL, message) once abb_close
 * began. Every 0 return is paired with abb_pio_leave. */
ABB_HIDDEN int abb_pio_enter(const char *fn, abb_dev *dev);
ABB_HIDDEN void abb_pio_leave(abb_dev *dev);

/* abb_watchdog.c: the simulator's wall-clock watchdog in a wait (a no-op
 * without dev->watchdog_s). init at the wait's start; before_sleep and
 * after_sleep around each sleep (the backend's interrupt wait or delay):
 * TLPs moved meanwhile are progress; check after each status read:
 * -ETIME with a message naming `what` when the watchdog fired. */
struct abb_watch {
	double start, last_move; /* wall-clock s */
	uint64_t tlps;           /* the link's TLP count before the sleep */
	bool counted;            /* tlps was read */
};
ABB_HIDDEN void abb_watch_init(struct abb_watch *w);
ABB_HIDDEN void abb_watch_before_sleep(abb_dev *dev, struct abb_watch *w);
ABB_HIDDEN void abb_watch_after_sleep(abb_dev *dev, struct abb_watch *w);
ABB_HIDDEN int abb_watch_check(abb_dev *dev, const struct abb_watch *w, const char *what);
/* 1 once abb_close began: waits end (-ECANCELED). */
ABB_HIDDEN int abb_dev_closing(abb_dev *dev);
/* Lets ns of device time pass: the backend's delay_ns, else a sleep
 * (backends whose device time is the host's clock). */
ABB_HIDDEN int abb_nap(abb_dev *dev, int64_t ns);
/* Saturating start + timeout (timeout < 0: UINT64_MAX, no end). */
ABB_HIDDEN uint64_t abb_deadline(uint64_t start, int64_t timeout_ns);
/* After an interrupt source was cleared (IER bit): the backend's
 * irq_unmask, if it has one. */
ABB_HIDDEN void abb_irq_unmask(abb_dev *dev);
/* Before a wait for the sources in keep sleeps (first time, or after a
 * wake that was not for keep): clears the IER bits of the other pending
 * sources (ISR & IER) and unmasks, so that the shared level line can rise
 * again for keep. */
ABB_HIDDEN int abb_irq_ack_others(abb_dev *dev, uint32_t keep);

/* abb_core.c: register access without argument checks (for library code). */
ABB_HIDDEN int abb_rd(abb_dev *dev, uint32_t off, uint32_t *val);
ABB_HIDDEN int abb_wr(abb_dev *dev, uint32_t off, uint32_t val);
/* IER read-modify-write under dev->irq_lock, touching only bits. */
ABB_HIDDEN int abb_ier_set(abb_dev *dev, uint32_t bits, uint32_t *was);
ABB_HIDDEN int abb_ier_clear(abb_dev *dev, uint32_t bits);

#endif
